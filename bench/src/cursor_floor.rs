//! A floor experiment, not boxtrack's deliverer: the delivery path of the log-and-cursor outbox
//! that `docs/webhook-cursor-outbox.md` proposes, written as plainly as possible on
//! PostgreSQL, so its rate against the plain-POST baseline (same run, same receiver, same body
//! size) bounds what building that design could reach. Bodies are rendered in the set-up (the
//! design renders them with the event); the measured path leases the webhook's cursor and reads
//! the next 256 notifications with their bodies in one transaction, signs and POSTs them four at
//! a time as the deliverer does, and records each outcome as a compact attempt row plus the
//! cursor's advance over the contiguous prefix, gathered like the deliverer's lane. Nothing here
//! derives statuses, retries failures or shares work between processes: a real build costs more.
//!
//! `cargo build --release -p boxtrack-bench && DATABASE_URL=postgres://… ./target/release/bench-cursor-floor [NOTIFICATIONS] [--plain-client | --hyper] [--constant-headers | --unsigned]`
//!
//! The switches take required work away, to see what it costs: `--plain-client` sends with the
//! baseline's client instead of the deliverer's; `--hyper` with hyper's client and no reqwest
//! (and then posts the baseline's requests with it too, for a like-with-like ratio);
//! `--constant-headers` sends the four signature headers with constant values (their cost on
//! the wire, not of computing them); `--unsigned` sends none of them, as the baseline does.

use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use boxtrack_store::Db;
use boxtrack_store::notifications::{Claimed, NotificationRow};
use uuid::Uuid;

use boxtrack_bench::Res;
use boxtrack_bench::hooks::{self, cpu_secs, postgres_cpu_secs};

/// Notifications read per transaction, and at most in flight (the deliverer's numbers).
const BATCH: usize = 256;
const WINDOW: usize = 1024;
/// Concurrent requests to the webhook (the deliverer's per-endpoint bound).
const SENDERS: usize = boxtrack_worker::delivery::PER_ENDPOINT;
/// Outcomes gathered per recording transaction, or what came within this wait.
const GATHER: usize = 128;
const GATHER_WAIT: Duration = Duration::from_millis(2);

const COLUMNS: &str = "n.id, n.account_id, n.webhook_id, n.event_id, n.seq, n.event, n.reference_type, n.reference_id, n.delivery_status, n.attempts, n.next_attempt_us, n.last_status_code, n.last_error, n.created_us, n.updated_us, n.replay_of";

/// A claimed notification with its body.
struct Job {
    row: NotificationRow,
    body: axum::body::Bytes,
}

/// What one attempt recorded.
struct Done {
    id: Uuid,
    seq: i64,
    at_us: i64,
    status: Option<i64>,
    duration_ms: i64,
}

/// Renders every notification's body into `webhook_bodies` (the design does this with the
/// event) and adds the design's tables and index.
async fn prepare(db: &Db, pool: &sqlx::PgPool) -> Res<()> {
    let rows: Vec<NotificationRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM webhook_notifications n ORDER BY n.seq"
    )))
    .fetch_all(pool)
    .await?;
    for chunk in rows.chunks(1000) {
        let ids: Vec<uuid::Uuid> = chunk.iter().map(|r| r.id).collect();
        let created: Vec<i64> = chunk.iter().map(|r| r.created_us).collect();
        let bodies = boxtrack_views::notifications::bodies(db, chunk).await?;
        sqlx::query("INSERT INTO webhook_bodies (notification_id, notification_created_us, body) SELECT * FROM unnest($1::uuid[], $2::int8[], $3::text[])")
            .bind(&ids)
            .bind(&created)
            .bind(&bodies)
            .execute(pool)
            .await?;
    }
    for sql in [
        // not unique: a unique index of a partitioned table must hold its partition key
        "CREATE INDEX cursor_order ON webhook_notifications (webhook_id, seq) WHERE replay_of IS NULL",
        "CREATE TABLE webhook_cursors (webhook_id UUID PRIMARY KEY, acked_seq BIGINT NOT NULL, locked_until_us BIGINT)",
        "INSERT INTO webhook_cursors SELECT id, 0, NULL FROM webhooks",
        "CREATE TABLE webhook_attempt_log (notification_id UUID NOT NULL, attempted_us BIGINT NOT NULL, status_code BIGINT, duration_ms BIGINT NOT NULL)",
        "CREATE INDEX webhook_attempt_log_notification ON webhook_attempt_log (notification_id)",
        "ANALYZE",
    ] {
        sqlx::query(sql).execute(pool).await?;
    }
    Ok(())
}

