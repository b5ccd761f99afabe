//! Documents and their files (see `boxtrack_core::documents` for the upload handshake).
//! Files live in the database (`blobs.data`) or, with `document_store = "s3://..."`, in an
//! object store ([`crate::files`]), so that every process serves them; tokens are
//! stored as digests only.

use boxtrack_core::documents::Announced;
use boxtrack_core::paging::{Key, Page};
use sqlx::types::Json;
use uuid::Uuid;

use crate::files::FileStore;

use crate::list::{Arg, Cond, Keyed, ListSpec, Listed};
use crate::{Db, Result, now_us, on_db, on_tx};

/// An announced (and perhaps uploaded) file, without its bytes.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct BlobRow {
    /// Id.
    pub id: Uuid,
    /// Owner.
    pub account_id: Uuid,
    /// File name.
    pub filename: String,
    /// MIME type.
    pub content_type: String,
    /// Size, bytes.
    pub byte_size: i64,
    /// Base64 MD5.
    pub checksum: String,
    /// When the bytes arrived.
    pub uploaded_us: Option<i64>,
    /// Announced at.
    pub created_us: i64,
}

const BLOB_COLUMNS: &str =
    "id, account_id, filename, content_type, byte_size, checksum, uploaded_us, created_us";

/// A document with what its file is.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct DocumentRow {
    /// Id.
    pub id: Uuid,
    /// Owner.
    pub account_id: Uuid,
    /// Its file.
    pub blob_id: Uuid,
    /// Display name.
    pub name: String,
    /// Type from the name (`boxtrack_core::documents::classify`).
    pub document_type: String,
    /// Type set by the user.
    pub document_type_manual: Option<String>,
    /// `api` (created through the API).
    pub source: String,
    /// Linked shipments.
    #[sqlx(json)]
    pub shipment_ids: Vec<Uuid>,
    /// Linked containers.
    #[sqlx(json)]
    pub container_ids: Vec<Uuid>,
    /// Created.
    pub created_us: i64,
    /// Last change.
    pub updated_us: i64,
    /// The file's name.
    pub file_name: String,
    /// The file's MIME type.
    pub file_content_type: String,
    /// The file's size.
    pub file_size_bytes: i64,
    /// The e-mail it came in with (`source` = `email`).
    pub email_submission_id: Option<Uuid>,
}

impl Keyed for DocumentRow {
    fn key(&self) -> Key {
        Key {
            sort_us: self.created_us,
            id: *self.id.as_bytes(),
        }
    }
}

const DOC_FROM: &str =
    "documents d JOIN blobs b ON b.account_id = d.account_id AND b.id = d.blob_id";
const DOC_COLUMNS: &str = "d.id, d.account_id, d.blob_id, d.name, d.document_type, d.document_type_manual, d.source, d.shipment_ids, d.container_ids, d.created_us, d.updated_us, b.filename AS file_name, b.content_type AS file_content_type, b.byte_size AS file_size_bytes, d.email_submission_id";

/// Records an announced file; `upload_digest` and `signed_digest` are the digests of the
/// upload URL's token and of the `signed_id`.
pub async fn announce(
    db: &Db,
    account_id: Uuid,
    a: &Announced,
    upload_digest: &str,
    signed_digest: &str,
) -> Result<BlobRow> {
    let row = BlobRow {
        id: Uuid::now_v7(),
        account_id,
        filename: a.filename.clone(),
        content_type: a.content_type.clone(),
        byte_size: a.byte_size,
        checksum: a.checksum.clone(),
        uploaded_us: None,
        created_us: now_us(),
    };
    on_db!(db, p => sqlx::query(
        "INSERT INTO blobs (id, account_id, filename, content_type, byte_size, checksum, upload_digest, signed_digest, created_us) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)")
        .bind(row.id).bind(account_id).bind(&row.filename).bind(&row.content_type).bind(row.byte_size)
        .bind(&row.checksum).bind(upload_digest).bind(signed_digest).bind(row.created_us)
        .execute(p).await.map(|_| ())?);
    Ok(row)
}

/// The announced file an upload token is for, while it waits for its bytes (announced after
/// `announced_after`).
pub async fn awaiting_upload(
    db: &Db,
    upload_digest: &str,
    announced_after: i64,
) -> Result<Option<BlobRow>> {
    const SQL: &str = "SELECT id, account_id, filename, content_type, byte_size, checksum, uploaded_us, created_us FROM blobs WHERE upload_digest = $1 AND uploaded_us IS NULL AND created_us > $2";
    Ok(
        on_db!(db, p => sqlx::query_as(SQL).bind(upload_digest).bind(announced_after).fetch_optional(p).await?),
    )
}

