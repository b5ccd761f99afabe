//! The counting rule against the specification's worked example, each clause, and the
//! properties every answer keeps.

use jiff::ToSpan;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use proptest::prelude::*;

use super::calendar::{Calendar, CalendarDoc, Closure};
use super::count::{Facility, HoldSpan, Span, coming, count};
use super::money::Money;
use super::tariff::Kind;
use super::tariff::{Owner, Tariff, TariffDoc, Wanted, select};

fn date(s: &str) -> Date {
    s.parse().unwrap()
}

fn us(s: &str) -> i64 {
    s.parse::<jiff::Timestamp>().unwrap().as_microsecond()
}

/// The specification's tariff: 4 working days from the day after discharge, then 150.00 for
/// chargeable days 1–4 and 180.00 from day 5, customs holds and closures excused.
fn maersk() -> TariffDoc {
    serde_json::from_value(serde_json::json!({
        "name": "Maersk US import demurrage, dry", "issuer": "MAEU", "kind": "demurrage",
        "ports": ["USLAX", "USLGB"], "equipment": [{"type": "dry", "lengths": [20, 40, 45]}],
        "valid_from": "2026-01-01", "valid_to": null, "currency": "USD",
        "free_time": {"days": 4, "count": "working", "from": "discharged", "starts": "next_day"},
        "charges": {"count": "calendar"},
        "tiers": [{"from_day": 1, "to_day": 4, "rate": "150.00"}, {"from_day": 5, "to_day": null, "rate": "180.00"}],
        "excuse": {"closures": true, "holds": ["customs"]},
        "source": {"url": "https://example.com/tariff", "retrieved": "2026-11-30"}
    }))
    .unwrap()
}

fn tariff() -> Tariff {
    maersk().check().unwrap()
}

fn uslax(holidays: &[&str], closures: &[(&str, &str)]) -> Calendar {
    Calendar::of(&CalendarDoc {
        port: "USLAX".into(),
        facility: None,
        weekend: Some(vec!["sat".into(), "sun".into()]),
        holidays: holidays.iter().map(|d| date(d)).collect(),
        holidays_rule: None,
        closures: closures
            .iter()
            .map(|(d, r)| Closure {
                date: date(d),
                reason: (*r).into(),
            })
            .collect(),
        source: None,
    })
}

fn la() -> TimeZone {
    TimeZone::get("America/Los_Angeles").unwrap()
}

fn quote(
    t: &Tariff,
    cal: &Calendar,
    holds: &[HoldSpan],
    start: &str,
    end: Option<&str>,
) -> super::Counted {
    let zone = la();
    let f = Facility {
        calendar: cal,
        zone: &zone,
        holds,
    };
    count(
        t,
        &f,
        Span {
            start: date(start),
            end: end.map(date),
            as_of: date("2026-04-30"),
        },
    )
}

#[test]
fn the_worked_example() {
    let cal = uslax(&["2026-03-09"], &[]);
    let c = quote(&tariff(), &cal, &[], "2026-03-05", Some("2026-03-13"));
    assert_eq!(c.free_time_start, date("2026-03-06"));
    assert_eq!(c.last_free_day, Some(date("2026-03-12")));
    assert_eq!(c.days.len(), 1);
    assert_eq!(c.amount.to_string(), "150.00");
    // a holiday is not a working day, and is not listed as excused
    assert!(c.excused.is_empty());
    let later = quote(&tariff(), &cal, &[], "2026-03-05", Some("2026-03-18"));
    assert_eq!(later.days.len(), 6);
    assert_eq!(later.amount.to_string(), "960.00");
    assert_eq!(later.days[4].rate, Money(18_000));
}

