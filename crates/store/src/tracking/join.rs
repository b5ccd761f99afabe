//! A box that joins a bill after the bill is tracked: the carrier's first answer named only
//! the containers it had reported by then, and a later poll names one more. It becomes a
//! container of the shipment as the first ones did (`container.created`, the plan's limit,
//! what EDI files said of it before, the request's custom fields), under the number's lock so
//! that two reports naming it at once make one container.

use uuid::Uuid;

use super::finish::create_container_in;
use super::{NewContainer, room_in_plan, set_initial_fields};
use crate::{Db, Result, Tx, on_tx};

/// What [`join_shipment`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Joined {
    /// The containers made, in the order given.
    pub created: Vec<Uuid>,
    /// Numbers left out because the account's plan is at its limit of active containers.
    pub over_limit: Vec<String>,
}

/// Adds to shipment `shipment_id` of `account_id` each container of `containers` it lacks,
/// in one transaction, with its observations merged. A shipment no longer tracked (stopped,
/// or not this account's) takes none; a number the shipment already has, in any state, is
/// skipped; past a free plan's limit of active containers the rest are left out and named in
/// [`Joined::over_limit`].
pub async fn join_shipment(
    db: &Db,
    account_id: Uuid,
    shipment_id: Uuid,
    containers: &[NewContainer],
    now: i64,
) -> Result<Joined> {
    let mut joined = Joined::default();
    let mut tx = db.begin().await?;
    let Some(request_id) = tracked_request(&mut tx, account_id, shipment_id).await? else {
        tx.commit().await?;
        return Ok(joined);
    };
    let mut room = room_in_plan(&mut tx, account_id).await?;
    let mut numbered = Vec::new();
    for nc in containers {
        crate::early::lock_number(&mut tx, &nc.number).await?;
        if has_number(&mut tx, shipment_id, &nc.number).await? {
            continue;
        }
        if room == Some(0) {
            joined.over_limit.push(nc.number.clone());
            continue;
        }
        let id = create_container_in(&mut tx, account_id, shipment_id, nc, now).await?;
        room = room.map(|r| r - 1);
        joined.created.push(id);
        numbered.push((id, nc.number.clone()));
    }
    if let Some(request_id) = request_id {
        set_initial_fields(&mut tx, request_id, account_id, None, &numbered, now).await?;
    }
    tx.commit().await?;
    Ok(joined)
}

/// The request of a shipment still tracked (`Some(None)`: tracked, made without a request);
/// `None` when the shipment is stopped or not the account's.
async fn tracked_request(
    tx: &mut Tx,
    account_id: Uuid,
    shipment_id: Uuid,
) -> Result<Option<Option<Uuid>>> {
    let row: Option<(Option<Uuid>, Option<i64>)> = on_tx!(tx, c => sqlx::query_as(
        "SELECT tracking_request_id, tracking_stopped_us FROM shipments WHERE id = $1 AND account_id = $2")
        .bind(shipment_id).bind(account_id).fetch_optional(c).await?);
    Ok(match row {
        Some((request, None)) => Some(request),
        _ => None,
    })
}

/// Whether the shipment has a container with this number, in any state.
async fn has_number(tx: &mut Tx, shipment_id: Uuid, number: &str) -> Result<bool> {
    let found: i64 = on_tx!(tx, c => sqlx::query_scalar(
        "SELECT COUNT(*) FROM containers WHERE shipment_id = $1 AND number = $2")
        .bind(shipment_id).bind(number).fetch_one(c).await?);
    Ok(found > 0)
}
