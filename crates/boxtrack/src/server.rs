//! `serve` and `demo`: open the database, build the application state, listen, and stop
//! cleanly on Ctrl-C or SIGTERM. `demo` is in [`demo`].

mod demo;

pub use demo::demo;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use boxtrack_api::{ApiConfig, AppState, Limiter};
use boxtrack_app::ctx::{Ctx, Policy};
use boxtrack_store::{Backend, Db};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::config::{RateLimitStore, Settings};

/// Connects and applies migrations.
pub async fn open_db(url: &str) -> anyhow::Result<Db> {
    open_pool(url, None, std::time::Duration::from_secs(10)).await
}

/// Connects with the pool the settings ask for (`database_pool_size`,
/// `database_acquire_timeout_secs`) and applies migrations: what `serve`, `demo` and `mcp` use.
pub async fn open_configured_db(s: &Settings) -> anyhow::Result<Db> {
    open_pool(
        &s.database_url,
        s.database_pool_size,
        s.database_acquire_timeout,
    )
    .await
}

/// Connects with a pool of at most `size` connections (`None`: the backend's default) that a
/// request waits `acquire` for, and applies migrations.
async fn open_pool(
    url: &str,
    size: Option<u32>,
    acquire: std::time::Duration,
) -> anyhow::Result<Db> {
    let shown = boxtrack_store::db::redact_url(url);
    let db = Db::connect_pool(url, size, acquire)
        .await
        .with_context(|| format!("cannot open database {shown}"))?;
    db.migrate()
        .await
        .with_context(|| format!("cannot migrate database {shown}"))?;
    Ok(db)
}

/// `migrate --status`: every migration this build knows, applied or pending; changes nothing.
pub async fn migration_status(url: &str) -> anyhow::Result<()> {
    let shown = boxtrack_store::db::redact_url(url);
    let db = Db::connect(url)
        .await
        .with_context(|| format!("cannot open database {shown}"))?;
    let list = db.migration_status().await?;
    db.close().await;
    let pending = list.iter().filter(|(_, _, applied)| !applied).count();
    let newer = list
        .iter()
        .filter(|(_, d, _)| d == boxtrack_store::db::UNKNOWN_MIGRATION)
        .count();
    for (version, description, applied) in &list {
        println!(
            "{version:>4}  {:<8}  {description}",
            if *applied { "applied" } else { "pending" }
        );
    }
    if newer > 0 {
        anyhow::bail!(
            "{shown}: {newer} migration(s) were applied by a newer boxtrack; this binary ({VERSION}) cannot serve this database: run the newer binary, or restore a backup taken before the upgrade"
        );
    }
    println!(
        "{shown}: {} of {} applied, {pending} pending{}",
        list.len() - pending,
        list.len(),
        if pending > 0 {
            " (boxtrack migrate or serve applies them; back up first)"
        } else {
            ""
        }
    );
    Ok(())
}

/// Stops with a clear message when `url` names a SQLite file that does not exist, instead of
/// creating an empty database (administration commands that only read or change accounts and
/// keys must not leave a stray `./data/boxtrack.db` behind). PostgreSQL URLs pass.
pub fn require_existing(url: &str) -> anyhow::Result<()> {
    let Some(rest) = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
    else {
        return Ok(());
    };
    let path = rest.split('?').next().unwrap_or_default();
    if path.is_empty() || path == ":memory:" || std::path::Path::new(path).exists() {
        return Ok(());
    }
    anyhow::bail!(
        "no database at {path}: nothing to show or change there (boxtrack serve, demo, migrate or accounts create make one; --database-url or BOXTRACK_DATABASE_URL points at another)"
    )
}

/// The application's context as the settings describe it: the policy, the upstreams, where
/// documents are kept.
pub fn ctx(db: Db, s: &Settings) -> anyhow::Result<Ctx> {
    Ok(Ctx::new(db)
        .with_policy(Policy {
            allow_private_webhook_urls: s.allow_private_webhook_urls,
            webhook_signature_header: s.webhook_signature_header.clone(),
            webhook_source_ips: s.webhook_source_ips.clone(),
            sandbox_speed: s.sandbox_speed,
        })
        .with_upstreams(Arc::new(boxtrack_sources::upstream::Upstreams::new(
            s.upstreams.clone(),
        )))
        .with_files(
            boxtrack_store::files::open(&s.document_store)
                .context("cannot open the document store (setting document_store)")?,
        ))
}