/// Stores a file's bytes (checked against the announcement by the caller) in the database
/// row or the object store; false when they had already arrived.
pub async fn store_bytes(
    db: &Db,
    files: &dyn FileStore,
    blob: &BlobRow,
    bytes: &[u8],
) -> Result<bool> {
    let key = files
        .put(blob.account_id, blob.id, bytes, &blob.content_type)
        .await?;
    let inline: Option<&[u8]> = key.is_none().then_some(bytes);
    let n = on_db!(db, p => sqlx::query("UPDATE blobs SET data = $2, object_key = $3, uploaded_us = $4 WHERE account_id = $5 AND id = $1 AND uploaded_us IS NULL")
        .bind(blob.id).bind(inline).bind(&key).bind(now_us()).bind(blob.account_id).execute(p).await?.rows_affected());
    Ok(n == 1)
}

/// An uploaded file of the account by the digest of its `signed_id`.
pub async fn uploaded(db: &Db, account_id: Uuid, signed_digest: &str) -> Result<Option<BlobRow>> {
    let sql = format!(
        "SELECT {BLOB_COLUMNS} FROM blobs WHERE signed_digest = $1 AND account_id = $2 AND uploaded_us IS NOT NULL"
    );
    Ok(
        on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(signed_digest).bind(account_id).fetch_optional(p).await?),
    )
}

/// What creating a document did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Created {
    /// A new document.
    New(Box<DocumentRow>),
    /// The account already has a live document with the same file (same MD5 and size, or
    /// the same upload): its id and name.
    Duplicate {
        /// The existing document.
        id: Uuid,
        /// Its name.
        name: String,
    },
}

/// A new document.
pub struct NewDocument<'a> {
    /// Display name.
    pub name: &'a str,
    /// Its type.
    pub document_type: &'a str,
    /// Linked shipments.
    pub shipment_ids: Vec<Uuid>,
    /// Linked containers.
    pub container_ids: Vec<Uuid>,
}

/// Creates a document for an uploaded file, unless the account already has one with the
/// same content.
pub async fn create(db: &Db, blob: &BlobRow, doc: NewDocument<'_>) -> Result<Created> {
    let mut tx = db.begin().await?;
    let existing: Option<(Uuid, String)> = on_tx!(&mut tx, c => sqlx::query_as(
        "SELECT d.id, d.name FROM documents d JOIN blobs b ON b.account_id = d.account_id AND b.id = d.blob_id \
         WHERE d.account_id = $1 AND d.deleted_us IS NULL AND (d.blob_id = $2 OR (b.checksum = $3 AND b.byte_size = $4)) LIMIT 1")
        .bind(blob.account_id).bind(blob.id).bind(&blob.checksum).bind(blob.byte_size)
        .fetch_optional(c).await?);
    if let Some((id, name)) = existing {
        return Ok(Created::Duplicate { id, name });
    }
    let now = now_us();
    let id = Uuid::now_v7();
    on_tx!(&mut tx, c => sqlx::query(
        "INSERT INTO documents (id, account_id, blob_id, name, document_type, source, shipment_ids, container_ids, created_us, updated_us) VALUES ($1, $2, $3, $4, $5, 'api', $6, $7, $8, $8)")
        .bind(id).bind(blob.account_id).bind(blob.id).bind(doc.name).bind(doc.document_type)
        .bind(Json(&doc.shipment_ids)).bind(Json(&doc.container_ids)).bind(now)
        .execute(c).await.map(|_| ())?);
    tx.commit().await?;
    Ok(Created::New(Box::new(DocumentRow {
        id,
        account_id: blob.account_id,
        blob_id: blob.id,
        name: doc.name.to_string(),
        document_type: doc.document_type.to_string(),
        document_type_manual: None,
        source: "api".into(),
        shipment_ids: doc.shipment_ids,
        container_ids: doc.container_ids,
        created_us: now,
        updated_us: now,
        file_name: blob.filename.clone(),
        file_content_type: blob.content_type.clone(),
        file_size_bytes: blob.byte_size,
        email_submission_id: None,
    })))
}

