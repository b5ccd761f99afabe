//! The counting rule every path uses: from a kind's start date, the free time walked over the
//! days that count to the last free day, then the chargeable days numbered in date order, each
//! at its tier's rate. All dates are local dates at the facility.

use jiff::ToSpan;
use jiff::civil::Date;
use jiff::tz::TimeZone;

use super::calendar::Calendar;
use super::money::Money;
use super::tariff::{Count, Starts, Tariff};

/// The longest a free-time walk goes before it gives up (every day excused, say): no last free
/// day is reached, so nothing is charged.
const WALK_MAX_DAYS: i32 = 1_000;

/// A hold over a span of time (Unix microseconds), named as `holds_at_pod_terminal` names it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HoldSpan {
    /// The hold's name (`customs`, `USDA`, …).
    pub name: String,
    /// When it began.
    pub from_us: i64,
    /// When it ended, or none while it is in force.
    #[serde(default)]
    pub to_us: Option<i64>,
}

/// The days of one kind's clock: its start, its end (none while the box has not moved) and the
/// date it is counted as of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// The local date of the start event.
    pub start: Date,
    /// The local date of the end event, if it happened.
    pub end: Option<Date>,
    /// The date counted to while the box has not moved.
    pub as_of: Date,
}

/// A charged day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChargedDay {
    /// The local date.
    pub date: Date,
    /// Its number among chargeable days (from 1).
    pub day: u32,
    /// Its tier's rate.
    pub rate: Money,
}

/// An excused day and why ("closure: weather", "hold: customs").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excused {
    /// The local date.
    pub date: Date,
    /// Why it is excused.
    pub reason: String,
}

/// What a kind's clock comes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counted {
    /// The day counting begins.
    pub free_time_start: Date,
    /// The last free day (none when the walk never reaches it).
    pub last_free_day: Option<Date>,
    /// The end event's date, if it happened.
    pub ended_on: Option<Date>,
    /// The chargeable days, in date order.
    pub days: Vec<ChargedDay>,
    /// The excused days from the day counting begins to the later of the last free day and
    /// the last date considered, each once.
    pub excused: Vec<Excused>,
    /// The sum of the charged days' rates.
    pub amount: Money,
}

/// What the rule needs of the world: the facility's calendar and zone, and the holds reported.
#[derive(Debug, Clone, Copy)]
pub struct Facility<'a> {
    /// Its working days.
    pub calendar: &'a Calendar,
    /// Its IANA zone.
    pub zone: &'a TimeZone,
    /// The holds reported on the box.
    pub holds: &'a [HoldSpan],
}

impl Facility<'_> {
    /// The first instant of local day `d` (Unix microseconds); at a DST change the day's true
    /// start, whatever its length.
    fn day_start_us(&self, d: Date) -> Option<i64> {
        d.to_zoned(self.zone.clone())
            .ok()
            .map(|z| z.timestamp().as_microsecond())
    }

    /// Why `d` is excused under `t`, if it is: a closure first, then a hold in force from the
    /// day's first instant to its last.
    fn excused(&self, t: &Tariff, d: Date) -> Option<String> {
        if t.doc.excuse.closures
            && let Some(why) = self.calendar.closure(d)
        {
            return Some(format!("closure: {why}"));
        }
        if t.doc.excuse.holds.is_empty() || self.holds.is_empty() {
            return None;
        }
        let (first, next) = (
            self.day_start_us(d)?,
            self.day_start_us(d.tomorrow().ok()?)?,
        );
        let last = next - 1;
        let mut named: Vec<&str> = self
            .holds
            .iter()
            .filter(|h| t.doc.excuse.holds.iter().any(|n| n == &h.name))
            .filter(|h| h.from_us <= first && h.to_us.is_none_or(|to| to >= last))
            .map(|h| h.name.as_str())
            .collect();
        named.sort_unstable();
        named.first().map(|n| format!("hold: {n}"))
    }

    /// Whether `d` counts under `count`.
    fn counts(&self, count: Count, d: Date) -> bool {
        count == Count::Calendar || self.calendar.is_working(d)
    }
}

