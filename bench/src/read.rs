//! The read path as a client feels it (issue 25, target 1): requests per second at
//! saturation and latency at half that rate, for boxtrack `serve` against a baseline server
//! that answers the same bytes from memory over the same HTTP stack (axum on hyper, through
//! `boxtrack_api::serve`) without a key or a database, in the same run on the same machine.
//!
//! ```sh
//! cargo build --release -p boxtrack -p boxtrack-bench
//! DATABASE_URL=sqlite:///tmp/big.db ./target/release/bench-seed            # writes seed.json
//! taskset -c 0 ./target/release/bench-read seed.json [KIND] [CONNECTIONS] [SECONDS]
//! ```
//!
//! `KIND` is `container` (default: `GET /v2/containers/{id}?include=shipment` over the seeded
//! sample of every account), `list` (`GET /v2/containers`, page 1 of each account),
//! `shipments` (`GET /v2/shipments`, page 1 of each account),
//! `shipping-lines` (`GET /v2/shipping_lines`, answered from memory) or `healthz`.
//! Defaults: 32 connections, 10 seconds per run after a 2-second warm-up, three runs of each
//! server alternating; medians with min–max. The load generator is one thread (run it under
//! `taskset -c 0`); both servers run under `taskset -c 1` (`BENCH_SERVER_CPUS` changes that),
//! so the two do not share a core. The database server (PostgreSQL) is not pinned.
//!
//! The floor: every run also measures a bare axum server (`axum::serve`, the same axum, tokio
//! and serde_json as boxtrack, no layers) answering `{"status":"ok"}` on `GET /healthz`, in
//! the same rounds; boxtrack's rate is reported as a share of it. (Figures before 2026-11-28
//! were relative to the in-memory baseline or to boxtrack's own `/healthz`, whose cost grew
//! with the request path and hid it.)
//!
//! `BOXTRACK_BIN` names the boxtrack binary (default: `boxtrack` next to this one); extra
//! arguments for `serve` go in `BOXTRACK_SERVE_ARGS` (for example
//! `--rate-limit-store redis://127.0.0.1:6379`, or `--read-cache-mib 0` to render every
//! request). Fetching every body for the baseline warms boxtrack's read cache; the run ends
//! with its hit and miss counts.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{OriginalUri, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use boxtrack_bench::Res;
use boxtrack_bench::load::{Call, median_min_max, pinned, run, start};

/// The floor's answer.
#[derive(serde::Serialize)]
struct Health {
    status: &'static str,
}

/// The floor: the HTTP stack alone — a bare axum server on `axum::serve`, no layers, one
/// route answering a small JSON body.
async fn floor() -> Res<()> {
    async fn healthz() -> axum::Json<Health> {
        axum::Json(Health { status: "ok" })
    }
    let app = Router::new().route("/healthz", axum::routing::get(healthz));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app).await?;
    Ok(())
}

/// The baseline: every body answered from memory by key and path (one map lookup, no key
/// check), with the content type boxtrack gives, over `boxtrack_api::serve`.
async fn baseline(bodies: &str) -> Res<()> {
    let map: HashMap<String, String> = serde_json::from_slice(&std::fs::read(bodies)?)?;
    let map: Arc<HashMap<String, Bytes>> = Arc::new(
        map.into_iter()
            .map(|(k, v)| (k, Bytes::from(v.into_bytes())))
            .collect(),
    );
    async fn answer(
        State(map): State<Arc<HashMap<String, Bytes>>>,
        OriginalUri(uri): OriginalUri,
        headers: axum::http::HeaderMap,
    ) -> Response {
        let path = uri.path_and_query().map_or("/", |p| p.as_str());
        let key = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Token "))
            .unwrap_or_default();
        match map.get(&format!("{key} {path}")) {
            Some(body) => {
                let mut r = body.clone().into_response();
                r.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/vnd.api+json"),
                );
                r
            }
            None => StatusCode::NOT_FOUND.into_response(),
        }
    }
    let app = Router::new().fallback(answer).with_state(map);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("listening on http://{}", listener.local_addr()?);
    boxtrack_api::serve(listener, app, tokio_util::sync::CancellationToken::new()).await?;
    Ok(())
}