/// A live document of the account.
pub async fn get(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<DocumentRow>> {
    let sql = format!(
        "SELECT {DOC_COLUMNS} FROM {DOC_FROM} WHERE d.id = $1 AND d.account_id = $2 AND d.deleted_us IS NULL"
    );
    Ok(
        on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).bind(account_id).fetch_optional(p).await?),
    )
}

/// Filters of the document list.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Part of the name or the file name (case-insensitive).
    pub filename: Option<String>,
    /// Any of these types (the manual type where set).
    pub types: Vec<String>,
    /// Linked to this container (first) or to its shipment (second).
    pub linked_to: Option<(Uuid, Uuid)>,
}

/// A page of the account's live documents, newest first.
pub async fn list(
    db: &Db,
    account_id: Uuid,
    filter: &Filter,
    page: &Page,
) -> Result<Listed<DocumentRow>> {
    let mut conds = vec![Cond::new(
        "d.account_id = ? AND d.deleted_us IS NULL",
        vec![Arg::Uuid(account_id)],
    )];
    if let Some(f) = &filter.filename {
        let like = format!(
            "%{}%",
            f.to_lowercase()
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        );
        conds.push(Cond::new(
            "(LOWER(d.name) LIKE ? ESCAPE '\\' OR LOWER(b.filename) LIKE ? ESCAPE '\\')",
            vec![Arg::Text(like.clone()), Arg::Text(like)],
        ));
    }
    if !filter.types.is_empty() {
        // the effective type is one of the comma-separated list
        let list = filter.types.join(",");
        conds.push(Cond::new(
            "(',' || ? || ',') LIKE ('%,' || COALESCE(d.document_type_manual, d.document_type) || ',%')",
            vec![Arg::Text(list)],
        ));
    }
    if let Some((container, shipment)) = filter.linked_to {
        // the id lists are JSON arrays of hyphenated UUIDs, which hold no LIKE wildcards
        conds.push(Cond::new(
            "(CAST(d.container_ids AS TEXT) LIKE ? OR CAST(d.shipment_ids AS TEXT) LIKE ?)",
            vec![
                Arg::Text(format!("%{container}%")),
                Arg::Text(format!("%{shipment}%")),
            ],
        ));
    }
    let spec = ListSpec {
        from: DOC_FROM,
        columns: DOC_COLUMNS,
        sort_col: "d.created_us",
        ascending: false,
        id_col: "d.id",
        conds,
    };
    crate::list::list(db, &spec, page).await
}

/// Sets (or with `None` clears) the user's document type; the document, or `None` when the
/// account has no such live document.
pub async fn set_manual_type(
    db: &Db,
    account_id: Uuid,
    id: Uuid,
    document_type: Option<&str>,
) -> Result<Option<DocumentRow>> {
    let n = on_db!(db, p => sqlx::query("UPDATE documents SET document_type_manual = $3, updated_us = $4 WHERE id = $1 AND account_id = $2 AND deleted_us IS NULL")
        .bind(id).bind(account_id).bind(document_type).bind(now_us()).execute(p).await?.rows_affected());
    if n == 0 {
        return Ok(None);
    }
    get(db, account_id, id).await
}

/// Replaces a document's system type and its links; false when the account has no such
/// live document.
pub async fn reclassify_and_link(
    db: &Db,
    account_id: Uuid,
    id: Uuid,
    document_type: Option<&str>,
    links: Option<(&[Uuid], &[Uuid])>,
) -> Result<bool> {
    let mut tx = db.begin().await?;
    let mut n = 0;
    if let Some(t) = document_type {
        n += on_tx!(&mut tx, c => sqlx::query("UPDATE documents SET document_type = $3, updated_us = $4 WHERE id = $1 AND account_id = $2 AND deleted_us IS NULL")
            .bind(id).bind(account_id).bind(t).bind(now_us()).execute(c).await?.rows_affected());
    }
    if let Some((shipments, containers)) = links {
        n += on_tx!(&mut tx, c => sqlx::query("UPDATE documents SET shipment_ids = $3, container_ids = $4, updated_us = $5 WHERE id = $1 AND account_id = $2 AND deleted_us IS NULL")
            .bind(id).bind(account_id).bind(Json(shipments)).bind(Json(containers)).bind(now_us()).execute(c).await?.rows_affected());
    }
    tx.commit().await?;
    Ok(n > 0)
}