/// The last free day: from the day counting begins, over the days that are not excused and
/// count, the day the count reaches the free days (with none: the day before counting begins).
fn last_free_day(t: &Tariff, f: &Facility<'_>, begins: Date) -> Option<Date> {
    let days = t.doc.free_time.days;
    if days == 0 {
        return begins.yesterday().ok();
    }
    let mut counted = 0;
    for i in 0..WALK_MAX_DAYS {
        let d = begins.checked_add(i.days()).ok()?;
        if f.excused(t, d).is_none() && f.counts(t.doc.free_time.count, d) {
            counted += 1;
            if counted == days {
                return Some(d);
            }
        }
    }
    None
}

/// What `t` charges over `span` at facility `f`.
pub fn count(t: &Tariff, f: &Facility<'_>, span: Span) -> Counted {
    let begins = match t.doc.free_time.starts {
        Starts::SameDay => span.start,
        Starts::NextDay => span.start.tomorrow().unwrap_or(span.start),
    };
    let lfd = last_free_day(t, f, begins);
    let until = span.end.unwrap_or(span.as_of);
    let mut days = Vec::new();
    let mut amount = Money::ZERO;
    if let Some(lfd) = lfd {
        let mut d = lfd;
        while let Ok(next) = d.tomorrow() {
            d = next;
            if d > until {
                break;
            }
            if f.excused(t, d).is_some() || !f.counts(t.doc.charges.count, d) {
                continue;
            }
            let day = u32::try_from(days.len() + 1).unwrap_or(u32::MAX);
            let rate = t.rate_of(day);
            amount = amount.plus(rate);
            days.push(ChargedDay { date: d, day, rate });
        }
    }
    let shown_to = lfd.map_or(until, |l| l.max(until));
    let excused = excused_days(t, f, begins, shown_to);
    Counted {
        free_time_start: begins,
        last_free_day: lfd,
        ended_on: span.end,
        days,
        excused,
        amount,
    }
}

/// A day still to come and what it adds while the box stays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Coming {
    /// The local date.
    pub date: Date,
    /// What it adds (zero for a free, excused or uncharged day).
    pub adds: Money,
}

/// What each of the `n` days after the as-of date adds while the box stays there; none once
/// the kind's end event happened (nothing more accrues).
pub fn coming(t: &Tariff, f: &Facility<'_>, span: Span, n: u32) -> Vec<Coming> {
    if span.end.is_some() {
        return Vec::new();
    }
    let Ok(last) = span.as_of.checked_add(i32::try_from(n).unwrap_or(0).days()) else {
        return Vec::new();
    };
    let later = count(
        t,
        f,
        Span {
            as_of: last,
            ..span
        },
    );
    let mut out = Vec::new();
    let mut d = span.as_of;
    while let Ok(next) = d.tomorrow() {
        d = next;
        if d > last {
            break;
        }
        let adds = later
            .days
            .iter()
            .find(|c| c.date == d)
            .map_or(Money::ZERO, |c| c.rate);
        out.push(Coming { date: d, adds });
    }
    out
}

/// Each excused date from `from` to `to`, once, with its reason.
fn excused_days(t: &Tariff, f: &Facility<'_>, from: Date, to: Date) -> Vec<Excused> {
    let mut out = Vec::new();
    let mut d = from;
    while d <= to {
        if let Some(reason) = f.excused(t, d) {
            out.push(Excused { date: d, reason });
        }
        match d.tomorrow() {
            Ok(next) => d = next,
            Err(_) => break,
        }
    }
    out
}

/// The local date of an instant (Unix microseconds) in `zone`.
pub fn local_date(us: i64, zone: &TimeZone) -> Option<Date> {
    jiff::Timestamp::from_microsecond(us)
        .ok()
        .map(|ts| ts.to_zoned(zone.clone()).date())
}
