//! Webhook notifications (the outbox) as the API lists them.

use boxtrack_core::paging::{Key, Page};
use uuid::Uuid;

use crate::list::{Arg, Cond, Keyed, ListSpec, Listed};
use crate::{Db, PgTx, Result, on_db};

/// A stored notification.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct NotificationRow {
    /// Id (the `data.id` receivers deduplicate on).
    pub id: Uuid,
    /// Owner.
    pub account_id: Uuid,
    /// The subscription.
    pub webhook_id: Uuid,
    /// The event-log entry.
    pub event_id: Uuid,
    /// Its sequence.
    pub seq: i64,
    /// Event name.
    pub event: String,
    /// Type of the object the event is about.
    pub reference_type: String,
    /// Its id.
    pub reference_id: Uuid,
    /// `pending`, `succeeded` or `failed`.
    pub delivery_status: String,
    /// Attempts made.
    pub attempts: i64,
    /// Next attempt.
    pub next_attempt_us: Option<i64>,
    /// Last HTTP status received.
    pub last_status_code: Option<i64>,
    /// Last error.
    pub last_error: Option<String>,
    /// Created.
    pub created_us: i64,
    /// Last change.
    pub updated_us: i64,
    /// The notification this one repeats (replays only).
    pub replay_of: Option<Uuid>,
}

impl Keyed for NotificationRow {
    fn key(&self) -> Key {
        Key {
            sort_us: self.created_us,
            id: *self.id.as_bytes(),
        }
    }
}

const COLUMNS: &str = "id, account_id, webhook_id, event_id, seq, event, reference_type, reference_id, delivery_status, attempts, next_attempt_us, last_status_code, last_error, created_us, updated_us, replay_of";

/// Filters of `GET /v2/webhook_notifications`.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// One webhook.
    pub webhook_id: Option<Uuid>,
    /// One event name.
    pub event: Option<String>,
    /// One delivery status.
    pub delivery_status: Option<String>,
    /// Created at or after.
    pub created_start_us: Option<i64>,
    /// Created at or before.
    pub created_end_us: Option<i64>,
}

/// A page of an account's notifications, newest first.
pub async fn list(
    db: &Db,
    account_id: Uuid,
    f: &Filter,
    page: &Page,
) -> Result<Listed<NotificationRow>> {
    let mut conds = vec![Cond::new("account_id = ?", vec![Arg::Uuid(account_id)])];
    if let Some(w) = f.webhook_id {
        conds.push(Cond::new("webhook_id = ?", vec![Arg::Uuid(w)]));
    }
    if let Some(e) = &f.event {
        conds.push(Cond::new("event = ?", vec![Arg::Text(e.clone())]));
    }
    if let Some(s) = &f.delivery_status {
        conds.push(Cond::new("delivery_status = ?", vec![Arg::Text(s.clone())]));
    }
    for (v, sql) in [
        (f.created_start_us, "created_us >= ?"),
        (f.created_end_us, "created_us <= ?"),
    ] {
        if let Some(v) = v {
            conds.push(Cond::new(sql, vec![Arg::I64(v)]));
        }
    }
    let spec = ListSpec {
        from: "webhook_notifications",
        columns: COLUMNS,
        sort_col: "created_us",
        ascending: false,
        id_col: "id",
        conds,
    };
    crate::list::list(db, &spec, page).await
}

/// One notification of an account.
/// The delivery backlog of every account at `now_us`: notifications due and not delivered,
/// when the oldest of them fell due, and every notification not yet delivered (retries
/// scheduled later included). Read through the partial index of pending notifications.
pub async fn backlog(db: &Db, now_us: i64) -> Result<(i64, Option<i64>, i64)> {
    let (due, oldest): (i64, Option<i64>) = on_db!(db, p => sqlx::query_as(
        "SELECT COUNT(*), MIN(next_attempt_us) FROM webhook_notifications WHERE delivery_status = 'pending' AND next_attempt_us <= $1")
        .bind(now_us)
        .fetch_one(p)
        .await?);
    let pending: i64 = on_db!(db, p => sqlx::query_scalar(
        "SELECT COUNT(*) FROM webhook_notifications WHERE delivery_status = 'pending'")
        .fetch_one(p)
        .await?);
    Ok((due, oldest, pending))
}