/// Deletes a document (it disappears from every read; its file is dropped); false when the
/// account has no such live document.
pub async fn delete(db: &Db, files: &dyn FileStore, account_id: Uuid, id: Uuid) -> Result<bool> {
    let mut tx = db.begin().await?;
    let blob: Option<Uuid> = on_tx!(&mut tx, c => sqlx::query_scalar(
        "UPDATE documents SET deleted_us = $3, updated_us = $3 WHERE id = $1 AND account_id = $2 AND deleted_us IS NULL RETURNING blob_id")
        .bind(id).bind(account_id).bind(now_us()).fetch_optional(c).await?);
    let Some(blob) = blob else {
        return Ok(false);
    };
    let key: Option<String> = on_tx!(&mut tx, c => sqlx::query_scalar(
        "UPDATE blobs SET data = NULL WHERE account_id = $2 AND id = $1 RETURNING object_key")
        .bind(blob).bind(account_id).fetch_one(c).await?);
    on_tx!(&mut tx, c => sqlx::query("DELETE FROM document_downloads WHERE account_id = $2 AND document_id = $1").bind(id).bind(account_id).execute(c).await.map(|_| ())?);
    tx.commit().await?;
    if let Some(key) = key
        && let Err(e) = files.delete(&key).await
    {
        // the document is gone from every read; the object is left for the operator
        tracing::warn!(error = %e, key, "a deleted document's object could not be removed");
    }
    Ok(true)
}

/// Records a download token (by digest) for the account's document until `expires_us`, and
/// forgets the account's expired ones.
pub async fn allow_download(
    db: &Db,
    account_id: Uuid,
    document_id: Uuid,
    digest: &str,
    expires_us: i64,
) -> Result<()> {
    let now = now_us();
    on_db!(db, p => sqlx::query("DELETE FROM document_downloads WHERE account_id = $2 AND expires_us < $1").bind(now).bind(account_id).execute(p).await.map(|_| ())?);
    on_db!(db, p => sqlx::query("INSERT INTO document_downloads (digest, document_id, expires_us, account_id) VALUES ($1, $2, $3, $4)")
        .bind(digest).bind(document_id).bind(expires_us).bind(account_id).execute(p).await.map(|_| ())?);
    Ok(())
}

/// A file to send: name, MIME type, bytes.
pub type File = (String, String, Vec<u8>);

/// A file's name, type, and its bytes in the row or the key of its object.
type StoredFile = (String, String, Option<Vec<u8>>, Option<String>);

/// The file a live download token opens at `now`.
pub async fn download(
    db: &Db,
    files: &dyn FileStore,
    digest: &str,
    now: i64,
) -> Result<Option<File>> {
    const SQL: &str = "SELECT b.filename, b.content_type, b.data, b.object_key FROM document_downloads t JOIN documents d ON d.account_id = t.account_id AND d.id = t.document_id JOIN blobs b ON b.account_id = d.account_id AND b.id = d.blob_id \
        WHERE t.digest = $1 AND t.expires_us > $2 AND d.deleted_us IS NULL AND (b.data IS NOT NULL OR b.object_key IS NOT NULL)";
    let row: Option<StoredFile> =
        on_db!(db, p => sqlx::query_as(SQL).bind(digest).bind(now).fetch_optional(p).await?);
    Ok(match row {
        None => None,
        Some((name, kind, Some(data), _)) => Some((name, kind, data)),
        Some((name, kind, None, Some(key))) => {
            files.get(&key).await?.map(|data| (name, kind, data))
        }
        Some((_, _, None, None)) => None,
    })
}

/// The account's shipments (by bill of lading or booking number) and containers (by number)
/// named by `numbers` (upper case).
pub async fn linked(
    db: &Db,
    account_id: Uuid,
    numbers: &[String],
) -> Result<(Vec<Uuid>, Vec<Uuid>)> {
    let (mut shipments, mut containers) = (Vec::new(), Vec::new());
    for n in numbers.iter().take(20) {
        let s: Vec<Uuid> = on_db!(db, p => sqlx::query_scalar(
            "SELECT id FROM shipments WHERE account_id = $1 AND UPPER(bill_of_lading_number) = $2 LIMIT 10")
            .bind(account_id).bind(n).fetch_all(p).await?);
        let c: Vec<Uuid> = on_db!(db, p => sqlx::query_scalar(
            "SELECT id FROM containers WHERE account_id = $1 AND number = $2 LIMIT 10")
            .bind(account_id).bind(n).fetch_all(p).await?);
        for id in s {
            if !shipments.contains(&id) {
                shipments.push(id);
            }
        }
        for id in c {
            if !containers.contains(&id) {
                containers.push(id);
            }
        }
    }
    Ok((shipments, containers))
}

