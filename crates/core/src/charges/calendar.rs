//! Which local dates a facility works: its weekend, its holidays (given, or the US federal
//! rule), and its full-day closures with their reasons. A facility's calendar adds its
//! holidays and closures to its port's, and its weekend, when given, replaces the port's.

use std::collections::{BTreeMap, BTreeSet};

use jiff::civil::{Date, Weekday};
use serde::{Deserialize, Serialize};

/// A full-day closure and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Closure {
    /// The local date.
    pub date: Date,
    /// Why (weather, a strike, a system outage).
    pub reason: String,
}

/// A rule that names holidays year by year.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HolidaysRule {
    /// The eleven US federal holidays, a Saturday one observed the Friday before, a Sunday one
    /// the Monday after.
    UsFederal,
}

/// A calendar as it is written and stored (`/v2/calendars`, the shipped files).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CalendarDoc {
    /// The port's UN/LOCODE.
    pub port: String,
    /// The facility (a terminal's code), or none for the whole port.
    #[serde(default)]
    pub facility: Option<String>,
    /// Weekend days (`sat`, `sun`, …); none given: the port's (or Saturday and Sunday).
    #[serde(default)]
    pub weekend: Option<Vec<String>>,
    /// Holidays.
    #[serde(default)]
    pub holidays: Vec<Date>,
    /// A rule adding holidays year by year.
    #[serde(default)]
    pub holidays_rule: Option<HolidaysRule>,
    /// Full-day closures.
    #[serde(default)]
    pub closures: Vec<Closure>,
    /// Where its holidays and closures were read, and when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<super::tariff::Source>,
}

/// A weekday's short name, as calendars write it.
pub fn weekday_name(w: Weekday) -> &'static str {
    match w {
        Weekday::Monday => "mon",
        Weekday::Tuesday => "tue",
        Weekday::Wednesday => "wed",
        Weekday::Thursday => "thu",
        Weekday::Friday => "fri",
        Weekday::Saturday => "sat",
        Weekday::Sunday => "sun",
    }
}

/// The weekday a short name names.
pub fn weekday_of(name: &str) -> Option<Weekday> {
    [
        Weekday::Monday,
        Weekday::Tuesday,
        Weekday::Wednesday,
        Weekday::Thursday,
        Weekday::Friday,
        Weekday::Saturday,
        Weekday::Sunday,
    ]
    .into_iter()
    .find(|w| weekday_name(*w) == name.trim().to_ascii_lowercase())
}

/// The working days of a facility, ready to ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Calendar {
    weekend: BTreeSet<u8>,
    holidays: BTreeSet<Date>,
    us_federal: bool,
    closures: BTreeMap<Date, String>,
}

impl Default for Calendar {
    /// Without any calendar: weekend Saturday and Sunday, no holidays, no closures.
    fn default() -> Calendar {
        Calendar {
            weekend: [Weekday::Saturday, Weekday::Sunday]
                .iter()
                .map(|w| w.to_monday_one_offset() as u8)
                .collect(),
            holidays: BTreeSet::new(),
            us_federal: false,
            closures: BTreeMap::new(),
        }
    }
}

impl Calendar {
    /// The calendar a document describes (on its own: a port's).
    pub fn of(doc: &CalendarDoc) -> Calendar {
        Calendar::default().with(doc)
    }

    /// This calendar with `doc`'s added: its holidays, rule and closures join, and its weekend,
    /// when given, replaces this one's (a facility's calendar over its port's).
    pub fn with(mut self, doc: &CalendarDoc) -> Calendar {
        if let Some(days) = &doc.weekend {
            self.weekend = days
                .iter()
                .filter_map(|d| weekday_of(d))
                .map(|w| w.to_monday_one_offset() as u8)
                .collect();
        }
        self.holidays.extend(doc.holidays.iter().copied());
        self.us_federal |= doc.holidays_rule == Some(HolidaysRule::UsFederal);
        for c in &doc.closures {
            self.closures
                .entry(c.date)
                .or_insert_with(|| c.reason.clone());
        }
        self
    }

