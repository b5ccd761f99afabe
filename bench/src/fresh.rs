//! Freshness (issue 25, target 4): from a carrier's DCSA push accepted to the customer's
//! webhook received, while pushes arrive at a steady rate.
//!
//! ```sh
//! cargo build --release -p boxtrack-bench
//! ./target/release/bench-fresh [EVENTS_PER_SECOND] [SECONDS] [EVENTS_PER_PUSH]   # SQLite
//! DATABASE_URL=postgres://root@127.0.0.1:5432/test ./target/release/bench-fresh
//! ```
//!
//! Defaults: 500 signed DCSA 2.2 equipment events a second for 10 seconds, one event per push
//! (carriers batch: `EVENTS_PER_PUSH` 10 sends the same events in a tenth of the pushes), each
//! about a tracked container of bills of lading of 10 containers each (a vessel load at Busan, then a
//! discharge at Manzanillo, so every event changes its container and is announced). One
//! webhook subscribed to every event posts to a receiver on loopback. The router, the worker's
//! deliverer (`Deliverer::run`, as `serve` runs it) and the receiver share this process.
//! Reported: the push's round trip (sent to 204), and the delay from the notification's
//! creation (in the push's own transaction) to the receiver's arrival, p50 and p99.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use boxtrack_api::ApiConfig;
use boxtrack_core::plan::Plan;
use boxtrack_core::ratelimit::{Bucket, Limits};
use boxtrack_store::on_db;
use boxtrack_store::tracking::{self, NewContainer};
use boxtrack_store::webhooks::NewWebhook;
use uuid::Uuid;

use boxtrack_bench::Res;

/// Containers per bill of lading (every event's webhook carries its shipment with the
/// shipment's containers, so one bill of lading of thousands would measure that instead).
const PER_BL: usize = 10;

const SECRET: &str = "c2ltdWxhdGVkLWNhcnJpZXItcHVzaC1zZWNyZXQtMzJieXRlcw==";

/// An ISO 6346 number with a valid check digit.
fn container_number(n: usize) -> String {
    let body = format!("BTFU{:06}", n % 1_000_000);
    let digit = boxtrack_core::ident::check_digit(&body).unwrap_or(0);
    format!("{body}{digit}")
}

/// One DCSA 2.2 equipment event: `LOAD` at Busan or `DISC` at Manzanillo.
fn event(number: &str, load: bool, seq: usize) -> serde_json::Value {
    let (code, place, at) = if load {
        ("LOAD", "KRPUS", "2026-03-02T09:41:00+09:00")
    } else {
        ("DISC", "MXZLO", "2026-03-20T07:10:00-06:00")
    };
    serde_json::json!({
        "eventID": Uuid::from_u128(seq as u128 + 1).to_string(),
        "eventCreatedDateTime": "2026-03-20T14:00:00Z",
        "eventType": "EQUIPMENT", "eventClassifierCode": "ACT",
        "eventDateTime": at,
        "equipmentEventTypeCode": code, "equipmentReference": number,
        "ISOEquipmentCode": "45G1", "emptyIndicatorCode": "LADEN",
        "transportCall": {"transportCallID": format!("tc-{code}"), "modeOfTransport": "VESSEL",
            "UNLocationCode": place,
            "vessel": {"vesselIMONumber": "9352004", "vesselName": "MAERSK STEPNICA"}}
    })
}

fn pct(sorted: &[i64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)] as f64 / 1e3
}

