//! Lists that do not grow with the account (issue 25, target 2): the cost of `GET
//! /v2/containers` in an account of a million containers against the same request in an
//! account of ten thousand, in the same run on the same database.
//!
//! ```sh
//! cargo build --release -p boxtrack-bench
//! export DATABASE_URL=sqlite:///tmp/big.db          # or postgres://…
//! ./target/release/bench-seed 1000000 200000 100 seed.json     # 100 accounts of 10,000
//! ./target/release/bench-seed 1000000 200000 1 seed-one.json   # one account of 1,000,000
//! taskset -c 0 ./target/release/bench-lists seed-one.json seed.json [DEPTH] [REPEAT]
//! ```
//!
//! The large account is the first of the first seed file, the small one the first of the
//! second. Measured for each: page 1 unfiltered (the total is the account's maintained
//! count), page 1 with a filter that every container matches (the total is counted up to its
//! cap), page 1 with a filter that no container matches, and a page reached by following `links.next` `DEPTH` pages deep (default 5,000; in the
//! small account, its last full page). Page size 30 (the default). Each request is repeated
//! `REPEAT` times (default 30) per run, three runs, alternating the accounts; the table gives
//! the median of the runs' medians with min–max, and the ratio large / small. The server is
//! boxtrack's router in this process (one thread, pinned with the process by `taskset`), with
//! an in-process rate limiter, so what is measured is the query and rendering path.

use std::time::{Duration, Instant};

use boxtrack_api::ApiConfig;
use boxtrack_store::Db;
use serde_json::Value;

use boxtrack_bench::Res;

struct Account {
    key: String,
    containers: u64,
}

fn first_account(seed: &Value) -> Res<Account> {
    let a = &seed["accounts"][0];
    Ok(Account {
        key: a["key"].as_str().ok_or("a seed file without a key")?.into(),
        containers: a["containers"].as_u64().unwrap_or(0),
    })
}

async fn get(client: &reqwest::Client, url: &str, key: &str) -> Res<(Duration, Value)> {
    let started = Instant::now();
    let res = client
        .get(url)
        .header("Authorization", format!("Token {key}"))
        .send()
        .await?;
    let status = res.status();
    let body: Value = res.json().await?;
    let took = started.elapsed();
    if !status.is_success() {
        return Err(format!("{url}: {status} {body}").into());
    }
    Ok((took, body))
}

/// Follows `links.next` from `start` at most `depth - 1` times; the URL of the page reached
/// and its number.
async fn walk(
    client: &reqwest::Client,
    start: &str,
    key: &str,
    depth: usize,
) -> Res<(String, usize)> {
    let mut url = start.to_string();
    let mut page = 1;
    let started = Instant::now();
    while page < depth {
        let (_, body) = get(client, &url, key).await?;
        let Some(next) = body["links"]["next"].as_str() else {
            break;
        };
        url = next.to_string();
        page += 1;
        if page % 500 == 0 {
            eprint!(
                "\r  walked {page} pages in {:.0} s   ",
                started.elapsed().as_secs_f64()
            );
        }
    }
    eprintln!();
    Ok((url, page))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let large_seed: Value = serde_json::from_slice(&std::fs::read(
        args.first().map_or("seed-one.json", String::as_str),
    )?)?;
    let small_seed: Value = serde_json::from_slice(&std::fs::read(
        args.get(1).map_or("seed.json", String::as_str),
    )?)?;
    let depth: usize = args.get(2).map_or(Ok(5_000), |s| s.parse())?;
    let repeat: usize = args.get(3).map_or(Ok(30), |s| s.parse())?;
    let url = large_seed["database_url"]
        .as_str()
        .ok_or("seed file without database_url")?;
    if small_seed["database_url"].as_str() != Some(url) {
        return Err("both seed files must name the same database".into());
    }
    let large = first_account(&large_seed)?;
    let small = first_account(&small_seed)?;

    let db = Db::connect(url).await?;
    db.migrate().await?;
    let (base, shutdown) = boxtrack_bench::serve_in_process(&db, ApiConfig::default()).await?;
    let client = reqwest::Client::new();

    // a status every seeded container has, so the filter matches every row
    let (_, first) = get(&client, &format!("{base}/v2/containers"), &large.key).await?;
    let status = first["data"][0]["attributes"]["current_status"]
        .as_str()
        .ok_or("the large account has no containers")?
        .to_string();
    let page1 = format!("{base}/v2/containers");
    let filtered = format!("{base}/v2/containers?filter[current_status]={status}");
    // a status no seeded container has: the filter matches nothing, the worst case for a
    // list that would have to walk the account to find its rows
    let other = if status == "available" {
        "on_ship"
    } else {
        "available"
    };
    let selective = format!("{base}/v2/containers?filter[current_status]={other}");
    eprintln!("walking {depth} pages by links.next in each account…");
    let (deep_large, reached_large) = walk(&client, &page1, &large.key, depth).await?;
    // the small account's deepest full page (a partial last page would render fewer rows)
    let small_depth = depth.min(usize::try_from(small.containers / 30).unwrap_or(1).max(1));
    let (deep_small, reached_small) = walk(&client, &page1, &small.key, small_depth).await?;

    let cases = [
        ("page 1".to_string(), page1.clone(), page1.clone()),
        (
            "page 1, filter[current_status] (every row matches)".to_string(),
            filtered.clone(),
            filtered.clone(),
        ),
        (
            format!("page 1, filter[current_status]={other} (no row matches)"),
            selective.clone(),
            selective.clone(),
        ),
        (
            format!("page {reached_large} / page {reached_small}, by links.next"),
            deep_large,
            deep_small,
        ),
    ];
    println!(
        "backend: {:?}; large account: {} containers; small account: {} containers; {repeat} requests per run, 3 runs\n",
        db.backend(),
        large.containers,
        small.containers
    );
    println!(
        "| request | {} containers | {} containers | large / small |",
        large.containers, small.containers
    );
    println!("|---|---:|---:|---:|");
    for (name, large_url, small_url) in cases {
        let mut runs: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
        for _ in 0..3 {
            for (i, (url, key)) in [(&large_url, &large.key), (&small_url, &small.key)]
                .into_iter()
                .enumerate()
            {
                let mut took = Vec::with_capacity(repeat);
                for _ in 0..repeat {
                    took.push(get(&client, url, key).await?.0);
                }
                runs[i].push(median(took));
            }
        }
        let show = |mut v: Vec<Duration>| {
            v.sort();
            format!(
                "{:.2} ms ({:.2}–{:.2})",
                ms(v[1]),
                ms(v[0]),
                ms(v[v.len() - 1])
            )
        };
        let ratio = ms(median(runs[0].clone())) / ms(median(runs[1].clone()));
        println!(
            "| {name} | {} | {} | {ratio:.2} |",
            show(runs[0].clone()),
            show(runs[1].clone())
        );
    }
    shutdown.cancel();
    Ok(())
}
