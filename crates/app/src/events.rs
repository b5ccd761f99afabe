//! The account's event log as `GET /v2/events` pages it: every change in the order it was
//! made, after a sequence number.

pub use boxtrack_store::events::EventRow;
use boxtrack_store::{Db, events};
use uuid::Uuid;

use crate::AppError;

/// The account's events after sequence number `after_seq`, oldest first, at most `limit`
/// (read from `db`: a replica replays commits in the primary's order, so what it shows is the
/// log as the primary had it a moment ago).
pub async fn after(
    db: &Db,
    account_id: Uuid,
    after_seq: i64,
    limit: i64,
) -> Result<Vec<EventRow>, AppError> {
    Ok(events::after(db, account_id, after_seq, limit).await?)
}
