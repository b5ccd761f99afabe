//! The per-account event log: every state change appends here in the same transaction.

use serde_json::Value;
use uuid::Uuid;

use crate::sql::Marks;
use crate::{Result, Tx, on_tx};

/// One appended entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    /// Event id.
    pub id: Uuid,
    /// Per-account sequence number (1, 2, 3, ... without gaps).
    pub seq: i64,
}

/// Writes the outbox rows for appended events: one `pending` webhook notification per event
/// and active webhook of the account subscribed to it, due at once.
async fn enqueue(
    tx: &mut Tx,
    account_id: Uuid,
    appended: &[(Appended, &str, &str, Uuid)],
    now_us: i64,
) -> Result<()> {
    let hooks: Vec<(Uuid, sqlx::types::Json<Vec<String>>)> = on_tx!(tx, c => sqlx::query_as(
        "SELECT id, events FROM webhooks WHERE account_id = $1 AND active = TRUE",
    )
    .bind(account_id)
    .fetch_all(c)
    .await?);
    if hooks.is_empty() {
        return Ok(());
    }
    let mut rows: Vec<(Uuid, &Appended, &str, &str, Uuid)> = Vec::new();
    for (a, event, object_type, object_id) in appended {
        for (hook, events) in &hooks {
            if events.0.iter().any(|e| e == event) {
                rows.push((*hook, a, event, object_type, *object_id));
            }
        }
    }
    for chunk in rows.chunks(100) {
        let mut marks = Marks::new(tx.backend());
        let values: Vec<String> = (0..chunk.len())
            .map(|_| {
                let p = marks.list(8);
                let (created, updated, due) = (marks.one(), marks.one(), marks.one());
                format!("({p}, 'pending', 0, {due}, NULL, NULL, NULL, {created}, {updated})")
            })
            .collect();
        let sql = format!(
            "INSERT INTO webhook_notifications (id, account_id, webhook_id, event_id, seq, event, reference_type, reference_id, delivery_status, attempts, next_attempt_us, locked_until_us, last_status_code, last_error, created_us, updated_us) VALUES {}",
            values.join(", ")
        );
        on_tx!(tx, c => {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql.clone()));
            for (hook, a, event, object_type, object_id) in chunk {
                q = q.bind(Uuid::now_v7()).bind(account_id).bind(*hook).bind(a.id).bind(a.seq)
                    .bind(*event).bind(*object_type).bind(*object_id).bind(now_us).bind(now_us).bind(now_us);
            }
            q.execute(c).await.map(|_| ())?
        });
    }
    Ok(())
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
    let appended = Appended { id, seq };
    enqueue(
        tx,
        account_id,
        &[(appended.clone(), event, object_type, object_id)],
        now_us,
    )
    .await?;
    Ok(appended)
}

/// One entry to append with [`append_many`].
#[derive(Debug, Clone)]
pub struct NewEvent {
    /// Event name.
    pub event: String,
    /// Type of the object it is about.
    pub object_type: &'static str,
    /// Id of that object.
    pub object_id: Uuid,
    /// Details.
    pub payload: Value,
}

/// Appends several events in order with one sequence reservation and multi-row inserts.
pub async fn append_many(
    tx: &mut Tx,
    account_id: Uuid,
    entries: &[NewEvent],
    now_us: i64,
) -> Result<Vec<Appended>> {
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    let last: i64 = on_tx!(tx, c => sqlx::query_scalar(
        "UPDATE accounts SET event_seq = event_seq + $2 WHERE id = $1 RETURNING event_seq",
    )
    .bind(account_id)
    .bind(entries.len() as i64)
    .fetch_one(c)
    .await?);
    let first = last - entries.len() as i64 + 1;
    let appended: Vec<Appended> = (0..entries.len())
        .map(|i| Appended {
            id: Uuid::now_v7(),
            seq: first + i as i64,
        })
        .collect();
    insert(tx, account_id, entries, &appended, now_us).await?;
    let refs: Vec<(Appended, &str, &str, Uuid)> = appended
        .iter()
        .zip(entries)
        .map(|(a, e)| (a.clone(), e.event.as_str(), e.object_type, e.object_id))
        .collect();
    enqueue(tx, account_id, &refs, now_us).await?;
    Ok(appended)
}

