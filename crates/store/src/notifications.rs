//! Webhook notifications (the outbox) as the API lists them.

use boxtrack_core::paging::{Key, Page};
use uuid::Uuid;

use crate::list::{Arg, Cond, Keyed, ListSpec, Listed};
use crate::sql::Marks;
use crate::{Db, Result, on_db};

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
        id_col: "id",
        conds,
    };
    crate::list::list(db, &spec, page).await
}

/// One notification of an account.
pub async fn get(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<NotificationRow>> {
    const SQL: &str = "SELECT id, account_id, webhook_id, event_id, seq, event, reference_type, reference_id, delivery_status, attempts, next_attempt_us, last_status_code, last_error, created_us, updated_us, replay_of FROM webhook_notifications WHERE id = $1 AND account_id = $2";
    Ok(on_db!(db, p => sqlx::query_as(SQL).bind(id).bind(account_id).fetch_optional(p).await?))
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

/// Claims up to `limit` pending notifications due at `now` with a lease of `lease_us`, in one
/// statement that also returns their stored bodies (`FOR UPDATE SKIP LOCKED` on PostgreSQL, so
/// several workers share the work). The lease also moves the next attempt to its end, so rows
/// in flight leave the due range of the index (later claims do not step over them) and come
/// back by themselves if the worker dies before recording the attempt.
pub async fn claim_due(db: &Db, now: i64, lease_us: i64, limit: i64) -> Result<Vec<Claimed>> {
    let lock = match db {
        Db::Sqlite(_) => "",
        Db::Postgres(_) => " FOR UPDATE SKIP LOCKED",
    };
    let sql = format!(
        "UPDATE webhook_notifications SET locked_until_us = $3, next_attempt_us = $3 WHERE id IN (SELECT id FROM webhook_notifications WHERE delivery_status = 'pending' AND next_attempt_us <= $1 AND (locked_until_us IS NULL OR locked_until_us < $1) ORDER BY next_attempt_us LIMIT $2{lock}) \
         RETURNING {COLUMNS}, (SELECT body FROM webhook_bodies WHERE notification_id = webhook_notifications.id) AS body"
    );
    let mut rows: Vec<Claimed> = on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(now).bind(limit).bind(now + lease_us).fetch_all(p).await?);
    rows.sort_by_key(|c| (c.row.next_attempt_us, c.row.seq));
    Ok(rows)
}

/// Stores rendered bodies where none is stored yet (one statement per 200) and returns the
/// bodies as stored, so every attempt sends the same bytes (a body another worker stored
/// first wins).
pub async fn store_bodies(
    db: &Db,
    rendered: &[(Uuid, String)],
) -> Result<std::collections::HashMap<Uuid, String>> {
    let mut out = std::collections::HashMap::new();
    for chunk in rendered.chunks(200) {
        let sql = format!(
            "INSERT INTO webhook_bodies (notification_id, body) VALUES {} ON CONFLICT (notification_id) DO NOTHING RETURNING notification_id",
            Marks::new(db.backend()).rows(chunk.len(), 2)
        );
        let inserted: Vec<Uuid> = on_db!(db, p => {
            let mut q = sqlx::query_scalar(sqlx::AssertSqlSafe(sql));
            for (id, body) in chunk {
                q = q.bind(*id).bind(body);
            }
            q.fetch_all(p).await?
        });
        let inserted: std::collections::HashSet<Uuid> = inserted.into_iter().collect();
        let mut lost = Vec::new();
        for (id, body) in chunk {
            if inserted.contains(id) {
                out.insert(*id, body.clone());
            } else {
                lost.push(*id);
            }
        }
        if !lost.is_empty() {
            let sql = format!(
                "SELECT notification_id, body FROM webhook_bodies WHERE notification_id IN ({})",
                Marks::new(db.backend()).list(lost.len())
            );
            let rows: Vec<(Uuid, String)> = on_db!(db, p => {
                let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql));
                for id in &lost {
                    q = q.bind(*id);
                }
                q.fetch_all(p).await?
            });
            out.extend(rows);
        }
    }
    Ok(out)
}

