//! What an operator watches that only the database knows, read for `/metrics` so that every
//! process reports the whole installation: tracking requests by status, containers tracked and
//! gone quiet, and when a worker last completed a pass.

use crate::{Db, Result, on_db};

/// The installation's tracking gauges at one instant.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrackingGauges {
    /// Tracking requests by status (`pending`, `awaiting_manifest`, `failed`, …), every
    /// status that has any.
    pub requests: Vec<(String, i64)>,
    /// Containers tracked (on shipments still tracked).
    pub containers_tracked: i64,
    /// Tracked containers whose state no source has changed for the stale window.
    pub containers_stale: i64,
    /// When a worker last completed a pass (Unix microseconds), if one ever did.
    pub worker_pass_us: Option<i64>,
}

/// Reads the gauges; a container is stale when it has not been updated since `stale_before_us`.
pub async fn tracking(db: &Db, stale_before_us: i64) -> Result<TrackingGauges> {
    let requests: Vec<(String, i64)> = on_db!(db, p => sqlx::query_as(
        "SELECT status, COUNT(*) FROM tracking_requests GROUP BY status ORDER BY status")
        .fetch_all(p).await?);
    let (tracked, stale): (i64, Option<i64>) = on_db!(db, p => sqlx::query_as(
        "SELECT COUNT(*), SUM(CASE WHEN updated_us < $1 THEN 1 ELSE 0 END) FROM containers WHERE active = TRUE")
        .bind(stale_before_us).fetch_one(p).await?);
    let worker_pass_us: Option<i64> = on_db!(db, p => sqlx::query_scalar(
        "SELECT MAX(passed_us) FROM worker_passes")
        .fetch_one(p).await?);
    Ok(TrackingGauges {
        requests,
        containers_tracked: tracked,
        containers_stale: stale.unwrap_or(0),
        worker_pass_us,
    })
}

/// Records that a worker completed a pass at `at_us` (kept only when newer than the one held).
pub async fn record_worker_pass(db: &Db, at_us: i64) -> Result<()> {
    on_db!(db, p => sqlx::query(
        "INSERT INTO worker_passes (worker, passed_us) VALUES ('worker', $1) \
         ON CONFLICT (worker) DO UPDATE SET passed_us = excluded.passed_us WHERE worker_passes.passed_us < excluded.passed_us")
        .bind(at_us).execute(p).await.map(|_| ())?);
    Ok(())
}
