//! Ingest benchmark: a stream of observations for N containers goes through
//! parse (JSON lines) → merge → store → event log, in transactions of B containers, compared in
//! the same run with plain batched INSERTs (100 rows per statement, the pipeline's number of
//! rows per transaction) of as many rows as that path wrote (transport events, event-log rows
//! and container updates), into a second fresh database.
//!
//! `cargo run --release -p boxtrack-bench --bin bench-ingest -- [CONTAINERS] [PER_TX] [STREAMS]`
//! (SQLite in a temporary folder; `DATABASE_URL=postgres://…` for PostgreSQL, where each run's
//! schemas are dropped at its end). `STREAMS` (default 1) ingests run at once, each its own
//! account's share of the containers, as files from several sources arriving together would
//! be; the baseline then inserts with as many concurrent streams.

use std::time::Instant;

use boxtrack_core::ratelimit::Limits;
use boxtrack_core::tracking::{
    DataSource, EventFact, Fact, Hold, LfdKind, Milestone, Observation, Place,
};
use boxtrack_store::{Db, on_db, on_tx};
use sqlx::AssertSqlSafe;
use uuid::Uuid;

use boxtrack_bench::Res;

/// A result whose error can leave a spawned stream.
type Sent<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const H: i64 = 3_600_000_000;

fn arg(n: usize, default: usize) -> usize {
    std::env::args()
        .nth(n)
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

async fn fresh() -> Res<(Db, boxtrack_testkit::TestDatabase, Uuid)> {
    let (db, database, account, _) = boxtrack_bench::fresh_account(Limits::default()).await?;
    Ok((db, database, account.id))
}

/// One shipment per 10 containers, all with empty state (setup, not measured).
async fn containers(db: &Db, account: Uuid, n: usize) -> Res<Vec<Uuid>> {
    let mut tx = db.begin().await?;
    let mut ids = Vec::with_capacity(n);
    let mut shipment = Uuid::nil();
    for i in 0..n {
        if i % 10 == 0 {
            shipment = Uuid::now_v7();
            on_tx!(&mut tx, c => sqlx::query("INSERT INTO shipments (id, account_id, tracking_request_id, bill_of_lading_number, scac, pod_locode, ref_numbers, tags, route, state, created_us, updated_us) VALUES ($1, $2, NULL, $3, 'MSCU', 'USLAX', '[]', '[]', '{}', '{}', 0, 0)")
                .bind(shipment).bind(account).bind(format!("MEDU{i:08}")).execute(c).await.map(|_| ())?);
        }
        let id = Uuid::now_v7();
        on_tx!(&mut tx, c => sqlx::query("INSERT INTO containers (id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, pickup_lfd_us, active, created_us, updated_us) VALUES ($1, $2, $3, $4, '[]', $5, 'new', FALSE, NULL, TRUE, 0, 0)")
            .bind(id).bind(account).bind(shipment).bind(format!("BXTU{i:07}")).bind(sqlx::types::Json(boxtrack_core::tracking::ContainerState::default()))
            .execute(c).await.map(|_| ())?);
        ids.push(id);
    }
    tx.commit().await?;
    Ok(ids)
}

fn ev(m: Milestone, place: Place, at_h: i64, estimated: bool) -> Fact {
    Fact::Event(EventFact {
        milestone: m,
        estimated,
        at_us: Some(at_h * H),
        place,
        locode: Some(if place == Place::Origin {
            "CNSHA".into()
        } else {
            "USLAX".into()
        }),
        timezone: None,
        terminal: None,
        vessel_name: Some("EVER GIVEN".into()),
        vessel_imo: Some("9811000".into()),
        voyage: Some("0412E".into()),
    })
}

/// The serialized stream: five observations per container, as JSON lines `{"c": index, "o": ...}`.
fn stream(n: usize) -> Res<Vec<String>> {
    let facts = [
        (
            1,
            DataSource::ShippingLine,
            ev(Milestone::VesselLoaded, Place::Origin, 10, false),
        ),
        (
            2,
            DataSource::ShippingLine,
            ev(Milestone::VesselDeparted, Place::Origin, 12, false),
        ),
        (
            3,
            DataSource::ShippingLine,
            ev(Milestone::VesselArrived, Place::Pod, 400, true),
        ),
        (
            4,
            DataSource::Terminal,
            Fact::Holds {
                holds: vec![Hold {
                    name: "customs".into(),
                    status: "hold".into(),
                    description: None,
                }],
            },
        ),
        (
            5,
            DataSource::Terminal,
            Fact::Lfd {
                which: LfdKind::Terminal,
                at_us: Some(420 * H),
            },
        ),
    ];
    let mut out = Vec::with_capacity(n * facts.len());
    for c in 0..n {
        for (t, source, fact) in &facts {
            let o = Observation {
                observed_us: *t,
                source: *source,
                fact: fact.clone(),
                precision: Default::default(),
                upstream_id: None,
            };
            out.push(serde_json::to_string(&serde_json::json!({"c": c, "o": o}))?);
        }
    }
    Ok(out)
}

#[derive(serde::Deserialize)]
struct Line {
    c: usize,
    o: Observation,
}

async fn count(db: &Db, table: &'static str) -> Res<i64> {
    let sql = format!("SELECT COUNT(*) FROM {table}");
    Ok(on_db!(db, p => sqlx::query_scalar(AssertSqlSafe(sql)).fetch_one(p).await?))
}

/// Where and how the baseline inserts.
struct Baseline<'a> {
    db: &'a Db,
    account: Uuid,
    containers: &'a [Uuid],
    per_stmt: usize,
    per_tx: usize,
}

