//! Webhook delivery benchmark: N pending notifications delivered (claimed, rendered once,
//! signed, POSTed, recorded) to a local receiver, compared in the same run with a plain HTTP
//! load generator posting the same body to the same receiver N times at the same concurrency.
//!
//! `cargo run --release -p boxtrack-bench --bin bench-deliver -- [NOTIFICATIONS]`
//! (SQLite in a temporary folder; `DATABASE_URL=postgres://…` for PostgreSQL).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use boxtrack_store::on_db;

use boxtrack_bench::Res;
use boxtrack_bench::hooks::{self, cpu_secs, postgres_cpu_secs};

#[tokio::main]
async fn main() -> Res<()> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);

    // the receiver, and N pending notifications (setup, not measured)
    let (url, count) = hooks::receiver().await?;
    let (db, _database) = hooks::set_up(&url, n).await?;

    // the pipeline
    let deliverer = boxtrack_worker::delivery::Deliverer::new(
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
    let concurrency = boxtrack_worker::delivery::PER_ENDPOINT;
    let (baseline, baseline_cpu) = hooks::plain_posts(&url, &body, n, concurrency).await?;
    let plain = count.load(Ordering::Relaxed);

    println!(
        "backend: {:?}; notifications: {n}; body: {} bytes; concurrency per webhook: {concurrency}",
        db.backend(),
        body.len()
    );
    hooks::report(&hooks::Measured {
        what: "claim, render once, sign, POST, record",
        delivered,
        received,
        pipeline_s: pipeline,
        pipeline_cpu_s: pipeline_cpu,
        pipeline_db_cpu_s: pipeline_db_cpu,
        plain,
        baseline_s: baseline,
        baseline_cpu_s: baseline_cpu,
    });
    Ok(())
}