/// One notification of an account.
pub async fn get(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<NotificationRow>> {
    const SQL: &str = "SELECT id, account_id, webhook_id, event_id, seq, event, reference_type, reference_id, delivery_status, attempts, next_attempt_us, last_status_code, last_error, created_us, updated_us, replay_of FROM webhook_notifications WHERE id = $1 AND account_id = $2";
    Ok(on_db!(db, p => sqlx::query_as(SQL).bind(id).bind(account_id).fetch_optional(p).await?))
}

/// A rendered notification body to store.
#[derive(Debug, Clone)]
pub struct Body {
    /// The notification's account.
    pub account_id: Uuid,
    /// The notification.
    pub notification_id: Uuid,
    /// Its creation time: on PostgreSQL, which month's partition the body goes to.
    pub notification_created_us: i64,
    /// The body (UTF-8 JSON), shared with the delivery that sends it.
    pub body: bytes::Bytes,
}

/// What one delivery cycle writes, in one transaction: bodies rendered since the last cycle,
/// outcomes of attempts made since, and (when `claim` is set) the claim of the next batch.
#[derive(Debug, Default)]
pub struct Cycle {
    /// Rendered bodies to store where none is stored yet.
    pub bodies: Vec<Body>,
    /// Attempts to record.
    pub done: Vec<(NotificationRow, Attempt)>,
    /// Notifications given back unattempted (their webhook had no free slot in time), each
    /// due again at the given time; the attempt count is unchanged.
    pub deferred: Vec<(Uuid, i64)>,
    /// Claim up to this many notifications due then, with this lease.
    pub claim: Option<Claim>,
    /// A webhook reaching this many failures in a row is set inactive.
    pub deactivate_after: i64,
}

/// A claim of due notifications, in due order ([`Position`]). The claims of one run go on
/// from where the last one stopped (`after`), so a run never steps over its own notifications
/// in flight.
///
/// On PostgreSQL, where several processes deliver, a claim writes a lease into each row it
/// takes (`locked_until_us`, in no index, so the row is rewritten in place where its page has
/// room): other processes pass over it until the lease ends or its attempt is recorded, and
/// the rows of a process that died come back when their lease ends. On SQLite one process
/// delivers (the database is a file of that process), so a claim writes nothing to the rows:
/// the writer connection keeps the ids it handed out and not yet got back in a temporary
/// table of its own, which later claims pass over; a process that dies takes its claims with
/// it, and a restarted one finds every unrecorded notification due again at once.
///
/// A run may go back to the first due notification (`after: None`) while some of its own are
/// still out (a slow receiver's): the leases (PostgreSQL) and the writer's ids (SQLite) keep
/// it from taking them twice.
#[derive(Debug, Clone, Copy)]
pub struct Claim {
    /// Due at or before this time.
    pub now_us: i64,
    /// Held this long (PostgreSQL).
    pub lease_us: i64,
    /// At most this many.
    pub limit: i64,
    /// Only notifications after this position in due order (the last one the run claimed,
    /// [`CycleDone::last_claimed`]); `None` starts from the first due.
    pub after: Option<Position>,
    /// The first claim of a run: nothing an earlier run claimed is still out (on SQLite the
    /// writer forgets the ids it handed out before).
    pub first: bool,
}

/// A notification's place in due order: due time, then id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    /// When it is due.
    pub due_us: i64,
    /// Its id (time-ordered, so the older of two due at once comes first).
    pub id: Uuid,
}

/// What a cycle wrote and read.
#[derive(Debug, Default)]
pub struct CycleDone {
    /// Bodies another worker had stored first, by notification: they replace the ones
    /// rendered, so every attempt sends the same bytes.
    pub stored_before: std::collections::HashMap<Uuid, String>,
    /// Webhooks deactivated now.
    pub deactivated: Vec<Uuid>,
    /// The notifications claimed, due first.
    pub claimed: Vec<Claimed>,
    /// Where the next claim of this run goes on from: the last notification claimed, or the
    /// `after` of the claim when it took none (`None` when no claim ran).
    pub last_claimed: Option<Position>,
}