/// The REST service's state on `ctx`: the edge's settings and the rate limiter the settings
/// choose.
pub async fn state(ctx: Ctx, s: &Settings) -> anyhow::Result<AppState> {
    let db = ctx.db.clone();
    let limiter = match (&s.rate_limit_store, db.backend()) {
        (RateLimitStore::Memory, _) | (RateLimitStore::Auto, Backend::Sqlite) => Limiter::memory(),
        (RateLimitStore::Database, _) | (RateLimitStore::Auto, Backend::Postgres) => {
            Limiter::database(db.clone())
        }
        (RateLimitStore::Redis(url), _) => Limiter::redis(
            boxtrack_store::ratelimit_redis::RedisLimits::connect(url)
                .await
                .with_context(|| {
                    format!(
                        "cannot reach the rate-limit store at {} (setting rate_limit_store)",
                        boxtrack_store::db::redact_url(url)
                    )
                })?,
        ),
    };
    let app = AppState::new(
        ctx,
        ApiConfig {
            public_url: s.public_url.clone(),
            request_timeout: s.request_timeout,
            dcsa_push_secret: s.dcsa_push_secret.clone(),
            mcp_allowed_origins: s.mcp_allowed_origins.clone(),
            mcp_open_account: s.mcp_open_account,
            read_cache_bytes: s.read_cache_bytes,
        },
        limiter,
    );
    // access lines formatted and queued without the tracing formatter; on a terminal they
    // stay tracing events, coloured like the others
    Ok(if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        app
    } else {
        app.with_access_sink(Arc::new(crate::logwriter::AccessLines::new(
            crate::logwriter::stderr(),
            s.log_format == crate::config::LogFormat::Json,
        )))
    })
}

/// Starts the background work in this process: the tracking-request processor (with sandbox
/// playback) and the webhook deliverer. Each ends once `shutdown` is cancelled and what it
/// had started is finished (a delivery in flight is sent and recorded).
fn spawn_worker(
    app: &AppState,
    shutdown: &CancellationToken,
    s: &Settings,
) -> Vec<tokio::task::JoinHandle<()>> {
    let mut tasks = Vec::new();
    let sandbox_speed = s.sandbox_speed;
    let sources: Vec<Arc<dyn boxtrack_sources::Source>> = vec![
        Arc::new(boxtrack_sources::sandbox::Sandbox),
        Arc::new(boxtrack_sources::carrier::CarrierSource::new(
            app.ctx.upstreams.clone(),
        )),
    ];
    let processor = boxtrack_worker::Processor::new(app.ctx.db.clone(), sources)
        .with_sandbox_speed(sandbox_speed)
        .with_manifest_recheck_secs(s.manifest_recheck_secs)
        .with_early_reports(s.early_report_days, s.early_report_max)
        .with_upstreams(app.ctx.upstreams.clone());
    tasks.push(tokio::spawn(processor.run(
        shutdown.clone(),
        Duration::from_secs(1),
        app.ctx.wake.clone(),
    )));
    tasks.push(tokio::spawn(boxtrack_worker::history::run(
        app.ctx.db.clone(),
        s.retention,
        Duration::from_secs(3600),
        shutdown.clone(),
    )));
    tasks.push(tokio::spawn(charge_notices(
        app.ctx.clone(),
        shutdown.clone(),
    )));
    if let Some(stream) = &s.ais_websocket {
        tokio::spawn(boxtrack_sources::ais::stream::follow_stream(
            app.ctx.db.clone(),
            stream.clone(),
            Some(app.ctx.upstreams.clone()),
            shutdown.clone(),
        ));
    }
    if let Some(feed) = &s.ais_feed {
        tokio::spawn(boxtrack_sources::ais::follow(
            app.ctx.db.clone(),
            feed.clone(),
            Some(app.ctx.upstreams.clone()),
            shutdown.clone(),
        ));
    }
    let deliverer = boxtrack_worker::delivery::Deliverer::new(
        app.ctx.db.clone(),
        s.webhook_timeout,
        app.ctx.policy.allow_private_webhook_urls,
        s.webhook_deactivate_after,
    )
    .with_metrics(app.metrics.clone())
    .with_schedule(s.webhook_retry_schedule.clone())
    .with_signature_header(&s.webhook_signature_header);
    tasks.push(tokio::spawn(
        deliverer.run(shutdown.clone(), boxtrack_worker::delivery::POLL),
    ));
    tasks
}

