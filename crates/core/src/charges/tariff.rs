//! A tariff: free time, how days are counted, and per-day rates in tiers, for one issuer, kind,
//! set of ports and equipment, valid for a period. Read from its document, checked (each
//! problem names its field), and chosen among others for a box.

use jiff::civil::Date;
use serde::{Deserialize, Serialize};

use super::money::Money;

/// What a charge is for.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The line's charge while the full box stays at the terminal after free time.
    Demurrage,
    /// The terminal's own charge over the same span.
    Storage,
    /// The line's charge for its equipment outside the terminal.
    Detention,
    /// One clock from discharge to empty return (merged demurrage and detention).
    Combined,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 4] = [
        Kind::Demurrage,
        Kind::Storage,
        Kind::Detention,
        Kind::Combined,
    ];

    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Demurrage => "demurrage",
            Kind::Storage => "storage",
            Kind::Detention => "detention",
            Kind::Combined => "combined",
        }
    }
}

/// Which days count.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Count {
    /// Every day.
    #[default]
    Calendar,
    /// Working days of the facility's calendar only.
    Working,
}

/// The event free time starts from.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum StartEvent {
    /// Discharge from the vessel.
    #[default]
    Discharged,
    /// The first time the box was available for pickup.
    Available,
    /// The full out-gate (detention's only start).
    FullOut,
}

/// Whether the start event's own day counts.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Starts {
    /// The day of the start event counts.
    SameDay,
    /// Counting begins the day after.
    #[default]
    NextDay,
}

/// Free time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FreeTime {
    /// How many days (0: the first counted day is chargeable).
    pub days: u32,
    /// Which days count.
    #[serde(default)]
    pub count: Count,
    /// The event it starts from.
    #[serde(default)]
    pub from: StartEvent,
    /// Whether that event's day counts.
    #[serde(default)]
    pub starts: Starts,
}

/// How chargeable days are counted.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct ChargeDays {
    /// Which days are charged.
    #[serde(default)]
    pub count: Count,
}

/// A tier as written: chargeable days `from_day` to `to_day` (open when none) at `rate`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TierDoc {
    /// The first chargeable day of the tier (from 1).
    pub from_day: u32,
    /// The last, or none for the open last tier.
    pub to_day: Option<u32>,
    /// The rate per day: a decimal string with at most 2 decimals.
    pub rate: String,
}

/// What excuses a day: neither free time nor charged.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Excuse {
    /// A full-day closure of the facility.
    #[serde(default)]
    pub closures: bool,
    /// Holds (named as `holds_at_pod_terminal` names them) in force for a whole local day.
    #[serde(default)]
    pub holds: Vec<String>,
}

/// Equipment a tariff applies to: `"*"`, or a type with the lengths (none: any length).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Equipment {
    /// `"*"`: any equipment.
    Any(String),
    /// A type (as the container resource spells it), with lengths in feet.
    Of {
        /// The type (`dry`, `reefer`, …).
        #[serde(rename = "type")]
        kind: String,
        /// The lengths; none: any.
        #[serde(default)]
        lengths: Option<Vec<u32>>,
    },
}

/// Where a tariff was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Source {
    /// The page or file.
    pub url: String,
    /// When it was read.
    pub retrieved: Date,
}

/// A tariff as written and stored (`/v2/tariffs`, the shipped files).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TariffDoc {
    /// What it is called.
    pub name: String,
    /// A SCAC (a line), or a terminal's code (storage).
    pub issuer: String,
    /// What it charges for.
    pub kind: Kind,
    /// UN/LOCODEs, or `["*"]`.
    pub ports: Vec<String>,
    /// The equipment, or `["*"]`.
    pub equipment: Vec<Equipment>,
    /// The first date it holds.
    pub valid_from: Date,
    /// The first date it no longer holds, or none.
    #[serde(default)]
    pub valid_to: Option<Date>,
    /// ISO 4217 currency.
    pub currency: String,
    /// Free time.
    pub free_time: FreeTime,
    /// How chargeable days count.
    #[serde(default)]
    pub charges: ChargeDays,
    /// Rates by chargeable day.
    pub tiers: Vec<TierDoc>,
    /// What excuses a day.
    #[serde(default)]
    pub excuse: Excuse,
    /// Where it was read.
    #[serde(default)]
    pub source: Option<Source>,
}

