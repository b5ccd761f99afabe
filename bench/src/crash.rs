//! Crash test for webhook delivery: 10 000 events are appended while `boxtrack serve` delivers
//! them to a local receiver; the service is killed with SIGKILL at random moments (at least
//! five times) and restarted. At the end every event must have reached the receiver at least
//! once; duplicates carry the same `data.id`. Prints the number of lost events (must be 0) and
//! exits non-zero if any was lost.
//!
//! `cargo build --release --workspace && ./target/release/bench-crash [EVENTS] [KILLS]`
//! (uses `target/release/boxtrack`; SQLite in a temporary folder, or PostgreSQL when
//! `DATABASE_URL=postgres://…` is set).

use std::collections::{BTreeMap, HashMap};
use std::process::Child;
use std::sync::Arc;
use std::time::{Duration, Instant};

use boxtrack_store::Db;
use boxtrack_store::events::NewEvent;
use tokio::sync::Mutex;

use boxtrack_bench::Res;

fn start(bin: &str, db_url: &str) -> Res<(Child, String)> {
    boxtrack_bench::start_serve(bin, db_url, &["--allow-private-webhook-urls"])
}

#[tokio::main]
async fn main() -> Res<()> {
    let events: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let kills: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(6);
    let bin = std::env::var("BOXTRACK_BIN").unwrap_or_else(|_| "target/release/boxtrack".into());

    // the receiver: counts deliveries per data.id
    let seen: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let store = seen.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: axum::body::Bytes| {
            let store = store.clone();
            async move {
                if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&body)
                    && let Some(id) = v["data"]["id"].as_str()
                {
                    *store.lock().await.entry(id.to_string()).or_default() += 1;
                }
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let hook_url = format!("http://{}/hook", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });

    // the database, an account and a webhook
    // SQLite in a temporary folder, or a fresh schema of DATABASE_URL's PostgreSQL
    let database = boxtrack_testkit::fresh().await;
    let db_url = database.url.clone();
    let db = Db::connect(&db_url).await?;
    db.migrate().await?;
    let (account, _, _) = boxtrack_store::accounts::create(
        &db,
        boxtrack_store::accounts::NewAccount {
            name: "crash".into(),
            plan: boxtrack_core::plan::Plan::Standard,
            entitlements: vec![],
            rate_limits: Default::default(),
        },
    )
    .await?;
    boxtrack_store::webhooks::create(
        &db,
        account.id,
        &boxtrack_store::webhooks::NewWebhook {
            url: hook_url,
            active: true,
            events: vec!["tracking_request.succeeded".into()],
            headers: BTreeMap::new(),
            secret: boxtrack_core::webhooks::generate_secret(),
        },
    )
    .await?;

    let (mut child, _) = start(&bin, &db_url)?;
    let mut rng: u64 = (Instant::now().elapsed().as_nanos() as u64)
        ^ 0x9E37_79B9_7F4A_7C15
        ^ u64::from(std::process::id());
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let started = Instant::now();
    let per_kill = events / (kills + 1);
    let mut appended = 0;
    let mut killed = 0;
    while appended < events {
        let n = 100.min(events - appended);
        let entries: Vec<NewEvent> = (0..n)
            .map(|_| NewEvent {
                event: "tracking_request.succeeded".into(),
                object_type: "tracking_request",
                object_id: uuid::Uuid::now_v7(),
                payload: serde_json::json!({}),
            })
            .collect();
        boxtrack_bench::append_events(&db, account.id, &entries).await?;
        appended += n;
        if killed < kills && appended >= per_kill * (killed + 1) {
            // a random moment: let it work for 0-400 ms, then SIGKILL and restart
            tokio::time::sleep(Duration::from_millis(next() % 400)).await;
            child.kill()?;
            child.wait()?;
            killed += 1;
            (child, _) = start(&bin, &db_url)?;
        }
    }
    // wait for the rest (on PostgreSQL a killed worker's claims are taken again when their
    // lease expires; on SQLite the restarted process takes them at once)
    let expected: Vec<String> = {
        let rows: Vec<uuid::Uuid> = boxtrack_store::on_db!(&db, p => sqlx::query_scalar("SELECT id FROM webhook_notifications").fetch_all(p).await?);
        rows.into_iter().map(|u| u.to_string()).collect()
    };
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let got = seen.lock().await;
        let missing = expected.iter().filter(|id| !got.contains_key(*id)).count();
        drop(got);
        if missing == 0 || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    child.kill()?;
    child.wait()?;
    let got = seen.lock().await;
    let lost = expected.iter().filter(|id| !got.contains_key(*id)).count();
    let duplicates: usize = got.values().map(|c| c - 1).sum();
    println!(
        "events: {events}; notifications: {}; kills (SIGKILL + restart): {killed}; received: {} distinct, {duplicates} duplicate deliveries (same data.id); lost: {lost}; {:.1} s",
        expected.len(),
        got.len(),
        started.elapsed().as_secs_f64()
    );
    drop(database);
    if lost > 0 || expected.len() != events {
        return Err(format!("{lost} events lost").into());
    }
    Ok(())
}
