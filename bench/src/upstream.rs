//! Upstream benchmark: how fast X12 and DCSA payloads are read, and what a scheduler tick
//! costs with many tracked subjects.
//!
//! 1. X12: an interchange of rail 322 sets from the simulator's world, tokenized, envelope-
//!    checked, read and mapped to observations; compared in the same run with splitting the
//!    same text on its delimiters and nothing else.
//! 2. DCSA 2.2: a JSON array of the world's events, parsed, validated and mapped; compared with
//!    `serde_json` reading the same bytes into untyped values.
//! 3. Scheduler: a tick (claim the due subjects with a lease) with SUBJECTS subjects tracked and
//!    100 due, compared with the same tick over 10 000 subjects.
//!
//! `cargo run --release -p boxtrack-bench --bin bench-upstream -- [SUBJECTS] [X12_SETS]`
//! (SQLite in a temporary folder; `DATABASE_URL=postgres://…` for PostgreSQL).

use std::time::Instant;

use boxtrack_store::{Db, on_db};
use sqlx::AssertSqlSafe;
use uuid::Uuid;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn arg(n: usize, default: usize) -> usize {
    std::env::args()
        .nth(n)
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn x12(sets: usize) -> Res<()> {
    let world = boxtrack_sim::world::World::generate(1, 1_800_000_000_000_000, 2_000);
    let mut msgs = Vec::new();
    'outer: loop {
        for s in &world.shipments {
            for t in s.rail_messages() {
                msgs.push(t.item);
                if msgs.len() >= sets {
                    break 'outer;
                }
            }
        }
    }
    let text = boxtrack_sources::x12::status::write_interchange(&msgs, 1, "20260101", "1200");
    let segments = text.matches('~').count();
    let started = Instant::now();
    let parsed = boxtrack_sources::x12::parse(&text).map_err(|e| e.to_string())?;
    let mut observations = 0;
    for (_, set) in parsed.sets() {
        let m = boxtrack_sources::x12::status::read(set).map_err(|e| e.to_string())?;
        observations += boxtrack_sources::x12::map::map(&m, 0).observations.len();
    }
    let full = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let mut elements = 0usize;
    for seg in text.split('~') {
        elements += seg.split('*').count();
    }
    let split = started.elapsed().as_secs_f64();
    println!(
        "X12: {} sets, {segments} segments, {} bytes -> {observations} observations in {:.3} s = {:.0} segments/s ({:.0} sets/s); baseline split on delimiters ({elements} elements) {:.3} s = {:.0} segments/s; ratio {:.2}",
        msgs.len(),
        text.len(),
        full,
        segments as f64 / full,
        msgs.len() as f64 / full,
        split,
        segments as f64 / split,
        split / full
    );
    Ok(())
}

fn dcsa() -> Res<()> {
    let world = boxtrack_sim::world::World::generate(2, 1_800_000_000_000_000, 4_000);
    let events: Vec<boxtrack_sources::dcsa::Event> = world
        .shipments
        .iter()
        .flat_map(|s| s.dcsa_events(&world))
        .map(|t| t.item)
        .collect();
    let body = serde_json::to_vec(&events)?;
    let started = Instant::now();
    let parsed =
        boxtrack_sources::dcsa::parse(&body, 1_900_000_000_000_000).map_err(|e| e.to_string())?;
    let (obs, _) = boxtrack_sources::dcsa::map(&parsed.events, &Default::default());
    let full = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let values: Vec<serde_json::Value> = serde_json::from_slice(&body)?;
    let plain = started.elapsed().as_secs_f64();
    println!(
        "DCSA 2.2: {} events, {} bytes -> {} observations in {:.3} s = {:.0} events/s; baseline serde_json to untyped values ({}) {:.3} s = {:.0} events/s; ratio {:.2}",
        events.len(),
        body.len(),
        obs.len(),
        full,
        events.len() as f64 / full,
        values.len(),
        plain,
        events.len() as f64 / plain,
        plain / full
    );
    Ok(())
}

async fn subjects_db(n: usize, now: i64) -> Res<(Db, boxtrack_testkit::TestDatabase)> {
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await?;
    db.migrate().await?;
    let started = Instant::now();
    let rows_per = 2_000;
    let mut i = 0;
    while i < n {
        let end = (i + rows_per).min(n);
        let values: Vec<String> = (i..end)
            .map(|k| {
                // 100 due now; the rest spread over the next 30 days
                let due = if k < 100 {
                    now - 1_000_000
                } else {
                    now + 3_600_000_000 + (k as i64 * 7_919 % 2_592_000) * 1_000_000
                };
                let id = Uuid::now_v7();
                let id = match &db {
                    Db::Sqlite(..) => format!("X'{}'", id.simple()),
                    Db::Postgres(_) => format!("'{id}'"),
                };
                format!(
                    "({id}, 'MAEU', 'bill_of_lading', 'MAEU{k:09}', TRUE, {due}, NULL, 0, NULL, NULL, NULL, {now})"
                )
            })
            .collect();
        let sql = format!(
            "INSERT INTO subjects (id, scac, kind, reference, active, next_due_us, locked_until_us, failures, last_polled_us, last_success_us, last_error, created_us) VALUES {}",
            values.join(", ")
        );
        on_db!(&db, p => sqlx::query(AssertSqlSafe(sql)).execute(p).await.map(|_| ())?);
        i = end;
    }
    on_db!(&db, p => sqlx::query("ANALYZE").execute(p).await.map(|_| ())?);
    eprintln!(
        "{n} subjects inserted in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok((db, database))
}

/// Median time of a tick: claim the 100 due subjects, then make them due again.
async fn tick_cost(db: &Db, now: i64) -> Res<(f64, usize)> {
    let mut times = Vec::new();
    let mut claimed = 0;
    for round in 0..7 {
        let t = now + round * 10;
        let started = Instant::now();
        let due = boxtrack_store::subjects::claim_due(db, t, 300_000_000, 1_000).await?;
        times.push(started.elapsed().as_secs_f64());
        claimed = due.len();
        on_db!(db, p => sqlx::query("UPDATE subjects SET locked_until_us = NULL WHERE locked_until_us IS NOT NULL")
            .execute(p).await.map(|_| ())?);
    }
    times.sort_by(f64::total_cmp);
    Ok((times[times.len() / 2], claimed))
}

#[tokio::main]
async fn main() -> Res<()> {
    let subjects = arg(1, 1_000_000);
    let sets = arg(2, 20_000);
    x12(sets)?;
    dcsa()?;
    let now = boxtrack_core::time::now_us();
    let (big, _keep_big) = subjects_db(subjects, now).await?;
    let (big_cost, big_claimed) = tick_cost(&big, now).await?;
    let (small, _keep_small) = subjects_db(10_000, now).await?;
    let (small_cost, small_claimed) = tick_cost(&small, now).await?;
    println!(
        "scheduler tick ({:?}): {subjects} subjects, {big_claimed} due: {:.2} ms; baseline 10000 subjects, {small_claimed} due: {:.2} ms; ratio {:.2}",
        big.backend(),
        big_cost * 1000.0,
        small_cost * 1000.0,
        big_cost / small_cost
    );
    Ok(())
}
