//! Liveness, readiness and metrics.

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use serde_json::json;

use crate::AppState;
use crate::openapi::{Op, operation};

/// `GET /healthz`: the process is up.
pub async fn healthz() -> impl IntoResponse {
    axum::Json(json!({"status": "ok"}))
}

/// `GET /readyz`: the database answers.
pub async fn readyz(State(state): State<AppState>) -> impl IntoResponse {
    match state.db.ping().await {
        Ok(()) => (
            StatusCode::OK,
            axum::Json(json!({"status": "ready", "database": "ok"})),
        ),
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                axum::Json(json!({"status": "not_ready", "database": "unreachable"})),
            )
        }
    }
}

/// `GET /metrics`: Prometheus text.
pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        state.metrics.render(),
    )
}

/// Documented operations of this module.
pub fn operations() -> Vec<Op> {
    let plain = |d: &str| json!({"description": d, "content": {"application/json": {"schema": {"type": "object"}}}});
    vec![
        Op {
            method: "get",
            path: "/healthz",
            op: operation(
                "Operations",
                "Liveness",
                "200 while the process is up.",
                vec![],
                None,
                Default::default(),
                ("200", plain("The process is up")),
            ),
        },
        Op {
            method: "get",
            path: "/readyz",
            op: operation(
                "Operations",
                "Readiness",
                "200 when the database answers, 503 otherwise.",
                vec![],
                None,
                [("503".to_string(), plain("The database is not reachable"))]
                    .into_iter()
                    .collect(),
                ("200", plain("Ready")),
            ),
        },
        Op {
            method: "get",
            path: "/metrics",
            op: operation(
                "Operations",
                "Prometheus metrics",
                "Requests by method, matched route and status (`boxtrack_http_requests_total`), latency histogram by route (`boxtrack_http_request_duration_seconds`), and requests refused by rate limits (`boxtrack_rate_limited_total`).",
                vec![],
                None,
                Default::default(),
                (
                    "200",
                    json!({"description": "Prometheus text exposition", "content": {"text/plain": {"schema": {"type": "string"}}}}),
                ),
            ),
        },
    ]
}
