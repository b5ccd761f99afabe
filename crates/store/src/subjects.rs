//! Subjects: what boxtrack polls upstream, keyed by carrier and reference (not by account),
//! so one poll serves every account tracking the same number. Due work is found through an
//! index on `next_due_us`, so a scheduler tick costs what is due, not what is tracked.

use uuid::Uuid;

use crate::{Db, Result, Tx, on_db, on_tx};

/// A subject.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SubjectRow {
    /// Id.
    pub id: Uuid,
    /// Carrier SCAC.
    pub scac: String,
    /// `bill_of_lading`, `booking_number` or `container`.
    pub kind: String,
    /// The number.
    pub reference: String,
    /// Still polled.
    pub active: bool,
    /// Next poll.
    pub next_due_us: i64,
    /// Failures in a row.
    pub failures: i32,
    /// Last poll.
    pub last_polled_us: Option<i64>,
    /// Last successful poll.
    pub last_success_us: Option<i64>,
    /// Last error.
    pub last_error: Option<String>,
}

const COLS: &str = "id, scac, kind, reference, active, next_due_us, failures, last_polled_us, last_success_us, last_error";

/// Makes sure a subject exists and is active, due no later than `due_us`.
pub async fn ensure_in(
    tx: &mut Tx,
    scac: &str,
    kind: &str,
    reference: &str,
    due_us: i64,
    now: i64,
) -> Result<()> {
    let least = match tx {
        Tx::Sqlite(_) => "MIN",
        Tx::Postgres(_) => "LEAST",
    };
    let sql = format!(
        "INSERT INTO subjects (id, scac, kind, reference, active, next_due_us, locked_until_us, failures, last_polled_us, last_success_us, last_error, created_us) \
         VALUES ($1, $2, $3, $4, TRUE, $5, NULL, 0, NULL, NULL, NULL, $6) \
         ON CONFLICT (scac, kind, reference) DO UPDATE SET active = TRUE, \
         next_due_us = CASE WHEN subjects.active THEN {least}(subjects.next_due_us, $5) ELSE $5 END"
    );
    on_tx!(tx, c => sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(Uuid::now_v7()).bind(scac).bind(kind).bind(reference).bind(due_us).bind(now)
        .execute(c).await.map(|_| ())?);
    Ok(())
}

/// Claims up to `limit` due subjects with a lease (`FOR UPDATE SKIP LOCKED` on PostgreSQL, so
/// several processes share the polling).
pub async fn claim_due(db: &Db, now: i64, lease_us: i64, limit: i64) -> Result<Vec<SubjectRow>> {
    // the predicates are written as the partial index `subjects_due` is, so both planners
    // use it (SQLite does not match `active = TRUE` against `active = 1`)
    let (lock, active) = match db {
        Db::Sqlite(..) => ("", "active = 1"),
        Db::Postgres(_) => (" FOR UPDATE SKIP LOCKED", "active"),
    };
    // the limit written in: SQLite built with STAT4 (as bundled) prepares a statement again
    // each time a bound `LIMIT` is bound anew (`sqlite_writer::claim_sql`)
    let sql = format!(
        "UPDATE subjects SET locked_until_us = $2 WHERE id IN (SELECT id FROM subjects WHERE {active} AND next_due_us <= $1 AND (locked_until_us IS NULL OR locked_until_us < $1) ORDER BY next_due_us LIMIT {}{lock}) RETURNING {COLS}",
        limit.max(0)
    );
    let mut rows: Vec<SubjectRow> = on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(now).bind(now + lease_us).fetch_all(p).await?);
    rows.sort_by_key(|r| r.next_due_us);
    Ok(rows)
}

/// How a poll ended.
#[derive(Debug, Clone)]
pub enum Polled {
    /// Answered; poll again at `next_due_us`, or never (`None`: nothing more to learn).
    Success {
        /// Next poll.
        next_due_us: Option<i64>,
    },
    /// Failed; try again at `next_due_us`.
    Failure {
        /// Why.
        error: String,
        /// Next attempt.
        next_due_us: i64,
    },
}

/// Records a poll and releases the lease.
pub async fn finish(db: &Db, id: Uuid, now: i64, polled: &Polled) -> Result<()> {
    match polled {
        Polled::Success { next_due_us } => {
            on_db!(db, p => sqlx::query(
                "UPDATE subjects SET locked_until_us = NULL, failures = 0, last_polled_us = $2, last_success_us = $2, last_error = NULL, \
                 active = $3, next_due_us = $4 WHERE id = $1")
                .bind(id).bind(now).bind(next_due_us.is_some()).bind(next_due_us.unwrap_or(i64::MAX))
                .execute(p).await.map(|_| ())?);
        }
        Polled::Failure { error, next_due_us } => {
            on_db!(db, p => sqlx::query(
                "UPDATE subjects SET locked_until_us = NULL, failures = failures + 1, last_polled_us = $2, last_error = $3, next_due_us = $4 WHERE id = $1")
                .bind(id).bind(now).bind(error).bind(*next_due_us)
                .execute(p).await.map(|_| ())?);
        }
    }
    Ok(())
}