/// Runs one delivery cycle in one transaction (see [`Cycle`]): one commit for what would
/// otherwise be three, so pages touched by recording and by claiming are written once.
///
/// On SQLite the cycle runs on the database's own writer connection, on its thread (see
/// `sqlite_writer`); on PostgreSQL through the pool.
pub async fn cycle(db: &Db, work: Cycle) -> Result<CycleDone> {
    cycle_keeping(db, work).await.map_err(|f| f.error)
}

/// A cycle that did not commit, with its work given back to be tried again.
#[derive(Debug)]
pub struct CycleFailed {
    /// Why.
    pub error: crate::StoreError,
    /// What it was to write, unchanged.
    pub work: Cycle,
}

/// [`cycle`], giving the work back when the transaction fails (the database went away, or
/// its disk is full), so the caller can keep the outcomes of attempts already made and
/// record them once the database is back instead of sending those notifications again.
///
/// Recording is safe to repeat: an attempt is recorded only while the notification's attempt
/// count is still the one it was claimed with, so a cycle that committed although its caller
/// saw an error (the connection broke during the commit) records nothing the second time.
pub async fn cycle_keeping(
    db: &Db,
    work: Cycle,
) -> std::result::Result<CycleDone, Box<CycleFailed>> {
    if work.bodies.is_empty()
        && work.done.is_empty()
        && work.deferred.is_empty()
        && work.claim.is_none()
    {
        return Ok(CycleDone::default());
    }
    let pool = match db {
        Db::Sqlite(_, side) => return side.writer.cycle(work).await,
        Db::Postgres(pool) => pool,
    };
    match run_pg(pool, &work).await {
        Ok(out) => Ok(out),
        Err(error) => Err(Box::new(CycleFailed { error, work })),
    }
}

/// One cycle on PostgreSQL, in one transaction.
async fn run_pg(pool: &sqlx::PgPool, work: &Cycle) -> Result<CycleDone> {
    let mut tx = pool.begin().await?;
    let mut out = CycleDone::default();
    // Citus cannot join its shards with arrays given as parameters: one router statement a row
    let citus = crate::citus::on_citus(pool);
    if !work.bodies.is_empty() {
        out.stored_before = if citus {
            crate::citus_delivery::store_bodies(&mut tx, &work.bodies).await?
        } else {
            store_bodies(&mut tx, &work.bodies).await?
        };
    }
    if !work.done.is_empty() {
        out.deactivated = if citus {
            crate::citus_delivery::record(&mut tx, &work.done, work.deactivate_after).await?
        } else {
            record_many(&mut tx, &work.done, work.deactivate_after).await?
        };
    }
    if !work.deferred.is_empty() {
        if citus {
            crate::citus_delivery::defer(&mut tx, &work.deferred).await?;
        } else {
            defer(&mut tx, &work.deferred).await?;
        }
    }
    if let Some(claim) = work.claim {
        let (claimed, last) = claim_due(&mut tx, claim, citus).await?;
        out.claimed = claimed;
        out.last_claimed = Some(last);
    }
    tx.commit().await?;
    Ok(out)
}

/// A rendered body as the text it is stored as.
pub(crate) fn body_text(b: &bytes::Bytes) -> Result<&str> {
    std::str::from_utf8(b).map_err(|e| crate::StoreError::Corrupt {
        what: "rendered webhook body",
        detail: e.to_string(),
    })
}

/// A claimed notification and its stored body (`None` until first rendered).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Claimed {
    /// The notification.
    #[sqlx(flatten)]
    pub row: NotificationRow,
    /// The body as stored.
    pub body: Option<String>,
}

