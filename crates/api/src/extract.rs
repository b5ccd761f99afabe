//! Extractors shared by the route modules.

use axum::extract::{FromRequestParts, Path};
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
