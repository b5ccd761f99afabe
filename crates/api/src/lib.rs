//! The boxtrack HTTP edge: the `/v2` JSON:API, operations endpoints, authentication, rate
//! limits, metrics and the served OpenAPI document.
//!
//! [`router`] builds the whole application; [`serve`] runs it on a listener until a
//! cancellation token fires, so tests can start it on port 0.

#![recursion_limit = "256"]

pub mod auth;
pub mod doc;
pub mod error;
pub mod extract;
pub mod jsonapi;
pub mod limiter;
pub mod mcp;
pub mod metrics;
mod middleware;
pub mod oauth;
pub mod openapi;
pub mod rest;
pub mod routes;
pub mod state;

use axum::Router;
use axum::http::{HeaderName, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::sensitive_headers::SetSensitiveRequestHeadersLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

pub use auth::Caller;
pub use error::{ApiError, ApiResult};
pub use limiter::Limiter;
pub use metrics::Metrics;
pub use state::{ApiConfig, AppState};

async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "No such endpoint; see /docs for the API reference.",
    )
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "This endpoint does not accept that method; see /docs.",
    )
}

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    tracing::error!("a request handler panicked");
    ApiError::internal().into_response()
}

/// The whole application.
pub fn router(state: AppState) -> Router {
    let state = if state.openapi.is_null() {
        AppState {
            openapi: std::sync::Arc::new(openapi::document()),
            ..state
        }
    } else {
        state
    };
    let request_id = HeaderName::from_static("x-request-id");
    let timeout = state.config.request_timeout;
    rest::router(&state)
        .route(
            "/.well-known/oauth-protected-resource",
            get(oauth::protected_resource),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(oauth::protected_resource),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(oauth::authorization_server),
        )
        .route("/oauth/register", axum::routing::post(oauth::register))
        .route(
            "/oauth/authorize",
            get(oauth::authorize_page).post(oauth::authorize_submit),
        )
        .route("/oauth/token", axum::routing::post(oauth::token))
        .route(
            "/mcp",
            axum::routing::post(mcp::post)
                .get(mcp::not_allowed)
                .delete(mcp::not_allowed),
        )
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(state.clone(), middleware::track))
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(TimeoutLayer::with_status_code(StatusCode::SERVICE_UNAVAILABLE, timeout))
        .layer(
            TraceLayer::new_for_http().make_span_with(|req: &Request<_>| {
                let id = req
                    .headers()
                    .get("x-request-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default();
                tracing::info_span!("request", method = %req.method(), path = %req.uri().path(), request_id = %id)
            }),
        )
        .layer(PropagateRequestIdLayer::new(request_id.clone()))
        .layer(SetRequestIdLayer::new(request_id, MakeRequestUuid))
        .layer(SetSensitiveRequestHeadersLayer::new([
            axum::http::header::AUTHORIZATION,
            axum::http::header::COOKIE,
        ]))
        .with_state(state)
}

/// Serves the application on `listener` until `shutdown` is cancelled, then finishes the
/// requests in flight.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let app = router(state);
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown.cancelled_owned())
        .await
}
