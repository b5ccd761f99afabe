//! The delivery cycle on SQLite, run on a connection of its own, driven directly (rusqlite)
//! by a thread that owns it, not through sqlx.
//!
//! sqlx runs each SQLite connection on a worker thread of its own: every statement is a
//! message to that thread and every returned row a message back, each waking the other side.
//! The delivery lane is SQLite's single writer on the delivery path, and those hand-offs made
//! up most of its time (a cycle of 256 deliveries took ~30 µs per delivery on the lane, of
//! which SQLite itself spent ~8). Here a whole cycle — bodies, outcomes, deferrals, the next
//! claim, commit — is one message to the `sqlite-writer` thread and one answer back. The
//! connection keeps its page cache from one cycle to the next, which a pooled connection
//! loses whenever another one has committed.
//!
//! Without a round trip to pay for, each row is its own prepared statement: the `VALUES`
//! lists the sqlx path needed made SQLite build a temporary table on every execution.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, ToSql, TransactionBehavior};
use uuid::Uuid;

use crate::notifications::{
    Attempt, Claim, Claimed, Cycle, CycleDone, CycleFailed, NotificationRow, Position, START,
    body_text, claim_statement, failure_runs, last_position,
};
use crate::{Backend, Result, StoreError};

/// A cycle to run and where its result goes (with the work, when it failed).
type Job = (
    Cycle,
    tokio::sync::oneshot::Sender<std::result::Result<CycleDone, Box<CycleFailed>>>,
);

/// The connection delivery cycles write through on SQLite, owned by a thread of its own
/// (opened on the first cycle). The thread ends when the last handle is dropped.
pub struct SqliteWriter {
    jobs: mpsc::Sender<Job>,
}

impl std::fmt::Debug for SqliteWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteWriter").finish_non_exhaustive()
    }
}

impl SqliteWriter {
    /// Starts the writer thread for the database file at `path`, whose connection is opened
    /// with the pool's settings; `auto_checkpoint` leaves SQLite's own checkpoint on (off
    /// where the pool's checkpoint task runs).
    pub(crate) fn start(path: PathBuf, auto_checkpoint: bool) -> Result<SqliteWriter> {
        let (jobs, queue) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || {
                let mut conn: Option<Connection> = None;
                for (work, reply) in queue {
                    // a panic (a bug) fails this cycle, not the thread: the transaction rolled
                    // back as it unwound, and the connection is opened afresh for the next
                    let ran =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(
                            || match &mut conn {
                                Some(c) => run(c, &work),
                                None => match open(&path, auto_checkpoint) {
                                    Ok(c) => run(conn.insert(c), &work),
                                    Err(e) => Err(e.into()),
                                },
                            },
                        ));
                    let done = ran.unwrap_or_else(|_| {
                        conn = None;
                        Err(StoreError::Writer(
                            "a SQLite delivery cycle panicked".into(),
                        ))
                    });
                    // the caller may have gone (its task was cancelled); the transaction
                    // is committed either way, as a pooled connection's would be
                    let _ = reply.send(done.map_err(|error| Box::new(CycleFailed { error, work })));
                }
            })
            .map_err(|e| StoreError::Writer(format!("cannot start the SQLite writer: {e}")))?;
        Ok(SqliteWriter { jobs })
    }

    /// Runs one delivery cycle (see [`Cycle`]) on the writer thread, in one
    /// `BEGIN IMMEDIATE` transaction.
    /// The work comes back with the error when the cycle fails.
    pub(crate) async fn cycle(
        &self,
        work: Cycle,
    ) -> std::result::Result<CycleDone, Box<CycleFailed>> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        let gone = || StoreError::Writer("the SQLite writer thread stopped".into());
        if let Err(mpsc::SendError((work, _))) = self.jobs.send((work, reply)) {
            return Err(Box::new(CycleFailed {
                error: gone(),
                work,
            }));
        }
        // the thread answers every job it takes, even one that panicked
        answer.await.unwrap_or_else(|_| {
            Err(Box::new(CycleFailed {
                error: gone(),
                work: Cycle::default(),
            }))
        })
    }
}

