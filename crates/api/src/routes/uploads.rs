//! The ActiveStorage direct-upload handshake that attaching a document starts with:
//! `POST /rails/active_storage/direct_uploads` announces a file, `PUT /v2/uploads/{token}`
//! takes its bytes, and `GET /v2/downloads/{token}` serves a document's file. The tokens in
//! those URLs are their credential (as a presigned storage URL is).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use boxtrack_app::documents;
use boxtrack_core::documents as rules;
use boxtrack_views::jsonapi::At;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::state::AppState;
use crate::state::Routes;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::{Doc, binary, schema_of};
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::extract::RawBody;
use boxtrack_http::jsonapi::{Body, base_url};

/// Body of `POST /rails/active_storage/direct_uploads`.
#[derive(Deserialize, JsonSchema)]
pub struct Announce {
    blob: AnnounceBlob,
}

/// What a file name may be: at least one character that is not a space, none a control
/// character or a path separator.
const FILENAME_PATTERN: &str = "^[^\\u0000-\\u001f\\u007f-\\u009f/\\\\]*[^\\s\\u0000-\\u001f\\u007f-\\u009f/\\\\][^\\u0000-\\u001f\\u007f-\\u009f/\\\\]*$";

/// The file to announce.
#[derive(Deserialize, JsonSchema)]
struct AnnounceBlob {
    /// Its name: 1 to 255 characters, not only spaces, without control characters or path
    /// separators.
    #[schemars(required, extend("type" = "string", "maxLength" = 255, "pattern" = FILENAME_PATTERN))]
    filename: Option<String>,
    /// Its media type (`application/pdf`; absent or empty: application/octet-stream).
    #[schemars(extend("maxLength" = 255, "pattern" = "^ *([!-.0-~]+/[!-~]+)? *$"))]
    content_type: Option<String>,
    /// Its size (at most 25 MiB).
    #[schemars(required, extend("type" = "integer", "minimum" = 1, "maximum" = rules::MAX_BYTES))]
    byte_size: Option<i64>,
    /// Base64 of the file's MD5 digest (16 bytes).
    #[schemars(required, extend("type" = "string", "pattern" = "^[A-Za-z0-9+/]{21}[AQgw]==$"))]
    checksum: Option<String>,
    /// Anything the client wants back.
    #[serde(default)]
    metadata: Option<Value>,
}

/// `POST /rails/active_storage/direct_uploads`: announces a file; answers with the URL to
/// `PUT` its bytes to (with the headers to send) and the `signed_id` that attaches it.
pub async fn announce(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Body(b): Body<Announce>,
) -> ApiResult<Json<Announced>> {
    let blob = b.blob;
    let a = rules::check(
        blob.filename.as_deref(),
        blob.content_type.as_deref(),
        blob.byte_size,
        blob.checksum.as_deref(),
    )
    .map_err(|bad| {
        bad.iter()
            .map(|b| ApiError::unprocessable(b.pointer, "invalid", b.detail.clone()))
            .reduce(ApiError::merge)
            .unwrap_or_else(ApiError::internal)
    })?;
    let (upload, upload_digest) = rules::token("up_");
    let (signed, signed_digest) = rules::token("blob_");
    let row = documents::announce(
        &state.ctx,
        caller.account.id,
        &a,
        &upload_digest,
        &signed_digest,
    )
    .await?;
    let base = base_url(state.config.public_url.as_deref(), &headers);
    Ok(Json(Announced {
        id: row.id,
        key: row.id,
        metadata: blob
            .metadata
            .unwrap_or_else(|| Value::Object(serde_json::Map::new())),
        service_name: "database",
        byte_size: row.byte_size,
        created_at: At(row.created_us),
        signed_id: signed,
        direct_upload: DirectUpload {
            url: format!("{base}/v2/uploads/{upload}"),
            headers: UploadHeaders {
                content_type: row.content_type.clone(),
                content_md5: row.checksum.clone(),
            },
        },
        filename: row.filename,
        content_type: row.content_type,
        checksum: row.checksum,
    }))
}

/// An announced file: the blob record with where to send its bytes (the ActiveStorage
/// direct-upload answer).
#[derive(Serialize, JsonSchema)]
pub struct Announced {
    /// The blob's id.
    pub id: uuid::Uuid,
    /// The same (its storage key).
    pub key: uuid::Uuid,
    /// The file's name.
    pub filename: String,
    /// Its media type.
    pub content_type: String,
    /// What the client sent along.
    pub metadata: Value,
    /// Where the bytes are kept (`database`).
    pub service_name: &'static str,
    /// Its size.
    pub byte_size: i64,
    /// Base64 of its MD5 digest.
    pub checksum: String,
    /// When it was announced.
    pub created_at: At,
    /// What `POST /v2/documents` attaches it by.
    pub signed_id: String,
    /// Where and how to send the bytes.
    pub direct_upload: DirectUpload,
}

