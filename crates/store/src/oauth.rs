//! Users and the OAuth 2.1 authorization server's clients, codes and tokens. Codes and tokens
//! are stored as SHA-256 digests only; a code is used once; refresh tokens rotate, and using
//! one twice revokes its whole family.

use uuid::Uuid;

use crate::{Db, Result, StoreError, now_us, on_db, on_tx};

/// A user who signs in on the OAuth pages.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct User {
    /// Id.
    pub id: Uuid,
    /// The account the user acts for.
    pub account_id: Uuid,
    /// Email (lower case).
    pub email: String,
    /// Argon2 PHC string.
    pub password_hash: String,
}

/// Creates a user (email stored lower case). A taken email is [`StoreError::Conflict`].
pub async fn create_user(
    db: &Db,
    account_id: Uuid,
    email: &str,
    password_hash: &str,
) -> Result<User> {
    let email = email.trim().to_lowercase();
    if get_user(db, &email).await?.is_some() {
        return Err(StoreError::Duplicate("user email"));
    }
    let id = Uuid::now_v7();
    on_db!(db, p => sqlx::query("INSERT INTO users (id, account_id, email, password_hash, created_us) VALUES ($1, $2, $3, $4, $5)")
        .bind(id).bind(account_id).bind(&email).bind(password_hash).bind(now_us())
        .execute(p).await.map(|_| ())?);
    Ok(User {
        id,
        account_id,
        email,
        password_hash: password_hash.to_string(),
    })
}

/// A user of an account by id.
pub async fn user_by_id(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<User>> {
    Ok(
        on_db!(db, p => sqlx::query_as("SELECT id, account_id, email, password_hash FROM users WHERE id = $1 AND account_id = $2")
        .bind(id).bind(account_id).fetch_optional(p).await?),
    )
}

/// Every user, or an account's, by email.
pub async fn list_users(db: &Db, account_id: Option<Uuid>) -> Result<Vec<User>> {
    Ok(on_db!(db, p => sqlx::query_as(
        "SELECT id, account_id, email, password_hash FROM users WHERE ($1 IS NULL OR account_id = $1) ORDER BY email",
    )
    .bind(account_id)
    .fetch_all(p)
    .await?))
}

/// Removes a user with their console sessions, authorization codes and OAuth tokens (the MCP
/// clients they signed in stop working at once). Returns the user removed.
pub async fn remove_user(db: &Db, id: Uuid) -> Result<User> {
    let user: Option<User> = on_db!(db, p => sqlx::query_as("SELECT id, account_id, email, password_hash FROM users WHERE id = $1")
        .bind(id).fetch_optional(p).await?);
    let user = user.ok_or(StoreError::NotFound("user"))?;
    let mut tx = db.begin().await?;
    // each names the user's account: one shard on Citus, where a multi-shard delete would
    // keep the same transaction from deleting from `users`, a reference table
    for sql in [
        "DELETE FROM web_sessions WHERE account_id = $2 AND user_id = $1",
        "DELETE FROM oauth_codes WHERE account_id = $2 AND user_id = $1",
        "DELETE FROM oauth_tokens WHERE account_id = $2 AND user_id = $1",
    ] {
        on_tx!(&mut tx, c => sqlx::query(sql).bind(id).bind(user.account_id).execute(c).await.map(|_| ())?);
    }
    on_tx!(&mut tx, c => sqlx::query("DELETE FROM users WHERE id = $1").bind(id).execute(c).await.map(|_| ())?);
    tx.commit().await?;
    Ok(user)
}

/// A user by email.
pub async fn get_user(db: &Db, email: &str) -> Result<Option<User>> {
    Ok(
        on_db!(db, p => sqlx::query_as("SELECT id, account_id, email, password_hash FROM users WHERE email = $1")
        .bind(email.trim().to_lowercase()).fetch_optional(p).await?),
    )
}

/// A registered client.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Client {
    /// Client id.
    pub client_id: String,
    /// Name.
    pub name: String,
    /// Redirect URIs (JSON array).
    pub redirect_uris: String,
}

impl Client {
    /// Whether `uri` is one of the registered redirect URIs (exact match).
    pub fn allows(&self, uri: &str) -> bool {
        serde_json::from_str::<Vec<String>>(&self.redirect_uris)
            .is_ok_and(|v| v.iter().any(|u| u == uri))
    }
}

/// Registers a client.
pub async fn register_client(
    db: &Db,
    client_id: &str,
    name: &str,
    redirect_uris: &[String],
) -> Result<()> {
    let uris = serde_json::to_string(redirect_uris).unwrap_or_else(|_| "[]".into());
    on_db!(db, p => sqlx::query("INSERT INTO oauth_clients (client_id, name, redirect_uris, created_us) VALUES ($1, $2, $3, $4)")
        .bind(client_id).bind(name).bind(uris).bind(now_us())
        .execute(p).await.map(|_| ())?);
    Ok(())
}