fn open(path: &std::path::Path, auto_checkpoint: bool) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::from_secs(10))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "cache_size", -32768)?;
    if !auto_checkpoint {
        conn.pragma_update(None, "wal_autocheckpoint", 0)?;
    }
    conn.set_prepared_statement_cache_capacity(32);
    // the ids this connection's claims handed out and no cycle has given back yet (see
    // `notifications::Claim`): this connection's own, gone with it
    conn.execute_batch(
        "PRAGMA temp_store = MEMORY; CREATE TEMP TABLE IF NOT EXISTS out_for_delivery (id BLOB PRIMARY KEY NOT NULL) WITHOUT ROWID",
    )?;
    Ok(conn)
}

/// One cycle in one transaction; an error rolls it back (rusqlite does when the transaction
/// is dropped uncommitted).
fn run(conn: &mut Connection, work: &Cycle) -> Result<CycleDone> {
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
    // what comes back is no longer out
    {
        let mut st = tx.prepare_cached("DELETE FROM temp.out_for_delivery WHERE id = ?1")?;
        for id in work
            .done
            .iter()
            .map(|(row, _)| row.id)
            .chain(work.deferred.iter().map(|(id, _)| *id))
        {
            st.execute([id])?;
        }
    }
    if let Some(claim) = work.claim {
        let (claimed, last) = claim_due(&tx, claim)?;
        out.claimed = claimed;
        out.last_claimed = Some(last);
    }
    tx.commit()?;
    Ok(out)
}

