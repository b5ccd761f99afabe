//! Middleware of the whole router.

use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::state::AppState;

/// Who a request acted for, filled in by whatever authenticates it (API key, OAuth token,
/// console session) and read by the access log once the response is ready. Only code sets
/// request extensions, so a client cannot forge it.
#[derive(Debug, Clone, Default)]
pub struct AccessNote(std::sync::Arc<std::sync::Mutex<Option<uuid::Uuid>>>);

impl AccessNote {
    /// Records the account the request acts for.
    pub fn set_account(&self, id: uuid::Uuid) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(id);
        }
    }

    fn account(&self) -> Option<uuid::Uuid> {
        self.0.lock().ok().and_then(|slot| *slot)
    }
}

/// Records the account of a request in its [`AccessNote`], when the request carries one.
pub fn note_account(extensions: &axum::http::Extensions, id: uuid::Uuid) {
    if let Some(n) = extensions.get::<AccessNote>() {
        n.set_account(id);
    }
}

/// Middleware: times every request, counts it by matched route and status, and writes the
/// access log line (target `boxtrack::access`): method, route template (never the query, so
/// no token in a query string reaches the log), status, latency, account and request id.
pub async fn track(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |m| m.as_str().to_string());
    let method = req.method().as_str().to_string();
    let request_id = req
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let note = AccessNote::default();
    req.extensions_mut().insert(note.clone());
    let started = Instant::now();
    let res = next.run(req).await;
    let elapsed = started.elapsed();
    let status = res.status().as_u16();
    state
        .metrics
        .record_request(&method, &route, status, elapsed.as_secs_f64());
    let latency_ms = (elapsed.as_secs_f64() * 1000.0 * 10.0).round() / 10.0;
    let account = note.account().map(|a| a.to_string()).unwrap_or_default();
    if status >= 500 {
        tracing::warn!(target: "boxtrack::access", %method, %route, status, latency_ms, %account, %request_id, "request");
    } else {
        tracing::info!(target: "boxtrack::access", %method, %route, status, latency_ms, %account, %request_id, "request");
    }
    res
}

/// Middleware: a query parameter a `/v2` operation does not document is a 400 naming it,
/// rather than ignored (a mistyped filter would otherwise answer everything). The served
/// document is the list of what each operation takes. The OAuth endpoints are left alone:
/// an authorization server ignores parameters it does not know (RFC 6749 §3.1).
pub async fn known_query(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if let (Some(path), Some(query)) = (req.extensions().get::<MatchedPath>(), req.uri().query())
        && path.as_str().starts_with("/v2/")
    {
        let method = req.method().as_str().to_ascii_lowercase();
        if let Some(op) = state.openapi["paths"][path.as_str()].get(&method) {
            let known: Vec<&str> = op["parameters"]
                .as_array()
                .map(|ps| {
                    ps.iter()
                        .filter(|p| p["in"] == "query")
                        .filter_map(|p| p["name"].as_str())
                        .collect()
                })
                .unwrap_or_default();
            for (name, _) in url::form_urlencoded::parse(query.as_bytes()) {
                if !known.contains(&name.as_ref()) {
                    let takes = if known.is_empty() {
                        "takes no query parameters".to_string()
                    } else {
                        format!("takes {}", known.join(", "))
                    };
                    return ApiError::bad_parameter(
                        &name,
                        format!(
                            "unknown query parameter {name:?}: {} {} {takes}",
                            method.to_uppercase(),
                            path.as_str()
                        ),
                    )
                    .into_response();
                }
            }
        }
    }
    next.run(req).await
}