/// A tier, checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tier {
    /// The first chargeable day (from 1).
    pub from_day: u32,
    /// The last, or none (the open last tier).
    pub to_day: Option<u32>,
    /// The rate per day.
    pub rate: Money,
}

/// A tariff, checked: its document and its tiers' rates read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tariff {
    /// The document.
    pub doc: TariffDoc,
    /// Its tiers, contiguous from day 1, the last open.
    pub tiers: Vec<Tier>,
}

/// A rule a document breaks: the field (a JSON pointer below the document) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The field, as a JSON pointer relative to the document (`/tiers/1/rate`).
    pub field: String,
    /// What is wrong.
    pub detail: String,
}

fn problem(field: impl Into<String>, detail: impl Into<String>) -> Problem {
    Problem {
        field: field.into(),
        detail: detail.into(),
    }
}

/// Whether `s` is shaped like a UN/LOCODE: two letters and three letters or digits 2–9.
pub fn is_locode(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 5
        && b[..2].iter().all(u8::is_ascii_uppercase)
        && b[2..]
            .iter()
            .all(|c| c.is_ascii_uppercase() || (b'2'..=b'9').contains(c))
}

impl TariffDoc {
    /// The tariff, or every rule the document breaks (each naming its field).
    pub fn check(self) -> Result<Tariff, Vec<Problem>> {
        let mut out = Vec::new();
        if self.name.trim().is_empty() {
            out.push(problem("/name", "name must not be blank"));
        }
        if self.issuer.trim().is_empty() || self.issuer.len() > 16 {
            out.push(problem(
                "/issuer",
                "issuer must be a SCAC or a terminal's code",
            ));
        }
        check_ports(&self.ports, &mut out);
        check_equipment(&self.equipment, &mut out);
        if self.valid_to.is_some_and(|to| to <= self.valid_from) {
            out.push(problem("/valid_to", "valid_to must be after valid_from"));
        }
        let c = self.currency.as_bytes();
        if c.len() != 3 || !c.iter().all(u8::is_ascii_uppercase) {
            out.push(problem(
                "/currency",
                "currency must be an ISO 4217 code such as USD",
            ));
        }
        let detention = self.kind == Kind::Detention;
        if detention != (self.free_time.from == StartEvent::FullOut) {
            out.push(problem(
                "/free_time/from",
                "detention's free time starts from full_out, and only detention's does",
            ));
        }
        let tiers = check_tiers(&self.tiers, &mut out);
        if out.is_empty() {
            Ok(Tariff { doc: self, tiers })
        } else {
            Err(out)
        }
    }
}

fn check_ports(ports: &[String], out: &mut Vec<Problem>) {
    if ports.is_empty() {
        out.push(problem("/ports", "ports must name a UN/LOCODE or \"*\""));
    }
    for (i, p) in ports.iter().enumerate() {
        if p != "*" && !is_locode(p) {
            out.push(problem(
                format!("/ports/{i}"),
                format!("{p:?} is not a UN/LOCODE (five capitals, such as USLAX) or \"*\""),
            ));
        }
    }
}

fn check_equipment(equipment: &[Equipment], out: &mut Vec<Problem>) {
    if equipment.is_empty() {
        out.push(problem("/equipment", "equipment must name a type or \"*\""));
    }
    for (i, e) in equipment.iter().enumerate() {
        let bad = match e {
            Equipment::Any(s) => s != "*",
            Equipment::Of { kind, lengths } => {
                kind.trim().is_empty()
                    || lengths
                        .as_ref()
                        .is_some_and(|l| l.is_empty() || l.iter().any(|n| !(10..=60).contains(n)))
            }
        };
        if bad {
            out.push(problem(
                format!("/equipment/{i}"),
                "equipment is \"*\" or {\"type\": …, \"lengths\": [20, 40, …]}",
            ));
        }
    }
}

