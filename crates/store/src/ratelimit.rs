//! Rate-limit state shared by every process on one database.
//!
//! Each (account, bucket) has one row holding its admission log; a check locks that row,
//! applies the pure rule [`boxtrack_core::ratelimit::admit`] and writes the log back, in one
//! transaction. Several `serve` processes on PostgreSQL therefore enforce one limit together.

use boxtrack_core::ratelimit::{Bucket, Decision, WINDOW_US, admit};
use sqlx::types::Json;
use uuid::Uuid;

use crate::{Db, Result, Tx, on_tx};

/// Checks and records one request against the shared log of `(account, bucket)`.
pub async fn check(
    db: &Db,
    account_id: Uuid,
    bucket: Bucket,
    limit: u32,
    now_us: i64,
) -> Result<Decision> {
    let mut tx = db.begin().await?;
    // Make sure the row exists, then lock it (SQLite's BEGIN IMMEDIATE already serialises writers).
    on_tx!(&mut tx, c => sqlx::query(
        "INSERT INTO rate_limit_logs (account_id, bucket, hits) VALUES ($1, $2, $3) ON CONFLICT (account_id, bucket) DO NOTHING",
    )
    .bind(account_id)
    .bind(bucket.as_str())
    .bind(Json(Vec::<i64>::new()))
    .execute(c)
    .await
    .map(|_| ())?);
    let select = match tx {
        Tx::Sqlite(_) => "SELECT hits FROM rate_limit_logs WHERE account_id = $1 AND bucket = $2",
        Tx::Postgres(_) => {
            "SELECT hits FROM rate_limit_logs WHERE account_id = $1 AND bucket = $2 FOR UPDATE"
        }
    };
    let Json(mut hits): Json<Vec<i64>> = on_tx!(&mut tx, c => sqlx::query_scalar(select)
        .bind(account_id)
        .bind(bucket.as_str())
        .fetch_one(c)
        .await?);
    let before = hits.clone();
    let decision = admit(&mut hits, now_us, limit, WINDOW_US);
    if hits != before {
        on_tx!(&mut tx, c => sqlx::query(
            "UPDATE rate_limit_logs SET hits = $3 WHERE account_id = $1 AND bucket = $2",
        )
        .bind(account_id)
        .bind(bucket.as_str())
        .bind(Json(&hits))
        .execute(c)
        .await
        .map(|_| ())?);
    }
    tx.commit().await?;
    Ok(decision)
}
