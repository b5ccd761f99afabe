//! The MCP tools' answers for sandbox journeys at fixed virtual times, compared with recorded
//! ones (`snapshots/*.json`): each journey starts at a fixed instant and plays to its first,
//! middle and last hour, and at each the tools answer with "now" fixed there; then the
//! account's lists, counts and an already tracked number at the journeys' end. Ids (random) and
//! times of the wall clock (when a row was written) are replaced by placeholders; every time
//! of the journey's own clock stays, as do the dates and days in the port's calendar.
//!
//! A changed answer fails with the difference. When the change is meant, record the new
//! answers with `BOXTRACK_UPDATE_SNAPSHOTS=1 cargo test -p boxtrack-mcp --test it
//! recorded` and review the diff of `crates/mcp/tests/it/snapshots/`.

use std::collections::HashMap;
use std::path::PathBuf;

use boxtrack_core::plan::{Entitlement, Plan};
use boxtrack_core::ratelimit::Limits;
use serde_json::{Value, json};

use crate::harness::TestApp;

/// The journeys' virtual time zero: 2026-09-01 06:00 UTC (23:00 the day before in Los
/// Angeles, so local dates and days are tested across the UTC date line).
const START_US: i64 = 1_788_242_400_000_000;
/// A journey hour in wall time (the sandbox plays 3600 virtual seconds a second).
const H: i64 = 1_000_000;

