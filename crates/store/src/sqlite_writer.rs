//! The delivery cycle on SQLite, run on a connection of its own that the calling thread
//! drives directly (rusqlite), not through sqlx.
//!
//! sqlx runs each SQLite connection on a worker thread of its own: every statement is a
//! message to that thread and every returned row a message back, each waking the other side.
//! The delivery lane is SQLite's single writer on the delivery path, and those hand-offs made
//! up more than half of its time (a cycle of 256 deliveries took ~30 µs per delivery on the
//! lane, of which SQLite itself spent ~8). Here a whole cycle — bodies, outcomes, deferrals,
//! the next claim, commit — runs in one call on one thread, which blocks while it does
//! (callers run it with `spawn_blocking`). The connection also keeps its page cache from one
//! cycle to the next, which a pooled connection loses whenever another one has committed.
//!
//! The SQL is the same as the PostgreSQL path's where the two agree; the multi-row statements
//! use `VALUES` lists with anonymous `?` placeholders, padded like the sqlx ones
//! ([`crate::sql::padded`]) so the statement cache holds few shapes.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};
use uuid::Uuid;

use crate::notifications::{
    Attempt, Claim, Claimed, Cycle, CycleDone, NotificationRow, body_text, claim_statement,
    failure_runs, other_bodies,
};
use crate::sql::{MAX_ROWS, Marks, padded, padded_len};
use crate::{Backend, Result};

/// The connection delivery cycles write through on SQLite; opened on first use.
pub struct SqliteWriter {
    path: PathBuf,
    /// Whether SQLite checkpoints by itself (off where the pool's checkpoint task runs).
    auto_checkpoint: bool,
    conn: Mutex<Option<Connection>>,
}

impl std::fmt::Debug for SqliteWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteWriter")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl SqliteWriter {
    /// A writer for the database file at `path`, opened with the pool's settings.
    pub(crate) fn new(path: PathBuf, auto_checkpoint: bool) -> SqliteWriter {
        SqliteWriter {
            path,
            auto_checkpoint,
            conn: Mutex::new(None),
        }
    }

    fn open(&self) -> rusqlite::Result<Connection> {
        let conn = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(Duration::from_secs(10))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.pragma_update(None, "cache_size", -32768)?;
        if !self.auto_checkpoint {
            conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        }
        conn.set_prepared_statement_cache_capacity(64);
        Ok(conn)
    }

    /// Runs one delivery cycle in one `BEGIN IMMEDIATE` transaction (see [`Cycle`]). Blocks
    /// the calling thread until it is committed or rolled back.
    pub(crate) fn cycle(&self, work: &Cycle) -> Result<CycleDone> {
        // a panic while the lock was held left at worst an unfinished transaction, which
        // rusqlite rolled back when it unwound
        let mut guard = self
            .conn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if guard.is_none() {
            *guard = Some(self.open()?);
        }
        let Some(conn) = guard.as_mut() else {
            return Ok(CycleDone::default());
        };
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut out = CycleDone::default();
        if !work.bodies.is_empty() {
            out.stored_before = store_bodies(&tx, &work.bodies)?;
        }
        if !work.done.is_empty() {
            out.deactivated = record(&tx, &work.done, work.deactivate_after)?;
        }
        if !work.deferred.is_empty() {
            defer(&tx, &work.deferred)?;
        }
        if let Some(claim) = work.claim {
            out.claimed = claim_due(&tx, claim)?;
        }
        tx.commit()?;
        Ok(out)
    }
}

