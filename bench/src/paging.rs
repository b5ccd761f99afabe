//! Deep-page benchmark: the cost of a list page far from the start, reached by following
//! `links.next` (keyset cursor) versus asking for `page[number]=N` (offset, the baseline).
//!
//! `cargo run --release -p boxtrack-bench --bin bench-paging -- [ROWS] [PAGE_SIZE] [REPEAT]`
//! (SQLite in a temporary folder; set `DATABASE_URL=postgres://…` for PostgreSQL).

use std::time::{Duration, Instant};

use boxtrack_api::ApiConfig;
use boxtrack_core::apikey::ApiKey;
use boxtrack_core::ratelimit::{Bucket, Limits};
use boxtrack_store::{Db, Tx, on_tx};

use boxtrack_bench::Res;

fn arg(n: usize, default: u32) -> u32 {
    std::env::args()
        .nth(n)
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

async fn fill(db: &Db, account: uuid::Uuid, rows: u32) -> Res<()> {
    let mut tx = db.begin().await?;
    let base = boxtrack_store::now_us() - i64::from(rows) * 1_000;
    for i in 0..rows {
        let key = ApiKey::generate();
        let sql = "INSERT INTO api_keys (id, account_id, name, digest, hint, created_us) VALUES ($1, $2, $3, $4, $5, $6)";
        on_tx!(&mut tx, c => sqlx::query(sql)
            .bind(uuid::Uuid::now_v7())
            .bind(account)
            .bind(format!("bench-{i}"))
            .bind(key.digest())
            .bind(key.hint())
            .bind(base + i64::from(i) * 1_000)
            .execute(c)
            .await
            .map(|_| ())?);
    }
    match tx {
        Tx::Sqlite(_) | Tx::Postgres(_) => tx.commit().await?,
    }
    // Statistics as autovacuum / a long-running database would have them.
    boxtrack_store::on_db!(db, p => sqlx::query("ANALYZE").execute(p).await.map(|_| ())?);
    Ok(())
}

async fn get(client: &reqwest::Client, url: &str, key: &str) -> Res<(Duration, serde_json::Value)> {
    let started = Instant::now();
    let res = client
        .get(url)
        .header("Authorization", format!("Token {key}"))
        .send()
        .await?;
    let status = res.status();
    let body: serde_json::Value = res.json().await?;
    let took = started.elapsed();
    if !status.is_success() {
        return Err(format!("{url}: {status} {body}").into());
    }
    Ok((took, body))
}

#[tokio::main]
async fn main() -> Res<()> {
    let rows = arg(1, 50_000);
    let size = arg(2, 100);
    let repeat = arg(3, 15);
    let (db, _database, account, key) = boxtrack_bench::fresh_account(Limits(
        [(Bucket::Default, 10_000_000)].into_iter().collect(),
    ))
    .await?;
    let filled = Instant::now();
    fill(&db, account.id, rows).await?;
    eprintln!("inserted {rows} rows in {:?}", filled.elapsed());

    let (base, shutdown) = boxtrack_bench::serve_in_process(&db, ApiConfig::default()).await?;
    let client = reqwest::Client::new();
    let key = key.expose().to_string();

    // Walk every page by links.next, remembering each page's link and time.
    let mut url = format!("{base}/v2/api_keys?page[size]={size}");
    let mut links = Vec::new();
    loop {
        let (_, body) = get(&client, &url, &key).await?;
        links.push(url.clone());
        match body["links"]["next"].as_str() {
            Some(n) => url = n.to_string(),
            None => break,
        }
    }
    let pages = links.len();
    let depths = [1usize, pages / 10, pages / 2, pages];
    println!(
        "backend: {:?}; rows: {}; page size: {size}; pages: {pages}; median of {repeat} requests each\n",
        db.backend(),
        rows + 1
    );
    println!("| page | links.next (cursor) | page[number] (offset, baseline) |");
    println!("|---:|---:|---:|");
    for depth in depths.into_iter().filter(|d| *d >= 1) {
        let cursor_url = &links[depth - 1];
        let offset_url = format!("{base}/v2/api_keys?page[number]={depth}&page[size]={size}");
        let mut c = Vec::new();
        let mut o = Vec::new();
        for _ in 0..repeat {
            c.push(get(&client, cursor_url, &key).await?.0);
            o.push(get(&client, &offset_url, &key).await?.0);
        }
        println!(
            "| {depth} | {:.2} ms | {:.2} ms |",
            median(c).as_secs_f64() * 1e3,
            median(o).as_secs_f64() * 1e3
        );
    }
    shutdown.cancel();
    Ok(())
}