/// Leases the cursor and reads the next batch after `after`, one transaction.
async fn read_batch(
    pool: &sqlx::PgPool,
    hook: Uuid,
    after: i64,
    now_us: i64,
) -> Result<Vec<Claimed>, sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("UPDATE webhook_cursors SET locked_until_us = $2 WHERE webhook_id = $1")
        .bind(hook)
        .bind(now_us + 120_000_000)
        .execute(&mut *tx)
        .await?;
    let rows = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS}, b.body FROM webhook_notifications n JOIN webhook_bodies b ON b.notification_id = n.id \
         WHERE n.webhook_id = $1 AND n.seq > $2 AND n.replay_of IS NULL ORDER BY n.seq LIMIT $3"
    )))
    .bind(hook)
    .bind(after)
    .bind(BATCH as i64)
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(rows)
}

/// Records outcomes (compact attempt rows) and moves the cursor to `acked`, one transaction.
async fn record(
    pool: &sqlx::PgPool,
    hook: Uuid,
    done: &[Done],
    acked: i64,
) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("INSERT INTO webhook_attempt_log SELECT * FROM unnest($1::uuid[], $2::int8[], $3::int8[], $4::int8[])")
        .bind(done.iter().map(|d| d.id).collect::<Vec<_>>())
        .bind(done.iter().map(|d| d.at_us).collect::<Vec<_>>())
        .bind(done.iter().map(|d| d.status).collect::<Vec<_>>())
        .bind(done.iter().map(|d| d.duration_ms).collect::<Vec<_>>())
        .execute(&mut *tx)
        .await?;
    sqlx::query("UPDATE webhook_cursors SET acked_seq = $2 WHERE webhook_id = $1")
        .bind(hook)
        .bind(acked)
        .execute(&mut *tx)
        .await?;
    tx.commit().await
}

/// Which headers a request carries besides `Content-Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Headers {
    /// `webhook-id`, `webhook-timestamp` and both signatures, computed per request as the
    /// deliverer does.
    Signed,
    /// The same four headers with constant values of the same lengths: their cost on the wire
    /// without the cost of computing them.
    Constant,
    /// None: the baseline's request.
    Plain,
}

/// The HTTP client the senders use.
#[derive(Clone)]
enum Client {
    /// reqwest, as the deliverer (its own settings) or the baseline (defaults) uses it.
    Reqwest(reqwest::Client),
    /// hyper's own pooled HTTP/1 client, without reqwest's layers above it (plain HTTP only,
    /// no timeout, no resolver checks: a price for those layers, not a client to ship).
    Hyper(Box<HyperClient>, hyper::Uri),
}

/// hyper's pooled client over plain HTTP.
type HyperClient = hyper_util::client::legacy::Client<
    hyper_util::client::legacy::connect::HttpConnector,
    http_body_util::Full<axum::body::Bytes>,
>;

/// Options after the notification count.
struct Opts {
    /// `--plain-client`: `reqwest::Client::new()` (the baseline's client) instead of the
    /// deliverer's (no redirects, a timeout, a resolver that drops internal addresses).
    plain_client: bool,
    /// `--hyper`: hyper's client without reqwest (see [`Client::Hyper`]).
    hyper: bool,
    /// `--constant-headers` or `--unsigned` (default: signed).
    headers: Headers,
}

/// POSTs one job with the headers `mode` asks for.
async fn send(
    client: &Client,
    url: &reqwest::Url,
    secret: &str,
    key: &[u8],
    job: &Job,
    mode: Headers,
) -> Done {
    use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue};
    let started = Instant::now();
    let at_us = boxtrack_store::now_us();
    let timestamp = at_us / 1_000_000;
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    let values: Option<[(&'static str, String); 4]> = match mode {
        Headers::Signed => {
            let id = job.row.id.to_string();
            Some([
                (
                    "x-boxtrack-webhook-signature",
                    boxtrack_core::webhooks::sign_hex(secret, &job.body),
                ),
                (
                    "webhook-signature",
                    boxtrack_core::webhooks::sign_standard_with(key, &id, timestamp, &job.body),
                ),
                ("webhook-timestamp", timestamp.to_string()),
                ("webhook-id", id),
            ])
        }
        Headers::Constant => Some([
            ("x-boxtrack-webhook-signature", "a".repeat(64)),
            ("webhook-signature", format!("v1,{}", "b".repeat(44))),
            ("webhook-timestamp", "1700000000".to_string()),
            (
                "webhook-id",
                "0194a6f0-0000-7000-8000-000000000000".to_string(),
            ),
        ]),
        Headers::Plain => None,
    };
    for (name, v) in values.into_iter().flatten() {
        if let Ok(v) = HeaderValue::from_str(&v) {
            headers.insert(name, v);
        }
    }
    let status = match client {
        Client::Reqwest(c) => match c
            .post(url.clone())
            .headers(headers)
            .body(job.body.clone())
            .send()
            .await
        {
            Ok(res) => {
                let s = i64::from(res.status().as_u16());
                let _ = res.bytes().await;
                Some(s)
            }
            Err(_) => None,
        },
        Client::Hyper(c, uri) => {
            use http_body_util::BodyExt;
            let mut req = hyper::Request::new(http_body_util::Full::new(job.body.clone()));
            *req.method_mut() = hyper::Method::POST;
            *req.uri_mut() = uri.clone();
            *req.headers_mut() = headers;
            match c.request(req).await {
                Ok(res) => {
                    let s = i64::from(res.status().as_u16());
                    let _ = res.into_body().collect().await;
                    Some(s)
                }
                Err(_) => None,
            }
        }
    };
    Done {
        id: job.row.id,
        seq: job.row.seq,
        at_us,
        status,
        duration_ms: started.elapsed().as_millis() as i64,
    }
}

