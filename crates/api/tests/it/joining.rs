//! A box that joins a bill after the bill is tracked: the carrier's first answer names one
//! container, a later poll names a second; the second becomes a container of the shipment with
//! its whole history (`container.created`, its transport events), once, within the plan.

use std::sync::{Arc, Mutex};

use axum::extract::State;
use boxtrack_core::plan::Plan;
use boxtrack_core::ratelimit::Limits;
use boxtrack_sources::upstream::{Endpoint, UpstreamConfig, Upstreams};
use serde_json::{Value, json};

use crate::helpers::{TestApp, blank_containers, resolve_bill_of_lading, tracking_request_body};

const BL: &str = "MAEU260412345";
const SECRET: &str = "c2ltdWxhdGVkLWNhcnJpZXItcHVzaC1zZWNyZXQtMzJieXRlcw==";

/// A carrier's DCSA 2.2 events endpoint answering whatever the test has put in it.
#[derive(Default)]
struct Carrier {
    events: Mutex<Vec<Value>>,
}

async fn events(State(c): State<Arc<Carrier>>) -> axum::Json<Value> {
    axum::Json(Value::Array(c.events.lock().unwrap().clone()))
}

async fn carrier() -> (Arc<Carrier>, Arc<Upstreams>) {
    let c = Arc::new(Carrier::default());
    let app = axum::Router::new()
        .route("/c/v2/events", axum::routing::get(events))
        .with_state(c.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let mut cfg = UpstreamConfig {
        requests_per_sec: 1000.0,
        burst: 1000,
        ..UpstreamConfig::default()
    };
    cfg.carriers
        .insert("MAEU".into(), Endpoint::open(format!("{base}/c")));
    (c, Arc::new(Upstreams::new(cfg)))
}

fn iso(us: i64) -> String {
    boxtrack_core::time::format_micros(us - us % 1_000_000)
}

fn call() -> Value {
    json!({"transportCallID": "6f1c1d7e-2b7f-4c43-9c4b-0d7a1f7b1a01", "carrierServiceCode": "AE7",
        "exportVoyageNumber": "612W", "importVoyageNumber": "612W", "UNLocationCode": "CNSHA",
        "facilityCode": "SGH", "facilityCodeListProvider": "SMDG", "modeOfTransport": "VESSEL",
        "vessel": {"vesselIMONumber": "9778791", "vesselName": "MAERSK EMDEN"}})
}

fn refs() -> Value {
    json!([{"documentReferenceType": "TRD", "documentReferenceValue": BL}])
}

/// The box loaded onto the vessel at Shanghai at `at_us`.
fn loaded(number: &str, at_us: i64) -> Value {
    json!({"eventID": uuid::Uuid::now_v7(), "eventCreatedDateTime": iso(at_us + 60_000_000),
        "eventType": "EQUIPMENT", "eventClassifierCode": "ACT", "eventDateTime": iso(at_us),
        "equipmentEventTypeCode": "LOAD", "equipmentReference": number, "ISOEquipmentCode": "45G1",
        "emptyIndicatorCode": "LADEN", "transportCall": call(), "documentReferences": refs()})
}

/// The vessel left Shanghai at `at_us`.
fn departed(at_us: i64) -> Value {
    json!({"eventID": uuid::Uuid::now_v7(), "eventCreatedDateTime": iso(at_us + 60_000_000),
        "eventType": "TRANSPORT", "eventClassifierCode": "ACT", "eventDateTime": iso(at_us),
        "transportEventTypeCode": "DEPA", "transportCall": call(), "documentReferences": refs()})
}

async fn shipment_numbers(app: &TestApp, key: &str) -> Vec<(String, String)> {
    let list = app
        .get("/v2/containers?page[size]=100", Some(key))
        .await
        .json();
    let mut out: Vec<(String, String)> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["attributes"]["number"].as_str().unwrap().to_string(),
                c["id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn a_box_that_joins_a_bill_after_it_is_tracked_is_added_with_its_history() {
    let (db, database) = crate::helpers::fresh_db().await;
    let mut app = TestApp::spawn_with(
        db,
        boxtrack_api::Limiter::memory(),
        boxtrack_api::ApiConfig {
            dcsa_push_secret: Some(SECRET.into()),
            ..boxtrack_api::ApiConfig::default()
        },
    )
    .await;
    app.keep(database);
    let (_, key) = app.account().await;
    let (free, free_key) = app.account_with(Plan::Free, &[], Limits::default()).await;
    let (c, upstreams) = carrier().await;
    let now = boxtrack_store::now_us();
    let day = 86_400_000_000;
    let first = boxtrack_sources::sandbox::container_number("join-first");
    let second = boxtrack_sources::sandbox::container_number("join-second");
    // the carrier has reported the first box only when the bill is tracked
    c.events.lock().unwrap().push(loaded(&first, now - 3 * day));
    for k in [&key, &free_key] {
        let r = app
            .post(
                "/v2/tracking_requests",
                k,
                "application/vnd.api+json",
                &tracking_request_body(BL, "bill_of_lading", "MAEU"),
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
    let sources: Vec<Arc<dyn boxtrack_sources::Source>> = vec![Arc::new(
        boxtrack_sources::carrier::CarrierSource::new(upstreams.clone()),
    )];
    boxtrack_worker::Processor::new(app.db.clone(), sources)
        .process_due(now + 1_000_000)
        .await
        .unwrap();
    assert_eq!(shipment_numbers(&app, &key).await.len(), 1);
    assert_eq!(containers_created(&app, &key).await, 1);
    // the free account fills its plan with a second bill of nine boxes
    resolve_bill_of_lading(&app.db, free.id, "MAEU260499999", blank_containers(9, 0)).await;
    assert_eq!(shipment_numbers(&app, &free_key).await.len(), 10);

    // then the carrier reports the second box, loaded before the vessel left
    {
        let mut e = c.events.lock().unwrap();
        e.push(loaded(&second, now - 3 * day + 1_800_000_000));
        e.push(departed(now - 3 * day + 3_600_000_000));
    }
    // one poll of the bill serves both accounts
    boxtrack_sources::poll::poll_due(&app.db, &upstreams, now + 2 * day, 10)
        .await
        .unwrap();

    let mine = shipment_numbers(&app, &key).await;
    assert_eq!(
        mine.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        {
            let mut v = vec![first.as_str(), second.as_str()];
            v.sort();
            v
        },
        "the second box joined the shipment"
    );
    let (_, second_id) = mine.iter().find(|(n, _)| *n == second).unwrap();
    let shipment = app
        .get(&format!("/v2/containers/{second_id}"), Some(&key))
        .await
        .json();
    let shipment_id = shipment["data"]["relationships"]["shipment"]["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let s = app
        .get(&format!("/v2/shipments/{shipment_id}"), Some(&key))
        .await
        .json();
    assert_eq!(
        s["data"]["relationships"]["containers"]["data"]
            .as_array()
            .unwrap()
            .len(),
        2,
        "{s}"
    );
    // its history: loaded, then the vessel's departure, as for the first box
    let ev = app
        .get(
            &format!("/v2/containers/{second_id}/transport_events"),
            Some(&key),
        )
        .await
        .json();
    let kinds: Vec<&str> = ev["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["attributes"]["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "container.transport.vessel_loaded",
            "container.transport.vessel_departed"
        ],
        "{ev}"
    );
    // the event log says the container was created (the webhook event of the same name)
    assert_eq!(containers_created(&app, &key).await, 2);

    // the free account at its plan's limit keeps the bill as it was
    let theirs = shipment_numbers(&app, &free_key).await;
    assert_eq!(theirs.len(), 10);
    assert!(!theirs.iter().any(|(n, _)| *n == second));

    // asking again adds nothing more
    boxtrack_sources::poll::poll_due(&app.db, &upstreams, now + 4 * day, 10)
        .await
        .unwrap();
    assert_eq!(shipment_numbers(&app, &key).await, mine);
    assert_eq!(containers_created(&app, &key).await, 2);

    // a pushed event about a third box of the bill makes the bill's next poll due at once,
    // and that poll adds the box
    let third = boxtrack_sources::sandbox::container_number("join-third");
    let pushed = loaded(&third, now - 3 * day + 2_400_000_000);
    c.events.lock().unwrap().push(pushed.clone());
    let body = Value::Array(vec![pushed]).to_string();
    let sig = boxtrack_sources::dcsa::sign(SECRET, body.as_bytes()).unwrap();
    let r = app
        .send(
            app.client
                .post(app.url("/v2/ingest/dcsa"))
                .header("Content-Type", "application/json")
                .header("Notification-Signature", sig)
                .body(body),
        )
        .await;
    assert_eq!(r.status, 204, "{}", r.text);
    let due: i64 = boxtrack_store::on_db!(&app.db, p => sqlx::query_scalar(
        "SELECT next_due_us FROM subjects WHERE reference = $1")
        .bind(BL).fetch_one(p).await.unwrap());
    let pushed_at = boxtrack_store::now_us();
    assert!(due <= pushed_at, "due {due}, now {pushed_at}");
    boxtrack_sources::poll::poll_due(&app.db, &upstreams, pushed_at, 10)
        .await
        .unwrap();
    assert!(
        shipment_numbers(&app, &key)
            .await
            .iter()
            .any(|(n, _)| *n == third)
    );
    assert_eq!(containers_created(&app, &key).await, 3);
}

/// How many `container.created` events the account's log holds.
async fn containers_created(app: &TestApp, key: &str) -> usize {
    let log = app
        .get(
            "/v2/events?filter[event]=container.created&page[size]=100",
            Some(key),
        )
        .await;
    assert_eq!(log.status, 200, "{}", log.text);
    log.json()["data"].as_array().unwrap().len()
}