#[test]
fn a_closure_and_a_whole_day_hold_are_neither_free_nor_charged() {
    let cal = uslax(&["2026-03-09"], &[("2026-03-10", "weather")]);
    let customs = HoldSpan {
        name: "customs".into(),
        // local 2026-03-16 00:00 to 2026-03-17 00:00 (PDT): covers the 16th exactly
        from_us: us("2026-03-16T07:00:00Z"),
        to_us: Some(us("2026-03-17T07:00:00Z")),
    };
    let c = quote(
        &tariff(),
        &cal,
        &[customs],
        "2026-03-05",
        Some("2026-03-18"),
    );
    // free: 03-06 (1), 03-10 closed, 03-11 (2), 03-12 (3), 03-13 (4)
    assert_eq!(c.last_free_day, Some(date("2026-03-13")));
    let charged: Vec<String> = c.days.iter().map(|d| d.date.to_string()).collect();
    assert_eq!(
        charged,
        ["2026-03-14", "2026-03-15", "2026-03-17", "2026-03-18"]
    );
    let excused: Vec<(String, String)> = c
        .excused
        .iter()
        .map(|e| (e.date.to_string(), e.reason.clone()))
        .collect();
    assert_eq!(
        excused,
        [
            ("2026-03-10".to_string(), "closure: weather".to_string()),
            ("2026-03-16".to_string(), "hold: customs".to_string())
        ]
    );
    // a hold that ends a microsecond before the day's last instant does not cover it
    let short = HoldSpan {
        to_us: Some(us("2026-03-17T07:00:00Z") - 2),
        ..c_hold()
    };
    let c = quote(&tariff(), &cal, &[short], "2026-03-05", Some("2026-03-18"));
    assert!(c.excused.iter().all(|e| e.reason != "hold: customs"));
    // a hold no excuse names is charged through
    let usda = HoldSpan {
        name: "USDA".into(),
        ..c_hold()
    };
    let c = quote(&tariff(), &cal, &[usda], "2026-03-05", Some("2026-03-18"));
    assert_eq!(c.days.len(), 5);
}

fn c_hold() -> HoldSpan {
    HoldSpan {
        name: "customs".into(),
        from_us: us("2026-03-16T07:00:00Z"),
        to_us: Some(us("2026-03-17T07:00:00Z")),
    }
}

#[test]
fn free_time_of_zero_days_charges_from_the_first_counted_day() {
    let mut doc = maersk();
    doc.free_time.days = 0;
    let t = doc.check().unwrap();
    let c = quote(
        &t,
        &Calendar::default(),
        &[],
        "2026-03-05",
        Some("2026-03-06"),
    );
    assert_eq!(c.last_free_day, Some(date("2026-03-05")));
    assert_eq!(c.days.len(), 1);
    assert_eq!(c.days[0].date, date("2026-03-06"));
}

#[test]
fn the_same_day_counts_when_the_tariff_says_so_and_working_days_may_be_the_charged_ones() {
    let mut doc = maersk();
    doc.free_time.starts = super::tariff::Starts::SameDay;
    doc.charges.count = super::tariff::Count::Working;
    let t = doc.check().unwrap();
    let cal = uslax(&[], &[]);
    // Thu 03-05 (1), Fri 03-06 (2), Mon 03-09 (3), Tue 03-10 (4)
    let c = quote(&t, &cal, &[], "2026-03-05", Some("2026-03-16"));
    assert_eq!(c.last_free_day, Some(date("2026-03-10")));
    // Wed 11, Thu 12, Fri 13, (weekend not charged), Mon 16
    assert_eq!(c.days.len(), 4);
    assert_eq!(c.amount, Money(60_000));
}

#[test]
fn a_box_still_there_is_counted_to_the_as_of_date() {
    let c = quote(&tariff(), &uslax(&[], &[]), &[], "2026-03-05", None);
    assert_eq!(c.ended_on, None);
    assert_eq!(c.days.last().map(|d| d.date), Some(date("2026-04-30")));
}

#[test]
fn a_document_that_breaks_a_rule_is_refused_naming_each_field() {
    let mut doc = maersk();
    doc.tiers[1].from_day = 6;
    doc.tiers[0].rate = "150.001".into();
    doc.ports.push("LA".into());
    doc.valid_to = Some(date("2025-12-31"));
    doc.currency = "usd".into();
    let fields: Vec<String> = doc
        .check()
        .unwrap_err()
        .into_iter()
        .map(|p| p.field)
        .collect();
    assert_eq!(
        fields,
        [
            "/ports/2",
            "/valid_to",
            "/currency",
            "/tiers/0/rate",
            "/tiers/1/from_day"
        ]
    );
    let mut open_middle = maersk();
    open_middle.tiers[0].to_day = None;
    let fields: Vec<String> = open_middle
        .check()
        .unwrap_err()
        .into_iter()
        .map(|p| p.field)
        .collect();
    assert_eq!(fields, ["/tiers/0/to_day"]);
    let unknown = serde_json::json!({"kind": "parking"});
    assert!(serde_json::from_value::<Kind>(unknown["kind"].clone()).is_err());
}

