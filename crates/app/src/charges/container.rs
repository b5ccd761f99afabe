//! What a tracked box owes, from its own history: the quote of `quote.rs` asked with the box's
//! line, port of discharge, terminal, equipment, milestones and holds, as of its data's clock
//! (a sandbox journey's virtual time), beside the last free days its sources reported and what
//! each of the next days adds.

use boxtrack_core::charges::Kind;
use boxtrack_core::charges::count::local_date;
use boxtrack_core::plan::Entitlement;
use boxtrack_core::tracking::rules::t;
use boxtrack_core::tracking::{ContainerState, LfdKind, Route};
use boxtrack_store::accounts;
use boxtrack_store::reads::{ContainerRow, ShipmentRow};
use jiff::tz::TimeZone;
use schemars::JsonSchema;
use serde::Serialize;
use uuid::Uuid;

use super::quote::{
    BoxAtPort, ChargeOut, ComingOut, HoldIn, MissingOut, PricedKind, Pricer, QuoteIn,
};
use crate::AppError;
use crate::clock;
use crate::containers;
use crate::ctx::Ctx;

/// The days ahead a container's charges say what each adds.
pub const COMING_DAYS: u32 = 7;

/// A last free day a source reported.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReportedLfd {
    /// Who reported it: `line`, `terminal`, `rail`, or `entered` (a person of the account).
    pub source: String,
    /// The local date (at the port; the inland destination for the rail carrier's).
    pub date: String,
}

/// One kind's charge on a tracked box.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ContainerCharge {
    /// What the kind comes to (as a quote answers it).
    #[serde(flatten)]
    pub charge: ChargeOut,
    /// The reported last free day this kind's is compared with: the line's for demurrage and
    /// combined (the terminal's when the line said none), the terminal's for storage (the
    /// line's when the terminal said none); none for detention.
    pub reported_last_free_day: Option<ReportedLfd>,
    /// The calculated last free day minus the reported one, in days (positive: the tariff
    /// allows more free time than the source says).
    pub last_free_day_difference_days: Option<i32>,
    /// What each of the next days adds while the box stays (none once the kind's clock
    /// stopped).
    pub coming: Vec<ComingOut>,
}

/// What a tracked box owes, kind by kind.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ContainerCharges {
    /// The container.
    pub container_id: Uuid,
    /// The instant counted to: now on the clock of the box's data.
    pub as_of: jiff::Timestamp,
    /// The box as it was priced: line, port, terminal, equipment and event times.
    pub priced_as: PricedAs,
    /// The last free days the sources reported.
    pub reported_last_free_days: Vec<ReportedLfd>,
    /// Each kind with a tariff.
    pub charges: Vec<ContainerCharge>,
    /// The kinds not priced, and why.
    pub missing: Vec<MissingOut>,
}

/// What of a tracked box its charges were counted from.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PricedAs {
    /// The line's SCAC.
    pub scac: String,
    /// The port of discharge.
    pub port: Option<String>,
    /// Its terminal, equipment, event times and holds as the reports followed them.
    #[serde(flatten)]
    pub at: BoxAtPort,
}

fn stamp(us: Option<i64>) -> Option<jiff::Timestamp> {
    us.and_then(|us| jiff::Timestamp::from_microsecond(us).ok())
}

/// A tracked box at its port as its charges are counted, as of `as_of_us`: its terminal,
/// equipment, event times and holds as the reports followed them.
fn box_at_port(c: &ContainerState, as_of_us: i64) -> BoxAtPort {
    let time = |k| stamp(c.times.get(&k).copied());
    BoxAtPort {
        facility: c.pod_terminal.clone(),
        equipment_type: c.equipment.equipment_type.clone(),
        equipment_length: c
            .equipment
            .equipment_length
            .and_then(|l| u32::try_from(l).ok()),
        discharged_at: time(t::POD_DISCHARGED),
        available_at: stamp(c.first_available_us),
        // a box moving inland by rail leaves the port's terminal on the train
        full_out_at: time(t::POD_FULL_OUT).or_else(|| time(t::POD_RAIL_DEPARTED)),
        empty_returned_at: time(t::EMPTY_TERMINATED),
        holds: c
            .hold_spans
            .iter()
            .filter_map(|h| {
                Some(HoldIn {
                    name: h.name.clone(),
                    from: stamp(Some(h.from_us))?,
                    to: stamp(h.to_us),
                })
            })
            .collect(),
        as_of: stamp(Some(as_of_us)),
    }
}

/// The quote a tracked box asks: its line, port, terminal, equipment, times and holds, as of
/// `as_of_us`; none without a port of discharge.
pub(crate) fn quote_of(c: &ContainerState, of: &ShippedBy<'_>, as_of_us: i64) -> Option<QuoteIn> {
    Some(QuoteIn {
        scac: of.scac.to_string(),
        port: of.route.pod_locode.clone()?,
        at: box_at_port(c, as_of_us),
    })
}

/// The last free days the sources reported on the box, as local dates.
fn reported(c: &ContainerState, route: &Route, rail: bool) -> Vec<ReportedLfd> {
    let zone_of = |name: Option<&String>| {
        name.and_then(|z| TimeZone::get(z).ok())
            .unwrap_or(TimeZone::UTC)
    };
    c.lfd
        .iter()
        .filter(|(k, _)| rail || **k != LfdKind::Rail)
        .filter_map(|(k, us)| {
            let zone = if *k == LfdKind::Rail {
                zone_of(
                    route
                        .destination_timezone
                        .as_ref()
                        .or(route.pod_timezone.as_ref()),
                )
            } else {
                zone_of(route.pod_timezone.as_ref())
            };
            let source = match k {
                LfdKind::Line => "line",
                LfdKind::Terminal => "terminal",
                LfdKind::Rail => "rail",
                LfdKind::User => "entered",
            };
            Some(ReportedLfd {
                source: source.into(),
                date: local_date(*us, &zone)?.to_string(),
            })
        })
        .collect()
}