/// The claim of a delivery cycle (see [`Claim`]), with its stored bodies: `$1` now, `$2` the
/// most rows, `$3` and `$4` the position to go on after, and on PostgreSQL `$5` the end of
/// the lease. Public so tests can ask the database how it plans it.
pub fn claim_statement(backend: crate::Backend) -> String {
    // the creation time names the body's month: one partition probed, not every month's
    const BODY: &str = "(SELECT body FROM webhook_bodies WHERE account_id = webhook_notifications.account_id AND notification_id = webhook_notifications.id \
         AND notification_created_us = webhook_notifications.created_us) AS body";
    // due order is the order of the due index, so a claim reads the next entries of one index
    // range and sorts nothing
    const DUE: &str = "delivery_status = 'pending' AND next_attempt_us <= $1 AND (next_attempt_us, id) > ($3, $4)";
    match backend {
        crate::Backend::Sqlite => format!(
            "SELECT {COLUMNS}, {BODY} FROM webhook_notifications WHERE {DUE} ORDER BY next_attempt_us, id LIMIT $2"
        ),
        // `id IN (subquery)` became a hash semi-join over a sequential scan of the whole table
        // once it held some thousands of analyzed rows (the planner prices 256 primary-key
        // probes above one scan): every claim read every notification ever written. The ids
        // as one array are probed through the primary key, whatever the table's size.
        crate::Backend::Postgres => format!(
            "UPDATE webhook_notifications SET locked_until_us = $5 WHERE id = ANY(ARRAY(\
             SELECT id FROM webhook_notifications WHERE {DUE} AND (locked_until_us IS NULL OR locked_until_us < $1) \
             ORDER BY next_attempt_us, id LIMIT $2 FOR UPDATE SKIP LOCKED)) \
             RETURNING {COLUMNS}, {BODY}"
        ),
    }
}

/// The claim on Citus, which cannot lock rows of many shards: the due candidates first (each
/// shard's first, merged), then each one's lease taken only while it is still free, so a row
/// another worker took meanwhile is left out. The same parameters as [`claim_statement`].
pub fn citus_claim_statement() -> String {
    const BODY: &str = "(SELECT body FROM webhook_bodies b WHERE b.account_id = n.account_id AND b.notification_id = n.id \
         AND b.notification_created_us = n.created_us) AS body";
    const FREE: &str = "n.delivery_status = 'pending' AND n.next_attempt_us <= $1 AND (n.next_attempt_us, n.id) > ($3, $4) \
         AND (n.locked_until_us IS NULL OR n.locked_until_us < $1)";
    let columns: Vec<String> = COLUMNS.split(", ").map(|c| format!("n.{c}")).collect();
    format!(
        "WITH due AS (SELECT n.account_id, n.id, n.created_us FROM webhook_notifications n WHERE {FREE} \
         ORDER BY n.next_attempt_us, n.id LIMIT $2) \
         UPDATE webhook_notifications n SET locked_until_us = $5 FROM due \
         WHERE n.account_id = due.account_id AND n.id = due.id AND n.created_us = due.created_us AND {FREE} \
         RETURNING {}, {BODY}",
        columns.join(", ")
    )
}

/// Where a claim that took `claimed` (in due order) leaves the next one: after the last row,
/// or where it started when it took none.
pub(crate) fn last_position(claimed: &[Claimed], after: Position) -> Position {
    claimed
        .last()
        .and_then(|c| {
            c.row.next_attempt_us.map(|due_us| Position {
                due_us,
                id: c.row.id,
            })
        })
        .unwrap_or(after)
}

/// The position before every due notification.
pub(crate) const START: Position = Position {
    due_us: i64::MIN,
    id: Uuid::nil(),
};

