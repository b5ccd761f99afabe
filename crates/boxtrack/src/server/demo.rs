//! `boxtrack demo`: a SQLite database in a folder, an account with its key and a console
//! user, sandbox numbers and shipments of an in-process upstream simulator tracked, the start
//! lines a newcomer copies from, then the API and the worker until Ctrl-C. A later `demo` on
//! the same folder goes on where this one stopped.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use boxtrack_core::apikey::ApiKey;
use boxtrack_core::plan::{Entitlement, Plan};
use boxtrack_core::ratelimit::Limits;
use boxtrack_store::Db;
use boxtrack_store::accounts::{self, Account, NewAccount};
use tokio::net::TcpListener;

use super::{
    connections, ctx, open_configured_db, shutdown_on_signal, spawn_worker, state,
    survive_file_size_limit, take_worker,
};
use crate::DemoArgs;
use crate::config::Settings;

/// Listens on `wanted`, or on a free port of the same address when it is taken (and says so).
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
    account: &Account,
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
async fn demo_account(db: &Db, file: &std::path::Path) -> anyhow::Result<(Account, ApiKey)> {
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

/// The sandbox numbers every demo tracks (carrier TEST: journeys the server plays itself).
const DEMO_NUMBERS: [&str; 4] = [
    "TEST-SCN-IMPORT",
    "TEST-SCN-HOLDS",
    "TEST-SCN-RAIL",
    "TEST-SCN-TRANSSHIPMENT",
];

/// `boxtrack demo`.
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
    let db = open_configured_db(&s).await?;
    survive_file_size_limit();
    let _worker_lock = take_worker(&db).await?;
    let listener = bind_or_free(wanted).await?;
    let base = format!("http://{}", listener.local_addr()?);
    let (account, key) = demo_account(&db, &args.dir.join("demo-account.json")).await?;
    let console = demo_user(&db, account.id, &args.dir.join("demo-console.json")).await?;
    for number in DEMO_NUMBERS {
        track_number(&db, &account, number, "bill_of_lading", "TEST").await?;
    }
    // the upstream world, in process: carriers (DCSA), terminals, a rail carrier sending X12;
    // a later demo on the same folder resumes it where this one leaves it
    let sim_file = args.dir.join("demo-sim.json");
    let sim = start_world(&sim_file, args.sandbox_speed)?;
    let sim_url = serve_world(&sim).await?;
    s.upstreams.sim_url = Some(sim_url.clone());
    s.upstreams.poll_speedup = args.sandbox_speed;
    make_operator(&db, &account).await?;
    demo_charges(&db, &account).await?;
    let upstream = track_upstream_shipments(&db, &account, &sim).await?;
    println!(
        "{}",
        start_lines(&Start {
            base: &base,
            console,
            db_url: &s.database_url,
            account: &account,
            key: key.expose(),
            sandbox_speed: args.sandbox_speed,
            sim_url: &sim_url,
            upstream,
            private_webhooks: s.allow_private_webhook_urls,
        })
    );
    s.sandbox_speed = args.sandbox_speed;
    run(db, s, listener, sim, sim_file, &base, key.expose()).await
}

/// What the demo's charges are counted with: the calendars boxtrack ships (public), and, for
/// the sandbox carrier `TEST` only, a demurrage and a detention tariff of the demo account
/// (demo data, not a carrier's), once.
async fn demo_charges(db: &Db, account: &Account) -> anyhow::Result<()> {
    use boxtrack_app::charges;
    let ctx = boxtrack_app::Ctx::new(db.clone());
    charges::shipped::load(&ctx).await?;
    let page = boxtrack_core::paging::Page::first(1);
    if !charges::tariffs(&ctx, Some(account.id), &page)
        .await?
        .rows
        .is_empty()
    {
        return Ok(());
    }
    for (kind, from, free, rates) in [
        ("demurrage", "discharged", 4, ["150.00", "250.00"]),
        ("detention", "full_out", 4, ["100.00", "175.00"]),
    ] {
        let doc: boxtrack_core::charges::TariffDoc = serde_json::from_value(serde_json::json!({
            "name": format!("Sandbox {kind} (demo data for the sandbox carrier TEST, not a carrier's tariff)"),
            "issuer": boxtrack_core::carriers::SANDBOX_SCAC, "kind": kind, "ports": ["*"],
            "equipment": ["*"], "valid_from": "2000-01-01", "valid_to": null, "currency": "USD",
            "free_time": {"days": free, "count": "working", "from": from, "starts": "next_day"},
            "charges": {"count": "calendar"},
            "tiers": [{"from_day": 1, "to_day": 4, "rate": rates[0]}, {"from_day": 5, "to_day": null, "rate": rates[1]}],
            "excuse": {"closures": true, "holds": ["customs"]}
        }))?;
        charges::add_tariff(&ctx, Some(account.id), doc).await?;
    }
    Ok(())
}

