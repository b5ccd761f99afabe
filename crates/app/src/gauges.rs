//! What `/metrics` reads from the database, so that every process reports the whole
//! installation: the webhook backlog and the tracking gauges.

pub use boxtrack_store::citus::WorkerNode;
pub use boxtrack_store::gauges::TrackingGauges;

use boxtrack_store::{gauges, notifications};

use crate::AppError;
use crate::ctx::Ctx;

/// The webhook notifications due now and not yet delivered, when the oldest of them fell due
/// (Unix microseconds), and all those not yet delivered (retries scheduled later included).
pub async fn backlog(ctx: &Ctx) -> Result<(i64, Option<i64>, i64), AppError> {
    Ok(notifications::backlog(&ctx.db, ctx.now_us()).await?)
}

/// Requests by status, containers tracked and those without an update for `stale_after_us`,
/// the worker's last completed pass.
pub async fn tracking(ctx: &Ctx, stale_after_us: i64) -> Result<TrackingGauges, AppError> {
    Ok(gauges::tracking(&ctx.db, ctx.now_us() - stale_after_us).await?)
}

/// The Citus workers the coordinator reaches now (empty where the database is not Citus).
pub async fn citus_workers(ctx: &Ctx) -> Result<Vec<WorkerNode>, AppError> {
    Ok(boxtrack_store::citus::workers(&ctx.db).await?)
}