/// Claims up to `limit` pending notifications due at `now` after the run's position, with a
/// lease, in one statement that also returns their stored bodies (`FOR UPDATE SKIP LOCKED`,
/// so several workers share the work).
async fn claim_due(tx: &mut PgTx, c: Claim, citus: bool) -> Result<(Vec<Claimed>, Position)> {
    // A custom plan (PostgreSQL's first five per connection) trusts the row estimate of the
    // last ANALYZE; after a burst of new notifications that is far too low, and the planner
    // reads and sorts every due row to keep 256. The generic plan walks the due index in
    // order and stops at the limit, whatever the statistics say.
    // (Citus plans no generic plan of a statement with parameters; each shard plans its own)
    if !citus {
        sqlx::query("SET LOCAL plan_cache_mode = force_generic_plan")
            .execute(&mut **tx)
            .await?;
    }
    let after = c.after.unwrap_or(START);
    let sql = if citus {
        citus_claim_statement()
    } else {
        claim_statement(crate::Backend::Postgres)
    };
    let mut rows: Vec<Claimed> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(c.now_us)
        .bind(c.limit)
        .bind(after.due_us)
        .bind(after.id)
        .bind(c.now_us + c.lease_us)
        .fetch_all(&mut **tx)
        .await?;
    rows.sort_by_key(|c| (c.row.next_attempt_us, c.row.id));
    let last = last_position(&rows, after);
    Ok((rows, last))
}

/// Stores rendered bodies where none is stored yet, in one statement with an array per
/// column, and returns the bodies another worker stored first that differ from the ones given
/// (the stored ones win, so every attempt sends the same bytes). They are read back only when
/// the statement did not insert every row, which is rare: two workers render the same
/// notification only when a lease ran out.
async fn store_bodies(
    tx: &mut PgTx,
    given: &[Body],
) -> Result<std::collections::HashMap<Uuid, String>> {
    let rendered: Vec<(Uuid, &str)> = given
        .iter()
        .map(|b| Ok((b.notification_id, body_text(&b.body)?)))
        .collect::<Result<_>>()?;
    let ids: Vec<Uuid> = rendered.iter().map(|(id, _)| *id).collect();
    let accounts: Vec<Uuid> = given.iter().map(|b| b.account_id).collect();
    let bodies: Vec<&str> = rendered.iter().map(|(_, b)| *b).collect();
    let created: Vec<i64> = given.iter().map(|b| b.notification_created_us).collect();
    let inserted = sqlx::query(
        "INSERT INTO webhook_bodies (notification_id, notification_created_us, body, account_id) \
         SELECT * FROM unnest($1::uuid[], $2::int8[], $3::text[], $4::uuid[]) ON CONFLICT (account_id, notification_id, notification_created_us) DO NOTHING",
    )
    .bind(&ids)
    .bind(&created)
    .bind(&bodies)
    .bind(&accounts)
    .execute(&mut **tx)
    .await?
    .rows_affected();
    let mut out = std::collections::HashMap::new();
    if inserted < rendered.len() as u64 {
        let stored: Vec<(Uuid, String)> = sqlx::query_as(
            "SELECT b.notification_id, b.body FROM webhook_bodies b \
             JOIN unnest($1::uuid[], $2::uuid[]) AS v(account_id, id) ON b.account_id = v.account_id AND b.notification_id = v.id",
        )
        .bind(&accounts)
        .bind(&ids)
        .fetch_all(&mut **tx)
        .await?;
        out.extend(other_bodies(stored, &rendered));
    }
    Ok(out)
}

/// Of the `stored` bodies, those that differ from the ones `rendered` now: another worker
/// stored them first, and they are what gets sent.
pub(crate) fn other_bodies(
    stored: Vec<(Uuid, String)>,
    rendered: &[(Uuid, &str)],
) -> impl Iterator<Item = (Uuid, String)> {
    let mine: std::collections::HashMap<Uuid, &str> = rendered.iter().copied().collect();
    stored
        .into_iter()
        .filter(move |(id, body)| mine.get(id).is_some_and(|m| *m != body.as_str()))
}

