//! Where the bytes of documents live: in the database (the default: `blobs.data`, so that
//! every process serves them and a backup holds them) or in an S3-compatible object store
//! (`document_store = "s3://BUCKET/PREFIX"`), for installations whose files outgrow the
//! database. Both sit behind [`FileStore`]; the rows that describe a file (name, type, size,
//! checksum, owner) stay in the database either way, and `blobs.object_key` says where the
//! bytes of each are.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use object_store::path::Path as ObjectPath;
use object_store::{Attribute, Attributes, ObjectStore, ObjectStoreExt, PutOptions, PutPayload};
use uuid::Uuid;

use crate::{Db, Result, StoreError, on_db};

/// A boxed future of a file store's answer.
pub type Fut<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>;

/// A place for the bytes of files, by blob.
pub trait FileStore: Send + Sync + std::fmt::Debug {
    /// `database` or `s3`, as `blobs.object_key` and the start line name it.
    fn kind(&self) -> &'static str;
    /// Keeps a file's bytes; returns the object key written, `None` when the bytes stay in
    /// the database row (which the caller then writes itself, in its own transaction).
    fn put<'a>(
        &'a self,
        account_id: Uuid,
        blob_id: Uuid,
        bytes: &'a [u8],
        content_type: &'a str,
    ) -> Fut<'a, Option<String>>;
    /// The bytes of an object key written by [`FileStore::put`]; `None` when they are gone.
    fn get<'a>(&'a self, key: &'a str) -> Fut<'a, Option<Vec<u8>>>;
    /// Drops an object (a missing one is not an error).
    fn delete<'a>(&'a self, key: &'a str) -> Fut<'a, ()>;
}

/// The default: bytes in the database row.
#[derive(Debug, Default, Clone, Copy)]
pub struct InDatabase;

impl FileStore for InDatabase {
    fn kind(&self) -> &'static str {
        "database"
    }
    fn put<'a>(&'a self, _: Uuid, _: Uuid, _: &'a [u8], _: &'a str) -> Fut<'a, Option<String>> {
        Box::pin(async { Ok(None) })
    }
    fn get<'a>(&'a self, _: &'a str) -> Fut<'a, Option<Vec<u8>>> {
        Box::pin(async { Ok(None) })
    }
    fn delete<'a>(&'a self, _: &'a str) -> Fut<'a, ()> {
        Box::pin(async { Ok(()) })
    }
}

/// Bytes in an S3-compatible object store, under `PREFIX/accounts/ACCOUNT/blobs/BLOB`.
pub struct InObjectStore {
    store: Arc<dyn ObjectStore>,
    prefix: String,
    shown: String,
}

impl std::fmt::Debug for InObjectStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InObjectStore")
            .field("at", &self.shown)
            .finish()
    }
}

/// Where an `s3://BUCKET/PREFIX` address points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Address {
    /// The bucket.
    pub bucket: String,
    /// The key prefix (no leading or trailing slash; may be empty).
    pub prefix: String,
}

/// Reads `s3://BUCKET[/PREFIX]`.
pub fn parse_s3(url: &str) -> std::result::Result<S3Address, String> {
    let rest = url
        .strip_prefix("s3://")
        .ok_or_else(|| format!("{url:?} is not database or s3://BUCKET[/PREFIX]"))?;
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    let valid_bucket = (3..=63).contains(&bucket.len())
        && bucket
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
    if !valid_bucket {
        return Err(format!(
            "{bucket:?} is not an S3 bucket name (3 to 63 lower-case letters, digits, dots and dashes)"
        ));
    }
    let prefix = prefix.trim_matches('/').to_string();
    if prefix.split('/').any(|p| p == "." || p == "..") {
        return Err(format!("the prefix {prefix:?} holds . or .."));
    }
    Ok(S3Address {
        bucket: bucket.to_string(),
        prefix,
    })
}

impl InObjectStore {
    /// An S3 store for `addr`, with credentials, region and endpoint from the standard AWS
    /// variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT for an
    /// S3-compatible server, AWS_ALLOW_HTTP=true for one without TLS).
    pub fn s3(addr: &S3Address) -> Result<InObjectStore> {
        // rustls needs one process-wide crypto provider for the object store's client; ring,
        // as the rest of the tree uses (a second install is refused harmlessly)
        let _ = rustls::crypto::ring::default_provider().install_default();
        let store = object_store::aws::AmazonS3Builder::from_env()
            .with_bucket_name(&addr.bucket)
            .build()
            .map_err(|e| StoreError::Files(format!("the S3 document store: {e}")))?;
        Ok(InObjectStore {
            store: Arc::new(store),
            prefix: addr.prefix.clone(),
            shown: format!("s3://{}/{}", addr.bucket, addr.prefix),
        })
    }

