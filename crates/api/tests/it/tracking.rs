use boxtrack_core::plan::{Entitlement, Plan};
use boxtrack_core::ratelimit::Limits;
use boxtrack_core::tracking::{
    DataSource, EventFact, Fact, Fee, Hold, LfdKind, Milestone, Observation, Place,
};
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_error};

const MT: &str = "application/vnd.api+json";
const DAY: i64 = 86_400_000_000;

fn request(number: &str, kind: &str, scac: &str) -> String {
    crate::helpers::tracking_request_body(number, kind, scac)
}

async fn events(app: &TestApp, account: uuid::Uuid) -> Vec<String> {
    boxtrack_store::events::after(&app.db, account, 0, 1000)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.event)
        .collect()
}

/// Every container attribute the contract names, plus the reference's extra ones.
const CONTAINER_ATTRIBUTES: &[&str] = &[
    "number",
    "seal_number",
    "created_at",
    "ref_numbers",
    "equipment_type",
    "equipment_length",
    "equipment_height",
    "weight_in_lbs",
    "pod_arrived_at",
    "pod_discharged_at",
    "pod_full_out_at",
    "final_destination_full_out_at",
    "empty_terminated_at",
    "terminal_checked_at",
    "pod_last_tracking_request_at",
    "shipment_last_tracking_request_at",
    "available_for_pickup",
    "availability_known",
    "holds_at_pod_terminal",
    "fees_at_pod_terminal",
    "pickup_lfd",
    "import_deadlines",
    "pickup_appointment_at",
    "pod_full_out_chassis_number",
    "location_at_pod_terminal",
    "pod_timezone",
    "final_destination_timezone",
    "empty_terminated_timezone",
    "pod_rail_carrier_scac",
    "ind_rail_carrier_scac",
    "pod_rail_loaded_at",
    "pod_rail_departed_at",
    "ind_eta_at",
    "ind_ata_at",
    "ind_rail_unloaded_at",
    "ind_facility_lfd_on",
    "current_status",
    "delivered_at",
    "empty_out_at",
    "pol_full_in_at",
    "pol_vessel_loaded_at",
    "pol_vessel_departed_at",
];

const SHIPMENT_ATTRIBUTES: &[&str] = &[
    "bill_of_lading_number",
    "shipping_line_scac",
    "shipping_line_name",
    "port_of_lading_locode",
    "port_of_lading_name",
    "port_of_discharge_name",
    "pod_vessel_name",
    "pod_vessel_imo",
    "pol_etd_at",
    "pol_atd_at",
    "pod_eta_at",
    "pod_original_eta_at",
    "pod_ata_at",
    "destination_eta_at",
    "destination_ata_at",
    "destination_timezone",
    "ref_numbers",
    "tags",
    "line_tracking_stopped_at",
    "line_tracking_stopped_reason",
];

#[tokio::test]
async fn a_sandbox_number_becomes_a_shipment_with_its_container() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let r = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request(" test-tr-succeeded ", "bill_of_lading", "TEST"),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let tr = r.json()["data"].clone();
    assert_eq!(tr["type"], "tracking_request");
    assert_eq!(tr["attributes"]["status"], "pending");
    assert_eq!(tr["attributes"]["request_number"], "TEST-TR-SUCCEEDED");
    assert_eq!(tr["relationships"]["tracked_object"]["data"], Value::Null);
    let id = tr["id"].as_str().unwrap().to_string();

    assert_eq!(app.process().await, 1);
    let doc = app
        .get(&format!("/v2/tracking_requests/{id}"), Some(&key))
        .await
        .json();
    assert_eq!(doc["data"]["attributes"]["status"], "created", "{doc}");
    let shipment_id = doc["data"]["relationships"]["tracked_object"]["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(doc["included"][0]["type"], "shipment");
    assert_eq!(doc["included"][0]["id"], shipment_id);

    let s = app
        .get(
            &format!("/v2/shipments/{shipment_id}?include=containers"),
            Some(&key),
        )
        .await
        .json();
    for a in SHIPMENT_ATTRIBUTES {
        assert!(
            s["data"]["attributes"].get(*a).is_some(),
            "shipment lacks {a}"
        );
    }
    assert_eq!(s["data"]["attributes"]["ref_numbers"], json!(["PO-1"]));
    assert_eq!(s["data"]["attributes"]["tags"], json!(["east"]));
    assert_eq!(s["data"]["attributes"]["port_of_discharge_locode"], "USLAX");
    let containers = s["data"]["relationships"]["containers"]["data"]
        .as_array()
        .unwrap();
    assert_eq!(containers.len(), 1);
    let c = &s["included"][0];
    assert_eq!(c["type"], "container");
    for a in CONTAINER_ATTRIBUTES {
        assert!(c["attributes"].get(*a).is_some(), "container lacks {a}");
    }
    assert_eq!(c["attributes"]["current_status"], "new");
    assert_eq!(c["attributes"]["equipment_length"], 40);
    // no terminal has reported holds yet: an empty array, as the reference declares it (a
    // typed client refuses null); the terminal not read yet is `terminal_checked_at: null`
    assert_eq!(c["attributes"]["holds_at_pod_terminal"], json!([]));
    assert_eq!(c["attributes"]["fees_at_pod_terminal"], json!([]));
    assert_eq!(c["attributes"]["terminal_checked_at"], Value::Null);
    assert_eq!(c["attributes"]["availability_known"], false);
    assert_eq!(c["attributes"]["pod_timezone"], "America/Los_Angeles");
    boxtrack_core::ident::validate_container(c["attributes"]["number"].as_str().unwrap()).unwrap();

    // processing again does nothing; the log has the events once, in order
    assert_eq!(app.process().await, 0);
    let log = events(&app, account.id).await;
    assert_eq!(log, vec!["container.created", "tracking_request.succeeded"]);

    // the lists agree
    let list = app.get("/v2/tracking_requests", Some(&key)).await.json();
    assert_eq!(list["meta"]["total"], 1);
    assert_eq!(list["included"][0]["id"], shipment_id);
    let cl = app
        .get("/v2/containers?include=shipment", Some(&key))
        .await
        .json();
    assert_eq!(cl["meta"]["total"], 1);
    assert_eq!(cl["included"][0]["type"], "shipment");
}

#[tokio::test]
async fn failures_retries_and_manifest_waits_follow_the_lifecycle() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let mut ids = Vec::new();
    for n in [
        "TEST-TR-FAILED",
        "TEST-TR-AWAITING-MANIFEST",
        "TEST-TR-UNREACHABLE",
    ] {
        let r = app
            .post(
                "/v2/tracking_requests",
                &key,
                MT,
                &request(n, "bill_of_lading", "TEST"),
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.text);
        ids.push(r.json()["data"]["id"].as_str().unwrap().to_string());
    }
    let now = boxtrack_store::now_us();
    app.process_at(now).await;
    let paths: Vec<String> = ids
        .iter()
        .map(|id| format!("/v2/tracking_requests/{id}"))
        .collect();
    let get = |i: usize| app.get(&paths[i], Some(&key));
    let failed = get(0).await.json();
    assert_eq!(failed["data"]["attributes"]["status"], "failed");
    assert_eq!(failed["data"]["attributes"]["failed_reason"], "not_found");
    let waiting = get(1).await.json();
    assert_eq!(waiting["data"]["attributes"]["status"], "awaiting_manifest");
    let retrying = get(2).await.json();
    assert_eq!(retrying["data"]["attributes"]["status"], "pending");
    assert_eq!(retrying["data"]["attributes"]["is_retrying"], true);
    assert_eq!(retrying["data"]["attributes"]["retry_count"], 1);
    assert_eq!(
        retrying["data"]["attributes"]["failed_reason"],
        "shipping_line_unreachable"
    );

    // on a virtual clock: a day later the manifest is checked again (no second notice),
    // a week later it expires; the unreachable carrier exhausts its 14 attempts
    for hour in 1..=8 * 24 {
        app.process_at(now + hour * DAY / 24).await;
    }
    let expired = get(1).await.json();
    assert_eq!(expired["data"]["attributes"]["status"], "failed");
    assert_eq!(expired["data"]["attributes"]["failed_reason"], "expired");
    let exhausted = get(2).await.json();
    assert_eq!(exhausted["data"]["attributes"]["status"], "failed");
    assert_eq!(
        exhausted["data"]["attributes"]["failed_reason"],
        "retries_exhausted"
    );
    assert_eq!(exhausted["data"]["attributes"]["retry_count"], 14);

    let log = events(&app, account.id).await;
    assert_eq!(
        log.iter()
            .filter(|e| *e == "tracking_request.awaiting_manifest")
            .count(),
        1
    );
    assert_eq!(
        log.iter()
            .filter(|e| *e == "tracking_request.failed")
            .count(),
        3
    );

    // filters
    let failed_list = app
        .get("/v2/tracking_requests?filter[status]=failed", Some(&key))
        .await
        .json();
    assert_eq!(failed_list["meta"]["total"], 3);
    let q = app
        .get("/v2/tracking_requests?q=manifest", Some(&key))
        .await
        .json();
    assert_eq!(q["meta"]["total"], 1);
    let e = assert_error(
        &app.get("/v2/tracking_requests?filter[status]=lost", Some(&key))
            .await,
        400,
    );
    assert_eq!(e["source"]["parameter"], "filter[status]");
    let e = assert_error(
        &app.get(
            "/v2/tracking_requests?filter[created_at][start]=yesterday",
            Some(&key),
        )
        .await,
        400,
    );
    assert_eq!(e["source"]["parameter"], "filter[created_at][start]");
}

#[tokio::test]
async fn invalid_requests_are_422_naming_the_field_and_write_nothing() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let cases: Vec<(String, &str, &str)> = vec![
        (
            request("MSCU1234567", "container", "MSCU"),
            "/data/attributes/request_number",
            "invalid",
        ),
        (
            request("MEDUJ1234567", "bill_of_lading", "XXXX"),
            "/data/attributes/scac",
            "not_recognized",
        ),
        (
            request("MEDUJ1234567", "bill_of_lading", ""),
            "/data/attributes/scac",
            "blank",
        ),
        (
            request("", "bill_of_lading", "MSCU"),
            "/data/attributes/request_number",
            "blank",
        ),
        (
            request("MEDUJ1234567", "parcel", "MSCU"),
            "/data/attributes/request_type",
            "invalid",
        ),
        // Evergreen is tracked by booking or container number, not by bill of lading;
        // ZIM not by container number
        (
            request("EISU123456789", "bill_of_lading", "EGLV"),
            "/data/attributes/request_type",
            "not_supported",
        ),
        (
            request("ZIMU1234569", "container", "ZIMU"),
            "/data/attributes/request_type",
            "not_supported",
        ),
    ];
    for (body, pointer, code) in cases {
        let r = app.post("/v2/tracking_requests", &key, MT, &body).await;
        let e = assert_error(&r, 422);
        assert_eq!(e["source"]["pointer"], pointer, "{body}");
        assert_eq!(e["code"], code, "{body}");
    }
    let first = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request("MSCU1234566", "container", "MSCU"),
        )
        .await;
    assert_eq!(first.status, 201);
    let dup = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request("mscu 1234566", "container", "mscu"),
        )
        .await;
    let e = assert_error(&dup, 422);
    assert_eq!(e["code"], "duplicate");
    assert!(e["detail"].as_str().unwrap().contains("already exists"));
    assert_eq!(
        app.get("/v2/tracking_requests", Some(&key)).await.json()["meta"]["total"],
        1
    );
    // malformed JSON: 400, never 500
    assert_error(
        &app.post("/v2/tracking_requests", &key, MT, "{\"data\":")
            .await,
        400,
    );
}

