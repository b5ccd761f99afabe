//! An account's documents as the front ends hand them out: one by id, and a link that serves
//! its file without credentials for [`boxtrack_core::documents::DOWNLOAD_TTL_US`] (REST's
//! `download_url` and the console's download button make the same link).

pub use boxtrack_store::documents::DocumentRow;
use uuid::Uuid;

use crate::AppError;
use crate::ctx::Ctx;

/// One of the account's documents.
pub async fn get(ctx: &Ctx, account_id: Uuid, id: Uuid) -> Result<Option<DocumentRow>, AppError> {
    Ok(boxtrack_store::documents::get(&ctx.db, account_id, id).await?)
}

/// A new download token for one of the account's documents (the path is
/// `/v2/downloads/{token}`), or `None` when the account has no such document.
pub async fn download_token(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
) -> Result<Option<String>, AppError> {
    let Some(d) = get(ctx, account_id, id).await? else {
        return Ok(None);
    };
    let (token, digest) = boxtrack_core::documents::token("dl_");
    let until = ctx.now_us() + boxtrack_core::documents::DOWNLOAD_TTL_US;
    boxtrack_store::documents::allow_download(&ctx.db, d.id, &digest, until).await?;
    Ok(Some(token))
}