/// Plain multi-row INSERTs of `rows` rows into `table`.
async fn plain_inserts(b: &Baseline<'_>, table: &str, cols: &[&str], rows: usize) -> Sent<()> {
    let (db, account, containers, per_stmt, per_tx) =
        (b.db, b.account, b.containers, b.per_stmt, b.per_tx);
    let mut done = 0;
    let mut tx = db.begin().await?;
    let mut in_tx = 0;
    while done < rows {
        let n = per_stmt.min(rows - done);
        let mut sql = format!("INSERT INTO {table} ({}) VALUES ", cols.join(", "));
        // numbered on PostgreSQL; anonymous on SQLite, where sqlx binds a numbered parameter
        // by a linear scan of the statement's names (O(n²) a statement, as the pipeline's
        // `Marks` avoids; the baseline paid it until 2026-12-04)
        let numbered = db.backend() == boxtrack_store::Backend::Postgres;
        let mut p = 0;
        for r in 0..n {
            sql.push_str(if r == 0 { "(" } else { ", (" });
            for c in 0..cols.len() {
                p += 1;
                sql.push_str(if c == 0 { "" } else { ", " });
                if numbered {
                    sql.push_str(&format!("${p}"));
                } else {
                    sql.push('?');
                }
            }
            sql.push(')');
        }
        on_tx!(&mut tx, c => {
            let mut q = sqlx::query(AssertSqlSafe(sql.clone()));
            for r in 0..n {
                let seq = (done + r + 1) as i64;
                for col in cols {
                    q = match *col {
                        "container_id" => q.bind(containers[(done + r) % containers.len()]),
                        "id" | "shipment_id" | "object_id" => q.bind(Uuid::now_v7()),
                        "account_id" => q.bind(account),
                        "seq" | "at_us" | "created_us" | "observed_us" => q.bind(seq),
                        "estimated" => q.bind(false),
                        "original" => q.bind(sqlx::types::Json(serde_json::json!({"observed_us": seq, "source": "shipping_line", "fact": {"kind": "holds", "holds": []}}))),
                        "payload" => q.bind(sqlx::types::Json(serde_json::json!({"container_id": Uuid::nil(), "transport_event_id": Uuid::nil()}))),
                        _ => q.bind("container.transport.vessel_loaded"),
                    };
                }
            }
            q.execute(c).await.map(|_| ())?
        });
        done += n;
        in_tx += n;
        if in_tx >= per_tx {
            tx.commit().await?;
            tx = db.begin().await?;
            in_tx = 0;
        }
    }
    tx.commit().await?;
    Ok(())
}