/// Where to `PUT` a file's bytes.
#[derive(Serialize, JsonSchema)]
pub struct DirectUpload {
    /// The upload URL (it is the credential; valid 1 hour).
    pub url: String,
    /// Headers to send with the bytes.
    pub headers: UploadHeaders,
}

/// Headers of an upload.
#[derive(Serialize, JsonSchema)]
pub struct UploadHeaders {
    /// The announced media type.
    #[serde(rename = "Content-Type")]
    pub content_type: String,
    /// The announced MD5 digest.
    #[serde(rename = "Content-MD5")]
    pub content_md5: String,
}

/// `PUT /v2/uploads/{token}`: the bytes of an announced file. The token in the URL is the
/// credential (as a presigned storage URL is); the bytes must have the announced size and
/// MD5, or nothing is stored.
pub async fn upload(
    State(state): State<AppState>,
    Path(token): Path<String>,
    RawBody(bytes): RawBody,
) -> ApiResult<StatusCode> {
    let now = state.ctx.now_us();
    let blob = documents::awaiting_upload(&state.ctx,
        &rules::digest(&token),
        now - rules::UPLOAD_TTL_US,
    )
    .await?
    .ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "No upload waits at this URL: it was used already, has expired (1 hour after the direct upload was announced), or never existed.",
        )
    })?;
    rules::verify(blob.byte_size, &blob.checksum, &bytes).map_err(|e| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("{e}; nothing was stored"),
        )
        .with_code("checksum_mismatch")
    })?;
    if !documents::store_bytes(&state.ctx, &blob, &bytes).await? {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "The bytes of this upload have arrived already.",
        ));
    }
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /v2/downloads/{token}`: the file a download URL opens.
pub async fn download(
    State(state): State<AppState>,
    Path(token): Path<String>,
) -> ApiResult<Response> {
    let (name, content_type, bytes) =
        documents::download(&state.ctx, &rules::digest(&token))
            .await?
            .ok_or_else(|| {
                ApiError::new(
                    StatusCode::NOT_FOUND,
                    "This download URL has expired (they last 10 minutes) or never existed; ask GET /v2/documents/{id}/download_url for a new one.",
                )
            })?;
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut res = bytes.into_response();
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_str(&content_type)
            .unwrap_or(HeaderValue::from_static("application/octet-stream")),
    );
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{safe}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-store"),
    );
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    Ok(res)
}

/// This module's operations, each declared with its route and handler: the announcement
/// needs an API key (said, being outside `/v2`); the upload and download URLs are their own
/// credential.
pub fn routes() -> Routes {
    Routes::default()
        .post("/rails/active_storage/direct_uploads", announce, || {
            Doc::new("Documents", "Announce a file upload")
                .about("Step 1 of attaching a document (the ActiveStorage direct-upload handshake): announce the file; the answer carries `direct_upload.url` and `direct_upload.headers` for step 2 (PUT the bytes there, with `Content-Length`) and the `signed_id` for step 3 (`POST /v2/documents`). Files up to 25 MiB; the URL waits 1 hour.")
                .body::<Announce>()
                .errors(&[400, 401, 415, 422, 429])
                .answer("200", Doc::json_answer("The blob record with its upload URL and signed_id", schema_of::<Announced>()))
                .key()
        })
        .public_routed(
            "put",
            "/v2/uploads/{token}",
            axum::routing::put(upload).layer(axum::extract::DefaultBodyLimit::max(
                usize::try_from(rules::MAX_BYTES).unwrap_or(usize::MAX),
            )),
            || {
                Doc::new("Documents", "Upload a file's bytes")
                    .about("Step 2: the raw bytes of an announced file. The URL is the credential (no Authorization header). The bytes must have the announced size and MD5 (422 `checksum_mismatch` otherwise, and nothing is stored); a URL takes one upload.")
                    .path_text("token", "From direct_upload.url")
                    .errors(&[404, 409, 413, 422])
                    .answer("204", Doc::empty_answer("Stored"))
                    .no_key()
            },
        )
        .public_get("/v2/downloads/{token}", download, || {
            Doc::new("Documents", "Download a file")
                .about("The file a download URL opens, with its content type and `Content-Disposition: attachment`. 404 once the URL has expired.")
                .path_text("token", "From download_url")
                .errors(&[404])
                .answer("200", Doc::media_answer("The file's bytes", "application/octet-stream", binary()))
                .no_key()
        })
}