/// Writes the event log's rows: multi-row inserts on SQLite, one statement on PostgreSQL.
async fn insert(
    tx: &mut Tx,
    account_id: Uuid,
    entries: &[NewEvent],
    appended: &[Appended],
    now_us: i64,
) -> Result<()> {
    if let Tx::Postgres(t) = tx {
        return insert_pg(t, account_id, entries, appended, now_us).await;
    }
    for (chunk_no, chunk) in entries.chunks(200).enumerate() {
        let sql = format!(
            "INSERT INTO events (account_id, seq, id, event, object_type, object_id, payload, created_us) VALUES {}",
            Marks::new(tx.backend()).rows(chunk.len(), 8)
        );
        on_tx!(tx, c => {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql.clone()));
            for (i, e) in chunk.iter().enumerate() {
                let a = &appended[chunk_no * 200 + i];
                q = q.bind(account_id).bind(a.seq).bind(a.id).bind(&e.event).bind(e.object_type).bind(e.object_id).bind(sqlx::types::Json(&e.payload)).bind(now_us);
            }
            q.execute(c).await.map(|_| ())?
        });
    }
    Ok(())
}

/// The event log's rows on PostgreSQL as one statement, each column one array parameter
/// (see `tracking::columns`).
async fn insert_pg(
    conn: &mut sqlx::PgConnection,
    account_id: Uuid,
    entries: &[NewEvent],
    appended: &[Appended],
    now_us: i64,
) -> Result<()> {
    let seqs: Vec<i64> = appended.iter().map(|a| a.seq).collect();
    let ids: Vec<Uuid> = appended.iter().map(|a| a.id).collect();
    let events: Vec<&str> = entries.iter().map(|e| e.event.as_str()).collect();
    let types: Vec<&str> = entries.iter().map(|e| e.object_type).collect();
    let objects: Vec<Uuid> = entries.iter().map(|e| e.object_id).collect();
    let payloads: Vec<sqlx::types::Json<&Value>> = entries
        .iter()
        .map(|e| sqlx::types::Json(&e.payload))
        .collect();
    sqlx::query(
        "INSERT INTO events (account_id, seq, id, event, object_type, object_id, payload, created_us) \
         SELECT $1, seq, id, event, object_type, object_id, payload, $2 \
         FROM unnest($3::int8[], $4::uuid[], $5::text[], $6::text[], $7::uuid[], $8::jsonb[]) \
           AS t(seq, id, event, object_type, object_id, payload)",
    )
    .bind(account_id)
    .bind(now_us)
    .bind(seqs)
    .bind(ids)
    .bind(events)
    .bind(types)
    .bind(objects)
    .bind(payloads)
    .execute(conn)
    .await?;
    Ok(())
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

/// Events of an account after `after_seq`, oldest first. The limit is written into the
/// statement (a page size: a few statements in the cache): SQLite built with STAT4, as sqlx
/// bundles it, prepares a statement anew each time a `LIMIT` its planner read is bound.
pub async fn after(
    db: &crate::Db,
    account_id: Uuid,
    after_seq: i64,
    limit: i64,
) -> Result<Vec<EventRow>> {
    let sql = format!(
        "SELECT seq, id, event, object_type, object_id, payload, created_us FROM events WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT {}",
        limit.max(0)
    );
    Ok(
        crate::on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(account_id).bind(after_seq).fetch_all(p).await?),
    )
}

/// Events of an account by id, in one query per 500 (what a page of envelopes is about).
pub async fn get_many(
    db: &crate::Db,
    account_id: Uuid,
    ids: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, EventRow>> {
    let rows: Vec<EventRow> = crate::reads::rows_in(
        db,
        account_id,
        ids,
        "SELECT seq, id, event, object_type, object_id, payload, created_us FROM events WHERE account_id = {account} AND id",
        "",
    )
    .await?;
    Ok(rows.into_iter().map(|r| (r.id, r)).collect())
}

/// One event of an account.
pub async fn get(db: &crate::Db, account_id: Uuid, id: Uuid) -> Result<Option<EventRow>> {
    const SQL: &str = "SELECT seq, id, event, object_type, object_id, payload, created_us FROM events WHERE account_id = $1 AND id = $2";
    Ok(
        crate::on_db!(db, p => sqlx::query_as(SQL).bind(account_id).bind(id).fetch_optional(p).await?),
    )
}
