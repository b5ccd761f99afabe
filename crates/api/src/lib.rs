//! The boxtrack HTTP edge: the `/v2` JSON:API, operations endpoints, authentication, rate
//! limits, metrics and the served OpenAPI document.
//!
//! [`router`] builds the whole application; [`serve`] runs it on a listener until a
//! cancellation token fires, so tests can start it on port 0.

#![recursion_limit = "256"]

pub mod examples;
mod guard;
pub mod listen;
mod middleware;
pub mod openapi;
mod querynames;
pub mod readcache;
mod rendered;
pub mod rest;
mod routes;
pub mod state;

use boxtrack_http::{ApiError, access, doc};

use axum::Router;
use axum::http::StatusCode;
use axum::response::Response;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

pub use boxtrack_http::{ApiConfig, Front, Limiter};
pub use querynames::QueryNames;
pub use state::AppState;

async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "No such endpoint; see /docs for the API reference.",
    )
}

async fn method_not_allowed(req: axum::extract::Request) -> ApiError {
    // the path matched a route: its access line and count name the route
    access::note_route(req.extensions());
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "This endpoint does not accept that method; see /docs.",
    )
}

/// A part of the service that lives in another crate (MCP and OAuth, a web console): its
/// routes, on the front ends' state, and the documentation of its operations, which join the
/// served document.
pub use boxtrack_http::front::Mount;

/// The routes of a process that serves no API (a worker): health, readiness and metrics.
pub fn operations_router(state: AppState) -> Router {
    use axum::routing::get;
    use routes::health;
    Router::new()
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(health::metrics))
        .with_state(state)
}

/// What the fuzz tests reach of the REST service without a server.
pub mod fuzzing {
    use crate::routes::{api_keys, containers, documents, parties, tracking_requests, webhooks};
    use boxtrack_http::jsonapi::parse_body;

    /// Reads `body` as each JSON:API request body the service takes (every one must refuse
    /// what it cannot read, never panic).
    pub fn request_bodies(body: &[u8]) {
        let _ = parse_body::<tracking_requests::CreateDoc>(body);
        let _ = parse_body::<tracking_requests::PatchDoc>(body);
        let _ = parse_body::<webhooks::WebhookDoc>(body);
        let _ = parse_body::<parties::PartyDoc>(body);
        let _ = parse_body::<api_keys::CreateDoc>(body);
        let _ = parse_body::<documents::CreateDoc>(body);
        let _ = parse_body::<containers::BulkDoc>(body);
        let _ = parse_body::<serde_json::Value>(body);
    }
}

/// The REST service alone (no mounts).
pub fn router(state: AppState) -> App {
    service(state, Vec::new())
}

/// The REST service alone as a `Router` (the examples' tour calls it in process, through
/// `AppState::rest_router`).
fn rest_router(state: AppState) -> Router {
    Router::new().fallback_service(router(state))
}

/// The whole service: the REST routes and the mounted parts, behind the process-wide work
/// (request ids, tracing with credentials redacted, metrics and the access log, timeout, panic
/// handling).
pub fn service(state: AppState, mounts: Vec<Mount>) -> App {
    let extra: Vec<doc::Op> = mounts.iter().flat_map(doc::Routes::operations).collect();
    let mut state = state;
    let document = openapi::for_settings(
        openapi::document_with(extra),
        state.ctx.policy.allow_private_webhook_urls,
    );
    let shared = state.edit();
    shared.query_names = std::sync::Arc::new(querynames::QueryNames::of(&document));
    shared.openapi = std::sync::Arc::new(document);
    shared.rest_router = Some(rest_router);
    // sample notifications (the console's test button too) are the journeys' recorded ones
    shared.front.edit().ctx.edit().examples =
        Some(std::sync::Arc::new(examples::Recorder(Some(rest_router))));
    let mut parts = rest::parts();
    parts.extend(
        mounts
            .into_iter()
            .map(|m| m.with_state(state.front.clone())),
    );
    let routes = rest::join(&state, parts)
        .route_layer(middleware::RequestShapeLayer(state.clone()))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state.clone());
    App::around(state, routes)
}

/// The whole service as the listener serves it: the process-wide work (credentials marked
/// sensitive, the request id, counting and the access log, the database gate, the deadline,
/// a panicking handler's 500) around the router, as one service. (As layers of the `Router`
/// they were laid on every route, each boxing the route once more: a clone of a boxed
/// service and a boxed future more a request, BENCHMARKS.md "One service around the
/// router".)
#[derive(Clone)]
pub struct App(middleware::Edge<Router>);

impl App {
    /// `routes` (its state given) behind the process-wide work on `state`.
    pub fn around(state: AppState, routes: Router) -> App {
        use tower::Layer;
        App(middleware::EdgeLayer(state).layer(routes))
    }
}

impl tower::Service<axum::extract::Request> for App {
    type Response = Response;
    type Error = std::convert::Infallible;
    type Future = middleware::EdgeFuture;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, req: axum::extract::Request) -> Self::Future {
        self.0.call(req)
    }
}

/// Serves `app` (from [`router`] or [`service`]) on `listener` until `shutdown` is cancelled,
/// then finishes the requests in flight; connections get the default limits of
/// [`listen::Connections`] (see [`listen::serve_with`]).
pub async fn serve<S>(
    listener: TcpListener,
    app: S,
    shutdown: CancellationToken,
) -> std::io::Result<()>
where
    S: listen::Served,
{
    listen::serve_with(listener, app, shutdown, listen::Connections::default()).await
}
