//! Upstream data pushed in: X12 315 and 322 files through `POST /v2/ingest/x12`.

use boxtrack_core::plan::{Entitlement, Plan};
use boxtrack_core::ratelimit::Limits;
use serde_json::Value;

use crate::helpers::{TestApp, assert_error};

pub(crate) fn fixture(path: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/../../fixtures/x12/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

pub(crate) async fn ingest(app: &TestApp, key: &str, body: &str) -> crate::helpers::Resp {
    app.send(
        app.client
            .post(app.url("/v2/ingest/x12"))
            .header("Authorization", format!("Token {key}"))
            .header("Content-Type", "application/edi-x12")
            .body(body.to_string()),
    )
    .await
}

fn events_of(doc: &Value) -> Vec<String> {
    let mut v: Vec<String> = doc["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["attributes"]["event"].as_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

/// A 315 about a box nobody tracks yet is kept; when a tracking request makes the box known
/// (for the account that sent it), its history starts with what the 315 said, through the
/// same merge and with the same webhooks; another account's file is not theirs to see.
#[tokio::test]
async fn a_report_that_comes_before_its_container_is_tracked_is_applied_when_it_is() {
    let app = TestApp::spawn().await;
    let (a, key_a) = app.account().await;
    let (b, key_b) = app.account().await;
    let text = fixture("315/004010_315_singleline_hamsud-krpus-mxzlo.edi");
    let r = ingest(&app, &key_a, &text).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let attrs = &r.json()["data"]["attributes"];
    assert_eq!(
        attrs["containers_unknown"],
        serde_json::json!(["MRSU4371639"])
    );
    assert_eq!(attrs["early_reports_kept"], 1, "{attrs}");
    let sources = app.get("/v2/sources", Some(&key_a)).await.json();
    assert_eq!(sources["meta"]["early_reports"]["kept"], 1, "{sources}");
    assert!(sources["meta"]["early_reports"]["oldest_at"].is_string());

    let ca = app
        .track_directly(a.id, "MRSU4371639", "MAEU", "KRPUS", "MXZLO")
        .await;
    let names = events_of(
        &app.get(
            &format!("/v2/containers/{ca}/transport_events"),
            Some(&key_a),
        )
        .await
        .json(),
    );
    for e in [
        "container.transport.vessel_departed",
        "container.transport.vessel_discharged",
    ] {
        assert!(names.contains(&e.to_string()), "{e}: {names:?}");
    }
    // consumed: the account's own early report is not kept for a later journey of the box
    let sources = app.get("/v2/sources", Some(&key_a)).await.json();
    assert_eq!(sources["meta"]["early_reports"]["kept"], 0, "{sources}");
    // the event log (what webhooks deliver) has them too
    let log = app
        .get("/v2/events?page[size]=1000", Some(&key_a))
        .await
        .json();
    let logged: Vec<&str> = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["attributes"]["event"].as_str())
        .collect();
    assert!(
        logged.contains(&"container.transport.vessel_discharged"),
        "{logged:?}"
    );
    // the same box in another account: account A's file is not B's report
    let cb = app
        .track_directly(b.id, "MRSU4371639", "MAEU", "KRPUS", "MXZLO")
        .await;
    let theirs = events_of(
        &app.get(
            &format!("/v2/containers/{cb}/transport_events"),
            Some(&key_b),
        )
        .await
        .json(),
    );
    assert!(theirs.is_empty(), "{theirs:?}");
}

#[tokio::test]
async fn a_315_updates_the_container_that_is_tracked_and_only_in_its_account() {
    let app = TestApp::spawn().await;
    let (a, key_a) = app.account().await;
    let (b, _key_b) = app.account().await;
    let ca = app
        .track_directly(a.id, "MRSU4371639", "MAEU", "KRPUS", "MXZLO")
        .await;
    let cb = app
        .track_directly(b.id, "MRSU4371639", "MAEU", "KRPUS", "MXZLO")
        .await;
    let text = fixture("315/004010_315_singleline_hamsud-krpus-mxzlo.edi");

    let r = ingest(&app, &key_a, &text).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let attrs = &r.json()["data"]["attributes"];
    assert_eq!(attrs["status"], "accepted");
    assert_eq!(attrs["transaction_sets_accepted"], 1);
    assert_eq!(
        attrs["containers_matched"],
        serde_json::json!(["MRSU4371639"])
    );
    assert!(attrs["changes"].as_u64().unwrap() > 0);

    let ev = app
        .get(
            &format!("/v2/containers/{ca}/transport_events"),
            Some(&key_a),
        )
        .await;
    let names = events_of(&ev.json());
    assert!(
        names.contains(&"container.transport.vessel_discharged".to_string()),
        "{names:?}"
    );
    assert!(
        names.contains(&"container.transport.vessel_departed".to_string()),
        "{names:?}"
    );
    let c = app
        .get(&format!("/v2/containers/{ca}"), Some(&key_a))
        .await
        .json();
    assert_eq!(c["data"]["attributes"]["equipment_length"], 40);
    assert_eq!(
        c["data"]["attributes"]["pod_discharged_at"],
        "2022-11-21T07:24:00Z"
    );

    // where each value came from: the carrier's 315, to the minute, kept as a raw event
    let sources = app
        .get(&format!("/v2/containers/{ca}/field_sources"), Some(&key_a))
        .await;
    assert_eq!(sources.status, 200, "{}", sources.text);
    let sources = sources.json();
    let discharged = sources["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "pod_discharged_at")
        .expect("the discharge time has a source");
    let a = &discharged["attributes"];
    assert_eq!(a["data_source"], "shipping_line", "{a}");
    assert_eq!(a["reported_by"], "shipping_line", "{a}");
    assert_eq!(a["precision"], "minute", "{a}");
    let raw = app
        .get(
            &format!("/v2/containers/{ca}/raw_events?page[size]=100"),
            Some(&key_a),
        )
        .await
        .json();
    assert!(
        raw["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == a["raw_event_id"]),
        "the raw event it names is the container's: {a}"
    );
    // another account cannot ask
    assert_eq!(
        app.get(&format!("/v2/containers/{ca}/field_sources"), Some(&_key_b))
            .await
            .status,
        404
    );

    // the other account's container is untouched (an account key feeds its own data only)
    let n: i64 = boxtrack_store::on_db!(&app.db, p => sqlx::query_scalar(
        "SELECT COUNT(*) FROM transport_events WHERE container_id = $1").bind(cb).fetch_one(p).await.unwrap());
    assert_eq!(n, 0);

    // the same file again changes nothing
    let again = ingest(&app, &key_a, &text).await;
    assert_eq!(again.json()["data"]["attributes"]["changes"], 0);
}

#[tokio::test]
async fn an_operator_feeds_every_account_and_rail_322s_arrive() {
    let app = TestApp::spawn().await;
    let (a, key_a) = app
        .account_with(Plan::Standard, &[Entitlement::RailLfd], Limits::default())
        .await;
    let (op, op_key) = app.account().await;
    boxtrack_store::accounts::update(
        &app.db,
        op.id,
        boxtrack_store::accounts::AccountChanges {
            operator: Some(true),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let c = app
        .track_directly(a.id, "HASU4316170", "SUDU", "CNSHA", "USLGB")
        .await;
    for f in [
        "322/004010_322_hamsud_4_AL.edi",
        "322/004010_322_hamsud_2_OA.edi",
        "322/004010_322_hamsud_3_NF.edi",
    ] {
        let r = ingest(&app, &op_key, &fixture(f)).await;
        assert_eq!(r.status, 200, "{f}: {}", r.text);
        assert_eq!(
            r.json()["data"]["attributes"]["containers_matched"],
            serde_json::json!(["HASU4316170"]),
            "{f}"
        );
    }
    let names = events_of(
        &app.get(
            &format!("/v2/containers/{c}/transport_events"),
            Some(&key_a),
        )
        .await
        .json(),
    );
    assert!(
        names.contains(&"container.transport.rail_loaded".to_string()),
        "{names:?}"
    );
    assert!(
        names.contains(&"container.transport.full_out".to_string()),
        "{names:?}"
    );
    let attrs = app
        .get(&format!("/v2/containers/{c}"), Some(&key_a))
        .await
        .json()["data"]["attributes"]
        .clone();
    assert_eq!(attrs["pod_rail_carrier_scac"], "BNSF");
    // NF: the rail free time ends 2016-06-25 12:00 in Chicago
    assert_eq!(
        attrs["import_deadlines"]["pickup_lfd_rail"], "2016-06-25T17:00:00Z",
        "{attrs}"
    );
    assert_eq!(
        attrs["pod_rail_loaded_at"], "2016-05-24T14:30:00Z",
        "{attrs}"
    );
}

#[tokio::test]
async fn bad_files_are_refused_with_the_segment_and_kept_as_payloads() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let r = ingest(&app, &key, "hello").await;
    let e = assert_error(&r, 422);
    let detail = e["detail"].as_str().unwrap();
    assert!(detail.contains("ISA"), "{detail}");
    assert_eq!(e["code"], "x12_rejected");

    // IEA02 differs from ISA13: the interchange is refused, naming the IEA segment
    let r = ingest(&app, &key, &fixture("322/004010_322_1edisource_GI.edi")).await;
    let e = assert_error(&r, 422);
    assert!(e["detail"].as_str().unwrap().contains("(IEA)"), "{e}");

    // both were stored, rejected, and nothing else was written
    let stored: Vec<String> = boxtrack_store::on_db!(&app.db, p => sqlx::query_scalar(
        "SELECT status FROM source_payloads ORDER BY received_us").fetch_all(p).await.unwrap());
    assert_eq!(stored, ["rejected", "rejected"]);

    // one bad set among good ones: partial, the good one applied
    let good = fixture("315/004010_315_singleline_hamsud-krpus-mxzlo.edi");
    let spliced = good.replace(
        "SE*19*1883403~GE*1*720857~",
        "SE*19*1883403~ST*315*0002~B4***VA*20221121*0124~SE*3*0009~GE*2*720857~",
    );
    let r = ingest(&app, &key, &spliced).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let attrs = &r.json()["data"]["attributes"];
    assert_eq!(attrs["status"], "partial");
    assert_eq!(attrs["transaction_sets_accepted"], 1);
    assert_eq!(attrs["transaction_sets_rejected"], 1);
    assert_eq!(
        attrs["containers_unknown"],
        serde_json::json!(["MRSU4371639"])
    );

    // not text
    let r = app
        .send(
            app.client
                .post(app.url("/v2/ingest/x12"))
                .header("Authorization", format!("Token {key}"))
                .body(vec![0xff, 0xfe, 0x00]),
        )
        .await;
    assert_error(&r, 400);
    // the refused parts count in source health, without naming the sender
    let sources = app.get("/v2/sources", Some(&key)).await.json();
    let x12 = sources["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["attributes"]["kind"] == "x12")
        .expect("x12 in /v2/sources");
    assert!(
        x12["attributes"]["refused"]["x12_refused"]
            .as_u64()
            .unwrap()
            >= 3,
        "{x12}"
    );
    assert!(
        !x12["attributes"]["refused_samples"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn refresh_needs_the_entitlement_and_an_upstream() {
    let app = TestApp::spawn().await;
    let (plain, plain_key) = app.account().await;
    let (entitled, key) = app
        .account_with(
            Plan::Standard,
            &[Entitlement::ContainerRefresh],
            Limits::default(),
        )
        .await;
    let mine = app
        .track_directly(entitled.id, "MRSU4371639", "MAEU", "KRPUS", "MXZLO")
        .await;
    let theirs = app
        .track_directly(plain.id, "MRSU4371639", "MAEU", "KRPUS", "MXZLO")
        .await;
    let refresh = |id: uuid::Uuid, k: &str| {
        app.client
            .patch(app.url(&format!("/v2/containers/{id}/refresh")))
            .header("Authorization", format!("Token {k}"))
    };
    // not entitled: 403 naming the entitlement
    let e = assert_error(&app.send(refresh(theirs, &plain_key)).await, 403);
    assert!(
        e["detail"].as_str().unwrap().contains("container_refresh"),
        "{e}"
    );
    // another account's container: 404
    assert_error(&app.send(refresh(theirs, &key)).await, 404);
    // no upstream configured for the carrier in this process: 422 no_upstream
    let e = assert_error(&app.send(refresh(mine, &key)).await, 422);
    assert_eq!(e["code"], "no_upstream");
    // two accounts track the same number with the same line: one subject is polled for both
    let s = app.get("/v2/sources", Some(&key)).await;
    assert_eq!(s.status, 200);
    assert_eq!(s.json()["meta"]["subjects"]["active"], 1);
}

#[tokio::test]
async fn dcsa_pushes_must_be_signed_and_then_apply() {
    use boxtrack_api::{ApiConfig, Limiter};
    const SECRET: &str = "c2ltdWxhdGVkLWNhcnJpZXItcHVzaC1zZWNyZXQtMzJieXRlcw==";
    let (db, _database) = crate::helpers::fresh_db().await;
    let app = TestApp::spawn_with(
        db,
        Limiter::memory(),
        ApiConfig {
            dcsa_push_secret: Some(SECRET.into()),
            ..ApiConfig::default()
        },
    )
    .await;
    let (a, key) = app.account().await;
    let c = app
        .track_directly(a.id, "MRSU4371639", "MAEU", "KRPUS", "MXZLO")
        .await;
    let body = serde_json::json!([{
        "eventID": "6f3e0c1a-1111-4222-8333-444455556666",
        "eventCreatedDateTime": "2026-03-02T10:05:00Z",
        "eventType": "EQUIPMENT", "eventClassifierCode": "ACT",
        "eventDateTime": "2026-03-02T09:41:00+09:00",
        "equipmentEventTypeCode": "LOAD", "equipmentReference": "MRSU4371639",
        "ISOEquipmentCode": "45G1", "emptyIndicatorCode": "LADEN",
        "transportCall": {"transportCallID": "tc-1", "modeOfTransport": "VESSEL", "UNLocationCode": "KRPUS",
            "vessel": {"vesselIMONumber": "9352004", "vesselName": "MAERSK STEPNICA"}}
    }])
    .to_string();
    let push = |sig: Option<String>, b: String| {
        let mut r = app
            .client
            .post(app.url("/v2/ingest/dcsa"))
            .header("Content-Type", "application/json")
            .body(b);
        if let Some(s) = sig {
            r = r.header("Notification-Signature", s);
        }
        r
    };
    let stored = || async {
        let n: i64 = boxtrack_store::on_db!(&app.db, p => sqlx::query_scalar(
            "SELECT COUNT(*) FROM source_payloads").fetch_one(p).await.unwrap());
        n
    };
    // unsigned, badly signed, signed for other bytes: 401 and nothing stored
    assert_error(&app.send(push(None, body.clone())).await, 401);
    assert_error(
        &app.send(push(Some("sha256=00ff".into()), body.clone()))
            .await,
        401,
    );
    let other = boxtrack_sources::dcsa::sign(SECRET, b"[]").unwrap();
    assert_error(&app.send(push(Some(other), body.clone())).await, 401);
    assert_eq!(stored().await, 0);
    let before = app
        .get(&format!("/v2/containers/{c}"), Some(&key))
        .await
        .json();
    assert!(before["data"]["attributes"]["pol_vessel_loaded_at"].is_null());

    // signed: 204, stored, applied
    let sig = boxtrack_sources::dcsa::sign(SECRET, body.as_bytes()).unwrap();
    let r = app.send(push(Some(sig), body.clone())).await;
    assert_eq!(r.status, 204, "{}", r.text);
    assert_eq!(stored().await, 1);
    let after = app
        .get(&format!("/v2/containers/{c}"), Some(&key))
        .await
        .json();
    assert_eq!(
        after["data"]["attributes"]["pol_vessel_loaded_at"],
        "2026-03-02T00:41:00Z"
    );

    // signed but not DCSA: 400, kept as a rejected payload
    let junk = "{\"event\": []}".to_string();
    let sig = boxtrack_sources::dcsa::sign(SECRET, junk.as_bytes()).unwrap();
    assert_error(&app.send(push(Some(sig), junk)).await, 400);
    assert_eq!(stored().await, 2);

    // the real invalid fixtures: a wrapped structure is refused whole; bad dates refuse only
    // the events that carry them; nothing of either reaches the container
    let fixture = |name: &str| {
        std::fs::read_to_string(format!(
            "{}/../../fixtures/dcsa/invalid/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    };
    let wrapped = fixture("tnt-220-response-wrong-structure.json");
    let sig = boxtrack_sources::dcsa::sign(SECRET, wrapped.as_bytes()).unwrap();
    assert_error(&app.send(push(Some(sig), wrapped)).await, 400);
    let dates = fixture("tnt-220-response-wrong-date-times.json");
    let sig = boxtrack_sources::dcsa::sign(SECRET, dates.as_bytes()).unwrap();
    assert_eq!(app.send(push(Some(sig), dates)).await.status, 204);
    let statuses: Vec<String> = boxtrack_store::on_db!(&app.db, p => sqlx::query_scalar(
        "SELECT status FROM source_payloads ORDER BY received_us").fetch_all(p).await.unwrap());
    assert_eq!(statuses, ["accepted", "rejected", "rejected", "partial"]);
    let after2 = app
        .get(&format!("/v2/containers/{c}"), Some(&key))
        .await
        .json();
    assert_eq!(after2["data"]["attributes"], after["data"]["attributes"]);

    // a 3.0 push ({"events": [...]}): 200 with feedbackElements naming the event not applied
    // and the one only noted, API-Version 3.0.0; the good event applies
    let v3 = serde_json::json!({"events": [
        {"eventID": "disc-MRSU4371639-MXZLO", "eventDateTime": "2026-03-20T08:15:00-06:00",
         "eventUpdatedDateTime": "2026-03-20T15:00:00Z",
         "eventLocation": {"UNLocationCode": "MXZLO", "facility": {"facilityCode": "CTZ", "facilityCodeListProvider": "SMDG"}},
         "eventClassification": {"eventTypeCode": "EQUIPMENT", "eventClassifierCode": "ACT", "equipmentEventTypeCode": "DISC"},
         "transportDetails": {"transportCall": {"transportCallReference": "tc-2", "modeOfTransport": "VESSEL",
            "importVoyageNumberOrReference": {"carrierVoyageNumber": "611N"}}},
         "equipmentDetails": {"equipmentReference": "MRSU4371639", "emptyIndicatorCode": "LADEN"}},
        {"eventID": "no-date", "eventUpdatedDateTime": "2026-03-20T15:00:00Z",
         "eventClassification": {"eventTypeCode": "EQUIPMENT", "eventClassifierCode": "ACT", "equipmentEventTypeCode": "GTOT"},
         "equipmentDetails": {"equipmentReference": "MRSU4371639"}},
        {"eventID": "iot-1", "eventDateTime": "2026-03-20T08:15:00Z", "eventUpdatedDateTime": "2026-03-20T15:00:00Z",
         "eventClassification": {"eventTypeCode": "IOT", "eventClassifierCode": "ACT", "iotEventTypeCode": "DETC"},
         "equipmentDetails": {"equipmentReference": "MRSU4371639"}}
    ]})
    .to_string();
    let v3_again = v3.clone();
    let sig = boxtrack_sources::dcsa::sign(SECRET, v3.as_bytes()).unwrap();
    let r = app.send(push(Some(sig), v3)).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.headers["api-version"], "3.0.0");
    let feedback = r.json()["feedbackElements"].clone();
    let errors: Vec<&serde_json::Value> = feedback
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "ERROR")
        .collect();
    assert_eq!(errors.len(), 1, "{feedback}");
    assert_eq!(errors[0]["propertyPath"], "$.events[1]");
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap()
            .contains("eventDateTime"),
        "{feedback}"
    );
    assert!(
        feedback
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["severity"] == "WARN" && f["message"].as_str().unwrap().contains("IOT")),
        "{feedback}"
    );
    let after3 = app
        .get(&format!("/v2/containers/{c}"), Some(&key))
        .await
        .json();
    assert_eq!(
        after3["data"]["attributes"]["pod_discharged_at"],
        "2026-03-20T14:15:00Z"
    );
    let discharges = || async {
        let ev = app
            .get(&format!("/v2/containers/{c}/transport_events"), Some(&key))
            .await
            .json();
        ev["data"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["attributes"]["event"] == "container.transport.vessel_discharged")
            .count()
    };
    assert_eq!(discharges().await, 1);
    let changed_discharge = || async {
        let log = app
            .get(
                "/v2/events?filter[event]=container.updated&page[size]=100",
                Some(&key),
            )
            .await
            .json();
        log["included"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["type"] == "container_updated_event")
            .filter(|e| !e["attributes"]["changeset"]["pod_discharged_at"].is_null())
            .count()
    };
    let before = changed_discharge().await;

    // the carrier withdraws the discharge (3.0 isRetracted, naming only the eventID): the
    // event leaves the timeline, the attribute is null again, and the change is a
    // container.updated; the same event pushed again stays withdrawn
    let retracted = serde_json::json!({"events": [
        {"eventID": "disc-MRSU4371639-MXZLO", "isRetracted": true,
         "eventUpdatedDateTime": "2026-03-21T09:00:00Z"}
    ]})
    .to_string();
    let sig = boxtrack_sources::dcsa::sign(SECRET, retracted.as_bytes()).unwrap();
    let r = app.send(push(Some(sig), retracted)).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let after4 = app
        .get(&format!("/v2/containers/{c}"), Some(&key))
        .await
        .json();
    assert!(
        after4["data"]["attributes"]["pod_discharged_at"].is_null(),
        "{after4}"
    );
    assert_eq!(discharges().await, 0);
    assert_eq!(
        changed_discharge().await,
        before + 1,
        "the withdrawal is a container.updated change"
    );
    let sig = boxtrack_sources::dcsa::sign(SECRET, v3_again.as_bytes()).unwrap();
    let r = app.send(push(Some(sig), v3_again)).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(discharges().await, 0);
}

async fn ingest_edifact(app: &TestApp, key: &str, body: &str) -> crate::helpers::Resp {
    app.send(
        app.client
            .post(app.url("/v2/ingest/edifact"))
            .header("Authorization", format!("Token {key}"))
            .header("Content-Type", "application/edifact")
            .body(body.to_string()),
    )
    .await
}

/// A carrier's IFTSTA: the real fixture's UNZ names another interchange, so it is refused
/// whole (422 naming the UNZ, nothing applied, counted in source health); mended, its route
/// dates become the container's departure and arrival, to the minute; a message with a wrong
/// UNT count beside a good one is refused alone.
#[tokio::test]
async fn an_iftsta_interchange_is_checked_then_applied() {
    let app = TestApp::spawn().await;
    let (a, key) = app.account().await;
    let cid = app
        .track_directly(a.id, "TRHU4561225", "MAEU", "COCTG", "USNYC")
        .await;
    // the fixture's container fails its check digit (5, not 2): tracked as it should read
    let text = std::fs::read_to_string(format!(
        "{}/../../fixtures/edifact/iftsta/d00b_iftsta.edi",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .replace("TRHU4561222", "TRHU4561225");

    let r = ingest_edifact(&app, &key, &text).await;
    assert_error(&r, 422);
    assert!(
        r.text.contains("edifact_rejected") && r.text.contains("UNZ"),
        "{}",
        r.text
    );
    let n: i64 = boxtrack_store::on_db!(&app.db, p => sqlx::query_scalar(
        "SELECT COUNT(*) FROM transport_events WHERE container_id = $1").bind(cid).fetch_one(p).await.unwrap());
    assert_eq!(n, 0, "nothing of a refused interchange is applied");
    let sources = app.get("/v2/sources", Some(&key)).await.json();
    assert!(
        sources["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["attributes"]["kind"] == "edifact"
                && s["attributes"]["refused_total"].as_u64() >= Some(1)),
        "{sources}"
    );

    let mended = text.replace("UNZ+1+2805570'", "UNZ+1+2803570'");
    let r = ingest_edifact(&app, &key, &mended).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let attrs = &r.json()["data"]["attributes"];
    assert_eq!(attrs["format"], "edifact");
    assert_eq!(attrs["status"], "accepted", "{attrs}");
    assert_eq!(
        attrs["containers_matched"],
        serde_json::json!(["TRHU4561225"])
    );
    let events = app
        .get(
            &format!("/v2/containers/{cid}/transport_events"),
            Some(&key),
        )
        .await
        .json();
    let names = events_of(&events);
    for e in [
        "container.transport.vessel_departed",
        "container.transport.vessel_arrived",
    ] {
        assert!(names.contains(&e.to_string()), "{names:?}");
    }
    let c = app
        .get(&format!("/v2/containers/{cid}"), Some(&key))
        .await
        .json();
    assert_eq!(
        c["data"]["attributes"]["pol_vessel_departed_at"],
        "2022-11-09T19:15:00Z"
    );
    let sources = app
        .get(&format!("/v2/containers/{cid}/field_sources"), Some(&key))
        .await
        .json();
    assert!(
        sources["data"].as_array().unwrap().iter().any(
            |s| s["id"] == "pol_vessel_departed_at" && s["attributes"]["precision"] == "minute"
        ),
        "{sources}"
    );
    // the same file again changes nothing
    let again = ingest_edifact(&app, &key, &mended).await;
    assert_eq!(again.json()["data"]["attributes"]["changes"], 0);

    // one bad message beside a good one: partial, the good one applied
    let good = "UNH+1+IFTSTA:D:00B:UN'BGM+23+X+9'CNI+1'STS+1+OA'DTM+334:202211250900:203'LOC+175+USNYC'EQD+CN+TRHU4561225+45G1+++5'UNT+8+1'";
    let bad = "UNH+2+IFTSTA:D:00B:UN'BGM+23+Y+9'CNI+1'STS+1+I'DTM+334:202211300900:203'LOC+175+USNYC'EQD+CN+TRHU4561225+45G1+++4'UNT+99+2'";
    let file = format!("UNA:+.? 'UNB+UNOC:2+S+R+221125:0930+9'{good}{bad}UNZ+2+9'");
    let r = ingest_edifact(&app, &key, &file).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let attrs = &r.json()["data"]["attributes"];
    assert_eq!(attrs["status"], "partial", "{attrs}");
    assert_eq!(attrs["transaction_sets_accepted"], 1);
    assert_eq!(attrs["transaction_sets_rejected"], 1);
    let names = events_of(
        &app.get(
            &format!("/v2/containers/{cid}/transport_events"),
            Some(&key),
        )
        .await
        .json(),
    );
    assert!(
        names.contains(&"container.transport.full_out".to_string()),
        "{names:?}"
    );
    assert!(
        !names.contains(&"container.transport.empty_in".to_string()),
        "{names:?}"
    );

    // not EDIFACT at all
    let r = ingest_edifact(&app, &key, "ISA*00*          *00*").await;
    assert_error(&r, 422);
}

/// A terminal's COARRI (discharge) and CODECO (gate-out, then the empty's gate-in) apply as
/// the terminal's word: the milestones, to the minute, with the terminal as their source; a
/// message type boxtrack does not read (the real BAPLIE fixture) is refused by name.
#[tokio::test]
async fn a_terminal_s_coarri_and_codeco_are_its_moves() {
    let app = TestApp::spawn().await;
    let (a, key) = app.account().await;
    let cid = app
        .track_directly(a.id, "MRSU4371639", "MAEU", "KRPUS", "USLGB")
        .await;
    let file = "UNA:+.? 'UNB+UNOA:2+USLGBTERM+BOXTRACK+261127:1530+77'\
        UNH+1+COARRI:D:95B:UN:ITG12'BGM+44+DISC2611+9'\
        TDT+20+611N+1++MAEU:172:20+++9352004:146::MAERSK STEPNICA'\
        EQD+CN+MRSU4371639+45G1:102:5++3+5'RFF+BM:MAEU123456789'DTM+203:202611270815:203'\
        LOC+11+USLGB:139:6+PIERT:TER:ZZZ'LOC+9+KRPUS:139:6'CNT+16:1'UNT+10+1'\
        UNH+2+CODECO:D:95B:UN:ITG14'BGM+36+OUT2611+9'NAD+MS+PIERT'\
        EQD+CN+MRSU4371639+45G1:102:5++3+5'DTM+7:202611281405:203'LOC+165+USLGB:139:6+PIERT:TER:ZZZ'\
        CNT+16:1'UNT+8+2'\
        UNH+3+CODECO:D:95B:UN:ITG14'BGM+34+IN2611+9'\
        EQD+CN+MRSU4371639+45G1:102:5++3+4'DTM+7:202612021000:203'LOC+165+USLGB:139:6'\
        CNT+16:1'UNT+7+3'UNZ+3+77'";
    let r = ingest_edifact(&app, &key, file).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let attrs = &r.json()["data"]["attributes"];
    assert_eq!(attrs["status"], "accepted", "{attrs}");
    assert_eq!(attrs["transaction_sets_accepted"], 3, "{attrs}");
    let c = app
        .get(&format!("/v2/containers/{cid}"), Some(&key))
        .await
        .json();
    let a = &c["data"]["attributes"];
    // Long Beach is UTC-8 in winter
    assert_eq!(a["pod_discharged_at"], "2026-11-27T16:15:00Z", "{a}");
    assert_eq!(a["pod_full_out_at"], "2026-11-28T22:05:00Z", "{a}");
    assert_eq!(a["empty_terminated_at"], "2026-12-02T18:00:00Z", "{a}");
    let sources = app
        .get(&format!("/v2/containers/{cid}/field_sources"), Some(&key))
        .await
        .json();
    let of = |field: &str| {
        sources["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == field)
            .map(|s| s["attributes"]["data_source"].clone())
    };
    assert_eq!(
        of("pod_discharged_at"),
        Some(serde_json::json!("terminal")),
        "{sources}"
    );
    assert_eq!(
        of("pod_full_out_at"),
        Some(serde_json::json!("terminal")),
        "{sources}"
    );

    let baplie = std::fs::read_to_string(format!(
        "{}/../../fixtures/edifact/other/d04b_baplie.edi",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let r = ingest_edifact(&app, &key, &baplie).await;
    assert_error(&r, 422);
    assert!(
        r.text
            .contains("BAPLIE is not read (IFTSTA, CODECO and COARRI are)"),
        "{}",
        r.text
    );
}

#[tokio::test]
async fn a_sandbox_container_refreshes_by_playing_what_is_due() {
    let (db, _database) = crate::helpers::fresh_db().await;
    // "now", for the API, is hours of simulated time (seconds) after the journey starts
    let start = boxtrack_store::now_us();
    let state = boxtrack_api::AppState::new(
        boxtrack_app::Ctx::new(db).with_fixed_now(start + 5_000 * 1_000_000),
        boxtrack_api::ApiConfig::default(),
        boxtrack_api::Limiter::memory(),
    );
    let app = TestApp::serve_state(state, Default::default()).await;
    let (_, key) = app
        .account_with(
            Plan::Standard,
            &[Entitlement::ContainerRefresh],
            Limits::default(),
        )
        .await;
    app.post(
        "/v2/tracking_requests",
        &key,
        "application/vnd.api+json",
        &crate::helpers::tracking_request_body("TEST-SCN-IMPORT", "bill_of_lading", "TEST"),
    )
    .await;
    app.tick_at(boxtrack_store::now_us()).await;
    let listed = app.get("/v2/containers", Some(&key)).await.json();
    let id = listed["data"][0]["id"].as_str().unwrap().to_string();
    let before = listed["data"][0]["attributes"]["current_status"].clone();
    let refresh = || {
        app.client
            .patch(app.url(&format!("/v2/containers/{id}/refresh")))
            .header("Authorization", format!("Token {key}"))
    };
    let r = app.send(refresh()).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let done = r.json();
    assert_eq!(done["message"], "Refreshed from Shipping line, Terminal");
    assert!(
        done["changes"].as_array().is_some_and(|c| !c.is_empty()),
        "{done}"
    );
    // the whole journey (about 25 days) has played: the box is back empty
    let after = app
        .get(&format!("/v2/containers/{id}"), Some(&key))
        .await
        .json();
    assert_ne!(after["data"]["attributes"]["current_status"], before);
    assert!(
        after["data"]["attributes"]["empty_terminated_at"].is_string(),
        "{after}"
    );
    // again: nothing more is due, and the answer is the same shape
    let again = app.send(refresh()).await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert_eq!(again.json()["changes"], serde_json::json!([]));
}
