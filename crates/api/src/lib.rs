//! The boxtrack HTTP edge: the `/v2` JSON:API, operations endpoints, authentication, rate
//! limits, metrics and the served OpenAPI document.
//!
//! [`router`] builds the whole application; [`serve`] runs it on a listener until a
//! cancellation token fires, so tests can start it on port 0.

#![recursion_limit = "256"]

pub mod auth;
pub mod error;
pub mod jsonapi;
pub mod mcp;
pub mod metrics;
pub mod oauth;
pub mod openapi;
pub mod routes;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderName, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use boxtrack_store::Db;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::sensitive_headers::SetSensitiveRequestHeadersLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

pub use auth::{Caller, Limiter};
pub use error::{ApiError, ApiResult};
pub use metrics::Metrics;

/// Settings of the HTTP edge.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// Absolute base address used in links (e.g. `https://track.example.com`); when unset the
    /// request's `Host` header is used with `http://`.
    pub public_url: Option<String>,
    /// Longest time a request may take before it is answered 503.
    pub request_timeout: Duration,
    /// Allow `http://` and internal (loopback, private, link-local) webhook URLs — for tests and
    /// local receivers only.
    pub allow_private_webhook_urls: bool,
    /// The addresses webhook deliveries leave from, as the operator configured them
    /// (`GET /v2/webhooks/ips`).
    pub webhook_source_ips: Vec<String>,
    /// The header that carries the hex signature of webhook bodies.
    pub webhook_signature_header: String,
    /// Base64 secret of DCSA push subscriptions (`POST /v2/ingest/dcsa`); none: push is off.
    pub dcsa_push_secret: Option<String>,
    /// Origins (scheme://host[:port]) besides loopback and `public_url` whose browsers may call
    /// `/mcp`.
    pub mcp_allowed_origins: Vec<String>,
    /// Test mode for MCP conformance suites, which cannot send credentials: `/mcp` requests
    /// without `Authorization` act for this account. Only accepted on a loopback listener.
    pub mcp_open_account: Option<uuid::Uuid>,
    /// Simulated seconds per real second of sandbox journeys (their clock: a sandbox
    /// container's "days left" counts from its virtual now).
    pub sandbox_speed: f64,
}

impl Default for ApiConfig {
    fn default() -> Self {
        ApiConfig {
            public_url: None,
            request_timeout: Duration::from_secs(30),
            allow_private_webhook_urls: false,
            webhook_source_ips: Vec::new(),
            webhook_signature_header: boxtrack_worker::delivery::SIGNATURE_HEADER.to_string(),
            dcsa_push_secret: None,
            mcp_allowed_origins: Vec::new(),
            mcp_open_account: None,
            sandbox_speed: 3600.0,
        }
    }
}

/// Everything a handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// The database.
    pub db: Db,
    /// Edge settings.
    pub config: Arc<ApiConfig>,
    /// Metrics of this process.
    pub metrics: Arc<Metrics>,
    /// Rate-limit state.
    pub limiter: Limiter,
    /// Wakes the in-process tracking-request processor when new work is accepted.
    pub wake: Arc<tokio::sync::Notify>,
    /// Configured upstreams (carriers, terminals), for on-demand refresh and source health.
    pub upstreams: Arc<boxtrack_sources::upstream::Upstreams>,
}

impl AppState {
    /// State with fresh metrics.
    pub fn new(db: Db, config: ApiConfig, limiter: Limiter) -> AppState {
        AppState {
            db,
            config: Arc::new(config),
            metrics: Arc::default(),
            limiter,
            wake: Arc::default(),
            upstreams: Arc::new(boxtrack_sources::upstream::Upstreams::new(
                boxtrack_sources::upstream::UpstreamConfig::default(),
            )),
        }
    }

