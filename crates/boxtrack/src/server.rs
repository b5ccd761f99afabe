//! `serve` and `demo`: open the database, build the application state, listen, and stop
//! cleanly on Ctrl-C or SIGTERM.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use boxtrack_api::{ApiConfig, AppState, Limiter};
use boxtrack_core::apikey::ApiKey;
use boxtrack_core::plan::{Entitlement, Plan};
use boxtrack_core::ratelimit::Limits;
use boxtrack_store::accounts::{self, NewAccount};
use boxtrack_store::{Backend, Db};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::DemoArgs;
use crate::config::{RateLimitStore, Settings};

/// Connects and applies migrations.
pub async fn open_db(url: &str) -> anyhow::Result<Db> {
    let shown = boxtrack_store::db::redact_url(url);
    let db = Db::connect(url)
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

pub async fn state(db: Db, s: &Settings) -> anyhow::Result<AppState> {
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
    Ok(AppState::new(
        db,
        ApiConfig {
            public_url: s.public_url.clone(),
            request_timeout: s.request_timeout,
            allow_private_webhook_urls: s.allow_private_webhook_urls,
            webhook_source_ips: s.webhook_source_ips.clone(),
            webhook_signature_header: s.webhook_signature_header.clone(),
            dcsa_push_secret: s.dcsa_push_secret.clone(),
            mcp_allowed_origins: s.mcp_allowed_origins.clone(),
            mcp_open_account: s.mcp_open_account,
            sandbox_speed: s.sandbox_speed,
            read_cache_bytes: s.read_cache_bytes,
        },
        limiter,
    )
    .with_upstreams(Arc::new(boxtrack_sources::upstream::Upstreams::new(
        s.upstreams.clone(),
    )))
    .with_files(
        boxtrack_store::files::open(&s.document_store)
            .context("cannot open the document store (setting document_store)")?,
    ))
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
            app.upstreams.clone(),
        )),
    ];
    let processor = boxtrack_worker::Processor::new(app.db.clone(), sources)
        .with_sandbox_speed(sandbox_speed)
        .with_manifest_recheck_secs(s.manifest_recheck_secs)
        .with_early_reports(s.early_report_days, s.early_report_max)
        .with_upstreams(app.upstreams.clone());
    tasks.push(tokio::spawn(processor.run(
        shutdown.clone(),
        Duration::from_secs(1),
        app.wake.clone(),
    )));
    if let Some(feed) = &s.ais_feed {
        tokio::spawn(boxtrack_sources::ais::follow(
            app.db.clone(),
            feed.clone(),
            Some(app.upstreams.clone()),
            shutdown.clone(),
        ));
    }
    let deliverer = boxtrack_worker::delivery::Deliverer::new(
        app.db.clone(),
        s.webhook_timeout,
        app.config.allow_private_webhook_urls,
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
}

/// The routes of a worker process: health, readiness and metrics.
fn worker_routes(app: AppState) -> axum::Router {
    use axum::routing::get;
    use boxtrack_api::routes::health;
    axum::Router::new()
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(health::metrics))
        .with_state(app)
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
    let db = open_db(&s.database_url).await?;
    survive_file_size_limit();
    let _worker_lock = if s.role.worker() {
        take_worker(&db).await?
    } else {
        None
    };
    log_start(&db, &s).await;
    let app = state(db.clone(), &s).await?;
    let signal = shutdown_on_signal();
    let stop_work = CancellationToken::new();
    let workers = if s.role.worker() {
        spawn_worker(&app, &stop_work, &s)
    } else {
        Vec::new()
    };
    let routes = if s.role.api() {
        boxtrack_api::service(
            app.clone(),
            vec![boxtrack_mcp::mount(), boxtrack_web::mount()],
        )
    } else {
        worker_routes(app.clone())
    };
    tracing::info!(listen = %addr, role = s.role.as_str(), "listening");
    // Machine-readable line for scripts and tests that start on port 0.
    println!("listening on http://{addr}");
    let stop_accepting = CancellationToken::new();
    let mut server = tokio::spawn(boxtrack_api::listen::serve_with(
        listener,
        routes,
        stop_accepting.clone(),
        connections(&s, &app),
    ));
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

async fn bind_or_free(wanted: SocketAddr) -> anyhow::Result<TcpListener> {
    match TcpListener::bind(wanted).await {
        Ok(l) => Ok(l),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            let free = SocketAddr::new(wanted.ip(), 0);
            let l = TcpListener::bind(free)
                .await
                .with_context(|| format!("cannot listen on {free}"))?;
            println!(
                "Port {} is already in use; using {} instead.",
                wanted.port(),
                l.local_addr()?.port()
            );
            Ok(l)
        }
        Err(e) => Err(e).with_context(|| format!("cannot listen on {wanted}")),
    }
}

