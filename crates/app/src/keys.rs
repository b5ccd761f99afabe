//! An account's API keys and publishable keys: `/v2/api_keys`, `/v2/publishable_keys` and
//! the console's developer portal list, make and revoke them here. A key's secret is shown once, when it is made; only its digest is kept.
//! Revoking takes effect in the process that revoked it at once (the front end forgets the
//! key in its cache) and in the others within a second.

use boxtrack_core::apikey::{ApiKey, PublishableKey};
use boxtrack_core::paging::Page;
use boxtrack_store::StoreError;
use boxtrack_store::accounts::Account;
use boxtrack_store::keys::{self as store, ApiKeyRecord};
use boxtrack_store::list::Listed;
use boxtrack_store::publishable::{self, PublishableKeyRecord};
use uuid::Uuid;

use crate::ctx::Ctx;
use crate::error::AppError;

/// A page of the account's keys, newest first.
pub async fn list(
    ctx: &Ctx,
    account_id: Uuid,
    page: &Page,
) -> Result<Listed<ApiKeyRecord>, AppError> {
    Ok(store::list(&ctx.db, account_id, page).await?)
}

/// Every key of the account, newest first (revoked ones too).
pub async fn all(ctx: &Ctx, account_id: Uuid) -> Result<Vec<ApiKeyRecord>, AppError> {
    Ok(store::list_all(&ctx.db, account_id).await?)
}

/// One of the account's keys.
pub async fn get(ctx: &Ctx, account_id: Uuid, id: Uuid) -> Result<Option<ApiKeyRecord>, AppError> {
    Ok(store::get(&ctx.db, account_id, id).await?)
}

/// Makes a key for the account, named `name`, refused past `expires_us` (a time still to
/// come; the front end checks what it was given): its record and its secret, shown once.
pub async fn create(
    ctx: &Ctx,
    account_id: Uuid,
    name: Option<&str>,
    expires_us: Option<i64>,
) -> Result<(ApiKeyRecord, ApiKey), AppError> {
    if expires_us.is_some_and(|at| at <= ctx.now_us()) {
        return Err(AppError::unprocessable(
            "expires_at",
            "invalid",
            "expires_at must be in the future",
        ));
    }
    Ok(store::create_expiring(&ctx.db, account_id, name, expires_us).await?)
}

/// Revokes one of the account's keys (revoking a revoked key changes nothing): its record.
pub async fn revoke(ctx: &Ctx, account_id: Uuid, id: Uuid) -> Result<ApiKeyRecord, AppError> {
    match store::revoke(&ctx.db, id, Some(account_id)).await {
        Err(StoreError::NotFound(what)) => Err(AppError::NotFound(what)),
        other => Ok(other?),
    }
}

/// The account's publishable keys (for the embeddable map and widget), newest first.
pub async fn publishable(
    ctx: &Ctx,
    account_id: Uuid,
) -> Result<Vec<PublishableKeyRecord>, AppError> {
    Ok(publishable::list(&ctx.db, account_id).await?)
}

/// Makes a publishable key for the account, named `name`, taken only from `origins` (checked
/// already; none: from any): its record and its key, shown once. The front end checks the
/// account's widget entitlement first.
pub async fn create_publishable(
    ctx: &Ctx,
    account_id: Uuid,
    name: Option<&str>,
    origins: &[String],
) -> Result<(PublishableKeyRecord, PublishableKey), AppError> {
    Ok(publishable::create(&ctx.db, account_id, name, origins).await?)
}

/// Revokes one of the account's publishable keys: its record.
pub async fn revoke_publishable(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
) -> Result<PublishableKeyRecord, AppError> {
    match publishable::revoke(&ctx.db, account_id, id).await {
        Err(StoreError::NotFound(what)) => Err(AppError::NotFound(what)),
        other => Ok(other?),
    }
}

/// The key's id and its account, when `key` is a live API key of an account that is not
/// disabled (what every REST request's credential is checked against).
pub async fn authenticate(ctx: &Ctx, key: &ApiKey) -> Result<Option<(Uuid, Account)>, AppError> {
    Ok(store::authenticate(&ctx.db, key).await?)
}

/// The key's id, the origins it may be embedded in, and the account a publishable key
/// (`pk_...`, the embeds' credential) stands for, when it is live.
pub async fn authenticate_publishable(
    ctx: &Ctx,
    key: &PublishableKey,
) -> Result<Option<(Uuid, Vec<String>, Account)>, AppError> {
    Ok(publishable::authenticate(&ctx.db, key).await?)
}