/// Rendered bodies stored where none is yet; the bodies another worker stored first are
/// returned (see `notifications::store_bodies`).
fn store_bodies(
    tx: &rusqlite::Transaction<'_>,
    rendered: &[(Uuid, bytes::Bytes)],
) -> Result<HashMap<Uuid, String>> {
    let rendered: Vec<(Uuid, &str)> = rendered
        .iter()
        .map(|(id, b)| Ok((*id, body_text(b)?)))
        .collect::<Result<_>>()?;
    let mut out = HashMap::new();
    for chunk in rendered.chunks(MAX_ROWS) {
        let sql = format!(
            "INSERT INTO webhook_bodies (notification_id, body) VALUES {} ON CONFLICT (notification_id) DO NOTHING",
            Marks::new(Backend::Sqlite).rows(padded_len(chunk.len()), 2)
        );
        let mut st = tx.prepare_cached(&sql)?;
        let mut i = 1;
        for (id, body) in padded(chunk) {
            st.raw_bind_parameter(i, id)?;
            st.raw_bind_parameter(i + 1, *body)?;
            i += 2;
        }
        // the padding repeats the last row, which conflicts with itself and is not counted
        if st.raw_execute()? == chunk.len() {
            continue;
        }
        let sql = format!(
            "SELECT notification_id, body FROM webhook_bodies WHERE notification_id IN ({})",
            Marks::new(Backend::Sqlite).list(chunk.len())
        );
        let mut st = tx.prepare(&sql)?;
        for (i, (id, _)) in chunk.iter().enumerate() {
            st.raw_bind_parameter(i + 1, id)?;
        }
        let mut stored = Vec::new();
        let mut rows = st.raw_query();
        while let Some(r) = rows.next()? {
            stored.push((r.get::<_, Uuid>(0)?, r.get::<_, String>(1)?));
        }
        out.extend(other_bodies(stored, chunk));
    }
    Ok(out)
}

/// Records attempts, as `notifications::record_many` does on PostgreSQL: the previous attempt
/// of a retried notification moves to `webhook_attempts`, the row takes the new one, and each
/// webhook's run of failures moves on (reaching `deactivate_after` deactivates it).
fn record(
    tx: &rusqlite::Transaction<'_>,
    done: &[(NotificationRow, Attempt)],
    deactivate_after: i64,
) -> Result<Vec<Uuid>> {
    for chunk in done.chunks(MAX_ROWS) {
        let retried: Vec<(Uuid, Uuid)> = chunk
            .iter()
            .filter(|(n, _)| n.attempts > 0)
            .map(|(n, _)| (n.id, Uuid::now_v7()))
            .collect();
        if !retried.is_empty() {
            let sql = format!(
                "INSERT INTO webhook_attempts (notification_id, id, attempted_us, status_code, duration_ms, error) \
                 SELECT n.id, v.attempt_id, n.last_attempt_us, n.last_status_code, n.last_duration_ms, n.last_error \
                 FROM webhook_notifications n JOIN (SELECT column1 AS notification_id, column2 AS attempt_id FROM (VALUES {}) AS t) AS v \
                 ON n.id = v.notification_id WHERE n.last_attempt_us IS NOT NULL",
                // not padded: a repeated row would insert the same attempt twice
                Marks::new(Backend::Sqlite).rows(retried.len(), 2)
            );
            let mut st = tx.prepare(&sql)?;
            let mut i = 1;
            for (id, attempt_id) in &retried {
                st.raw_bind_parameter(i, id)?;
                st.raw_bind_parameter(i + 1, attempt_id)?;
                i += 2;
            }
            st.raw_execute()?;
        }
        let sql = format!(
            "UPDATE webhook_notifications SET delivery_status = v.status, attempts = attempts + 1, next_attempt_us = v.next, locked_until_us = NULL, \
             last_status_code = v.code, last_error = v.error, last_attempt_us = v.at, last_duration_ms = v.duration, updated_us = v.at \
             FROM (SELECT column1 AS id, column2 AS status, column3 AS next, column4 AS code, column5 AS error, column6 AS at, column7 AS duration FROM (VALUES {}) AS t) AS v \
             WHERE webhook_notifications.id = v.id",
            Marks::new(Backend::Sqlite).rows(padded_len(chunk.len()), 7)
        );
        let mut st = tx.prepare_cached(&sql)?;
        let mut i = 1;
        for (n, a) in padded(chunk) {
            st.raw_bind_parameter(i, n.id)?;
            st.raw_bind_parameter(i + 1, a.status())?;
            st.raw_bind_parameter(i + 2, a.next_attempt_us)?;
            st.raw_bind_parameter(i + 3, a.status_code)?;
            st.raw_bind_parameter(i + 4, a.error.as_deref())?;
            st.raw_bind_parameter(i + 5, a.at_us)?;
            st.raw_bind_parameter(i + 6, a.duration_ms)?;
            i += 7;
        }
        st.raw_execute()?;
    }
    let at_us = done.first().map_or(0, |(_, a)| a.at_us);
    let mut deactivated = Vec::new();
    for (hook, (reset, failures)) in failure_runs(done) {
        let sql = if reset {
            crate::notifications::SET_FAILURES
        } else {
            crate::notifications::ADD_FAILURES
        };
        let mut st = tx.prepare_cached(sql)?;
        st.raw_bind_parameter("$1", hook)?;
        st.raw_bind_parameter("$2", failures)?;
        let mut rows = st.raw_query();
        let total: Option<i64> = match rows.next()? {
            Some(r) => Some(r.get(0)?),
            None => None,
        };
        drop(rows);
        if total.is_some_and(|t| t >= deactivate_after) {
            let mut st = tx.prepare_cached(crate::notifications::DEACTIVATE)?;
            st.raw_bind_parameter("$1", hook)?;
            st.raw_bind_parameter("$2", at_us)?;
            if st.raw_execute()? > 0 {
                deactivated.push(hook);
            }
        }
    }
    Ok(deactivated)
}

