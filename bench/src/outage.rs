//! What a client waits for while PostgreSQL is away: `boxtrack serve` reaches its database
//! through a TCP proxy that the bench closes (connections refused, the open ones broken, as a
//! restarting server does) and opens again, while a client polls `GET /v2/containers`. Baseline, same run: the same poll
//! against the healthy database.
//!
//! `cargo build --release --workspace && DATABASE_URL=postgres://root@127.0.0.1:5432/postgres
//! ./target/release/bench-outage [POLLS]` (uses `target/release/boxtrack`, or `BOXTRACK_BIN`;
//! a fresh database on that server). Prints the latencies: healthy, the request that finds the
//! database away (it waits out the pool's 10-second acquire timeout), every later poll of the
//! outage (one a second), and how long after the return the first 200 came.

use std::process::{Child, Command};

use std::time::{Duration, Instant};

use boxtrack_bench::Res;
use boxtrack_testkit::proxy::Proxy;

fn start(bin: &str, db_url: &str) -> Res<(Child, String)> {
    boxtrack_bench::start_serve(bin, db_url, &[])
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 10_000.0).round() / 10.0
}

#[tokio::main]
async fn main() -> Res<()> {
    let polls: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let bin = std::env::var("BOXTRACK_BIN").unwrap_or_else(|_| "target/release/boxtrack".into());
    let database = boxtrack_testkit::fresh().await;
    if !database.url.starts_with("postgres") {
        return Err(
            "set DATABASE_URL=postgres://… (the bench cuts a PostgreSQL server away)".into(),
        );
    }
    let out = Command::new(&bin)
        .args([
            "accounts", "create", "--name", "Outage", "--plan", "standard", "--json",
        ])
        .env("BOXTRACK_DATABASE_URL", &database.url)
        .output()?;
    let created: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let key = created["api_key"].as_str().ok_or("no api key")?.to_string();
    let url = reqwest::Url::parse(&database.url)?;
    let target = format!(
        "{}:{}",
        url.host_str().unwrap_or("127.0.0.1"),
        url.port().unwrap_or(5432)
    );
    let proxy = Proxy::start(target).await?;
    let mut through = url.clone();
    through
        .set_port(Some(proxy.addr.port()))
        .map_err(|_| "cannot set the port")?;
    through
        .set_host(Some("127.0.0.1"))
        .map_err(|_| "cannot set the host")?;
    let (mut server, base) = start(&bin, through.as_str())?;
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()?;
    let poll = || async {
        let t = Instant::now();
        let status = http
            .get(format!("{base}/v2/containers"))
            .header("Authorization", format!("Token {key}"))
            .send()
            .await
            .map(|r| r.status().as_u16())
            .unwrap_or(0);
        (status, t.elapsed())
    };

    // baseline: the healthy database, same process, same poll
    let mut healthy = Vec::new();
    for _ in 0..(polls * 4) {
        let (status, took) = poll().await;
        if status == 200 {
            healthy.push(took);
        }
    }
    healthy.sort();

    proxy.refuse().await;
    let (first_status, first) = poll().await;
    let mut away = Vec::new();
    for _ in 0..polls {
        tokio::time::sleep(Duration::from_secs(1)).await;
        away.push(poll().await);
    }
    proxy.listen_again().await?;
    let back_at = Instant::now();
    let mut recovered = None;
    for _ in 0..60 {
        let (status, _) = poll().await;
        if status == 200 {
            recovered = Some(back_at.elapsed());
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let _ = server.kill();
    let _ = server.wait();

    let median = |v: &[Duration]| v.get(v.len() / 2).copied().unwrap_or_default();
    let mut later: Vec<Duration> = away.iter().map(|(_, d)| *d).collect();
    later.sort();
    println!("| measure | figure |");
    println!("|---|---|");
    println!(
        "| healthy poll, median of {} (baseline) | {} ms |",
        healthy.len(),
        ms(median(&healthy))
    );
    println!(
        "| the poll that finds the database away | {} ms (HTTP {first_status}) |",
        ms(first)
    );
    println!(
        "| later polls of the outage, one a second: median / max of {} | {} ms / {} ms (HTTP {}) |",
        later.len(),
        ms(median(&later)),
        ms(later.last().copied().unwrap_or_default()),
        away.iter()
            .map(|(s, _)| s.to_string())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
            .join(", ")
    );
    match recovered {
        Some(d) => println!("| first 200 after the database returns | {} ms |", ms(d)),
        None => println!("| first 200 after the database returns | not within 6 s |"),
    }
    Ok(())
}