    /// Whether `d` is a holiday (given, or by the rule).
    pub fn is_holiday(&self, d: Date) -> bool {
        self.holidays.contains(&d) || (self.us_federal && is_us_federal_holiday(d))
    }

    /// Why the facility is closed all day on `d`, if it is.
    pub fn closure(&self, d: Date) -> Option<&str> {
        self.closures.get(&d).map(String::as_str)
    }

    /// A working day: not a weekend day, not a holiday, not a closure.
    pub fn is_working(&self, d: Date) -> bool {
        !self
            .weekend
            .contains(&(d.weekday().to_monday_one_offset() as u8))
            && !self.is_holiday(d)
            && self.closure(d).is_none()
    }
}

/// The `n`th `weekday` of `month` in `year` (`n` from 1), or the last with `n` = 0.
fn nth(year: i16, month: i8, weekday: Weekday, n: i8) -> Option<Date> {
    let first = Date::new(year, month, 1).ok()?;
    if n == 0 {
        let last = first.last_of_month();
        let back = (last.weekday().to_monday_zero_offset() - weekday.to_monday_zero_offset())
            .rem_euclid(7);
        return last
            .checked_sub(jiff::Span::new().days(i64::from(back)))
            .ok();
    }
    let ahead =
        (weekday.to_monday_zero_offset() - first.weekday().to_monday_zero_offset()).rem_euclid(7);
    first
        .checked_add(jiff::Span::new().days(i64::from(ahead) + 7 * i64::from(n - 1)))
        .ok()
}

/// The day a fixed-date holiday is observed: a Saturday one the Friday before, a Sunday one
/// the Monday after.
fn observed(d: Date) -> Date {
    let shift = match d.weekday() {
        Weekday::Saturday => -1,
        Weekday::Sunday => 1,
        _ => 0,
    };
    d.checked_add(jiff::Span::new().days(shift)).unwrap_or(d)
}

