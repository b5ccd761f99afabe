//! Webhook delivery benchmark: N pending notifications delivered (claimed, rendered once,
//! signed, POSTed, recorded) to a local receiver, compared in the same run with a plain HTTP
//! load generator posting the same body to the same receiver N times at the same concurrency.
//!
//! `cargo run --release -p boxtrack-bench --bin bench-deliver -- [NOTIFICATIONS]`
//! (SQLite in a temporary folder; `DATABASE_URL=postgres://…` for PostgreSQL).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use boxtrack_core::plan::Plan;
use boxtrack_core::ratelimit::Limits;
use boxtrack_store::accounts::{self, NewAccount};
use boxtrack_store::events::NewEvent;
use boxtrack_store::webhooks::NewWebhook;
use boxtrack_store::{Db, on_db};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// CPU seconds (user + system) this process has used so far, from `/proc/self/stat`
/// (Linux; 0 elsewhere). Clock ticks are taken as 1/100 s, the Linux default.
fn cpu_secs() -> f64 {
    std::fs::read_to_string("/proc/self/stat").map_or(0.0, |s| stat_cpu_secs(&s))
}

/// CPU seconds used so far by every process named `postgres` on this machine (the database
/// server when it runs here; 0 on SQLite or elsewhere).
fn postgres_cpu_secs() -> f64 {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0.0;
    };
    dir.flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| stat.contains("(postgres)"))
        .map(|stat| stat_cpu_secs(&stat))
        .sum()
}

/// User + system CPU seconds in a `/proc/<pid>/stat` line (clock ticks taken as 1/100 s).
fn stat_cpu_secs(stat: &str) -> f64 {
    // fields after the parenthesised command name; utime and stime are the 14th and 15th
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or_default();
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) / 100.0
}

#[tokio::main]
async fn main() -> Res<()> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);

    // the receiver
    let count = Arc::new(AtomicU64::new(0));
    let c = count.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |_body: axum::body::Bytes| {
            let c = c.clone();
            async move {
                c.fetch_add(1, Ordering::Relaxed);
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/hook", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });

    // N pending notifications (setup, not measured)
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await?;
    db.migrate().await?;
    let (account, _, _) = accounts::create(
        &db,
        NewAccount {
            name: "bench".into(),
            plan: Plan::Standard,
            entitlements: vec![],
            rate_limits: Limits::default(),
        },
    )
    .await?;
    boxtrack_store::webhooks::create(
        &db,
        account.id,
        &NewWebhook {
            url: url.clone(),
            active: true,
            events: vec!["tracking_request.succeeded".into()],
            headers: BTreeMap::new(),
            secret: boxtrack_core::webhooks::generate_secret(),
        },
    )
    .await?;
    let request = boxtrack_core::requests::validate(&boxtrack_core::requests::NewRequest {
        request_number: Some("TEST-TR-SUCCEEDED".into()),
        request_type: Some("bill_of_lading".into()),
        scac: Some("TEST".into()),
        ..Default::default()
    })
    .map_err(|e| format!("{e:?}"))?;
    let tr =
        boxtrack_store::tracking::create_request(&db, account.id, Plan::Standard, &request).await?;
    for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
        let entries: Vec<NewEvent> = chunk
            .iter()
            .map(|_| NewEvent {
                event: "tracking_request.succeeded".into(),
                object_type: "tracking_request",
                object_id: tr.id,
                payload: serde_json::json!({"tracking_request_id": tr.id}),
            })
            .collect();
        let mut tx = db.begin().await?;
        boxtrack_store::events::append_many(
            &mut tx,
            account.id,
            &entries,
            boxtrack_store::now_us(),
        )
        .await?;
        tx.commit().await?;
    }

    // the pipeline
    let deliverer = boxtrack_api::delivery::Deliverer::new(
        db.clone(),
        Duration::from_secs(10),
        true,
        1_000_000,
    );
    eprintln!("set up; delivering");
    let cpu0 = cpu_secs();
    let db_cpu0 = postgres_cpu_secs();
    let started = Instant::now();
    // on a runtime worker, as `boxtrack serve` runs it
    let delivered = tokio::spawn(async move {
        let mut delivered = 0;
        loop {
            let made = deliverer.deliver_due(boxtrack_store::now_us()).await?;
            if made == 0 {
                break;
            }
            delivered += made;
        }
        Ok::<usize, boxtrack_store::StoreError>(delivered)
    })
    .await??;
    let pipeline = started.elapsed().as_secs_f64();
    let pipeline_cpu = cpu_secs() - cpu0;
    let pipeline_db_cpu = postgres_cpu_secs() - db_cpu0;
    let received = count.swap(0, Ordering::Relaxed);

    // the baseline: the same body, plain POSTs, at the deliverer's per-webhook concurrency
    let body: String = on_db!(&db, p => sqlx::query_scalar("SELECT body FROM webhook_bodies LIMIT 1").fetch_one(p).await?);
    eprintln!("delivered; running the baseline");
    let client = reqwest::Client::new();
    let concurrency = boxtrack_api::delivery::PER_ENDPOINT;
    let cpu0 = cpu_secs();
    let started = Instant::now();
    let mut tasks = Vec::new();
    for w in 0..concurrency {
        let client = client.clone();
        let url = url.clone();
        let body = body.clone();
        let share = n / concurrency + usize::from(w < n % concurrency);
        tasks.push(tokio::spawn(async move {
            for _ in 0..share {
                let _ = client
                    .post(&url)
                    .header("Content-Type", "application/json")
                    .body(body.clone())
                    .send()
                    .await;
            }
        }));
    }
    for t in tasks {
        t.await?;
    }
    let baseline = started.elapsed().as_secs_f64();
    let baseline_cpu = cpu_secs() - cpu0;
    let plain = count.load(Ordering::Relaxed);

    println!(
        "backend: {:?}; notifications: {n}; body: {} bytes; concurrency per webhook: {concurrency}",
        db.backend(),
        body.len()
    );
    println!(
        "pipeline (claim, render once, sign, POST, record): {delivered} deliveries ({received} received) in {pipeline:.2} s = {:.0}/s",
        delivered as f64 / pipeline
    );
    println!(
        "baseline (plain POSTs of the same body): {plain} in {baseline:.2} s = {:.0}/s",
        plain as f64 / baseline
    );
    println!(
        "CPU per request, receiver included: pipeline {:.0} µs, baseline {:.0} µs",
        pipeline_cpu * 1e6 / delivered.max(1) as f64,
        baseline_cpu * 1e6 / plain.max(1) as f64
    );
    if pipeline_db_cpu > 0.0 {
        println!(
            "database server CPU per delivery (PostgreSQL processes on this machine): {:.0} µs",
            pipeline_db_cpu * 1e6 / delivered.max(1) as f64
        );
    }
    println!(
        "pipeline / baseline: {:.2}",
        (delivered as f64 / pipeline) / (plain as f64 / baseline)
    );
    Ok(())
}