#[tokio::test]
async fn infer_number_ranks_carriers() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let r = app
        .post(
            "/v2/tracking_requests/infer_number",
            &key,
            "application/json",
            r#"{"number":"MSCU1234566"}"#,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let a = r.json()["data"]["attributes"].clone();
    assert_eq!(a["number_type"], "container");
    assert_eq!(a["validation"]["check_digit_passed"], true);
    assert_eq!(a["shipping_line"]["decision"], "auto_select");
    assert_eq!(a["shipping_line"]["selected"]["scac"], "MSCU");
    let bad = app
        .post(
            "/v2/tracking_requests/infer_number",
            &key,
            "application/json",
            r#"{"number":"!!"}"#,
        )
        .await;
    assert_error(&bad, 422);
    // it has its own rate-limit bucket
    assert!(
        r.header("ratelimit-policy")
            .unwrap()
            .contains("tracking_requests.infer_number")
    );
    let create = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request("TEST-TR-FAILED", "bill_of_lading", "TEST"),
        )
        .await;
    assert!(
        create
            .header("ratelimit-policy")
            .unwrap()
            .contains("\"tracking_requests.create\";q=100")
    );
}

#[tokio::test]
async fn auto_detect_resolves_or_fails_the_carrier() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let body = |n: &str| {
        json!({"data": {"type": "tracking_request", "attributes": {"request_number": n, "request_type": "bill_of_lading", "auto_detect_vocc_scac": true}}}).to_string()
    };
    let r = app
        .post("/v2/tracking_requests", &key, MT, &body("QQ12345678"))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.json()["data"]["attributes"]["scac"], Value::Null);
    let id = r.json()["data"]["id"].as_str().unwrap().to_string();
    app.process().await;
    let d = app
        .get(&format!("/v2/tracking_requests/{id}"), Some(&key))
        .await
        .json();
    assert_eq!(d["data"]["attributes"]["status"], "failed");
    assert_eq!(
        d["data"]["attributes"]["failed_reason"],
        "scac_auto_detect_failed"
    );

    // a number whose carrier is detected: the request carries it from then on, whatever the
    // lookup answers (here no source serves MSC, so it waits), and its filter finds it
    let r = app
        .post("/v2/tracking_requests", &key, MT, &body("MEDUJ1234567"))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.json()["data"]["attributes"]["status"], "pending");
    let id = r.json()["data"]["id"].as_str().unwrap().to_string();
    app.process().await;
    let d = app
        .get(&format!("/v2/tracking_requests/{id}"), Some(&key))
        .await
        .json();
    assert_eq!(d["data"]["attributes"]["scac"], "MSCU", "{d}");
    let found = app
        .get("/v2/tracking_requests?filter[scac]=MSCU", Some(&key))
        .await
        .json();
    assert_eq!(found["data"][0]["id"], json!(id), "{found}");

    // without the flag, a missing carrier is a 422 that says how to have it detected
    let plain = json!({"data": {"type": "tracking_request", "attributes": {"request_number": "MEDUJ1234568", "request_type": "bill_of_lading"}}}).to_string();
    let r = app.post("/v2/tracking_requests", &key, MT, &plain).await;
    assert_eq!(r.status, 422);
    let detail = r.json()["errors"][0]["detail"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(detail.contains("auto_detect_vocc_scac"), "{detail}");
}

