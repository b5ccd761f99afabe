//! The webhook deliverer's writes on Citus, one statement a row. On plain PostgreSQL
//! `notifications` writes a batch with one statement per column array (`unnest`); Citus cannot
//! join its shards with arrays given as parameters, so here each body, attempt and deferral is
//! its own statement, pinned to the notification's account where the row names it (a router
//! query: one shard).

use std::collections::HashMap;

use uuid::Uuid;

use crate::notifications::{Attempt, Body, NotificationRow, body_text, run_failures};
use crate::{PgTx, Result};

/// Stores each rendered body where none is stored yet; returns the bodies another worker
/// stored first that differ from the ones given (the stored ones are what gets sent).
pub(crate) async fn store_bodies(tx: &mut PgTx, given: &[Body]) -> Result<HashMap<Uuid, String>> {
    let mut out = HashMap::new();
    for b in given {
        let body = body_text(&b.body)?;
        let inserted = sqlx::query(
            "INSERT INTO webhook_bodies (account_id, notification_id, notification_created_us, body) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (account_id, notification_id, notification_created_us) DO NOTHING",
        )
        .bind(b.account_id)
        .bind(b.notification_id)
        .bind(b.notification_created_us)
        .bind(body)
        .execute(&mut **tx)
        .await?
        .rows_affected();
        if inserted == 1 {
            continue;
        }
        let stored: Option<String> = sqlx::query_scalar(
            "SELECT body FROM webhook_bodies WHERE account_id = $1 AND notification_id = $2 AND notification_created_us = $3",
        )
        .bind(b.account_id)
        .bind(b.notification_id)
        .bind(b.notification_created_us)
        .fetch_optional(&mut **tx)
        .await?;
        if let Some(stored) = stored.filter(|s| s != body) {
            out.insert(b.notification_id, stored);
        }
    }
    Ok(out)
}

/// Records attempts as `notifications::record_many` does: a retried notification's previous
/// attempt moves to `webhook_attempts`, the row takes the new one (only while its attempt
/// count is the one claimed), and each webhook's run of failures moves on.
pub(crate) async fn record(
    tx: &mut PgTx,
    done: &[(NotificationRow, Attempt)],
    deactivate_after: i64,
) -> Result<Vec<Uuid>> {
    let mut recorded = Vec::with_capacity(done.len());
    for (n, a) in done {
        if n.attempts > 0 {
            sqlx::query(
                "INSERT INTO webhook_attempts (account_id, notification_id, notification_created_us, id, attempted_us, status_code, duration_ms, error, response_body) \
                 SELECT n.account_id, n.id, n.created_us, $4, n.last_attempt_us, n.last_status_code, n.last_duration_ms, n.last_error, n.last_response_body \
                 FROM webhook_notifications n WHERE n.account_id = $1 AND n.id = $2 AND n.created_us = $3 \
                 AND n.last_attempt_us IS NOT NULL AND n.attempts = $5",
            )
            .bind(n.account_id)
            .bind(n.id)
            .bind(n.created_us)
            .bind(Uuid::now_v7())
            .bind(n.attempts)
            .execute(&mut **tx)
            .await?;
        }
        let id: Option<Uuid> = sqlx::query_scalar(
            "UPDATE webhook_notifications SET delivery_status = $4, attempts = attempts + 1, next_attempt_us = $5, locked_until_us = NULL, \
             last_status_code = $6, last_error = $7, last_attempt_us = $8, last_duration_ms = $9, last_response_body = $10, updated_us = $8 \
             WHERE account_id = $1 AND id = $2 AND created_us = $3 AND attempts = $11 RETURNING id",
        )
        .bind(n.account_id)
        .bind(n.id)
        .bind(n.created_us)
        .bind(a.status())
        .bind(a.next_attempt_us)
        .bind(a.status_code)
        .bind(a.error.as_deref())
        .bind(a.at_us)
        .bind(a.duration_ms)
        .bind(a.response_body.as_deref())
        .bind(n.attempts)
        .fetch_optional(&mut **tx)
        .await?;
        recorded.extend(id);
    }
    run_failures(tx, done, recorded, deactivate_after).await
}

/// Gives claimed notifications back unattempted, due again at the given times (by id: the
/// deliverer's deferrals name no account, so each asks every shard, through its index of ids).
pub(crate) async fn defer(tx: &mut PgTx, rows: &[(Uuid, i64)]) -> Result<()> {
    for (id, next) in rows {
        sqlx::query(
            "UPDATE webhook_notifications SET next_attempt_us = $2, locked_until_us = NULL WHERE id = $1",
        )
        .bind(id)
        .bind(next)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}
