//! Middleware of the whole router.

use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::state::AppState;

/// Middleware: times every request and counts it by matched route and status.
pub async fn track(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |m| m.as_str().to_string());
    let method = req.method().as_str().to_string();
    let started = Instant::now();
    let res = next.run(req).await;
    state.metrics.record_request(
        &method,
        &route,
        res.status().as_u16(),
        started.elapsed().as_secs_f64(),
    );
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
