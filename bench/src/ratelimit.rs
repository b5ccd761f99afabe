//! Shared rate-limit checks per second for one account, as many concurrent requests of one
//! account make them: boxtrack's slot window (`boxtrack_store::ratelimit::check`) against,
//! in the same run on the same database, the design it replaced (a row per account and
//! bucket holding every admission time of the last minute as a JSON array, locked, rewritten
//! and committed per check) and the floor of one `SELECT` round trip per check.
//!
//! `cargo build --release -p boxtrack-bench && DATABASE_URL=postgres://… ./target/release/bench-ratelimit [CHECKS] [TASKS]`
//!
//! With `REDIS_URL` (for example `redis://127.0.0.1:6379`) it also measures the Redis store
//! (`--rate-limit-store redis://…`: one Lua script per check) against the floor of one Redis
//! `PING` per check.
//!
//! Without `DATABASE_URL` it runs on a SQLite file. The limit is 100 million a minute, as in
//! the read benchmarks of issue 25, so no check is refused and the old design's log grows as
//! it does under load. Each design runs three times; the median and min–max are printed.

use std::sync::Arc;
use std::time::Instant;

use boxtrack_core::ratelimit::{Bucket, Limits, WINDOW_US};
use boxtrack_store::ratelimit_redis::RedisLimits;
use boxtrack_store::{Db, on_db};
use sqlx::types::Json;
use uuid::Uuid;

use boxtrack_bench::Res;

const LIMIT: u32 = 100_000_000;

/// The replaced design, kept here as the baseline: lock the row, prune the log, append,
/// write it back, commit.
async fn old_check(db: &Db, account: Uuid, now: i64) -> Res<bool> {
    let mut tx = db.begin().await?;
    let lock = match db.backend() {
        boxtrack_store::Backend::Postgres => " FOR UPDATE",
        _ => "",
    };
    let hits: Option<Json<Vec<i64>>> = boxtrack_store::on_tx!(&mut tx, c => sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT hits FROM bench_rate_limit_logs WHERE account_id = $1{lock}"
    )))
    .bind(account)
    .fetch_optional(c)
    .await?);
    let mut hits = hits.map(|h| h.0).unwrap_or_default();
    hits.retain(|t| *t > now - WINDOW_US);
    let allowed = hits.len() < LIMIT as usize;
    if allowed {
        hits.push(now);
    }
    boxtrack_store::on_tx!(&mut tx, c => sqlx::query(
        "INSERT INTO bench_rate_limit_logs (account_id, hits) VALUES ($1, $2) ON CONFLICT (account_id) DO UPDATE SET hits = excluded.hits",
    )
    .bind(account)
    .bind(Json(&hits))
    .execute(c)
    .await
    .map(|_| ())?);
    tx.commit().await?;
    Ok(allowed)
}

#[derive(Clone, Copy)]
enum Design {
    Floor,
    Old,
    New,
    RedisFloor,
    Redis,
}

async fn run(
    db: &Db,
    redis: Option<&RedisLimits>,
    design: Design,
    account: Uuid,
    checks: usize,
    tasks: usize,
) -> Res<f64> {
    let db = Arc::new(db.clone());
    let redis = redis.cloned();
    let ping = match &redis {
        Some(_) => Some(
            redis::Client::open(std::env::var("REDIS_URL")?)?
                .get_multiplexed_async_connection()
                .await?,
        ),
        None => None,
    };
    let started = Instant::now();
    let mut handles = Vec::new();
    for _ in 0..tasks {
        let db = db.clone();
        let redis = redis.clone();
        let mut ping = ping.clone();
        let n = checks / tasks;
        handles.push(tokio::spawn(async move {
            for _ in 0..n {
                let now = boxtrack_store::now_us();
                let r: Res<()> = match design {
                    Design::Floor => {
                        let one: Result<i64, sqlx::Error> =
                            on_db!(&*db, p => sqlx::query_scalar("SELECT CAST(1 AS BIGINT)").fetch_one(p).await);
                        one.map(|_| ()).map_err(Into::into)
                    }
                    Design::Old => old_check(&db, account, now).await.map(|_| ()),
                    Design::New => boxtrack_store::ratelimit::check(
                        &db,
                        account,
                        Bucket::Default,
                        LIMIT,
                        now,
                    )
                    .await
                    .map(|_| ())
                    .map_err(Into::into),
                    Design::RedisFloor => match ping.as_mut() {
                        Some(c) => redis::cmd("PING")
                            .query_async::<String>(c)
                            .await
                            .map(|_| ())
                            .map_err(Into::into),
                        None => Ok(()),
                    },
                    Design::Redis => match &redis {
                        Some(r) => r
                            .check(account, Bucket::Default, LIMIT, now)
                            .await
                            .map(|_| ())
                            .map_err(Into::into),
                        None => Ok(()),
                    },
                };
                if let Err(e) = r {
                    return Err(e.to_string());
                }
            }
            Ok(())
        }));
    }
    for h in handles {
        h.await??;
    }
    Ok(checks as f64 / started.elapsed().as_secs_f64())
}