async fn one_container(app: &TestApp, key: &str) -> (String, String) {
    let r = app
        .post(
            "/v2/tracking_requests",
            key,
            MT,
            &request("TEST-TR-SUCCEEDED", "bill_of_lading", "TEST"),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    app.process().await;
    let c = app.get("/v2/containers", Some(key)).await.json();
    let container = c["data"][0]["id"].as_str().unwrap().to_string();
    let shipment = c["data"][0]["relationships"]["shipment"]["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    (container, shipment)
}

#[tokio::test]
async fn terminal_data_merges_into_the_container_with_events_and_filters() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let (container, _) = one_container(&app, &key).await;
    let cid = uuid::Uuid::parse_str(&container).unwrap();
    let t = boxtrack_store::now_us();
    let obs = |fact: Fact| Observation {
        observed_us: t,
        source: DataSource::Terminal,
        fact,
        precision: Default::default(),
        upstream_id: None,
    };
    let changes = boxtrack_store::tracking::apply(
        &app.db,
        account.id,
        cid,
        &[
            obs(Fact::Availability {
                available: true,
                at_us: None,
            }),
            obs(Fact::Holds {
                holds: vec![Hold {
                    name: "CUSTOMS".into(),
                    status: "hold".into(),
                    description: Some("CBP".into()),
                }],
            }),
            obs(Fact::Fees {
                fees: vec![
                    Fee {
                        kind: "demurrage".into(),
                        amount_minor: 30000,
                        currency_code: "USD".into(),
                    },
                    Fee {
                        kind: "total".into(),
                        amount_minor: 30000,
                        currency_code: "USD".into(),
                    },
                ],
            }),
            obs(Fact::Lfd {
                which: LfdKind::Terminal,
                at_us: Some(t + 3 * DAY),
            }),
        ],
    )
    .await
    .unwrap();
    assert!(!changes.is_empty());
    let c = app
        .get(
            &format!("/v2/containers/{container}?include=transport_events"),
            Some(&key),
        )
        .await
        .json();
    let a = &c["data"]["attributes"];
    assert_eq!(a["available_for_pickup"], true);
    assert_eq!(a["ready_for_pickup"], false, "a customs hold blocks pickup");
    assert_eq!(a["current_status"], "not_available");
    assert_eq!(a["holds_at_pod_terminal"][0]["name"], "customs");
    assert_eq!(a["fees_at_pod_terminal"][0]["amount"], 300);
    assert!(a["pickup_lfd"].as_str().unwrap().ends_with('Z'));
    assert_eq!(
        a["import_deadlines"]["pickup_lfd_terminal"],
        a["pickup_lfd"]
    );
    let included_events: Vec<&str> = c["included"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["attributes"]["event"].as_str().unwrap())
        .collect();
    assert!(
        included_events.contains(&"container.transport.available"),
        "{included_events:?}"
    );

    let log = events(&app, account.id).await;
    assert!(log.contains(&"container.updated".to_string()));
    assert!(log.contains(&"container.pickup_lfd.changed".to_string()));

    let te = app
        .get(
            &format!("/v2/containers/{container}/transport_events"),
            Some(&key),
        )
        .await
        .json();
    assert!(te["meta"]["total"].as_u64().unwrap() >= 3, "{te}");

    // filters
    for (q, n) in [
        ("filter[current_status]=not_available", 1),
        ("filter[current_status]=available", 0),
        ("filter[ready_for_pickup]=false", 1),
        ("filter[ready_for_pickup]=true", 0),
        ("filter[port]=USLAX", 1),
        ("filter[carrier]=TEST", 1),
        ("filter[carrier]=MAEU", 0),
        ("q=TEST-TR", 1),
        // any of several statuses; an active hold or none; an order other than the default
        ("filter[current_status]=on_ship,not_available", 1),
        ("filter[current_status]=on_ship,available", 0),
        ("filter[on_hold]=true", 1),
        ("filter[on_hold]=false", 0),
        ("sort=pickup_lfd&filter[on_hold]=true", 1),
    ] {
        let d = app
            .get(&format!("/v2/containers?{q}"), Some(&key))
            .await
            .json();
        assert_eq!(d["meta"]["total"], n, "{q}: {d}");
    }
    let start = boxtrack_core::time::format_micros(t + 2 * DAY);
    let d = app
        .get(
            &format!("/v2/containers?filter[pickup_lfd][start]={start}"),
            Some(&key),
        )
        .await
        .json();
    assert_eq!(d["meta"]["total"], 1);
    assert_error(
        &app.get("/v2/containers?filter[current_status]=lost", Some(&key))
            .await,
        400,
    );
    // a cursor follows the default order only
    let e = assert_error(
        &app.get(
            "/v2/containers?sort=-created_at&page[after]=1.0193a2b4c5d6e7f8091a2b3c4d5e6f70",
            Some(&key),
        )
        .await,
        400,
    );
    assert_eq!(e["source"]["parameter"], "sort");

    // the hold clears: ready for pickup
    boxtrack_store::tracking::apply(
        &app.db,
        account.id,
        cid,
        &[Observation {
            observed_us: t + 1,
            source: DataSource::Terminal,
            fact: Fact::Holds { holds: vec![] },
            precision: Default::default(),
            upstream_id: None,
        }],
    )
    .await
    .unwrap();
    let c = app
        .get(&format!("/v2/containers/{container}"), Some(&key))
        .await
        .json();
    assert_eq!(c["data"]["attributes"]["ready_for_pickup"], true);
    assert_eq!(c["data"]["attributes"]["current_status"], "available");

    // picked up: neither available nor ready, in the attributes, the filter and the changeset,
    // even when the terminal's feed still says available afterwards
    boxtrack_store::tracking::apply(
        &app.db,
        account.id,
        cid,
        &[
            Observation {
                observed_us: t + 2,
                source: DataSource::Terminal,
                fact: Fact::Event(EventFact {
                    milestone: Milestone::FullOut,
                    estimated: false,
                    at_us: Some(t - DAY),
                    place: Place::Pod,
                    locode: Some("USLAX".into()),
                    timezone: None,
                    terminal: None,
                    vessel_name: None,
                    vessel_imo: None,
                    voyage: None,
                }),
                precision: Default::default(),
                upstream_id: None,
            },
            Observation {
                observed_us: t + 3,
                source: DataSource::Terminal,
                fact: Fact::Availability {
                    available: true,
                    at_us: None,
                },
                precision: Default::default(),
                upstream_id: None,
            },
        ],
    )
    .await
    .unwrap();
    // (written under the API, not through it: on PostgreSQL the read cache learns of it from
    // a notification, which a loaded machine delivers a moment later)
    let mut a = Value::Null;
    for _ in 0..100 {
        a = app
            .get(&format!("/v2/containers/{container}"), Some(&key))
            .await
            .json()["data"]["attributes"]
            .clone();
        if a["current_status"] == "picked_up" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(a["current_status"], "picked_up");
    assert_eq!(a["available_for_pickup"], false, "{a}");
    assert_eq!(a["ready_for_pickup"], false, "{a}");
    let d = app
        .get("/v2/containers?filter[ready_for_pickup]=true", Some(&key))
        .await
        .json();
    assert_eq!(d["meta"]["total"], 0, "{d}");
    let last_changeset = boxtrack_store::events::after(&app.db, account.id, 0, 1000)
        .await
        .unwrap()
        .into_iter()
        .rfind(|e| e.event == "container.updated")
        .unwrap();
    assert_eq!(
        last_changeset.payload.0["change"]["changeset"]["available_for_pickup"],
        serde_json::json!([true, false]),
        "{:?}",
        last_changeset.payload
    );

    // transport events in the order they happened, and as asked
    let order = |doc: &Value| -> Vec<String> {
        doc["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["attributes"]["event"].as_str().unwrap().to_string())
            .collect()
    };
    let te = app
        .get(
            &format!("/v2/containers/{container}/transport_events"),
            Some(&key),
        )
        .await
        .json();
    let happened = order(&te);
    assert_eq!(
        happened.first().map(String::as_str),
        Some("container.transport.full_out"),
        "the pickup a day ago comes before today's events: {happened:?}"
    );
    let desc = app
        .get(
            &format!("/v2/containers/{container}/transport_events?sort=-timestamp"),
            Some(&key),
        )
        .await
        .json();
    let mut reversed = order(&desc);
    reversed.reverse();
    assert_eq!(reversed, happened);
    let recorded = app
        .get(
            &format!("/v2/containers/{container}/transport_events?sort=created_at&page[size]=2"),
            Some(&key),
        )
        .await
        .json();
    assert_ne!(
        order(&recorded).first().map(String::as_str),
        Some("container.transport.full_out"),
        "recorded last"
    );
    let next = recorded["links"]["next"].as_str().unwrap();
    let path = &next[next.find("/v2/").unwrap()..];
    let page2 = app.get(path, Some(&key)).await.json();
    assert!(!order(&page2).is_empty(), "{page2}");
    assert_error(
        &app.get(
            &format!("/v2/containers/{container}/transport_events?sort=size"),
            Some(&key),
        )
        .await,
        400,
    );
}

#[tokio::test]
async fn rail_lfd_needs_its_entitlement() {
    let app = TestApp::spawn().await;
    let (plain, plain_key) = app.account().await;
    let (rail, rail_key) = app
        .account_with(Plan::Standard, &[Entitlement::RailLfd], Limits::default())
        .await;
    for (account, key) in [(&plain, &plain_key), (&rail, &rail_key)] {
        let (container, _) = one_container(&app, key).await;
        let cid = uuid::Uuid::parse_str(&container).unwrap();
        boxtrack_store::tracking::apply(
            &app.db,
            account.id,
            cid,
            &[Observation {
                observed_us: 1,
                source: DataSource::Rail,
                fact: Fact::Lfd {
                    which: LfdKind::Rail,
                    at_us: Some(1_900_000_000_123_456),
                },
                precision: Default::default(),
                upstream_id: None,
            }],
        )
        .await
        .unwrap();
    }
    let p = app.get("/v2/containers", Some(&plain_key)).await.json();
    assert_eq!(
        p["data"][0]["attributes"]["import_deadlines"]["pickup_lfd_rail"],
        Value::Null
    );
    assert_eq!(p["data"][0]["attributes"]["pickup_lfd"], Value::Null);
    let r = app.get("/v2/containers", Some(&rail_key)).await.json();
    assert!(r["data"][0]["attributes"]["import_deadlines"]["pickup_lfd_rail"].is_string());
    assert_eq!(
        r["data"][0]["attributes"]["pickup_lfd"],
        r["data"][0]["attributes"]["import_deadlines"]["pickup_lfd_rail"]
    );
    let lfd = r["data"][0]["attributes"]["pickup_lfd"]
        .as_str()
        .unwrap()
        .to_string();

    // and on no other path: filters, the event log (webhooks are made from it), transport
    // and raw events
    for (key, n) in [(&plain_key, 0), (&rail_key, 1)] {
        let d = app
            .get(
                &format!(
                    "/v2/containers?filter[pickup_lfd][start]={lfd}&filter[pickup_lfd][end]={lfd}"
                ),
                Some(key),
            )
            .await
            .json();
        assert_eq!(
            d["meta"]["total"], n,
            "an LFD the API shows filters at its precision: {d}"
        );
    }
    let log = boxtrack_store::events::after(&app.db, plain.id, 0, 1000)
        .await
        .unwrap();
    for e in &log {
        let text = e.payload.0.to_string();
        assert!(
            !e.event.contains("pickup_lfd")
                && !text.contains("pickup_lfd_rail")
                && !text.contains(&lfd[..10]),
            "{} {text}",
            e.event
        );
    }
    let rail_log: Vec<String> = boxtrack_store::events::after(&app.db, rail.id, 0, 1000)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.event)
        .collect();
    assert!(rail_log.contains(&"container.pickup_lfd_rail.changed".to_string()));
    assert!(rail_log.contains(&"container.pickup_lfd.changed".to_string()));
    let id = p["data"][0]["id"].as_str().unwrap();
    for path in ["transport_events", "raw_events"] {
        let d = app
            .get(&format!("/v2/containers/{id}/{path}"), Some(&plain_key))
            .await
            .json();
        assert!(!d.to_string().contains("pickup_lfd_rail"), "{path}: {d}");
    }
}

/// A source asked again answers with the same events again: each is kept once.
#[tokio::test]
async fn raw_events_are_kept_once_however_often_they_are_fetched() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let (container, _) = one_container(&app, &key).await;
    let cid = uuid::Uuid::parse_str(&container).unwrap();
    let before = app
        .get(
            &format!("/v2/containers/{container}/raw_events"),
            Some(&key),
        )
        .await
        .json()["meta"]["total"]
        .as_u64()
        .unwrap();
    let batch = vec![
        Observation {
            observed_us: 7,
            source: DataSource::Terminal,
            fact: Fact::Availability {
                available: true,
                at_us: None,
            },
            precision: Default::default(),
            upstream_id: None,
        },
        Observation {
            observed_us: 7,
            source: DataSource::Terminal,
            fact: Fact::Holds { holds: vec![] },
            precision: Default::default(),
            upstream_id: None,
        },
    ];
    for _ in 0..3 {
        boxtrack_store::tracking::apply(&app.db, account.id, cid, &batch)
            .await
            .unwrap();
    }
    let after = app
        .get(
            &format!("/v2/containers/{container}/raw_events"),
            Some(&key),
        )
        .await
        .json()["meta"]["total"]
        .as_u64()
        .unwrap();
    assert_eq!(after - before, 2);
}

/// A terminal's fee words and currency spellings are mapped to the contract's enums.
#[tokio::test]
async fn fees_are_shown_in_the_contracts_words() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let (container, _) = one_container(&app, &key).await;
    let cid = uuid::Uuid::parse_str(&container).unwrap();
    boxtrack_store::tracking::apply(
        &app.db,
        account.id,
        cid,
        &[Observation {
            observed_us: 5,
            source: DataSource::Terminal,
            fact: Fact::Fees {
                fees: vec![
                    Fee {
                        kind: "storage".into(),
                        amount_minor: 10000,
                        currency_code: "usd".into(),
                    },
                    Fee {
                        kind: "chassis split".into(),
                        amount_minor: 5000,
                        currency_code: "USD".into(),
                    },
                    Fee {
                        kind: "exam".into(),
                        amount_minor: 7000,
                        currency_code: "US$".into(),
                    },
                ],
            },
            precision: Default::default(),
            upstream_id: None,
        }],
    )
    .await
    .unwrap();
    let a = app
        .get(&format!("/v2/containers/{container}"), Some(&key))
        .await
        .json()["data"]["attributes"]
        .clone();
    assert_eq!(
        a["fees_at_pod_terminal"],
        json!([
            {"type": "demurrage", "amount": 100, "currency_code": "USD"},
            {"type": "other", "amount": 50, "currency_code": "USD"}
        ]),
        "{a}"
    );
}

#[tokio::test]
async fn stop_and_resume_tracking_and_the_free_plan_limit() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account_with(Plan::Free, &[], Limits::default()).await;
    let (_, shipment) = one_container(&app, &key).await;
    let stopped = app
        .patch(&format!("/v2/shipments/{shipment}/stop_tracking"), &key, "")
        .await;
    assert_eq!(stopped.status, 200, "{}", stopped.text);
    assert_eq!(
        stopped.json()["data"]["attributes"]["line_tracking_stopped_reason"],
        "cancelled_by_user"
    );
    assert!(stopped.json()["data"]["attributes"]["line_tracking_stopped_at"].is_string());
    let trs = app.get("/v2/tracking_requests", Some(&key)).await.json();
    assert_eq!(trs["data"][0]["attributes"]["status"], "tracking_stopped");
    assert!(
        events(&app, account.id)
            .await
            .contains(&"tracking_request.tracking_stopped".to_string())
    );
    assert_eq!(
        app.get("/v2/shipments?filter[tracking_stopped]=true", Some(&key))
            .await
            .json()["meta"]["total"],
        1
    );
    let resumed = app
        .patch(
            &format!("/v2/shipments/{shipment}/resume_tracking"),
            &key,
            "",
        )
        .await;
    assert_eq!(
        resumed.json()["data"]["attributes"]["line_tracking_stopped_at"],
        Value::Null
    );
    assert_eq!(
        app.get("/v2/tracking_requests", Some(&key)).await.json()["data"][0]["attributes"]["status"],
        "created"
    );

    // fill the free plan to 10 active containers, then a new request is refused
    crate::helpers::resolve_bill_of_lading(
        &app.db,
        account.id,
        "MEDUJ0000001",
        crate::helpers::blank_containers(9, 0),
    )
    .await;
    let r = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request("TEST-TR-SUCCEEDED", "booking_number", "TEST"),
        )
        .await;
    let e = assert_error(&r, 422);
    assert_eq!(e["code"], "plan_limit");
    assert!(e["detail"].as_str().unwrap().contains("10"));

    // PATCH ref numbers and tags
    let s = app.patch(&format!("/v2/shipments/{shipment}"), &key, r#"{"data":{"type":"shipment","attributes":{"ref_numbers":["A","A","B"],"tags":["x"]}}}"#).await;
    assert_eq!(
        s.json()["data"]["attributes"]["ref_numbers"],
        json!(["A", "B"])
    );
    let tr_id = trs["data"][0]["id"].as_str().unwrap();
    let t = app
        .patch(
            &format!("/v2/tracking_requests/{tr_id}"),
            &key,
            r#"{"data":{"type":"tracking_request","attributes":{"ref_number":"R-9"}}}"#,
        )
        .await;
    assert_eq!(
        t.json()["data"]["attributes"]["ref_numbers"],
        json!(["R-9"])
    );
}

