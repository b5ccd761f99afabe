//! Scale-out on PostgreSQL (issue 25, target 7): two `boxtrack serve` processes on one
//! database against one, in the same run.
//!
//! ```sh
//! cargo build --release -p boxtrack -p boxtrack-bench
//! DATABASE_URL=postgres://root@127.0.0.1:5432/bigbench ./target/release/bench-seed 1000000 200000 100 /tmp/seed-pg.json
//! taskset -c 0 ./target/release/bench-scale /tmp/seed-pg.json [CONNECTIONS] [SECONDS]
//! ```
//!
//! 1. **Reads**: `GET /v2/containers/{id}?include=shipment` over the seeded sample, closed
//!    loop, three alternating rounds of one process (every connection to it) and two (the
//!    connections split between them); medians with min–max, and the CPU each process used.
//!    `BENCH_SERVER_CPUS` pins the processes: `1` puts both on CPU 1 (the default, for a
//!    2-core machine where the load generator has CPU 0), `1;2` gives each its own.
//! 2. **Rate limits stay exact**: a fresh account limited to 300 requests a minute sends 600
//!    requests alternating between the two processes; exactly 300 must be admitted.
//! 3. **No notification delivered twice**: 2,000 events of that account, each announced to
//!    a webhook on a receiver in this process, delivered by both processes' workers; every
//!    notification must arrive once.
//!
//! Extra `serve` arguments go in `BOXTRACK_SERVE_ARGS` (for example
//! `--rate-limit-store redis://127.0.0.1:6379`).
//!
//! **Reads with a replica** (issue 45) is a run of its own, on a PostgreSQL primary and a
//! streaming replica that the bench makes in a temporary folder (`boxtrack_testkit`'s
//! `ReplicaPair`: the machine's `initdb`, `pg_ctl`, `pg_basebackup`), seeded by `bench-seed`:
//!
//! ```sh
//! taskset -c 0 ./target/release/bench-scale --replica [CONTAINERS] [CONNECTIONS] [SECONDS]
//! ```
//!
//! Pages of `GET /v2/containers` (30 rows, every page of every account) are read by one
//! `serve` on the primary alone and by one given the replica (`--database-replica-urls`), in
//! alternating rounds, once rendering every page (`--read-cache-mib 0`) and once with the read
//! cache: every page once, every page a second time, then a closed loop over them. Each line
//! gives the time or rate and the CPU the primary's and the replica's PostgreSQL processes
//! used, so where the reads went shows.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use boxtrack_bench::Res;
use boxtrack_bench::load::{
    Call, Server, boxtrack_bin, cpu_ticks_of, median_min_max, pinned_to, run, start,
};
use boxtrack_core::plan::Plan;
use boxtrack_core::ratelimit::{Bucket, Limits};
use boxtrack_store::Db;
use boxtrack_store::accounts::{self, NewAccount};
use boxtrack_store::events::NewEvent;
use boxtrack_store::on_db;
use boxtrack_store::webhooks::NewWebhook;
use serde_json::Value;

/// The admitted requests a minute of the rate-limit check.
const LIMIT: u32 = 300;
/// Notifications of the delivery check.
const NOTIFICATIONS: usize = 2_000;

/// Starts `serve` on `url`, pinned to `cpus`.
fn serve(url: &str, cpus: &str) -> Res<Server> {
    let mut cmd = pinned_to(&boxtrack_bin()?, cpus);
    // the webhook receiver of the delivery check is on loopback
    cmd.args([
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--database-url",
        url,
        "--allow-private-webhook-urls",
    ]);
    if let Ok(extra) = std::env::var("BOXTRACK_SERVE_ARGS") {
        cmd.args(extra.split_whitespace());
    }
    cmd.env("RUST_LOG", "warn");
    start(cmd)
}

