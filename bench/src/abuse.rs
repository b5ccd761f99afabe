//! Abuse (issue 29, item 4): how much does one client's abuse cost everyone else? A victim
//! account sends `GET /v2/containers` at a fixed rate to `boxtrack serve` and its latency is
//! measured, in the same run, alone (the baseline) and beside each abuse:
//!
//! - `flood-limited`: another account floods from many connections, closed loop, under the
//!   default limit of 100 requests a minute (so nearly every request is a 429);
//! - `flood-admitted`: the same flood from an account whose limit is lifted (every request
//!   is served: a noisy neighbour rather than an attacker);
//! - `idle-under-cap`: idle sockets, fewer than `--max-connections`, held open;
//! - `idle-over-cap`: more idle sockets than the cap: those over it are answered 503 and
//!   closed, the rest hold their places until the header timeout (10 s) closes them, and the
//!   victim's requests meet the cap too (counted as refused).
//!
//! For the idle runs the server's resident memory and open descriptors are read from `/proc`.
//!
//! ```sh
//! cargo build --release -p boxtrack -p boxtrack-bench
//! ulimit -n 20000
//! taskset -c 0 ./target/release/bench-abuse [SECONDS] [FLOOD_CONNECTIONS] [IDLE_OVER_CAP]
//! DATABASE_URL=postgres://root@127.0.0.1:5432/test taskset -c 0 ./target/release/bench-abuse
//! ```
//!
//! Defaults: 10 seconds per run, a flood of 64 connections, 10,000 idle sockets over a cap of
//! 4,096 (3,000 under it); the victim sends 50 requests a second over a pool of keep-alive
//! connections. Every kind of run is made three times, alternating; medians with min–max.
//! The server runs under `taskset -c 1` (`BENCH_SERVER_CPUS`), the load generator (one
//! thread) should run under `taskset -c 0`; on a 2-core machine the flood's own sending
//! shares the generator's core with the victim's, which inflates the victim's latency a little
//! beyond what the server adds.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use boxtrack_core::plan::Plan;
use boxtrack_core::ratelimit::{Bucket, Limits};
use boxtrack_store::accounts::{self, NewAccount};
use tokio::net::TcpStream;

use boxtrack_bench::Res;
use boxtrack_bench::load::{Call, Server, median_min_max, pinned, start};

/// The victim's requests a second.
const VICTIM_RATE: u32 = 50;
/// The cap the server runs with (its default).
const CAP: usize = 4096;
/// Idle sockets held in the run under the cap.
const IDLE_UNDER_CAP: usize = 3000;

/// What the victim saw in one run.
struct Seen {
    p50_ms: f64,
    p99_ms: f64,
    ok: usize,
    refused: usize,
    failed: usize,
}

/// The victim: `VICTIM_RATE` requests a second for `seconds`, each on its own task so a slow
/// answer does not delay the next request.
async fn victim(base: &str, key: &str, seconds: u64) -> Seen {
    let client = reqwest::Client::new();
    let step = Duration::from_secs(1) / VICTIM_RATE;
    let mut due = tokio::time::Instant::now();
    let until = due + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    while due < until {
        tokio::time::sleep_until(due).await;
        due += step;
        let (client, url, auth) = (
            client.clone(),
            format!("{base}/v2/containers"),
            format!("Token {key}"),
        );
        tasks.push(tokio::spawn(async move {
            let started = Instant::now();
            let r = client.get(url).header("authorization", auth).send().await;
            let status = match r {
                Ok(r) => {
                    let s = r.status().as_u16();
                    let _ = r.bytes().await;
                    s
                }
                Err(_) => 0,
            };
            (started.elapsed(), status)
        }));
    }
    let mut latencies = Vec::new();
    let (mut ok, mut refused, mut failed) = (0, 0, 0);
    for t in tasks {
        let Ok((took, status)) = t.await else {
            failed += 1;
            continue;
        };
        match status {
            200 => {
                ok += 1;
                latencies.push(took.as_secs_f64() * 1e3);
            }
            503 => refused += 1,
            _ => failed += 1,
        }
    }
    latencies.sort_by(f64::total_cmp);
    let pct = |p: f64| {
        latencies
            .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
            .copied()
            .unwrap_or(f64::NAN)
    };
    Seen {
        p50_ms: pct(0.5),
        p99_ms: pct(0.99),
        ok,
        refused,
        failed,
    }
}

/// `n` idle sockets to `base`, opened one after another (those the server refuses are closed
/// by it; they stay in the list, closed).
async fn idle_sockets(base: &str, n: usize) -> Vec<TcpStream> {
    let addr = base.trim_start_matches("http://").to_string();
    let mut held = Vec::with_capacity(n);
    for _ in 0..n {
        match TcpStream::connect(&addr).await {
            Ok(s) => held.push(s),
            Err(e) => {
                eprintln!("  opened {} sockets, then: {e}", held.len());
                break;
            }
        }
    }
    held
}

fn open_descriptors(server: &Server) -> usize {
    std::fs::read_dir(format!("/proc/{}/fd", server.child.id())).map_or(0, |d| d.count())
}

/// The value of an unlabelled metric in the server's `/metrics`.
async fn metric(base: &str, name: &str) -> f64 {
    let text = match reqwest::get(format!("{base}/metrics")).await {
        Ok(r) => r.text().await.unwrap_or_default(),
        Err(_) => return f64::NAN,
    };
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(f64::NAN)
}

