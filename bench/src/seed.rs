//! Seeds a database with many containers for the read and list benchmarks of issue 25:
//! `CONTAINERS` containers on `SHIPMENTS` shipments spread evenly over `ACCOUNTS` accounts,
//! written straight into the store (multi-row `INSERT`s, no API, no worker), with a progress
//! line on stderr.
//!
//! ```sh
//! cargo build --release -p boxtrack-bench
//! DATABASE_URL=sqlite:///tmp/big.db ./target/release/bench-seed [CONTAINERS] [SHIPMENTS] [ACCOUNTS] [OUT.json]
//! ```
//!
//! Defaults: 1,000,000 containers, 200,000 shipments, 100 accounts, `seed.json`. Every row is
//! a copy of what a real journey left behind: the seeder first plays the sandbox journey
//! `TEST-SCN-IMPORT` to its end through the tracking-request processor in a template account
//! and copies that shipment's and container's merged state, with new ids, numbers and times.
//! Each account's limits are lifted to 100 million requests a minute. `OUT.json` names the
//! database, each account's API key and a sample of its container ids, for `bench-read`.

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use boxtrack_core::plan::{Entitlement, Plan};
use boxtrack_core::ratelimit::{Bucket, Limits};
use boxtrack_core::requests::{RequestType, ValidRequest};
use boxtrack_store::accounts::{self, NewAccount};
use boxtrack_store::{Db, on_db, tracking};
use serde_json::{Value, json};
use sqlx::types::Json;
use uuid::Uuid;

use boxtrack_bench::Res;

/// Rows per `INSERT` statement.
const BATCH: usize = 500;
/// Container ids kept per account for the read benchmark.
const SAMPLE: usize = 200;

/// What the template journey left: a shipment's and a container's stored columns.
struct Template {
    scac: String,
    pod_locode: Option<String>,
    route: Value,
    shipment_state: Value,
    /// The voyage's records, stored beside the shipment's state.
    shipment_records: Value,
    container_state: Value,
    /// The merge's records, stored beside the state.
    container_records: Value,
    current_status: String,
    ready_for_pickup: bool,
    pickup_lfd_us: Option<i64>,
}

async fn template(db: &Db) -> Res<Template> {
    let (account, _, _) = accounts::create(
        db,
        NewAccount {
            name: "seed template".into(),
            plan: Plan::Standard,
            entitlements: Entitlement::ALL.to_vec(),
            rate_limits: Limits::default(),
        },
    )
    .await?;
    let request = ValidRequest {
        number: "TEST-SCN-IMPORT".into(),
        request_type: RequestType::BillOfLading,
        scac: Some(boxtrack_core::carriers::SANDBOX_SCAC.to_string()),
        auto_detect: false,
        ref_numbers: vec![],
        shipment_tags: vec![],
    };
    tracking::create_request(
        db,
        account.id,
        Plan::Standard,
        &request,
        &tracking::RequestExtras::default(),
    )
    .await?;
    let sources: Vec<Arc<dyn boxtrack_sources::Source>> =
        vec![Arc::new(boxtrack_sources::sandbox::Sandbox)];
    let worker = boxtrack_worker::Processor::new(db.clone(), sources);
    let start = boxtrack_store::now_us();
    worker.process_due(start).await?;
    let journey = boxtrack_sources::scenarios::scenarios()
        .into_iter()
        .find(|s| s.number == "TEST-SCN-IMPORT")
        .ok_or("the sandbox has no TEST-SCN-IMPORT journey")?;
    for step in &journey.steps {
        // one simulated hour per real second: the processor plays the journey by the clock
        worker.tick(start + step.at_h * 1_000_000).await?;
    }
    let shipment: (
        String,
        Option<String>,
        Json<Value>,
        Json<Value>,
        Json<Value>,
    ) = on_db!(db, p => sqlx::query_as(
        "SELECT scac, pod_locode, route, state, records FROM shipments WHERE account_id = $1",
    )
    .bind(account.id)
    .fetch_one(p)
    .await?);
    let container: (Json<Value>, String, bool, Option<i64>, Json<Value>) = on_db!(db, p => sqlx::query_as(
        "SELECT state, current_status, ready_for_pickup, pickup_lfd_us, records FROM containers WHERE account_id = $1 LIMIT 1",
    )
    .bind(account.id)
    .fetch_one(p)
    .await?);
    Ok(Template {
        scac: shipment.0,
        pod_locode: shipment.1,
        route: shipment.2.0,
        shipment_state: shipment.3.0,
        shipment_records: shipment.4.0,
        container_state: container.0.0,
        container_records: container.4.0,
        current_status: container.1,
        ready_for_pickup: container.2,
        pickup_lfd_us: container.3,
    })
}