/// The reported last free day a kind is compared with.
fn compared_with<'a>(kind: &str, reported: &'a [ReportedLfd]) -> Option<&'a ReportedLfd> {
    let by = |source: &str| reported.iter().find(|r| r.source == source);
    match kind {
        "demurrage" | "combined" => by("line").or_else(|| by("terminal")),
        "storage" => by("terminal").or_else(|| by("line")),
        _ => None,
    }
}

/// Days from `reported` to `calculated` (both `YYYY-MM-DD`).
fn difference(calculated: &str, reported: &str) -> Option<i32> {
    let (a, b): (jiff::civil::Date, jiff::civil::Date) =
        (calculated.parse().ok()?, reported.parse().ok()?);
    Some(b.until(a).ok()?.get_days())
}

/// What of a box's shipment its charges need: the line and the route.
pub(crate) struct ShippedBy<'a> {
    /// The line's SCAC.
    pub scac: &'a str,
    /// The shipment's route.
    pub route: &'a Route,
}

/// The charges of one of the account's boxes (`id`, its state `c`) shipped by `of`, as of
/// `as_of_us`, priced by `pricer` (whose reads of tariffs and calendars many boxes share).
pub(crate) async fn charges_of(
    pricer: &mut Pricer<'_>,
    (id, c): (Uuid, &ContainerState),
    of: &ShippedBy<'_>,
    as_of_us: i64,
    (rail, coming): (bool, u32),
) -> Result<ContainerCharges, AppError> {
    let reported = reported(c, of.route, rail);
    let q = quote_of(c, of, as_of_us);
    let priced_as = PricedAs {
        scac: of.scac.to_string(),
        port: q.as_ref().map(|q| q.port.clone()),
        at: q
            .as_ref()
            .map_or_else(|| box_at_port(c, as_of_us), |q| q.at.clone()),
    };
    let mut out = ContainerCharges {
        container_id: id,
        as_of: stamp(Some(as_of_us)).unwrap_or_default(),
        priced_as,
        reported_last_free_days: reported.clone(),
        charges: Vec::new(),
        missing: Vec::new(),
    };
    let Some(q) = q else {
        out.missing = Kind::ALL
            .iter()
            .map(|k| MissingOut {
                kind: k.as_str().into(),
                reason: "the shipment's port of discharge is not known yet".into(),
            })
            .collect();
        return Ok(out);
    };
    let priced = match pricer.price(&q, coming).await {
        Ok(p) => p,
        // a port boxtrack has no zone for: nothing can be counted there
        Err(AppError::Rejected(problems)) => {
            out.missing = Kind::ALL
                .iter()
                .map(|k| MissingOut {
                    kind: k.as_str().into(),
                    reason: problems.first().map(|(_, d)| d.clone()).unwrap_or_default(),
                })
                .collect();
            return Ok(out);
        }
        Err(e) => return Err(e),
    };
    out.missing = priced.missing;
    out.charges = priced
        .charges
        .into_iter()
        .map(
            |PricedKind {
                 out: charge,
                 coming,
                 ..
             }| {
                let compared = compared_with(&charge.kind, &reported).cloned();
                let diff = match (&charge.last_free_day, &compared) {
                    (Some(calc), Some(r)) => difference(calc, &r.date),
                    _ => None,
                };
                ContainerCharge {
                    charge,
                    reported_last_free_day: compared,
                    last_free_day_difference_days: diff,
                    coming,
                }
            },
        )
        .collect();
    Ok(out)
}

/// What the account's container `id` owes as of its data's clock, with what each of the next
/// [`COMING_DAYS`] adds; `None` when the account has no such container.
pub async fn of_container(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
) -> Result<Option<ContainerCharges>, AppError> {
    let Some(shown) = containers::show(&ctx.db, account_id, id, false).await? else {
        return Ok(None);
    };
    let Some(shipment) = shown.shipment else {
        return Ok(None);
    };
    let rail = accounts::get(&ctx.db, account_id)
        .await?
        .is_some_and(|a| a.entitlements.contains(&Entitlement::RailLfd));
    let as_of_us = clock::clock(ctx, account_id, shipment.id)
        .await
        .at(ctx.now_us());
    priced(
        ctx,
        account_id,
        (&shown.container, &shipment),
        as_of_us,
        rail,
    )
    .await
    .map(Some)
}

/// What one of the account's boxes with its shipment owes as of `as_of_us`, with what each of
/// the next [`COMING_DAYS`] adds (`rail`: the rail carrier's last free day is shown).
pub async fn priced(
    ctx: &Ctx,
    account_id: Uuid,
    (c, shipment): (&ContainerRow, &ShipmentRow),
    as_of_us: i64,
    rail: bool,
) -> Result<ContainerCharges, AppError> {
    let of = ShippedBy {
        scac: &shipment.scac,
        route: &shipment.route,
    };
    charges_of(
        &mut Pricer::new(ctx, account_id),
        (c.id, &c.state),
        &of,
        as_of_us,
        (rail, COMING_DAYS),
    )
    .await
}