/// Records the attempts of a batch in one transaction: attempt rows, notification states, and
/// each webhook's run of failures (a webhook reaching `deactivate_after` is set inactive).
/// Returns the webhooks deactivated now.
pub async fn record_many(
    db: &Db,
    done: &[(NotificationRow, Attempt)],
    deactivate_after: i64,
) -> Result<Vec<Uuid>> {
    if done.is_empty() {
        return Ok(vec![]);
    }
    let mut tx = db.begin().await?;
    let backend = db.backend();
    for chunk in done.chunks(100) {
        let sql = format!(
            "INSERT INTO webhook_attempts (id, notification_id, attempted_us, status_code, duration_ms, error) VALUES {}",
            Marks::new(backend).rows(chunk.len(), 6)
        );
        crate::on_tx!(&mut tx, c => {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            for (n, a) in chunk {
                q = q.bind(Uuid::now_v7()).bind(n.id).bind(a.at_us).bind(a.status_code).bind(a.duration_ms).bind(&a.error);
            }
            q.execute(c).await.map(|_| ())?
        });
        let mut marks = Marks::new(backend);
        let at = marks.one();
        let sql = format!(
            "UPDATE webhook_notifications SET delivery_status = v.status, attempts = attempts + 1, next_attempt_us = v.next, locked_until_us = NULL, last_status_code = v.code, last_error = v.error, updated_us = {at} \
             FROM (SELECT column1 AS id, column2 AS status, column3 AS next, column4 AS code, column5 AS error FROM (VALUES {}) AS t) AS v WHERE webhook_notifications.id = v.id",
            marks.rows(chunk.len(), 5)
        );
        crate::on_tx!(&mut tx, c => {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            q = q.bind(chunk[0].1.at_us);
            for (n, a) in chunk {
                let status = if a.succeeded { "succeeded" } else if a.next_attempt_us.is_some() { "pending" } else { "failed" };
                q = q.bind(n.id).bind(status).bind(a.next_attempt_us).bind(a.status_code).bind(&a.error);
            }
            q.execute(c).await.map(|_| ())?
        });
    }
    // failure runs per webhook, in attempt order
    let mut runs: std::collections::BTreeMap<Uuid, (bool, i64)> = std::collections::BTreeMap::new();
    for (n, a) in done {
        let e = runs.entry(n.webhook_id).or_insert((false, 0));
        if a.succeeded {
            *e = (true, 0);
        } else {
            e.1 += 1;
        }
    }
    let mut deactivated = Vec::new();
    for (hook, (reset, failures)) in runs {
        if !reset && failures == 0 {
            continue;
        }
        let total: Option<i64> = if reset {
            crate::on_tx!(&mut tx, c => sqlx::query_scalar("UPDATE webhooks SET consecutive_failures = $2 WHERE id = $1 AND consecutive_failures <> $2 RETURNING consecutive_failures")
                .bind(hook).bind(failures).fetch_optional(c).await?)
        } else {
            crate::on_tx!(&mut tx, c => sqlx::query_scalar("UPDATE webhooks SET consecutive_failures = consecutive_failures + $2 WHERE id = $1 RETURNING consecutive_failures")
                .bind(hook).bind(failures).fetch_optional(c).await?)
        };
        if total.is_some_and(|t| t >= deactivate_after) {
            let n_rows = crate::on_tx!(&mut tx, c => sqlx::query(
                "UPDATE webhooks SET active = FALSE, deactivated_reason = 'repeated_delivery_failures', updated_us = $2 WHERE id = $1 AND active = TRUE")
                .bind(hook).bind(done[0].1.at_us).execute(c).await?.rows_affected());
            if n_rows > 0 {
                deactivated.push(hook);
            }
        }
    }
    tx.commit().await?;
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
    /// Succeeded.
    pub succeeded: bool,
    /// Next attempt when it failed and retries remain; `None` ends in `failed`.
    pub next_attempt_us: Option<i64>,
}

/// Records an attempt, moves the notification on, and keeps the webhook's failure count; a
/// webhook reaching `deactivate_after` failures in a row is set inactive. Returns whether the
/// webhook was deactivated now.
pub async fn record(
    db: &Db,
    n: &NotificationRow,
    a: &Attempt,
    deactivate_after: i64,
) -> Result<bool> {
    let mut tx = db.begin().await?;
    crate::on_tx!(&mut tx, c => sqlx::query("INSERT INTO webhook_attempts (id, notification_id, attempted_us, status_code, duration_ms, error) VALUES ($1, $2, $3, $4, $5, $6)")
        .bind(Uuid::now_v7()).bind(n.id).bind(a.at_us).bind(a.status_code).bind(a.duration_ms).bind(&a.error)
        .execute(c).await.map(|_| ())?);
    let status = if a.succeeded {
        "succeeded"
    } else if a.next_attempt_us.is_some() {
        "pending"
    } else {
        "failed"
    };
    crate::on_tx!(&mut tx, c => sqlx::query(
        "UPDATE webhook_notifications SET delivery_status = $2, attempts = attempts + 1, next_attempt_us = $3, locked_until_us = NULL, last_status_code = $4, last_error = $5, updated_us = $6 WHERE id = $1")
        .bind(n.id).bind(status).bind(a.next_attempt_us).bind(a.status_code).bind(&a.error).bind(a.at_us)
        .execute(c).await.map(|_| ())?);
    let deactivated = if a.succeeded {
        crate::on_tx!(&mut tx, c => sqlx::query("UPDATE webhooks SET consecutive_failures = 0 WHERE id = $1").bind(n.webhook_id).execute(c).await.map(|_| ())?);
        false
    } else {
        let failures: Option<i64> = crate::on_tx!(&mut tx, c => sqlx::query_scalar(
            "UPDATE webhooks SET consecutive_failures = consecutive_failures + 1 WHERE id = $1 RETURNING consecutive_failures")
            .bind(n.webhook_id).fetch_optional(c).await?);
        match failures {
            Some(f) if f >= deactivate_after => {
                let n_rows = crate::on_tx!(&mut tx, c => sqlx::query(
                    "UPDATE webhooks SET active = FALSE, deactivated_reason = 'repeated_delivery_failures', updated_us = $2 WHERE id = $1 AND active = TRUE")
                    .bind(n.webhook_id).bind(a.at_us).execute(c).await?.rows_affected());
                n_rows > 0
            }
            _ => false,
        }
    };
    tx.commit().await?;
    Ok(deactivated)
}

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
}

/// The attempts of a notification, oldest first.
pub async fn attempts(db: &Db, id: Uuid) -> Result<Vec<AttemptRow>> {
    const SQL: &str = "SELECT attempted_us, status_code, duration_ms, error FROM webhook_attempts WHERE notification_id = $1 ORDER BY attempted_us, id";
    Ok(on_db!(db, p => sqlx::query_as(SQL).bind(id).fetch_all(p).await?))
}

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
        let original: Option<Uuid> = crate::on_tx!(&mut tx, c => sqlx::query_scalar(
            "SELECT id FROM webhook_notifications WHERE webhook_id = $1 AND event_id = $2 AND replay_of IS NULL ORDER BY created_us LIMIT 1")
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
