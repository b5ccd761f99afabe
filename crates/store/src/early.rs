//! Early reports: what an X12 or EDIFACT file said about a container that no account tracked
//! when it came. A carrier or railroad that only sends EDI does not wait for the customer to
//! register the bill, and does not send the same milestones again: the observations are kept
//! (bounded by age and count, [`prune`]) and merged, through the same merge as any report,
//! when a tracking request makes the container known ([`for_new_container_in`]).

use boxtrack_core::tracking::Observation;
use uuid::Uuid;

use crate::{Db, Result, Tx, on_db, on_tx};

/// Reports of one number kept at most (the newest): a number that is reported for months
/// without being tracked is not worth more.
pub const MAX_PER_NUMBER: i64 = 200;

/// What [`keep`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Kept {
    /// Reports kept.
    pub kept: usize,
    /// Numbers a container was made known for meanwhile (its tracking request finished
    /// between the file's lookup of its numbers and this keeping): their reports were not
    /// kept, and the caller applies them to those containers now.
    pub known_meanwhile: Vec<String>,
}

/// Keeps what a file said about numbers no account in its scope tracks. `account`: the
/// sending account's scope (`None`: an operator's file, for every account). Each number is
/// kept in a transaction of its own that first takes the number's lock
/// ([`lock_number`], also taken where a container is created and reads these rows) and looks
/// again for a container: a report is kept or found known, never lost between the two.
pub async fn keep(
    db: &Db,
    account: Option<Uuid>,
    payload_id: Option<Uuid>,
    reports: &[(String, Vec<Observation>)],
    now_us: i64,
) -> Result<Kept> {
    let sql = match db {
        Db::Sqlite(..) => {
            "INSERT INTO early_reports (id, account_id, number, observations, payload_id, received_us) VALUES ($1, $2, $3, $4, $5, $6)"
        }
        Db::Postgres(_) => {
            "INSERT INTO early_reports (id, account_id, number, observations, payload_id, received_us) VALUES ($1, $2, $3, $4::jsonb, $5, $6)"
        }
    };
    let known_sql = format!(
        "SELECT COUNT(*) FROM containers c JOIN shipments s ON s.account_id = c.account_id AND s.id = c.shipment_id WHERE c.number = $1 AND ($2 IS NULL OR c.account_id = $2) AND {}",
        crate::tracking::takes_reports("$3")
    );
    let since = crate::tracking::refine_since(now_us);
    let mut out = Kept::default();
    for (number, observations) in reports.iter().filter(|(_, o)| !o.is_empty()) {
        let json = serde_json::to_string(observations).map_err(|e| crate::StoreError::Corrupt {
            what: "early_reports.observations",
            detail: e.to_string(),
        })?;
        let mut tx = db.begin().await?;
        lock_number(&mut tx, number).await?;
        let known: i64 = on_tx!(&mut tx, c => sqlx::query_scalar(sqlx::AssertSqlSafe(known_sql.clone()))
            .bind(number).bind(account).bind(since).fetch_one(c).await?);
        if known > 0 {
            out.known_meanwhile.push(number.clone());
        } else {
            on_tx!(&mut tx, c => sqlx::query(sql)
                .bind(Uuid::now_v7()).bind(account).bind(number).bind(&json).bind(payload_id).bind(now_us)
                .execute(c).await.map(|_| ())?);
            out.kept += 1;
        }
        tx.commit().await?;
    }
    Ok(out)
}

/// Takes the lock of container number `number` until the transaction ends, so that keeping a
/// report about it and creating a container with it (which reads the kept reports) happen one
/// after the other. On PostgreSQL an advisory lock; SQLite's write transactions already run
/// one at a time.
pub async fn lock_number(tx: &mut Tx, number: &str) -> Result<()> {
    if let Tx::Postgres(c) = tx {
        sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 7041))")
            .bind(number)
            .execute(&mut **c)
            .await?;
    }
    Ok(())
}

/// The kept observations about `number` that `account` may see (its own files' and the
/// operator's), oldest report first: what a container new to that account starts from. The
/// account's own rows are consumed (a later journey of the same box starts afresh); an
/// operator's rows stay for the other accounts that may track the box, until pruned.
pub async fn for_new_container_in(
    tx: &mut Tx,
    account: Uuid,
    number: &str,
) -> Result<Vec<Observation>> {
    let sql = match tx {
        Tx::Sqlite(_) => {
            "SELECT observations FROM early_reports WHERE number = $1 AND (account_id IS NULL OR account_id = $2) ORDER BY received_us, id"
        }
        Tx::Postgres(_) => {
            "SELECT observations::text FROM early_reports WHERE number = $1 AND (account_id IS NULL OR account_id = $2) ORDER BY received_us, id"
        }
    };
    let rows: Vec<String> = on_tx!(tx, c => sqlx::query_scalar(sql)
        .bind(number).bind(account).fetch_all(c).await?);
    on_tx!(tx, c => sqlx::query("DELETE FROM early_reports WHERE number = $1 AND account_id = $2")
        .bind(number).bind(account).execute(c).await.map(|_| ())?);
    let mut out = Vec::new();
    for r in rows {
        // a row this version cannot read is skipped, not fatal: it is only a head start
        if let Ok(mut o) = serde_json::from_str::<Vec<Observation>>(&r) {
            out.append(&mut o);
        }
    }
    Ok(out)
}

/// Drops kept reports older than `max_age_us` at `now_us`, then the oldest beyond
/// `max_rows` in all and beyond [`MAX_PER_NUMBER`] per number. Returns how many went.
pub async fn prune(db: &Db, now_us: i64, max_age_us: i64, max_rows: i64) -> Result<u64> {
    let cutoff = now_us.saturating_sub(max_age_us);
    let mut gone = on_db!(db, c => sqlx::query("DELETE FROM early_reports WHERE received_us < $1")
        .bind(cutoff).execute(c).await?.rows_affected());
    let beyond = match db {
        Db::Sqlite(..) => {
            "DELETE FROM early_reports WHERE id IN (SELECT id FROM early_reports ORDER BY received_us DESC, id DESC LIMIT -1 OFFSET $1)"
        }
        Db::Postgres(_) => {
            "DELETE FROM early_reports WHERE id IN (SELECT id FROM early_reports ORDER BY received_us DESC, id DESC OFFSET $1)"
        }
    };
    gone += on_db!(db, c => sqlx::query(beyond)
        .bind(max_rows.max(0)).execute(c).await?.rows_affected());
    gone += on_db!(db, c => sqlx::query(
        "DELETE FROM early_reports WHERE id IN (SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY number ORDER BY received_us DESC, id DESC) AS n FROM early_reports) AS x WHERE n > $1)")
        .bind(MAX_PER_NUMBER).execute(c).await?.rows_affected());
    Ok(gone)
}

/// How many reports are kept, and when the oldest came.
pub async fn stats(db: &Db) -> Result<(i64, Option<i64>)> {
    Ok(on_db!(db, c => sqlx::query_as(
        "SELECT COUNT(*), MIN(received_us) FROM early_reports")
        .fetch_one(c).await?))
}
