//! What a box owes by the tariffs the account reads: for each kind, the tariff chosen for the
//! box, the box's times as local dates at the port, the port's (and the facility's) calendar,
//! and the counting rule of `boxtrack_core::charges`.

use boxtrack_core::charges::calendar::{Calendar, CalendarDoc};
use std::collections::HashMap;

use boxtrack_core::charges::count::{self as rule, Facility, HoldSpan, Span, local_date};
use boxtrack_core::charges::tariff::{Kind, Owner, StartEvent, Tariff, TariffDoc, Wanted, select};
use boxtrack_core::reference;
use boxtrack_store::charges as store;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::AppError;
use crate::ctx::Ctx;

/// The most days a quote's dates may lie apart (ten years).
pub const SPAN_MAX_DAYS: i32 = 3_660;

/// A hold on the box over a span of time.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct HoldIn {
    /// Its name, as `holds_at_pod_terminal` spells it (`customs`, `USDA`).
    pub name: String,
    /// When it began (ISO 8601).
    pub from: jiff::Timestamp,
    /// When it ended (ISO 8601), or null while it is in force.
    #[serde(default)]
    pub to: Option<jiff::Timestamp>,
}

/// The box a quote is for: its line, port, equipment and the times of its events.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct QuoteIn {
    /// The line's SCAC (the issuer of demurrage, detention and combined charges).
    pub scac: String,
    /// The port of discharge (UN/LOCODE).
    pub port: String,
    /// Its terminal, equipment, events and holds.
    #[serde(flatten)]
    pub at: BoxAtPort,
}

/// What of a box at its port of discharge its charges are counted from: its terminal, its
/// equipment, the times of its events and its holds (a quote's, an audit's, and what a tracked
/// box was priced as).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct BoxAtPort {
    /// The terminal's code (the issuer of storage; without it storage is missing).
    #[serde(default)]
    pub facility: Option<String>,
    /// The equipment type, as the container resource spells it (`dry`, `reefer`).
    #[serde(default)]
    pub equipment_type: Option<String>,
    /// The equipment length in feet.
    #[serde(default)]
    pub equipment_length: Option<u32>,
    /// Discharged from the vessel (ISO 8601, UTC).
    #[serde(default)]
    pub discharged_at: Option<jiff::Timestamp>,
    /// First available for pickup.
    #[serde(default)]
    pub available_at: Option<jiff::Timestamp>,
    /// Full out-gate (picked up).
    #[serde(default)]
    pub full_out_at: Option<jiff::Timestamp>,
    /// Empty returned.
    #[serde(default)]
    pub empty_returned_at: Option<jiff::Timestamp>,
    /// Holds on the box.
    #[serde(default)]
    pub holds: Vec<HoldIn>,
    /// The instant counted to while the box has not moved (default: now).
    #[serde(default)]
    pub as_of: Option<jiff::Timestamp>,
}

/// A charged day.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DayOut {
    /// The local date.
    pub date: String,
    /// Its number among chargeable days.
    pub day: u32,
    /// Its rate.
    pub rate: String,
}

/// An excused day.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ExcusedOut {
    /// The local date.
    pub date: String,
    /// Why ("closure: weather", "hold: customs").
    pub reason: String,
}

/// What one kind comes to.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChargeOut {
    /// `demurrage`, `storage`, `detention` or `combined`.
    pub kind: String,
    /// The tariff chosen.
    pub tariff_id: Uuid,
    /// Its issuer.
    pub issuer: String,
    /// Its currency.
    pub currency: String,
    /// The day counting begins (null before the kind's start event).
    pub free_time_start: Option<String>,
    /// The last free day (null before the start event, or when it is never reached).
    pub last_free_day: Option<String>,
    /// The date of the kind's end event, if it happened.
    pub ended_on: Option<String>,
    /// How many days are charged.
    pub chargeable_days: u32,
    /// What they come to ("0.00" when none).
    pub amount: String,
    /// Each charged day.
    pub days: Vec<DayOut>,
    /// Each excused day.
    pub excused: Vec<ExcusedOut>,
}

/// A kind that could not be quoted, and why.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MissingOut {
    /// The kind.
    pub kind: String,
    /// Why (no tariff matches; storage without a facility).
    pub reason: String,
}