/// One run of `kind`, the victim measured throughout.
async fn one_run(
    kind: &str,
    server: &Server,
    keys: &Keys,
    seconds: u64,
    flood_connections: usize,
    idle_over_cap: usize,
) -> Res<Seen> {
    let base = server.base.as_str();
    let flood = |key: &str| {
        let calls = Arc::new(vec![Call {
            path: "/v2/containers".into(),
            key: key.to_string(),
        }]);
        let base = base.to_string();
        tokio::spawn(async move {
            boxtrack_bench::load::run(&[&base], &calls, flood_connections, seconds, None)
                .await
                .map_err(|e| e.to_string())
        })
    };
    let seen = match kind {
        "alone" => victim(base, &keys.victim, seconds).await,
        "flood-limited" | "flood-admitted" => {
            let key = if kind == "flood-limited" {
                &keys.limited
            } else {
                &keys.lifted
            };
            let f = flood(key);
            // the flood's 2-second warm-up first
            tokio::time::sleep(Duration::from_secs(2)).await;
            let seen = victim(base, &keys.victim, seconds).await;
            let out = f.await??;
            println!(
                "    flood: {:.0} requests/s, {} of them refused",
                out.rate, out.failed
            );
            seen
        }
        "idle-under-cap" | "idle-over-cap" => {
            let n = if kind == "idle-under-cap" {
                IDLE_UNDER_CAP
            } else {
                idle_over_cap
            };
            let (rss0, fds0) = (server.rss_kib().unwrap_or(0), open_descriptors(server));
            let refused0 = metric(base, "boxtrack_http_connections_refused_total").await;
            let held = idle_sockets(base, n).await;
            let seen = victim(base, &keys.victim, seconds.min(8)).await;
            let (rss1, fds1) = (server.rss_kib().unwrap_or(0), open_descriptors(server));
            drop(held);
            // the idle ones time out; the gauge shows them gone
            tokio::time::sleep(Duration::from_secs(11)).await;
            let refused = metric(base, "boxtrack_http_connections_refused_total").await - refused0;
            println!(
                "    {n} idle sockets: server RSS {} → {} MiB, descriptors {fds0} → {fds1}, {refused} connections refused; after the header timeout: {} open",
                rss0 / 1024,
                rss1 / 1024,
                metric(base, "boxtrack_http_connections").await
            );
            seen
        }
        other => return Err(format!("unknown run {other}").into()),
    };
    println!(
        "  {kind}: victim p50 {:.2} ms, p99 {:.2} ms, {} answered, {} refused 503, {} failed",
        seen.p50_ms, seen.p99_ms, seen.ok, seen.refused, seen.failed
    );
    Ok(seen)
}

/// The keys of the accounts in the run.
struct Keys {
    victim: String,
    limited: String,
    lifted: String,
}

async fn bench(seconds: u64, flood_connections: usize, idle_over_cap: usize) -> Res<()> {
    let lifted = Limits([(Bucket::Default, 100_000_000)].into_iter().collect());
    let (db, database, _, victim_key) = boxtrack_bench::fresh_account(lifted.clone()).await?;
    let key_of = |name: &str, limits: Limits| {
        let db = db.clone();
        let name = name.to_string();
        async move {
            let (_, _, key) = accounts::create(
                &db,
                NewAccount {
                    name,
                    plan: Plan::Standard,
                    entitlements: vec![],
                    rate_limits: limits,
                },
            )
            .await?;
            Ok::<_, Box<dyn std::error::Error>>(key.expose().to_string())
        }
    };
    let keys = Keys {
        victim: victim_key.expose().to_string(),
        limited: key_of("flooder (default limits)", Limits::default()).await?,
        lifted: key_of("neighbour (limits lifted)", lifted).await?,
    };
    db.close().await;
    let mut cmd = pinned(&boxtrack_bench::load::boxtrack_bin()?);
    cmd.args([
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--max-connections",
        &CAP.to_string(),
        "--database-url",
        &database.url,
    ]);
    cmd.env("RUST_LOG", "warn");
    let server = start(cmd)?;
    println!(
        "boxtrack serve on {} ({}), victim at {VICTIM_RATE} requests/s, {seconds} s runs",
        server.base,
        if database.url.starts_with("postgres") {
            "PostgreSQL"
        } else {
            "SQLite"
        }
    );
    let kinds = [
        "alone",
        "flood-limited",
        "flood-admitted",
        "idle-under-cap",
        "idle-over-cap",
    ];
    let mut results: BTreeMap<&str, Vec<Seen>> = BTreeMap::new();
    for round in 1..=3 {
        println!("round {round}");
        for kind in kinds {
            let seen = one_run(
                kind,
                &server,
                &keys,
                seconds,
                flood_connections,
                idle_over_cap,
            )
            .await?;
            results.entry(kind).or_default().push(seen);
        }
    }
    println!("\n| run | victim p50 ms | victim p99 ms | refused (503) | failed |");
    println!("|---|---|---|---|---|");
    for kind in kinds {
        let runs = &results[kind];
        let (p50, p50_lo, p50_hi) = median_min_max(runs.iter().map(|s| s.p50_ms).collect());
        let (p99, p99_lo, p99_hi) = median_min_max(runs.iter().map(|s| s.p99_ms).collect());
        let refused: usize = runs.iter().map(|s| s.refused).sum();
        let failed: usize = runs.iter().map(|s| s.failed).sum();
        println!(
            "| {kind} | {p50:.2} ({p50_lo:.2}–{p50_hi:.2}) | {p99:.2} ({p99_lo:.2}–{p99_hi:.2}) | {refused} | {failed} |"
        );
    }
    drop(server);
    drop(database);
    Ok(())
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seconds: u64 = args.first().map_or(Ok(10), |s| s.parse())?;
    let flood_connections: usize = args.get(1).map_or(Ok(64), |s| s.parse())?;
    let idle_over_cap: usize = args.get(2).map_or(Ok(10_000), |s| s.parse())?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(bench(seconds, flood_connections, idle_over_cap))
}
