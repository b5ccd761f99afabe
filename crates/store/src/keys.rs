//! API keys: only the SHA-256 digest is stored; the plaintext is returned once at creation.

use boxtrack_core::apikey::ApiKey;
use boxtrack_core::paging::{Key, Page};
use uuid::Uuid;

use crate::accounts::{Account, AccountRow};
use crate::list::{Arg, Cond, Keyed, ListSpec, Listed};
use crate::{Db, Result, StoreError, Tx, now_us, on_db, on_tx};

/// A stored API key (without its secret).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ApiKeyRecord {
    /// Key id (not secret).
    pub id: Uuid,
    /// Owning account.
    pub account_id: Uuid,
    /// Optional label.
    pub name: Option<String>,
    /// Non-secret hint, e.g. `btk_3fa9c1…`.
    pub hint: String,
    /// Creation time, Unix microseconds.
    pub created_us: i64,
    /// Last authenticated use (updated at most once a minute).
    pub last_used_us: Option<i64>,
    /// Revocation time; a revoked key never authenticates again.
    pub revoked_us: Option<i64>,
    /// Expiry time, if the key was made with one: from then on it authenticates no more.
    pub expires_us: Option<i64>,
}

impl Keyed for ApiKeyRecord {
    fn key(&self) -> Key {
        Key {
            sort_us: self.created_us,
            id: *self.id.as_bytes(),
        }
    }
}

const COLUMNS: &str =
    "id, account_id, name, hint, created_us, last_used_us, revoked_us, expires_us";

/// Issues a key inside an open transaction.
pub(crate) async fn create_in(
    tx: &mut Tx,
    account_id: Uuid,
    name: Option<&str>,
) -> Result<(ApiKeyRecord, ApiKey)> {
    create_expiring_in(tx, account_id, name, None).await
}

/// Issues a key, with an expiry or without, inside an open transaction.
async fn create_expiring_in(
    tx: &mut Tx,
    account_id: Uuid,
    name: Option<&str>,
    expires_us: Option<i64>,
) -> Result<(ApiKeyRecord, ApiKey)> {
    let key = ApiKey::generate();
    let record = ApiKeyRecord {
        id: Uuid::now_v7(),
        account_id,
        name: name.map(str::to_string),
        hint: key.hint(),
        created_us: now_us(),
        last_used_us: None,
        revoked_us: None,
        expires_us,
    };
    // a key without an expiry names no expiry column, so an account can still be made on a
    // schema from before migration 51 (the upgrade tests make one at version 40)
    let digest = key.digest();
    match expires_us {
        Some(at) => on_tx!(tx, c => sqlx::query(
            "INSERT INTO api_keys (id, account_id, name, digest, hint, created_us, expires_us) VALUES ($1, $2, $3, $4, $5, $6, $7)")
            .bind(record.id).bind(account_id).bind(&record.name).bind(&digest).bind(&record.hint)
            .bind(record.created_us).bind(at)
            .execute(c).await.map(|_| ())?),
        None => on_tx!(tx, c => sqlx::query(
            "INSERT INTO api_keys (id, account_id, name, digest, hint, created_us) VALUES ($1, $2, $3, $4, $5, $6)")
            .bind(record.id).bind(account_id).bind(&record.name).bind(&digest).bind(&record.hint)
            .bind(record.created_us)
            .execute(c).await.map(|_| ())?),
    }
    Ok((record, key))
}

/// Issues a new key for an existing account.
pub async fn create(
    db: &Db,
    account_id: Uuid,
    name: Option<&str>,
) -> Result<(ApiKeyRecord, ApiKey)> {
    create_expiring(db, account_id, name, None).await
}

/// Issues a new key for an existing account that authenticates until `expires_us` (for
/// ever without one).
pub async fn create_expiring(
    db: &Db,
    account_id: Uuid,
    name: Option<&str>,
    expires_us: Option<i64>,
) -> Result<(ApiKeyRecord, ApiKey)> {
    let mut tx = db.begin().await?;
    let exists: i64 = on_tx!(&mut tx, c => sqlx::query_scalar("SELECT COUNT(*) FROM accounts WHERE id = $1")
        .bind(account_id)
        .fetch_one(c)
        .await?);
    if exists == 0 {
        return Err(StoreError::NotFound("account"));
    }
    let out = create_expiring_in(&mut tx, account_id, name, expires_us).await?;
    tx.commit().await?;
    Ok(out)
}

