//! Journey acceptance: every sandbox scenario played through the real server (API, worker on a
//! virtual clock, store, webhook deliverer and a real HTTP receiver), checked at every step of
//! its script against what the rules say the container and shipment are then.
//!
//! The expectation is computed independently of the store: the scenario's steps replayed
//! through the pure merge in the batches the worker plays them in (each hour's steps,
//! container by container), read through the pure rules. What is compared is everything a
//! user acts on: `current_status`, availability, readiness, holds, fees, the last free days,
//! the POD terminal, the vessel and voyage, ETD/ETA/ATA (originals included) and the
//! destination's ETA/ATA; then that the event log holds the changes in the order they
//! happened, and that the webhook receiver got every one of them.

use std::collections::BTreeMap;

use boxtrack_api::Limiter;
use boxtrack_app::ctx::Policy;
use boxtrack_core::plan::{Entitlement, Plan};
use boxtrack_core::ratelimit::{Bucket, Limits};
use boxtrack_core::time::format_micros;
use boxtrack_core::tracking::merge::{View, fee_json, hold_json, merge};
use boxtrack_core::tracking::rules;
use boxtrack_core::tracking::{ContainerState, LfdKind, Observation, ShipmentState};
use boxtrack_sources::scenarios::{self, shift};
use serde_json::{Value, json};

use crate::helpers::{TestApp, fresh_db};

const MT: &str = "application/vnd.api+json";

type Seen = std::sync::Arc<tokio::sync::Mutex<Vec<Vec<u8>>>>;

/// Delivers every notification due now to private addresses (the test receivers), until
/// none is left.
pub(crate) async fn deliver_all(db: &boxtrack_store::Db) {
    let deliverer = boxtrack_worker::delivery::Deliverer::new(
        db.clone(),
        std::time::Duration::from_secs(5),
        true,
        100,
    );
    while deliverer
        .deliver_due(boxtrack_store::now_us())
        .await
        .unwrap()
        > 0
    {}
}