#[tokio::test]
async fn accounts_never_see_each_others_shipments() {
    let app = TestApp::spawn().await;
    let (_, key_a) = app.account().await;
    let (_, key_b) = app.account().await;
    let (container, shipment) = one_container(&app, &key_a).await;
    assert_error(
        &app.get(&format!("/v2/containers/{container}"), Some(&key_b))
            .await,
        404,
    );
    assert_error(
        &app.get(&format!("/v2/shipments/{shipment}"), Some(&key_b))
            .await,
        404,
    );
    assert_error(
        &app.get(
            &format!("/v2/containers/{container}/transport_events"),
            Some(&key_b),
        )
        .await,
        404,
    );
    assert_error(
        &app.patch(
            &format!("/v2/shipments/{shipment}/stop_tracking"),
            &key_b,
            "",
        )
        .await,
        404,
    );
    assert_eq!(
        app.get("/v2/containers", Some(&key_b)).await.json()["meta"]["total"],
        0
    );
    assert_eq!(
        app.get("/v2/tracking_requests", Some(&key_b)).await.json()["meta"]["total"],
        0
    );
}

#[tokio::test]
async fn scripted_journeys_play_on_the_virtual_clock() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let list = app.get("/v2/sandbox/scenarios", Some(&key)).await.json();
    let numbers: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    for n in [
        "TEST-TR-SUCCEEDED",
        "TEST-SCN-IMPORT",
        "TEST-SCN-TRANSSHIPMENT",
        "TEST-SCN-ROLLOVER",
        "TEST-SCN-HOLDS",
        "TEST-SCN-RAIL",
        "TEST-SCN-TERMINAL-CHANGE",
        "TEST-SCN-REUSE",
    ] {
        assert!(numbers.contains(&n), "{n}");
    }

    request_all(
        &app,
        &key,
        &["TEST-SCN-HOLDS", "TEST-SCN-IMPORT", "TEST-SCN-REUSE"],
    )
    .await;
    let start = boxtrack_store::now_us();
    app.tick_at(start).await;
    let holds = app
        .get("/v2/containers?q=TEST-SCN-HOLDS", Some(&key))
        .await
        .json();
    let cid = holds["data"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(holds["data"][0]["attributes"]["current_status"], "new");

    // 500 simulated hours later (500 real seconds at one hour per second): held at the terminal
    app.tick_at(start + 500 * 1_000_000).await;
    let c = app
        .get(&format!("/v2/containers/{cid}"), Some(&key))
        .await
        .json();
    let a = &c["data"]["attributes"];
    assert_eq!(a["current_status"], "not_available", "{a}");
    let names: Vec<&str> = a["holds_at_pod_terminal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["USDA", "customs", "freight"]);
    assert!(a["pickup_lfd"].is_string());

    // the end of the journey: released, picked up, fees accrued
    app.tick_at(start + 700 * 1_000_000).await;
    let c = app
        .get(
            &format!("/v2/containers/{cid}?include=transport_events"),
            Some(&key),
        )
        .await
        .json();
    let a = &c["data"]["attributes"];
    assert_eq!(a["current_status"], "picked_up", "{a}");
    assert_eq!(a["holds_at_pod_terminal"], json!([]));
    assert_eq!(
        a["import_deadlines"]["pickup_lfd_line"], a["pickup_lfd"],
        "the line's LFD wins"
    );
    let fees: i64 = a["fees_at_pod_terminal"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["type"] != "total")
        .map(|f| f["amount"].as_i64().unwrap())
        .sum();
    assert_eq!(fees, 650);
    let shipment = app
        .get(
            &format!(
                "/v2/shipments/{}",
                c["data"]["relationships"]["shipment"]["data"]["id"]
                    .as_str()
                    .unwrap()
            ),
            Some(&key),
        )
        .await
        .json();
    assert!(shipment["data"]["attributes"]["pod_ata_at"].is_string());
    // a single-resource document links to itself, as its resource does
    assert_eq!(shipment["links"]["self"], shipment["data"]["links"]["self"]);
    assert!(
        shipment["links"]["self"]
            .as_str()
            .unwrap()
            .starts_with("/v2/shipments/")
    );
    // after discharge the shipment names its POD terminal, as its container does
    let c = app
        .get(&format!("/v2/containers/{cid}"), Some(&key))
        .await
        .json();
    assert_eq!(
        shipment["data"]["relationships"]["pod_terminal"],
        c["data"]["relationships"]["pod_terminal"]
    );
    assert_eq!(c["links"]["self"], format!("/v2/containers/{cid}"));
    assert_eq!(
        c["data"]["relationships"]["pod_terminal"]["data"]["type"],
        "terminal"
    );
    assert_eq!(
        shipment["data"]["attributes"]["pod_vessel_name"],
        "EVER GIVEN"
    );

    // every scripted observation is kept verbatim as a raw event, estimates included
    let steps = boxtrack_sources::scenarios::by_number("TEST-SCN-HOLDS")
        .unwrap()
        .steps
        .len() as u64;
    let raw = app
        .get(
            &format!("/v2/containers/{cid}/raw_events?page[size]=100"),
            Some(&key),
        )
        .await
        .json();
    assert_eq!(raw["meta"]["total"], steps, "{raw}");
    assert!(
        raw["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["attributes"]["estimated"] == true)
    );
    let rows = raw["data"].as_array().unwrap();
    assert!(rows[0]["attributes"]["observation"]["fact"].is_object());
    assert!(
        rows.iter()
            .all(|r| r["attributes"]["original_event"].is_string())
    );
    // index counts the records oldest first, and the newest-first list counts down to 0
    let indexes: Vec<u64> = rows
        .iter()
        .map(|r| r["attributes"]["index"].as_u64().unwrap())
        .collect();
    assert_eq!(indexes, (0..steps).rev().collect::<Vec<_>>());
    // a milestone at a known port names it and relates it; a terminal fact has no event name
    let arrived = rows
        .iter()
        .find(|r| r["attributes"]["event"] == "vessel_arrived")
        .expect("the journey reports the arrival");
    assert!(
        arrived["attributes"]["location_name"].is_string(),
        "{arrived}"
    );
    assert_eq!(arrived["relationships"]["location"]["data"]["type"], "port");
    assert!(
        arrived["attributes"]["actual_on"].is_string()
            || arrived["attributes"]["estimated_on"].is_string()
    );
    let holds = rows
        .iter()
        .find(|r| r["attributes"]["fact"] == "holds")
        .expect("the journey reports holds");
    assert!(holds["attributes"]["event"].is_null());
    assert_eq!(
        holds["attributes"]["timestamp"],
        holds["attributes"]["observed_at"]
    );
    // a later page goes on counting where the first stopped
    let second = app
        .get(
            &format!("/v2/containers/{cid}/raw_events?page[size]=3&page[number]=2"),
            Some(&key),
        )
        .await
        .json();
    let second: Vec<u64> = second["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["attributes"]["index"].as_u64().unwrap())
        .collect();
    assert_eq!(second, indexes[3..6].to_vec());

    // playing again changes nothing
    let before = boxtrack_store::events::after(&app.db, account.id, 0, 10_000)
        .await
        .unwrap()
        .len();
    assert_eq!(app.tick_at(start + 900 * 1_000_000).await, 0);
    assert_eq!(
        boxtrack_store::events::after(&app.db, account.id, 0, 10_000)
            .await
            .unwrap()
            .len(),
        before
    );
    let log = events(&app, account.id).await;
    for e in [
        "container.updated",
        "container.transport.vessel_discharged",
        "container.transport.full_out",
        "shipment.estimated.arrival",
        "container.pickup_lfd_line.changed",
        "container.transport.empty_in",
    ] {
        assert!(log.contains(&e.to_string()), "{e}");
    }

    // the import ends empty returned: its shipment stops by itself
    let stopped = app
        .get("/v2/shipments?filter[tracking_stopped]=true", Some(&key))
        .await
        .json();
    assert_eq!(stopped["meta"]["total"], 1);
    assert_eq!(
        stopped["data"][0]["attributes"]["line_tracking_stopped_reason"],
        "all_containers_terminated"
    );
    assert_eq!(
        stopped["data"][0]["attributes"]["bill_of_lading_number"],
        "TEST-SCN-IMPORT"
    );

    // the reused container: one number, two shipments, each with its own history
    let import_number = boxtrack_sources::scenarios::by_number("TEST-SCN-IMPORT")
        .unwrap()
        .containers[0]
        .clone();
    let both = app
        .get(
            &format!("/v2/containers?filter[number]={import_number}"),
            Some(&key),
        )
        .await
        .json();
    assert_eq!(both["meta"]["total"], 2);
    let statuses: Vec<&str> = both["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["attributes"]["current_status"].as_str().unwrap())
        .collect();
    assert!(
        statuses.contains(&"empty_returned") && statuses.contains(&"picked_up"),
        "{statuses:?}"
    );
}

#[tokio::test]
async fn reference_data_and_relationships_resolve() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let lines = app.get("/v2/shipping_lines", Some(&key)).await.json();
    assert!(lines["meta"]["total"].as_u64().unwrap() >= 20);
    let msc = app
        .get("/v2/shipping_lines?search=mediterranean", Some(&key))
        .await
        .json();
    assert_eq!(msc["data"][0]["attributes"]["scac"], "MSCU");
    let by_scac = app.get("/v2/shipping_lines/MSCU", Some(&key)).await.json();
    let by_id = app
        .get(
            &format!(
                "/v2/shipping_lines/{}",
                by_scac["data"]["id"].as_str().unwrap()
            ),
            Some(&key),
        )
        .await
        .json();
    assert_eq!(
        by_id["data"]["attributes"]["name"],
        "Mediterranean Shipping Company"
    );

    let lax = app.get("/v2/ports/uslax", Some(&key)).await.json();
    assert_eq!(lax["data"]["attributes"]["code"], "USLAX");
    assert_eq!(
        lax["data"]["attributes"]["time_zone"],
        "America/Los_Angeles"
    );
    let lax_id = lax["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(
        app.get(&format!("/v2/ports/{lax_id}"), Some(&key))
            .await
            .json()["data"]["attributes"]["code"],
        "USLAX"
    );
    assert_error(&app.get("/v2/ports/XXNOPE", Some(&key)).await, 404);
    let t = app
        .get("/v2/terminals/Y258?include=port", Some(&key))
        .await
        .json();
    assert_eq!(t["data"]["attributes"]["nickname"], "TraPac LA");
    // the members the contract and the reference name, from the SMDG list (data/README.md)
    assert_eq!(t["data"]["attributes"]["smdg_code"], "TRAP");
    assert_eq!(
        t["data"]["attributes"]["street"],
        "630 West Harry Bridges Blvd"
    );
    assert_eq!(t["data"]["attributes"]["zip"], "90744");
    // a code no public source gives is absent, not null (the reference types it a string)
    assert!(
        t["data"]["attributes"].get("bic_facility_code").is_none(),
        "{t}"
    );
    assert_eq!(t["data"]["relationships"]["port"]["data"]["id"], lax_id);
    assert_eq!(t["included"][0]["attributes"]["code"], "USLAX");

    // a played journey points at the port and terminal resources
    let r = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request("TEST-SCN-IMPORT", "bill_of_lading", "TEST"),
        )
        .await;
    assert_eq!(r.status, 201);
    let start = boxtrack_store::now_us();
    app.tick_at(start).await;
    app.tick_at(start + 530 * 1_000_000).await;
    let s = app
        .get(
            "/v2/shipments?include=port_of_discharge,port_of_lading",
            Some(&key),
        )
        .await
        .json();
    assert_eq!(
        s["data"][0]["relationships"]["port_of_discharge"]["data"]["id"],
        lax_id
    );
    let codes: Vec<&str> = s["included"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["attributes"]["code"].as_str().unwrap())
        .collect();
    assert!(
        codes.contains(&"USLAX") && codes.contains(&"CNSHA"),
        "{codes:?}"
    );
    // a page of shipments (shown from their rendered texts) shows each as its own read does,
    // with every include
    let all = "containers,pod_terminal,port_of_lading,port_of_discharge,destination";
    let page = app
        .get(&format!("/v2/shipments?include={all}"), Some(&key))
        .await
        .json();
    let resources = |doc: &serde_json::Value| -> Vec<String> {
        let mut all: Vec<String> = doc["included"]
            .as_array()
            .map(|a| a.iter().map(|r| r.to_string()).collect())
            .unwrap_or_default();
        all.sort();
        all.dedup();
        all
    };
    let mut one_by_one = Vec::new();
    for s in page["data"].as_array().unwrap() {
        let id = s["id"].as_str().unwrap();
        let one = app
            .get(&format!("/v2/shipments/{id}?include={all}"), Some(&key))
            .await
            .json();
        assert_eq!(
            one["data"], *s,
            "the page's shipment as its own read shows it"
        );
        one_by_one.extend(resources(&one));
    }
    one_by_one.sort();
    one_by_one.dedup();
    assert_eq!(resources(&page), one_by_one);
    assert!(
        page["included"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["type"] == "container"),
        "{page}"
    );
    let c = app
        .get(
            "/v2/containers?include=pod_terminal,shipment.port_of_discharge",
            Some(&key),
        )
        .await
        .json();
    assert_eq!(
        c["data"][0]["relationships"]["pod_terminal"]["data"]["type"],
        "terminal"
    );
    let types: Vec<&str> = c["included"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["type"].as_str().unwrap())
        .collect();
    assert!(
        types.contains(&"terminal") && types.contains(&"port") && types.contains(&"shipment"),
        "{types:?}"
    );
}

#[tokio::test]
async fn search_ranks_numbers_and_references() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let (_, other_key) = app.account().await;
    one_container(&app, &key).await;
    let number = boxtrack_sources::sandbox::container_number("TEST-TR-SUCCEEDED");
    let waiting = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request("TEST-TR-AWAITING-MANIFEST", "booking_number", "TEST"),
        )
        .await;
    assert_eq!(waiting.status, 201);

    let exact = app
        .get(
            &format!("/v2/search?query={}", number.to_lowercase()),
            Some(&key),
        )
        .await
        .json();
    // a container is a `cargo`, as the reference calls it, with its shipment and carrier
    assert_eq!(exact["data"][0]["type"], "cargo");
    assert_eq!(exact["data"][0]["attributes"]["entity_type"], "cargo");
    assert_eq!(exact["data"][0]["attributes"]["number"], number);
    assert!(
        exact["data"][0]["attributes"]["shipment_id"].is_string(),
        "{exact}"
    );
    assert_eq!(exact["data"][0]["attributes"]["scac"], "TEST");
    // no result relates to itself (a client's object graph would contain itself)
    for r in exact["data"].as_array().unwrap() {
        assert!(r.get("relationships").is_none(), "{r}");
    }
    let by_ref = app.get("/v2/search?query=po-1", Some(&key)).await.json();
    let kinds: Vec<&str> = by_ref["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["attributes"]["entity_type"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"shipment") && kinds.contains(&"tracking_request"),
        "{kinds:?}"
    );
    let bl = app.get("/v2/search?query=TEST-TR", Some(&key)).await.json();
    assert!(bl["meta"]["total"].as_u64().unwrap() >= 2);
    assert!(bl["data"].as_array().unwrap().len() <= 25);
    assert_eq!(
        app.get("/v2/search?query=PO-1", Some(&other_key))
            .await
            .json()["meta"]["total"],
        0
    );
    let e = assert_error(&app.get("/v2/search", Some(&key)).await, 400);
    assert_eq!(e["source"]["parameter"], "query");
}