/// The tiers read, contiguous from day 1 with the last (and only the last) open.
fn check_tiers(tiers: &[TierDoc], out: &mut Vec<Problem>) -> Vec<Tier> {
    if tiers.is_empty() {
        out.push(problem("/tiers", "tiers must hold at least one tier"));
    }
    let mut read = Vec::new();
    // the day the next tier must start on (unknown after a tier that is wrong already)
    let mut next = Some(1u32);
    for (i, t) in tiers.iter().enumerate() {
        let last = i + 1 == tiers.len();
        if let Some(day) = next
            && t.from_day != day
        {
            out.push(problem(
                format!("/tiers/{i}/from_day"),
                format!(
                    "tiers must follow each other from day 1: this one must start on day {day}"
                ),
            ));
        }
        next = None;
        match (t.to_day, last) {
            (None, true) => {}
            (None, false) => out.push(problem(
                format!("/tiers/{i}/to_day"),
                "only the last tier is open (to_day null)",
            )),
            (Some(_), true) => out.push(problem(
                format!("/tiers/{i}/to_day"),
                "the last tier is open: its to_day is null",
            )),
            (Some(to), false) if to < t.from_day => out.push(problem(
                format!("/tiers/{i}/to_day"),
                "to_day must not be before from_day",
            )),
            (Some(to), false) => next = Some(to.saturating_add(1)),
        }
        match Money::parse(&t.rate) {
            Ok(rate) => read.push(Tier {
                from_day: t.from_day,
                to_day: t.to_day,
                rate,
            }),
            Err(e) => out.push(problem(format!("/tiers/{i}/rate"), format!("rate {e}"))),
        }
    }
    read
}

impl Tariff {
    /// The rate of chargeable day `k` (from 1).
    pub fn rate_of(&self, k: u32) -> Money {
        self.tiers
            .iter()
            .find(|t| t.from_day <= k && t.to_day.is_none_or(|to| k <= to))
            .or(self.tiers.last())
            .map_or(Money::ZERO, |t| t.rate)
    }

    /// Whether it holds on `date` (from inclusive, to exclusive).
    pub fn valid_on(&self, date: Date) -> bool {
        self.doc.valid_from <= date && self.doc.valid_to.is_none_or(|to| date < to)
    }
}

/// Whose a stored tariff is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Owner {
    /// Public: loaded by the operator or shipped.
    Public,
    /// The account's own.
    Account,
}

/// The box a tariff is chosen for.
#[derive(Debug, Clone, Copy)]
pub struct Wanted<'a> {
    /// The kind.
    pub kind: Kind,
    /// The issuer (the line's SCAC, or the terminal for storage).
    pub issuer: &'a str,
    /// The port of the charge (UN/LOCODE).
    pub port: &'a str,
    /// The equipment type, as the container resource spells it.
    pub equipment_type: Option<&'a str>,
    /// The equipment length in feet.
    pub equipment_length: Option<u32>,
    /// The tariffing date: the local date of the kind's clock start.
    pub on: Date,
}

/// How well a tariff's equipment matches: 2 type and length, 1 type alone, 0 `*`; none when it
/// does not match.
fn equipment_fit(t: &Tariff, w: &Wanted<'_>) -> Option<u8> {
    t.doc
        .equipment
        .iter()
        .filter_map(|e| match e {
            Equipment::Any(_) => Some(0),
            Equipment::Of { kind, lengths } => {
                let same = w
                    .equipment_type
                    .is_some_and(|k| k.eq_ignore_ascii_case(kind));
                match lengths {
                    None if same => Some(1),
                    Some(ls) if same && w.equipment_length.is_some_and(|l| ls.contains(&l)) => {
                        Some(2)
                    }
                    _ => None,
                }
            }
        })
        .max()
}

/// The tariff for `w` among `stored`: the kind, the issuer, a port and equipment that match and
/// a validity holding the tariffing date; then an account's own beats a public one, an exact
/// port beats `*`, type and length beat type alone, which beats `*`; then the latest
/// `valid_from`. None when none matches (reported as missing, never guessed).
pub fn select<'a>(stored: &'a [(Owner, Tariff)], w: &Wanted<'_>) -> Option<&'a (Owner, Tariff)> {
    stored
        .iter()
        .filter(|(_, t)| {
            t.doc.kind == w.kind && t.doc.issuer.eq_ignore_ascii_case(w.issuer) && t.valid_on(w.on)
        })
        .filter_map(|entry| {
            let t = &entry.1;
            let exact = t.doc.ports.iter().any(|p| p.eq_ignore_ascii_case(w.port));
            let any = t.doc.ports.iter().any(|p| p == "*");
            let fit = equipment_fit(t, w)?;
            (exact || any).then_some((entry, (entry.0, exact, fit, t.doc.valid_from)))
        })
        .max_by(|a, b| a.1.cmp(&b.1))
        .map(|(entry, _)| entry)
}