/// What a coming day adds while the box stays.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ComingOut {
    /// The local date.
    pub date: String,
    /// What that day adds ("0.00" for a free, excused or uncharged day).
    pub adds: String,
    /// What the kind comes to by the end of that day.
    pub total: String,
}

/// A quote: one entry per kind with a tariff, and the kinds without one.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Quote {
    /// What each kind comes to.
    pub charges: Vec<ChargeOut>,
    /// The kinds not quoted.
    pub missing: Vec<MissingOut>,
}

/// The box's times and where it is, ready for the rule.
pub(crate) struct BoxAt<'a> {
    q: &'a QuoteIn,
    zone: TimeZone,
    holds: Vec<HoldSpan>,
    as_of: Date,
}

impl BoxAt<'_> {
    /// The local date at the port of an instant.
    pub(crate) fn date(&self, t: Option<jiff::Timestamp>) -> Option<Date> {
        t.and_then(|t| local_date(t.as_microsecond(), &self.zone))
    }

    /// The local date a kind's clock starts (by the tariff's `from`) and ends.
    fn clock(&self, kind: Kind, from: StartEvent) -> (Option<Date>, Option<Date>) {
        let q = self.q;
        let start = match (kind, from) {
            (Kind::Detention, _) | (_, StartEvent::FullOut) => q.at.full_out_at,
            (_, StartEvent::Available) => q.at.available_at,
            (_, StartEvent::Discharged) => q.at.discharged_at,
        };
        let end = match kind {
            Kind::Demurrage | Kind::Storage => q.at.full_out_at,
            Kind::Detention | Kind::Combined => q.at.empty_returned_at,
        };
        (self.date(start), self.date(end))
    }

    /// Refuses a box whose dates (its events and the as-of date) lie more than
    /// [`SPAN_MAX_DAYS`] apart: charges are counted day by day over that span.
    fn within_span(&self) -> Result<(), AppError> {
        let q = self.q;
        let named = [
            ("/discharged_at", q.at.discharged_at),
            ("/available_at", q.at.available_at),
            ("/full_out_at", q.at.full_out_at),
            ("/empty_returned_at", q.at.empty_returned_at),
        ];
        let mut dates: Vec<(&str, Date)> = named
            .iter()
            .filter_map(|(field, t)| Some((*field, self.date(*t)?)))
            .collect();
        dates.push(("/as_of", self.as_of));
        let first = dates.iter().map(|(_, d)| *d).min().unwrap_or(self.as_of);
        let Some((field, last)) = dates.iter().max_by_key(|(_, d)| *d).copied() else {
            return Ok(());
        };
        let span = first.until(last).map(|s| s.get_days()).unwrap_or(i32::MAX);
        if span > SPAN_MAX_DAYS {
            return Err(AppError::Rejected(vec![(
                field.to_string(),
                format!(
                    "a box's dates lie at most {SPAN_MAX_DAYS} days apart (charges are counted day by day)"
                ),
            )]));
        }
        Ok(())
    }

    /// The tariffing date: the local date of the kind's own clock start (discharge, or the
    /// full out-gate for detention), or the as-of date before it.
    fn tariffing_date(&self, kind: Kind) -> Date {
        let t = if kind == Kind::Detention {
            self.q.at.full_out_at
        } else {
            self.q.at.discharged_at
        };
        self.date(t).unwrap_or(self.as_of)
    }
}

/// The time zone of a port, or the field refused.
fn zone_of(port: &str) -> Result<TimeZone, AppError> {
    reference::port(port)
        .and_then(|p| TimeZone::get(&p.time_zone).ok())
        .ok_or_else(|| {
            AppError::Rejected(vec![(
                "/port".into(),
                format!("{port:?} is not a port boxtrack knows (a UN/LOCODE such as USLAX)"),
            )])
        })
}

/// The tariffs of one kind by one issuer an account reads, checked, with their ids.
struct Candidates {
    tariffs: Vec<(Owner, Tariff)>,
    ids: Vec<Uuid>,
}

