//! What the OAuth endpoints share: token lifetimes, the service's address, the MCP resource
//! identifier and the RFC 6749 error body.

use axum::Json;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use boxtrack_core::oauth as core;
use boxtrack_core::ratelimit::Attempt;

use boxtrack_http::Front;

/// The service's base URL for this request (the configured public URL, or `http://Host`).
pub fn base_url(state: &Front, headers: &HeaderMap) -> String {
    state.config.public_url.clone().unwrap_or_else(|| {
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("localhost");
        format!("http://{host}")
    })
}

/// The canonical resource identifier of the MCP endpoint.
pub fn mcp_resource(state: &Front, headers: &HeaderMap) -> String {
    let raw = format!("{}/mcp", base_url(state, headers));
    core::canonical_resource(&raw).unwrap_or(raw)
}

pub(super) fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    let mut r = (
        status,
        Json(super::shapes::OAuthError {
            error,
            error_description: description,
        }),
    )
        .into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// Counts `attempt` against its limit: `Err` is the answer when the limit is reached (429
/// `temporarily_unavailable` with `Retry-After`) or the limiter cannot be reached (503).
pub(super) async fn admit(state: &Front, attempt: Attempt<'_>, kind: &str) -> Result<(), Response> {
    match state.limiter.attempt(attempt).await {
        Ok(d) if d.allowed => Ok(()),
        Ok(d) => {
            state.metrics.record_rate_limited(kind);
            let mut r = oauth_error(
                StatusCode::TOO_MANY_REQUESTS,
                "temporarily_unavailable",
                &format!(
                    "more than {} requests a minute; retry in {} seconds",
                    d.limit,
                    d.retry_after_secs()
                ),
            );
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(d.retry_after_secs()));
            Err(r)
        }
        Err(e) => Err(e.into_response()),
    }
}