/// Replaces ids and wall-clock times: a UUID by `<id N>` (numbered by first sight), an RFC 3339
/// time not on a whole minute of the journey's clock, or within an hour of the real now, by
/// `<wall clock>`.
fn normalize(v: &Value, ids: &mut HashMap<String, usize>) -> Value {
    match v {
        Value::String(s) => {
            if uuid::Uuid::parse_str(s).is_ok() {
                let n = ids.len() + 1;
                let n = *ids.entry(s.clone()).or_insert(n);
                return json!(format!("<id {n}>"));
            }
            // (a wall-clock time on a whole second that is also a whole minute of the
            // journey's clock is told by its nearness to the real now: the journeys play in
            // September 2026)
            if let Some(us) = boxtrack_core::time::parse_micros(s)
                && s.len() >= 20
                && ((us - START_US) % 60_000_000 != 0
                    || (us - boxtrack_store::now_us()).abs() < 3_600_000_000)
            {
                return json!("<wall clock>");
            }
            v.clone()
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| normalize(x, ids)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), normalize(x, ids)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn snapshot_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/snapshots")
        .join(format!("{name}.json"))
}

/// Compares `got` with the recorded answer `name` (records it when asked to).
fn check(name: &str, got: &Value) -> Option<String> {
    let path = snapshot_path(name);
    let text = serde_json::to_string_pretty(got).unwrap() + "\n";
    if std::env::var_os("BOXTRACK_UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        return None;
    }
    let recorded = std::fs::read_to_string(&path).unwrap_or_default();
    if recorded == text {
        return None;
    }
    let first_diff = recorded
        .lines()
        .zip(text.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(recorded.lines().count().min(text.lines().count()));
    Some(format!(
        "{name}: the answer differs from {} at line {} (recorded: {:?}, now: {:?})",
        path.display(),
        first_diff + 1,
        recorded.lines().nth(first_diff).unwrap_or("<end>"),
        text.lines().nth(first_diff).unwrap_or("<end>")
    ))
}

async fn call(
    state: &boxtrack_http::Front,
    account: &boxtrack_store::accounts::Account,
    name: &str,
    args: Value,
) -> Value {
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": args}});
    let answer = boxtrack_mcp::dispatch(
        state,
        account,
        boxtrack_mcp::tools::Credential::ApiKey(uuid::Uuid::nil()),
        &msg,
    )
    .await
    .unwrap();
    assert_eq!(answer["result"]["isError"], false, "{name}: {answer}");
    // the data only: the response contract is guidance, checked by `mcp::contracts`
    let mut data = answer["result"]["structuredContent"].clone();
    if let Some(o) = data.as_object_mut() {
        o.remove("_response_contract");
    }
    data
}

#[tokio::test]
async fn the_tools_answer_as_recorded_for_the_sandbox_journeys() {
    let app = TestApp::spawn().await;
    let (account, key) = app
        .account_with(
            Plan::Standard,
            &[Entitlement::Routing, Entitlement::RailLfd],
            Limits::default(),
        )
        .await;
    let mut failures: Vec<String> = Vec::new();
    for number in ["TEST-SCN-HOLDS", "TEST-SCN-RAIL"] {
        let request = app.track(&key, number, "bill_of_lading", "TEST").await;
        app.process().await;
        let shipment = app.shipment_of(&key, request).await;
        assert!(
            boxtrack_store::sandbox::start_at(&app.db, account.id, shipment, START_US)
                .await
                .unwrap(),
            "{number}: the journey starts at the fixed instant"
        );
        let scenario = boxtrack_sources::scenarios::scenarios()
            .into_iter()
            .find(|s| s.number == number)
            .unwrap();
        let mut hours: Vec<i64> = scenario.steps.iter().map(|s| s.at_h).collect();
        hours.sort_unstable();
        hours.dedup();
        let picked = [hours[0], hours[hours.len() / 2], hours[hours.len() - 1]];
        for h in picked {
            // the journey played to hour h, and "now" just after it
            app.tick_at(START_US + h * H).await;
            let state = boxtrack_http::Front::new(
                boxtrack_app::Ctx::new(app.db.clone()).with_fixed_now(START_US + h * H + H / 2),
                boxtrack_http::ApiConfig::default(),
                boxtrack_http::Limiter::memory(),
            );
            let container = boxtrack_store::reads::containers_of(&app.db, account.id, shipment)
                .await
                .unwrap()
                .remove(0)
                .id;
            let mut ids = HashMap::new();
            for (tool, args) in [
                (
                    "get_container",
                    json!({"id": container, "include": ["transport_events"]}),
                ),
                ("get_shipment_details", json!({"id": shipment})),
                ("get_container_transport_events", json!({"id": container})),
                ("get_container_route", json!({"id": container})),
            ] {
                let got = normalize(&call(&state, &account, tool, args).await, &mut ids);
                let name = format!("{}-h{h:04}-{tool}", number.to_lowercase());
                failures.extend(check(&name, &got));
            }
        }
    }
    // both journeys at their ends: the account's lists, counts, and a number tracked already
    let state = boxtrack_http::Front::new(
        boxtrack_app::Ctx::new(app.db.clone()).with_fixed_now(START_US + 700 * H),
        boxtrack_http::ApiConfig::default(),
        boxtrack_http::Limiter::memory(),
    );
    let mut ids = HashMap::new();
    for (name, tool, args) in [
        (
            "list_containers",
            "list_containers",
            json!({"include_stopped_tracking": true}),
        ),
        (
            "list_shipments",
            "list_shipments",
            json!({"include_stopped_tracking": true, "include_containers": true}),
        ),
        (
            "list_tracking_requests",
            "list_tracking_requests",
            json!({"status": "created"}),
        ),
        (
            "list_containers-lfd-after-27th",
            "list_containers",
            json!({"include_stopped_tracking": true, "advanced_filters": {"pickup_lfd": [">=2026-09-27", "<=30.days.from_now"]}}),
        ),
        (
            "summarize_containers-status",
            "summarize_containers",
            json!({"group_by": "current_status", "include_stopped_tracking": true}),
        ),
        (
            "summarize_containers-lfd",
            "summarize_containers",
            json!({"group_by": "pickup_lfd_date", "include_stopped_tracking": true}),
        ),
        (
            "track_container-tracked",
            "track_container",
            json!({"number": "TEST-SCN-HOLDS"}),
        ),
    ] {
        let got = normalize(&call(&state, &account, tool, args).await, &mut ids);
        failures.extend(check(&format!("account-{name}"), &got));
    }
    // the date filters at the journeys' end: each container's milestone days, as get_container
    // tells them, find it, and the day before or after does not
    let listed = call(
        &state,
        &account,
        "list_containers",
        json!({"include_stopped_tracking": true}),
    )
    .await;
    let mut checked = 0;
    for row in listed["items"].as_array().unwrap() {
        let id = row["id"].as_str().unwrap();
        let number = row["number"].as_str().unwrap();
        let c = call(&state, &account, "get_container", json!({"id": id})).await;
        for (filter, at) in [
            ("pod_discharged_at", &c["location"]["pod_discharged_at"]),
            ("pod_arrived_at", &c["location"]["pod_arrived_at"]),
        ] {
            let Some(day) = at.as_str().map(|t| t[..10].to_string()) else {
                continue;
            };
            for (bound, found) in [
                (json!(format!("={day}")), true),
                (json!([format!(">={day}"), format!("<={day}")]), true),
                (json!(format!("<{day}")), false),
                (json!(format!(">{day}")), false),
                (json!("@exists"), true),
                (json!("@not_exists"), false),
            ] {
                let args =
                    json!({"include_stopped_tracking": true, "number": number, filter: bound});
                let l = call(&state, &account, "list_containers", args.clone()).await;
                assert_eq!(l["meta"]["total"], i64::from(found), "{args}: {l}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 12, "both journeys discharge their containers");
    // a container picked up and returned, one arriving: counts that add up
    for filter in ["picked_up_at", "empty_returned_at", "arrival", "pol_atd_at"] {
        let mut sum = 0;
        for presence in ["@exists", "@not_exists"] {
            let l = call(
                &state,
                &account,
                "list_containers",
                json!({"include_stopped_tracking": true, filter: presence}),
            )
            .await;
            sum += l["meta"]["total"].as_i64().unwrap();
        }
        assert_eq!(sum, listed["meta"]["total"].as_i64().unwrap(), "{filter}");
    }
    // fees reported or not, and the vessel by its name
    let mut sum = 0;
    for has in [true, false] {
        let l = call(
            &state,
            &account,
            "list_containers",
            json!({"include_stopped_tracking": true, "has_fees": has}),
        )
        .await;
        sum += l["meta"]["total"].as_i64().unwrap();
    }
    assert_eq!(sum, listed["meta"]["total"].as_i64().unwrap(), "has_fees");
    let ships = call(
        &state,
        &account,
        "list_shipments",
        json!({"include_stopped_tracking": true}),
    )
    .await;
    let vessel = ships["items"][0]["podVesselName"].as_str().unwrap();
    let by_vessel = call(
        &state,
        &account,
        "list_containers",
        json!({"include_stopped_tracking": true, "vessel_name": vessel}),
    )
    .await;
    assert!(
        by_vessel["meta"]["total"].as_i64().unwrap() >= 1,
        "{by_vessel}"
    );
    for (name, tool, args) in [
        (
            "list_containers-picked-up",
            "list_containers",
            json!({"include_stopped_tracking": true, "picked_up_at": "@exists"}),
        ),
        (
            "list_shipments-arrived-september",
            "list_shipments",
            json!({"include_stopped_tracking": true, "voyage_status": "arrived", "pod_arrival": [">=2026-09-01", "<2026-10-01"]}),
        ),
    ] {
        let got = normalize(&call(&state, &account, tool, args).await, &mut ids);
        failures.extend(check(&format!("account-{name}"), &got));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