/// Prices boxes for one account: the tariffs and calendars it reads are read once per issuer
/// and place however many boxes are priced (the exposure of a whole account, say).
pub(crate) struct Pricer<'c> {
    ctx: &'c Ctx,
    account_id: Uuid,
    tariffs: HashMap<(Kind, String), Candidates>,
    calendars: HashMap<(String, String), Calendar>,
}

/// One kind of a box priced.
pub(crate) struct PricedKind {
    /// What it comes to.
    pub out: ChargeOut,
    /// What each coming day adds (none once the kind's clock stopped).
    pub coming: Vec<ComingOut>,
    /// What the rule counted (none before the kind's start event).
    pub counted: Option<rule::Counted>,
    /// The tariff's free days.
    pub free_days: u32,
}

/// A box priced: each kind with a tariff and what its coming days add, and the kinds without.
pub(crate) struct Priced {
    /// Each kind quoted.
    pub charges: Vec<PricedKind>,
    /// The kinds not quoted.
    pub missing: Vec<MissingOut>,
}

impl<'c> Pricer<'c> {
    /// A pricer for the account's boxes.
    pub(crate) fn new(ctx: &'c Ctx, account_id: Uuid) -> Pricer<'c> {
        Pricer {
            ctx,
            account_id,
            tariffs: HashMap::new(),
            calendars: HashMap::new(),
        }
    }

    /// Reads the calendar of a port and facility the account reads, unless it was read.
    async fn load_calendar(&mut self, key: &(String, String)) -> Result<(), AppError> {
        let (port, facility) = key;
        if !self.calendars.contains_key(key) {
            let (port_doc, facility_doc) =
                store::calendars_for(&self.ctx.db, self.account_id, port, facility).await?;
            let parse = |text: Option<String>| {
                text.and_then(|t| serde_json::from_str::<CalendarDoc>(&t).ok())
            };
            let mut cal = parse(port_doc).map_or_else(Calendar::default, |d| Calendar::of(&d));
            if let Some(f) = parse(facility_doc) {
                cal = cal.with(&f);
            }
            self.calendars.insert(key.clone(), cal);
        }
        Ok(())
    }

    /// Reads the tariffs of a kind by an issuer the account reads, unless they were read.
    async fn load_candidates(&mut self, key: &(Kind, String)) -> Result<(), AppError> {
        let (kind, issuer) = key;
        if !self.tariffs.contains_key(key) {
            let rows =
                store::candidates(&self.ctx.db, self.account_id, kind.as_str(), issuer).await?;
            let (tariffs, ids) = rows
                .into_iter()
                .filter_map(|r| {
                    let doc: TariffDoc = serde_json::from_str(&r.doc).ok()?;
                    let owner = if r.account_id.is_some() {
                        Owner::Account
                    } else {
                        Owner::Public
                    };
                    Some(((owner, doc.check().ok()?), r.id))
                })
                .unzip();
            self.tariffs
                .insert(key.clone(), Candidates { tariffs, ids });
        }
        Ok(())
    }

    /// What the box of `q` owes, kind by kind, and what each of the `coming` days after its
    /// as-of date adds while it stays.
    pub(crate) async fn price(&mut self, q: &QuoteIn, coming: u32) -> Result<Priced, AppError> {
        let port = q.port.trim().to_ascii_uppercase();
        let zone = zone_of(&port)?;
        let scac = q.scac.trim().to_ascii_uppercase();
        let facility =
            q.at.facility
                .as_deref()
                .map(|f| f.trim().to_ascii_uppercase())
                .filter(|f| !f.is_empty());
        let as_of_us =
            q.at.as_of
                .map_or_else(|| self.ctx.now_us(), |t| t.as_microsecond());
        let as_of = local_date(as_of_us, &zone).ok_or_else(|| {
            AppError::Rejected(vec![("/as_of".into(), "as_of is out of range".into())])
        })?;
        let at = BoxAt {
            q,
            holds: q
                .at
                .holds
                .iter()
                .map(|h| HoldSpan {
                    name: h.name.clone(),
                    from_us: h.from.as_microsecond(),
                    to_us: h.to.map(|t| t.as_microsecond()),
                })
                .collect(),
            zone,
            as_of,
        };
        at.within_span()?;
        let place = (port.clone(), facility.clone().unwrap_or_default());
        self.load_calendar(&place).await?;
        let mut out = Priced {
            charges: Vec::new(),
            missing: Vec::new(),
        };
        for kind in Kind::ALL {
            let issuer = if kind == Kind::Storage {
                let Some(f) = &facility else {
                    out.missing.push(MissingOut {
                        kind: kind.as_str().into(),
                        reason: "storage needs the facility (the terminal that issues it)".into(),
                    });
                    continue;
                };
                f.clone()
            } else {
                scac.clone()
            };
            let wanted = Wanted {
                kind,
                issuer: &issuer,
                port: &port,
                equipment_type: q.at.equipment_type.as_deref(),
                equipment_length: q.at.equipment_length,
                on: at.tariffing_date(kind),
            };
            let key = (kind, issuer.clone());
            self.load_candidates(&key).await?;
            let found = &self.tariffs[&key];
            let Some(index) = select(&found.tariffs, &wanted)
                .and_then(|chosen| found.tariffs.iter().position(|p| std::ptr::eq(p, chosen)))
            else {
                out.missing.push(MissingOut {
                    kind: kind.as_str().into(),
                    reason: format!(
                        "no {} tariff of {issuer} matches this box at {port}",
                        kind.as_str()
                    ),
                });
                continue;
            };
            let calendar = &self.calendars[&place];
            out.charges.push(charge(
                kind,
                &found.tariffs[index].1,
                found.ids[index],
                &at,
                calendar,
                coming,
            ));
        }
        Ok(out)
    }
}

/// What the box of `q` owes by the tariffs the account reads, kind by kind.
pub async fn quote(ctx: &Ctx, account_id: Uuid, q: &QuoteIn) -> Result<Quote, AppError> {
    let priced = Pricer::new(ctx, account_id).price(q, 0).await?;
    Ok(Quote {
        charges: priced.charges.into_iter().map(|c| c.out).collect(),
        missing: priced.missing,
    })
}

/// What one kind comes to under its tariff, and what each of the `coming` days adds.
fn charge(
    kind: Kind,
    t: &Tariff,
    id: Uuid,
    at: &BoxAt<'_>,
    calendar: &Calendar,
    coming: u32,
) -> PricedKind {
    let (start, end) = at.clock(kind, t.doc.free_time.from);
    let mut line = ChargeOut {
        kind: kind.as_str().into(),
        tariff_id: id,
        issuer: t.doc.issuer.clone(),
        currency: t.doc.currency.clone(),
        free_time_start: None,
        last_free_day: None,
        ended_on: end.map(|d| d.to_string()),
        chargeable_days: 0,
        amount: "0.00".into(),
        days: Vec::new(),
        excused: Vec::new(),
    };
    let free_days = t.doc.free_time.days;
    // before its start event a kind has no last free day and owes nothing
    let Some(start) = start else {
        return PricedKind {
            out: line,
            coming: Vec::new(),
            counted: None,
            free_days,
        };
    };
    let facility = Facility {
        calendar,
        zone: &at.zone,
        holds: &at.holds,
    };
    let span = Span {
        start,
        end,
        as_of: at.as_of,
    };
    let c = rule::count(t, &facility, span);
    let mut total = c.amount;
    let next = rule::coming(t, &facility, span, coming)
        .into_iter()
        .map(|d| {
            total = total.plus(d.adds);
            ComingOut {
                date: d.date.to_string(),
                adds: d.adds.to_string(),
                total: total.to_string(),
            }
        })
        .collect();
    line.free_time_start = Some(c.free_time_start.to_string());
    line.last_free_day = c.last_free_day.map(|d| d.to_string());
    line.chargeable_days = u32::try_from(c.days.len()).unwrap_or(u32::MAX);
    line.amount = c.amount.to_string();
    line.days = c
        .days
        .iter()
        .map(|d| DayOut {
            date: d.date.to_string(),
            day: d.day,
            rate: d.rate.to_string(),
        })
        .collect();
    line.excused = c
        .excused
        .iter()
        .map(|e| ExcusedOut {
            date: e.date.to_string(),
            reason: e.reason.clone(),
        })
        .collect();
    PricedKind {
        out: line,
        coming: next,
        counted: Some(c),
        free_days,
    }
}