    /// Any object store (tests use an in-memory one).
    pub fn with(store: Arc<dyn ObjectStore>, prefix: &str) -> InObjectStore {
        InObjectStore {
            store,
            prefix: prefix.trim_matches('/').to_string(),
            shown: format!("object store /{prefix}"),
        }
    }

    fn key(&self, account_id: Uuid, blob_id: Uuid) -> String {
        let tail = format!("accounts/{account_id}/blobs/{blob_id}");
        if self.prefix.is_empty() {
            tail
        } else {
            format!("{}/{tail}", self.prefix)
        }
    }
}

fn files_error(what: &str, key: &str, e: object_store::Error) -> StoreError {
    StoreError::Files(format!("{what} {key}: {e}"))
}

impl FileStore for InObjectStore {
    fn kind(&self) -> &'static str {
        "s3"
    }
    fn put<'a>(
        &'a self,
        account_id: Uuid,
        blob_id: Uuid,
        bytes: &'a [u8],
        content_type: &'a str,
    ) -> Fut<'a, Option<String>> {
        Box::pin(async move {
            let key = self.key(account_id, blob_id);
            let mut attributes = Attributes::new();
            attributes.insert(Attribute::ContentType, content_type.to_string().into());
            let opts = PutOptions {
                attributes,
                ..Default::default()
            };
            self.store
                .put_opts(
                    &ObjectPath::from(key.as_str()),
                    PutPayload::from(bytes.to_vec()),
                    opts,
                )
                .await
                .map_err(|e| files_error("writing", &key, e))?;
            Ok(Some(key))
        })
    }
    fn get<'a>(&'a self, key: &'a str) -> Fut<'a, Option<Vec<u8>>> {
        Box::pin(async move {
            match self.store.get(&ObjectPath::from(key)).await {
                Ok(found) => Ok(Some(
                    found
                        .bytes()
                        .await
                        .map_err(|e| files_error("reading", key, e))?
                        .to_vec(),
                )),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(files_error("reading", key, e)),
            }
        })
    }
    fn delete<'a>(&'a self, key: &'a str) -> Fut<'a, ()> {
        Box::pin(async move {
            match self.store.delete(&ObjectPath::from(key)).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(files_error("deleting", key, e)),
            }
        })
    }
}

/// The store a `document_store` setting names: `database` or `s3://BUCKET[/PREFIX]`.
pub fn open(setting: &str) -> Result<Arc<dyn FileStore>> {
    match setting.trim() {
        "" | "database" => Ok(Arc::new(InDatabase)),
        other => {
            let addr = parse_s3(other).map_err(StoreError::Files)?;
            Ok(Arc::new(InObjectStore::s3(&addr)?))
        }
    }
}

/// The object keys of an account's files kept outside the database (to drop them with the
/// account).
pub async fn object_keys_of(db: &Db, account_id: Uuid) -> Result<Vec<String>> {
    Ok(on_db!(db, p => sqlx::query_scalar(
        "SELECT object_key FROM blobs WHERE account_id = $1 AND object_key IS NOT NULL")
        .bind(account_id).fetch_all(p).await?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s3_addresses_are_checked() {
        assert_eq!(
            parse_s3("s3://boxtrack-docs/prod/files/").unwrap(),
            S3Address {
                bucket: "boxtrack-docs".into(),
                prefix: "prod/files".into()
            }
        );
        assert_eq!(parse_s3("s3://docs").unwrap().prefix, "");
        assert!(parse_s3("s3://Bad_Bucket").is_err());
        assert!(parse_s3("s3://docs/../x").is_err());
        assert!(parse_s3("gs://docs").is_err());
    }

    #[tokio::test]
    async fn an_object_store_keeps_bytes_by_account_and_blob() {
        let mem = Arc::new(object_store::memory::InMemory::new());
        let files = InObjectStore::with(mem, "/p/");
        let (account, blob) = (Uuid::now_v7(), Uuid::now_v7());
        let key = files
            .put(account, blob, b"%PDF-1.7", "application/pdf")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(key, format!("p/accounts/{account}/blobs/{blob}"));
        assert_eq!(files.get(&key).await.unwrap().unwrap(), b"%PDF-1.7");
        files.delete(&key).await.unwrap();
        assert_eq!(files.get(&key).await.unwrap(), None);
        files.delete(&key).await.unwrap();
    }
}
