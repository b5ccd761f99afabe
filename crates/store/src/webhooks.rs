//! Webhook subscriptions of an account.

use std::collections::BTreeMap;

use boxtrack_core::paging::{Key, Page};
use sqlx::types::Json;
use uuid::Uuid;

use crate::list::{Arg, Cond, Keyed, ListSpec, Listed};
use crate::{Db, Result, StoreError, now_us, on_db};

/// A stored subscription.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct WebhookRow {
    /// Id.
    pub id: Uuid,
    /// Owner.
    pub account_id: Uuid,
    /// Receiver URL.
    pub url: String,
    /// Whether deliveries are made.
    pub active: bool,
    /// Subscribed event names.
    #[sqlx(json)]
    pub events: Vec<String>,
    /// Extra request headers.
    #[sqlx(json)]
    pub headers: BTreeMap<String, String>,
    /// Signing secret.
    pub secret: String,
    /// Failed deliveries in a row.
    pub consecutive_failures: i64,
    /// Why the service deactivated it, if it did.
    pub deactivated_reason: Option<String>,
    /// Created.
    pub created_us: i64,
    /// Last change.
    pub updated_us: i64,
}

impl Keyed for WebhookRow {
    fn key(&self) -> Key {
        Key {
            sort_us: self.created_us,
            id: *self.id.as_bytes(),
        }
    }
}

const COLUMNS: &str = "id, account_id, url, active, events, headers, secret, consecutive_failures, deactivated_reason, created_us, updated_us";

/// What a new subscription needs (already validated).
#[derive(Debug, Clone)]
pub struct NewWebhook {
    /// Receiver URL.
    pub url: String,
    /// Active from the start.
    pub active: bool,
    /// Event names.
    pub events: Vec<String>,
    /// Extra headers.
    pub headers: BTreeMap<String, String>,
    /// Signing secret.
    pub secret: String,
}

/// Creates a subscription.
pub async fn create(db: &Db, account_id: Uuid, w: &NewWebhook) -> Result<WebhookRow> {
    let id = Uuid::now_v7();
    let now = now_us();
    on_db!(db, p => sqlx::query(
        "INSERT INTO webhooks (id, account_id, url, active, events, headers, secret, consecutive_failures, deactivated_reason, created_us, updated_us) VALUES ($1, $2, $3, $4, $5, $6, $7, 0, NULL, $8, $8)")
        .bind(id).bind(account_id).bind(&w.url).bind(w.active).bind(Json(&w.events)).bind(Json(&w.headers)).bind(&w.secret).bind(now)
        .execute(p).await.map(|_| ())?);
    get(db, account_id, id)
        .await?
        .ok_or(StoreError::NotFound("webhook"))
}

/// One subscription of an account.
pub async fn get(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<WebhookRow>> {
    const SQL: &str = "SELECT id, account_id, url, active, events, headers, secret, consecutive_failures, deactivated_reason, created_us, updated_us FROM webhooks WHERE id = $1 AND account_id = $2";
    Ok(on_db!(db, p => sqlx::query_as(SQL).bind(id).bind(account_id).fetch_optional(p).await?))
}

/// A page of an account's subscriptions, newest first.
pub async fn list(db: &Db, account_id: Uuid, page: &Page) -> Result<Listed<WebhookRow>> {
    let spec = ListSpec {
        from: "webhooks",
        columns: COLUMNS,
        sort_col: "created_us",
        ascending: false,
        id_col: "id",
        conds: vec![Cond::new("account_id = ?", vec![Arg::Uuid(account_id)])],
    };
    crate::list::list(db, &spec, page).await
}

/// Every subscription of an account, oldest first (administration).
pub async fn list_all(db: &Db, account_id: Uuid) -> Result<Vec<WebhookRow>> {
    const SQL: &str = "SELECT id, account_id, url, active, events, headers, secret, consecutive_failures, deactivated_reason, created_us, updated_us FROM webhooks WHERE account_id = $1 ORDER BY created_us, id";
    Ok(on_db!(db, p => sqlx::query_as(SQL).bind(account_id).fetch_all(p).await?))
}

/// Changes to a subscription; `None` keeps a field.
#[derive(Debug, Clone, Default)]
pub struct WebhookChanges {
    /// New URL.
    pub url: Option<String>,
    /// Activate or deactivate (activating clears the failure count and reason).
    pub active: Option<bool>,
    /// New event list.
    pub events: Option<Vec<String>>,
    /// New headers.
    pub headers: Option<BTreeMap<String, String>>,
}

/// Applies changes and returns the subscription as it now is.
pub async fn update(db: &Db, account_id: Uuid, id: Uuid, c: WebhookChanges) -> Result<WebhookRow> {
    let mut w = get(db, account_id, id)
        .await?
        .ok_or(StoreError::NotFound("webhook"))?;
    if let Some(u) = c.url {
        w.url = u;
    }
    if let Some(a) = c.active {
        if a && !w.active {
            w.consecutive_failures = 0;
            w.deactivated_reason = None;
        }
        w.active = a;
    }
    if let Some(e) = c.events {
        w.events = e;
    }
    if let Some(h) = c.headers {
        w.headers = h;
    }
    on_db!(db, p => sqlx::query(
        "UPDATE webhooks SET url = $3, active = $4, events = $5, headers = $6, consecutive_failures = $7, deactivated_reason = $8, updated_us = $9 WHERE id = $1 AND account_id = $2")
        .bind(id).bind(account_id).bind(&w.url).bind(w.active).bind(Json(&w.events)).bind(Json(&w.headers))
        .bind(w.consecutive_failures).bind(&w.deactivated_reason).bind(now_us())
        .execute(p).await.map(|_| ())?);
    get(db, account_id, id)
        .await?
        .ok_or(StoreError::NotFound("webhook"))
}

/// Deletes a subscription.
pub async fn delete(db: &Db, account_id: Uuid, id: Uuid) -> Result<()> {
    let n = on_db!(db, p => sqlx::query("DELETE FROM webhooks WHERE id = $1 AND account_id = $2")
        .bind(id).bind(account_id).execute(p).await?.rows_affected());
    if n == 0 {
        Err(StoreError::NotFound("webhook"))
    } else {
        Ok(())
    }
}

/// Several subscriptions by `(account, id)`, of any accounts (for the deliverer).
pub async fn get_many(db: &Db, ids: &[(Uuid, Uuid)]) -> Result<Vec<WebhookRow>> {
    if ids.is_empty() {
        return Ok(vec![]);
    }
    let mut marks = crate::sql::Marks::new(db.backend());
    let pairs: Vec<String> = ids
        .iter()
        .map(|_| format!("(account_id = {} AND id = {})", marks.one(), marks.one()))
        .collect();
    let sql = format!(
        "SELECT {COLUMNS} FROM webhooks WHERE {}",
        pairs.join(" OR ")
    );
    Ok(on_db!(db, p => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        for (account, id) in ids {
            q = q.bind(*account).bind(*id);
        }
        q.fetch_all(p).await?
    }))
}

/// The subscription with this id, of whichever account (for the operator's CLI; on Citus it
/// asks every shard).
pub async fn find(db: &Db, id: Uuid) -> Result<Option<WebhookRow>> {
    let sql = format!("SELECT {COLUMNS} FROM webhooks WHERE id = $1");
    Ok(on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(p).await?))
}
