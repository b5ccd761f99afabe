//! Tracking a number: `POST /v2/tracking_requests`, the console's form and its CSV import, and
//! MCP's `track_container` ask the same ([`NewRequest`]), checked by the same rules
//! (`core::requests::validate`), recorded the same way, each saying a refusal ([`Refused`]) in
//! its own words.

use boxtrack_core::carriers::SANDBOX_SCAC;
use boxtrack_core::paging::Page;
use boxtrack_core::requests::{self, FieldError, NewRequest, ValidRequest};
use boxtrack_store::accounts::Account;
use boxtrack_store::reads::{self, ContainerRow, Filter};
use boxtrack_store::tracking::{self, RequestExtras, TrackingRequestRow};
use boxtrack_store::{Db, StoreError, sandbox};
use uuid::Uuid;

use crate::AppError;
use crate::ctx::Ctx;

/// Why a number is not tracked.
#[derive(Debug)]
pub enum Refused {
    /// The request breaks the rules: each problem with its place in the request.
    Invalid(Vec<FieldError>),
    /// The number (with that carrier) is tracked already: a request for it is pending or
    /// created.
    Duplicate(ValidRequest),
    /// A free account tracks at most this many active containers at once.
    PlanLimit(u32),
    /// The store failed.
    Store(StoreError),
}

impl From<StoreError> for Refused {
    fn from(e: StoreError) -> Refused {
        Refused::Store(e)
    }
}

/// Records a request to track a number for `account` and wakes the worker. A carrier that no
/// configured source serves leaves the request waiting for the operator to add one (said at
/// once, in its status).
pub async fn track(
    ctx: &Ctx,
    account: &Account,
    asked: &NewRequest,
    extras: RequestExtras,
) -> Result<TrackingRequestRow, Refused> {
    let valid = requests::validate(asked).map_err(Refused::Invalid)?;
    let mut created =
        tracking::create_request(&ctx.db, account.id, account.plan, &valid, &extras).await;
    if matches!(created, Err(StoreError::Duplicate(_)))
        && replayable(&ctx.db, account, &valid).await?
    {
        created =
            tracking::create_request(&ctx.db, account.id, account.plan, &valid, &extras).await;
    }
    let row = match created {
        Ok(row) => row,
        Err(StoreError::Duplicate(_)) => return Err(Refused::Duplicate(valid)),
        Err(StoreError::PlanLimit { limit }) => return Err(Refused::PlanLimit(limit)),
        Err(e) => return Err(e.into()),
    };
    let row = match row.scac.as_deref() {
        Some(scac) if scac != SANDBOX_SCAC && ctx.upstreams.carrier(scac).is_none() => {
            tracing::warn!(scac, tracking_request.id = %row.id, "no source is configured for this carrier; the request waits");
            tracking::mark_unavailable(&ctx.db, account.id, row.id).await?
        }
        _ => row,
    };
    ctx.wake.notify_one();
    Ok(row)
}

/// Whether a sandbox number tracked already may be tracked again: every journey it started has
/// played to its end, so tracking it again replays it (the finished shipments stop, with
/// `tracking_request.tracking_stopped`, and stay readable). A journey still playing keeps the
/// number a duplicate.
async fn replayable(db: &Db, account: &Account, valid: &ValidRequest) -> Result<bool, Refused> {
    if valid.scac.as_deref() != Some(SANDBOX_SCAC) {
        return Ok(false);
    }
    let finished = sandbox::finished_journeys(db, account.id, &valid.number).await?;
    for shipment in &finished {
        tracking::stop_shipment(db, account.id, *shipment, "cancelled_by_user").await?;
    }
    Ok(!finished.is_empty())
}

/// The account's container that `number` names: the container by its number (`true`), or the
/// only container of the shipment of that bill or booking (`false`); `None` when it names
/// none, or a shipment of several.
pub async fn tracked_already(
    ctx: &Ctx,
    account_id: Uuid,
    number: &str,
) -> Result<Option<(ContainerRow, bool)>, AppError> {
    let by_number = Filter {
        container_number: Some(number.to_string()),
        ..Filter::default()
    };
    let found = reads::containers(&ctx.db, account_id, &by_number, &Page::first(1)).await?;
    if let Some(c) = found.rows.into_iter().next() {
        return Ok(Some((c, true)));
    }
    let by_shipment = Filter {
        number: Some(number.to_string()),
        ..Filter::default()
    };
    let ships = reads::shipments(&ctx.db, account_id, &by_shipment, &Page::first(1)).await?;
    let Some(sh) = ships.rows.first() else {
        return Ok(None);
    };
    let mut boxes = reads::containers_of(&ctx.db, account_id, sh.id).await?;
    Ok((boxes.len() == 1).then(|| (boxes.remove(0), false)))
}

/// The account's newest tracking request for `number` (the one a duplicate request met).
pub async fn request_for(
    ctx: &Ctx,
    account_id: Uuid,
    number: &str,
) -> Result<Option<TrackingRequestRow>, AppError> {
    let filter = tracking::RequestFilter {
        request_number: Some(number.to_string()),
        ..Default::default()
    };
    let listed = tracking::list_requests(&ctx.db, account_id, &filter, &Page::first(1)).await?;
    Ok(listed.rows.into_iter().next())
}