/// Tracks `number` (a `kind` of `scac`) for the demo account, once.
async fn track_number(
    db: &Db,
    account: &Account,
    number: &str,
    kind: &str,
    scac: &str,
) -> anyhow::Result<()> {
    let request = boxtrack_core::requests::validate(&boxtrack_core::requests::NewRequest {
        request_number: Some(number.into()),
        request_type: Some(kind.into()),
        scac: Some(scac.into()),
        ..Default::default()
    })
    .map_err(|e| anyhow::anyhow!("demo request {number} is invalid: {e:?}"))?;
    track_once(db, account, &request).await
}

/// The simulated upstream world: the one an earlier demo kept in `sim_file`, going on from
/// its clock, or a new one starting now; kept there at once.
fn start_world(sim_file: &Path, speed: f64) -> anyhow::Result<boxtrack_sim::Sim> {
    let resumed = DemoWorld::load(sim_file);
    let world = resumed.unwrap_or(DemoWorld {
        origin_us: boxtrack_store::now_us(),
        now_us: boxtrack_store::now_us(),
    });
    let sim = boxtrack_sim::Sim::new(&boxtrack_sim::SimConfig {
        seed: 1,
        shipments: 40,
        speed,
        origin_us: world.origin_us,
        clock_start_us: Some(world.now_us),
        faults: boxtrack_sim::Faults::default(),
        x12_ingest: None,
        carrier_auth: boxtrack_sim::CarrierAuth::None,
        token_ttl: std::time::Duration::from_secs(3600),
        carrier_profiles: vec![],
    });
    world.keep(&sim, sim_file)?;
    Ok(sim)
}

/// Serves the simulated world on a free loopback port; its base URL.
async fn serve_world(sim: &boxtrack_sim::Sim) -> anyhow::Result<String> {
    let sim_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let sim_url = format!("http://{}", sim_listener.local_addr()?);
    let sim_router = sim.router();
    tokio::spawn(async move { axum::serve(sim_listener, sim_router).await });
    Ok(sim_url)
}

/// Makes the demo account an operator, so that the simulator's rail files it posts with the
/// account's key are taken.
async fn make_operator(db: &Db, account: &Account) -> anyhow::Result<()> {
    accounts::update(
        db,
        account.id,
        boxtrack_store::accounts::AccountChanges {
            operator: Some(true),
            ..Default::default()
        },
    )
    .await?;
    Ok(())
}

/// Tracks two shipments of the simulated world that are under way now (one at sea, one with
/// a rail leg); each as `type number (SCAC)` for the start lines.
async fn track_upstream_shipments(
    db: &Db,
    account: &Account,
    sim: &boxtrack_sim::Sim,
) -> anyhow::Result<Vec<String>> {
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
        track_number(db, account, &number, kind, &scac).await?;
        upstream_numbers.push(format!("{kind} {number} ({scac})"));
    }
    Ok(upstream_numbers)
}

/// What the start lines tell.
struct Start<'a> {
    /// The API's base URL.
    base: &'a str,
    /// The console user's email and password.
    console: (String, String),
    /// The demo database.
    db_url: &'a str,
    /// The demo account.
    account: &'a Account,
    /// Its API key.
    key: &'a str,
    /// Simulated seconds per real second.
    sandbox_speed: f64,
    /// The upstream simulator's base URL.
    sim_url: &'a str,
    /// The simulator's shipments tracked.
    upstream: Vec<String>,
    /// Whether private webhook URLs are accepted.
    private_webhooks: bool,
}

/// The lines `demo` starts with: where everything is, the key, and curl lines to copy.
fn start_lines(st: &Start<'_>) -> String {
    let (base, k, sim_url) = (st.base, st.key, st.sim_url);
    let (console_email, console_password) = &st.console;
    let hours_per_sec = st.sandbox_speed / 3600.0;
    format!(
        "boxtrack demo\n\
         \n\
         API:       {base}/v2\n\
         Reference: {base}/console/reference   (the same without scripts: {base}/docs)\n\
         Console:   {base}/console   (sign in as {console_email} with {console_password})\n\
         Database:  {db_url}\n\
         Account:   {id} (Demo Importer, standard plan, all entitlements)\n\
         API key:   {k}\n\
         \n\
         Tracking (sandbox carrier TEST; journeys play at {hours_per_sec} simulated hours per second,\n\
         \x20 --speed changes it; a journey that has ended plays again when its number is tracked again):\n\
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
        db_url = st.db_url,
        id = st.account.id,
        numbers = DEMO_NUMBERS.join(", "),
        upstream = st.upstream.join(", "),
        webhooks = demo_webhook_lines(base, k, st.private_webhooks),
    )
}

/// Serves the API and runs the worker, the world's keeper and the simulator's rail files
/// until Ctrl-C or SIGTERM.
async fn run(
    db: Db,
    s: Settings,
    listener: TcpListener,
    sim: boxtrack_sim::Sim,
    sim_file: std::path::PathBuf,
    base: &str,
    k: &str,
) -> anyhow::Result<()> {
    let app = state(ctx(db.clone(), &s)?, &s).await?;
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