#[test]
fn selection_prefers_the_accounts_then_the_exact_port_then_the_closer_equipment_then_the_latest() {
    let with = |f: &dyn Fn(&mut TariffDoc)| {
        let mut d = maersk();
        f(&mut d);
        d.check().unwrap()
    };
    let any_port = with(&|d| d.ports = vec!["*".into()]);
    let any_box =
        with(&|d| d.equipment = serde_json::from_value(serde_json::json!(["*"])).unwrap());
    let dry_any_length = with(&|d| {
        d.equipment = serde_json::from_value(serde_json::json!([{"type": "dry"}])).unwrap()
    });
    let newer = with(&|d| d.valid_from = date("2026-02-01"));
    let expired = with(&|d| {
        d.valid_from = date("2026-03-01");
        d.valid_to = Some(date("2026-03-05"));
    });
    let w = Wanted {
        kind: Kind::Demurrage,
        issuer: "maeu",
        port: "USLAX",
        equipment_type: Some("dry"),
        equipment_length: Some(40),
        on: date("2026-03-05"),
    };
    let pick = |stored: Vec<(Owner, Tariff)>| select(&stored, &w).cloned();
    let public = |t: &Tariff| (Owner::Public, t.clone());
    assert_eq!(
        pick(vec![public(&tariff()), (Owner::Account, any_port.clone())]).map(|p| p.1),
        Some(any_port.clone())
    );
    assert_eq!(
        pick(vec![public(&any_port), public(&tariff())]).map(|p| p.1),
        Some(tariff())
    );
    assert_eq!(
        pick(vec![public(&any_box), public(&dry_any_length)]).map(|p| p.1),
        Some(dry_any_length.clone())
    );
    assert_eq!(
        pick(vec![public(&dry_any_length), public(&tariff())]).map(|p| p.1),
        Some(tariff())
    );
    assert_eq!(
        pick(vec![public(&tariff()), public(&newer)]).map(|p| p.1),
        Some(newer)
    );
    assert_eq!(pick(vec![public(&expired)]), None, "valid_to is exclusive");
    let reefer = Wanted {
        equipment_type: Some("reefer"),
        ..w
    };
    assert!(select(&[public(&tariff())], &reefer).is_none());
}

#[test]
fn a_dst_change_day_is_one_day() {
    // 2026-03-08 is 23 hours long in Los Angeles, 2026-11-01 25 hours
    for (start, end) in [("2026-03-06", "2026-03-12"), ("2026-10-30", "2026-11-05")] {
        let mut doc = maersk();
        doc.free_time.count = super::tariff::Count::Calendar;
        doc.free_time.days = 1;
        let t = doc.check().unwrap();
        let c = quote(&t, &Calendar::default(), &[], start, Some(end));
        let dates: Vec<Date> = c.days.iter().map(|d| d.date).collect();
        let mut expected = Vec::new();
        let mut d = date(start).checked_add(2.days()).unwrap();
        while d <= date(end) {
            expected.push(d);
            d = d.tomorrow().unwrap();
        }
        assert_eq!(dates, expected);
        // a hold over exactly the long or the short day covers it
        let day = date(start).checked_add(2.days()).unwrap();
        let from = day.to_zoned(la()).unwrap().timestamp().as_microsecond();
        let to = day
            .tomorrow()
            .unwrap()
            .to_zoned(la())
            .unwrap()
            .timestamp()
            .as_microsecond();
        let hold = HoldSpan {
            name: "customs".into(),
            from_us: from,
            to_us: Some(to),
        };
        let c = quote(&t, &Calendar::default(), &[hold], start, Some(end));
        assert_eq!(c.excused.len(), 1, "{start}");
    }
}

fn any_day() -> impl Strategy<Value = Date> {
    (0i32..700).prop_map(|n| date("2026-01-01").checked_add(n.days()).unwrap())
}