/// How often the charge webhooks due are looked for: a sandbox journey's day passes in about
/// 24 s at its default speed, and a free time's notice may go on its last day or the day before.
const CHARGE_NOTICES_EVERY: Duration = Duration::from_secs(15);

/// Sends the charge webhooks due (`container.charges.*`, for accounts whose webhooks name
/// them) every [`CHARGE_NOTICES_EVERY`] until `shutdown`.
async fn charge_notices(ctx: boxtrack_app::Ctx, shutdown: CancellationToken) {
    loop {
        if let Err(e) = boxtrack_app::charges::notices::pass(&ctx, ctx.now_us()).await {
            tracing::error!(error = %e, "the charge webhooks were not looked for; will retry");
        }
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(CHARGE_NOTICES_EVERY) => {},
        }
    }
}

/// A write past the process's file-size limit (`RLIMIT_FSIZE`, `ulimit -f`, a quota) raises
/// SIGXFSZ, whose default action ends the process. Handled, the write fails instead (EFBIG),
/// the database refuses that one transaction, and its request is answered 503 like a full
/// disk while everything else goes on; each such signal is logged.
#[cfg(target_os = "linux")]
fn survive_file_size_limit() {
    const SIGXFSZ: i32 = 25;
    let kind = tokio::signal::unix::SignalKind::from_raw(SIGXFSZ);
    if let Ok(mut signals) = tokio::signal::unix::signal(kind) {
        tokio::spawn(async move {
            while signals.recv().await.is_some() {
                tracing::error!(
                    "a write went past the process's file-size limit (SIGXFSZ): the database refused it; raise the limit or make room"
                );
            }
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn survive_file_size_limit() {}

fn shutdown_on_signal() -> CancellationToken {
    let token = CancellationToken::new();
    let t = token.clone();
    tokio::spawn(async move {
        let ctrl_c = tokio::signal::ctrl_c();
        #[cfg(unix)]
        {
            let mut term =
                match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                    Ok(s) => s,
                    Err(_) => {
                        let _ = ctrl_c.await;
                        t.cancel();
                        return;
                    }
                };
            tokio::select! {
                _ = ctrl_c => {},
                _ = term.recv() => {},
            }
        }
        #[cfg(not(unix))]
        {
            let _ = ctrl_c.await;
        }
        tracing::info!("shutting down");
        t.cancel();
    });
    token
}

/// The version and the commit it was built from (`git describe`, when built in a checkout).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("BOXTRACK_COMMIT"),
    ")"
);

/// Says what was configured: the database, its schema version, the upstreams.
async fn log_start(db: &Db, s: &Settings) {
    let schema = db.schema_version().await.unwrap_or_default();
    tracing::info!(
        version = VERSION,
        role = s.role.as_str(),
        database = db.backend().as_str(),
        url = %boxtrack_store::db::redact_url(&s.database_url),
        schema_version = schema,
        document_store = %s.document_store,
        "boxtrack starting"
    );
    let u = &s.upstreams;
    if u.is_empty() {
        tracing::info!(
            "no upstreams configured: only sandbox numbers (TEST-...) track; set sim_url or [carriers.SCAC] / [terminals.CODE] in the configuration file"
        );
    } else {
        tracing::info!(
            sim = %u.sim_url.as_deref().map(boxtrack_store::db::redact_url).unwrap_or_default(),
            carriers = %u.carriers.keys().cloned().collect::<Vec<_>>().join(","),
            terminals = %u.terminals.keys().cloned().collect::<Vec<_>>().join(","),
            requests_per_sec = u.requests_per_sec,
            "upstreams configured"
        );
    }
    if let Some(feed) = &s.ais_feed {
        tracing::info!(feed = %feed, "following an AIS feed");
    }
    if let Some(stream) = &s.ais_websocket {
        // the key is not logged, nor the address's query
        let url = stream.url.split('?').next().unwrap_or_default();
        tracing::info!(feed = %url, "following a WebSocket AIS feed");
    }
}

/// How often the read replicas' health is checked.
const REPLICA_CHECK_EVERY: Duration = Duration::from_secs(1);

/// The read replicas of an API process (`database_replica_urls`; `None` without any, and in
/// a worker process, which serves no lists): their pools, sized like the primary's and
/// connected when first used, every replica out until the health loop's first check.
fn open_replicas(
    db: &Db,
    s: &Settings,
) -> anyhow::Result<Option<Arc<boxtrack_store::replicas::Replicas>>> {
    if s.database_replica_urls.is_empty() || !s.role.api() {
        return Ok(None);
    }
    let replicas = boxtrack_store::replicas::Replicas::open(
        db.clone(),
        &s.database_replica_urls,
        s.database_replica_max_lag,
        s.database_pool_size,
        s.database_acquire_timeout,
    )
    .context("setting database_replica_urls")?;
    let names: Vec<String> = replicas.status().into_iter().map(|r| r.name).collect();
    tracing::info!(
        replicas = %names.join(","),
        max_lag_ms = u64::try_from(s.database_replica_max_lag.as_millis()).unwrap_or(u64::MAX),
        "read replicas configured: lists, searches and the console's tables are read there"
    );
    Ok(Some(Arc::new(replicas)))
}

/// The routes of a worker process: health, readiness and metrics.
fn worker_routes(app: AppState) -> axum::Router {
    boxtrack_api::operations_router(app)
}

/// Takes the right to run the background work on `db` (SQLite: the file's worker lock). With
/// the lock no other process works on the file, so the leases a killed process left on
/// tracking requests and polled subjects are released at once instead of after they run out.
async fn take_worker(db: &Db) -> anyhow::Result<Option<boxtrack_store::db::WorkerLock>> {
    let lock = db.lock_worker()?;
    if lock.is_some() {
        let released = boxtrack_store::tracking::release_orphaned_leases(db).await?;
        if released > 0 {
            tracing::warn!(
                released,
                "work a previous process left claimed when it ended is due again (it did not stop cleanly)"
            );
        }
    }
    Ok(lock)
}

/// The listener's limits from the settings, counted in the process's metrics. The process's
/// open-file limit is raised to what the cap needs (up to the hard limit), and the cap is
/// lowered, with a warning, where the limit cannot hold it (`listen::connection_cap`).
fn connections(s: &Settings, app: &AppState) -> boxtrack_api::listen::Connections {
    use boxtrack_api::listen::{RESERVED_DESCRIPTORS, connection_cap};
    let open_files = raise_open_file_limit(s.max_connections as u64 + RESERVED_DESCRIPTORS);
    let cap = connection_cap(s.max_connections, open_files);
    if cap < s.max_connections {
        tracing::warn!(
            max_connections = s.max_connections,
            open_file_limit = open_files.unwrap_or_default(),
            serving = cap,
            "the open-file limit cannot hold max_connections: serving fewer connections at once (raise the limit with `ulimit -n` or LimitNOFILE=)"
        );
    }
    boxtrack_api::listen::Connections {
        header_timeout: s.header_timeout,
        max_connections: cap,
        metrics: Some(app.metrics.clone()),
    }
}

/// Raises the soft open-file limit towards `wanted` (never past the hard limit, never down)
/// and returns the limit in force (`None`: unlimited).
#[cfg(unix)]
fn raise_open_file_limit(wanted: u64) -> Option<u64> {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    if let Some(current) = limit.current
        && current < wanted
    {
        let target = limit.maximum.map_or(wanted, |hard| hard.min(wanted));
        if target > current {
            let raised = rustix::process::Rlimit {
                current: Some(target),
                maximum: limit.maximum,
            };
            if setrlimit(Resource::Nofile, raised).is_ok() {
                limit.current = Some(target);
            }
        }
    }
    limit.current
}

#[cfg(not(unix))]
fn raise_open_file_limit(_wanted: u64) -> Option<u64> {
    None
}

/// `boxtrack serve`: listens first (a busy port stops the start before anything is created),
/// then opens and migrates the database and runs the role's parts. SIGTERM or Ctrl-C drains:
/// `/readyz` answers 503 for `drain_delay`, then no new connection is accepted, the requests
/// and deliveries in flight finish within `shutdown_timeout`, and the process exits 0.
pub async fn serve(s: Settings) -> anyhow::Result<()> {
    let listener = TcpListener::bind(s.listen).await.with_context(|| {
        format!(
            "cannot listen on {} (setting listen): is another process using it? Nothing was started",
            s.listen
        )
    })?;
    let addr = listener.local_addr()?;
    let db = open_configured_db(&s).await?;
    survive_file_size_limit();
    let _worker_lock = if s.role.worker() {
        take_worker(&db).await?
    } else {
        None
    };
    log_start(&db, &s).await;
    let replicas = open_replicas(&db, &s)?;
    let app = match &replicas {
        Some(r) => state(ctx(db.clone(), &s)?.with_replicas(r.clone()), &s).await?,
        None => state(ctx(db.clone(), &s)?, &s).await?,
    };
    let signal = shutdown_on_signal();
    let stop_work = CancellationToken::new();
    let replica_loop = replicas
        .map(|r| tokio::spawn(r.run(REPLICA_CHECK_EVERY, stop_work.clone().cancelled_owned())));
    let workers = if s.role.worker() {
        spawn_worker(&app, &stop_work, &s)
    } else {
        Vec::new()
    };
    tracing::info!(listen = %addr, role = s.role.as_str(), "listening");
    // Machine-readable line for scripts and tests that start on port 0.
    println!("listening on http://{addr}");
    let stop_accepting = CancellationToken::new();
    let conns = connections(&s, &app);
    let mut server = if s.role.api() {
        let routes = boxtrack_api::service(
            app.clone(),
            vec![boxtrack_mcp::mount(), boxtrack_web::mount()],
        );
        tokio::spawn(boxtrack_api::listen::serve_with(
            listener,
            routes,
            stop_accepting.clone(),
            conns,
        ))
    } else {
        tokio::spawn(boxtrack_api::listen::serve_with(
            listener,
            worker_routes(app.clone()),
            stop_accepting.clone(),
            conns,
        ))
    };
    let early = tokio::select! {
        _ = signal.cancelled() => None,
        ended = &mut server => Some(ended),
    };
    if let Some(ended) = early {
        stop_work.cancel();
        ended??;
        anyhow::bail!("the listener stopped on its own");
    }
    app.draining
        .store(true, std::sync::atomic::Ordering::Relaxed);
    tracing::info!(
        drain_delay_secs = s.drain_delay.as_secs(),
        shutdown_timeout_secs = s.shutdown_timeout.as_secs(),
        "draining: /readyz answers 503; requests and deliveries in flight finish"
    );
    tokio::time::sleep(s.drain_delay).await;
    stop_accepting.cancel();
    stop_work.cancel();
    let finished = tokio::time::timeout(s.shutdown_timeout, async {
        let served = server.await;
        for w in workers {
            let _ = w.await;
        }
        if let Some(l) = replica_loop {
            let _ = l.await;
        }
        served
    })
    .await;
    match finished {
        Ok(Ok(Ok(()))) => tracing::info!("stopped: nothing left in flight"),
        Ok(Ok(Err(e))) => {
            tracing::warn!(error = %e, "the listener ended with an error while stopping")
        }
        Ok(Err(e)) => tracing::warn!(error = %e, "the listener task failed while stopping"),
        Err(_) => tracing::warn!(
            "shutdown_timeout passed with work in flight; unfinished deliveries and requests are taken up again by the next process"
        ),
    }
    db.close().await;
    Ok(())
}