#[tokio::test]
async fn tracking_stops_56_days_after_arrival() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let r = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request("TEST-SCN-ROLLOVER", "bill_of_lading", "TEST"),
        )
        .await;
    assert_eq!(r.status, 201);
    let start = boxtrack_store::now_us();
    app.tick_at(start).await;
    // the journey has arrived (virtual hour 602) but stays grounded: still tracked
    app.tick_at(start + 700 * 1_000_000).await;
    // every event of a sandbox journey says where it really came from
    let c = app.get("/v2/containers", Some(&key)).await.json();
    let id = c["data"][0]["id"].as_str().unwrap();
    for path in ["transport_events", "raw_events"] {
        let d = app
            .get(
                &format!("/v2/containers/{id}/{path}?page[size]=100"),
                Some(&key),
            )
            .await
            .json();
        let sources: std::collections::BTreeSet<&str> = d["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["attributes"]["data_source"].as_str().unwrap_or("?"))
            .collect();
        assert_eq!(
            sources.into_iter().collect::<Vec<_>>(),
            vec!["sandbox"],
            "{path}"
        );
    }
    assert_eq!(
        app.get("/v2/shipments?filter[tracking_stopped]=false", Some(&key))
            .await
            .json()["meta"]["total"],
        1
    );
    // 56 days after its arrival on the journey's own clock (an hour a second: 56 days are
    // 22 real minutes) it stops by itself
    app.tick_at(start + (602 + 55 * 24) * 1_000_000).await;
    assert_eq!(
        app.get("/v2/shipments?filter[tracking_stopped]=false", Some(&key))
            .await
            .json()["meta"]["total"],
        1,
        "55 virtual days after arrival: still tracked"
    );
    app.tick_at(start + (602 + 57 * 24) * 1_000_000).await;
    let s = app.get("/v2/shipments", Some(&key)).await.json();
    assert_eq!(
        s["data"][0]["attributes"]["line_tracking_stopped_reason"],
        "past_arrival_window"
    );
}

/// A shipment fed by a carrier whose clock runs ahead (a simulator) stops 56 days after its
/// arrival on that clock, not on the wall clock.
#[tokio::test]
async fn the_arrival_window_runs_on_the_carriers_clock() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let now = boxtrack_store::now_us();
    let arrived = now + 100 * DAY; // the carrier's world is far ahead
    crate::helpers::resolve_bill_of_lading(
        &app.db,
        account.id,
        "MEDUJ0000009",
        vec![boxtrack_store::tracking::NewContainer {
            number: boxtrack_sources::sandbox::container_number("clock"),
            observations: vec![Observation {
                observed_us: arrived,
                source: DataSource::ShippingLine,
                fact: Fact::Event(EventFact {
                    milestone: Milestone::VesselArrived,
                    estimated: false,
                    at_us: Some(arrived),
                    place: Place::Pod,
                    locode: Some("USLAX".into()),
                    timezone: None,
                    terminal: None,
                    vessel_name: None,
                    vessel_imo: None,
                    voyage: None,
                }),
                precision: Default::default(),
                upstream_id: None,
            }],
        }],
    )
    .await;
    boxtrack_store::tracking::stop_stale(&app.db, now, 3600.0)
        .await
        .unwrap();
    let tracked = app
        .get("/v2/shipments?filter[tracking_stopped]=false", Some(&key))
        .await
        .json()["meta"]["total"]
        .as_u64();
    assert_eq!(
        tracked,
        Some(1),
        "on the wall clock it has not even arrived"
    );
    // the carrier's clock: 57 days after the arrival
    boxtrack_store::subjects::record_clock(
        &app.db,
        "MSCU",
        "bill_of_lading",
        "MEDUJ0000009",
        now,
        arrived + 57 * DAY,
        1.0,
    )
    .await
    .unwrap();
    boxtrack_store::tracking::stop_stale(&app.db, now, 3600.0)
        .await
        .unwrap();
    let tracked = app
        .get("/v2/shipments?filter[tracking_stopped]=false", Some(&key))
        .await
        .json()["meta"]["total"]
        .as_u64();
    assert_eq!(tracked, Some(0));
    let s = app.get("/v2/shipments", Some(&key)).await.json();
    assert_eq!(
        s["data"][0]["attributes"]["line_tracking_stopped_reason"],
        "past_arrival_window"
    );
}

fn feature_kinds(doc: &Value) -> Vec<String> {
    doc["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let p = &f["properties"];
            match p["label"].as_str() {
                Some(l) => format!("port {l}"),
                None => p["feature_type"].as_str().unwrap().to_string(),
            }
        })
        .collect()
}

