//! What the webhook delivery benchmarks share: a counting receiver, the set-up (an account,
//! one webhook, N pending notifications), the plain-POST baseline and CPU readings.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use boxtrack_core::plan::Plan;
use boxtrack_core::ratelimit::Limits;
use boxtrack_store::Db;
use boxtrack_store::events::NewEvent;
use boxtrack_store::webhooks::NewWebhook;

use crate::Res;

/// CPU seconds (user + system) this process has used so far, from `/proc/self/stat`
/// (Linux; 0 elsewhere). Clock ticks are taken as 1/100 s, the Linux default.
pub fn cpu_secs() -> f64 {
    std::fs::read_to_string("/proc/self/stat").map_or(0.0, |s| stat_cpu_secs(&s))
}

/// CPU seconds used so far by every process named `postgres` on this machine (the database
/// server when it runs here; 0 on SQLite or elsewhere).
pub fn postgres_cpu_secs() -> f64 {
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

/// A receiver on loopback that answers 204 and counts what it received; returns its URL.
pub async fn receiver() -> Res<(String, Arc<AtomicU64>)> {
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
    Ok((url, count))
}

/// Arrival times (Unix µs) of deliveries by notification id (the `webhook-id` header).
pub type Arrivals = Arc<std::sync::Mutex<std::collections::HashMap<uuid::Uuid, i64>>>;

/// A receiver on loopback: `/ok` answers 204 at once and notes each delivery's arrival by its
/// `webhook-id`; `/slow` answers after a minute. Returns its base URL.
pub async fn recording_receiver(arrivals: Arrivals) -> Res<String> {
    let app = axum::Router::new()
        .route(
            "/ok",
            axum::routing::post(move |headers: axum::http::HeaderMap| {
                let arrivals = arrivals.clone();
                async move {
                    let at = boxtrack_store::now_us();
                    if let Some(id) = headers
                        .get("webhook-id")
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| uuid::Uuid::parse_str(v).ok())
                    {
                        arrivals
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .insert(id, at);
                    }
                    axum::http::StatusCode::NO_CONTENT
                }
            }),
        )
        .route(
            "/slow",
            axum::routing::post(|| async {
                tokio::time::sleep(std::time::Duration::from_secs(60)).await;
                axum::http::StatusCode::NO_CONTENT
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(base)
}

/// A fresh database (SQLite in a temporary folder, or a schema of `DATABASE_URL`) holding an
/// account, one webhook to `url` for `tracking_request.succeeded`, and `n` such events, so `n`
/// pending notifications. Returns the database and the database handle to keep alive.
pub async fn set_up(url: &str, n: usize) -> Res<(Db, boxtrack_testkit::TestDatabase)> {
    let (db, database, account, _) = crate::fresh_account(Limits::default()).await?;
    boxtrack_store::webhooks::create(
        &db,
        account.id,
        &NewWebhook {
            url: url.to_string(),
            active: true,
            events: vec!["tracking_request.succeeded".into()],
            headers: BTreeMap::new(),
            secret: boxtrack_core::webhooks::generate_secret(),
        },
    )
    .await?;
    let tr = succeeding_request(&db, account.id).await?;
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
        crate::append_events(&db, account.id, &entries).await?;
    }
    Ok((db, database))
}

/// A tracking request of the sandbox that succeeds (`TEST-TR-SUCCEEDED`), created in
/// `account`: what the benchmarks' `tracking_request.succeeded` events are about.
pub async fn succeeding_request(
    db: &Db,
    account: uuid::Uuid,
) -> Res<boxtrack_store::tracking::TrackingRequestRow> {
    let request = boxtrack_core::requests::validate(&boxtrack_core::requests::NewRequest {
        request_number: Some("TEST-TR-SUCCEEDED".into()),
        request_type: Some("bill_of_lading".into()),
        scac: Some("TEST".into()),
        ..Default::default()
    })
    .map_err(|e| format!("{e:?}"))?;
    Ok(boxtrack_store::tracking::create_request(
        db,
        account,
        Plan::Standard,
        &request,
        &Default::default(),
    )
    .await?)
}

/// The baseline: `body` POSTed `n` times to `url` with plain reqwest, `concurrency` at once.
/// Returns its wall time and the CPU this process used meanwhile, in seconds.
pub async fn plain_posts(url: &str, body: &str, n: usize, concurrency: usize) -> Res<(f64, f64)> {
    let client = reqwest::Client::new();
    let cpu0 = cpu_secs();
    let started = Instant::now();
    let mut tasks = Vec::new();
    for w in 0..concurrency {
        let client = client.clone();
        let url = url.to_string();
        let body = body.to_string();
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
    Ok((started.elapsed().as_secs_f64(), cpu_secs() - cpu0))
}

/// One run of a delivery pipeline and of the baseline after it.
pub struct Measured {
    /// What the pipeline does, for its line (`pipeline (<what>): …`).
    pub what: &'static str,
    /// Deliveries the pipeline recorded, and requests the receiver counted meanwhile.
    pub delivered: usize,
    pub received: u64,
    /// The pipeline's wall time, this process's CPU and the PostgreSQL server's, in seconds.
    pub pipeline_s: f64,
    pub pipeline_cpu_s: f64,
    pub pipeline_db_cpu_s: f64,
    /// Plain POSTs received, the baseline's wall time and CPU, in seconds.
    pub plain: u64,
    pub baseline_s: f64,
    pub baseline_cpu_s: f64,
}

/// Prints a run's rates, CPU per request and ratio, in lines whose form scripts rely on.
pub fn report(m: &Measured) {
    let per = |cpu: f64, n: f64| cpu * 1e6 / n.max(1.0);
    let (delivered, plain) = (m.delivered as f64, m.plain as f64);
    println!(
        "pipeline ({}): {} deliveries ({} received) in {:.2} s = {:.0}/s",
        m.what,
        m.delivered,
        m.received,
        m.pipeline_s,
        delivered / m.pipeline_s
    );
    println!(
        "baseline (plain POSTs of the same body): {} in {:.2} s = {:.0}/s",
        m.plain,
        m.baseline_s,
        plain / m.baseline_s
    );
    println!(
        "CPU per request, receiver included: pipeline {:.0} µs, baseline {:.0} µs",
        per(m.pipeline_cpu_s, delivered),
        per(m.baseline_cpu_s, plain)
    );
    if m.pipeline_db_cpu_s > 0.0 {
        println!(
            "database server CPU per delivery (PostgreSQL processes on this machine): {:.0} µs",
            per(m.pipeline_db_cpu_s, delivered)
        );
    }
    println!(
        "pipeline / baseline: {:.2}",
        (delivered / m.pipeline_s) / (plain / m.baseline_s)
    );
}