/// The US federal holidays of `year` as observed (New Year's Day of `year + 1` observed on
/// 31 December of `year` included).
pub fn us_federal(year: i16) -> Vec<Date> {
    let fixed = |y: i16, m: i8, d: i8| Date::new(y, m, d).ok().map(observed);
    let mut out: Vec<Date> = [
        fixed(year, 1, 1),
        nth(year, 1, Weekday::Monday, 3),
        nth(year, 2, Weekday::Monday, 3),
        nth(year, 5, Weekday::Monday, 0),
        fixed(year, 6, 19),
        fixed(year, 7, 4),
        nth(year, 9, Weekday::Monday, 1),
        nth(year, 10, Weekday::Monday, 2),
        fixed(year, 11, 11),
        nth(year, 11, Weekday::Thursday, 4),
        fixed(year, 12, 25),
        fixed(year.saturating_add(1), 1, 1),
    ]
    .into_iter()
    .flatten()
    .filter(|d| d.year() == year)
    .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether `d` is a US federal holiday as observed, decided from its month, day and weekday
/// alone (every day a charge walks asks; [`us_federal`] lists a year's).
pub fn is_us_federal_holiday(d: Date) -> bool {
    let (month, day, weekday) = (d.month(), d.day(), d.weekday());
    // a fixed-date holiday on a weekday, or observed on the Friday before a Saturday one or
    // the Monday after a Sunday one (1 January of the next year on 31 December)
    let fixed = |m: i8, dd: i8| (m, dd) == (1, 1) || FIXED.contains(&(m, dd));
    let is_fixed = |x: Date| fixed(x.month(), x.day());
    let observed_fixed = match weekday {
        Weekday::Saturday | Weekday::Sunday => false,
        Weekday::Friday => is_fixed(d) || d.tomorrow().is_ok_and(is_fixed),
        Weekday::Monday => is_fixed(d) || d.yesterday().is_ok_and(is_fixed),
        _ => is_fixed(d),
    };
    // the nth weekday of a month: its day of the month says which one it is
    let nth_monday = |m: i8, days: std::ops::RangeInclusive<i8>| {
        weekday == Weekday::Monday && month == m && days.contains(&day)
    };
    observed_fixed
        || nth_monday(1, 15..=21)
        || nth_monday(2, 15..=21)
        || nth_monday(5, 25..=31)
        || nth_monday(9, 1..=7)
        || nth_monday(10, 8..=14)
        || (weekday == Weekday::Thursday && month == 11 && (22..=28).contains(&day))
}

/// The fixed-date federal holidays other than New Year's Day: Juneteenth, Independence Day,
/// Veterans Day, Christmas.
const FIXED: [(i8, i8); 4] = [(6, 19), (7, 4), (11, 11), (12, 25)];

#[cfg(test)]
mod tests {
    use super::*;

    fn date(s: &str) -> Date {
        s.parse().unwrap()
    }

    #[test]
    fn a_day_is_a_federal_holiday_exactly_when_its_year_lists_it() {
        let mut d = date("2019-12-01");
        while d < date("2041-01-31") {
            let listed = us_federal(d.year()).contains(&d);
            assert_eq!(is_us_federal_holiday(d), listed, "{d}");
            d = d.tomorrow().unwrap();
        }
    }

    #[test]
    fn the_us_federal_holidays_of_2026_and_2027_as_observed() {
        let got: Vec<String> = us_federal(2026).iter().map(Date::to_string).collect();
        assert_eq!(
            got,
            [
                "2026-01-01",
                "2026-01-19",
                "2026-02-16",
                "2026-05-25",
                "2026-06-19",
                "2026-07-03",
                "2026-09-07",
                "2026-10-12",
                "2026-11-11",
                "2026-11-26",
                "2026-12-25"
            ]
        );
        // 2027: Juneteenth and Independence Day fall on a Saturday and a Sunday, Christmas
        // on a Saturday; 1 January 2028 is a Saturday, observed on 31 December 2027
        let got: Vec<String> = us_federal(2027).iter().map(Date::to_string).collect();
        assert!(got.contains(&"2027-06-18".to_string()), "{got:?}");
        assert!(got.contains(&"2027-07-05".to_string()), "{got:?}");
        assert!(got.contains(&"2027-12-24".to_string()), "{got:?}");
        assert!(got.contains(&"2027-12-31".to_string()), "{got:?}");
        assert_eq!(got.len(), 12);
        assert!(!us_federal(2028).contains(&date("2027-12-31")));
    }

    #[test]
    fn a_facility_adds_to_its_port_and_its_weekend_replaces_the_ports() {
        let port = CalendarDoc {
            port: "USLAX".into(),
            facility: None,
            weekend: None,
            holidays: vec![date("2026-03-09")],
            holidays_rule: None,
            closures: vec![],
            source: None,
        };
        let terminal = CalendarDoc {
            facility: Some("Y258".into()),
            weekend: Some(vec!["sun".into()]),
            holidays: vec![],
            closures: vec![Closure {
                date: date("2026-03-10"),
                reason: "weather".into(),
            }],
            ..port.clone()
        };
        let c = Calendar::of(&port).with(&terminal);
        assert!(!c.is_working(date("2026-03-09")), "the port's holiday");
        assert_eq!(c.closure(date("2026-03-10")), Some("weather"));
        assert!(
            c.is_working(date("2026-03-07")),
            "Saturday works at this terminal"
        );
        assert!(!c.is_working(date("2026-03-08")), "Sunday does not");
        let plain = Calendar::default();
        assert!(!plain.is_working(date("2026-03-07")));
        assert!(plain.is_working(date("2026-03-09")));
    }
}