async fn bench(seed: &str, kind: &str, connections: usize, seconds: u64) -> Res<()> {
    let seed: Value = serde_json::from_slice(&std::fs::read(seed)?)?;
    let url = seed["database_url"]
        .as_str()
        .ok_or("seed file without database_url")?;
    let accounts = seed["accounts"]
        .as_array()
        .ok_or("seed file without accounts")?;
    let mut calls = Vec::new();
    for a in accounts {
        let key = a["key"]
            .as_str()
            .ok_or("an account without key")?
            .to_string();
        match kind {
            "container" => {
                for id in a["sample"].as_array().into_iter().flatten() {
                    let id = id.as_str().ok_or("a sample id is not a string")?;
                    calls.push(Call {
                        path: format!("/v2/containers/{id}?include=shipment"),
                        key: key.clone(),
                    });
                }
            }
            "list" => calls.push(Call {
                path: "/v2/containers".into(),
                key,
            }),
            "shipments" => calls.push(Call {
                path: "/v2/shipments".into(),
                key,
            }),
            "shipping-lines" => calls.push(Call {
                path: "/v2/shipping_lines".into(),
                key,
            }),
            "healthz" => calls.push(Call {
                path: "/healthz".into(),
                key,
            }),
            other => return Err(format!("unknown KIND {other}").into()),
        }
    }
    if calls.is_empty() {
        return Err("nothing to request: the seed file has no accounts or samples".into());
    }
    let me = std::env::current_exe()?;
    let mut cmd = pinned(&boxtrack_bench::load::boxtrack_bin()?);
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--database-url", url]);
    if let Ok(extra) = std::env::var("BOXTRACK_SERVE_ARGS") {
        cmd.args(extra.split_whitespace());
    }
    cmd.env("RUST_LOG", "warn");
    let spawned = Instant::now();
    let server = start(cmd)?;
    // start to ready: the first 200 from /readyz
    let http = reqwest::Client::new();
    loop {
        let r = http.get(format!("{}/readyz", server.base)).send().await;
        if r.is_ok_and(|r| r.status().is_success()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let ready_after = spawned.elapsed();
    println!(
        "boxtrack serve: listening after {:.0} ms, /readyz 200 after {:.0} ms, resident {} MiB",
        server.listening_after.as_secs_f64() * 1e3,
        ready_after.as_secs_f64() * 1e3,
        server.rss_kib().unwrap_or(0) / 1024
    );

    // the bytes boxtrack answers, for the baseline to answer from memory
    let mut bodies = HashMap::new();
    for c in &calls {
        let r = http
            .get(format!("{}{}", server.base, c.path))
            .header("Authorization", format!("Token {}", c.key))
            .send()
            .await?;
        if !r.status().is_success() {
            return Err(format!("{} answered {}", c.path, r.status()).into());
        }
        // a list's body differs per account: the baseline answers by key and path
        bodies.insert(format!("{} {}", c.key, c.path), r.text().await?);
    }
    let mean_len = bodies.values().map(String::len).sum::<usize>() / bodies.len();
    let file = std::env::temp_dir().join(format!("bench-read-{}.json", std::process::id()));
    std::fs::write(&file, serde_json::to_vec(&bodies)?)?;
    let mut bcmd = pinned(&me);
    bcmd.arg("baseline").arg(&file);
    let base_server = start(bcmd)?;
    let mut fcmd = pinned(&me);
    fcmd.arg("floor");
    let floor_server = start(fcmd)?;
    let floor_calls = Arc::new(vec![Call {
        path: "/healthz".into(),
        key: calls[0].key.clone(),
    }]);

    let calls = Arc::new(calls);
    println!(
        "{kind}: {} distinct requests, {mean_len} bytes on average, {connections} connections, {seconds} s per run, boxtrack at {} on {}",
        calls.len(),
        server.base,
        url.split("://").next().unwrap_or("?")
    );
    let mut rates: [Vec<f64>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    for round in 1..=3 {
        for (i, (name, base)) in [
            ("baseline", &base_server.base),
            ("boxtrack", &server.base),
            ("floor", &floor_server.base),
        ]
        .into_iter()
        .enumerate()
        {
            let proc_ = [&base_server, &server, &floor_server][i];
            let asked = if i == 2 { &floor_calls } else { &calls };
            let before = proc_.cpu_ticks();
            let o = run(&[base.as_str()], asked, connections, seconds, None).await?;
            // the warm-up's requests are not counted in the rate: CPU over the measured part
            let cpu_us = (proc_.cpu_ticks() - before) as f64 * 10_000.0 * seconds as f64
                / (seconds as f64 + 2.0);
            println!(
                "  run {round} {name:<8} {:>8.0} req/s  p50 {:>6} µs  p99 {:>6} µs  failed {}  server CPU {:.0} µs/request",
                o.rate,
                o.p50_us,
                o.p99_us,
                o.failed,
                cpu_us / (o.rate * seconds as f64).max(1.0)
            );
            rates[i].push(o.rate);
        }
    }
    let (b, bmin, bmax) = median_min_max(rates[0].clone());
    let (x, xmin, xmax) = median_min_max(rates[1].clone());
    println!("baseline: {b:.0} req/s (min {bmin:.0}, max {bmax:.0})");
    println!("boxtrack: {x:.0} req/s (min {xmin:.0}, max {xmax:.0})");
    let (f, fmin, fmax) = median_min_max(rates[2].clone());
    println!("floor (bare axum GET /healthz): {f:.0} req/s (min {fmin:.0}, max {fmax:.0})");
    println!("boxtrack / baseline: {:.1}%", 100.0 * x / b);
    println!(
        "boxtrack / floor: {:.1}% (baseline / floor: {:.1}%)",
        100.0 * x / f,
        100.0 * b / f
    );
    // latency at half of boxtrack's saturation rate, both servers at the same offered load
    let half = x / 2.0;
    for (name, base) in [("baseline", &base_server.base), ("boxtrack", &server.base)] {
        let o = run(&[base.as_str()], &calls, connections, seconds, Some(half)).await?;
        println!(
            "at {half:.0} req/s offered, {name}: {:.0} req/s served, p50 {} µs, p99 {} µs, failed {}",
            o.rate, o.p50_us, o.p99_us, o.failed
        );
    }
    // how many of boxtrack's answers came from its read cache (`--read-cache-mib`)
    let metrics = http
        .get(format!("{}/metrics", server.base))
        .send()
        .await?
        .text()
        .await?;
    let counter = |result: &str| {
        let prefix = format!("boxtrack_read_cache_requests_total{{result=\"{result}\"}} ");
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .and_then(|n| n.trim().parse::<u64>().ok())
            .unwrap_or(0)
    };
    let (hits, misses) = (counter("hit"), counter("miss"));
    println!(
        "read cache: {hits} hits, {misses} misses ({:.1}% hits)",
        100.0 * hits as f64 / (hits + misses).max(1) as f64
    );
    println!(
        "resident memory after the runs: boxtrack {} MiB ({} MiB its own, the rest mapped database pages), baseline {} MiB (baseline listening after {:.0} ms)",
        server.rss_kib().unwrap_or(0) / 1024,
        server.anon_kib().unwrap_or(0) / 1024,
        base_server.rss_kib().unwrap_or(0) / 1024,
        base_server.listening_after.as_secs_f64() * 1e3
    );
    drop(floor_server);
    drop(base_server);
    drop(server);
    let _ = std::fs::remove_file(file);
    Ok(())
}

/// What `--help` prints.
const HELP: &str = "bench-read SEED.json [KIND] [CONNECTIONS] [SECONDS]

Requests a second of `boxtrack serve` (BOXTRACK_BIN, with BOXTRACK_SERVE_ARGS) against a
bare axum floor and an in-memory baseline, in the same rounds; run it under `taskset -c 0`.
SEED.json is what bench-seed wrote. KIND: container (default; GET /v2/containers/{id}
?include=shipment over each account's sample), list (GET /v2/containers, page 1 of each
account), shipments (GET /v2/shipments, page 1 of each account), shipping-lines or healthz.
Defaults: 32 connections, 10 seconds a run. `--read-cache-mib 0` in BOXTRACK_SERVE_ARGS
renders every request.
";

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if matches!(args.first().map(String::as_str), Some("--help" | "-h")) {
        print!("{HELP}");
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("baseline") {
        // the baseline server: as many threads as its cpus allow, like boxtrack's
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        return rt.block_on(baseline(args.get(1).ok_or("baseline FILE")?));
    }
    if args.first().map(String::as_str) == Some("floor") {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        return rt.block_on(floor());
    }
    let seed = args.first().map_or("seed.json", String::as_str);
    let kind = args.get(1).map_or("container", String::as_str);
    let connections: usize = args.get(2).map_or(Ok(32), |s| s.parse())?;
    let seconds: u64 = args.get(3).map_or(Ok(10), |s| s.parse())?;
    // the load generator: one thread
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(bench(seed, kind, connections, seconds))
}
