//! Extractors shared by the route modules.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use uuid::Uuid;

use crate::error::ApiError;

/// A `{id}` path segment that must be a UUID; anything else is 404 (no such resource).
pub struct IdPath(pub Uuid);

impl<S: Send + Sync> FromRequestParts<S> for IdPath {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<IdPath, ApiError> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::not_found("resource"))?;
        Uuid::parse_str(&raw)
            .map(IdPath)
            .map_err(|_| ApiError::not_found(&format!("resource with id {raw:?}")))
    }
}

/// A raw request body (uploads, e-mails), refused as a JSON:API error when it is larger than
/// the route's limit: the limit is checked against Content-Length before anything is read,
/// and while reading, so an oversized body is never held whole.
pub struct RawBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for RawBody {
    type Rejection = ApiError;
    async fn from_request(req: Request, state: &S) -> Result<RawBody, ApiError> {
        Bytes::from_request(req, state)
            .await
            .map(RawBody)
            .map_err(|e| match e.status() {
                StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "The request body is larger than this endpoint accepts (see its documentation for the limit); nothing was read or stored.",
                )
                .with_code("payload_too_large"),
                status => ApiError::new(status, e.body_text()),
            })
    }
}