#[tokio::main]
async fn main() -> Res<()> {
    let mut n = 20_000;
    let mut opts = Opts {
        plain_client: false,
        hyper: false,
        headers: Headers::Signed,
    };
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--plain-client" => opts.plain_client = true,
            "--hyper" => opts.hyper = true,
            "--constant-headers" => opts.headers = Headers::Constant,
            "--unsigned" => opts.headers = Headers::Plain,
            other => {
                n = other
                    .parse()
                    .map_err(|_| format!("unknown argument {other:?}"))?
            }
        }
    }
    let (url, count) = hooks::receiver().await?;
    let (db, _database) = hooks::set_up(&url, n).await?;
    let pool = match &db {
        Db::Postgres(p) => p.clone(),
        Db::Sqlite(..) => return Err("bench-cursor-floor needs DATABASE_URL=postgres://…".into()),
    };
    prepare(&db, &pool).await?;
    let (hook, secret): (Uuid, String) = sqlx::query_as("SELECT id, secret FROM webhooks")
        .fetch_one(&pool)
        .await?;
    let key = boxtrack_core::webhooks::standard_key(&secret).ok_or("secret without a key")?;
    let target = reqwest::Url::parse(&url)?;
    let client = if opts.hyper {
        Client::Hyper(
            Box::new(
                hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                    .build_http(),
            ),
            url.parse()?,
        )
    } else if opts.plain_client {
        Client::Reqwest(reqwest::Client::new())
    } else {
        Client::Reqwest(boxtrack_worker::delivery::client_for(
            Duration::from_secs(10),
            true,
        ))
    };

    eprintln!("set up; delivering");
    let cpu0 = cpu_secs();
    let db_cpu0 = postgres_cpu_secs();
    let started = Instant::now();
    let window = Arc::new(tokio::sync::Semaphore::new(WINDOW));
    // seqs read and not yet acknowledged, in read order
    let unacked: Arc<Mutex<VecDeque<i64>>> = Arc::default();
    let (done_tx, mut done_rx) = tokio::sync::mpsc::channel::<Done>(WINDOW);
    let mut job_txs = Vec::new();
    let mut senders = tokio::task::JoinSet::new();
    for _ in 0..SENDERS {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<Job>(WINDOW);
        job_txs.push(tx);
        let (client, target, secret, key, done_tx, headers) = (
            client.clone(),
            target.clone(),
            secret.clone(),
            key.clone(),
            done_tx.clone(),
            opts.headers,
        );
        senders.spawn(async move {
            while let Some(job) = rx.recv().await {
                let d = send(&client, &target, &secret, &key, &job, headers).await;
                if done_tx.send(d).await.is_err() {
                    return;
                }
            }
        });
    }
    drop(done_tx);
    let reader = {
        let (pool, window, unacked) = (pool.clone(), window.clone(), unacked.clone());
        tokio::spawn(async move {
            let mut after = 0;
            let mut next = 0usize;
            loop {
                window.acquire_many(BATCH as u32).await?.forget();
                let rows = read_batch(&pool, hook, after, boxtrack_store::now_us()).await?;
                window.add_permits(BATCH - rows.len());
                let full = rows.len() == BATCH;
                if let Some(last) = rows.last() {
                    after = last.row.seq;
                }
                unacked
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend(rows.iter().map(|c| c.row.seq));
                for c in rows {
                    let job = Job {
                        body: axum::body::Bytes::from(c.body.unwrap_or_default()),
                        row: c.row,
                    };
                    if job_txs[next % SENDERS].send(job).await.is_err() {
                        return Err("a sender stopped".into());
                    }
                    next += 1;
                }
                if !full {
                    return Ok::<(), Box<dyn std::error::Error + Send + Sync>>(());
                }
            }
        })
    };
    // the recorder, on a runtime worker as the deliverer's lane runs
    let recorder = {
        let (pool, window) = (pool.clone(), window.clone());
        tokio::spawn(async move {
            let mut recorded = 0usize;
            let mut acked = 0i64;
            let mut finished: BTreeSet<i64> = BTreeSet::new();
            let mut buf: Vec<Done> = Vec::with_capacity(WINDOW);
            while done_rx.recv_many(&mut buf, WINDOW).await > 0 {
                let gather_until = tokio::time::Instant::now() + GATHER_WAIT;
                while buf.len() < GATHER && recorded + buf.len() < n {
                    let more =
                        tokio::time::timeout_at(gather_until, done_rx.recv_many(&mut buf, WINDOW));
                    if !matches!(more.await, Ok(m) if m > 0) {
                        break;
                    }
                }
                finished.extend(buf.iter().map(|d| d.seq));
                {
                    let mut q = unacked.lock().unwrap_or_else(|e| e.into_inner());
                    while let Some(&s) = q.front() {
                        if !finished.remove(&s) {
                            break;
                        }
                        acked = s;
                        q.pop_front();
                    }
                }
                record(&pool, hook, &buf, acked).await?;
                recorded += buf.len();
                window.add_permits(buf.len());
                buf.clear();
            }
            Ok::<usize, sqlx::Error>(recorded)
        })
    };
    let recorded = recorder.await??;
    reader.await?.map_err(|e| e.to_string())?;
    while senders.join_next().await.is_some() {}
    let pipeline = started.elapsed().as_secs_f64();
    let pipeline_cpu = cpu_secs() - cpu0;
    let pipeline_db_cpu = postgres_cpu_secs() - db_cpu0;
    let received = count.swap(0, Ordering::Relaxed);
    let acked_in_db: i64 = sqlx::query_scalar("SELECT acked_seq FROM webhook_cursors")
        .fetch_one(&pool)
        .await?;

    let body: String = sqlx::query_scalar("SELECT body FROM webhook_bodies LIMIT 1")
        .fetch_one(&pool)
        .await?;
    eprintln!("delivered; running the baseline");
    let (baseline, baseline_cpu) = hooks::plain_posts(&url, &body, n, SENDERS).await?;
    let plain = count.load(Ordering::Relaxed);

    println!(
        "cursor floor (PostgreSQL); notifications: {n}; body: {} bytes; concurrency: {SENDERS}; headers: {:?}; plain client: {}; hyper: {}; cursor at {acked_in_db}",
        body.len(),
        opts.headers,
        opts.plain_client,
        opts.hyper
    );
    hooks::report(&hooks::Measured {
        what: "lease cursor + read range, sign, POST, append attempt + move cursor",
        delivered: recorded,
        received,
        pipeline_s: pipeline,
        pipeline_cpu_s: pipeline_cpu,
        pipeline_db_cpu_s: pipeline_db_cpu,
        plain,
        baseline_s: baseline,
        baseline_cpu_s: baseline_cpu,
    });
    if let Client::Hyper(c, uri) = &client {
        // the same plain POSTs with hyper's client, so the comparison can be like with like
        let body = axum::body::Bytes::from(body);
        let cpu0 = cpu_secs();
        let started = Instant::now();
        let mut tasks = tokio::task::JoinSet::new();
        for w in 0..SENDERS {
            let (c, uri, body) = (c.clone(), uri.clone(), body.clone());
            let share = n / SENDERS + usize::from(w < n % SENDERS);
            tasks.spawn(async move {
                use http_body_util::BodyExt;
                for _ in 0..share {
                    let mut req = hyper::Request::new(http_body_util::Full::new(body.clone()));
                    *req.method_mut() = hyper::Method::POST;
                    *req.uri_mut() = uri.clone();
                    req.headers_mut().insert(
                        hyper::header::CONTENT_TYPE,
                        hyper::header::HeaderValue::from_static("application/json"),
                    );
                    if let Ok(res) = c.request(req).await {
                        let _ = res.into_body().collect().await;
                    }
                }
            });
        }
        while tasks.join_next().await.is_some() {}
        let secs = started.elapsed().as_secs_f64();
        let cpu = cpu_secs() - cpu0;
        let posted = count.load(Ordering::Relaxed) - plain;
        println!(
            "baseline with hyper's client: {posted} in {secs:.2} s = {:.0}/s, CPU {:.0} µs a request; pipeline / that baseline: {:.2}",
            posted as f64 / secs,
            cpu * 1e6 / posted.max(1) as f64,
            (recorded as f64 / pipeline) / (posted as f64 / secs)
        );
    }
    Ok(())
}