/// A receiver on loopback that counts the deliveries of each `webhook-id`.
async fn counting_receiver(seen: Arc<Mutex<HashMap<String, u32>>>) -> Res<String> {
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: axum::http::HeaderMap| {
            let seen = seen.clone();
            async move {
                if let Some(id) = headers.get("webhook-id").and_then(|v| v.to_str().ok()) {
                    *seen
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .entry(id.to_string())
                        .or_default() += 1;
                }
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}/hook", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(base)
}

async fn reads(servers: &[Server], calls: &Arc<Vec<Call>>, conns: usize, secs: u64) -> Res<()> {
    let http = reqwest::Client::new();
    // every body once through each process, so both read caches hold what they will serve
    for s in servers {
        for c in calls.iter() {
            http.get(format!("{}{}", s.base, c.path))
                .header("Authorization", format!("Token {}", c.key))
                .send()
                .await?
                .error_for_status()?;
        }
    }
    let (a, b) = (servers[0].base.as_str(), servers[1].base.as_str());
    let mut rates: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for round in 1..=3 {
        for (i, bases) in [vec![a], vec![a, b]].into_iter().enumerate() {
            let before: Vec<u64> = servers.iter().map(Server::cpu_ticks).collect();
            let o = run(&bases, calls, conns, secs, None).await?;
            let cpu: Vec<String> = servers
                .iter()
                .zip(&before)
                .map(|(s, t)| {
                    // share of one CPU over the run (2 s of warm-up included)
                    format!("{:.0}%", (s.cpu_ticks() - t) as f64 / (secs as f64 + 2.0))
                })
                .collect();
            println!(
                "  run {round} {} process{} {:>8.0} req/s  p50 {:>6} µs  p99 {:>6} µs  failed {}  CPU of each process: {}",
                bases.len(),
                if bases.len() == 1 { " " } else { "es" },
                o.rate,
                o.p50_us,
                o.p99_us,
                o.failed,
                cpu.join(", ")
            );
            rates[i].push(o.rate);
        }
    }
    let (one, omin, omax) = median_min_max(rates[0].clone());
    let (two, tmin, tmax) = median_min_max(rates[1].clone());
    println!("one process: {one:.0} req/s (min {omin:.0}, max {omax:.0})");
    println!("two processes: {two:.0} req/s (min {tmin:.0}, max {tmax:.0})");
    println!("two / one: {:.2}×", two / one);
    Ok(())
}

/// Sends twice the limit alternating between the processes; returns (admitted, refused).
async fn rate_limits(servers: &[Server], key: &str) -> Res<(usize, usize)> {
    let http = reqwest::Client::new();
    let mut tasks = tokio::task::JoinSet::new();
    let gate = Arc::new(tokio::sync::Semaphore::new(16));
    for i in 0..(2 * LIMIT as usize) {
        let url = format!("{}/v2/shipping_lines", servers[i % servers.len()].base);
        let (http, key, gate) = (http.clone(), key.to_string(), gate.clone());
        tasks.spawn(async move {
            let _permit = gate.acquire_owned().await;
            http.get(url)
                .header("Authorization", format!("Token {key}"))
                .send()
                .await
                .map(|r| r.status().as_u16())
                .unwrap_or(0)
        });
    }
    let (mut ok, mut refused) = (0, 0);
    while let Some(status) = tasks.join_next().await {
        match status? {
            200 => ok += 1,
            429 => refused += 1,
            other => return Err(format!("unexpected status {other}").into()),
        }
    }
    Ok((ok, refused))
}

/// Appends the events, waits until every notification left, and counts arrivals per id:
/// (notifications, received once, received more than once, never received).
async fn deliveries(
    db: &Db,
    account: uuid::Uuid,
    seen: &Arc<Mutex<HashMap<String, u32>>>,
) -> Res<(usize, usize, usize, usize)> {
    let tr = boxtrack_bench::hooks::succeeding_request(db, account).await?;
    for chunk in (0..NOTIFICATIONS).collect::<Vec<_>>().chunks(100) {
        let entries: Vec<NewEvent> = chunk
            .iter()
            .map(|_| NewEvent {
                event: "tracking_request.succeeded".into(),
                object_type: "tracking_request",
                object_id: tr.id,
                payload: serde_json::json!({"tracking_request_id": tr.id}),
            })
            .collect();
        boxtrack_bench::append_events(db, account, &entries).await?;
    }
    let waited = Instant::now();
    loop {
        let pending: i64 = on_db!(db, p => sqlx::query_scalar(
            "SELECT COUNT(*) FROM webhook_notifications WHERE account_id = $1 AND delivery_status = 'pending'")
            .bind(account).fetch_one(p).await?);
        if pending == 0 || waited.elapsed() > Duration::from_secs(120) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let ids: Vec<uuid::Uuid> = on_db!(db, p => sqlx::query_scalar(
        "SELECT id FROM webhook_notifications WHERE account_id = $1")
        .bind(account).fetch_all(p).await?);
    let seen = seen.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let (mut once, mut twice, mut never) = (0, 0, 0);
    for id in &ids {
        match seen.get(&id.to_string()).copied().unwrap_or(0) {
            0 => never += 1,
            1 => once += 1,
            _ => twice += 1,
        }
    }
    Ok((ids.len(), once, twice, never))
}

async fn bench(seed: &str, conns: usize, secs: u64) -> Res<()> {
    let seed: Value = serde_json::from_slice(&std::fs::read(seed)?)?;
    let url = seed["database_url"]
        .as_str()
        .ok_or("seed file without database_url")?;
    if !url.starts_with("postgres") {
        return Err("scale-out is PostgreSQL's: seed a PostgreSQL database".into());
    }
    let mut calls = Vec::new();
    for a in seed["accounts"].as_array().into_iter().flatten() {
        let key = a["key"].as_str().ok_or("an account without key")?;
        for id in a["sample"].as_array().into_iter().flatten() {
            let id = id.as_str().ok_or("a sample id is not a string")?;
            calls.push(Call {
                path: format!("/v2/containers/{id}?include=shipment"),
                key: key.to_string(),
            });
        }
    }
    if calls.is_empty() {
        return Err("the seed file has no samples".into());
    }
    let cpus = std::env::var("BENCH_SERVER_CPUS").unwrap_or_else(|_| "1".into());
    let sets: Vec<&str> = cpus.split(';').collect();
    let servers = vec![
        serve(url, sets[0])?,
        serve(url, sets.get(1).copied().unwrap_or(sets[0]))?,
    ];
    println!(
        "two processes on {} (CPUs {cpus}); {} distinct reads, {conns} connections, {secs} s a run",
        url.split('@').next_back().unwrap_or("?"),
        calls.len()
    );
    reads(&servers, &Arc::new(calls), conns, secs).await?;

    let db = Db::connect(url).await?;
    let (account, _, key) = accounts::create(
        &db,
        NewAccount {
            name: "bench-scale".into(),
            plan: Plan::Standard,
            entitlements: vec![],
            rate_limits: Limits([(Bucket::Default, LIMIT)].into_iter().collect()),
        },
    )
    .await?;
    let (ok, refused) = rate_limits(&servers, key.expose()).await?;
    println!(
        "rate limit {LIMIT}/min across both processes: {ok} admitted, {refused} refused ({})",
        if ok == LIMIT as usize {
            "exact"
        } else {
            "NOT exact"
        }
    );

    let seen: Arc<Mutex<HashMap<String, u32>>> = Arc::default();
    let hook = counting_receiver(seen.clone()).await?;
    boxtrack_store::webhooks::create(
        &db,
        account.id,
        &NewWebhook {
            url: hook,
            active: true,
            events: vec!["tracking_request.succeeded".into()],
            headers: BTreeMap::new(),
            secret: boxtrack_core::webhooks::generate_secret(),
        },
    )
    .await?;
    let started = Instant::now();
    let (n, once, twice, never) = deliveries(&db, account.id, &seen).await?;
    println!(
        "deliveries by both processes' workers: {n} notifications in {:.1} s: {once} received once, {twice} more than once, {never} never",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// CPU ticks (user and system) that a PostgreSQL server's processes used so far: every
/// process `pg_stat_activity` lists on `url` (backends and background processes).
async fn cluster_ticks(db: &Db) -> Res<u64> {
    let pids: Vec<i32> = on_db!(db, p => sqlx::query_scalar("SELECT pid FROM pg_stat_activity")
        .fetch_all(p).await?);
    Ok(pids.into_iter().map(|pid| cpu_ticks_of(pid as u32)).sum())
}

/// Waits until the replica has replayed what the primary has written now.
async fn caught_up(primary: &Db, replica: &Db) -> Res<()> {
    let at: String = on_db!(primary, p => sqlx::query_scalar("SELECT pg_current_wal_lsn()::text")
        .fetch_one(p).await?);
    let waited = Instant::now();
    loop {
        let done: Option<bool> = on_db!(replica, p => sqlx::query_scalar(
            "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn").bind(&at).fetch_one(p).await?);
        if done == Some(true) {
            return Ok(());
        }
        if waited.elapsed() > Duration::from_secs(300) {
            return Err("the replica did not catch up in 5 minutes".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Sends every call once, `conns` at a time; how long that took.
async fn read_each(base: &str, calls: &Arc<Vec<Call>>, conns: usize) -> Res<Duration> {
    let http = reqwest::Client::new();
    let gate = Arc::new(tokio::sync::Semaphore::new(conns));
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for c in calls.iter() {
        let (http, gate) = (http.clone(), gate.clone());
        let (url, key) = (format!("{base}{}", c.path), c.key.clone());
        tasks.spawn(async move {
            let _permit = gate.acquire_owned().await;
            http.get(url)
                .header("Authorization", format!("Token {key}"))
                // the Host the load generator sends: the links, and so the cached body, name it
                .header("Host", "127.0.0.1")
                .send()
                .await
                .and_then(reqwest::Response::error_for_status)
                .map(|_| ())
        });
    }
    while let Some(done) = tasks.join_next().await {
        done??;
    }
    Ok(started.elapsed())
}

/// Reads with a replica: see the module's documentation.
async fn replica_reads(containers: usize, conns: usize, secs: u64) -> Res<()> {
    let pair = boxtrack_testkit::pgreplica::ReplicaPair::start()?;
    let me = std::env::current_exe()?;
    let seed_file =
        std::env::temp_dir().join(format!("bench-scale-replica-{}.json", std::process::id()));
    let accounts = 10;
    let status = std::process::Command::new(me.with_file_name("bench-seed"))
        .env("DATABASE_URL", &pair.primary_url)
        .args([
            containers.to_string(),
            (containers / 5).max(1).to_string(),
            accounts.to_string(),
        ])
        .arg(&seed_file)
        .status()?;
    if !status.success() {
        return Err(format!("bench-seed failed: {status}").into());
    }
    let seed: Value = serde_json::from_slice(&std::fs::read(&seed_file)?)?;
    let _ = std::fs::remove_file(&seed_file);
    let primary = Db::connect(&pair.primary_url).await?;
    let replica = Db::connect(&pair.replica_url).await?;
    caught_up(&primary, &replica).await?;
    let pages = (containers / accounts).div_ceil(30);
    let mut calls = Vec::new();
    for n in 1..=pages {
        for a in seed["accounts"].as_array().into_iter().flatten() {
            let key = a["key"].as_str().ok_or("an account without key")?;
            calls.push(Call {
                path: format!("/v2/containers?page[number]={n}&page[size]=30"),
                key: key.to_string(),
            });
        }
    }
    let calls = Arc::new(calls);
    let cpus = std::env::var("BENCH_SERVER_CPUS").unwrap_or_else(|_| "1".into());
    println!(
        "one serve on a primary alone, and one given a streaming replica of it (CPU {cpus}); {containers} containers in {accounts} accounts, {} distinct pages of 30, {conns} connections, {secs} s a run",
        calls.len()
    );
    for (cache, mib) in [("every page rendered", "0"), ("read cache on", "128")] {
        let mut rates: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        for round in 1..=3 {
            for (i, with_replica) in [false, true].into_iter().enumerate() {
                let mut cmd = pinned_to(&boxtrack_bin()?, &cpus);
                cmd.args([
                    "serve",
                    "--listen",
                    "127.0.0.1:0",
                    "--database-url",
                    &pair.primary_url,
                ]);
                cmd.args(["--read-cache-mib", mib]);
                if with_replica {
                    cmd.args(["--database-replica-urls", &pair.replica_url]);
                }
                cmd.env("RUST_LOG", "warn");
                let server = start(cmd)?;
                // the replica is taken into use by the health loop's first check
                tokio::time::sleep(Duration::from_secs(2)).await;
                let label = if with_replica {
                    "with replica"
                } else {
                    "primary alone"
                };
                // every page read once, then once more, then the closed loop
                for pass in ["first read of every page", "second read of every page"] {
                    let before = (
                        cluster_ticks(&primary).await?,
                        cluster_ticks(&replica).await?,
                    );
                    let took = read_each(&server.base, &calls, conns).await?;
                    let after = (
                        cluster_ticks(&primary).await?,
                        cluster_ticks(&replica).await?,
                    );
                    println!(
                        "  {cache}, run {round}, {label:<13} {pass}: {:.1} s; CPU seconds of the primary's PostgreSQL {:.2}, the replica's {:.2}",
                        took.as_secs_f64(),
                        after.0.saturating_sub(before.0) as f64 / 100.0,
                        after.1.saturating_sub(before.1) as f64 / 100.0,
                    );
                }
                let before = (
                    cluster_ticks(&primary).await?,
                    cluster_ticks(&replica).await?,
                );
                let o = run(&[server.base.as_str()], &calls, conns, secs, None).await?;
                let after = (
                    cluster_ticks(&primary).await?,
                    cluster_ticks(&replica).await?,
                );
                let share = |t: u64| t as f64 / (secs as f64 + 2.0);
                println!(
                    "  {cache}, run {round}, {label:<13} then {:>8.0} req/s  p50 {:>6} µs  p99 {:>6} µs  failed {}  CPU: primary's PostgreSQL {:.0}%, replica's {:.0}%",
                    o.rate,
                    o.p50_us,
                    o.p99_us,
                    o.failed,
                    share(after.0.saturating_sub(before.0)),
                    share(after.1.saturating_sub(before.1)),
                );
                if with_replica {
                    // where the process says its list reads went
                    let text = reqwest::get(format!("{}/metrics", server.base))
                        .await?
                        .text()
                        .await?;
                    let counts: Vec<&str> = text
                        .lines()
                        .filter(|l| l.starts_with("boxtrack_replica_reads_total"))
                        .collect();
                    println!("    {}", counts.join("; "));
                }
                rates[i].push(o.rate);
            }
        }
        let (alone, amin, amax) = median_min_max(rates[0].clone());
        let (with, wmin, wmax) = median_min_max(rates[1].clone());
        println!(
            "{cache}: primary alone {alone:.0} req/s (min {amin:.0}, max {amax:.0}); with replica {with:.0} req/s (min {wmin:.0}, max {wmax:.0}); {:.2}×",
            with / alone
        );
    }
    Ok(())
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--replica") {
        let containers: usize = args.get(1).map_or(Ok(20_000), |s| s.parse())?;
        let conns: usize = args.get(2).map_or(Ok(32), |s| s.parse())?;
        let secs: u64 = args.get(3).map_or(Ok(10), |s| s.parse())?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        return rt.block_on(replica_reads(containers, conns, secs));
    }
    let seed = args.first().map_or("seed.json", String::as_str);
    let conns: usize = args.get(1).map_or(Ok(32), |s| s.parse())?;
    let secs: u64 = args.get(2).map_or(Ok(10), |s| s.parse())?;
    // the load generator: one thread
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(bench(seed, conns, secs))
}