#[tokio::test]
async fn the_map_shows_ports_the_sailed_path_the_vessel_and_the_legs_ahead() {
    const H: i64 = 3_600_000_000;
    let app = TestApp::spawn().await;
    let (_, plain_key) = app.account().await;
    let (_, key) = app
        .account_with(Plan::Standard, &[Entitlement::Routing], Limits::default())
        .await;
    let r = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request("TEST-SCN-TRANSSHIPMENT", "bill_of_lading", "TEST"),
        )
        .await;
    assert_eq!(r.status, 201);
    let start = boxtrack_store::now_us();
    app.tick_at(start).await;
    let c = app.get("/v2/containers", Some(&key)).await.json();
    let id = c["data"][0]["id"].as_str().unwrap().to_string();
    let path = format!("/v2/containers/{id}/map_geojson");

    // gated by the routing entitlement, and another account's container is not found
    let denied = app.get(&path, Some(&plain_key)).await;
    let e = assert_error(&denied, 403);
    assert!(
        e["detail"]
            .as_str()
            .unwrap()
            .contains("Routing Data feature is not enabled"),
        "{e}"
    );
    assert_error(
        &app.get(
            "/v2/containers/00000000-0000-4000-8000-000000000000/map_geojson",
            Some(&key),
        )
        .await,
        404,
    );

    // not sailed yet: the two ends and a great circle between them
    let doc = app.get(&path, Some(&key)).await.json();
    assert_eq!(doc["type"], "FeatureCollection");
    assert_eq!(
        feature_kinds(&doc),
        ["port POL", "estimated_full_legs", "port POD"]
    );
    let pol = &doc["features"][0];
    assert_eq!(pol["geometry"]["type"], "Point");
    assert_eq!(pol["properties"]["name"], "Shanghai");
    assert_eq!(pol["properties"]["country"], "China");
    assert_eq!(pol["properties"]["ports_total"], 2);

    // AIS reports of the mainline vessel after it left Busan (virtual hour 160); two
    // reports five minutes apart keep one track point
    let mmsi = 636_000_001;
    let fix = |h: i64, min: i64, lat: f64, lon: f64| boxtrack_store::ais::PositionUpdate {
        mmsi,
        latitude: Some(lat),
        longitude: Some(lon),
        speed_knots: Some(17.0),
        course: Some(60.0),
        heading: Some(61),
        nav_status: 0,
        at_us: start + h * H + min * 60_000_000,
    };
    boxtrack_store::ais::store(
        &app.db,
        &[
            fix(170, 0, 36.0, 132.0),
            fix(170, 5, 36.01, 132.05),
            fix(180, 0, 38.0, 140.0),
            fix(190, 0, 40.0, 150.0),
        ],
        &[boxtrack_store::ais::StaticUpdate {
            mmsi,
            imo: Some("9777589".into()),
            name: "MSC ANNA".into(),
            callsign: "3FAB5".into(),
            ship_type: 71,
            destination: "USLGB".into(),
            eta_us: None,
            draught_m: 12.0,
            at_us: start,
        }],
    )
    .await
    .unwrap();

    // virtual hour 200: fed to Busan, left Busan on MSC ANNA, not yet at Long Beach
    app.tick_at(start + 200 * 1_000_000).await;
    let doc = app.get(&path, Some(&key)).await.json();
    assert_eq!(
        feature_kinds(&doc),
        [
            "port POL",
            "estimated_full_legs",
            "port TS1",
            "past_vessel_locations",
            "current_vessel",
            "estimated_partial_leg",
            "port POD"
        ],
        "{doc}"
    );
    let ts1 = &doc["features"][2]["properties"];
    assert_eq!(ts1["name"], "Busan");
    assert_eq!(ts1["ports_sequence"], 2);
    assert_eq!(ts1["ports_total"], 3);
    assert!(ts1["inbound_ata_at"].is_string() && ts1["outbound_atd_at"].is_string());
    let past = &doc["features"][3];
    assert_eq!(past["properties"]["point_count"], 3, "{past}");
    assert_eq!(
        past["geometry"]["coordinates"][0],
        json!([132.0, 36.0]),
        "{past}"
    );
    let v = &doc["features"][4]["properties"];
    assert_eq!(v["vessel_imo"], "9777589");
    assert_eq!(v["vessel_name"], "MSC ANNA");
    assert_eq!(v["departure_port_label"], "TS1");
    assert_eq!(v["arrival_port_label"], "POD");
    assert_eq!(v["arrival_port_name"], "Long Beach");
    assert_eq!(
        doc["features"][4]["geometry"]["coordinates"],
        json!([150.0, 40.0])
    );
    let rest = &doc["features"][5];
    assert_eq!(rest["geometry"]["coordinates"][0], json!([150.0, 40.0]));
    assert_eq!(
        rest["properties"]["point_count"],
        rest["geometry"]["coordinates"].as_array().unwrap().len()
    );

    // the same AIS data on the vessel: its track (routing only), and where it will be
    let from = boxtrack_core::time::format_micros(start);
    let track_path = format!("/v2/vessels/9777589?show_positions[from_timestamp]={from}");
    assert_error(&app.get(&track_path, Some(&plain_key)).await, 403);
    let v = app.get(&track_path, Some(&key)).await.json();
    assert_eq!(
        v["data"]["attributes"]["positions"]
            .as_array()
            .unwrap()
            .len(),
        3,
        "{v}"
    );
    assert_eq!(v["data"]["attributes"]["positions"][0]["estimated"], false);
    let fut = app
        .get(
            "/v2/vessels/9777589/future_positions?port_id=USLGB&previous_port_id=KRPUS",
            Some(&key),
        )
        .await;
    assert_eq!(fut.status, 200, "{}", fut.text);
    let positions = fut.json()["data"]["attributes"]["positions"].clone();
    let positions = positions.as_array().unwrap();
    // from the latest AIS report (40 N 150 E) to Long Beach, a minute apart, at 17 knots
    assert_eq!(positions[0]["latitude"], 40.0);
    assert_eq!(positions[0]["longitude"], 150.0);
    assert!(positions.iter().all(|p| p["estimated"] == true));
    let t =
        |p: &Value| boxtrack_core::time::parse_micros(p["timestamp"].as_str().unwrap()).unwrap();
    assert_eq!(t(&positions[1]) - t(&positions[0]), 60_000_000);
    let lgb = boxtrack_core::reference::port("USLGB").unwrap();
    let last = positions.last().unwrap();
    assert_eq!(last["latitude"], lgb.latitude.unwrap());
    let hours = (t(last) - t(&positions[0])) as f64 / 3_600_000_000.0;
    assert!((150.0..300.0).contains(&hours), "{hours}");
    let from_here = app
        .get(
            "/v2/vessels/9777589/future_positions_with_coordinates?port_id=USLGB&previous_port_id=KRPUS&latitude=30&longitude=-140",
            Some(&key),
        )
        .await
        .json();
    assert_eq!(
        from_here["data"]["attributes"]["positions"][0]["longitude"],
        -140.0
    );
    assert_error(
        &app.get(
            "/v2/vessels/9777589/future_positions?port_id=NOWHERE&previous_port_id=KRPUS",
            Some(&key),
        )
        .await,
        400,
    );

    // arrived: every leg behind it, the mainline leg as sailed, no vessel marker
    app.tick_at(start + 500 * 1_000_000).await;
    let doc = app.get(&path, Some(&key)).await.json();
    assert_eq!(
        feature_kinds(&doc),
        [
            "port POL",
            "estimated_full_legs",
            "port TS1",
            "past_vessel_locations",
            "port POD"
        ],
        "{doc}"
    );
    assert!(doc["features"][4]["properties"]["inbound_ata_at"].is_string());
}

#[tokio::test]
async fn rail_events_point_at_metro_areas_and_ports() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let r = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request("TEST-SCN-RAIL", "bill_of_lading", "TEST"),
        )
        .await;
    assert_eq!(r.status, 201);
    let start = boxtrack_store::now_us();
    app.tick_at(start).await;
    app.tick_at(start + 700 * 1_000_000).await;
    let c = app.get("/v2/containers", Some(&key)).await.json();
    let id = c["data"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(c["data"][0]["attributes"]["current_status"], "picked_up");
    assert_eq!(
        c["data"][0]["attributes"]["final_destination_timezone"],
        "America/Chicago"
    );
    assert_eq!(c["data"][0]["attributes"]["pod_rail_carrier_scac"], "UP");
    let te = app
        .get(
            &format!("/v2/containers/{id}/transport_events?include=location&page[size]=100"),
            Some(&key),
        )
        .await
        .json();
    let rail = te["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["attributes"]["event"] == "container.transport.rail_arrived")
        .unwrap();
    assert_eq!(
        rail["relationships"]["location"]["data"]["type"],
        "metro_area"
    );
    let types: Vec<&str> = te["included"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["type"].as_str().unwrap())
        .collect();
    assert!(
        types.contains(&"metro_area") && types.contains(&"port"),
        "{types:?}"
    );
    let loaded = te["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["attributes"]["event"] == "container.transport.vessel_loaded")
        .unwrap();
    let vessel_id = loaded["relationships"]["vessel"]["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let v = app.get("/v2/vessels/9811000", Some(&key)).await.json();
    assert_eq!(v["data"]["attributes"]["name"], "EVER GIVEN");
    assert_eq!(v["data"]["id"], vessel_id);
    assert_eq!(
        app.get(&format!("/v2/vessels/{vessel_id}"), Some(&key))
            .await
            .json()["data"]["attributes"]["imo"],
        "9811000"
    );
    let with_vessel = app
        .get(
            &format!("/v2/containers/{id}/transport_events?include=vessel,terminal&page[size]=100"),
            Some(&key),
        )
        .await
        .json();
    assert!(
        with_vessel["included"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["type"] == "vessel")
    );
    let chi = app.get("/v2/metro_areas/USCHI", Some(&key)).await.json();
    assert_eq!(chi["data"]["attributes"]["time_zone"], "America/Chicago");
}

#[tokio::test]
async fn reference_lists_follow_one_rule_everywhere() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let (container, shipment) = one_container(&app, &key).await;
    let long = "x".repeat(101);
    for path in [
        format!("/v2/shipments/{shipment}"),
        format!("/v2/containers/{container}"),
    ] {
        let body = json!({"data": {"attributes": {"ref_numbers": ["ok", long]}}}).to_string();
        let e = assert_error(&app.patch(&path, &key, &body).await, 422);
        assert_eq!(e["code"], "too_long", "{path}");
        assert_eq!(e["source"]["pointer"], "/data/attributes/ref_numbers");
        let body = json!({"data": {"attributes": {"ref_numbers": [" A ", "A", ""]}}}).to_string();
        let r = app.patch(&path, &key, &body).await;
        assert_eq!(
            r.json()["data"]["attributes"]["ref_numbers"],
            json!(["A"]),
            "{path}"
        );
    }
}

/// The free plan's limit holds on the containers a request adds once it resolves: with 9
/// active, a bill of lading that resolves to 3 more ends `failed` / `plan_limit` and tracks
/// nothing.
#[tokio::test]
async fn the_plan_limit_holds_when_a_request_resolves() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account_with(Plan::Free, &[], Limits::default()).await;
    let resolve = |number: &'static str, n: usize, offset: usize| {
        crate::helpers::resolve_bill_of_lading(
            &app.db,
            account.id,
            number,
            crate::helpers::blank_containers(n, offset),
        )
    };
    resolve("MEDUJ0000001", 9, 0).await;
    let over = resolve("MEDUJ0000002", 3, 100).await;
    assert_eq!(
        boxtrack_store::tracking::active_containers(&app.db, account.id)
            .await
            .unwrap(),
        9
    );
    let tr = app
        .get(&format!("/v2/tracking_requests/{over}"), Some(&key))
        .await
        .json();
    assert_eq!(tr["data"]["attributes"]["status"], "failed", "{tr}");
    assert_eq!(
        tr["data"]["attributes"]["failed_reason"], "plan_limit",
        "{tr}"
    );
    assert!(
        events(&app, account.id)
            .await
            .contains(&"tracking_request.failed".to_string())
    );
    // one more fits exactly
    resolve("MEDUJ0000003", 1, 200).await;
    assert_eq!(
        boxtrack_store::tracking::active_containers(&app.db, account.id)
            .await
            .unwrap(),
        10
    );
}