/// Gives claimed notifications back unattempted, due again at the given times.
fn defer(tx: &rusqlite::Transaction<'_>, rows: &[(Uuid, i64)]) -> Result<()> {
    for chunk in rows.chunks(MAX_ROWS) {
        let sql = format!(
            "UPDATE webhook_notifications SET next_attempt_us = v.next, locked_until_us = NULL \
             FROM (SELECT column1 AS id, column2 AS next FROM (VALUES {}) AS t) AS v WHERE webhook_notifications.id = v.id",
            Marks::new(Backend::Sqlite).rows(padded_len(chunk.len()), 2)
        );
        let mut st = tx.prepare_cached(&sql)?;
        let mut i = 1;
        for (id, next) in padded(chunk) {
            st.raw_bind_parameter(i, id)?;
            st.raw_bind_parameter(i + 1, next)?;
            i += 2;
        }
        st.raw_execute()?;
    }
    Ok(())
}

/// Claims due notifications with a lease (see `notifications::claim_due`).
fn claim_due(tx: &rusqlite::Transaction<'_>, c: Claim) -> Result<Vec<Claimed>> {
    let sql = claim_statement(Backend::Sqlite);
    let mut st = tx.prepare_cached(&sql)?;
    st.raw_bind_parameter("$1", c.now_us)?;
    st.raw_bind_parameter("$2", c.limit)?;
    st.raw_bind_parameter("$3", c.now_us + c.lease_us)?;
    let mut out = Vec::new();
    let mut rows = st.raw_query();
    while let Some(r) = rows.next()? {
        out.push(Claimed {
            row: NotificationRow {
                id: r.get(0)?,
                account_id: r.get(1)?,
                webhook_id: r.get(2)?,
                event_id: r.get(3)?,
                seq: r.get(4)?,
                event: r.get(5)?,
                reference_type: r.get(6)?,
                reference_id: r.get(7)?,
                delivery_status: r.get(8)?,
                attempts: r.get(9)?,
                next_attempt_us: r.get(10)?,
                last_status_code: r.get(11)?,
                last_error: r.get(12)?,
                created_us: r.get(13)?,
                updated_us: r.get(14)?,
                replay_of: r.get(15)?,
            },
            body: r.get(16)?,
        });
    }
    out.sort_by_key(|c| (c.row.next_attempt_us, c.row.seq));
    Ok(out)
}