/// Gives claimed notifications back unattempted: their lease ends and they are due again at
/// the given time.
async fn defer(tx: &mut PgTx, rows: &[(Uuid, i64)]) -> Result<()> {
    sqlx::query(
        "UPDATE webhook_notifications SET next_attempt_us = v.next, locked_until_us = NULL \
         FROM unnest($1::uuid[], $2::int8[]) AS v(id, next) WHERE webhook_notifications.id = v.id",
    )
    .bind(rows.iter().map(|(id, _)| *id).collect::<Vec<_>>())
    .bind(rows.iter().map(|(_, next)| *next).collect::<Vec<_>>())
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Sets a webhook's run of failures to `$2` (after a success, 0) unless it is that already.
pub(crate) const SET_FAILURES: &str = "UPDATE webhooks SET consecutive_failures = $2 WHERE account_id = $3 AND id = $1 AND consecutive_failures <> $2 RETURNING consecutive_failures";
/// Adds `$2` failures to a webhook's run.
pub(crate) const ADD_FAILURES: &str = "UPDATE webhooks SET consecutive_failures = consecutive_failures + $2 WHERE account_id = $3 AND id = $1 RETURNING consecutive_failures";
/// Sets a webhook inactive after repeated failures, at `$2`.
pub(crate) const DEACTIVATE: &str = "UPDATE webhooks SET active = FALSE, deactivated_reason = 'repeated_delivery_failures', updated_us = $2 WHERE account_id = $3 AND id = $1 AND active = TRUE";

/// Each webhook's (by account and id) run of failures after these attempts, in attempt
/// order: whether a success reset it, and the failures since (the last success, or the start).
pub(crate) fn failure_runs(
    done: &[(NotificationRow, Attempt)],
) -> std::collections::BTreeMap<(Uuid, Uuid), (bool, i64)> {
    let mut runs: std::collections::BTreeMap<(Uuid, Uuid), (bool, i64)> =
        std::collections::BTreeMap::new();
    for (n, a) in done {
        let e = runs
            .entry((n.account_id, n.webhook_id))
            .or_insert((false, 0));
        if a.succeeded {
            *e = (true, 0);
        } else {
            e.1 += 1;
        }
    }
    runs.retain(|_, (reset, failures)| *reset || *failures > 0);
    runs
}

/// Records attempts: notification states, and each webhook's run of failures (a webhook
/// reaching `deactivate_after` is set inactive). Returns the webhooks deactivated now.
///
/// A notification's latest attempt is kept in its own row, which every attempt rewrites
/// anyway; the one a retried notification still holds moves to `webhook_attempts` first. So a
/// first attempt adds no row. Each statement takes one array parameter per column.
async fn record_many(
    tx: &mut PgTx,
    done: &[(NotificationRow, Attempt)],
    deactivate_after: i64,
) -> Result<Vec<Uuid>> {
    let retried: Vec<(Uuid, Uuid, i64)> = done
        .iter()
        .filter(|(n, _)| n.attempts > 0)
        .map(|(n, _)| (n.id, Uuid::now_v7(), n.attempts))
        .collect();
    if !retried.is_empty() {
        // rows from before the latest attempt was kept in the row have none to move; one
        // whose attempt is already recorded (a repeated cycle) has moved it before
        sqlx::query(
            "INSERT INTO webhook_attempts (account_id, notification_id, notification_created_us, id, attempted_us, status_code, duration_ms, error, response_body) \
             SELECT n.account_id, n.id, n.created_us, v.attempt_id, n.last_attempt_us, n.last_status_code, n.last_duration_ms, n.last_error, n.last_response_body \
             FROM webhook_notifications n JOIN unnest($1::uuid[], $2::uuid[], $3::int8[]) AS v(notification_id, attempt_id, attempts) \
             ON n.id = v.notification_id WHERE n.last_attempt_us IS NOT NULL AND n.attempts = v.attempts",
        )
        .bind(retried.iter().map(|(id, _, _)| *id).collect::<Vec<_>>())
        .bind(retried.iter().map(|(_, a, _)| *a).collect::<Vec<_>>())
        .bind(retried.iter().map(|(_, _, n)| *n).collect::<Vec<_>>())
        .execute(&mut **tx)
        .await?;
    }
    // only where the attempt count is still the one claimed: an attempt recorded already (a
    // cycle repeated after its commit was not acknowledged) is not recorded twice
    let recorded: Vec<Uuid> = sqlx::query_scalar(
        "UPDATE webhook_notifications SET delivery_status = v.status, attempts = attempts + 1, next_attempt_us = v.next, locked_until_us = NULL, \
         last_status_code = v.code, last_error = v.error, last_attempt_us = v.at, last_duration_ms = v.duration, last_response_body = v.body, updated_us = v.at \
         FROM unnest($1::uuid[], $2::text[], $3::int8[], $4::int8[], $5::text[], $6::int8[], $7::int8[], $8::text[], $9::int8[]) AS v(id, status, next, code, error, at, duration, body, claimed) \
         WHERE webhook_notifications.id = v.id AND webhook_notifications.attempts = v.claimed RETURNING webhook_notifications.id",
    )
    .bind(done.iter().map(|(n, _)| n.id).collect::<Vec<_>>())
    .bind(done.iter().map(|(_, a)| a.status()).collect::<Vec<_>>())
    .bind(done.iter().map(|(_, a)| a.next_attempt_us).collect::<Vec<_>>())
    .bind(done.iter().map(|(_, a)| a.status_code).collect::<Vec<_>>())
    .bind(done.iter().map(|(_, a)| a.error.as_deref()).collect::<Vec<_>>())
    .bind(done.iter().map(|(_, a)| a.at_us).collect::<Vec<_>>())
    .bind(done.iter().map(|(_, a)| a.duration_ms).collect::<Vec<_>>())
    .bind(
        done.iter()
            .map(|(_, a)| a.response_body.as_deref())
            .collect::<Vec<_>>(),
    )
    .bind(done.iter().map(|(n, _)| n.attempts).collect::<Vec<_>>())
    .fetch_all(&mut **tx)
    .await?;
    run_failures(tx, done, recorded, deactivate_after).await
}

/// Moves each webhook's run of failures on by the attempts of `done` that were `recorded`
/// now (all of them, mostly), deactivating a webhook that reaches `deactivate_after`.
/// Returns the webhooks deactivated now.
pub(crate) async fn run_failures(
    tx: &mut PgTx,
    done: &[(NotificationRow, Attempt)],
    recorded: Vec<Uuid>,
    deactivate_after: i64,
) -> Result<Vec<Uuid>> {
    let at_us = done.first().map_or(0, |(_, a)| a.at_us);
    let mut deactivated = Vec::new();
    let runs = if recorded.len() == done.len() {
        failure_runs(done)
    } else {
        let recorded: std::collections::HashSet<Uuid> = recorded.into_iter().collect();
        let fresh: Vec<(NotificationRow, Attempt)> = done
            .iter()
            .filter(|(n, _)| recorded.contains(&n.id))
            .cloned()
            .collect();
        failure_runs(&fresh)
    };
    for ((account, hook), (reset, failures)) in runs {
        let sql = if reset { SET_FAILURES } else { ADD_FAILURES };
        let total: Option<i64> = sqlx::query_scalar(sql)
            .bind(hook)
            .bind(failures)
            .bind(account)
            .fetch_optional(&mut **tx)
            .await?;
        if total.is_some_and(|t| t >= deactivate_after) {
            let n_rows = sqlx::query(DEACTIVATE)
                .bind(hook)
                .bind(at_us)
                .bind(account)
                .execute(&mut **tx)
                .await?
                .rows_affected();
            if n_rows > 0 {
                deactivated.push(hook);
            }
        }
    }
    Ok(deactivated)
}

/// The result of one attempt to record.
#[derive(Debug, Clone)]
pub struct Attempt {
    /// When.
    pub at_us: i64,
    /// Status received.
    pub status_code: Option<i64>,
    /// Duration.
    pub duration_ms: i64,
    /// Error.
    pub error: Option<String>,
    /// The start of what the receiver answered (at most [`RESPONSE_BODY_KEPT`] bytes).
    pub response_body: Option<String>,
    /// Succeeded.
    pub succeeded: bool,
    /// Next attempt when it failed and retries remain; `None` ends in `failed`.
    pub next_attempt_us: Option<i64>,
}

impl Attempt {
    /// The notification's delivery status after this attempt.
    pub fn status(&self) -> &'static str {
        if self.succeeded {
            "succeeded"
        } else if self.next_attempt_us.is_some() {
            "pending"
        } else {
            "failed"
        }
    }
}