/// A carrier with no configured source: the request says so at once (`data_unavailable`,
/// retrying) and keeps saying so; the operator sees the carrier and its waiting requests.
#[tokio::test]
async fn a_carrier_without_a_source_says_so() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let r = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request("MAEU123456789", "bill_of_lading", "MAEU"),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let a = &r.json()["data"]["attributes"];
    assert_eq!(a["status"], "pending");
    assert_eq!(a["failed_reason"], "data_unavailable", "{a}");
    assert_eq!(a["is_retrying"], true);
    app.process().await;
    let list = app.get("/v2/tracking_requests", Some(&key)).await.json();
    assert_eq!(
        list["data"][0]["attributes"]["failed_reason"], "data_unavailable",
        "{list}"
    );
    let sources = app.get("/v2/sources", Some(&key)).await.json();
    assert_eq!(
        sources["meta"]["unconfigured_carriers"],
        json!([{"scac": "MAEU", "waiting_requests": 1}]),
        "{sources}"
    );
}

/// A page of containers embeds each container's own events, read for the whole page at once:
/// what `include=transport_events` gives for a list is what each container's events endpoint
/// gives.
#[tokio::test]
async fn a_page_of_containers_includes_each_ones_own_events() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    request_all(
        &app,
        &key,
        &["TEST-SCN-HOLDS", "TEST-SCN-IMPORT", "TEST-SCN-RAIL"],
    )
    .await;
    let start = boxtrack_store::now_us();
    // three weeks of virtual journey, an hour a step
    for h in 0..(21 * 24) {
        app.tick_at(start + h * 3_600_000_000 / 3600).await;
    }
    let page = app
        .get("/v2/containers?include=transport_events", Some(&key))
        .await
        .json();
    let data = page["data"].as_array().unwrap();
    assert!(data.len() >= 3, "{page}");
    let included: Vec<(String, String)> = page["included"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["type"] == "transport_event")
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_string(),
                r["relationships"]["container"]["data"]["id"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    let mut with_events = 0;
    for c in data {
        let id = c["id"].as_str().unwrap();
        let listed: Vec<&str> = c["relationships"]["transport_events"]["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].as_str().unwrap())
            .collect();
        let own = app
            .get(
                &format!("/v2/containers/{id}/transport_events?page[size]=100"),
                Some(&key),
            )
            .await
            .json();
        let expected: Vec<&str> = own["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].as_str().unwrap())
            .collect();
        assert_eq!(listed, expected, "container {id}");
        for e in &listed {
            assert!(
                included.iter().any(|(eid, cid)| eid == e && cid == id),
                "{e} of {id} is not included as that container's event"
            );
        }
        if !listed.is_empty() {
            with_events += 1;
        }
    }
    assert!(with_events >= 2, "{page}");
}

/// Tracks each sandbox bill of lading (each must be accepted).
async fn request_all(app: &TestApp, key: &str, numbers: &[&str]) {
    for n in numbers {
        let r = app
            .post(
                "/v2/tracking_requests",
                key,
                MT,
                &request(n, "bill_of_lading", "TEST"),
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
}

/// `PATCH /v2/containers`: the reference's "Edit a container" names the container in
/// `data.id`; a list changes up to 100 at once, all or none.
#[tokio::test]
async fn containers_are_edited_one_or_many_at_once_all_or_none() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let (_, other_key) = app.account().await;
    app.track_sandbox(&key, "TEST-SCN-TRANSSHIPMENT").await;
    let listed = app.get("/v2/containers", Some(&key)).await.json();
    let ids: Vec<String> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 2);
    let refs = |id: &str| {
        let (app, key, id) = (&app, key.clone(), id.to_string());
        async move {
            app.get(&format!("/v2/containers/{id}"), Some(&key))
                .await
                .json()["data"]["attributes"]["ref_numbers"]
                .clone()
        }
    };

    // one, as the reference's clients send it
    let one = json!({"data": {"id": ids[0], "type": "container", "attributes": {"ref_numbers": ["PO-1"]}}});
    let r = app.patch("/v2/containers", &key, &one.to_string()).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json()["data"]["id"], ids[0]);
    assert_eq!(refs(&ids[0]).await, json!(["PO-1"]));

    // many
    let many = json!({"data": [
        {"id": ids[0], "type": "container", "attributes": {"ref_numbers": ["PO-2"]}},
        {"id": ids[1], "type": "container", "attributes": {"ref_numbers": ["PO-3", "PO-4"]}}
    ]});
    let r = app.patch("/v2/containers", &key, &many.to_string()).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let got: Vec<&str> = r.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect::<Vec<_>>()
        .into_iter()
        .map(|s| if s == ids[0] { "first" } else { "second" })
        .collect();
    assert_eq!(got, ["first", "second"]);
    assert_eq!(refs(&ids[1]).await, json!(["PO-3", "PO-4"]));

    // another account's container in the list: 404 and nothing changes
    let mixed = json!({"data": [
        {"id": ids[0], "type": "container", "attributes": {"ref_numbers": ["LOST"]}},
        {"id": ids[1], "type": "container", "attributes": {"ref_numbers": ["LOST"]}}
    ]});
    assert_error(
        &app.patch("/v2/containers", &other_key, &mixed.to_string())
            .await,
        404,
    );
    let unknown = json!({"data": [
        {"id": ids[0], "type": "container", "attributes": {"ref_numbers": ["LOST"]}},
        {"id": uuid::Uuid::now_v7(), "type": "container", "attributes": {"ref_numbers": ["LOST"]}}
    ]});
    assert_error(
        &app.patch("/v2/containers", &key, &unknown.to_string())
            .await,
        404,
    );
    assert_eq!(refs(&ids[0]).await, json!(["PO-2"]));

    // what is wrong is named
    let no_id = json!({"data": {"type": "container", "attributes": {"ref_numbers": []}}});
    let e = assert_error(
        &app.patch("/v2/containers", &key, &no_id.to_string()).await,
        422,
    );
    assert_eq!(e["source"]["pointer"], "/data/id");
    let wrong_type =
        json!({"data": [{"id": ids[1], "type": "shipment", "attributes": {"ref_numbers": []}}]});
    let e = assert_error(
        &app.patch("/v2/containers", &key, &wrong_type.to_string())
            .await,
        422,
    );
    assert_eq!(e["source"]["pointer"], "/data/0/type");
    let none = json!({"data": []});
    assert_error(
        &app.patch("/v2/containers", &key, &none.to_string()).await,
        422,
    );
    assert_eq!(refs(&ids[1]).await, json!(["PO-3", "PO-4"]));
}

/// The automatic stop reads every quiet shipment, so the worker runs it once a minute of its
/// clock, not on every tick: a shipment that turns stale between two checks is stopped at the
/// next one.
#[tokio::test]
async fn the_automatic_stop_runs_once_a_minute_of_ticks() {
    let app = TestApp::spawn().await;
    let (a, key) = app.account().await;
    app.track_directly(a.id, "MRSU4371639", "MAEU", "KRPUS", "MXZLO")
        .await;
    let tracked = || async {
        app.get("/v2/shipments?filter[tracking_stopped]=false", Some(&key))
            .await
            .json()["meta"]["total"]
            .as_u64()
    };
    let worker = boxtrack_worker::Processor::new(app.db.clone(), vec![]);
    let quiet_for = boxtrack_store::tracking::STOP_AFTER_DAYS * 86_400_000_000;
    let u = boxtrack_store::now_us();
    let t0 = u + quiet_for - 10_000_000;
    worker.tick(t0).await.unwrap();
    assert_eq!(tracked().await, Some(1), "not quiet for 56 days yet");
    // stale now, but the last check was 20 s ago
    worker.tick(t0 + 20_000_000).await.unwrap();
    assert_eq!(tracked().await, Some(1));
    worker
        .tick(t0 + boxtrack_worker::STALE_CHECK_EVERY_US)
        .await
        .unwrap();
    assert_eq!(tracked().await, Some(0));
}

/// Found by schemathesis: a shipment whose number was tracked again while it was stopped
/// resumed into two live requests for one number (a 500 from the unique index). The newer
/// request stays the live one.
#[tokio::test]
async fn resuming_after_the_number_was_tracked_again_keeps_one_live_request() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let tr = app.track_sandbox(&key, "TEST-SCN-IMPORT").await;
    let first = tr["data"]["id"].as_str().unwrap().to_string();
    let shipment = app.get("/v2/shipments", Some(&key)).await.json()["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let stop = |s: &str| format!("/v2/shipments/{s}/stop_tracking");
    assert_eq!(app.patch(&stop(&shipment), &key, "").await.status, 200);
    let again = app.track_sandbox(&key, "TEST-SCN-IMPORT").await;
    let second = again["data"]["id"].as_str().unwrap().to_string();
    assert_ne!(first, second);
    let resumed = app
        .patch(
            &format!("/v2/shipments/{shipment}/resume_tracking"),
            &key,
            "",
        )
        .await;
    assert_eq!(resumed.status, 200, "{}", resumed.text);
    let status = |id: String| {
        let app = &app;
        let key = &key;
        async move {
            app.get(&format!("/v2/tracking_requests/{id}"), Some(key))
                .await
                .json()["data"]["attributes"]["status"]
                .as_str()
                .unwrap()
                .to_string()
        }
    };
    assert_eq!(status(first).await, "tracking_stopped");
    assert_ne!(status(second).await, "tracking_stopped");
}

#[tokio::test]
async fn a_journey_that_ended_still_takes_what_happened_before_its_end_and_nothing_after() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let (container, shipment) = one_container(&app, &key).await;
    let cid = uuid::Uuid::parse_str(&container).unwrap();
    let t = boxtrack_store::now_us() - 10 * DAY;
    let at = |days: i64| t + days * DAY - (t + days * DAY).rem_euclid(60_000_000);
    let event = |m: Milestone, when: i64| {
        Fact::Event(EventFact {
            milestone: m,
            estimated: false,
            at_us: Some(when),
            place: Place::Pod,
            locode: Some("USLAX".into()),
            timezone: None,
            terminal: None,
            vessel_name: None,
            vessel_imo: None,
            voyage: None,
        })
    };
    let said = |source: DataSource, precision, observed_us, fact| Observation {
        observed_us,
        source,
        fact,
        precision,
        upstream_id: None,
    };
    use boxtrack_core::tracking::precedence::Precision;
    // the terminal's CODECO, to the minute, tells the last moves first: the journey ends
    boxtrack_store::tracking::apply(
        &app.db,
        account.id,
        cid,
        &[
            said(
                DataSource::Terminal,
                Precision::Minute,
                at(2),
                event(Milestone::FullOut, at(1)),
            ),
            said(
                DataSource::Terminal,
                Precision::Minute,
                at(3),
                event(Milestone::EmptyIn, at(3)),
            ),
        ],
    )
    .await
    .unwrap();
    let s = app
        .get(&format!("/v2/shipments/{shipment}"), Some(&key))
        .await
        .json();
    assert_eq!(
        s["data"]["attributes"]["line_tracking_stopped_reason"].as_str(),
        Some("all_containers_terminated"),
        "{s}"
    );
    // the ended journey's container still answers to its number, for refinements
    let number = app
        .get(&format!("/v2/containers/{container}"), Some(&key))
        .await
        .json()["data"]["attributes"]["number"]
        .as_str()
        .unwrap()
        .to_string();
    let targets = boxtrack_store::payloads::targets(&app.db, None, &[number])
        .await
        .unwrap();
    assert_eq!(targets.len(), 1);
    // the carrier's DCSA event of that return, to the second, comes later; with it the
    // discharge the journey missed, an availability, and the box's next journey
    let finer = at(3) + 33_000_000;
    boxtrack_store::tracking::apply(
        &app.db,
        account.id,
        cid,
        &[
            said(
                DataSource::ShippingLine,
                Precision::Second,
                at(4),
                event(Milestone::EmptyIn, finer),
            ),
            said(
                DataSource::ShippingLine,
                Precision::Second,
                at(4),
                event(Milestone::VesselDischarged, at(0)),
            ),
            said(
                DataSource::Terminal,
                Precision::Second,
                at(4),
                Fact::Availability {
                    available: true,
                    at_us: None,
                },
            ),
            said(
                DataSource::ShippingLine,
                Precision::Second,
                at(5),
                event(Milestone::EmptyOut, at(5)),
            ),
        ],
    )
    .await
    .unwrap();
    let te = app
        .get(
            &format!("/v2/containers/{container}/transport_events"),
            Some(&key),
        )
        .await
        .json();
    let names: Vec<(&str, &str)> = te["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["attributes"]["event"].as_str().unwrap(),
                e["attributes"]["timestamp"].as_str().unwrap_or(""),
            )
        })
        .collect();
    let mut kinds: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [
            "container.transport.empty_in",
            "container.transport.full_out",
            "container.transport.vessel_discharged"
        ],
        "the missed discharge, nothing after the end: {names:?}"
    );
    let empty_in = names
        .iter()
        .find(|(n, _)| *n == "container.transport.empty_in")
        .unwrap();
    assert_eq!(
        boxtrack_core::time::parse_micros(empty_in.1),
        Some(finer),
        "the finer time: {names:?}"
    );
    let c = app
        .get(&format!("/v2/containers/{container}"), Some(&key))
        .await
        .json();
    assert_eq!(c["data"]["attributes"]["current_status"], "empty_returned");
    assert_ne!(c["data"]["attributes"]["available_for_pickup"], true);
    // the raw events keep what was applied, not what was refused
    let raw = app
        .get(
            &format!("/v2/containers/{container}/raw_events"),
            Some(&key),
        )
        .await
        .json();
    let facts: Vec<&str> = raw["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["attributes"]["fact"].as_str())
        .collect();
    assert_eq!(
        facts.iter().filter(|f| **f == "empty_in").count(),
        2,
        "{facts:?}"
    );
    assert!(
        facts.contains(&"vessel_discharged")
            && !facts.contains(&"empty_out")
            && !facts.contains(&"availability"),
        "{facts:?}"
    );
}