/// Makes the active subjects with one of these references due at `now` (sooner, never
/// later): a pushed event named a box they may lack, and their next poll adds it. Returns how
/// many were made due.
pub async fn poll_soon(db: &Db, references: &[String], now: i64) -> Result<u64> {
    if references.is_empty() {
        return Ok(0);
    }
    let mut marks = crate::sql::Marks::new(db.backend());
    let (set, after) = (marks.one(), marks.one());
    let sql = format!(
        "UPDATE subjects SET next_due_us = {set} WHERE active = TRUE AND next_due_us > {after} AND reference IN ({})",
        marks.list(references.len())
    );
    Ok(on_db!(db, p => {
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(now).bind(now);
        for r in references {
            q = q.bind(r);
        }
        q.execute(p).await?.rows_affected()
    }))
}

/// One subject by key.
pub async fn get(db: &Db, scac: &str, kind: &str, reference: &str) -> Result<Option<SubjectRow>> {
    let sql =
        format!("SELECT {COLS} FROM subjects WHERE scac = $1 AND kind = $2 AND reference = $3");
    Ok(
        on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(scac).bind(kind).bind(reference).fetch_optional(p).await?),
    )
}

/// A tracked container a subject feeds.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Target {
    /// Owner.
    pub account_id: Uuid,
    /// Container.
    pub container_id: Uuid,
    /// Its shipment.
    pub shipment_id: Uuid,
    /// Its number.
    pub number: String,
    /// Its status.
    pub current_status: String,
    /// Its state (JSON).
    pub state: String,
    /// The shipment's route (JSON).
    pub route: String,
    /// The shipment's state (JSON).
    pub shipment_state: String,
}

/// Every container, in every account, that tracks this subject and takes reports (active, or
/// its journey ended lately: it then takes only refinements).
pub async fn targets(db: &Db, scac: &str, kind: &str, reference: &str) -> Result<Vec<Target>> {
    let cast = match db {
        Db::Sqlite(..) => ("c.state", "s.route", "s.state"),
        Db::Postgres(_) => ("c.state::text", "s.route::text", "s.state::text"),
    };
    let sql = format!(
        "SELECT c.account_id, c.id AS container_id, c.shipment_id, c.number, c.current_status, {} AS state, {} AS route, {} AS shipment_state \
         FROM tracking_requests tr JOIN shipments s ON s.account_id = tr.account_id AND s.tracking_request_id = tr.id JOIN containers c ON c.account_id = s.account_id AND c.shipment_id = s.id \
         WHERE tr.request_number = $3 AND tr.request_type = $2 AND s.scac = $1 AND {} ORDER BY c.account_id, c.number",
        cast.0,
        cast.1,
        cast.2,
        crate::tracking::takes_reports("$4")
    );
    let since = crate::tracking::refine_since(crate::now_us());
    Ok(
        on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(scac).bind(kind).bind(reference).bind(since).fetch_all(p).await?),
    )
}

/// Records the clock of a subject's source on every shipment it feeds: at real time
/// `wall_us` the source said `source_us`, running `speed` source seconds per real second.
pub async fn record_clock(
    db: &Db,
    scac: &str,
    kind: &str,
    reference: &str,
    wall_us: i64,
    source_us: i64,
    speed: f64,
) -> Result<()> {
    const SQL: &str = "UPDATE shipments SET clock_wall_us = $4, clock_source_us = $5, clock_speed = $6 \
        WHERE scac = $1 AND (account_id, tracking_request_id) IN (SELECT account_id, id FROM tracking_requests WHERE request_number = $3 AND request_type = $2)";
    on_db!(db, p => sqlx::query(SQL).bind(scac).bind(kind).bind(reference).bind(wall_us).bind(source_us).bind(speed).execute(p).await.map(|_| ())?);
    Ok(())
}

