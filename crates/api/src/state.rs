//! What every REST handler can reach: the front ends' [`Front`] (the application's context,
//! the edge's settings, metrics, rate limiter and key cache) and the REST service's own parts
//! (the read cache, the served OpenAPI document, the access sink, the database gate).

use std::sync::Arc;

use boxtrack_app::ctx::Ctx;
use boxtrack_app::model::{Account, Db};
use boxtrack_http::access::AccessSink;
use boxtrack_http::dbgate::DbGate;
use boxtrack_http::doc;
use boxtrack_http::error::ApiResult;
use boxtrack_http::front::{ApiConfig, Front, FrontParts};
use boxtrack_http::jsonapi::{self, JsonApi};
use boxtrack_http::limiter::Limiter;

use crate::querynames::QueryNames;
use crate::readcache::ReadCache;

/// Everything a REST handler can reach.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// What every request shares: the front ends' parts, the REST service's caches and the
/// process-wide state. [`AppState`] holds it behind one `Arc`, so that handing the state to a
/// layer or a handler (which axum does for every request, once per layer) is one reference
/// count, not a copy of every member.
#[derive(Clone)]
pub struct Shared {
    /// What the console and MCP reach too (the context, settings, metrics, limits, keys).
    pub front: Front,
    /// The served OpenAPI document (set when the router is built; `crate::openapi`
    /// assembles it from the route modules' operations).
    pub openapi: Arc<serde_json::Value>,
    /// Where access lines go when not through `tracing` (the binary's log writer).
    pub access_sink: Option<Arc<dyn AccessSink>>,
    /// The query parameters of each operation of `openapi` (set with it).
    pub query_names: Arc<QueryNames>,
    /// Rendered reads (single resources and lists), and the change feed that retires them.
    pub reads: Arc<ReadCache>,
    /// Set when the process is shutting down: `/readyz` answers 503 so that a load balancer
    /// stops sending new requests while those in flight finish.
    pub draining: Arc<std::sync::atomic::AtomicBool>,
    /// Closed while the database cannot be reached: REST requests are then answered 503 at
    /// once (`boxtrack_http::dbgate`).
    pub db_gate: Arc<DbGate>,
    /// Builds the REST router (the crate root's `router`, set by `service`): the examples'
    /// tour calls the API through it without importing the crate root (the module graph
    /// stays without loops). `None`: no tour, the document keeps no operation examples.
    pub rest_router: Option<fn(AppState) -> axum::Router>,
}

impl std::ops::Deref for Shared {
    type Target = FrontParts;

    fn deref(&self) -> &FrontParts {
        &self.front
    }
}

impl AppState {
    /// The REST service on `ctx`, with fresh metrics and an empty read cache.
    pub fn new(ctx: Ctx, config: ApiConfig, limiter: Limiter) -> AppState {
        let reads = ReadCache::new(ctx.changes.clone(), config.read_cache_bytes);
        AppState(Arc::new(Shared {
            front: Front::new(ctx, config, limiter),
            reads: Arc::new(reads),
            openapi: Arc::default(),
            query_names: Arc::default(),
            access_sink: None,
            draining: Arc::default(),
            db_gate: Arc::default(),
            rest_router: None,
        }))
    }

    /// The shared state to change while the service is being put together (or a test
    /// fixes the clock): a copy when a request already holds this one.
    pub fn edit(&mut self) -> &mut Shared {
        Arc::make_mut(&mut self.0)
    }

    /// Answers a list read through the read cache: the body stored for this account, base
    /// address, path and query while nothing of the account has changed, else rendered by
    /// `render` from the database it is given and stored. With read replicas, a page's first
    /// read is rendered from [`Ctx::read_db`] (a replica, unless the account's own writes
    /// keep it on the primary) and not stored; a page read again is rendered from the primary
    /// and stored (see [`crate::readcache::ReadCache::respond_offloading`]).
    pub async fn cached_list<'s, F, Fut>(
        &'s self,
        account: &Account,
        headers: &axum::http::HeaderMap,
        uri: &axum::http::Uri,
        render: F,
    ) -> ApiResult<axum::response::Response>
    where
        F: FnOnce(&'s Db) -> Fut,
        Fut: Future<Output = ApiResult<JsonApi>>,
    {
        // the links name the base address: it is part of what the body is rendered from
        let base = jsonapi::base_url(self.config.public_url.as_deref(), headers);
        let path = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
        self.reads
            .respond_offloading(
                account,
                &format!("{base}{path}"),
                self.ctx.replicas.is_some(),
                // boxed: a list's render (its reads, counts and includes) has a large
                // future, which inline would make every list handler's future as large,
                // copied whole each time axum moves it into place
                |offload| {
                    Box::pin(render(if offload {
                        self.ctx.read_db(account.id)
                    } else {
                        &self.ctx.db
                    }))
                },
            )
            .await
    }

    /// Writes access lines through `sink` rather than as `tracing` events
    /// ([`boxtrack_http::access`]).
    pub fn with_access_sink(mut self, sink: Arc<dyn AccessSink>) -> AppState {
        self.edit().access_sink = Some(sink);
        self
    }
}

/// A REST route module's routes (on [`AppState`]).
pub type Routes = doc::Routes<AppState>;