fn any_tariff() -> impl Strategy<Value = Tariff> {
    (
        0u32..12,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        1i64..50_000,
        1i64..50_000,
        1u32..8,
    )
        .prop_map(|(days, working, charge_working, same_day, r1, r2, split)| {
            let mut d = maersk();
            d.free_time.days = days;
            d.free_time.count = if working {
                super::tariff::Count::Working
            } else {
                super::tariff::Count::Calendar
            };
            d.charges.count = if charge_working {
                super::tariff::Count::Working
            } else {
                super::tariff::Count::Calendar
            };
            d.free_time.starts = if same_day {
                super::tariff::Starts::SameDay
            } else {
                super::tariff::Starts::NextDay
            };
            d.tiers[0].to_day = Some(split);
            d.tiers[1].from_day = split + 1;
            d.tiers[0].rate = Money(r1).to_string();
            d.tiers[1].rate = Money(r2).to_string();
            d.check().unwrap()
        })
}

fn any_holds() -> impl Strategy<Value = Vec<HoldSpan>> {
    prop::collection::vec((0i64..60, 0i64..5, any::<bool>()), 0..4).prop_map(|hs| {
        hs.into_iter()
            .map(|(start_day, len, named)| HoldSpan {
                name: if named {
                    "customs".into()
                } else {
                    "USDA".into()
                },
                from_us: us("2026-03-01T08:00:00Z") + start_day * 86_400_000_000,
                to_us: Some(us("2026-03-01T08:00:00Z") + (start_day + len) * 86_400_000_000),
            })
            .collect()
    })
}

fn any_calendar() -> impl Strategy<Value = (Vec<Date>, Vec<Date>)> {
    let day = (0i32..90).prop_map(|n| date("2026-03-01").checked_add(n.days()).unwrap());
    (
        prop::collection::vec(day.clone(), 0..6),
        prop::collection::vec(day, 0..3),
    )
}

fn calendar_of(holidays: &[Date], closures: &[Date]) -> Calendar {
    Calendar::of(&CalendarDoc {
        port: "USLAX".into(),
        facility: None,
        weekend: None,
        holidays: holidays.to_vec(),
        holidays_rule: None,
        closures: closures
            .iter()
            .map(|d| Closure {
                date: *d,
                reason: "weather".into(),
            })
            .collect(),
        source: None,
    })
}