    /// Uses these upstreams.
    pub fn with_upstreams(
        mut self,
        upstreams: Arc<boxtrack_sources::upstream::Upstreams>,
    ) -> AppState {
        self.upstreams = upstreams;
        self
    }
}

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
    use axum::routing::patch;
    use routes::{account, api_keys, containers, docs, health, shipments, tracking_requests};
    let authenticated = Router::new()
        .route("/v2/account", get(account::show))
        .route("/v2/api_keys", get(api_keys::list).post(api_keys::create))
        .route(
            "/v2/api_keys/{id}",
            get(api_keys::show).delete(api_keys::revoke),
        )
        .route(
            "/v2/tracking_requests",
            get(tracking_requests::list).post(tracking_requests::create),
        )
        .route(
            "/v2/tracking_requests/infer_number",
            axum::routing::post(tracking_requests::infer_number),
        )
        .route(
            "/v2/tracking_requests/{id}",
            get(tracking_requests::show).patch(tracking_requests::update),
        )
        .route("/v2/shipments", get(shipments::list))
        .route(
            "/v2/shipments/{id}",
            get(shipments::show).patch(shipments::update),
        )
        .route("/v2/shipments/{id}/stop_tracking", patch(shipments::stop))
        .route(
            "/v2/shipments/{id}/resume_tracking",
            patch(shipments::resume),
        )
        .route("/v2/containers", get(containers::list))
        .route(
            "/v2/containers/{id}",
            get(containers::show).patch(containers::update),
        )
        .route(
            "/v2/containers/{id}/transport_events",
            get(containers::events),
        )
        .route(
            "/v2/containers/{id}/map_geojson",
            get(containers::map_geojson),
        )
        .route(
            "/v2/containers/{id}/raw_events",
            get(containers::raw_events),
        )
        .route("/v2/sandbox/scenarios", get(routes::sandbox::list))
        .route("/v2/shipping_lines", get(routes::reference::lines))
        .route("/v2/shipping_lines/{id}", get(routes::reference::line))
        .route("/v2/ports/{id}", get(routes::reference::port))
        .route("/v2/terminals/{id}", get(routes::reference::terminal))
        .route("/v2/metro_areas/{id}", get(routes::reference::metro))
        .route("/v2/vessels/{id}", get(routes::reference::vessel))
        .route(
            "/v2/vessels/{id}/future_positions",
            get(routes::reference::future_positions),
        )
        .route(
            "/v2/vessels/{id}/future_positions_with_coordinates",
            get(routes::reference::future_positions_with_coordinates),
        )
        .route("/v2/search", get(routes::search::search))
        .route("/v2/ingest/x12", axum::routing::post(routes::ingest::x12))
        .route("/v2/containers/{id}/refresh", patch(containers::refresh))
        .route("/v2/sources", get(routes::sources::list))
        .route("/v2/events", get(routes::events::feed))
        .route(
            "/v2/webhook_notifications",
            get(routes::notifications::list),
        )
        .route(
            "/v2/webhook_notifications/examples",
            get(routes::notifications::examples),
        )
        .route(
            "/v2/webhook_notifications/{id}",
            get(routes::notifications::show),
        )
        .route(
            "/v2/webhooks",
            get(routes::webhooks::list).post(routes::webhooks::create),
        )
        .route("/v2/webhooks/events", get(routes::webhooks::events))
        .route("/v2/webhooks/ips", get(routes::webhooks::ips))
        .route(
            "/v2/webhooks/trigger",
            axum::routing::post(routes::webhooks::trigger),
        )
        .route(
            "/v2/webhooks/{id}/replay",
            axum::routing::post(routes::webhooks::replay),
        )
        .route(
            "/v2/webhooks/{id}",
            get(routes::webhooks::show)
                .patch(routes::webhooks::update)
                .delete(routes::webhooks::delete),
        )
        .route(
            "/rails/active_storage/direct_uploads",
            axum::routing::post(routes::documents::announce),
        )
        .route(
            "/v2/documents",
            get(routes::documents::list).post(routes::documents::create),
        )
        .route("/v2/documents/types", get(routes::documents::types))
        .route(
            "/v2/email_submissions",
            get(routes::email_submissions::list)
                .post(routes::email_submissions::create)
                .layer(axum::extract::DefaultBodyLimit::max(
                    routes::email_submissions::MAX_MESSAGE_BYTES,
                )),
        )
        .route(
            "/v2/email_submissions/{id}",
            get(routes::email_submissions::show),
        )
        .route(
            "/v2/custom_field_definitions",
            get(routes::custom_fields::list_definitions)
                .post(routes::custom_fields::create_definition),
        )
        .route(
            "/v2/custom_field_definitions/{id}",
            get(routes::custom_fields::show_definition)
                .patch(routes::custom_fields::update_definition)
                .delete(routes::custom_fields::delete_definition),
        )
        .route(
            "/v2/custom_field_definitions/{id}/options",
            get(routes::custom_fields::list_options).post(routes::custom_fields::create_option),
        )
        .route(
            "/v2/custom_field_definitions/{id}/options/{option_id}",
            get(routes::custom_fields::show_option)
                .patch(routes::custom_fields::update_option)
                .delete(routes::custom_fields::delete_option),
        )
        .route(
            "/v2/custom_fields",
            get(routes::custom_fields::list_fields).post(routes::custom_fields::create_field),
        )
        .route(
            "/v2/custom_fields/{id}",
            get(routes::custom_fields::show_field)
                .patch(routes::custom_fields::update_field)
                .delete(routes::custom_fields::delete_field),
        )
        .route(
            "/v2/shipments/{id}/custom_fields",
            get(routes::custom_fields::nested_list::<0>)
                .post(routes::custom_fields::nested_create::<0>),
        )
        .route(
            "/v2/shipments/{id}/custom_fields/{api_slug}",
            patch(routes::custom_fields::nested_update::<0>)
                .delete(routes::custom_fields::nested_delete::<0>),
        )
        .route(
            "/v2/containers/{id}/custom_fields",
            get(routes::custom_fields::nested_list::<1>)
                .post(routes::custom_fields::nested_create::<1>),
        )
        .route(
            "/v2/containers/{id}/custom_fields/{api_slug}",
            patch(routes::custom_fields::nested_update::<1>)
                .delete(routes::custom_fields::nested_delete::<1>),
        )
        .route(
            "/v2/tracking_requests/{id}/custom_fields",
            get(routes::custom_fields::nested_list::<2>)
                .post(routes::custom_fields::nested_create::<2>),
        )
        .route(
            "/v2/tracking_requests/{id}/custom_fields/{api_slug}",
            patch(routes::custom_fields::nested_update::<2>)
                .delete(routes::custom_fields::nested_delete::<2>),
        )
        .route(
            "/v2/parties",
            get(routes::parties::list).post(routes::parties::create),
        )
        .route(
            "/v2/parties/{id}",
            get(routes::parties::show).patch(routes::parties::update),
        )
        .route(
            "/v2/documents/{id}",
            get(routes::documents::show)
                .patch(routes::documents::update)
                .delete(routes::documents::delete),
        )
        .route(
            "/v2/documents/{id}/reclassify",
            axum::routing::post(routes::documents::reclassify),
        )
        .route(
            "/v2/documents/{id}/relink",
            axum::routing::post(routes::documents::relink),
        )
        .route(
            "/v2/documents/{id}/download_url",
            get(routes::documents::download_url),
        )
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::guard,
        ));
    let request_id = HeaderName::from_static("x-request-id");
    let timeout = state.config.request_timeout;
    Router::new()
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(health::metrics))
        .route("/docs", get(docs::page))
        .route("/v2/openapi.json", get(docs::openapi_json))
        .route("/v2/ingest/dcsa", axum::routing::post(routes::ingest::dcsa))
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
        // the URL is the credential of these two (as a presigned storage URL is)
        .route(
            "/v2/uploads/{token}",
            axum::routing::put(routes::documents::upload).layer(
                axum::extract::DefaultBodyLimit::max(
                    usize::try_from(boxtrack_core::documents::MAX_BYTES).unwrap_or(usize::MAX),
                ),
            ),
        )
        .route("/v2/downloads/{token}", get(routes::documents::download))
        .route(
            "/mcp",
            axum::routing::post(mcp::post)
                .get(mcp::not_allowed)
                .delete(mcp::not_allowed),
        )
        .merge(authenticated)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(state.clone(), metrics::track))
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