/// The baseline's rows for one account: `te` transport events, `raw` raw events and `ev`
/// event-log rows (the pipeline's event-log rows and container updates), as plain INSERTs.
async fn baseline_rows(b: &Baseline<'_>, te: usize, raw: usize, ev: usize) -> Sent<()> {
    plain_inserts(
        b,
        "transport_events",
        &[
            "id",
            "account_id",
            "container_id",
            "shipment_id",
            "event",
            "at_us",
            "locode",
            "timezone",
            "terminal",
            "vessel_name",
            "vessel_imo",
            "voyage",
            "data_source",
            "created_us",
        ],
        te,
    )
    .await?;
    plain_inserts(
        b,
        "raw_events",
        &[
            "id",
            "account_id",
            "container_id",
            "shipment_id",
            "data_source",
            "event",
            "estimated",
            "original",
            "observed_us",
            "created_us",
        ],
        raw,
    )
    .await?;
    plain_inserts(
        b,
        "events",
        &[
            "account_id",
            "seq",
            "id",
            "event",
            "object_type",
            "object_id",
            "payload",
            "created_us",
        ],
        ev,
    )
    .await
}

/// The allocator `boxtrack` ships with (`crates/boxtrack/src/main.rs`), so that the pipeline
/// measured here allocates as it does in `serve` and `worker` (and the baseline alike).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// One stream of the pipeline: `lines` (container indexes into `ids`) merged into `account`'s
/// containers in transactions of `per_tx` containers, one after another; the changes made.
async fn pipeline(
    db: Db,
    account: Uuid,
    ids: Vec<Uuid>,
    lines: Vec<String>,
    per_tx: usize,
) -> Res<usize> {
    let mut changes = 0usize;
    for chunk in lines.chunks(per_tx * 5) {
        let mut batches: Vec<(Uuid, Vec<Observation>)> = Vec::new();
        for l in chunk {
            let line: Line = serde_json::from_str(l)?;
            match batches.last_mut() {
                Some((id, b)) if *id == ids[line.c] => b.push(line.o),
                _ => batches.push((ids[line.c], vec![line.o])),
            }
        }
        changes += boxtrack_store::tracking::apply_many(&db, account, &batches).await?;
    }
    Ok(changes)
}

/// `streams` accounts of `per_stream` containers each in `db` (setup, not measured).
async fn accounts(
    db: &Db,
    first: Uuid,
    streams: usize,
    per_stream: usize,
) -> Res<Vec<(Uuid, Vec<Uuid>)>> {
    let mut out = Vec::with_capacity(streams);
    for s in 0..streams {
        let account = if s == 0 {
            first
        } else {
            boxtrack_store::accounts::create(
                db,
                boxtrack_store::accounts::NewAccount {
                    name: format!("bench {s}"),
                    plan: boxtrack_core::plan::Plan::Standard,
                    entitlements: vec![],
                    rate_limits: Limits::default(),
                },
            )
            .await?
            .0
            .id
        };
        out.push((account, containers(db, account, per_stream).await?));
    }
    Ok(out)
}