/// Tracks a demo request; one that is already tracked (a second `demo` in the same folder) is
/// fine.
async fn track_once(
    db: &Db,
    account: &boxtrack_store::accounts::Account,
    request: &boxtrack_core::requests::ValidRequest,
) -> anyhow::Result<()> {
    match boxtrack_store::tracking::create_request(
        db,
        account.id,
        account.plan,
        request,
        &Default::default(),
    )
    .await
    {
        Ok(_) | Err(boxtrack_store::StoreError::Duplicate(_)) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// The demo's account and key: the ones an earlier `demo` in the same folder created (kept in
/// `file`, readable by the owner only, since the key is stored nowhere else in clear), or new
/// ones written there.
async fn demo_account(
    db: &Db,
    file: &std::path::Path,
) -> anyhow::Result<(boxtrack_store::accounts::Account, ApiKey)> {
    if let Ok(text) = std::fs::read_to_string(file)
        && let Ok(saved) = serde_json::from_str::<serde_json::Value>(&text)
        && let Some(key) = saved["api_key"]
            .as_str()
            .and_then(|k| ApiKey::parse(k).ok())
        && let Some((_, account)) = boxtrack_store::keys::authenticate(db, &key).await?
    {
        return Ok((account, key));
    }
    let (account, _, key) = accounts::create(
        db,
        NewAccount {
            name: "Demo Importer".into(),
            plan: Plan::Standard,
            entitlements: Entitlement::ALL.to_vec(),
            rate_limits: Limits::default(),
        },
    )
    .await?;
    let body = serde_json::json!({"account_id": account.id, "api_key": key.expose()}).to_string();
    write_private(file, &body)
        .with_context(|| format!("cannot keep the demo key in {}", file.display()))?;
    Ok((account, key))
}

/// Where the demo's simulated world is: the time it was built around and its virtual now,
/// kept in the demo folder (`demo-sim.json`) every few seconds, so that a later `demo` on
/// the same folder goes on from there instead of playing the world again from a new start
/// (which would report every milestone again at other times).
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct DemoWorld {
    origin_us: i64,
    now_us: i64,
}

impl DemoWorld {
    fn load(file: &std::path::Path) -> Option<DemoWorld> {
        let text = std::fs::read_to_string(file).ok()?;
        serde_json::from_str(&text).ok()
    }

    fn keep(self, sim: &boxtrack_sim::Sim, file: &std::path::Path) -> anyhow::Result<()> {
        let now = DemoWorld {
            origin_us: self.origin_us,
            now_us: sim.clock().now_us(),
        };
        let text = serde_json::to_string(&now)?;
        // write beside and rename, so a crash never leaves half a file
        let tmp = file.with_extension("json.tmp");
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, file))
            .with_context(|| format!("cannot keep the demo's world in {}", file.display()))
    }

    /// Saves the world's clock every two seconds and once more at shutdown.
    async fn keep_saving(
        sim: boxtrack_sim::Sim,
        file: std::path::PathBuf,
        shutdown: tokio_util::sync::CancellationToken,
    ) {
        let Some(start) = DemoWorld::load(&file) else {
            return;
        };
        loop {
            let stop = tokio::select! {
                () = tokio::time::sleep(Duration::from_secs(2)) => false,
                () = shutdown.cancelled() => true,
            };
            if let Err(e) = start.keep(&sim, &file) {
                tracing::warn!(error = %e, "the demo's world could not be saved");
            }
            if stop {
                return;
            }
        }
    }
}

/// The demo account's console user: created once with a random password, kept (mode 0600)
/// in `file` so a later `demo` on the same folder prints the same sign-in.
async fn demo_user(
    db: &Db,
    account: uuid::Uuid,
    file: &std::path::Path,
) -> anyhow::Result<(String, String)> {
    if let Ok(text) = std::fs::read_to_string(file)
        && let Ok(saved) = serde_json::from_str::<serde_json::Value>(&text)
        && let (Some(email), Some(password)) = (saved["email"].as_str(), saved["password"].as_str())
        && let Some(user) = boxtrack_store::oauth::get_user(db, email).await?
        && user.account_id == account
    {
        return Ok((email.to_string(), password.to_string()));
    }
    let email = format!(
        "demo+{}@boxtrack.local",
        &account.simple().to_string()[..12]
    );
    let password = boxtrack_core::oauth::new_secret()[..16].to_string();
    let hash = boxtrack_core::oauth::hash_password(&password)
        .map_err(|e| anyhow::anyhow!("cannot hash the demo password: {e}"))?;
    boxtrack_store::oauth::create_user(db, account, &email, &hash)
        .await
        .with_context(|| format!("cannot create the demo console user {email}"))?;
    let body = serde_json::json!({"email": email, "password": password}).to_string();
    write_private(file, &body)
        .with_context(|| format!("cannot keep the demo sign-in in {}", file.display()))?;
    Ok((email, password))
}

