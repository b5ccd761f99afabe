//! Publishable keys (`btp_…`): the credential of the embeddable map and widget. As with API
//! keys, only the digest and a hint are stored and the key is shown once, when it is made.

use boxtrack_core::apikey::PublishableKey;
use sqlx::types::Json;
use uuid::Uuid;

use crate::accounts::{Account, AccountRow};
use crate::{Db, Result, StoreError, now_us, on_db};

/// A stored publishable key (without the key itself).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct PublishableKeyRecord {
    /// Key id.
    pub id: Uuid,
    /// Owning account.
    pub account_id: Uuid,
    /// Optional label.
    pub name: Option<String>,
    /// Non-secret hint, e.g. `btp_3fa9c1…`.
    pub hint: String,
    /// Normalized origins allowed to use the key from a browser; empty: every origin.
    #[sqlx(json)]
    pub allowed_origins: Vec<String>,
    /// Creation time, Unix microseconds.
    pub created_us: i64,
    /// Revocation time; a revoked key never authenticates again.
    pub revoked_us: Option<i64>,
}

const COLUMNS: &str = "id, account_id, name, hint, allowed_origins, created_us, revoked_us";

/// Issues a publishable key for an account; `allowed_origins` must already be normalized
/// ([`boxtrack_core::apikey::normalize_origin`]).
pub async fn create(
    db: &Db,
    account_id: Uuid,
    name: Option<&str>,
    allowed_origins: &[String],
) -> Result<(PublishableKeyRecord, PublishableKey)> {
    let key = PublishableKey::generate();
    let record = PublishableKeyRecord {
        id: Uuid::now_v7(),
        account_id,
        name: name.map(str::to_string),
        hint: key.hint(),
        allowed_origins: allowed_origins.to_vec(),
        created_us: now_us(),
        revoked_us: None,
    };
    on_db!(db, p => sqlx::query(
        "INSERT INTO publishable_keys (id, account_id, name, digest, hint, allowed_origins, created_us) VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(record.id)
    .bind(account_id)
    .bind(&record.name)
    .bind(key.digest())
    .bind(&record.hint)
    .bind(Json(&record.allowed_origins))
    .bind(record.created_us)
    .execute(p)
    .await
    .map(|_| ())?);
    Ok((record, key))
}

/// Every publishable key of an account, newest first.
pub async fn list(db: &Db, account_id: Uuid) -> Result<Vec<PublishableKeyRecord>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM publishable_keys WHERE account_id = $1 ORDER BY created_us DESC, id DESC"
    );
    Ok(
        on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(account_id).fetch_all(p).await?),
    )
}

/// The publishable key with this id, of whichever account (for the operator's CLI).
pub async fn get(db: &Db, id: Uuid) -> Result<Option<PublishableKeyRecord>> {
    let sql = format!("SELECT {COLUMNS} FROM publishable_keys WHERE id = $1");
    Ok(on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(p).await?))
}

/// Revokes one of the account's publishable keys (another account's is "not found");
/// revoking twice keeps the first time.
pub async fn revoke(db: &Db, account_id: Uuid, id: Uuid) -> Result<PublishableKeyRecord> {
    let sql = format!(
        "UPDATE publishable_keys SET revoked_us = COALESCE(revoked_us, $3) WHERE id = $1 AND account_id = $2 RETURNING {COLUMNS}"
    );
    let row: Option<PublishableKeyRecord> = on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(id).bind(account_id).bind(now_us()).fetch_optional(p).await?);
    row.ok_or(StoreError::NotFound("publishable key"))
}

#[derive(sqlx::FromRow)]
struct AuthRow {
    key_id: Uuid,
    allowed_origins: Json<Vec<String>>,
    #[sqlx(flatten)]
    account: AccountRow,
}

/// The live (unrevoked) publishable key with this digest: its id, allowed origins and
/// account.
pub async fn authenticate(
    db: &Db,
    key: &PublishableKey,
) -> Result<Option<(Uuid, Vec<String>, Account)>> {
    const SQL: &str = "SELECT k.id AS key_id, k.allowed_origins, a.id, a.name, a.plan, a.entitlements, a.rate_limits, a.operator, a.created_us, a.updated_us \
        FROM publishable_keys k JOIN accounts a ON a.id = k.account_id WHERE k.digest = $1 AND k.revoked_us IS NULL AND a.disabled_us IS NULL";
    let row: Option<AuthRow> =
        on_db!(db, p => sqlx::query_as(SQL).bind(key.digest()).fetch_optional(p).await?);
    match row {
        Some(r) => Ok(Some((
            r.key_id,
            r.allowed_origins.0,
            Account::try_from(r.account)?,
        ))),
        None => Ok(None),
    }
}
