//! An invoice audit: a demurrage or detention invoice checked against the minimum contents
//! 46 CFR 541.6 requires (each missing item a finding: under 541.5 the billed party need not
//! pay such an invoice), against 541.7's thirty days from the charge last incurred, and line
//! by line against the charge the tariff computes (days billed that are free or excused,
//! another tier's rate, a wrong amount or total).
//!
//! 541.6, as the regulation numbers it: (a) identifying information — (1) the bill of lading
//! number, (2) the container number, (3) for imports the port of discharge, (4) the basis for
//! why the billed party is liable; (b) timing — (1) the invoice date, (2) its due date, (3) the
//! allowed free time in days, (4) its start date, (5) its end date, (6) for imports the
//! container availability date, (7) for exports the earliest return date (not checked: the
//! charges here are import charges), (8) the dates charged; (c) rate — (1) the total due, (2)
//! the applicable tariff rule, (3) the rate or rates; (d) dispute — (1) a contact for
//! questions and mitigation requests, (2) where the dispute process is published, (3) the
//! timeframes to request mitigation, refund or waiver; (e) the two certifications — (1) that
//! the charges are consistent with the Commission's rules, (2) that the billing party's
//! performance did not cause or contribute to them.

use std::collections::{BTreeMap, BTreeSet};

use jiff::civil::Date;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::count::Counted;
use super::money::Money;

/// The most days after the charge was last incurred an invoice may be issued (541.7(a)).
pub const ISSUE_WITHIN_DAYS: i32 = 30;

/// The party an invoice bills.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BilledParty {
    /// Its name.
    #[serde(default)]
    pub name: Option<String>,
    /// Why it is the party liable for the charge (541.6(a)(4)).
    #[serde(default)]
    pub basis: Option<String>,
}

/// One line of an invoice: a day charged.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct InvoiceLine {
    /// The container it charges.
    #[serde(default)]
    pub container_number: Option<String>,
    /// The day charged (`YYYY-MM-DD`).
    #[serde(default)]
    pub date: Option<String>,
    /// The rate billed for it.
    #[serde(default)]
    pub rate: Option<String>,
    /// The amount billed for it.
    #[serde(default)]
    pub amount: Option<String>,
}

/// A demurrage or detention invoice as written (every field may be missing: a missing one is
/// what the audit reports).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Invoice {
    /// Its number.
    #[serde(default)]
    pub invoice_number: Option<String>,
    /// When it was issued (`YYYY-MM-DD`).
    #[serde(default)]
    pub invoice_date: Option<String>,
    /// When it is due.
    #[serde(default)]
    pub due_date: Option<String>,
    /// Who issued it (a SCAC or a terminal's code).
    #[serde(default)]
    pub issuer: Option<String>,
    /// Whom it bills, and why.
    #[serde(default)]
    pub billed_party: BilledParty,
    /// The bill of lading.
    #[serde(default)]
    pub bill_of_lading_number: Option<String>,
    /// The container.
    #[serde(default)]
    pub container_number: Option<String>,
    /// The port of discharge.
    #[serde(default)]
    pub port_of_discharge: Option<String>,
    /// The kind charged: `demurrage`, `storage`, `detention` or `combined`.
    #[serde(default)]
    pub kind: Option<String>,
    /// Its currency.
    #[serde(default)]
    pub currency: Option<String>,
    /// The tariff rule (or service contract and section) the rate is based on.
    #[serde(default)]
    pub tariff_rule: Option<String>,
    /// The allowed free time in days.
    #[serde(default)]
    pub free_time_days: Option<u32>,
    /// The start date of free time.
    #[serde(default)]
    pub free_time_start: Option<String>,
    /// The end date of free time.
    #[serde(default)]
    pub free_time_end: Option<String>,
    /// The container availability date (imports; 541.6(b)(6)).
    #[serde(default)]
    pub container_availability_date: Option<String>,
    /// The days charged.
    #[serde(default)]
    pub lines: Vec<InvoiceLine>,
    /// The total due.
    #[serde(default)]
    pub total: Option<String>,
    /// Whom to ask, or ask for mitigation (541.6(d)(1)).
    #[serde(default)]
    pub contact: Option<String>,
    /// Where the dispute process is published (541.6(d)(2)).
    #[serde(default)]
    pub dispute_process: Option<String>,
    /// The timeframes to request mitigation, refund or waiver (541.6(d)(3)).
    #[serde(default)]
    pub dispute_timeframe: Option<String>,
    /// Statements on the invoice (the certifications of 541.6(e)).
    #[serde(default)]
    pub statements: Vec<String>,
}

/// What an invoice breaks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Finding {
    /// The line (from 0) it is about, or null for the invoice.
    pub line: Option<usize>,
    /// The day it is about, if one.
    pub date: Option<String>,
    /// What it breaks: a clause of 46 CFR 541 ("541.6(b)(4) free time start") or the tariff
    /// ("tier rate", "free day", "excused day", "not chargeable", "line amount", "total").
    pub rule: String,
    /// What was found, in words a dispute can quote.
    pub detail: String,
}