/// A stored inbound e-mail.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct SubmissionRow {
    /// Id.
    pub id: Uuid,
    /// Owner.
    pub account_id: Uuid,
    /// Subject.
    pub subject: String,
    /// Text body.
    pub body: Option<String>,
    /// Senders.
    #[sqlx(json)]
    pub from_addrs: Vec<String>,
    /// Recipients.
    #[sqlx(json)]
    pub to_addrs: Vec<String>,
    /// Copies.
    #[sqlx(json)]
    pub cc_addrs: Vec<String>,
    /// Date header.
    pub sent_us: Option<i64>,
    /// Message-ID.
    pub message_id: Option<String>,
    /// In-Reply-To.
    pub in_reply_to: Option<String>,
    /// References.
    #[sqlx(json)]
    pub references_ids: Vec<String>,
    /// Top-level MIME type.
    pub content_type: Option<String>,
    /// Received.
    pub created_us: i64,
    /// Last change.
    pub updated_us: i64,
    /// Its live documents.
    pub documents_count: i64,
}

impl Keyed for SubmissionRow {
    fn key(&self) -> Key {
        Key {
            sort_us: self.created_us,
            id: *self.id.as_bytes(),
        }
    }
}

const SUBMISSION_COLUMNS: &str = "id, account_id, subject, body, from_addrs, to_addrs, cc_addrs, sent_us, message_id, in_reply_to, references_ids, content_type, created_us, updated_us, \
    (SELECT COUNT(*) FROM documents d WHERE d.account_id = email_submissions.account_id AND d.email_submission_id = email_submissions.id AND d.deleted_us IS NULL) AS documents_count";

/// An attachment to keep as a document.
pub struct EmailDocument<'a> {
    /// File name.
    pub filename: &'a str,
    /// MIME type.
    pub content_type: &'a str,
    /// Bytes.
    pub bytes: &'a [u8],
    /// Base64 MD5 of the bytes.
    pub checksum: String,
    /// Its type.
    pub document_type: &'a str,
    /// Linked shipments.
    pub shipment_ids: Vec<Uuid>,
    /// Linked containers.
    pub container_ids: Vec<Uuid>,
}

