//! Webhook notifications (the outbox) as the API lists them.

use boxtrack_core::paging::{Key, Page};
use uuid::Uuid;

use crate::list::{Arg, Cond, Keyed, ListSpec, Listed};
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
}

impl Keyed for NotificationRow {
    fn key(&self) -> Key {
        Key {
            sort_us: self.created_us,
            id: *self.id.as_bytes(),
        }
    }
}

const COLUMNS: &str = "id, account_id, webhook_id, event_id, seq, event, reference_type, reference_id, delivery_status, attempts, next_attempt_us, last_status_code, last_error, created_us, updated_us";

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
    const SQL: &str = "SELECT id, account_id, webhook_id, event_id, seq, event, reference_type, reference_id, delivery_status, attempts, next_attempt_us, last_status_code, last_error, created_us, updated_us FROM webhook_notifications WHERE id = $1 AND account_id = $2";
    Ok(on_db!(db, p => sqlx::query_as(SQL).bind(id).bind(account_id).fetch_optional(p).await?))
}