fn summary(mut v: Vec<f64>) -> String {
    v.sort_by(f64::total_cmp);
    format!(
        "{:.0}/s (min {:.0}, max {:.0})",
        v[v.len() / 2],
        v[0],
        v[v.len() - 1]
    )
}

#[tokio::main]
async fn main() -> Res<()> {
    let mut args = std::env::args().skip(1);
    let checks: usize = args.next().map_or(Ok(20_000), |s| s.parse())?;
    let tasks: usize = args.next().map_or(Ok(32), |s| s.parse())?;
    let (db, _database, account, _) = boxtrack_bench::fresh_account(Limits::default()).await?;
    on_db!(&db, p => sqlx::query(
        "CREATE TABLE bench_rate_limit_logs (account_id UUID PRIMARY KEY, hits JSONB NOT NULL)",
    )
    .execute(p)
    .await
    .map(|_| ())?);
    println!(
        "{} checks per run, {tasks} concurrent tasks, one account, limit {LIMIT}/min, on {:?}",
        checks,
        db.backend()
    );
    let redis = match std::env::var("REDIS_URL") {
        Ok(url) => Some(RedisLimits::connect_with_prefix(&url, "boxtrack-bench:rl").await?),
        Err(_) => None,
    };
    let mut designs = vec![Design::Floor, Design::Old, Design::New];
    if redis.is_some() {
        designs.extend([Design::RedisFloor, Design::Redis]);
    }
    let mut results: Vec<Vec<f64>> = vec![Vec::new(); designs.len()];
    for _ in 0..3 {
        for (i, design) in designs.iter().copied().enumerate() {
            // each run starts from the same state: an empty log and an empty window
            on_db!(&db, p => sqlx::query("DELETE FROM bench_rate_limit_logs").execute(p).await.map(|_| ())?);
            on_db!(&db, p => sqlx::query("DELETE FROM rate_limit_slots").execute(p).await.map(|_| ())?);
            if let Some(r) = &redis {
                r.clear().await?;
            }
            results[i].push(run(&db, redis.as_ref(), design, account.id, checks, tasks).await?);
        }
    }
    let [floor, old, new] = [results[0].clone(), results[1].clone(), results[2].clone()];
    let median = |v: &Vec<f64>| {
        let mut v = v.clone();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!("floor (SELECT 1):        {}", summary(floor.clone()));
    println!("old (locked JSON log):   {}", summary(old.clone()));
    println!("new (slot rows, 1 stmt): {}", summary(new.clone()));
    println!(
        "new / old: {:.2}x   new / floor: {:.2}",
        median(&new) / median(&old),
        median(&new) / median(&floor)
    );
    if let (Some(r), Some(pings), Some(checks)) = (&redis, results.get(3), results.get(4)) {
        println!("redis floor (PING):      {}", summary(pings.clone()));
        println!("redis (1 Lua script):    {}", summary(checks.clone()));
        println!(
            "redis / floor: {:.2}   redis / new: {:.2}x",
            median(checks) / median(pings),
            median(checks) / median(&new)
        );
        r.clear().await?;
    }
    Ok(())
}
