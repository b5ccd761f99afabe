//! Sandbox scenario runs: which scripted journeys are playing and how far they got.

use boxtrack_core::tracking::{Change, Observation};
use uuid::Uuid;

use crate::{Db, Result, now_us, on_db, on_tx};

/// A scenario being played for one shipment.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RunRow {
    /// Run id.
    pub id: Uuid,
    /// Owner.
    pub account_id: Uuid,
    /// The shipment it plays on.
    pub shipment_id: Uuid,
    /// Scenario number, e.g. `TEST-SCN-IMPORT`.
    pub scenario: String,
    /// Real time the journey started (its virtual time zero).
    pub started_us: i64,
    /// Index of the first step not applied yet.
    pub next_step: i64,
}

/// When the sandbox journey of a shipment started (its virtual time zero), if it has one.
pub async fn started_us(db: &Db, account_id: Uuid, shipment_id: Uuid) -> Result<Option<i64>> {
    const SQL: &str =
        "SELECT started_us FROM sandbox_runs WHERE shipment_id = $1 AND account_id = $2 LIMIT 1";
    Ok(
        on_db!(db, p => sqlx::query_scalar(SQL).bind(shipment_id).bind(account_id).fetch_optional(p).await?),
    )
}

/// Moves the start of a shipment's journey to `started_us` (its virtual time zero), before any
/// step has played: a journey replayed from a chosen instant gives the same times every run
/// (the recorded answers of the MCP tools are compared so). False when there is no such run
/// or it has played a step already.
pub async fn start_at(
    db: &Db,
    account_id: Uuid,
    shipment_id: Uuid,
    started_us: i64,
) -> Result<bool> {
    let n = on_db!(db, p => sqlx::query("UPDATE sandbox_runs SET started_us = $3 WHERE shipment_id = $1 AND account_id = $2 AND next_step = 0")
        .bind(shipment_id).bind(account_id).bind(started_us).execute(p).await?.rows_affected());
    Ok(n == 1)
}

/// The shipments an account's request for sandbox number `number` made, still tracked,
/// whose journey has played its last step: what tracking the number again replays.
pub async fn finished_journeys(db: &Db, account_id: Uuid, number: &str) -> Result<Vec<Uuid>> {
    const SQL: &str = "SELECT r.shipment_id FROM sandbox_runs r JOIN tracking_requests t ON t.shipment_id = r.shipment_id AND t.account_id = r.account_id \
        WHERE r.account_id = $1 AND t.request_number = $2 AND t.status = 'created' AND r.done = TRUE";
    Ok(on_db!(db, p => sqlx::query_scalar(SQL).bind(account_id).bind(number).fetch_all(p).await?))
}

/// The clock a shipment's data keeps: when its sandbox journey started, and the last reading
/// of the clock of the source that feeds it (a simulator's runs fast).
#[derive(Debug, Clone, Copy, PartialEq, sqlx::FromRow)]
pub struct DataClockRow {
    /// The shipment.
    pub id: Uuid,
    /// Its sandbox journey's start (its virtual time zero), if it is one.
    pub started_us: Option<i64>,
    /// Real time of the source clock's last reading.
    pub clock_wall_us: Option<i64>,
    /// The source's time at that reading.
    pub clock_source_us: Option<i64>,
    /// Source seconds per real second.
    pub clock_speed: Option<f64>,
}

/// The data clocks of an account's shipments `ids`, in one query per 500.
pub async fn data_clocks(db: &Db, account_id: Uuid, ids: &[Uuid]) -> Result<Vec<DataClockRow>> {
    crate::reads::rows_in(
        db,
        account_id,
        ids,
        "SELECT s.id, r.started_us, s.clock_wall_us, s.clock_source_us, s.clock_speed FROM shipments s \
         LEFT JOIN sandbox_runs r ON r.shipment_id = s.id AND r.account_id = s.account_id \
         WHERE s.account_id = {account} AND s.id",
        "",
    )
    .await
}

/// Runs that still have steps to play.
pub async fn live_runs(db: &Db) -> Result<Vec<RunRow>> {
    const SQL: &str = "SELECT id, account_id, shipment_id, scenario, started_us, next_step FROM sandbox_runs WHERE done = FALSE ORDER BY started_us";
    Ok(on_db!(db, p => sqlx::query_as(SQL).fetch_all(p).await?))
}

/// The run of a shipment that is still playing, if it has one.
pub async fn live_run_of(db: &Db, account_id: Uuid, shipment_id: Uuid) -> Result<Option<RunRow>> {
    const SQL: &str = "SELECT id, account_id, shipment_id, scenario, started_us, next_step FROM sandbox_runs WHERE shipment_id = $1 AND account_id = $2 AND done = FALSE LIMIT 1";
    Ok(
        on_db!(db, p => sqlx::query_as(SQL).bind(shipment_id).bind(account_id).fetch_optional(p).await?),
    )
}

/// What one advance of a run changed: each container's id and its changes.
pub type Advanced = Vec<(Uuid, Vec<Change>)>;

/// Applies the due steps of a run and moves it on, in one transaction. `batches` are the
/// observations per container index (containers of the shipment in creation order). If another
/// worker advanced the run first, nothing is applied and `None` is returned.
pub async fn advance(
    db: &Db,
    run: &RunRow,
    batches: &[(usize, Vec<Observation>)],
    next_step: i64,
    done: bool,
) -> Result<Option<Advanced>> {
    let mut tx = db.begin().await?;
    let moved = on_tx!(&mut tx, c => sqlx::query("UPDATE sandbox_runs SET next_step = $2, done = $3 WHERE account_id = $5 AND id = $1 AND next_step = $4")
        .bind(run.id).bind(next_step).bind(done).bind(run.next_step).bind(run.account_id)
        .execute(c).await?.rows_affected());
    if moved == 0 {
        return Ok(None);
    }
    let ids: Vec<Uuid> = on_tx!(&mut tx, c => sqlx::query_scalar("SELECT id FROM containers WHERE account_id = $2 AND shipment_id = $1 ORDER BY created_us, id")
        .bind(run.shipment_id).bind(run.account_id).fetch_all(c).await?);
    let now = now_us();
    let mut changed = Vec::new();
    for (index, batch) in batches {
        if let Some(container_id) = ids.get(*index) {
            let changes =
                crate::tracking::apply_in(&mut tx, run.account_id, *container_id, batch, now)
                    .await?;
            changed.push((*container_id, changes));
        }
    }
    tx.commit().await?;
    Ok(Some(changed))
}
