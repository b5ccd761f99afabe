//! An account's documents as the front ends hand them out: one by id, and a link that serves
//! its file without credentials for [`boxtrack_core::documents::DOWNLOAD_TTL_US`] (REST's
//! `download_url` and the console's download button make the same link).

use boxtrack_core::documents::{self, Announced};
use boxtrack_core::email::Email;
use boxtrack_core::paging::Page;
use boxtrack_store::documents as store;
use boxtrack_store::list::Listed;
use uuid::Uuid;

pub use boxtrack_store::documents::{
    BlobRow, Created, DocumentRow, EmailDocument, File, Filter, NewDocument, SubmissionRow,
};

use crate::AppError;
use crate::ctx::Ctx;

/// One of the account's documents.
pub async fn get(ctx: &Ctx, account_id: Uuid, id: Uuid) -> Result<Option<DocumentRow>, AppError> {
    Ok(store::get(&ctx.db, account_id, id).await?)
}

/// Records an announced upload (its upload and signed-id digests); the blob to upload to.
pub async fn announce(
    ctx: &Ctx,
    account_id: Uuid,
    a: &Announced,
    upload_digest: &str,
    signed_digest: &str,
) -> Result<BlobRow, AppError> {
    Ok(store::announce(&ctx.db, account_id, a, upload_digest, signed_digest).await?)
}

/// The announced blob an upload URL's digest names, if announced after `announced_after` and
/// not uploaded yet.
pub async fn awaiting_upload(
    ctx: &Ctx,
    upload_digest: &str,
    announced_after: i64,
) -> Result<Option<BlobRow>, AppError> {
    Ok(store::awaiting_upload(&ctx.db, upload_digest, announced_after).await?)
}

/// Stores an upload's bytes in the file store; `false` when they do not match what was
/// announced.
pub async fn store_bytes(ctx: &Ctx, blob: &BlobRow, bytes: &[u8]) -> Result<bool, AppError> {
    Ok(store::store_bytes(&ctx.db, &*ctx.files, blob, bytes).await?)
}

/// The account's uploaded blob a signed id's digest names.
pub async fn uploaded(
    ctx: &Ctx,
    account_id: Uuid,
    signed_digest: &str,
) -> Result<Option<BlobRow>, AppError> {
    Ok(store::uploaded(&ctx.db, account_id, signed_digest).await?)
}

/// Makes a document of an uploaded blob (or finds the one made of it already).
pub async fn create(ctx: &Ctx, blob: &BlobRow, doc: NewDocument<'_>) -> Result<Created, AppError> {
    Ok(store::create(&ctx.db, blob, doc).await?)
}

/// A page of the account's documents that `filter` keeps.
pub async fn list(
    ctx: &Ctx,
    account_id: Uuid,
    filter: &Filter,
    page: &Page,
) -> Result<Listed<DocumentRow>, AppError> {
    Ok(store::list(&ctx.db, account_id, filter, page).await?)
}

/// Sets (or, with `None`, clears) the type a person gave a document; the document now.
pub async fn set_manual_type(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
    document_type: Option<&str>,
) -> Result<Option<DocumentRow>, AppError> {
    Ok(store::set_manual_type(&ctx.db, account_id, id, document_type).await?)
}

/// Sets a document's classified type and/or its links (shipments, containers); whether the
/// account has it.
pub async fn reclassify_and_link(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
    document_type: Option<&str>,
    links: Option<(&[Uuid], &[Uuid])>,
) -> Result<bool, AppError> {
    Ok(store::reclassify_and_link(&ctx.db, account_id, id, document_type, links).await?)
}

/// Deletes one of the account's documents and its file; whether it was there.
pub async fn delete(ctx: &Ctx, account_id: Uuid, id: Uuid) -> Result<bool, AppError> {
    Ok(store::delete(&ctx.db, &*ctx.files, account_id, id).await?)
}

/// The file a live download token's digest serves.
pub async fn download(ctx: &Ctx, digest: &str) -> Result<Option<File>, AppError> {
    Ok(store::download(&ctx.db, &*ctx.files, digest, ctx.now_us()).await?)
}

/// The account's shipments and containers these numbers name (bills of lading, bookings,
/// container numbers), as a document links to them.
pub async fn linked(
    ctx: &Ctx,
    account_id: Uuid,
    numbers: &[String],
) -> Result<(Vec<Uuid>, Vec<Uuid>), AppError> {
    Ok(store::linked(&ctx.db, account_id, numbers).await?)
}

/// Records an email submission with its documents: its id, and whether it is new (a message
/// sent twice is one submission).
pub async fn submit(
    ctx: &Ctx,
    account_id: Uuid,
    e: &Email,
    docs: &[EmailDocument<'_>],
) -> Result<(Uuid, bool), AppError> {
    Ok(store::submit(&ctx.db, &*ctx.files, account_id, e, docs).await?)
}

/// One of the account's email submissions.
pub async fn submission(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
) -> Result<Option<SubmissionRow>, AppError> {
    Ok(store::submission(&ctx.db, account_id, id).await?)
}

/// A page of the account's email submissions, newest first.
pub async fn submissions(
    ctx: &Ctx,
    account_id: Uuid,
    page: &Page,
) -> Result<Listed<SubmissionRow>, AppError> {
    Ok(store::submissions(&ctx.db, account_id, page).await?)
}

/// The documents of one of the account's email submissions.
pub async fn of_submission(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
) -> Result<Vec<DocumentRow>, AppError> {
    Ok(store::of_submission(&ctx.db, account_id, id).await?)
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
    let (token, digest) = documents::token("dl_");
    let until = ctx.now_us() + documents::DOWNLOAD_TTL_US;
    store::allow_download(&ctx.db, account_id, d.id, &digest, until).await?;
    Ok(Some(token))
}