/// The subject that feeds a container (through the request that created its shipment).
pub async fn of_container(
    db: &Db,
    account_id: Uuid,
    container_id: Uuid,
) -> Result<Option<SubjectRow>> {
    let sql = format!(
        // the account's rows first, then the shared subject: on Citus the account's tables
        // are on a worker and `subjects` on the coordinator, which join only through a
        // materialized result
        "WITH wanted AS MATERIALIZED (SELECT s.scac, tr.request_type, tr.request_number FROM containers c \
           JOIN shipments s ON s.account_id = c.account_id AND s.id = c.shipment_id \
           JOIN tracking_requests tr ON tr.account_id = s.account_id AND tr.id = s.tracking_request_id \
           WHERE c.id = $1 AND c.account_id = $2) \
         SELECT {} FROM subjects sub JOIN wanted w ON sub.scac = w.scac AND sub.kind = w.request_type AND sub.reference = w.request_number",
        COLS.split(", ")
            .map(|c| format!("sub.{c}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(
        on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(container_id).bind(account_id).fetch_optional(p).await?),
    )
}

/// Counts of subjects: active, due now, failing.
pub async fn counts(db: &Db, now: i64) -> Result<(i64, i64, i64)> {
    Ok(on_db!(db, p => sqlx::query_as(
        "SELECT COUNT(*) FILTER (WHERE active = TRUE), COUNT(*) FILTER (WHERE active = TRUE AND next_due_us <= $1), COUNT(*) FILTER (WHERE failures > 0) FROM subjects")
        .bind(now).fetch_one(p).await?))
}

/// A tracked container a pushed event may concern.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PushTarget {
    /// Owner.
    pub account_id: Uuid,
    /// Container.
    pub container_id: Uuid,
    /// Its number.
    pub number: String,
    /// The number its tracking request was made with (bill of lading, booking, container).
    pub request_number: String,
    /// The shipment's bill of lading.
    pub bill_of_lading_number: String,
    /// The shipment's route (JSON).
    pub route: String,
}

/// Containers (of every account) that take reports (see [`targets`]) with one of these
/// numbers, or tracked through a request for one of these references.
pub async fn targets_for_push(
    db: &Db,
    numbers: &[String],
    references: &[String],
) -> Result<Vec<PushTarget>> {
    if numbers.is_empty() && references.is_empty() {
        return Ok(vec![]);
    }
    let route = match db {
        Db::Sqlite(..) => "s.route",
        Db::Postgres(_) => "s.route::text",
    };
    let mut marks = crate::sql::Marks::new(db.backend());
    let sql = format!(
        "SELECT c.account_id, c.id AS container_id, c.number, tr.request_number, s.bill_of_lading_number, {route} AS route \
         FROM containers c JOIN shipments s ON s.account_id = c.account_id AND s.id = c.shipment_id JOIN tracking_requests tr ON tr.account_id = s.account_id AND tr.id = s.tracking_request_id \
         WHERE (c.number IN ({}) OR tr.request_number IN ({}) OR s.bill_of_lading_number IN ({})) AND {} ORDER BY c.account_id, c.id",
        marks.list(numbers.len()),
        marks.list(references.len()),
        marks.list(references.len()),
        crate::tracking::takes_reports(&marks.one()),
    );
    let since = crate::tracking::refine_since(crate::now_us());
    Ok(on_db!(db, p => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        for n in numbers.iter().chain(references).chain(references) {
            q = q.bind(n);
        }
        q = q.bind(since);
        q.fetch_all(p).await?
    }))
}

/// Containers (of every account) that take reports and whose stored records hold one of these
/// upstream event ids: where a withdrawal that names no container or document may apply. It
/// reads every such container's records, so it is for the rare withdrawal only.
pub async fn targets_holding(db: &Db, upstream_ids: &[String]) -> Result<Vec<PushTarget>> {
    if upstream_ids.is_empty() {
        return Ok(vec![]);
    }
    let (route, find) = match db {
        Db::Sqlite(..) => ("s.route", "instr(c.records, {}) > 0"),
        Db::Postgres(_) => ("s.route::text", "strpos(c.records::text, {}) > 0"),
    };
    let mut marks = crate::sql::Marks::new(db.backend());
    let any: Vec<String> = upstream_ids
        .iter()
        .map(|_| find.replace("{}", &marks.one()))
        .collect();
    let sql = format!(
        "SELECT c.account_id, c.id AS container_id, c.number, tr.request_number, s.bill_of_lading_number, {route} AS route \
         FROM containers c JOIN shipments s ON s.account_id = c.account_id AND s.id = c.shipment_id JOIN tracking_requests tr ON tr.account_id = s.account_id AND tr.id = s.tracking_request_id \
         WHERE ({}) AND {} ORDER BY c.account_id, c.id",
        any.join(" OR "),
        crate::tracking::takes_reports(&marks.one()),
    );
    let since = crate::tracking::refine_since(crate::now_us());
    Ok(on_db!(db, p => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        for id in upstream_ids {
            // the id as a JSON string, as the records store it
            q = q.bind(serde_json::Value::String(id.clone()).to_string());
        }
        q = q.bind(since);
        q.fetch_all(p).await?
    }))
}
