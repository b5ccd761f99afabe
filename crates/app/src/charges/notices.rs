//! The charge webhooks: `container.charges.free_time_ending` on the day before a running free
//! time's calculated last free day (or on the day itself, when the day before was missed), and
//! `container.charges.accruing` once its first chargeable day has come while the box stays.
//! Each is sent once per container and kind (the store records it in the transaction that
//! appends the event), only for accounts with a webhook that names it, each box on its own
//! data's clock (a sandbox journey's virtual time).

use boxtrack_core::webhooks::EXTENSION_EVENTS;
use boxtrack_store::charges as store;
use serde_json::json;
use uuid::Uuid;

use super::container::{ContainerCharge, ShippedBy, charges_of};
use super::quote::Pricer;
use crate::AppError;
use crate::clock::DataClock;
use crate::ctx::Ctx;

/// The free time is ending.
pub const FREE_TIME_ENDING: &str = "container.charges.free_time_ending";
/// The charge began to accrue.
pub const ACCRUING: &str = "container.charges.accruing";

/// Which notice, if any, a running kind is due: accruing once a day is charged, free time
/// ending when its last free day is today or tomorrow (`today` is the box's own date).
fn due(c: &ContainerCharge, today: jiff::civil::Date) -> Option<&'static str> {
    if c.charge.ended_on.is_some() {
        return None;
    }
    if c.charge.chargeable_days > 0 {
        return Some(ACCRUING);
    }
    let lfd: jiff::civil::Date = c.charge.last_free_day.as_deref()?.parse().ok()?;
    let left = today.until(lfd).ok()?.get_days();
    (0..=1).contains(&left).then_some(FREE_TIME_ENDING)
}

/// What the event says of the charge.
fn change(c: &ContainerCharge) -> serde_json::Value {
    let first = c.charge.days.first();
    json!({
        "kind": c.charge.kind,
        "tariff_id": c.charge.tariff_id,
        "issuer": c.charge.issuer,
        "currency": c.charge.currency,
        "free_time_start": c.charge.free_time_start,
        "last_free_day": c.charge.last_free_day,
        "reported_last_free_day": c.reported_last_free_day,
        "first_chargeable_day": first.map(|d| &d.date),
        "first_rate": first.map(|d| &d.rate),
        "accrued": c.charge.amount,
        "tomorrow_adds": c.coming.first().map(|d| &d.adds),
    })
}

/// Sends the charge notices due at `now_us` for one account; how many were appended.
async fn for_account(ctx: &Ctx, account_id: Uuid, now_us: i64) -> Result<usize, AppError> {
    let boxes = store::active_boxes(&ctx.db, account_id, (0, 1)).await?;
    let mut pricer = Pricer::new(ctx, account_id);
    let mut sent = 0;
    for mut b in boxes {
        let as_of = DataClock::of(Some(&b.clock()), ctx.policy.sandbox_speed).at(now_us);
        let state = std::mem::take(&mut b.state).into_state();
        let of = ShippedBy {
            scac: &b.scac,
            route: &b.route,
        };
        let charges = charges_of(&mut pricer, (b.id, &state), &of, as_of, (false, 1)).await?;
        for c in &charges.charges {
            // the box's own today: the day before its first coming day (running kinds only)
            let Some(today) = c
                .coming
                .first()
                .and_then(|d| d.date.parse::<jiff::civil::Date>().ok())
                .and_then(|d| d.yesterday().ok())
            else {
                continue;
            };
            let Some(event) = due(c, today) else {
                continue;
            };
            let payload = json!({
                "container_id": b.id,
                "shipment_id": b.shipment_id,
                "change": change(c),
            });
            let key = (b.id, c.charge.kind.as_str());
            if store::notice(&ctx.db, account_id, key, event, &payload, now_us).await? {
                sent += 1;
            }
        }
    }
    Ok(sent)
}

/// Sends the charge notices due at `now_us` for every account with a webhook that names one;
/// how many were appended.
pub async fn pass(ctx: &Ctx, now_us: i64) -> Result<usize, AppError> {
    let mut sent = 0;
    for account_id in store::accounts_listening(&ctx.db, &EXTENSION_EVENTS).await? {
        sent += for_account(ctx, account_id, now_us).await?;
    }
    Ok(sent)
}
