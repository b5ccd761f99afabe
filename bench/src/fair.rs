//! Fair delivery (issue 25, target 5): with many subscriptions and one receiver that never
//! answers in time, how long do the others wait for their deliveries while thousands of signed
//! deliveries a second flow?
//!
//! ```sh
//! cargo build --release -p boxtrack-bench
//! ./target/release/bench-fair [WEBHOOKS] [EVENTS_PER_SECOND] [SECONDS]      # SQLite
//! DATABASE_URL=postgres://root@127.0.0.1:5432/test ./target/release/bench-fair
//! ```
//!
//! Defaults: 1,000 webhooks of one account, each subscribed to `tracking_request.succeeded`;
//! 5 events a second for 20 seconds, each announced to every webhook (so 5,000 signed
//! deliveries a second). Every webhook posts to a receiver on loopback that answers 204 at
//! once, except one whose receiver holds every request for a minute (the deliverer's timeout,
//! 2 seconds here, ends each attempt). The deliverer runs as `boxtrack serve` runs it
//! (`Deliverer::run`, polling for due notifications every 50 ms). The delay of a delivery is
//! from the moment its event was appended (the notification's `created_us`) to the moment the
//! receiver got it. The baseline, in the same run and on a fresh database, is the same load
//! with every receiver answering at once.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use boxtrack_core::ratelimit::Limits;
use boxtrack_store::events::NewEvent;
use boxtrack_store::on_db;
use boxtrack_store::webhooks::NewWebhook;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use boxtrack_bench::Res;

/// What one run measured.
struct Outcome {
    delivered: usize,
    expected: usize,
    rate: f64,
    p50_ms: f64,
    p99_ms: f64,
    max_ms: f64,
}

async fn one_run(webhooks: usize, per_second: u32, seconds: u64, slow: bool) -> Res<Outcome> {
    let arrivals: boxtrack_bench::hooks::Arrivals = Arc::default();
    let base = boxtrack_bench::hooks::recording_receiver(arrivals.clone()).await?;
    let (db, _database, account, _) = boxtrack_bench::fresh_account(Limits::default()).await?;
    for i in 0..webhooks {
        let path = if slow && i == 0 { "slow" } else { "ok" };
        boxtrack_store::webhooks::create(
            &db,
            account.id,
            &NewWebhook {
                url: format!("{base}/{path}"),
                active: true,
                events: vec!["tracking_request.succeeded".into()],
                headers: BTreeMap::new(),
                secret: boxtrack_core::webhooks::generate_secret(),
            },
        )
        .await?;
    }
    let tr = boxtrack_bench::hooks::succeeding_request(&db, account.id).await?;

    let deliverer = boxtrack_worker::delivery::Deliverer::new(
        db.clone(),
        Duration::from_secs(2),
        true,
        1_000_000,
    );
    let shutdown = CancellationToken::new();
    let running = tokio::spawn(deliverer.run(shutdown.clone(), boxtrack_worker::delivery::POLL));

    // the events, one every 1/per_second s
    let started = Instant::now();
    let step = Duration::from_secs_f64(1.0 / f64::from(per_second.max(1)));
    let mut due = tokio::time::Instant::now();
    let total = u64::from(per_second) * seconds;
    for _ in 0..total {
        tokio::time::sleep_until(due).await;
        due += step;
        boxtrack_bench::append_events(
            &db,
            account.id,
            &[NewEvent {
                event: "tracking_request.succeeded".into(),
                object_type: "tracking_request",
                object_id: tr.id,
                payload: serde_json::json!({"tracking_request_id": tr.id}),
            }],
        )
        .await?;
    }
    let produced = started.elapsed();
    let expected = total as usize * (webhooks - usize::from(slow));
    // what is still on its way, for at most 30 seconds more
    let waited = Instant::now();
    while arrivals.lock().map_or(0, |a| a.len()) < expected
        && waited.elapsed() < Duration::from_secs(30)
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let drained = started.elapsed();
    shutdown.cancel();
    let _ = running.await;

    let created: Vec<(Uuid, i64)> = on_db!(&db, p => sqlx::query_as(
        "SELECT id, created_us FROM webhook_notifications WHERE account_id = $1")
        .bind(account.id)
        .fetch_all(p)
        .await?);
    let arrivals = arrivals.lock().map(|a| a.clone()).unwrap_or_default();
    let mut delays: Vec<i64> = created
        .iter()
        .filter_map(|(id, at)| arrivals.get(id).map(|got| got - at))
        .collect();
    delays.sort_unstable();
    let pct = |p: f64| {
        let n = delays.len();
        if n == 0 {
            return f64::NAN;
        }
        delays[((n as f64 * p) as usize).min(n - 1)] as f64 / 1e3
    };
    eprintln!(
        "  produced {total} events in {:.1} s; the last delivery {:.1} s after the first event",
        produced.as_secs_f64(),
        drained.as_secs_f64()
    );
    Ok(Outcome {
        delivered: delays.len(),
        expected,
        rate: delays.len() as f64 / drained.as_secs_f64().max(produced.as_secs_f64()),
        p50_ms: pct(0.50),
        p99_ms: pct(0.99),
        max_ms: delays.last().map_or(f64::NAN, |d| *d as f64 / 1e3),
    })
}

#[tokio::main]
async fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let webhooks: usize = args.first().map_or(Ok(1_000), |s| s.parse())?;
    let per_second: u32 = args.get(1).map_or(Ok(5), |s| s.parse())?;
    let seconds: u64 = args.get(2).map_or(Ok(20), |s| s.parse())?;
    if webhooks < 2 {
        return Err("need at least two webhooks".into());
    }
    let backend = if std::env::var("DATABASE_URL").is_ok() {
        "PostgreSQL"
    } else {
        "SQLite"
    };
    println!(
        "{backend}: {webhooks} webhooks, {per_second} events/s for {seconds} s ({} deliveries/s offered)\n",
        webhooks as u64 * u64::from(per_second)
    );
    println!(
        "| run | delivered to the others | deliveries/s | delay p50 | delay p99 | delay max |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for round in 1..=3 {
        for (name, slow) in [
            ("baseline: every receiver answers", false),
            ("one receiver times out", true),
        ] {
            let o = one_run(webhooks, per_second, seconds, slow).await?;
            println!(
                "| {round}, {name} | {} of {} | {:.0} | {:.0} ms | {:.0} ms | {:.0} ms |",
                o.delivered, o.expected, o.rate, o.p50_ms, o.p99_ms, o.max_ms
            );
        }
    }
    Ok(())
}