/// How much of a receiver's response body an attempt keeps, in bytes.
pub const RESPONSE_BODY_KEPT: usize = 1024;

/// One recorded attempt.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct AttemptRow {
    /// When.
    pub attempted_us: i64,
    /// Status received.
    pub status_code: Option<i64>,
    /// Duration.
    pub duration_ms: i64,
    /// Error.
    pub error: Option<String>,
    /// The start of what the receiver answered.
    pub response_body: Option<String>,
}

/// The attempts of a notification, oldest first: the earlier ones from `webhook_attempts`, the
/// latest from the notification's row.
pub async fn attempts(db: &Db, id: Uuid) -> Result<Vec<AttemptRow>> {
    const SQL: &str = "SELECT attempted_us, status_code, duration_ms, error, response_body FROM (\
         SELECT attempted_us, status_code, duration_ms, error, response_body, 0 AS latest, id AS tie FROM webhook_attempts WHERE notification_id = $1 \
         UNION ALL SELECT last_attempt_us, last_status_code, last_duration_ms, last_error, last_response_body, 1, id FROM webhook_notifications WHERE id = $1 AND last_attempt_us IS NOT NULL\
         ) AS a ORDER BY attempted_us, latest, tie";
    Ok(on_db!(db, p => sqlx::query_as(SQL).bind(id).fetch_all(p).await?))
}

