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

/// Containers or shipments read a batch at a time by [`render_stale_views`].
const VIEW_BATCH: i64 = 500;

/// Writes the rendered text of every container and shipment whose stored text is missing or by
/// another version of the renderer (`boxtrack_store::rendered`): after an upgrade, rows no
/// merge has touched since are shown without parsing their states again. Where the last pass
/// that went to the end was by this renderer, only the rows changed since it began are
/// looked at (rows an older build merged meanwhile). Returns how many it wrote; stops early
/// at `shutdown`, and then records nothing.
pub async fn render_stale_views(
    db: &Db,
    shutdown: &CancellationToken,
) -> Result<usize, boxtrack_store::StoreError> {
    use boxtrack_store::rendered::RenderedKind;
    let mut wrote = 0;
    for kind in [RenderedKind::Containers, RenderedKind::Shipments] {
        wrote += render_stale(db, kind, shutdown).await?;
    }
    Ok(wrote)
}

/// [`render_stale_views`] of one kind of row.
async fn render_stale(
    db: &Db,
    kind: boxtrack_store::rendered::RenderedKind,
    shutdown: &CancellationToken,
) -> Result<usize, boxtrack_store::StoreError> {
    use boxtrack_store::rendered;
    let Some(pass) = rendered::begin(db, kind, boxtrack_store::now_us()).await? else {
        return Ok(0);
    };
    let (mut wrote, mut at) = (0, pass.from);
    loop {
        if shutdown.is_cancelled() {
            return Ok(wrote);
        }
        let (n, next) = rendered::refresh(db, kind, at, VIEW_BATCH).await?;
        wrote += n;
        match next {
            Some(next) => at = next,
            None => break,
        }
        // a batch at a time, leaving the database to the requests in between
        tokio::task::yield_now().await;
    }
    rendered::passed(db, &pass).await?;
    if wrote > 0 {
        tracing::info!(rows = wrote, of = ?kind, "rendered the shown states");
    }
    Ok(wrote)
}

/// Runs [`keep_once`] now and then every `every` until `shutdown`; after the first pass, the
/// containers' stale rendered states once ([`render_stale_views`]).
pub async fn run(db: Db, keep: Retention, every: Duration, shutdown: CancellationToken) {
    let mut first = true;
    loop {
        if let Err(e) = keep_once(&db, &keep, boxtrack_store::now_us()).await {
            tracing::error!(error = %e, "retention failed; will retry");
        }
        if std::mem::take(&mut first)
            && let Err(e) = render_stale_views(&db, &shutdown).await
        {
            tracing::error!(error = %e, "rendering shown states failed");
        }
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(every) => {},
        }
    }
}