proptest! {
    #[test]
    fn the_amount_never_falls_when_the_box_leaves_later(
        t in any_tariff(), (hol, clo) in any_calendar(), holds in any_holds(), e1 in 0i32..60, more in 0i32..30,
    ) {
        let cal = calendar_of(&hol, &clo);
        let start = date("2026-03-02");
        let end1 = start.checked_add(e1.days()).unwrap();
        let end2 = end1.checked_add(more.days()).unwrap();
        let at = |end: Date| {
            let zone = la();
            count(&t, &Facility { calendar: &cal, zone: &zone, holds: &holds }, Span { start, end: Some(end), as_of: end })
        };
        let (a, b) = (at(end1), at(end2));
        prop_assert!(a.amount <= b.amount);
        prop_assert_eq!(a.last_free_day, b.last_free_day);
    }

    #[test]
    fn nothing_is_owed_on_or_before_the_last_free_day_and_excused_days_are_never_charged(
        t in any_tariff(), (hol, clo) in any_calendar(), holds in any_holds(), e in 0i32..60,
    ) {
        let cal = calendar_of(&hol, &clo);
        let zone = la();
        let start = date("2026-03-02");
        let end = start.checked_add(e.days()).unwrap();
        let c = count(&t, &Facility { calendar: &cal, zone: &zone, holds: &holds }, Span { start, end: Some(end), as_of: end });
        if let Some(lfd) = c.last_free_day {
            if end <= lfd {
                prop_assert_eq!(c.amount, Money::ZERO);
            }
            prop_assert!(c.days.iter().all(|d| d.date > lfd && d.date <= end));
        }
        for ex in &c.excused {
            prop_assert!(c.days.iter().all(|d| d.date != ex.date));
        }
        let numbered: Vec<u32> = c.days.iter().map(|d| d.day).collect();
        prop_assert_eq!(numbered, (1..=c.days.len() as u32).collect::<Vec<_>>());
        let sum = c.days.iter().fold(Money::ZERO, |s, d| s.plus(d.rate));
        prop_assert_eq!(sum, c.amount);
    }

    #[test]
    fn one_tier_is_days_times_rate(days in 0u32..10, rate in 1i64..100_000, e in 0i32..60) {
        let mut d = maersk();
        d.free_time.days = days;
        d.tiers = vec![super::tariff::TierDoc { from_day: 1, to_day: None, rate: Money(rate).to_string() }];
        let t = d.check().unwrap();
        let zone = la();
        let cal = Calendar::default();
        let start = date("2026-03-02");
        let end = start.checked_add(e.days()).unwrap();
        let c = count(&t, &Facility { calendar: &cal, zone: &zone, holds: &[] }, Span { start, end: Some(end), as_of: end });
        prop_assert_eq!(c.amount, Money(rate * c.days.len() as i64));
    }

    #[test]
    fn the_order_of_holidays_closures_and_holds_does_not_matter(
        t in any_tariff(), (hol, clo) in any_calendar(), holds in any_holds(), e in 0i32..60,
    ) {
        let zone = la();
        let start = date("2026-03-02");
        let end = start.checked_add(e.days()).unwrap();
        let span = Span { start, end: Some(end), as_of: end };
        let cal = calendar_of(&hol, &clo);
        let (mut hol_r, mut clo_r, mut holds_r) = (hol.clone(), clo.clone(), holds.clone());
        hol_r.reverse();
        clo_r.reverse();
        holds_r.reverse();
        let cal_r = calendar_of(&hol_r, &clo_r);
        let a = count(&t, &Facility { calendar: &cal, zone: &zone, holds: &holds }, span);
        let b = count(&t, &Facility { calendar: &cal_r, zone: &zone, holds: &holds_r }, span);
        prop_assert_eq!(a, b);
    }

    #[test]
    fn the_coming_days_add_what_counting_later_adds(
        t in any_tariff(), (hol, clo) in any_calendar(), holds in any_holds(), a in 0i32..40, n in 0u32..10,
    ) {
        let cal = calendar_of(&hol, &clo);
        let zone = la();
        let f = Facility { calendar: &cal, zone: &zone, holds: &holds };
        let start = date("2026-03-02");
        let as_of = start.checked_add(a.days()).unwrap();
        let span = Span { start, end: None, as_of };
        let days = coming(&t, &f, span, n);
        prop_assert_eq!(days.len(), n as usize);
        let added = days.iter().fold(Money::ZERO, |s, d| s.plus(d.adds));
        let later = count(&t, &f, Span { as_of: as_of.checked_add((n as i32).days()).unwrap(), ..span });
        prop_assert_eq!(count(&t, &f, span).amount.plus(added), later.amount);
        // a box that has left accrues nothing more
        let left = Span { end: Some(as_of), ..span };
        prop_assert!(coming(&t, &f, left, n).is_empty());
    }

    #[test]
    fn any_day_is_counted_once(d in any_day()) {
        let t = tariff();
        let zone = la();
        let cal = Calendar::default();
        let c = count(&t, &Facility { calendar: &cal, zone: &zone, holds: &[] }, Span { start: d, end: Some(d), as_of: d });
        prop_assert_eq!(c.amount, Money::ZERO);
    }
}

/// The worked example's box (out-gate 18 March) billed as its tariff says, with every item
/// 46 CFR 541.6 asks for.
fn proper_invoice() -> super::audit::Invoice {
    let days = [
        ("2026-03-13", "150.00"),
        ("2026-03-14", "150.00"),
        ("2026-03-15", "150.00"),
        ("2026-03-16", "150.00"),
        ("2026-03-17", "180.00"),
        ("2026-03-18", "180.00"),
    ];
    serde_json::from_value(serde_json::json!({
        "invoice_number": "INV-1", "invoice_date": "2026-03-25", "due_date": "2026-04-24",
        "issuer": "MAEU", "billed_party": {"name": "Importer Inc", "basis": "consignee on the bill of lading"},
        "bill_of_lading_number": "MAEU123456", "container_number": "MSKU1234565",
        "port_of_discharge": "USLAX", "kind": "demurrage", "currency": "USD",
        "tariff_rule": "US import demurrage, rule 12", "free_time_days": 4,
        "free_time_start": "2026-03-06", "free_time_end": "2026-03-12",
        "container_availability_date": "2026-03-06",
        "lines": days.iter().map(|(d, r)| serde_json::json!({"container_number": "MSKU1234565", "date": d, "rate": r, "amount": r})).collect::<Vec<_>>(),
        "total": "960.00", "contact": "dnd@example.com",
        "dispute_process": "https://example.com/disputes", "dispute_timeframe": "30 days from the invoice date",
        "statements": [
            "The charges are consistent with the Federal Maritime Commission's rules on demurrage and detention.",
            "Our performance did not cause or contribute to these charges."
        ]
    }))
    .unwrap()
}

