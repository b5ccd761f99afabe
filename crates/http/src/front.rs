//! [`Front`]: what every front end's handler can reach — the application's [`Ctx`] and the
//! edge's own parts (its settings, metrics, rate limiter and the cache of API keys).

use std::sync::Arc;
use std::time::Duration;

use boxtrack_app::ctx::Ctx;

use crate::keycache::KeyCache;
use crate::limiter::Limiter;
use crate::metrics::Metrics;

/// Bytes of rendered reads the REST service keeps by default (`--read-cache-mib`).
pub const DEFAULT_READ_CACHE_BYTES: usize = 128 << 20;

/// Settings of the HTTP edge.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// Absolute base address used in links (e.g. `https://track.example.com`); when unset the
    /// request's `Host` header is used with `http://`.
    pub public_url: Option<String>,
    /// Longest time a request may take before it is answered 503.
    pub request_timeout: Duration,
    /// Base64 secret of DCSA push subscriptions (`POST /v2/ingest/dcsa`); none: push is off.
    pub dcsa_push_secret: Option<String>,
    /// Origins (scheme://host[:port]) besides loopback and `public_url` whose browsers may call
    /// `/mcp`.
    pub mcp_allowed_origins: Vec<String>,
    /// Test mode for MCP conformance suites, which cannot send credentials: `/mcp` requests
    /// without `Authorization` act for this account. Only accepted on a loopback listener.
    pub mcp_open_account: Option<uuid::Uuid>,
    /// Bytes of rendered single-resource reads the process keeps (`--read-cache-mib`; 0: none).
    pub read_cache_bytes: usize,
}

impl Default for ApiConfig {
    fn default() -> Self {
        ApiConfig {
            public_url: None,
            request_timeout: Duration::from_secs(30),
            dcsa_push_secret: None,
            mcp_allowed_origins: Vec::new(),
            mcp_open_account: None,
            read_cache_bytes: DEFAULT_READ_CACHE_BYTES,
        }
    }
}

/// What every front end's handler can reach: cheap to clone (one reference count).
#[derive(Clone)]
pub struct Front(Arc<FrontParts>);

/// A front end's routes (the console's, MCP's) on [`Front`], with their operations' documentation:
/// what it hands the service that mounts it.
pub type Mount = crate::doc::Routes<Front>;

impl std::ops::Deref for Front {
    type Target = FrontParts;

    fn deref(&self) -> &FrontParts {
        &self.0
    }
}

/// What a [`Front`] holds.
#[derive(Clone)]
pub struct FrontParts {
    /// The application's context: every use case runs on it.
    pub ctx: Ctx,
    /// Edge settings.
    pub config: Arc<ApiConfig>,
    /// Metrics of this process.
    pub metrics: Arc<Metrics>,
    /// Rate-limit state.
    pub limiter: Limiter,
    /// API keys this process authenticated in the last second.
    pub keys: Arc<KeyCache>,
}

impl Front {
    /// The edge on `ctx` with fresh metrics and an empty key cache.
    pub fn new(ctx: Ctx, config: ApiConfig, limiter: Limiter) -> Front {
        Front(Arc::new(FrontParts {
            ctx,
            config: Arc::new(config),
            metrics: Arc::default(),
            limiter,
            keys: Arc::default(),
        }))
    }

    /// The parts to change while the service is being put together (or a test fixes the
    /// clock): a copy when another holder shares them.
    pub fn edit(&mut self) -> &mut FrontParts {
        Arc::make_mut(&mut self.0)
    }
}
