//! [`Ctx`]: what every use case runs on — the database and its read replicas, the clock,
//! the upstreams, the wake-ups of the in-process worker, the change feed that retires cached
//! reads, where document bytes live, and the operator's policy. The binary builds one per
//! process (tests build their own); each front end holds it and hands it to `app`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use boxtrack_sources::upstream::{UpstreamConfig, Upstreams};
use boxtrack_store::Db;
use boxtrack_store::changes::Changes;
use boxtrack_store::files::{FileStore, InDatabase};
use boxtrack_store::replicas::Replicas;
use boxtrack_views::tracking;
use boxtrack_worker::delivery;
use serde_json::Value;
use tokio::sync::Notify;
use uuid::Uuid;

use crate::error::AppError;

/// Where the example notification of an event comes from: a sandbox journey's live
/// notification, recorded by playing every journey (the REST service records them through
/// itself and puts its recorder in the [`Ctx`]).
pub trait Examples: Send + Sync {
    /// The example envelope of `event`, or `None` when no journey produces it.
    fn notification<'a>(
        &'a self,
        event: &'a str,
    ) -> Pin<Box<dyn Future<Output = Result<Option<Value>, AppError>> + Send + 'a>>;
}

/// The operator's settings that decide what a use case allows or says.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Allow `http://` and internal (loopback, private, link-local) webhook URLs — for tests and
    /// local receivers only.
    pub allow_private_webhook_urls: bool,
    /// The header that carries the hex signature of webhook bodies.
    pub webhook_signature_header: String,
    /// The addresses webhook deliveries leave from, as the operator configured them
    /// (`GET /v2/webhooks/ips`).
    pub webhook_source_ips: Vec<String>,
    /// Simulated seconds per real second of sandbox journeys (their clock: a sandbox
    /// container's "days left" counts from its virtual now).
    pub sandbox_speed: f64,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            allow_private_webhook_urls: false,
            webhook_signature_header: delivery::SIGNATURE_HEADER.to_string(),
            webhook_source_ips: Vec::new(),
            sandbox_speed: 3600.0,
        }
    }
}

/// The context of every use case: cheap to clone (one reference count).
#[derive(Clone)]
pub struct Ctx(Arc<Parts>);

impl std::ops::Deref for Ctx {
    type Target = Parts;

    fn deref(&self) -> &Parts {
        &self.0
    }
}

/// What a [`Ctx`] holds.
#[derive(Clone)]
pub struct Parts {
    /// The database (the primary).
    pub db: Db,
    /// Read replicas of a PostgreSQL primary, read through [`Ctx::read_db`]; `None`: every read
    /// goes to `db`.
    pub replicas: Option<Arc<Replicas>>,
    /// A fixed "now" (Unix microseconds) for answers that depend on the time, set by tests that
    /// compare answers with recorded ones; `None`: the wall clock.
    pub fixed_now_us: Option<i64>,
    /// Configured upstreams (carriers, terminals), for on-demand refresh and source health.
    pub upstreams: Arc<Upstreams>,
    /// Wakes the in-process tracking-request processor when new work is accepted.
    pub wake: Arc<Notify>,
    /// The change feed: a write through a use case touches the account, which retires the
    /// reads a front end cached for it (other processes hear of it from the database).
    pub changes: Changes,
    /// Where the bytes of documents live (the database unless an object store is configured).
    pub files: Arc<dyn FileStore>,
    /// The operator's policy.
    pub policy: Policy,
    /// Where sample webhook notifications come from (the REST service's recorded journeys);
    /// `None`: every sample is a plain one naming its event.
    pub examples: Option<Arc<dyn Examples>>,
}

impl Ctx {
    /// A context on `db` with the default policy, no upstreams, no replicas and the wall
    /// clock; the change feed is started on `db`.
    pub fn new(db: Db) -> Ctx {
        // containers are shown from their states as the merge rendered them, and the merges
        // this process runs (ingest, sandbox, refresh) write them
        tracking::install_renderer();
        let changes = Changes::start(&db);
        Ctx(Arc::new(Parts {
            db,
            replicas: None,
            fixed_now_us: None,
            upstreams: Arc::new(Upstreams::new(UpstreamConfig::default())),
            wake: Arc::default(),
            changes,
            files: Arc::new(InDatabase),
            policy: Policy::default(),
            examples: None,
        }))
    }

    /// The context to change while the process is being put together (or a test fixes the
    /// clock): a copy when another holder shares this one.
    pub fn edit(&mut self) -> &mut Parts {
        Arc::make_mut(&mut self.0)
    }

    /// With a fixed "now" (Unix microseconds) for answers that depend on the time.
    pub fn with_fixed_now(mut self, now_us: i64) -> Ctx {
        self.edit().fixed_now_us = Some(now_us);
        self
    }

    /// With this policy.
    pub fn with_policy(mut self, policy: Policy) -> Ctx {
        self.edit().policy = policy;
        self
    }

    /// With these upstreams.
    pub fn with_upstreams(mut self, upstreams: Arc<Upstreams>) -> Ctx {
        self.edit().upstreams = upstreams;
        self
    }

    /// Reads lists and searches from these replicas (none when `replicas` is empty).
    pub fn with_replicas(mut self, replicas: Arc<Replicas>) -> Ctx {
        self.edit().replicas = (!replicas.is_empty()).then_some(replicas);
        self
    }

    /// Keeps the bytes of documents in `files`.
    pub fn with_files(mut self, files: Arc<dyn FileStore>) -> Ctx {
        self.edit().files = files;
        self
    }

    /// Wakes this processor when new work is accepted.
    pub fn with_wake(mut self, wake: Arc<Notify>) -> Ctx {
        self.edit().wake = wake;
        self
    }

    /// The wall clock's "now", or the fixed one.
    pub fn now_us(&self) -> i64 {
        self.fixed_now_us.unwrap_or_else(boxtrack_store::now_us)
    }

    /// The database a read for `account` that may be as old as a replica's lag goes to (a
    /// list, a search, a console table): a replica that has replayed the account's last write
    /// through this process, else the primary. Reads of one resource by id stay on `db`.
    pub fn read_db(&self, account: Uuid) -> &Db {
        match &self.replicas {
            Some(r) => r.reader(account),
            None => &self.db,
        }
    }
}
