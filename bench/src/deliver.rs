//! Webhook delivery benchmark: N pending notifications delivered (claimed, rendered once,
//! signed, POSTed, recorded) to a local receiver, compared in the same run with a plain HTTP
//! load generator posting the same body to the same receiver N times at the same concurrency.
//!
//! `cargo run --release -p boxtrack-bench --bin bench-deliver -- [NOTIFICATIONS]`
//! (SQLite in a temporary folder; `DATABASE_URL=postgres://…` for PostgreSQL).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use boxtrack_store::on_db;

mod hooks;
use hooks::{Res, cpu_secs, postgres_cpu_secs};

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
    let concurrency = boxtrack_api::delivery::PER_ENDPOINT;
    let (baseline, baseline_cpu) = hooks::plain_posts(&url, &body, n, concurrency).await?;
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