/// A webhook receiver on port 0 that records every body and answers 204.
pub(crate) async fn receiver() -> (String, Seen) {
    use axum::routing::post;
    let seen: Seen = Default::default();
    let store = seen.clone();
    let app = axum::Router::new().route(
        "/hook",
        post(move |body: axum::body::Bytes| {
            let store = store.clone();
            async move {
                store.lock().await.push(body.to_vec());
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/hook"), seen)
}

fn ts(v: Option<i64>) -> Value {
    v.map_or(Value::Null, |us| Value::String(format_micros(us)))
}

/// What the API must show for one container at one step.
fn expected_container(c: &ContainerState, view: View) -> Value {
    let lfd = |k: LfdKind| ts(c.lfd.get(&k).copied());
    json!({
        "current_status": rules::current_status(c, view.inland).as_str(),
        "available_for_pickup": rules::available_for_pickup(c, view.inland),
        "ready_for_pickup": rules::ready_for_pickup(c, view.inland),
        "holds_at_pod_terminal": rules::reported_holds(c).unwrap_or_default().iter().map(hold_json).collect::<Vec<_>>(),
        "fees_at_pod_terminal": rules::reported_fees(c).unwrap_or_default().iter().map(fee_json).collect::<Vec<_>>(),
        "pickup_lfd": ts(rules::coalesced_lfd(&c.lfd, view.rail_lfd)),
        "pickup_lfd_line": lfd(LfdKind::Line),
        "pickup_lfd_terminal": lfd(LfdKind::Terminal),
        "pickup_lfd_rail": lfd(LfdKind::Rail),
        "pickup_appointment_at": ts(c.pickup_appointment_us),
        "pod_terminal": c.pod_terminal.is_some(),
        "location_at_pod_terminal": c.location_at_pod_terminal,
    })
}

/// The same fields as the API shows them.
fn shown_container(a: &Value, relationships: &Value) -> Value {
    json!({
        "current_status": a["current_status"],
        "available_for_pickup": a["available_for_pickup"],
        "ready_for_pickup": a["ready_for_pickup"],
        "holds_at_pod_terminal": a["holds_at_pod_terminal"],
        "fees_at_pod_terminal": a["fees_at_pod_terminal"],
        "pickup_lfd": a["pickup_lfd"],
        "pickup_lfd_line": a["import_deadlines"]["pickup_lfd_line"],
        "pickup_lfd_terminal": a["import_deadlines"]["pickup_lfd_terminal"],
        "pickup_lfd_rail": a["import_deadlines"]["pickup_lfd_rail"],
        "pickup_appointment_at": a["pickup_appointment_at"],
        "pod_terminal": !relationships["pod_terminal"]["data"].is_null(),
        "location_at_pod_terminal": a["location_at_pod_terminal"],
    })
}

fn expected_shipment(s: &ShipmentState) -> Value {
    json!({
        "pod_vessel_name": s.pod_vessel_name,
        "pod_vessel_imo": s.pod_vessel_imo,
        "pod_voyage_number": s.pod_voyage_number,
        "pol_etd_at": ts(s.pol_etd_us),
        "pol_original_etd_at": ts(s.pol_original_etd_us),
        "pol_atd_at": ts(s.pol_atd_us),
        "pod_eta_at": ts(s.pod_eta_us),
        "pod_original_eta_at": ts(s.pod_original_eta_us),
        "pod_ata_at": ts(s.pod_ata_us),
        "destination_eta_at": ts(s.destination_eta_us),
        "destination_original_eta_at": ts(s.destination_original_eta_us),
        "destination_ata_at": ts(s.destination_ata_us),
    })
}

fn shown_shipment(a: &Value) -> Value {
    let keys = [
        "pod_vessel_name",
        "pod_vessel_imo",
        "pod_voyage_number",
        "pol_etd_at",
        "pol_original_etd_at",
        "pol_atd_at",
        "pod_eta_at",
        "pod_original_eta_at",
        "pod_ata_at",
        "destination_eta_at",
        "destination_original_eta_at",
        "destination_ata_at",
    ];
    Value::Object(
        keys.iter()
            .map(|k| (k.to_string(), a[*k].clone()))
            .collect(),
    )
}

/// Whether an event-log entry is a change the merge made (not request or creation events).
fn is_change(event: &str) -> bool {
    (event.starts_with("container.") && event != "container.created")
        || event == "shipment.estimated.arrival"
}

#[tokio::test]
async fn every_sandbox_journey_is_right_at_every_step() {
    for scenario in scenarios::scenarios() {
        play(&scenario).await;
    }
}

async fn play(scenario: &scenarios::Scenario) {
    let number = scenario.number;
    let (db, database) = fresh_db().await;
    std::mem::forget(database);
    let app = TestApp::spawn_policy(
        db.clone(),
        Limiter::memory(),
        Policy {
            allow_private_webhook_urls: true,
            ..Policy::default()
        },
    )
    .await;
    let (account, key) = app
        .account_with(
            Plan::Standard,
            &[Entitlement::RailLfd, Entitlement::Routing],
            Limits([(Bucket::Default, 100_000)].into_iter().collect()),
        )
        .await;
    let (url, seen) = receiver().await;
    let hook = json!({"data": {"type": "webhook", "attributes": {
        "url": url, "events": boxtrack_core::webhooks::EVENTS.to_vec()}}});
    let r = app.post("/v2/webhooks", &key, MT, &hook.to_string()).await;
    assert_eq!(r.status, 201, "{}", r.text);

    let r = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &crate::helpers::tracking_request_body(number, "bill_of_lading", "TEST"),
        )
        .await;
    assert_eq!(r.status, 201, "{number}: {}", r.text);
    app.process_at(boxtrack_store::now_us()).await;
    let shipments = app.get("/v2/shipments", Some(&key)).await.json();
    let shipment_id = uuid::Uuid::parse_str(shipments["data"][0]["id"].as_str().unwrap()).unwrap();
    let started = boxtrack_store::sandbox::started_us(&db, account.id, shipment_id)
        .await
        .unwrap()
        .expect("a sandbox run");

    // the expectation: the same steps through the pure merge, batched as the worker plays them
    let view = View {
        inland: scenario.route.inland(),
        rail_lfd: true,
    };
    let mut containers = vec![ContainerState::default(); scenario.containers.len()];
    let mut ship = ShipmentState::default();
    let mut expected_changes: Vec<String> = Vec::new();
    let mut path: Vec<String> = Vec::new();
    let mut ready_seen = false;
    let mut hours: Vec<i64> = scenario.steps.iter().map(|s| s.at_h).collect();
    hours.dedup();
    for h in hours {
        // the worker's clock: one simulated hour per second since the run started
        app.tick_at(started + h * 1_000_000).await;
        let mut batches: BTreeMap<usize, Vec<Observation>> = BTreeMap::new();
        for step in scenario.steps.iter().filter(|s| s.at_h == h) {
            batches
                .entry(step.container)
                .or_default()
                .push(shift(&step.observation, started));
        }
        for (i, batch) in batches {
            let m = merge(&containers[i], &ship, &batch, view);
            expected_changes.extend(
                m.changes
                    .iter()
                    .filter(|c| c.logged())
                    .map(|c| c.event_name()),
            );
            containers[i] = m.container;
            ship = m.shipment;
        }

        let listed = app
            .get("/v2/containers?page[size]=100&include=shipment", Some(&key))
            .await
            .json();
        let rows = listed["data"].as_array().unwrap();
        assert_eq!(rows.len(), scenario.containers.len(), "{number}");
        for (i, want) in containers.iter().enumerate() {
            let row = rows
                .iter()
                .find(|c| c["attributes"]["number"] == scenario.containers[i].as_str())
                .unwrap_or_else(|| panic!("{number}: container {i} missing"));
            let shown = shown_container(&row["attributes"], &row["relationships"]);
            assert_eq!(
                shown,
                expected_container(want, view),
                "{number}, hour {h}, container {i}"
            );
            if rules::left_pickup_terminal(want, view.inland) {
                assert_eq!(row["attributes"]["ready_for_pickup"], false, "{number} {h}");
            }
            if i == 0 {
                let status = row["attributes"]["current_status"].as_str().unwrap();
                if path.last().map(String::as_str) != Some(status) {
                    path.push(status.to_string());
                }
                ready_seen |= row["attributes"]["ready_for_pickup"] == true;
            }
        }
        // (the worker writes under the API: on PostgreSQL the read cache of single resources
        // learns of it from a notification, which a loaded machine delivers a moment later)
        let want = expected_shipment(&ship);
        let mut shown = Value::Null;
        for _ in 0..100 {
            let s = app
                .get(&format!("/v2/shipments/{shipment_id}"), Some(&key))
                .await
                .json();
            shown = shown_shipment(&s["data"]["attributes"]);
            if shown == want {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        assert_eq!(shown, want, "{number}, hour {h}, shipment");
    }

    // the journey the scenario promises, written out by hand (first container)
    let (promised, ready): (&[&str], bool) = match number {
        "TEST-SCN-IMPORT" => (
            &[
                "new",
                "on_ship",
                "not_available",
                "available",
                "picked_up",
                "empty_returned",
            ],
            true,
        ),
        "TEST-SCN-HOLDS" => (
            &["on_ship", "not_available", "available", "picked_up"],
            true,
        ),
        "TEST-SCN-RAIL" => (
            &[
                "on_ship",
                "awaiting_inland_transfer",
                "on_rail",
                "available",
                "picked_up",
            ],
            true,
        ),
        "TEST-SCN-ROLLOVER" => (&["new", "on_ship", "grounded"], false),
        _ => (&["on_ship", "picked_up"], false),
    };
    let mut rest = path.iter();
    for step in promised {
        assert!(
            rest.any(|s| s == step),
            "{number}: {step} missing from the journey, in order: {path:?}"
        );
    }
    if ready {
        assert!(ready_seen, "{number}: never ready for pickup: {path:?}");
    }

    // the event log holds the merge's changes, in the order they happened
    let log = boxtrack_store::events::after(&db, account.id, 0, 10_000)
        .await
        .unwrap();
    let changes: Vec<String> = log
        .iter()
        .map(|e| e.event.clone())
        .filter(|e| is_change(e))
        .collect();
    assert_eq!(changes, expected_changes, "{number}: the event log");

    // and the receiver gets every event, each once
    let deliverer = boxtrack_worker::delivery::Deliverer::new(
        db.clone(),
        std::time::Duration::from_secs(5),
        true,
        100,
    );
    for _ in 0..50 {
        if deliverer
            .deliver_due(boxtrack_store::now_us())
            .await
            .unwrap()
            == 0
        {
            break;
        }
    }
    let got = seen.lock().await;
    let mut delivered: Vec<String> = got
        .iter()
        .map(|b| {
            let doc: Value = serde_json::from_slice(b).unwrap();
            doc["data"]["attributes"]["event"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    // boxtrack's own events go only to the webhooks that name them
    let mut logged: Vec<String> = log
        .iter()
        .filter(|e| !boxtrack_core::webhooks::EXTENSION_EVENTS.contains(&e.event.as_str()))
        .map(|e| e.event.clone())
        .collect();
    delivered.sort();
    logged.sort();
    assert_eq!(delivered, logged, "{number}: every event delivered once");
}
