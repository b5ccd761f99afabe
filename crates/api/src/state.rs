//! What every handler can reach: the database, the edge's settings, metrics, the rate
//! limiter, the upstreams and the served OpenAPI document.

use std::sync::Arc;
use std::time::Duration;

use boxtrack_store::Db;

use crate::limiter::Limiter;
use crate::metrics::Metrics;

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
    /// Bytes of rendered single-resource reads the process keeps (`--read-cache-mib`; 0: none).
    pub read_cache_bytes: usize,
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
            read_cache_bytes: crate::readcache::DEFAULT_BUDGET,
        }
    }
}

/// Everything a handler can reach.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// What every request shares: the database, the settings, the caches and the process-wide
/// state. [`AppState`] holds it behind one `Arc`, so that handing the state to a layer or a
/// handler (which axum does for every request, once per layer) is one reference count, not a
/// copy of every member.
#[derive(Clone)]
pub struct Shared {
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
    /// The served OpenAPI document (set when the router is built; `crate::openapi`
    /// assembles it from the route modules' operations).
    pub openapi: Arc<serde_json::Value>,
    /// Where access lines go when not through `tracing` (the binary's log writer).
    pub access_sink: Option<Arc<dyn crate::access::AccessSink>>,
    /// The query parameters of each operation of `openapi` (set with it).
    pub query_names: Arc<crate::querynames::QueryNames>,
    /// API keys this process authenticated in the last second.
    pub keys: Arc<crate::keycache::KeyCache>,
    /// Rendered reads (single resources and lists), and the change feed that retires them.
    pub reads: Arc<crate::readcache::ReadCache>,
    /// A fixed "now" (Unix microseconds of the wall clock) for answers that depend on the
    /// time, such as the MCP tools' days until the last free day: set by tests that compare
    /// answers with recorded ones; `None` (the wall clock) everywhere else.
    pub fixed_now_us: Option<i64>,
    /// Set when the process is shutting down: `/readyz` answers 503 so that a load balancer
    /// stops sending new requests while those in flight finish.
    pub draining: Arc<std::sync::atomic::AtomicBool>,
    /// Where the bytes of documents live (the database unless `document_store` names an
    /// object store).
    pub files: Arc<dyn boxtrack_store::files::FileStore>,
    /// Closed while the database cannot be reached: REST requests are then answered 503 at
    /// once (`crate::dbgate`).
    pub db_gate: Arc<crate::dbgate::DbGate>,
    /// Builds the REST router (the crate root's `router`, set by `service`): the examples'
    /// tour calls the API through it without importing the crate root (the module graph
    /// stays without loops). `None`: no tour, the document keeps no operation examples.
    pub rest_router: Option<fn(AppState) -> axum::Router>,
    /// Read replicas of a PostgreSQL primary (`database_replica_urls`), read through
    /// [`AppState::read_db`]; `None`: every read goes to `db`.
    pub replicas: Option<Arc<boxtrack_store::replicas::Replicas>>,
}

impl AppState {
    /// State with fresh metrics.
    pub fn new(db: Db, config: ApiConfig, limiter: Limiter) -> AppState {
        // containers are shown from their states as the merge rendered them, and the merges
        // this process runs (ingest, sandbox, refresh) write them
        boxtrack_views::tracking::install_state_view();
        let reads = crate::readcache::ReadCache::new(
            boxtrack_store::changes::Changes::start(&db),
            config.read_cache_bytes,
        );
        AppState(Arc::new(Shared {
            db,
            reads: Arc::new(reads),
            config: Arc::new(config),
            metrics: Arc::default(),
            limiter,
            wake: Arc::default(),
            upstreams: Arc::new(boxtrack_sources::upstream::Upstreams::new(
                boxtrack_sources::upstream::UpstreamConfig::default(),
            )),
            openapi: Arc::default(),
            query_names: Arc::default(),
            access_sink: None,
            keys: Arc::default(),
            fixed_now_us: None,
            draining: Arc::default(),
            files: Arc::new(boxtrack_store::files::InDatabase),
            db_gate: Arc::default(),
            rest_router: None,
            replicas: None,
        }))
    }

    /// The wall clock's "now", or the fixed one.
    pub fn now_us(&self) -> i64 {
        self.fixed_now_us.unwrap_or_else(boxtrack_store::now_us)
    }

    /// The shared state to change while the service is being put together (or a test
    /// fixes the clock): a copy when a request already holds this one.
    pub fn edit(&mut self) -> &mut Shared {
        Arc::make_mut(&mut self.0)
    }

    /// The database a read for `account` that may be as old as a replica's lag goes to (a
    /// list, a search, a console table): a replica in use that has replayed the account's
    /// last write through this process, else the primary. Reads of one resource by id stay on
    /// `db`.
    pub fn read_db(&self, account: uuid::Uuid) -> &Db {
        match &self.replicas {
            Some(r) => r.reader(account),
            None => &self.db,
        }
    }

    /// Answers a list read through the read cache: the body stored for this account, base
    /// address, path and query while nothing of the account has changed, else rendered by
    /// `render` from the database it is given and stored. With read replicas, a page's first
    /// read is rendered from [`AppState::read_db`] (a replica, unless the account's own writes
    /// keep it on the primary) and not stored; a page read again is rendered from the primary
    /// and stored (see [`crate::readcache::ReadCache::respond_offloading`]).
    pub async fn cached_list<'s, F, Fut>(
        &'s self,
        account: &boxtrack_store::accounts::Account,
        headers: &axum::http::HeaderMap,
        uri: &axum::http::Uri,
        render: F,
    ) -> crate::error::ApiResult<axum::response::Response>
    where
        F: FnOnce(&'s Db) -> Fut,
        Fut: Future<Output = crate::error::ApiResult<crate::jsonapi::JsonApi>>,
    {
        // the links name the base address: it is part of what the body is rendered from
        let base = crate::jsonapi::base_url(self.config.public_url.as_deref(), headers);
        let path = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
        self.reads
            .respond_offloading(
                account,
                &format!("{base}{path}"),
                self.replicas.is_some(),
                // boxed: a list's render (its reads, counts and includes) has a large
                // future, which inline would make every list handler's future as large,
                // copied whole each time axum moves it into place
                |offload| {
                    Box::pin(render(if offload {
                        self.read_db(account.id)
                    } else {
                        &self.db
                    }))
                },
            )
            .await
    }

    /// Reads lists and searches from these replicas (none when `replicas` is empty).
    pub fn with_replicas(mut self, replicas: Arc<boxtrack_store::replicas::Replicas>) -> AppState {
        self.edit().replicas = (!replicas.is_empty()).then_some(replicas);
        self
    }

    /// Keeps the bytes of documents in `files`.
    pub fn with_files(mut self, files: Arc<dyn boxtrack_store::files::FileStore>) -> AppState {
        self.edit().files = files;
        self
    }

    /// Writes access lines through `sink` rather than as `tracing` events
    /// ([`crate::access`]).
    pub fn with_access_sink(mut self, sink: Arc<dyn crate::access::AccessSink>) -> AppState {
        self.edit().access_sink = Some(sink);
        self
    }

    /// Uses these upstreams.
    pub fn with_upstreams(
        mut self,
        upstreams: Arc<boxtrack_sources::upstream::Upstreams>,
    ) -> AppState {
        self.edit().upstreams = upstreams;
        self
    }
}