/// A client by id.
pub async fn get_client(db: &Db, client_id: &str) -> Result<Option<Client>> {
    Ok(
        on_db!(db, p => sqlx::query_as("SELECT client_id, name, redirect_uris FROM oauth_clients WHERE client_id = $1")
        .bind(client_id).fetch_optional(p).await?),
    )
}

/// What an authorization code grants.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Code {
    /// Client.
    pub client_id: String,
    /// User.
    pub user_id: Uuid,
    /// Account.
    pub account_id: Uuid,
    /// Redirect URI it was issued for.
    pub redirect_uri: String,
    /// PKCE S256 challenge.
    pub code_challenge: String,
    /// Resource (audience).
    pub resource: String,
    /// Expiry.
    pub expires_us: i64,
}

/// Stores a code by its digest.
pub async fn store_code(db: &Db, code_hash: &str, c: &Code) -> Result<()> {
    on_db!(db, p => sqlx::query("INSERT INTO oauth_codes (code_hash, client_id, user_id, account_id, redirect_uri, code_challenge, resource, expires_us, used_us) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL)")
        .bind(code_hash).bind(&c.client_id).bind(c.user_id).bind(c.account_id).bind(&c.redirect_uri).bind(&c.code_challenge).bind(&c.resource).bind(c.expires_us)
        .execute(p).await.map(|_| ())?);
    Ok(())
}

/// Takes a code: marks it used and returns it, once. A second take, or an unknown code, is
/// `None`.
pub async fn take_code(db: &Db, code_hash: &str, now: i64) -> Result<Option<Code>> {
    Ok(on_db!(db, p => sqlx::query_as(
        "UPDATE oauth_codes SET used_us = $2 WHERE code_hash = $1 AND used_us IS NULL \
         RETURNING client_id, user_id, account_id, redirect_uri, code_challenge, resource, expires_us")
        .bind(code_hash).bind(now).fetch_optional(p).await?))
}

/// A token row.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Token {
    /// `access` or `refresh`.
    pub kind: String,
    /// Client.
    pub client_id: String,
    /// User.
    pub user_id: Uuid,
    /// Account.
    pub account_id: Uuid,
    /// Audience.
    pub resource: String,
    /// Rotation family.
    pub family: Uuid,
    /// Expiry.
    pub expires_us: i64,
    /// When a refresh token was used.
    pub used_us: Option<i64>,
    /// When the family was revoked.
    pub revoked_us: Option<i64>,
}

/// Stores an access and a refresh token of one family, in one transaction.
pub async fn store_pair(
    db: &Db,
    access_hash: &str,
    refresh_hash: &str,
    t: &Token,
    access_expires_us: i64,
    refresh_expires_us: i64,
) -> Result<()> {
    let mut tx = db.begin().await?;
    for (hash, kind, exp) in [
        (access_hash, "access", access_expires_us),
        (refresh_hash, "refresh", refresh_expires_us),
    ] {
        on_tx!(&mut tx, c => sqlx::query("INSERT INTO oauth_tokens (token_hash, kind, client_id, user_id, account_id, resource, family, expires_us, used_us, revoked_us, created_us) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, NULL, $9)")
            .bind(hash).bind(kind).bind(&t.client_id).bind(t.user_id).bind(t.account_id).bind(&t.resource).bind(t.family).bind(exp).bind(now_us())
            .execute(c).await.map(|_| ())?);
    }
    tx.commit().await?;
    Ok(())
}

/// A token by digest.
pub async fn get_token(db: &Db, hash: &str) -> Result<Option<Token>> {
    Ok(
        on_db!(db, p => sqlx::query_as("SELECT kind, client_id, user_id, account_id, resource, family, expires_us, used_us, revoked_us FROM oauth_tokens WHERE token_hash = $1")
        .bind(hash).fetch_optional(p).await?),
    )
}

/// Marks a refresh token used, once: `true` the first time, `false` when it was used already
/// (reuse: the caller revokes the family).
pub async fn use_refresh(db: &Db, hash: &str, now: i64) -> Result<bool> {
    let n = on_db!(db, p => sqlx::query("UPDATE oauth_tokens SET used_us = $2 WHERE token_hash = $1 AND kind = 'refresh' AND used_us IS NULL AND revoked_us IS NULL")
        .bind(hash).bind(now).execute(p).await?.rows_affected());
    Ok(n == 1)
}

/// Revokes every token of a family.
pub async fn revoke_family(db: &Db, family: Uuid, now: i64) -> Result<()> {
    on_db!(db, p => sqlx::query("UPDATE oauth_tokens SET revoked_us = $2 WHERE family = $1 AND revoked_us IS NULL")
        .bind(family).bind(now).execute(p).await.map(|_| ())?);
    Ok(())
}