fn placeholders(rows: usize, cols: usize) -> String {
    (0..rows)
        .map(|r| {
            let cells: Vec<String> = (1..=cols).map(|c| format!("${}", r * cols + c)).collect();
            format!("({})", cells.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One batch of shipments: `(id, account, number, updated_us)`.
async fn insert_shipments(db: &Db, t: &Template, rows: &[(Uuid, Uuid, String, i64)]) -> Res<()> {
    let sql = format!(
        "INSERT INTO shipments (id, account_id, bill_of_lading_number, scac, pod_locode, ref_numbers, tags, route, state, created_us, updated_us, records) VALUES {}",
        placeholders(rows.len(), 12)
    );
    let empty: Json<Vec<String>> = Json(vec![]);
    on_db!(db, p => {
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for (id, account, number, at) in rows {
            q = q
                .bind(*id)
                .bind(*account)
                .bind(number.clone())
                .bind(t.scac.clone())
                .bind(t.pod_locode.clone())
                .bind(empty.clone())
                .bind(empty.clone())
                .bind(Json(t.route.clone()))
                .bind(Json(t.shipment_state.clone()))
                .bind(*at)
                .bind(*at)
                .bind(Json(t.shipment_records.clone()));
        }
        q.execute(p).await.map(|_| ())?
    });
    // the route and state as the shipment's resource shows them, as the merge writes them
    let state: boxtrack_core::tracking::ShipmentState =
        serde_json::from_value(t.shipment_state.clone())?;
    let route: boxtrack_core::tracking::Route = serde_json::from_value(t.route.clone())?;
    let view = boxtrack_views::tracking::render_shipment(&route, &state);
    let views_sql = format!(
        "INSERT INTO shipment_views (shipment_id, account_id, view) VALUES {}",
        placeholders(rows.len(), 3)
    );
    on_db!(db, p => {
        let mut q = sqlx::query(sqlx::AssertSqlSafe(views_sql));
        for (id, account, _, _) in rows {
            q = q.bind(*id).bind(*account).bind(view.clone());
        }
        q.execute(p).await.map(|_| ())?
    });
    Ok(())
}

/// One batch of containers: `(id, account, shipment, number, updated_us)`.
async fn insert_containers(
    db: &Db,
    t: &Template,
    rows: &[(Uuid, Uuid, Uuid, String, i64)],
) -> Res<()> {
    let sql = format!(
        "INSERT INTO containers (id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, pickup_lfd_us, active, created_us, updated_us, pod_terminal, records) VALUES {}",
        placeholders(rows.len(), 14)
    );
    let views_sql = format!(
        "INSERT INTO container_views (container_id, account_id, view) VALUES {}",
        placeholders(rows.len(), 3)
    );
    // the state as its resource shows it, as the merge writes it beside the state
    let state: boxtrack_core::tracking::ContainerState =
        serde_json::from_value(t.container_state.clone())?;
    let view =
        boxtrack_views::tracking::render_container(&state, &t.current_status, t.ready_for_pickup);
    // the column the tracking writer keeps beside the state
    let terminal = t.container_state["pod_terminal"]
        .as_str()
        .map(str::to_string);
    let empty: Json<Vec<String>> = Json(vec![]);
    on_db!(db, p => {
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for (id, account, shipment, number, at) in rows {
            q = q
                .bind(*id)
                .bind(*account)
                .bind(*shipment)
                .bind(number.clone())
                .bind(empty.clone())
                .bind(Json(t.container_state.clone()))
                .bind(t.current_status.clone())
                .bind(t.ready_for_pickup)
                .bind(t.pickup_lfd_us)
                .bind(true)
                .bind(*at)
                .bind(*at)
                .bind(terminal.clone())
                .bind(Json(t.container_records.clone()));
        }
        q.execute(p).await.map(|_| ())?;
        let mut q = sqlx::query(sqlx::AssertSqlSafe(views_sql));
        for (id, account, ..) in rows {
            q = q.bind(*id).bind(*account).bind(view.clone());
        }
        q.execute(p).await.map(|_| ())?
    });
    Ok(())
}

/// An ISO 6346 number with a valid check digit for serial `n` (owner codes `BTAU`, `BTBU`, …,
/// a million serials each).
fn container_number(n: u64) -> String {
    let owner = char::from(b'A' + (n / 1_000_000 % 26) as u8);
    let body = format!("BT{owner}U{:06}", n % 1_000_000);
    let digit = boxtrack_core::ident::check_digit(&body).unwrap_or(0);
    format!("{body}{digit}")
}

fn progress(what: &str, done: usize, total: usize, started: Instant) {
    let rate = done as f64 / started.elapsed().as_secs_f64().max(1e-9);
    eprint!(
        "\r{what}: {done:>9} / {total} ({:>3}%, {rate:>7.0}/s)   ",
        done * 100 / total.max(1)
    );
    let _ = std::io::stderr().flush();
}

#[tokio::main]
async fn main() -> Res<()> {
    let mut args = std::env::args().skip(1);
    let containers: usize = args.next().map_or(Ok(1_000_000), |s| s.parse())?;
    let shipments: usize = args.next().map_or(Ok(200_000), |s| s.parse())?;
    let account_count: usize = args.next().map_or(Ok(100), |s| s.parse())?;
    let out = args.next().unwrap_or_else(|| "seed.json".into());
    let url = std::env::var("DATABASE_URL")
        .map_err(|_| "set DATABASE_URL (sqlite:///path/big.db or postgres://…)")?;
    if shipments == 0 || account_count == 0 || containers < shipments {
        return Err("need at least one account, one shipment, and a container per shipment".into());
    }
    let db = Db::connect(&url).await?;
    db.migrate().await?;
    let t = template(&db).await?;

    let lifted = Limits([(Bucket::Default, 100_000_000)].into_iter().collect());
    let mut accounts_out = Vec::new();
    let started = Instant::now();
    let now = boxtrack_store::now_us();
    let mut serial: u64 = 0;
    let mut seeded = 0usize;
    for a in 0..account_count {
        let (account, _, key) = accounts::create(
            &db,
            NewAccount {
                name: format!("seeded {a}"),
                plan: Plan::Standard,
                entitlements: Entitlement::ALL.to_vec(),
                rate_limits: lifted.clone(),
            },
        )
        .await?;
        // this account's share, the remainder going to the first ones
        let my_shipments = shipments / account_count + usize::from(a < shipments % account_count);
        let my_containers =
            containers / account_count + usize::from(a < containers % account_count);
        let mut ship_rows = Vec::with_capacity(BATCH);
        let mut box_rows = Vec::with_capacity(BATCH);
        let mut sample = Vec::new();
        let mut ship_ids = Vec::with_capacity(my_shipments);
        for s in 0..my_shipments {
            let id = Uuid::now_v7();
            ship_ids.push(id);
            // spread over the last 30 days so lists have an order to keep
            let at = now - ((a * my_shipments + s) as i64 % 2_592_000) * 1_000_000;
            ship_rows.push((id, account.id, format!("BTKSEED{a:03}{s:07}"), at));
            if ship_rows.len() == BATCH {
                insert_shipments(&db, &t, &ship_rows).await?;
                ship_rows.clear();
            }
        }
        if !ship_rows.is_empty() {
            insert_shipments(&db, &t, &ship_rows).await?;
        }
        for c in 0..my_containers {
            let id = Uuid::now_v7();
            let shipment = ship_ids[c % ship_ids.len()];
            let at = now - (serial as i64 % 2_592_000) * 1_000_000;
            box_rows.push((id, account.id, shipment, container_number(serial), at));
            serial += 1;
            if sample.len() < SAMPLE && c % (my_containers / SAMPLE).max(1) == 0 {
                sample.push(id.to_string());
            }
            if box_rows.len() == BATCH {
                insert_containers(&db, &t, &box_rows).await?;
                seeded += box_rows.len();
                box_rows.clear();
                if seeded.is_multiple_of(10_000) {
                    progress("containers", seeded, containers, started);
                }
            }
        }
        if !box_rows.is_empty() {
            insert_containers(&db, &t, &box_rows).await?;
            seeded += box_rows.len();
            progress("containers", seeded, containers, started);
        }
        accounts_out.push(json!({
            "id": account.id,
            "key": key.expose(),
            "containers": my_containers,
            "sample": sample,
        }));
    }
    eprintln!();
    on_db!(&db, p => sqlx::query("ANALYZE")
    .execute(p)
    .await
    .map(|_| ())?);
    let doc = json!({ "database_url": url, "accounts": accounts_out });
    std::fs::write(&out, serde_json::to_vec_pretty(&doc)?)?;
    println!(
        "seeded {containers} containers on {shipments} shipments in {account_count} accounts in {:.1} s; keys and sample ids in {out}",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
