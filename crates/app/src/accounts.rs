//! An account as the front ends meet it: found by id (a credential names it), how many
//! containers it tracks against its plan, and the console's sessions.

use boxtrack_store::accounts::{self, Account};
use boxtrack_store::sessions::{self, Session};
use boxtrack_store::{Db, reads, tracking};
use uuid::Uuid;

use crate::AppError;
use crate::ctx::Ctx;
use crate::oauth::User;

/// The account with this id, if it exists and is not disabled.
pub async fn get(ctx: &Ctx, id: Uuid) -> Result<Option<Account>, AppError> {
    Ok(accounts::get(&ctx.db, id).await?)
}

/// How many containers the account tracks now (what its plan's limit counts).
pub async fn active_containers(ctx: &Ctx, account_id: Uuid) -> Result<i64, AppError> {
    Ok(tracking::active_containers(&ctx.db, account_id).await?)
}

/// The console session whose token hashes to `token_hash`, while it lasts.
pub async fn session(ctx: &Ctx, token_hash: &str) -> Result<Option<Session>, AppError> {
    Ok(sessions::get(&ctx.db, token_hash, ctx.now_us()).await?)
}

/// Starts a console session of `user` for `ttl_us` with its form token `csrf`; the session's
/// token stays with the caller, the store keeps its digest.
pub async fn start_session(
    ctx: &Ctx,
    user: &User,
    token_hash: &str,
    csrf: &str,
    ttl_us: i64,
) -> Result<(), AppError> {
    let now = ctx.now_us();
    Ok(sessions::start(&ctx.db, user, token_hash, csrf, now, now + ttl_us).await?)
}

/// Ends the session whose token hashes to `token_hash`.
pub async fn end_session(ctx: &Ctx, token_hash: &str) -> Result<(), AppError> {
    Ok(sessions::end(&ctx.db, token_hash, ctx.now_us()).await?)
}

/// The account's change fingerprint: it changes whenever any of its containers, shipments or
/// tracking requests does (the console's live pages poll it; a prerendered read compares it).
pub async fn fingerprint(db: &Db, account_id: Uuid) -> Result<String, AppError> {
    Ok(reads::fingerprint(db, account_id).await?)
}