#[tokio::test]
async fn a_report_kept_for_later_finds_a_container_made_known_meanwhile() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let (container, _) = one_container(&app, &key).await;
    let number = app
        .get(&format!("/v2/containers/{container}"), Some(&key))
        .await
        .json()["data"]["attributes"]["number"]
        .as_str()
        .unwrap()
        .to_string();
    let obs = Observation {
        observed_us: 1,
        source: DataSource::Rail,
        fact: Fact::Chassis {
            number: Some("CH1".into()),
        },
        precision: Default::default(),
        upstream_id: None,
    };
    let now = boxtrack_store::now_us();
    // the file's lookup found neither; meanwhile the first one's container was made known
    let kept = boxtrack_store::early::keep(
        &app.db,
        None,
        None,
        &[
            (number.clone(), vec![obs.clone()]),
            ("ZZZU1234560".to_string(), vec![obs]),
        ],
        now,
    )
    .await
    .unwrap();
    assert_eq!(kept.kept, 1, "{kept:?}");
    assert_eq!(kept.known_meanwhile, vec![number]);
    assert_eq!(boxtrack_store::early::stats(&app.db).await.unwrap().0, 1);
}

/// A box on a feeder is on a ship: `TEST-SCN-FEEDER` leaves the port of lading on a feeder
/// (sandbox hours 20 and 24) and is `on_ship`, with the port of lading's times, from then on.
#[tokio::test]
async fn a_feeder_leg_puts_the_box_on_a_ship_at_once() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    app.track_sandbox(&key, "TEST-SCN-FEEDER").await;
    let start = boxtrack_store::now_us();
    // past the feeder's departure, before its arrival at the transshipment port
    app.tick_at(start + 30 * 1_000_000).await;
    let on_ship = app
        .get(
            "/v2/containers?filter[current_status]=on_ship&include=shipment",
            Some(&key),
        )
        .await
        .json();
    assert_eq!(
        on_ship["data"].as_array().map(Vec::len),
        Some(1),
        "{on_ship}"
    );
    let a = &on_ship["data"][0]["attributes"];
    assert_eq!(a["current_status"], "on_ship");
    assert!(a["pol_vessel_loaded_at"].is_string(), "{a}");
    assert!(a["pol_vessel_departed_at"].is_string(), "{a}");
    assert!(on_ship["included"][0]["attributes"]["pol_atd_at"].is_string());
    // through the transshipment at Hong Kong it stays on a ship
    app.tick_at(start + 72 * 1_000_000).await;
    let c = app.get("/v2/containers", Some(&key)).await.json();
    assert_eq!(c["data"][0]["attributes"]["current_status"], "on_ship");
}

/// A finished sandbox journey can be played again: tracking its number once the journey has
/// played to its end stops the finished shipment and starts the journey over on a new one;
/// while it still plays, the number is a duplicate.
#[tokio::test]
async fn a_finished_sandbox_journey_plays_again_when_tracked_again() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    // the holds journey ends with the box picked up, not returned: it never stops by itself
    let body = request("TEST-SCN-HOLDS", "bill_of_lading", "TEST");
    let track = || app.post("/v2/tracking_requests", &key, MT, &body);
    assert_eq!(track().await.status, 201);
    let start = boxtrack_store::now_us();
    app.tick_at(start).await;
    app.tick_at(start + 100 * 1_000_000).await;
    let e = assert_error(&track().await, 422);
    assert_eq!(e["code"], "duplicate");
    // played to its end (hour 641), not yet stopped (56 days after arrival)
    app.tick_at(start + 700 * 1_000_000).await;
    let again = track().await;
    assert_eq!(again.status, 201, "{}", again.text);
    app.process().await;
    let shipments = app.get("/v2/shipments", Some(&key)).await.json();
    assert_eq!(shipments["meta"]["total"], 2, "{shipments}");
    let requests = app
        .get(
            "/v2/tracking_requests?filter[status]=tracking_stopped",
            Some(&key),
        )
        .await
        .json();
    assert_eq!(
        requests["data"].as_array().map(Vec::len),
        Some(1),
        "{requests}"
    );
    // the new journey plays from its start, on its own clock
    app.tick_at(boxtrack_store::now_us() + 700 * 1_000_000)
        .await;
    let c = app
        .get(
            "/v2/containers?filter[current_status]=empty_returned,picked_up",
            Some(&key),
        )
        .await
        .json();
    assert_eq!(c["data"].as_array().map(Vec::len), Some(2), "{c}");
}

/// "What lands this week?": containers and shipments sort by their shipment's estimated
/// arrival at the POD (`sort=pod_eta_at`, soonest first, those without one last) and filter by
/// it (`filter[pod_eta_at][start|end]`), boxtrack's extensions of the reference's lists.
#[tokio::test]
async fn lists_sort_and_filter_by_the_estimated_arrival() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    for number in ["TEST-SCN-IMPORT", "TEST-SCN-TRANSSHIPMENT", "TEST-SCN-RAIL"] {
        app.track_sandbox(&key, number).await;
    }
    app.tick_at(boxtrack_store::now_us() + 50 * 1_000_000).await;
    let etas = |doc: &Value| -> Vec<Option<String>> {
        doc["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["attributes"]["pod_eta_at"].as_str().map(str::to_string))
            .collect()
    };
    let asc = app
        .get("/v2/shipments?sort=pod_eta_at", Some(&key))
        .await
        .json();
    let order = etas(&asc);
    assert_eq!(order.len(), 3, "{asc}");
    let known: Vec<&String> = order.iter().flatten().collect();
    assert!(known.len() >= 2, "{order:?}");
    assert!(known.windows(2).all(|w| w[0] <= w[1]), "{order:?}");
    // those without an estimate come last
    assert!(
        order
            .iter()
            .skip_while(|e| e.is_some())
            .all(Option::is_none),
        "{order:?}"
    );
    let desc = etas(
        &app.get("/v2/shipments?sort=-pod_eta_at", Some(&key))
            .await
            .json(),
    );
    let known_desc: Vec<&String> = desc.iter().flatten().collect();
    assert!(known_desc.windows(2).all(|w| w[0] >= w[1]), "{desc:?}");

    // a box is found by its shipment's reference number (the PO given with the request)
    let by_po = app.get("/v2/containers?q=po-1", Some(&key)).await.json();
    let all = app.get("/v2/containers", Some(&key)).await.json();
    assert_eq!(by_po["meta"]["total"], all["meta"]["total"], "{by_po}");
    let none = app.get("/v2/containers?q=PO-9", Some(&key)).await.json();
    assert_eq!(none["meta"]["total"], 0, "{none}");

    // the soonest arrival only
    let first = known[0].clone();
    let only = app
        .get(
            &format!("/v2/shipments?filter[pod_eta_at][end]={first}"),
            Some(&key),
        )
        .await
        .json();
    assert_eq!(etas(&only), vec![Some(first.clone())], "{only}");
    let boxes = app
        .get(
            &format!("/v2/containers?filter[pod_eta_at][end]={first}&include=shipment"),
            Some(&key),
        )
        .await
        .json();
    let shipment_id = only["data"][0]["id"].clone();
    assert!(!boxes["data"].as_array().unwrap().is_empty(), "{boxes}");
    assert!(
        boxes["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["relationships"]["shipment"]["data"]["id"] == shipment_id),
        "{boxes}"
    );
    // containers in their shipment's arrival order
    let sorted = app
        .get(
            "/v2/containers?sort=pod_eta_at&include=shipment",
            Some(&key),
        )
        .await
        .json();
    let first_box = &sorted["data"][0]["relationships"]["shipment"]["data"]["id"];
    assert_eq!(first_box, &shipment_id, "{sorted}");
    // a bound that is not a time is a 400 naming it
    let r = app
        .get("/v2/containers?filter[pod_eta_at][start]=soon", Some(&key))
        .await;
    assert_error(&r, 400);
}