#[tokio::main]
async fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let per_second: u32 = args.first().map_or(Ok(500), |s| s.parse())?;
    let seconds: u64 = args.get(1).map_or(Ok(10), |s| s.parse())?;
    let per_push: usize = args.get(2).map_or(Ok(1), |s| s.parse())?;
    let per_push = per_push.max(1);
    let total = (u64::from(per_second) * seconds) as usize;
    let containers = total.div_ceil(2);

    let (db, _database, account, _) = boxtrack_bench::fresh_account(Limits(
        [(Bucket::Default, 100_000_000)].into_iter().collect(),
    ))
    .await?;
    let arrivals: boxtrack_bench::hooks::Arrivals = Arc::default();
    let hook = format!(
        "{}/ok",
        boxtrack_bench::hooks::recording_receiver(arrivals.clone()).await?
    );
    boxtrack_store::webhooks::create(
        &db,
        account.id,
        &NewWebhook {
            url: hook,
            active: true,
            events: boxtrack_core::webhooks::EVENTS
                .iter()
                .map(|e| e.to_string())
                .collect(),
            headers: BTreeMap::new(),
            secret: boxtrack_core::webhooks::generate_secret(),
        },
    )
    .await?;
    // bills of lading of PER_BL containers each (as carriers ship them), as the worker would
    // have resolved them
    let numbers: Vec<String> = (0..containers).map(container_number).collect();
    let port = |l: &str| boxtrack_core::reference::port(l).map(|p| p.time_zone.clone());
    for (b, chunk) in numbers.chunks(PER_BL).enumerate() {
        let bl = format!("MAEU{:09}", 261_700_000 + b);
        let request = boxtrack_core::requests::validate(&boxtrack_core::requests::NewRequest {
            request_number: Some(bl.clone()),
            request_type: Some("bill_of_lading".into()),
            scac: Some("MAEU".into()),
            ..Default::default()
        })
        .map_err(|e| format!("{e:?}"))?;
        let tr = tracking::create_request(
            &db,
            account.id,
            Plan::Standard,
            &request,
            &Default::default(),
        )
        .await?;
        let row = tracking::claim_due(&db, boxtrack_store::now_us() + 1_000_000, 60_000_000, 10)
            .await?
            .into_iter()
            .find(|r| r.id == tr.id)
            .ok_or("the tracking request was not claimed")?;
        let route = boxtrack_core::tracking::Route {
            pol_locode: Some("KRPUS".into()),
            pol_timezone: port("KRPUS"),
            pod_locode: Some("MXZLO".into()),
            pod_timezone: port("MXZLO"),
            ..Default::default()
        };
        tracking::finish(
            &db,
            &row,
            tracking::Outcome::Created {
                scac: "MAEU".into(),
                bill_of_lading_number: bl,
                route: Box::new(route),
                containers: chunk
                    .iter()
                    .map(|n| NewContainer {
                        number: n.clone(),
                        observations: vec![],
                    })
                    .collect(),
                scenario: None,
            },
        )
        .await?;
    }

    // the service: the router with DCSA push on, and the deliverer as `serve` runs it
    let (base, shutdown) = boxtrack_bench::serve_in_process(
        &db,
        ApiConfig {
            dcsa_push_secret: Some(SECRET.into()),
            ..ApiConfig::default()
        },
    )
    .await?;
    let deliverer =
        boxtrack_worker::delivery::Deliverer::new(db.clone(), Duration::from_secs(10), true, 1_000);
    let delivering = tokio::spawn(deliverer.run(shutdown.clone(), boxtrack_worker::delivery::POLL));
    // notifications written while setting up (the request's own) are not measured
    tokio::time::sleep(Duration::from_millis(500)).await;
    let measured_from = boxtrack_store::now_us();

    // the pushes, at a steady rate, each from its own task so a slow answer does not hold
    // up the schedule
    let client = reqwest::Client::new();
    let step = Duration::from_secs_f64(per_push as f64 / f64::from(per_second.max(1)));
    let mut due = tokio::time::Instant::now();
    let started = Instant::now();
    let mut pushes = tokio::task::JoinSet::new();
    for first in (0..total).step_by(per_push) {
        tokio::time::sleep_until(due).await;
        due += step;
        let body = serde_json::Value::Array(
            (first..(first + per_push).min(total))
                .map(|k| event(&numbers[k % containers], k < containers, k))
                .collect(),
        )
        .to_string();
        let sig = boxtrack_sources::dcsa::sign(SECRET, body.as_bytes())
            .ok_or("cannot sign with the secret")?;
        let request = client
            .post(format!("{base}/v2/ingest/dcsa"))
            .header("Content-Type", "application/json")
            .header("Notification-Signature", sig)
            .body(body);
        pushes.spawn(async move {
            let sent = Instant::now();
            let r = request.send().await;
            (r.map(|r| r.status().as_u16()).unwrap_or(0), sent.elapsed())
        });
    }
    let mut push_us: Vec<i64> = Vec::with_capacity(total.div_ceil(per_push));
    let mut refused = 0;
    while let Some(done) = pushes.join_next().await {
        let (status, took) = done?;
        if status != 204 {
            refused += 1;
        }
        push_us.push(i64::try_from(took.as_micros()).unwrap_or(i64::MAX));
    }
    let pushed = started.elapsed();

    // wait for what is on its way (at most 30 s more)
    let expected: i64 = on_db!(&db, p => sqlx::query_scalar(
        "SELECT COUNT(*) FROM webhook_notifications WHERE account_id = $1 AND created_us >= $2")
        .bind(account.id).bind(measured_from).fetch_one(p).await?);
    let waited = Instant::now();
    loop {
        let delivered: i64 = on_db!(&db, p => sqlx::query_scalar(
            "SELECT COUNT(*) FROM webhook_notifications WHERE account_id = $1 AND created_us >= $2 AND delivery_status <> 'pending'")
            .bind(account.id).bind(measured_from).fetch_one(p).await?);
        if delivered >= expected || waited.elapsed() > Duration::from_secs(30) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    shutdown.cancel();
    let _ = delivering.await;

    let created: Vec<(Uuid, i64)> = on_db!(&db, p => sqlx::query_as(
        "SELECT id, created_us FROM webhook_notifications WHERE account_id = $1 AND created_us >= $2")
        .bind(account.id).bind(measured_from).fetch_all(p).await?);
    let arrivals = arrivals.lock().map(|a| a.clone()).unwrap_or_default();
    let mut delays: Vec<i64> = created
        .iter()
        .filter_map(|(id, at)| arrivals.get(id).map(|got| got - at))
        .collect();
    // which notifications waited longest: when they were written, after the first push
    let mut late: Vec<(i64, i64)> = created
        .iter()
        .filter_map(|(id, at)| arrivals.get(id).map(|got| (got - at, at - measured_from)))
        .filter(|(d, _)| *d > 1_000_000)
        .collect();
    late.sort_unstable();
    if !late.is_empty() {
        eprintln!(
            "{} waited over a second; written at (s after the start): {:?}",
            late.len(),
            late.iter()
                .rev()
                .take(12)
                .map(|(d, at)| format!("{:.2}s+{:.2}s", *at as f64 / 1e6, *d as f64 / 1e6))
                .collect::<Vec<_>>()
        );
    }
    // first attempts that failed (retried after the schedule's 5 s)
    let failed: Vec<(Option<String>, i64)> = on_db!(&db, p => sqlx::query_as(
        "SELECT error, COUNT(*) FROM webhook_attempts GROUP BY error")
        .fetch_all(p).await?);
    if !failed.is_empty() {
        eprintln!("failed attempts: {failed:?}");
    }
    // after the first second (connections opened, statements prepared, caches warm)
    let mut steady: Vec<i64> = created
        .iter()
        .filter(|(_, at)| *at >= measured_from + 1_000_000)
        .filter_map(|(id, at)| arrivals.get(id).map(|got| got - at))
        .collect();
    steady.sort_unstable();
    delays.sort_unstable();
    push_us.sort_unstable();
    println!(
        "backend: {:?}; {total} events at {per_second}/s in {} pushes of {per_push} in {:.1} s ({refused} not 204); {} notifications, {} received",
        db.backend(),
        push_us.len(),
        pushed.as_secs_f64(),
        created.len(),
        delays.len()
    );
    println!("\n| | p50 | p99 | max |\n|---|---:|---:|---:|");
    println!(
        "| push sent → 204 | {:.1} ms | {:.1} ms | {:.1} ms |",
        pct(&push_us, 0.5),
        pct(&push_us, 0.99),
        push_us.last().map_or(f64::NAN, |d| *d as f64 / 1e3)
    );
    println!(
        "| notification written → webhook received | {:.1} ms | {:.1} ms | {:.1} ms |",
        pct(&delays, 0.5),
        pct(&delays, 0.99),
        delays.last().map_or(f64::NAN, |d| *d as f64 / 1e3)
    );
    println!(
        "| the same, written after the first second | {:.1} ms | {:.1} ms | {:.1} ms |",
        pct(&steady, 0.5),
        pct(&steady, 0.99),
        steady.last().map_or(f64::NAN, |d| *d as f64 / 1e3)
    );
    Ok(())
}