#[test]
fn a_proper_invoice_of_the_worked_example_has_no_findings() {
    let cal = uslax(&["2026-03-09"], &[]);
    let c = quote(&tariff(), &cal, &[], "2026-03-05", Some("2026-03-18"));
    let computed = super::audit::Computed {
        counted: &c,
        free_days: 4,
        currency: "USD",
    };
    let inv = proper_invoice();
    assert_eq!(super::audit::contents(&inv), vec![]);
    assert_eq!(super::audit::against(&inv, computed), vec![]);
}

#[test]
fn each_missing_item_and_each_wrong_line_is_a_finding_naming_its_rule() {
    use super::audit::{Computed, against, contents};
    let cal = uslax(&["2026-03-09"], &[]);
    let c = quote(&tariff(), &cal, &[], "2026-03-05", Some("2026-03-18"));
    let computed = Computed {
        counted: &c,
        free_days: 4,
        currency: "USD",
    };
    let rules = |f: Vec<super::audit::Finding>| -> Vec<(Option<usize>, String)> {
        f.into_iter().map(|f| (f.line, f.rule)).collect()
    };
    // every 541.6 item missing
    let empty = contents(&super::audit::Invoice::default());
    assert_eq!(empty.len(), 19, "{empty:?}");
    assert!(empty.iter().all(|f| f.rule.starts_with("541.6(")));
    let mut inv = proper_invoice();
    inv.billed_party.basis = None;
    inv.statements.truncate(1);
    assert_eq!(
        rules(contents(&inv)),
        [
            (None, "541.6(a)(4) basis of liability".to_string()),
            (None, "541.6(e)(2) performance statement".to_string())
        ]
    );
    // issued 31 days after the last day charged
    inv = proper_invoice();
    inv.invoice_date = Some("2026-04-18".into());
    assert_eq!(
        rules(contents(&inv)),
        [(None, "541.7(a) invoice issued late".to_string())]
    );
    // a free day billed, the second tier's rate a day early, a day twice, a wrong total
    inv = proper_invoice();
    inv.free_time_end = Some("2026-03-11".into());
    inv.lines[0].date = Some("2026-03-12".into());
    inv.lines[3].rate = Some("180.00".into());
    inv.lines[3].amount = Some("180.00".into());
    inv.lines[5].date = Some("2026-03-17".into());
    assert_eq!(
        rules(against(&inv, computed)),
        [
            (None, "541.6(b)(5) free time end".to_string()),
            (Some(0), "free day".to_string()),
            (Some(3), "tier rate".to_string()),
            (Some(5), "day billed twice".to_string()),
            (None, "total".to_string()),
        ]
    );
    // an excused day billed, and a day after the box left
    let held = [HoldSpan {
        name: "customs".into(),
        from_us: us("2026-03-14T07:00:00Z"),
        to_us: Some(us("2026-03-15T07:00:00Z")),
    }];
    let c = quote(&tariff(), &cal, &held, "2026-03-05", Some("2026-03-18"));
    inv = proper_invoice();
    inv.lines.push(super::audit::InvoiceLine {
        container_number: None,
        date: Some("2026-03-19".into()),
        rate: Some("180.00".into()),
        amount: Some("180.00".into()),
    });
    inv.total = Some("1140.00".into());
    let found = rules(against(
        &inv,
        Computed {
            counted: &c,
            free_days: 4,
            currency: "USD",
        },
    ));
    assert!(
        found.contains(&(Some(1), "excused day".to_string())),
        "{found:?}"
    );
    assert!(
        found.contains(&(Some(6), "not chargeable".to_string())),
        "{found:?}"
    );
}
