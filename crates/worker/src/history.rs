//! History that does not grow forever: once an hour (and once at start) the worker makes the
//! coming months' partitions (PostgreSQL) and removes what the retention settings no longer
//! keep (`boxtrack_store::retention`). Several processes may run it at once: partitions are
//! made under a lock, and a batch another process is deleting is skipped.

use std::time::Duration;

use boxtrack_store::Db;
use boxtrack_store::retention::{self, Mode, Retention, Swept};
use tokio_util::sync::CancellationToken;

/// Months made ahead of the current one.
pub const MONTHS_AHEAD: u32 = 2;

/// One pass at `now_us`: the months ahead, then the sweep. Returns what went.
pub async fn keep_once(
    db: &Db,
    keep: &Retention,
    now_us: i64,
) -> Result<Vec<Swept>, boxtrack_store::StoreError> {
    for made in retention::make_partitions(db, now_us, MONTHS_AHEAD).await? {
        tracing::info!(partition = %made, "made a month of history");
    }
    let swept = retention::sweep(db, now_us, keep, Mode::Apply).await?;
    for s in swept
        .iter()
        .filter(|s| s.rows > 0 || !s.partitions.is_empty())
    {
        tracing::info!(
            table = s.table,
            rows = s.rows,
            partitions = s.partitions.len(),
            "retention removed history"
        );
    }
    Ok(swept)
}

/// Runs [`keep_once`] now and then every `every` until `shutdown`.
pub async fn run(db: Db, keep: Retention, every: Duration, shutdown: CancellationToken) {
    loop {
        if let Err(e) = keep_once(&db, &keep, boxtrack_store::now_us()).await {
            tracing::error!(error = %e, "retention failed; will retry");
        }
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(every) => {},
        }
    }
}
