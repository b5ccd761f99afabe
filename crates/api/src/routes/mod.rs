//! Route modules, one per resource; each declares its operations for the OpenAPI document.

pub mod account;
pub mod api_keys;
pub mod containers;
pub mod custom_fields;
pub mod docs;
pub mod documents;
pub mod email_submissions;
pub mod events;
pub mod health;
pub mod ingest;
pub mod notifications;
pub mod parties;
pub mod reference;
pub mod sandbox;
pub mod search;
pub mod shipments;
pub mod sources;
pub mod tracking_requests;
pub mod webhooks;

use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use uuid::Uuid;

use crate::error::ApiError;
use crate::openapi::Op;

/// Every documented operation, in display order.
pub fn operations() -> Vec<Op> {
    let mut ops = Vec::new();
    ops.extend(health::operations());
    ops.extend(docs::operations());
    ops.extend(account::operations());
    ops.extend(api_keys::operations());
    ops.extend(tracking_requests::operations());
    ops.extend(shipments::operations());
    ops.extend(containers::operations());
    ops.extend(documents::operations());
    ops.extend(email_submissions::operations());
    ops.extend(parties::operations());
    ops.extend(custom_fields::operations());
    ops.extend(sandbox::operations());
    ops.extend(reference::operations());
    ops.extend(search::operations());
    ops.extend(webhooks::operations());
    ops.extend(events::operations());
    ops.extend(notifications::operations());
    ops.extend(ingest::operations());
    ops.extend(sources::operations());
    ops.extend(crate::mcp::operations());
    ops.extend(crate::oauth::operations());
    ops
}

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