/// Records an inbound e-mail and a document per attachment in one transaction. A message
/// whose Message-ID the account has sent before is not recorded again: `(id, false)` names
/// the first. An attachment the account already has as a live document (same MD5 and size)
/// is not kept twice.
pub async fn submit(
    db: &Db,
    files: &dyn FileStore,
    account_id: Uuid,
    e: &boxtrack_core::email::Email,
    docs: &[EmailDocument<'_>],
) -> Result<(Uuid, bool)> {
    // the bytes go to the object store before the rows that name them are committed (an
    // object whose rows never commit is removed below)
    let mut placed = Vec::with_capacity(docs.len());
    for d in docs {
        let blob_id = Uuid::now_v7();
        let key = files
            .put(account_id, blob_id, d.bytes, d.content_type)
            .await?;
        placed.push((blob_id, key));
    }
    let mut kept = vec![false; docs.len()];
    let out = submit_rows(db, account_id, e, docs, &placed, &mut kept).await;
    for ((_, key), kept) in placed.iter().zip(&kept) {
        if let (Some(key), false) = (key, *kept && out.as_ref().is_ok_and(|(_, new)| *new))
            && let Err(e) = files.delete(key).await
        {
            tracing::warn!(error = %e, key, "an unused object could not be removed");
        }
    }
    out
}

async fn submit_rows(
    db: &Db,
    account_id: Uuid,
    e: &boxtrack_core::email::Email,
    docs: &[EmailDocument<'_>],
    placed: &[(Uuid, Option<String>)],
    kept: &mut [bool],
) -> Result<(Uuid, bool)> {
    let mut tx = db.begin().await?;
    if let Some(mid) = &e.message_id {
        let seen: Option<Uuid> = on_tx!(&mut tx, c => sqlx::query_scalar(
            "SELECT id FROM email_submissions WHERE account_id = $1 AND message_id = $2")
            .bind(account_id).bind(mid).fetch_optional(c).await?);
        if let Some(id) = seen {
            return Ok((id, false));
        }
    }
    let now = now_us();
    let id = Uuid::now_v7();
    on_tx!(&mut tx, c => sqlx::query(
        "INSERT INTO email_submissions (id, account_id, subject, body, from_addrs, to_addrs, cc_addrs, sent_us, message_id, in_reply_to, references_ids, content_type, created_us, updated_us) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)")
        .bind(id).bind(account_id).bind(&e.subject).bind(&e.body).bind(Json(&e.from)).bind(Json(&e.to)).bind(Json(&e.cc))
        .bind(e.sent_us).bind(&e.message_id).bind(&e.in_reply_to).bind(Json(&e.references)).bind(&e.content_type).bind(now)
        .execute(c).await.map(|_| ())?);
    for (i, (d, (blob_id, key))) in docs.iter().zip(placed).enumerate() {
        let dup: Option<Uuid> = on_tx!(&mut tx, c => sqlx::query_scalar(
            "SELECT d.id FROM documents d JOIN blobs b ON b.account_id = d.account_id AND b.id = d.blob_id WHERE d.account_id = $1 AND d.deleted_us IS NULL AND b.checksum = $2 AND b.byte_size = $3 LIMIT 1")
            .bind(account_id).bind(&d.checksum).bind(d.bytes.len() as i64).fetch_optional(c).await?);
        if dup.is_some() {
            continue;
        }
        kept[i] = true;
        let inline: Option<&[u8]> = key.is_none().then_some(d.bytes);
        // no upload or attach token: the bytes are here and attached at once
        let (_, upload_digest) = boxtrack_core::documents::token("email_up_");
        let (_, signed_digest) = boxtrack_core::documents::token("email_blob_");
        on_tx!(&mut tx, c => sqlx::query(
            "INSERT INTO blobs (id, account_id, filename, content_type, byte_size, checksum, upload_digest, signed_digest, data, object_key, uploaded_us, created_us) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)")
            .bind(blob_id).bind(account_id).bind(d.filename).bind(d.content_type).bind(d.bytes.len() as i64).bind(&d.checksum)
            .bind(upload_digest).bind(signed_digest).bind(inline).bind(key).bind(now)
            .execute(c).await.map(|_| ())?);
        on_tx!(&mut tx, c => sqlx::query(
            "INSERT INTO documents (id, account_id, blob_id, name, document_type, source, shipment_ids, container_ids, email_submission_id, created_us, updated_us) VALUES ($1, $2, $3, $4, $5, 'email', $6, $7, $8, $9, $9)")
            .bind(Uuid::now_v7()).bind(account_id).bind(blob_id).bind(d.filename).bind(d.document_type)
            .bind(Json(&d.shipment_ids)).bind(Json(&d.container_ids)).bind(id).bind(now)
            .execute(c).await.map(|_| ())?);
    }
    tx.commit().await?;
    Ok((id, true))
}

/// One e-mail of the account.
pub async fn submission(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<SubmissionRow>> {
    let sql = format!(
        "SELECT {SUBMISSION_COLUMNS} FROM email_submissions WHERE id = $1 AND account_id = $2"
    );
    Ok(
        on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).bind(account_id).fetch_optional(p).await?),
    )
}

/// A page of the account's e-mails, newest first.
pub async fn submissions(db: &Db, account_id: Uuid, page: &Page) -> Result<Listed<SubmissionRow>> {
    let spec = ListSpec {
        from: "email_submissions",
        columns: SUBMISSION_COLUMNS,
        sort_col: "created_us",
        ascending: false,
        id_col: "id",
        conds: vec![Cond::new("account_id = ?", vec![Arg::Uuid(account_id)])],
    };
    crate::list::list(db, &spec, page).await
}

/// The live documents that came with an e-mail.
pub async fn of_submission(db: &Db, account_id: Uuid, id: Uuid) -> Result<Vec<DocumentRow>> {
    let sql = format!(
        "SELECT {DOC_COLUMNS} FROM {DOC_FROM} WHERE d.email_submission_id = $1 AND d.account_id = $2 AND d.deleted_us IS NULL ORDER BY d.created_us, d.id"
    );
    Ok(
        on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).bind(account_id).fetch_all(p).await?),
    )
}