/// Rendered bodies stored where none is yet; the bodies another worker stored first (which
/// are what gets sent) are returned where they differ from the ones rendered.
fn store_bodies(
    tx: &rusqlite::Transaction<'_>,
    rendered: &[crate::notifications::Body],
) -> Result<HashMap<Uuid, String>> {
    let mut out = HashMap::new();
    let mut insert = tx.prepare_cached(
        "INSERT INTO webhook_bodies (notification_id, notification_created_us, body, account_id) VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT (notification_id) DO NOTHING",
    )?;
    for b in rendered {
        let (id, body) = (&b.notification_id, body_text(&b.body)?);
        if insert.execute((id, b.notification_created_us, body, b.account_id))? == 1 {
            continue;
        }
        // rare: another worker rendered it too (a lease ran out)
        let stored: String = tx
            .prepare_cached("SELECT body FROM webhook_bodies WHERE notification_id = ?1")?
            .query_row([id], |r| r.get(0))?;
        if stored != body {
            out.insert(*id, stored);
        }
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
    let mut keep = tx.prepare_cached(
        "INSERT INTO webhook_attempts (account_id, notification_id, notification_created_us, id, attempted_us, status_code, duration_ms, error, response_body) \
         SELECT account_id, id, created_us, ?2, last_attempt_us, last_status_code, last_duration_ms, last_error, last_response_body FROM webhook_notifications \
         WHERE id = ?1 AND last_attempt_us IS NOT NULL AND attempts = ?3",
    )?;
    // only where the attempt count is still the one claimed, as on PostgreSQL
    let mut update = tx.prepare_cached(
        "UPDATE webhook_notifications SET delivery_status = ?2, attempts = attempts + 1, next_attempt_us = ?3, locked_until_us = NULL, \
         last_status_code = ?4, last_error = ?5, last_attempt_us = ?6, last_duration_ms = ?7, last_response_body = ?8, updated_us = ?6 \
         WHERE id = ?1 AND attempts = ?9",
    )?;
    let mut stale = Vec::new();
    for (i, (n, a)) in done.iter().enumerate() {
        if n.attempts > 0 {
            // rows from before the latest attempt was kept in the row have none to move
            keep.execute((n.id, Uuid::now_v7(), n.attempts))?;
        }
        let changed = update.execute((
            n.id,
            a.status(),
            a.next_attempt_us,
            a.status_code,
            a.error.as_deref(),
            a.at_us,
            a.duration_ms,
            a.response_body.as_deref(),
            n.attempts,
        ))?;
        if changed == 0 {
            stale.push(i);
        }
    }
    let at_us = done.first().map_or(0, |(_, a)| a.at_us);
    let mut deactivated = Vec::new();
    let runs = if stale.is_empty() {
        failure_runs(done)
    } else {
        let fresh: Vec<(NotificationRow, Attempt)> = done
            .iter()
            .enumerate()
            .filter(|(i, _)| !stale.contains(i))
            .map(|(_, d)| d.clone())
            .collect();
        failure_runs(&fresh)
    };
    for ((account, hook), (reset, failures)) in runs {
        let sql = if reset {
            crate::notifications::SET_FAILURES
        } else {
            crate::notifications::ADD_FAILURES
        };
        let total: Option<i64> = tx
            .prepare_cached(sql)?
            .query_row(
                &[
                    ("$1", &hook as &dyn ToSql),
                    ("$2", &failures),
                    ("$3", &account),
                ],
                |r| r.get(0),
            )
            .optional()?;
        if total.is_some_and(|t| t >= deactivate_after)
            && tx
                .prepare_cached(crate::notifications::DEACTIVATE)?
                .execute(&[
                    ("$1", &hook as &dyn ToSql),
                    ("$2", &at_us),
                    ("$3", &account),
                ])?
                > 0
        {
            deactivated.push(hook);
        }
    }
    Ok(deactivated)
}

/// Gives claimed notifications back unattempted, due again at the given times.
fn defer(tx: &rusqlite::Transaction<'_>, rows: &[(Uuid, i64)]) -> Result<()> {
    let mut st = tx.prepare_cached(
        "UPDATE webhook_notifications SET next_attempt_us = ?2, locked_until_us = NULL WHERE id = ?1",
    )?;
    for (id, next) in rows {
        st.execute((id, next))?;
    }
    Ok(())
}

/// The claim statement on SQLite: what this connection handed out left out, and the limit
/// written into the statement. SQLite built with `SQLITE_ENABLE_STAT4` (as rusqlite bundles
/// it) lets the planner read a bound `LIMIT`, and binding that parameter again, even to the
/// same value, makes `sqlite3_step` prepare the statement anew: some 260,000 instructions a
/// claim. The limit is the worker's batch, one statement for it in the cache.
fn claim_sql(limit: i64) -> String {
    claim_statement(Backend::Sqlite)
        .replace(
            " ORDER BY",
            " AND id NOT IN (SELECT id FROM temp.out_for_delivery) ORDER BY",
        )
        .replace("LIMIT $2", &format!("LIMIT {}", limit.max(0)))
}

/// Claims the next due notifications of this run (see [`Claim`]): a read, since on SQLite
/// the process holding the claims is the lease.
fn claim_due(tx: &rusqlite::Transaction<'_>, c: Claim) -> Result<(Vec<Claimed>, Position)> {
    if c.first {
        // a new run: whatever an earlier one handed out has come back or was dropped
        tx.execute("DELETE FROM temp.out_for_delivery", [])?;
    }
    let mut st = tx.prepare_cached(&claim_sql(c.limit))?;
    let after = c.after.unwrap_or(START);
    st.raw_bind_parameter("$1", c.now_us)?;
    st.raw_bind_parameter("$3", after.due_us)?;
    st.raw_bind_parameter("$4", after.id)?;
    let mut out = Vec::new();
    let mut rows = st.raw_query();
    while let Some(r) = rows.next()? {
        // the columns of `notifications::COLUMNS`, in order, then the body
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
    let mut st =
        tx.prepare_cached("INSERT OR IGNORE INTO temp.out_for_delivery (id) VALUES (?1)")?;
    for c in &out {
        st.execute([c.row.id])?;
    }
    // in due order already
    let last = last_position(&out, after);
    Ok((out, last))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_claim_is_not_prepared_again_each_time() {
        let database = boxtrack_testkit::fresh().await;
        if boxtrack_testkit::on_postgres() {
            return;
        }
        let db = crate::Db::connect(&database.url)
            .await
            .unwrap_or_else(|e| panic!("connect: {e}"));
        db.migrate()
            .await
            .unwrap_or_else(|e| panic!("migrate: {e}"));
        let crate::Db::Sqlite(pool, _) = &db else {
            panic!("a SQLite test database");
        };
        let mut conn =
            open(pool.connect_options().get_filename(), true).unwrap_or_else(|e| panic!("{e}"));
        for n in 0..3 {
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .unwrap_or_else(|e| panic!("{e}"));
            let claim = Claim {
                now_us: 1_000 + n,
                lease_us: 0,
                limit: 256,
                after: None,
                first: n == 0,
            };
            claim_due(&tx, claim).unwrap_or_else(|e| panic!("claim {n}: {e}"));
            let st = tx
                .prepare_cached(&claim_sql(256))
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                st.get_status(rusqlite::StatementStatus::RePrepare),
                0,
                "claim {n} prepared its statement again"
            );
            drop(st);
            tx.commit().unwrap_or_else(|e| panic!("{e}"));
        }
    }
}