fn finding(line: Option<usize>, date: Option<Date>, rule: &str, detail: String) -> Finding {
    Finding {
        line,
        date: date.map(|d| d.to_string()),
        rule: rule.to_string(),
        detail,
    }
}

fn given(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

fn date_of(v: &Option<String>) -> Option<Date> {
    given(v).and_then(|s| s.get(..10).unwrap_or(s).parse().ok())
}

/// Whether every line states this of itself (and there is a line).
fn lines_have(inv: &Invoice, f: fn(&InvoiceLine) -> &Option<String>) -> bool {
    !inv.lines.is_empty() && inv.lines.iter().all(|l| given(f(l)).is_some())
}

/// Whether a statement on the invoice says one of `words`.
fn says(inv: &Invoice, words: &[&str]) -> bool {
    inv.statements.iter().any(|s| {
        let s = s.to_ascii_lowercase();
        words.iter().any(|w| s.contains(w))
    })
}

/// An item 541.6 requires: the rule it is, what the invoice must state, and whether it does.
type Item = (&'static str, &'static str, fn(&Invoice) -> bool);

/// The items of 541.6 checked, in the regulation's order ((b)(7) is an export's).
const ITEMS: [Item; 19] = [
    (
        "541.6(a)(1) bill of lading number",
        "the bill of lading number",
        |i| given(&i.bill_of_lading_number).is_some(),
    ),
    (
        "541.6(a)(2) container number",
        "the container number",
        |i| given(&i.container_number).is_some() || lines_have(i, |l| &l.container_number),
    ),
    (
        "541.6(a)(3) port of discharge",
        "the port of discharge",
        |i| given(&i.port_of_discharge).is_some(),
    ),
    (
        "541.6(a)(4) basis of liability",
        "why the billed party is the party liable for the charge",
        |i| given(&i.billed_party.basis).is_some(),
    ),
    ("541.6(b)(1) invoice date", "the invoice date", |i| {
        date_of(&i.invoice_date).is_some()
    }),
    ("541.6(b)(2) due date", "the invoice due date", |i| {
        date_of(&i.due_date).is_some()
    }),
    (
        "541.6(b)(3) free time days",
        "the allowed free time in days",
        |i| i.free_time_days.is_some(),
    ),
    (
        "541.6(b)(4) free time start",
        "the start date of free time",
        |i| date_of(&i.free_time_start).is_some(),
    ),
    (
        "541.6(b)(5) free time end",
        "the end date of free time",
        |i| date_of(&i.free_time_end).is_some(),
    ),
    (
        "541.6(b)(6) container availability date",
        "the container availability date",
        |i| date_of(&i.container_availability_date).is_some(),
    ),
    ("541.6(b)(8) dates charged", "each date charged", |i| {
        lines_have(i, |l| &l.date)
    }),
    ("541.6(c)(1) total due", "the total amount due", |i| {
        given(&i.total).is_some()
    }),
    (
        "541.6(c)(2) tariff rule",
        "the tariff rule (or service contract and section) the rate is based on",
        |i| given(&i.tariff_rule).is_some(),
    ),
    ("541.6(c)(3) rate", "the rate of each day charged", |i| {
        lines_have(i, |l| &l.rate)
    }),
    (
        "541.6(d)(1) contact",
        "whom to contact with questions or a request for mitigation",
        |i| given(&i.contact).is_some(),
    ),
    (
        "541.6(d)(2) dispute process",
        "where its dispute process is published",
        |i| given(&i.dispute_process).is_some(),
    ),
    (
        "541.6(d)(3) dispute timeframe",
        "the timeframes to request mitigation, refund or waiver",
        |i| given(&i.dispute_timeframe).is_some(),
    ),
    (
        "541.6(e)(1) consistency statement",
        "that the charges are consistent with the Federal Maritime Commission's rules",
        |i| says(i, &["federal maritime commission", "fmc"]),
    ),
    (
        "541.6(e)(2) performance statement",
        "that the billing party's performance did not cause or contribute to the charges",
        |i| {
            says(
                i,
                &[
                    "did not cause",
                    "not cause or contribute",
                    "did not contribute",
                ],
            )
        },
    ),
];

/// Each item 541.6 requires that the invoice lacks, and 541.7's thirty days.
pub fn contents(inv: &Invoice) -> Vec<Finding> {
    let mut out: Vec<Finding> = ITEMS
        .iter()
        .filter(|(_, _, present)| !present(inv))
        .map(|(rule, what, _)| {
            finding(
                None,
                None,
                rule,
                format!("the invoice does not state {what}"),
            )
        })
        .collect();
    if let (Some(issued), Some(last)) = (
        date_of(&inv.invoice_date),
        inv.lines.iter().filter_map(|l| date_of(&l.date)).max(),
    ) && let Ok(span) = last.until(issued)
        && span.get_days() > ISSUE_WITHIN_DAYS
    {
        out.push(finding(
            None,
            Some(last),
            "541.7(a) invoice issued late",
            format!(
                "issued {issued}, {} days after the charge was last incurred on {last} (at most {ISSUE_WITHIN_DAYS})",
                span.get_days()
            ),
        ));
    }
    out
}

/// The charge the tariff computes for the invoice's kind.
#[derive(Debug, Clone, Copy)]
pub struct Computed<'a> {
    /// What the rule counted.
    pub counted: &'a Counted,
    /// The tariff's free days.
    pub free_days: u32,
    /// The tariff's currency.
    pub currency: &'a str,
}

