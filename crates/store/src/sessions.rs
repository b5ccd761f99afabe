//! Signed-in sessions of the web console: started by a password sign-in, ended by signing
//! out or by their expiry. The database keeps only the digest of the cookie's token.

use uuid::Uuid;

use crate::oauth::User;
use crate::{Db, Result, on_db};

/// A live session.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Session {
    /// The signed-in user.
    pub user_id: Uuid,
    /// The account the user acts for.
    pub account_id: Uuid,
    /// The user's email.
    pub email: String,
    /// The token every form of this session must carry.
    pub csrf: String,
    /// When the session ends by itself (Unix microseconds).
    pub expires_us: i64,
}

/// Starts a session for `user` under the token digest `token_hash`, ending at `expires_us`.
pub async fn start(
    db: &Db,
    user: &User,
    token_hash: &str,
    csrf: &str,
    now_us: i64,
    expires_us: i64,
) -> Result<()> {
    on_db!(db, p => sqlx::query(
        "INSERT INTO web_sessions (token_hash, user_id, account_id, csrf, created_us, expires_us) VALUES ($1, $2, $3, $4, $5, $6)")
        .bind(token_hash).bind(user.id).bind(user.account_id).bind(csrf).bind(now_us).bind(expires_us)
        .execute(p).await.map(|_| ())?);
    Ok(())
}

/// The live session of a token digest at `now_us` (none when unknown, ended or expired).
pub async fn get(db: &Db, token_hash: &str, now_us: i64) -> Result<Option<Session>> {
    Ok(on_db!(db, p => sqlx::query_as(
        "SELECT s.user_id, s.account_id, u.email, s.csrf, s.expires_us FROM web_sessions s JOIN users u ON u.id = s.user_id \
         WHERE s.token_hash = $1 AND s.ended_us IS NULL AND s.expires_us > $2")
        .bind(token_hash).bind(now_us)
        .fetch_optional(p).await?))
}

/// Ends a session (signing out); ending an ended or unknown one changes nothing.
pub async fn end(db: &Db, token_hash: &str, now_us: i64) -> Result<()> {
    on_db!(db, p => sqlx::query(
        "UPDATE web_sessions SET ended_us = $2 WHERE token_hash = $1 AND ended_us IS NULL")
        .bind(token_hash).bind(now_us)
        .execute(p).await.map(|_| ())?);
    Ok(())
}