/// One key of an account (another account's key is "not found").
pub async fn get(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<ApiKeyRecord>> {
    const SQL: &str = "SELECT id, account_id, name, hint, created_us, last_used_us, revoked_us, expires_us FROM api_keys WHERE id = $1 AND account_id = $2";
    Ok(on_db!(db, p => sqlx::query_as(SQL).bind(id).bind(account_id).fetch_optional(p).await?))
}

/// A page of an account's keys, newest first.
pub async fn list(db: &Db, account_id: Uuid, page: &Page) -> Result<Listed<ApiKeyRecord>> {
    let spec = ListSpec {
        from: "api_keys",
        columns: COLUMNS,
        sort_col: "created_us",
        ascending: false,
        id_col: "id",
        conds: vec![Cond::new("account_id = ?", vec![Arg::Uuid(account_id)])],
    };
    crate::list::list(db, &spec, page).await
}

/// Every key of an account, newest first (administration).
pub async fn list_all(db: &Db, account_id: Uuid) -> Result<Vec<ApiKeyRecord>> {
    const SQL: &str = "SELECT id, account_id, name, hint, created_us, last_used_us, revoked_us, expires_us FROM api_keys WHERE account_id = $1 ORDER BY created_us DESC, id DESC";
    Ok(on_db!(db, p => sqlx::query_as(SQL).bind(account_id).fetch_all(p).await?))
}

/// Revokes a key; revoking twice keeps the first revocation time. `account_id` scopes the
/// lookup (an API caller may only revoke its own account's keys); `None` is the operator.
pub async fn revoke(db: &Db, id: Uuid, account_id: Option<Uuid>) -> Result<ApiKeyRecord> {
    const SQL: &str = "UPDATE api_keys SET revoked_us = COALESCE(revoked_us, $2) WHERE id = $1 AND ($3 OR account_id = $4) RETURNING id, account_id, name, hint, created_us, last_used_us, revoked_us, expires_us";
    let row: Option<ApiKeyRecord> = on_db!(db, p => sqlx::query_as(SQL)
        .bind(id)
        .bind(now_us())
        .bind(account_id.is_none())
        .bind(account_id.unwrap_or_default())
        .fetch_optional(p)
        .await?);
    row.ok_or(StoreError::NotFound("API key"))
}

#[derive(sqlx::FromRow)]
struct AuthRow {
    key_id: Uuid,
    last_used_us: Option<i64>,
    #[sqlx(flatten)]
    account: AccountRow,
}

/// Finds the live (unrevoked, unexpired) key with this digest and its account; records the
/// use at most once a minute so reads do not turn into writes.
pub async fn authenticate(db: &Db, key: &ApiKey) -> Result<Option<(Uuid, Account)>> {
    const SQL: &str = "SELECT k.id AS key_id, k.last_used_us, a.id, a.name, a.plan, a.entitlements, a.rate_limits, a.operator, a.created_us, a.updated_us \
        FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.digest = $1 AND k.revoked_us IS NULL AND (k.expires_us IS NULL OR k.expires_us > $2) AND a.disabled_us IS NULL";
    let now = now_us();
    let row: Option<AuthRow> = match db {
        // by its secret alone a key's account is not known: on Citus the lookup asks every
        // shard (one index probe each; the key cache asks once a key), marked so as the one
        // statement of a request that may
        Db::Postgres(p) if crate::citus::on_citus(p) => {
            let mut tx = p.begin().await?;
            crate::citus::across_shards(&mut tx).await?;
            let row = sqlx::query_as(SQL)
                .bind(key.digest())
                .bind(now)
                .fetch_optional(&mut *tx)
                .await?;
            tx.commit().await?;
            row
        }
        _ => on_db!(db, p => sqlx::query_as(SQL)
            .bind(key.digest())
            .bind(now)
            .fetch_optional(p)
            .await?),
    };
    let Some(row) = row else { return Ok(None) };
    if row.last_used_us.is_none_or(|t| now - t > 60_000_000) {
        on_db!(db, p => sqlx::query("UPDATE api_keys SET last_used_us = $2 WHERE account_id = $3 AND id = $1")
            .bind(row.key_id)
            .bind(now)
            .bind(row.account.id)
            .execute(p)
            .await
            .map(|_| ())?);
    }
    Ok(Some((row.key_id, Account::try_from(row.account)?)))
}