/// Each line, the free time and the total compared with the computed charge.
pub fn against(inv: &Invoice, computed: Computed<'_>) -> Vec<Finding> {
    let c = computed.counted;
    let mut out = Vec::new();
    if let Some(cur) = given(&inv.currency)
        && !cur.eq_ignore_ascii_case(computed.currency)
    {
        out.push(finding(
            None,
            None,
            "currency",
            format!("billed in {cur}, the tariff is in {}", computed.currency),
        ));
    }
    if let Some(days) = inv.free_time_days
        && days != computed.free_days
    {
        out.push(finding(
            None,
            None,
            "541.6(b)(3) free time days",
            format!(
                "the invoice allows {days} free days, the tariff {}",
                computed.free_days
            ),
        ));
    }
    if let Some(start) = date_of(&inv.free_time_start)
        && start != c.free_time_start
    {
        out.push(finding(
            None,
            Some(start),
            "541.6(b)(4) free time start",
            format!(
                "the invoice starts free time on {start}, the tariff on {}",
                c.free_time_start
            ),
        ));
    }
    if let Some(end) = date_of(&inv.free_time_end)
        && Some(end) != c.last_free_day
    {
        out.push(finding(
            None,
            Some(end),
            "541.6(b)(5) free time end",
            match c.last_free_day {
                Some(lfd) => format!("the invoice ends free time on {end}, the tariff on {lfd}"),
                None => {
                    format!("the invoice ends free time on {end}; by the tariff it had not ended")
                }
            },
        ));
    }
    out.extend(lines(inv, c));
    out
}

/// Each line against the computed days, and the total against the lines.
fn lines(inv: &Invoice, c: &Counted) -> Vec<Finding> {
    let mut out = Vec::new();
    let chargeable: BTreeMap<Date, (u32, Money)> =
        c.days.iter().map(|d| (d.date, (d.day, d.rate))).collect();
    let excused: BTreeMap<Date, &str> = c
        .excused
        .iter()
        .map(|e| (e.date, e.reason.as_str()))
        .collect();
    let mut seen: BTreeSet<Date> = BTreeSet::new();
    let mut billed = Money::ZERO;
    for (i, l) in inv.lines.iter().enumerate() {
        let Some(d) = date_of(&l.date) else {
            continue;
        };
        let amount = given(&l.amount).map(Money::parse);
        let rate = given(&l.rate).map(Money::parse);
        if let Some(Ok(a)) = amount {
            billed = billed.plus(a);
        }
        if !seen.insert(d) {
            out.push(finding(
                Some(i),
                Some(d),
                "day billed twice",
                format!("{d} is billed on an earlier line too"),
            ));
            continue;
        }
        if let Some(reason) = excused.get(&d) {
            out.push(finding(
                Some(i),
                Some(d),
                "excused day",
                format!("{d} is excused by the tariff ({reason}): neither free nor charged"),
            ));
            continue;
        }
        if c.last_free_day.is_none_or(|lfd| d <= lfd) {
            out.push(finding(
                Some(i),
                Some(d),
                "free day",
                match c.last_free_day {
                    Some(lfd) => format!("{d} is within free time (the last free day is {lfd})"),
                    None => format!("{d} is within free time (it had not ended)"),
                },
            ));
            continue;
        }
        let Some((day, tier_rate)) = chargeable.get(&d) else {
            out.push(finding(
                Some(i),
                Some(d),
                "not chargeable",
                format!(
                    "{d} is not a chargeable day by the tariff (after the box left, or a day its charges do not count)"
                ),
            ));
            continue;
        };
        match rate {
            Some(Ok(r)) if r != *tier_rate => out.push(finding(
                Some(i),
                Some(d),
                "tier rate",
                format!(
                    "billed at {r}; {d} is chargeable day {day}, whose tier's rate is {tier_rate}"
                ),
            )),
            Some(Err(_)) => out.push(finding(
                Some(i),
                Some(d),
                "541.6(c)(3) rate",
                "the rate is not an amount".into(),
            )),
            _ => {}
        }
        match (amount, rate) {
            (Some(Ok(a)), Some(Ok(r))) if a != r => out.push(finding(
                Some(i),
                Some(d),
                "line amount",
                format!("one day at {r} is billed as {a}"),
            )),
            (Some(Err(_)), _) => out.push(finding(
                Some(i),
                Some(d),
                "line amount",
                "the amount is not an amount".into(),
            )),
            _ => {}
        }
    }
    match given(&inv.total).map(Money::parse) {
        Some(Ok(total)) if total != billed && !inv.lines.is_empty() => out.push(finding(
            None,
            None,
            "total",
            format!("the total is {total}, the lines add up to {billed}"),
        )),
        Some(Err(_)) => out.push(finding(
            None,
            None,
            "541.6(c)(1) total due",
            "the total is not an amount".into(),
        )),
        _ => {}
    }
    out
}