/// The first notification of event `$2` to webhook `$1` that is not itself a replay (found
/// through the index on `event_id`, migration 44). Public so tests can ask how it is planned.
pub const ORIGINAL: &str = "SELECT id FROM webhook_notifications WHERE webhook_id = $1 AND event_id = $2 AND replay_of IS NULL ORDER BY created_us LIMIT 1";

/// Re-enqueues, for one webhook, every event of the account with a sequence above
/// `after_seq` (or created at or after `since_us`) that the webhook subscribes to, as new
/// notifications whose `replay_of` names the earlier notification of the same event, if any.
/// At most `limit` events; returns how many notifications were written.
pub async fn replay(
    db: &Db,
    account_id: Uuid,
    webhook_id: Uuid,
    events: &[String],
    after_seq: i64,
    since_us: i64,
    limit: i64,
) -> Result<usize> {
    let now = crate::now_us();
    let mut tx = db.begin().await?;
    let rows: Vec<(Uuid, i64, String, String, Uuid)> = crate::on_tx!(&mut tx, c => sqlx::query_as(
        "SELECT id, seq, event, object_type, object_id FROM events WHERE account_id = $1 AND seq > $2 AND created_us >= $3 ORDER BY seq LIMIT $4")
        .bind(account_id).bind(after_seq).bind(since_us).bind(limit).fetch_all(c).await?);
    let mut written = 0;
    for (event_id, seq, event, object_type, object_id) in rows {
        if !events.contains(&event) {
            continue;
        }
        let original: Option<Uuid> = crate::on_tx!(&mut tx, c => sqlx::query_scalar(ORIGINAL)
            .bind(webhook_id).bind(event_id).fetch_optional(c).await?);
        crate::on_tx!(&mut tx, c => sqlx::query(
            "INSERT INTO webhook_notifications (id, account_id, webhook_id, event_id, seq, event, reference_type, reference_id, delivery_status, attempts, next_attempt_us, locked_until_us, last_status_code, last_error, created_us, updated_us, replay_of) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', 0, $9, NULL, NULL, NULL, $9, $9, $10)")
            .bind(Uuid::now_v7()).bind(account_id).bind(webhook_id).bind(event_id).bind(seq).bind(&event).bind(&object_type).bind(object_id).bind(now).bind(original)
            .execute(c).await.map(|_| ())?);
        written += 1;
    }
    tx.commit().await?;
    Ok(written)
}