fn write_private(path: &std::path::Path, body: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)?.write_all(body.as_bytes())
}

/// `boxtrack demo`.
/// How to receive the demo's webhooks on this machine.
fn demo_webhook_lines(base: &str, key: &str, private_ok: bool) -> String {
    if !private_ok {
        return "Webhooks: only public https:// URLs are accepted (--public-webhook-urls-only);\n\
                \x20 a tunnel to a receiver on this laptop gives one."
            .to_string();
    }
    format!(
        "Webhooks to this laptop (private URLs are accepted in the demo):\n\
         \x20 1. curl -s -X POST {base}/v2/webhooks -H 'Authorization: Token {key}' \\\n\
         \x20      -H 'Content-Type: application/vnd.api+json' \\\n\
         \x20      -d '{{\"data\":{{\"type\":\"webhook\",\"attributes\":{{\"url\":\"http://127.0.0.1:9000/\"}}}}}}'\n\
         \x20 2. in another terminal, with the secret that answer shows:\n\
         \x20      boxtrack webhooks receive --listen 127.0.0.1:9000 --secret SECRET"
    )
}

pub async fn demo(mut s: Settings, args: &DemoArgs) -> anyhow::Result<()> {
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("cannot create the demo folder {}", args.dir.display()))?;
    s.database_url = format!("sqlite://{}", args.dir.join("boxtrack.db").display());
    let wanted: SocketAddr = args.listen.parse().with_context(|| {
        format!(
            "--listen {:?} is not an address such as 127.0.0.1:8080",
            args.listen
        )
    })?;
    let db = open_db(&s.database_url).await?;
    survive_file_size_limit();
    let _worker_lock = take_worker(&db).await?;
    let listener = bind_or_free(wanted).await?;
    let addr = listener.local_addr()?;
    let (account, key) = demo_account(&db, &args.dir.join("demo-account.json")).await?;
    let (console_email, console_password) =
        demo_user(&db, account.id, &args.dir.join("demo-console.json")).await?;
    const DEMO_NUMBERS: [&str; 4] = [
        "TEST-SCN-IMPORT",
        "TEST-SCN-HOLDS",
        "TEST-SCN-RAIL",
        "TEST-SCN-TRANSSHIPMENT",
    ];
    for number in DEMO_NUMBERS {
        let request = boxtrack_core::requests::validate(&boxtrack_core::requests::NewRequest {
            request_number: Some(number.into()),
            request_type: Some("bill_of_lading".into()),
            scac: Some("TEST".into()),
            ..Default::default()
        })
        .map_err(|e| anyhow::anyhow!("demo request {number} is invalid: {e:?}"))?;
        track_once(&db, &account, &request).await?;
    }
    let base = format!("http://{addr}");
    let k = key.expose();
    let hours_per_sec = args.sandbox_speed / 3600.0;

    // the upstream world, in process: carriers (DCSA), terminals, a rail carrier sending X12;
    // a later demo on the same folder resumes it where this one leaves it
    let sim_file = args.dir.join("demo-sim.json");
    let resumed = DemoWorld::load(&sim_file);
    let world = resumed.unwrap_or(DemoWorld {
        origin_us: boxtrack_store::now_us(),
        now_us: boxtrack_store::now_us(),
    });
    let sim = boxtrack_sim::Sim::new(&boxtrack_sim::SimConfig {
        seed: 1,
        shipments: 40,
        speed: args.sandbox_speed,
        origin_us: world.origin_us,
        clock_start_us: Some(world.now_us),
        faults: boxtrack_sim::Faults::default(),
        x12_ingest: None,
        carrier_auth: boxtrack_sim::CarrierAuth::None,
        token_ttl: std::time::Duration::from_secs(3600),
    });
    world.keep(&sim, &sim_file)?;
    let sim_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let sim_url = format!("http://{}", sim_listener.local_addr()?);
    let sim_router = sim.router();
    tokio::spawn(async move { axum::serve(sim_listener, sim_router).await });
    s.upstreams.sim_url = Some(sim_url.clone());
    s.upstreams.poll_speedup = args.sandbox_speed;
    accounts::update(
        &db,
        account.id,
        boxtrack_store::accounts::AccountChanges {
            operator: Some(true),
            ..Default::default()
        },
    )
    .await?;
    let now = sim.clock().now_us();
    let world = sim.world();
    let at_sea = world
        .shipments
        .iter()
        .find(|x| x.depart_us < now && x.arrival_us() > now && x.inland.is_none());
    let by_rail = world
        .shipments
        .iter()
        .find(|x| x.depart_us < now && x.inland.is_some());
    let mut upstream_numbers = Vec::new();
    for (number, kind, scac) in [
        at_sea.map(|x| (x.bill_of_lading.clone(), "bill_of_lading", x.scac.clone())),
        by_rail.map(|x| (x.booking.clone(), "booking_number", x.scac.clone())),
    ]
    .into_iter()
    .flatten()
    {
        let request = boxtrack_core::requests::validate(&boxtrack_core::requests::NewRequest {
            request_number: Some(number.clone()),
            request_type: Some(kind.into()),
            scac: Some(scac.clone()),
            ..Default::default()
        })
        .map_err(|e| anyhow::anyhow!("demo request {number} is invalid: {e:?}"))?;
        track_once(&db, &account, &request).await?;
        upstream_numbers.push(format!("{kind} {number} ({scac})"));
    }
    println!(
        "boxtrack demo\n\
         \n\
         API:       {base}/v2   (reference: {base}/docs)\n\
         Console:   {base}/console   (sign in as {console_email} with {console_password})\n\
         Database:  {db_url}\n\
         Account:   {id} (Demo Importer, standard plan, all entitlements)\n\
         API key:   {k}\n\
         \n\
         Tracking (sandbox carrier TEST; journeys play at {hours_per_sec} simulated hours per second):\n\
         \x20 {numbers}\n\
         Tracking from the upstream simulator at {sim_url} (DCSA carriers, terminal feeds, rail X12;\n\
         \x20 its catalog: {sim_url}/sim/v1/catalog; same clock speed):\n\
         \x20 {upstream}\n\
         \n\
         Try it:\n\
         \x20 curl -s {base}/v2/containers -H 'Authorization: Token {k}'\n\
         \x20 curl -s '{base}/v2/containers?filter%5Bcurrent_status%5D=not_available' -H 'Authorization: Token {k}'\n\
         \x20 curl -s {base}/v2/tracking_requests -H 'Authorization: Token {k}'\n\
         \x20 curl -s {base}/v2/shipments -H 'Authorization: Token {k}'\n\
         \x20 curl -s {base}/v2/sandbox/scenarios -H 'Authorization: Token {k}'\n\
         \x20 curl -s -X POST {base}/v2/tracking_requests -H 'Authorization: Token {k}' \\\n\
         \x20      -H 'Content-Type: application/vnd.api+json' \\\n\
         \x20      -d '{{\"data\":{{\"type\":\"tracking_request\",\"attributes\":{{\"request_number\":\"TEST-SCN-ROLLOVER\",\"request_type\":\"bill_of_lading\",\"scac\":\"TEST\"}}}}}}'\n\
         \x20 curl -s {base}/v2/account -H 'Authorization: Token {k}'\n\
         \x20 curl -s {base}/v2/sources -H 'Authorization: Token {k}'\n\
         \x20 curl -s {base}/metrics\n\
         \n\
         AI clients (MCP): {base}/mcp with the header Authorization: Token {k}\n\
         \n\
         {webhooks}\n\
         \n\
         Press Ctrl-C to stop.\n\
         listening on {base}",
        db_url = s.database_url,
        id = account.id,
        numbers = DEMO_NUMBERS.join(", "),
        upstream = upstream_numbers.join(", "),
        webhooks = demo_webhook_lines(&base, k, s.allow_private_webhook_urls),
    );
    s.sandbox_speed = args.sandbox_speed;
    let app = state(db.clone(), &s).await?;
    let shutdown = shutdown_on_signal();
    let _workers = spawn_worker(&app, &shutdown, &s);
    tokio::spawn(DemoWorld::keep_saving(
        sim.clone(),
        sim_file,
        shutdown.clone(),
    ));
    tokio::spawn(boxtrack_sim::send_rail_x12(
        sim,
        format!("{base}/v2/ingest/x12"),
        k.to_string(),
        Some(format!("{base}/v2/ingest/edifact")),
        Duration::from_secs(1),
        shutdown.clone(),
    ));
    let conns = connections(&s, &app);
    boxtrack_api::listen::serve_with(
        listener,
        boxtrack_api::service(app, vec![boxtrack_mcp::mount(), boxtrack_web::mount()]),
        shutdown,
        conns,
    )
    .await?;
    db.close().await;
    Ok(())
}