/// Drops the schema a PostgreSQL bench database lives in (SQLite's folder goes with its
/// [`boxtrack_testkit::TestDatabase`]).
async fn drop_schema(db: &Db) -> Res<()> {
    if let Db::Postgres(p) = db {
        let schema: String = sqlx::query_scalar("SELECT current_schema()")
            .fetch_one(p)
            .await?;
        if schema.starts_with("t_") {
            sqlx::query(AssertSqlSafe(format!("DROP SCHEMA {schema} CASCADE")))
                .execute(p)
                .await?;
        }
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Res<()> {
    // the merge writes each container's rendered text, as in `boxtrack serve` and `worker`
    boxtrack_views::tracking::install_renderer();
    let n = arg(1, 100_000);
    let per_tx = arg(2, 500);
    // concurrent ingests, each its own account (as two sources' files at once would be)
    let streams = arg(3, 1).clamp(1, 8);
    let per_stream = n / streams;
    let n = per_stream * streams;
    let lines = stream(per_stream)?;
    let observations = lines.len() * streams;

    // the pipeline
    let (db, _keep, first) = fresh().await?;
    let setup = Instant::now();
    let owners = accounts(&db, first, streams, per_stream).await?;
    eprintln!(
        "setup: {n} containers in {streams} account(s) in {:.2} s",
        setup.elapsed().as_secs_f64()
    );
    let (me, busy) = (std::process::id(), boxtrack_bench::load::machine_busy_ticks);
    let (mine_before, busy_before) = (boxtrack_bench::load::cpu_ticks_of(me), busy());
    let started = Instant::now();
    let mut running = tokio::task::JoinSet::new();
    for (account, ids) in owners {
        let (db, lines) = (db.clone(), lines.clone());
        running.spawn(async move {
            let done = pipeline(db, account, ids, lines, per_tx).await;
            done.map_err(|e| e.to_string())
        });
    }
    let mut changes = 0usize;
    while let Some(done) = running.join_next().await {
        changes += done?.map_err(|e| format!("a stream failed: {e}"))?;
    }
    let pipeline = started.elapsed().as_secs_f64();
    let mine = boxtrack_bench::load::cpu_ticks_of(me).saturating_sub(mine_before);
    let rest = busy().saturating_sub(busy_before).saturating_sub(mine);
    let te = count(&db, "transport_events").await? as usize;
    let ev = count(&db, "events").await? as usize;
    let raw = count(&db, "raw_events").await? as usize;
    let containers_written = n; // every container row is updated once per transaction
    let written = te + ev + raw + containers_written;
    drop_schema(&db).await?;

    // the baseline: the same number of rows as plain batched INSERTs, in a fresh database,
    // by as many concurrent streams
    let (base_db, _keep2, base_first) = fresh().await?;
    let base_owners = accounts(&base_db, base_first, streams, per_stream).await?;
    // the same transaction size as the pipeline: its rows per transaction
    let rows_per_tx = (written / n.div_ceil(per_tx)).max(1);
    let started = Instant::now();
    let mut running = tokio::task::JoinSet::new();
    for (account, ids) in base_owners {
        let (db, per) = (base_db.clone(), streams);
        running.spawn(async move {
            let baseline = Baseline {
                db: &db,
                account,
                containers: &ids,
                per_stmt: 100,
                per_tx: rows_per_tx,
            };
            baseline_rows(
                &baseline,
                te / per,
                raw / per,
                (ev + containers_written) / per,
            )
            .await
        });
    }
    while let Some(done) = running.join_next().await {
        done?.map_err(|e| format!("a baseline stream failed: {e}"))?;
    }
    let baseline = started.elapsed().as_secs_f64();
    drop_schema(&base_db).await?;

    let obs_rate = observations as f64 / pipeline;
    let base_rows_rate = written as f64 / baseline;
    let base_obs_rate = observations as f64 / baseline;
    println!(
        "backend: {:?}; containers: {n}; observations: {observations}; containers per transaction: {per_tx}; concurrent streams: {streams}",
        db.backend()
    );
    println!(
        "pipeline (parse → merge → store → event log): {pipeline:.2} s, {obs_rate:.0} observations/s, {changes} changes, {te} transport events, {ev} event-log rows, {raw} raw events"
    );
    println!(
        "baseline (plain batched INSERTs of the same {written} rows): {baseline:.2} s, {base_rows_rate:.0} rows/s, i.e. {base_obs_rate:.0} observations/s equivalent"
    );
    let (mine, rest) = (mine as f64 / 100.0, rest as f64 / 100.0);
    match db.backend() {
        boxtrack_store::Backend::Sqlite => println!(
            "pipeline CPU: this process (SQLite within it) {mine:.2} s, the rest of the machine {rest:.2} s, in {pipeline:.2} s"
        ),
        boxtrack_store::Backend::Postgres => println!(
            "pipeline CPU: this process {mine:.2} s, the rest of the machine (PostgreSQL) {rest:.2} s, in {pipeline:.2} s"
        ),
    }
    println!("pipeline / baseline: {:.2}", obs_rate / base_obs_rate);
    Ok(())
}
