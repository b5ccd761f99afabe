//! The per-account event log: every state change appends here in the same transaction.

use serde_json::Value;
use uuid::Uuid;

use crate::{Result, Tx, on_tx};

/// One appended entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    /// Event id.
    pub id: Uuid,
    /// Per-account sequence number (1, 2, 3, ... without gaps).
    pub seq: i64,
}

/// Appends an event inside an open transaction. The sequence comes from the account row,
/// which the update locks, so concurrent writers for one account are serialised and the
/// sequence has no gaps or repeats.
pub async fn append(
    tx: &mut Tx,
    account_id: Uuid,
    event: &str,
    object_type: &str,
    object_id: Uuid,
    payload: &Value,
    now_us: i64,
) -> Result<Appended> {
    let seq: i64 = on_tx!(tx, c => sqlx::query_scalar(
        "UPDATE accounts SET event_seq = event_seq + 1 WHERE id = $1 RETURNING event_seq",
    )
    .bind(account_id)
    .fetch_one(c)
    .await?);
    let id = Uuid::now_v7();
    on_tx!(tx, c => sqlx::query(
        "INSERT INTO events (account_id, seq, id, event, object_type, object_id, payload, created_us) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(account_id)
    .bind(seq)
    .bind(id)
    .bind(event)
    .bind(object_type)
    .bind(object_id)
    .bind(sqlx::types::Json(payload))
    .bind(now_us)
    .execute(c)
    .await
    .map(|_| ())?);
    Ok(Appended { id, seq })
}

/// A stored event.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct EventRow {
    /// Sequence number.
    pub seq: i64,
    /// Event id.
    pub id: Uuid,
    /// Event name.
    pub event: String,
    /// Type of the object it is about.
    pub object_type: String,
    /// Id of that object.
    pub object_id: Uuid,
    /// Details.
    pub payload: sqlx::types::Json<Value>,
    /// When.
    pub created_us: i64,
}

/// Events of an account after `after_seq`, oldest first.
pub async fn after(
    db: &crate::Db,
    account_id: Uuid,
    after_seq: i64,
    limit: i64,
) -> Result<Vec<EventRow>> {
    const SQL: &str = "SELECT seq, id, event, object_type, object_id, payload, created_us FROM events WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3";
    Ok(
        crate::on_db!(db, p => sqlx::query_as(SQL).bind(account_id).bind(after_seq).bind(limit).fetch_all(p).await?),
    )
}
