use boxtrack_api::Limiter;
use boxtrack_app::ctx::Policy;
use serde_json::json;

use crate::helpers::{TestApp, assert_error, fresh_db};

const MT: &str = "application/vnd.api+json";

fn hook(url: &str, events: &[&str]) -> String {
    json!({"data": {"type": "webhook", "attributes": {"url": url, "events": events, "headers": {"X-Team": "ops"}}}}).to_string()
}

#[tokio::test]
async fn subscriptions_are_created_read_changed_and_deleted() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let (_, other) = app.account().await;
    let r = app
        .post(
            "/v2/webhooks",
            &key,
            MT,
            &hook(
                "https://hooks.example.com/boxtrack",
                &["container.updated", "tracking_request.succeeded"],
            ),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let w = r.json()["data"].clone();
    let secret = w["attributes"]["secret"].as_str().unwrap();
    assert!(secret.starts_with("whsec_") && secret.len() > 40);
    assert_eq!(w["attributes"]["active"], true);
    assert_eq!(
        w["attributes"]["headers"],
        json!([{"name": "X-Team", "value": "ops"}]),
        "headers are written as the reference writes them"
    );
    let id = w["id"].as_str().unwrap().to_string();

    // the secret is shown to the account, as the reference does (receivers need it)
    let shown = app
        .get(&format!("/v2/webhooks/{id}"), Some(&key))
        .await
        .json();
    assert_eq!(shown["data"]["attributes"]["secret"], secret);
    let listed = app.get("/v2/webhooks", Some(&key)).await.json();
    assert_eq!(listed["meta"]["total"], 1);
    assert_eq!(listed["data"][0]["attributes"]["secret"], secret);

    // as the reference: headers as a list of names and values, and no events is every event
    let r = app
        .post(
            "/v2/webhooks",
            &key,
            MT,
            &json!({"data": {"type": "webhook", "attributes": {"url": "https://all.example.com/hook", "active": true, "headers": [{"name": "X-Env", "value": "test"}]}}}).to_string(),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let all = r.json();
    assert_eq!(
        all["data"]["attributes"]["events"]
            .as_array()
            .unwrap()
            .len(),
        boxtrack_core::webhooks::EVENTS.len()
    );
    assert_eq!(
        all["data"]["attributes"]["headers"],
        json!([{"name": "X-Env", "value": "test"}])
    );
    let all_id = all["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(
        app.delete(&format!("/v2/webhooks/{all_id}"), &key)
            .await
            .status,
        200
    );

    // other accounts see nothing
    assert_error(
        &app.get(&format!("/v2/webhooks/{id}"), Some(&other)).await,
        404,
    );
    assert_error(
        &app.delete(&format!("/v2/webhooks/{id}"), &other).await,
        404,
    );

    let p = app.patch(&format!("/v2/webhooks/{id}"), &key, r#"{"data":{"type":"webhook","attributes":{"active":false,"events":["container.transport.full_out"]}}}"#).await;
    assert_eq!(p.status, 200, "{}", p.text);
    assert_eq!(p.json()["data"]["attributes"]["active"], false);
    assert_eq!(
        p.json()["data"]["attributes"]["events"],
        json!(["container.transport.full_out"])
    );
    let p = app
        .patch(
            &format!("/v2/webhooks/{id}"),
            &key,
            r#"{"data":{"attributes":{"active":true}}}"#,
        )
        .await;
    assert_eq!(p.json()["data"]["attributes"]["active"], true);

    let d = app.delete(&format!("/v2/webhooks/{id}"), &key).await;
    assert_eq!(d.status, 200);
    assert!(d.text.is_empty());
    assert_error(
        &app.get(&format!("/v2/webhooks/{id}"), Some(&key)).await,
        404,
    );
}

#[tokio::test]
async fn bad_subscriptions_are_422_and_write_nothing() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    for (body, pointer, needle) in [
        (hook("https://hooks.example.com", &["container.teleported"]), "/data/attributes/events", "container.teleported"),
        (hook("https://hooks.example.com", &[]), "/data/attributes/events", "at least one"),
        (hook("http://hooks.example.com", &["container.updated"]), "/data/attributes/url", "https"),
        (hook("https://127.0.0.1:8443/x", &["container.updated"]), "/data/attributes/url", "loopback"),
        (hook("https://10.0.0.7/x", &["container.updated"]), "/data/attributes/url", "private"),
        // IPv6 literals are refused whole: receivers are named
        (hook("https://[::1]/x", &["container.updated"]), "/data/attributes/url", "absolute https://"),
        (hook("https://localhost/x", &["container.updated"]), "/data/attributes/url", "loopback"),
        (
            json!({"data": {"type": "webhook", "attributes": {"url": "https://h.example.com", "events": ["container.updated"], "headers": {"Webhook-Signature": "x"}}}}).to_string(),
            "/data/attributes/headers",
            "cannot be overridden",
        ),
    ] {
        let r = app.post("/v2/webhooks", &key, MT, &body).await;
        let e = assert_error(&r, 422);
        assert_eq!(e["source"]["pointer"], pointer, "{body}");
        assert!(e["detail"].as_str().unwrap().contains(needle), "{}", e["detail"]);
    }
    assert_eq!(
        app.get("/v2/webhooks", Some(&key)).await.json()["meta"]["total"],
        0
    );

    // the catalog is grouped as the reference groups it, each event once, described
    let catalog = app.get("/v2/webhooks/events", Some(&key)).await.json();
    assert_eq!(catalog["meta"]["total"], 43);
    let mut names: Vec<String> = Vec::new();
    for c in catalog["data"].as_array().unwrap() {
        assert_eq!(c["type"], "webhook_event_category");
        for e in c["attributes"]["events"].as_array().unwrap() {
            assert!(!e["description"].as_str().unwrap().is_empty(), "{e}");
            names.push(e["name"].as_str().unwrap().to_string());
        }
    }
    names.sort();
    let mut all: Vec<String> = boxtrack_core::webhooks::EVENTS
        .iter()
        .map(|e| e.to_string())
        .collect();
    all.sort();
    assert_eq!(names, all);
}

#[tokio::test]
async fn the_operator_can_allow_local_receivers() {
    let (db, _database) = fresh_db().await;
    let config = Policy {
        allow_private_webhook_urls: true,
        ..Policy::default()
    };
    let app = TestApp::spawn_policy(db, Limiter::memory(), config).await;
    let (_, key) = app.account().await;
    let r = app
        .post(
            "/v2/webhooks",
            &key,
            MT,
            &hook("http://127.0.0.1:9999/hook", &["container.updated"]),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
}

#[tokio::test]
async fn the_event_log_can_be_read_in_order_from_any_sequence() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let (_, other) = app.account().await;
    let r = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &crate::helpers::tracking_request_body("TEST-SCN-IMPORT", "bill_of_lading", "TEST"),
        )
        .await;
    assert_eq!(r.status, 201);
    let start = boxtrack_store::now_us();
    app.tick_at(start).await;
    app.tick_at(start + 700 * 1_000_000).await;

    let all = app
        .get("/v2/events?page[size]=1000", Some(&key))
        .await
        .json();
    let seqs: Vec<i64> = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["attributes"]["sequence"].as_i64().unwrap())
        .collect();
    assert!(seqs.len() >= 20, "{}", seqs.len());
    // log entries, not deliveries: no delivery status that no webhook will ever change
    assert!(
        all["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["attributes"].get("delivery_status").is_none()),
        "{}",
        all["data"][0]
    );
    assert_eq!(
        seqs,
        (1..=seqs.len() as i64).collect::<Vec<_>>(),
        "gapless and ordered"
    );
    assert_eq!(all["data"][0]["attributes"]["event"], "container.created");
    // the same envelope as webhook deliveries: related resources are included
    let types: Vec<&str> = all["included"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["type"].as_str().unwrap())
        .collect();
    assert!(
        types.contains(&"container")
            && types.contains(&"shipment")
            && types.contains(&"transport_event"),
        "{types:?}"
    );

    // catch up page by page from a sequence, following links.next
    let mut seen = Vec::new();
    let mut url = format!("{}/v2/events?after=5&page[size]=7", app.base);
    loop {
        let page = app.get(&url, Some(&key)).await.json();
        let items = page["data"].as_array().unwrap();
        seen.extend(
            items
                .iter()
                .map(|e| e["attributes"]["sequence"].as_i64().unwrap()),
        );
        if page["meta"]["more"] != true {
            break;
        }
        url = page["links"]["next"].as_str().unwrap().to_string();
    }
    assert_eq!(seen, (6..=seqs.len() as i64).collect::<Vec<_>>());

    let only = app
        .get(
            "/v2/events?filter[event]=container.transport.vessel_departed&page[size]=1000",
            Some(&key),
        )
        .await
        .json();
    assert_eq!(only["data"].as_array().unwrap().len(), 1);
    assert_eq!(
        only["data"][0]["relationships"]["reference_object"]["data"]["type"],
        "transport_event"
    );
    assert_eq!(
        app.get("/v2/events", Some(&other)).await.json()["data"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    let e = assert_error(&app.get("/v2/events?after=-1", Some(&key)).await, 400);
    assert_eq!(e["source"]["parameter"], "after");
}

#[tokio::test]
async fn matching_events_become_notifications_in_the_same_transaction() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let hooked = app
        .post(
            "/v2/webhooks",
            &key,
            MT,
            &hook(
                "https://hooks.example.com/a",
                &[
                    "tracking_request.succeeded",
                    "container.transport.vessel_departed",
                ],
            ),
        )
        .await;
    let hook_id = hooked.json()["data"]["id"].as_str().unwrap().to_string();
    let paused = app
        .post(
            "/v2/webhooks",
            &key,
            MT,
            &hook(
                "https://hooks.example.com/b",
                &["tracking_request.succeeded"],
            ),
        )
        .await;
    let paused_id = paused.json()["data"]["id"].as_str().unwrap().to_string();
    app.patch(
        &format!("/v2/webhooks/{paused_id}"),
        &key,
        r#"{"data":{"attributes":{"active":false}}}"#,
    )
    .await;

    let r = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &crate::helpers::tracking_request_body("TEST-SCN-IMPORT", "bill_of_lading", "TEST"),
        )
        .await;
    assert_eq!(r.status, 201);
    let start = boxtrack_store::now_us();
    app.tick_at(start).await;
    app.tick_at(start + 100 * 1_000_000).await;

    let list = app
        .get("/v2/webhook_notifications", Some(&key))
        .await
        .json();
    let events: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["attributes"]["event"].as_str().unwrap())
        .collect();
    let mut sorted = events.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        vec![
            "container.transport.vessel_departed",
            "tracking_request.succeeded"
        ],
        "only subscribed events of active webhooks"
    );
    let n = &list["data"][0];
    assert_eq!(n["attributes"]["delivery_status"], "pending");
    assert_eq!(n["relationships"]["webhook"]["data"]["id"], hook_id);
    let one = notification(&app, &key, n).await;
    assert_eq!(one["data"]["id"], n["id"]);

    // each notification points at its event-log entry
    let log = boxtrack_store::events::after(&app.db, account.id, 0, 1000)
        .await
        .unwrap();
    let succeeded = log
        .iter()
        .find(|e| e.event == "tracking_request.succeeded")
        .unwrap();
    let tr = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["attributes"]["event"] == "tracking_request.succeeded")
        .unwrap();
    assert_eq!(tr["attributes"]["sequence"], succeeded.seq);
    assert_eq!(
        tr["relationships"]["reference_object"]["data"]["type"],
        "tracking_request"
    );

    let filtered = app
        .get(
            &format!("/v2/webhook_notifications?filter[webhook_id]={paused_id}"),
            Some(&key),
        )
        .await
        .json();
    assert_eq!(filtered["meta"]["total"], 0);
    assert_error(
        &app.get(
            "/v2/webhook_notifications?filter[delivery_status]=lost",
            Some(&key),
        )
        .await,
        400,
    );
}

/// What a test receiver recorded: each request's headers and body.
type Seen = std::sync::Arc<tokio::sync::Mutex<Vec<(axum::http::HeaderMap, Vec<u8>)>>>;

/// A receiver on port 0 that records every request (headers, body) and answers `status`.
async fn receiver(
    status: u16,
) -> (
    String,
    std::sync::Arc<tokio::sync::Mutex<Vec<(axum::http::HeaderMap, Vec<u8>)>>>,
) {
    use axum::routing::post;
    let seen: Seen = Default::default();
    let store = seen.clone();
    let app = axum::Router::new().route(
        "/hook",
        post(
            move |headers: axum::http::HeaderMap, body: axum::body::Bytes| {
                let store = store.clone();
                async move {
                    store.lock().await.push((headers, body.to_vec()));
                    // a refusal says why, as receivers do; a success says nothing
                    let why = if status >= 300 {
                        "refused by the test receiver"
                    } else {
                        ""
                    };
                    (axum::http::StatusCode::from_u16(status).unwrap(), why)
                }
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/hook"), seen)
}

#[tokio::test]
async fn the_test_trigger_sends_a_signed_sample_that_verifies_independently() {
    use hmac::{Hmac, Mac};
    let (db, _database) = fresh_db().await;
    let app = TestApp::spawn_policy(
        db,
        Limiter::memory(),
        Policy {
            allow_private_webhook_urls: true,
            ..Policy::default()
        },
    )
    .await;
    let (_, key) = app.account().await;
    let (url, seen) = receiver(204).await;
    let secret = boxtrack_core::webhooks::generate_secret();
    let body = json!({"url": url, "event": "container.transport.vessel_arrived", "secret": secret})
        .to_string();
    let r = app
        .post("/v2/webhooks/trigger", &key, "application/json", &body)
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let out = r.json();
    assert_eq!(out["succeeded"], true);
    assert_eq!(out["status_code"], 204);

    let got = seen.lock().await;
    assert_eq!(got.len(), 1);
    let (headers, raw) = &got[0];
    // hex HMAC-SHA256 of the exact body bytes, keyed with the whole secret string
    let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(raw);
    assert_eq!(
        headers["x-boxtrack-webhook-signature"].to_str().unwrap(),
        hex::encode(mac.finalize().into_bytes())
    );
    let doc: serde_json::Value = serde_json::from_slice(raw).unwrap();
    assert_eq!(doc["data"]["type"], "webhook_notification");
    assert_eq!(
        doc["data"]["attributes"]["event"],
        "container.transport.vessel_arrived"
    );
    assert_eq!(
        headers["webhook-id"].to_str().unwrap(),
        doc["data"]["id"].as_str().unwrap()
    );
    let ts: i64 = headers["webhook-timestamp"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let expected = boxtrack_core::webhooks::sign_standard(
        &secret,
        doc["data"]["id"].as_str().unwrap(),
        ts,
        raw,
    )
    .unwrap();
    assert_eq!(headers["webhook-signature"].to_str().unwrap(), expected);
    drop(got);

    // a failing receiver is reported, not hidden
    let (bad_url, _) = receiver(500).await;
    let r = app
        .post(
            "/v2/webhooks/trigger",
            &key,
            "application/json",
            &json!({"url": bad_url, "event": "container.updated"}).to_string(),
        )
        .await;
    let out = r.json();
    assert_eq!(out["succeeded"], false);
    assert_eq!(out["status_code"], 500);
    assert!(
        out["request_headers"]
            .get("X-Boxtrack-Webhook-Signature")
            .is_none(),
        "unsigned without a secret"
    );
}

#[tokio::test]
async fn the_trigger_refuses_internal_addresses_by_default() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let (url, seen) = receiver(200).await;
    let r = app
        .post(
            "/v2/webhooks/trigger",
            &key,
            "application/json",
            &json!({"url": url, "event": "container.updated"}).to_string(),
        )
        .await;
    assert_error(&r, 422);
    let https_loopback = url.replace("http://", "https://");
    let r = app
        .post(
            "/v2/webhooks/trigger",
            &key,
            "application/json",
            &json!({"url": https_loopback, "event": "container.updated"}).to_string(),
        )
        .await;
    assert_error(&r, 422);
    // a host name that resolves to a loopback address is refused when resolved, before
    // anything is sent: the machine's own name resolves to 127.0.0.1 on the project's machines
    let own = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap_or_default()
        .trim()
        .to_string();
    let resolved: Vec<std::net::SocketAddr> = tokio::net::lookup_host((own.as_str(), 443))
        .await
        .map(|a| a.collect())
        .unwrap_or_default();
    assert!(
        !resolved.is_empty() && resolved.iter().all(|a| a.ip().is_loopback()),
        "{own} should resolve to loopback here: {resolved:?}"
    );
    let sent = boxtrack_worker::delivery::send(
        &boxtrack_worker::delivery::client(std::time::Duration::from_secs(5)),
        &boxtrack_worker::delivery::Outgoing {
            url: &format!("https://{own}/hook"),
            body: b"{}",
            id: "x",
            secret: None,
            headers: &Default::default(),
            signature_header: boxtrack_worker::delivery::SIGNATURE_HEADER,
        },
        false,
    )
    .await;
    assert!(!sent.succeeded);
    assert!(
        sent.error.as_deref().unwrap().contains("internal address"),
        "{:?}",
        sent.error
    );
    assert_eq!(sent.status_code, None, "nothing was sent");
    let unknown = app
        .post(
            "/v2/webhooks/trigger",
            &key,
            "application/json",
            &json!({"url": "https://hooks.example.com", "event": "nope"}).to_string(),
        )
        .await;
    assert_eq!(assert_error(&unknown, 422)["source"]["pointer"], "/event");
    assert!(seen.lock().await.is_empty());
}

async fn subscribed_app(
    events: &[&str],
    status: u16,
) -> (TestApp, String, Seen, String, boxtrack_store::Db) {
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
    let (_, key) = app.account().await;
    let (url, seen) = receiver(status).await;
    let r = app
        .post("/v2/webhooks", &key, MT, &hook(&url, events))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let secret = r.json()["data"]["attributes"]["secret"]
        .as_str()
        .unwrap()
        .to_string();
    (app, key, seen, secret, db)
}

/// `GET /v2/webhook_notifications/{id}` of a notification as a list returned it.
async fn notification(app: &TestApp, key: &str, listed: &serde_json::Value) -> serde_json::Value {
    app.get(
        &format!(
            "/v2/webhook_notifications/{}",
            listed["id"].as_str().unwrap()
        ),
        Some(key),
    )
    .await
    .json()
}

fn deliverer(
    db: &boxtrack_store::Db,
    deactivate_after: i64,
) -> boxtrack_worker::delivery::Deliverer {
    boxtrack_worker::delivery::Deliverer::new(
        db.clone(),
        std::time::Duration::from_secs(5),
        true,
        deactivate_after,
    )
}

#[tokio::test]
async fn notifications_are_delivered_signed_with_their_resources() {
    use hmac::{Hmac, Mac};
    let (app, key, seen, secret, db) =
        subscribed_app(&["tracking_request.succeeded", "container.updated"], 200).await;
    app.post(
        "/v2/tracking_requests",
        &key,
        MT,
        &crate::helpers::tracking_request_body("TEST-SCN-HOLDS", "bill_of_lading", "TEST"),
    )
    .await;
    let start = boxtrack_store::now_us();
    app.tick_at(start).await;
    app.tick_at(start + 520 * 1_000_000).await;
    let made = deliverer(&db, 100)
        .deliver_due(boxtrack_store::now_us())
        .await
        .unwrap();
    assert!(made >= 2, "{made}");
    let got = seen.lock().await;
    assert_eq!(got.len(), made);
    for (headers, raw) in got.iter() {
        let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(raw);
        assert_eq!(
            headers["x-boxtrack-webhook-signature"].to_str().unwrap(),
            hex::encode(mac.finalize().into_bytes())
        );
        assert_eq!(headers["x-team"], "ops", "subscriber headers are sent");
    }
    let docs: Vec<serde_json::Value> = got
        .iter()
        .map(|(_, b)| serde_json::from_slice(b).unwrap())
        .collect();
    // every delivered body is what the served document says a delivery is
    for d in &docs {
        crate::conformance::check_component("WebhookEnvelope", d);
    }
    let succeeded = docs
        .iter()
        .find(|d| d["data"]["attributes"]["event"] == "tracking_request.succeeded")
        .unwrap();
    let types: Vec<&str> = succeeded["included"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["type"].as_str().unwrap())
        .collect();
    assert!(
        types.contains(&"tracking_request") && types.contains(&"shipment"),
        "{types:?}"
    );
    let updated = docs
        .iter()
        .find(|d| d["data"]["attributes"]["event"] == "container.updated")
        .unwrap();
    assert_eq!(
        updated["data"]["relationships"]["reference_object"]["data"]["type"],
        "container_updated_event"
    );
    let change = updated["included"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == "container_updated_event")
        .unwrap();
    assert!(change["attributes"]["changeset"].is_object(), "{change}");
    drop(got);

    let list = app
        .get(
            "/v2/webhook_notifications?filter[delivery_status]=succeeded",
            Some(&key),
        )
        .await
        .json();
    assert_eq!(list["meta"]["total"].as_u64().unwrap() as usize, made);
    let one = notification(&app, &key, &list["data"][0]).await;
    assert_eq!(
        one["data"]["attributes"]["delivery_attempts"][0]["status_code"],
        200
    );
    assert!(one["data"]["attributes"]["delivery_attempts"][0]["response_body"].is_null());
    // nothing is sent twice
    assert_eq!(
        deliverer(&db, 100)
            .deliver_due(boxtrack_store::now_us())
            .await
            .unwrap(),
        0
    );
}

#[tokio::test]
async fn failures_retry_twelve_times_with_the_same_id_then_fail_and_deactivate() {
    let (app, key, seen, _, db) = subscribed_app(&["tracking_request.failed"], 500).await;
    app.post(
        "/v2/tracking_requests",
        &key,
        MT,
        &crate::helpers::tracking_request_body("TEST-TR-FAILED", "bill_of_lading", "TEST"),
    )
    .await;
    app.process().await;
    let d = deliverer(&db, 13).with_schedule(vec![
        5, 30, 120, 300, 900, 1800, 3600, 7200, 18000, 36000, 50400, 72000,
    ]);
    let mut now = boxtrack_store::now_us();
    for _ in 0..30 {
        d.deliver_due(now).await.unwrap();
        now += 25 * 3_600_000_000; // past any retry delay
    }
    let got = seen.lock().await;
    assert_eq!(got.len(), 13, "one attempt and 12 retries");
    let ids: std::collections::BTreeSet<&str> = got
        .iter()
        .map(|(h, _)| h["webhook-id"].to_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 1, "the same id on every retry");
    let bodies: std::collections::BTreeSet<&Vec<u8>> = got.iter().map(|(_, b)| b).collect();
    assert_eq!(bodies.len(), 1, "the same bytes on every retry");
    drop(got);
    let n = app
        .get("/v2/webhook_notifications", Some(&key))
        .await
        .json();
    assert_eq!(n["data"][0]["attributes"]["delivery_status"], "failed");
    assert_eq!(n["data"][0]["attributes"]["attempts"], 13);
    assert_eq!(n["data"][0]["attributes"]["last_status_code"], 500);
    // every attempt listed once, oldest first (the latest is kept in the notification's row,
    // the earlier ones in attempt rows)
    let one = notification(&app, &key, &n["data"][0]).await;
    let attempts = one["data"]["attributes"]["delivery_attempts"]
        .as_array()
        .unwrap();
    assert_eq!(attempts.len(), 13, "{attempts:?}");
    assert!(attempts.iter().all(|a| a["status_code"] == 500));
    assert!(
        attempts
            .iter()
            .all(|a| a["response_body"] == "refused by the test receiver"),
        "each attempt keeps what the receiver answered: {attempts:?}"
    );
    let times: Vec<&str> = attempts
        .iter()
        .map(|a| a["attempted_at"].as_str().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
    let hooks = app.get("/v2/webhooks", Some(&key)).await.json();
    assert_eq!(hooks["data"][0]["attributes"]["active"], false);
    assert_eq!(
        hooks["data"][0]["attributes"]["deactivated_reason"],
        "repeated_delivery_failures"
    );
}

#[tokio::test]
async fn examples_and_source_addresses() {
    let (db, _database) = fresh_db().await;
    let app = TestApp::spawn_policy(
        db,
        Limiter::memory(),
        Policy {
            webhook_source_ips: vec!["203.0.113.7".into()],
            ..Policy::default()
        },
    )
    .await;
    let (_, key) = app.account().await;
    let ips = app.get("/v2/webhooks/ips", Some(&key)).await.json();
    assert_eq!(ips["webhook_notification_ips"], json!(["203.0.113.7"]));
    assert!(ips["last_updated"].is_string());
    let one = app
        .get(
            "/v2/webhook_notifications/examples?event=container.updated",
            Some(&key),
        )
        .await
        .json();
    assert_eq!(one["data"].as_array().unwrap().len(), 1);
    assert_eq!(one["data"][0]["attributes"]["event"], "container.updated");
    let all = app
        .get("/v2/webhook_notifications/examples", Some(&key))
        .await
        .json();
    // every event some journey produces has its example; document extraction does not happen
    let events: Vec<&str> = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["attributes"]["event"].as_str().unwrap())
        .collect();
    let missing: Vec<&&str> = boxtrack_core::webhooks::EVENTS
        .iter()
        .filter(|e| !events.contains(e))
        .collect();
    assert_eq!(
        missing,
        vec![&"document.extracted", &"document.extraction_failed"],
        "{events:?}"
    );
    assert_eq!(all["meta"]["total"], events.len());
    let e = assert_error(
        &app.get("/v2/webhook_notifications/examples?event=nope", Some(&key))
            .await,
        400,
    );
    assert_eq!(e["source"]["parameter"], "event");
}

#[tokio::test]
async fn events_can_be_replayed_to_a_webhook() {
    let (app, key, seen, _, db) =
        subscribed_app(&["tracking_request.succeeded", "container.created"], 200).await;
    app.post(
        "/v2/tracking_requests",
        &key,
        MT,
        &crate::helpers::tracking_request_body("TEST-TR-SUCCEEDED", "bill_of_lading", "TEST"),
    )
    .await;
    app.process().await;
    let d = deliverer(&db, 100);
    assert_eq!(d.deliver_due(boxtrack_store::now_us()).await.unwrap(), 2);
    let hook_id = app.get("/v2/webhooks", Some(&key)).await.json()["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = app
        .post(
            &format!("/v2/webhooks/{hook_id}/replay"),
            &key,
            "application/json",
            r#"{"since": 0}"#,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json()["replayed"], 2);
    assert_eq!(d.deliver_due(boxtrack_store::now_us()).await.unwrap(), 2);
    let got = seen.lock().await;
    assert_eq!(got.len(), 4);
    let ids: std::collections::BTreeSet<&str> = got
        .iter()
        .map(|(h, _)| h["webhook-id"].to_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 4, "replays are new notifications");
    drop(got);
    let listed = app
        .get("/v2/webhook_notifications", Some(&key))
        .await
        .json();
    let replays = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["attributes"]["replay_of"].is_string())
        .count();
    assert_eq!(replays, 2);
    let r = app
        .post(
            &format!("/v2/webhooks/{hook_id}/replay"),
            &key,
            "application/json",
            r#"{"since": "2999-01-01T00:00:00Z"}"#,
        )
        .await;
    assert_eq!(r.json()["replayed"], 0);
    assert_error(
        &app.post(
            &format!("/v2/webhooks/{hook_id}/replay"),
            &key,
            "application/json",
            r#"{"since": "soon"}"#,
        )
        .await,
        422,
    );
}

#[test]
fn delivery_outcomes_are_counted_in_metrics() {
    let m = boxtrack_http::Metrics::default();
    m.record_deliveries("succeeded", 3);
    m.record_deliveries("retrying", 1);
    m.record_deactivation();
    let text = m.render();
    assert!(
        text.contains("boxtrack_webhook_deliveries_total{outcome=\"succeeded\"} 3"),
        "{text}"
    );
    assert!(text.contains("boxtrack_webhook_deliveries_total{outcome=\"retrying\"} 1"));
    assert!(text.contains("boxtrack_webhooks_deactivated_total 1"));
}

#[tokio::test]
async fn the_signature_header_name_is_configurable() {
    let (db, _database) = fresh_db().await;
    let config = Policy {
        allow_private_webhook_urls: true,
        webhook_signature_header: "X-T49-Webhook-Signature".into(),
        ..Policy::default()
    };
    let app = TestApp::spawn_policy(db, Limiter::memory(), config).await;
    let (_, key) = app.account().await;
    let (url, seen) = receiver(200).await;
    let r = app
        .post(
            "/v2/webhooks/trigger",
            &key,
            "application/json",
            &json!({"url": url, "event": "container.updated", "secret": "s3cret"}).to_string(),
        )
        .await;
    assert_eq!(r.json()["succeeded"], true, "{}", r.text);
    let got = seen.lock().await;
    let (headers, raw) = &got[0];
    assert_eq!(
        headers["x-t49-webhook-signature"].to_str().unwrap(),
        boxtrack_core::webhooks::sign_hex("s3cret", raw)
    );
    assert!(headers.get("x-boxtrack-webhook-signature").is_none());
}

/// A backlog several times the claim batch and larger than the in-flight window, for two
/// webhooks of which one fails: the lane claims, stores, sends and records it over many
/// cycles, every notification is attempted exactly once, and the states add up.
#[tokio::test]
async fn a_backlog_larger_than_the_window_is_attempted_once_each() {
    let (app, key, seen_ok, _, db) = subscribed_app(&["tracking_request.succeeded"], 200).await;
    let (bad_url, seen_bad) = receiver(503).await;
    let r = app
        .post(
            "/v2/webhooks",
            &key,
            MT,
            &hook(&bad_url, &["tracking_request.succeeded"]),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    const EVENTS: usize = 700;
    let tr_id = succeeded_events(&app, &key, &db, EVENTS).await;

    // the failures' first retry an hour on, longer than any pass: on a loaded machine (or a
    // Citus cluster) a pass can outlast the default schedule's 5 s, and retry them within it
    let made = deliverer(&db, 1_000_000)
        .with_schedule(vec![3600])
        .deliver_due(boxtrack_store::now_us())
        .await
        .unwrap();
    assert_eq!(made, 2 * EVENTS);
    let ids = |seen: &[(axum::http::HeaderMap, Vec<u8>)]| {
        seen.iter()
            .map(|(h, _)| h["webhook-id"].to_str().unwrap().to_string())
            .collect::<std::collections::BTreeSet<_>>()
    };
    let ok = seen_ok.lock().await;
    let bad = seen_bad.lock().await;
    assert_eq!((ok.len(), bad.len()), (EVENTS, EVENTS), "one attempt each");
    assert_eq!((ids(&ok).len(), ids(&bad).len()), (EVENTS, EVENTS));
    for (h, body) in ok.iter().take(3) {
        let doc: serde_json::Value = serde_json::from_slice(body).unwrap();
        assert_eq!(doc["data"]["id"], h["webhook-id"].to_str().unwrap());
        assert_eq!(doc["included"][0]["id"], tr_id.to_string());
    }
    drop((ok, bad));
    let total = |status: &'static str| {
        let app = &app;
        let key = &key;
        async move {
            app.get(
                &format!("/v2/webhook_notifications?filter[delivery_status]={status}&page[size]=1"),
                Some(key),
            )
            .await
            .json()["meta"]["total"]
                .as_u64()
                .unwrap() as usize
        }
    };
    assert_eq!(total("succeeded").await, EVENTS);
    assert_eq!(
        total("pending").await,
        EVENTS,
        "the failures wait for their retry"
    );
    assert_eq!(
        deliverer(&db, 1_000_000)
            .with_schedule(vec![3600])
            .deliver_due(boxtrack_store::now_us())
            .await
            .unwrap(),
        0,
        "nothing is due again before the retry delay"
    );
}

/// On PostgreSQL several workers deliver from one outbox: two deliverers running at once over
/// a backlog of several claim batches share it through their leases, and every notification
/// is sent once, by one of them. (On SQLite one process delivers.)
#[tokio::test]
async fn workers_on_postgres_share_a_backlog_and_send_each_notification_once() {
    let (app, key, seen, _, db) = subscribed_app(&["tracking_request.succeeded"], 200).await;
    if db.backend() != boxtrack_store::Backend::Postgres {
        return;
    }
    const EVENTS: usize = 1500;
    succeeded_events(&app, &key, &db, EVENTS).await;
    let now = boxtrack_store::now_us();
    let (a, b) = (deliverer(&db, 1_000_000), deliverer(&db, 1_000_000));
    let (made_a, made_b) = tokio::join!(
        tokio::spawn(async move { a.deliver_due(now).await.unwrap() }),
        tokio::spawn(async move { b.deliver_due(now).await.unwrap() })
    );
    let (made_a, made_b) = (made_a.unwrap(), made_b.unwrap());
    assert_eq!(made_a + made_b, EVENTS, "{made_a} + {made_b}");
    let seen = seen.lock().await;
    let ids: std::collections::BTreeSet<_> = seen
        .iter()
        .map(|(h, _)| h["webhook-id"].to_str().unwrap().to_string())
        .collect();
    assert_eq!((seen.len(), ids.len()), (EVENTS, EVENTS), "each sent once");
}

/// Creates a tracking request and appends `n` `tracking_request.succeeded` events about it to
/// the only account's log in one transaction (a notification for every subscribed webhook
/// comes with each). Returns the tracking request's id.
async fn succeeded_events(
    app: &TestApp,
    key: &str,
    db: &boxtrack_store::Db,
    n: usize,
) -> uuid::Uuid {
    let tr = app
        .post(
            "/v2/tracking_requests",
            key,
            MT,
            &crate::helpers::tracking_request_body("TEST-TR-SUCCEEDED", "bill_of_lading", "TEST"),
        )
        .await
        .json();
    let tr_id = uuid::Uuid::parse_str(tr["data"]["id"].as_str().unwrap()).unwrap();
    append_succeeded(db, tr_id, n).await;
    tr_id
}

/// Appends `n` `tracking_request.succeeded` events about `tr_id` to the webhooks' account.
pub(crate) async fn append_succeeded(db: &boxtrack_store::Db, tr_id: uuid::Uuid, n: usize) {
    let account_id: uuid::Uuid = boxtrack_store::on_db!(db, p => sqlx::query_scalar("SELECT account_id FROM webhooks LIMIT 1").fetch_one(p).await.unwrap());
    let entries: Vec<boxtrack_store::events::NewEvent> = (0..n)
        .map(|_| boxtrack_store::events::NewEvent {
            event: "tracking_request.succeeded".into(),
            object_type: "tracking_request",
            object_id: tr_id,
            payload: json!({"tracking_request_id": tr_id}),
        })
        .collect();
    let mut tx = db.begin().await.unwrap();
    boxtrack_store::events::append_many(&mut tx, account_id, &entries, boxtrack_store::now_us())
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

/// A receiver that holds every request for `hold` before answering 204, counting requests.
async fn slow_receiver(
    hold: std::time::Duration,
) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let c = count.clone();
    let app = axum::Router::new().route(
        "/slow",
        axum::routing::post(move || {
            let c = c.clone();
            async move {
                tokio::time::sleep(hold).await;
                c.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/slow", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, count)
}

/// A slow receiver cannot starve the others: the fast webhook's notifications all go out at
/// once, while the slow one's beyond what its slots can take within the slot wait go back to
/// the database unattempted and come back when due, until each was attempted exactly once.
#[tokio::test]
async fn a_slow_receiver_gives_its_backlog_back_instead_of_starving_others() {
    let (app, key, seen_fast, _, db) = subscribed_app(&["tracking_request.succeeded"], 200).await;
    // every request to it outlasts the slot wait, so whatever waits for a slot is given back
    let (slow_url, slow_count) = slow_receiver(std::time::Duration::from_millis(800)).await;
    let r = app
        .post(
            "/v2/webhooks",
            &key,
            MT,
            &hook(&slow_url, &["tracking_request.succeeded"]),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let slow_id = r.json()["data"]["id"].as_str().unwrap().to_string();
    const EVENTS: usize = 12;
    succeeded_events(&app, &key, &db, EVENTS).await;

    let now = boxtrack_store::now_us();
    let made = deliverer(&db, 1_000_000)
        .with_slot_wait(std::time::Duration::from_millis(300))
        .deliver_due(now)
        .await
        .unwrap();
    assert_eq!(
        seen_fast.lock().await.len(),
        EVENTS,
        "the fast webhook got all of its"
    );
    assert_eq!(
        slow_count.load(std::sync::atomic::Ordering::SeqCst),
        EVENTS,
        "the slow one all of its, as its slots freed"
    );
    assert_eq!(
        made,
        2 * EVENTS,
        "given-back notifications are not attempts"
    );
    let slow = app
        .get(
            &format!("/v2/webhook_notifications?filter[webhook_id]={slow_id}&page[size]=100"),
            Some(&key),
        )
        .await
        .json();
    let slow = slow["data"].as_array().unwrap();
    assert_eq!(slow.len(), EVENTS);
    assert!(
        slow.iter().all(|n| n["attributes"]["attempts"] == 1
            && n["attributes"]["delivery_status"] == "succeeded"),
        "each attempted once: {slow:?}"
    );
    assert_eq!(
        deliverer(&db, 1_000_000).deliver_due(now).await.unwrap(),
        0,
        "nothing left"
    );
}

/// A request that does not get through (here the receiver's first connection is closed
/// before it answers, as a receiver closing an idle kept-alive connection does) is sent again
/// at once on a new connection, not after the first retry delay, and counts as one attempt.
#[tokio::test]
async fn a_dropped_connection_is_retried_at_once_on_a_new_one() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (app, key, _, _, db) = subscribed_app(&["tracking_request.succeeded"], 200).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/flaky", listener.local_addr().unwrap());
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let a = answered.clone();
    tokio::spawn(async move {
        let mut first = true;
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let mut buf = vec![0u8; 65536];
            let _ = sock.read(&mut buf).await;
            if first {
                // closed without an answer
                first = false;
                drop(sock);
                continue;
            }
            a.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let _ = sock
                .write_all(
                    b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                )
                .await;
        }
    });
    let r = app
        .post(
            "/v2/webhooks",
            &key,
            MT,
            &hook(&url, &["tracking_request.succeeded"]),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let flaky_id = r.json()["data"]["id"].as_str().unwrap().to_string();
    succeeded_events(&app, &key, &db, 1).await;
    deliverer(&db, 1_000_000)
        .deliver_due(boxtrack_store::now_us())
        .await
        .unwrap();
    assert_eq!(answered.load(std::sync::atomic::Ordering::SeqCst), 1);
    let listed = app
        .get(
            &format!("/v2/webhook_notifications?filter[webhook_id]={flaky_id}"),
            Some(&key),
        )
        .await
        .json();
    let n = &listed["data"][0]["attributes"];
    assert_eq!(n["delivery_status"], "succeeded", "{n}");
    assert_eq!(n["attempts"], 1, "{n}");
}

/// A receiver that holds every request until `release` is notified, counting arrivals.
async fn gated_receiver() -> (
    String,
    std::sync::Arc<std::sync::atomic::AtomicUsize>,
    std::sync::Arc<tokio::sync::Notify>,
) {
    let arrived = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let release = std::sync::Arc::new(tokio::sync::Notify::new());
    let (a, r) = (arrived.clone(), release.clone());
    let app = axum::Router::new().route(
        "/gated",
        axum::routing::post(move || {
            let (a, r) = (a.clone(), r.clone());
            async move {
                a.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                r.notified().await;
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/gated", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, arrived, release)
}

/// One receiver that does not answer does not hold up the others' new notifications: while a
/// run waits for it, what falls due meanwhile is claimed and delivered in the same run (issue
/// 25, target 5), and nothing is delivered twice.
#[tokio::test]
async fn notifications_that_fall_due_while_a_receiver_hangs_go_out_at_once() {
    let (app, key, seen_fast, _, db) = subscribed_app(&["tracking_request.succeeded"], 200).await;
    let (gated_url, gated_arrived, release) = gated_receiver().await;
    let r = app
        .post(
            "/v2/webhooks",
            &key,
            MT,
            &hook(&gated_url, &["tracking_request.succeeded"]),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let tr_id = succeeded_events(&app, &key, &db, 3).await;

    // a run that cannot end before the gated receiver answers (no timeout, no slot wait)
    let run = {
        let d = boxtrack_worker::delivery::Deliverer::new(
            db.clone(),
            std::time::Duration::from_secs(300),
            true,
            1_000_000,
        )
        .with_slot_wait(std::time::Duration::from_secs(300));
        tokio::spawn(async move { d.deliver_due(boxtrack_store::now_us()).await })
    };
    let mut waited = 0;
    while gated_arrived.load(std::sync::atomic::Ordering::SeqCst) == 0 {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        waited += 1;
        assert!(waited < 600, "the gated receiver never got a request");
    }
    let seen = seen_fast.clone();
    let mut waited = 0;
    while seen.lock().await.len() < 3 {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        waited += 1;
        assert!(waited < 600, "the first three never arrived");
    }

    // new events while the run is held up
    append_succeeded(&db, tr_id, 2).await;
    let mut waited = 0;
    while seen.lock().await.len() < 5 {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        waited += 1;
        assert!(waited < 600, "the new ones never arrived");
    }
    assert!(!run.is_finished(), "delivered by the run still held up");

    // the gated receiver answers; the run ends having attempted each notification once
    release.notify_waiters();
    let mut made = None;
    for _ in 0..600 {
        if run.is_finished() {
            made = Some(run.await.unwrap().unwrap());
            break;
        }
        release.notify_waiters();
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let made = made.expect("the run ended");
    assert_eq!(seen_fast.lock().await.len(), 5, "nothing twice");
    let gated = gated_arrived.load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(made, 5 + gated, "each attempt once");
    assert!(gated <= 5);
}

/// The shape of an envelope: what it is about, and per included type the attributes and
/// relationships it carries (values differ between two journeys; the shape may not).
type Shape = (
    serde_json::Value,
    std::collections::BTreeMap<String, (Vec<String>, Vec<String>)>,
);

fn envelope_shape(env: &serde_json::Value) -> Shape {
    let keys = |v: &serde_json::Value| -> Vec<String> {
        let mut k: Vec<String> = v
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        k.sort();
        k
    };
    let about = env["data"]["relationships"]["reference_object"]["data"]["type"].clone();
    let mut included = std::collections::BTreeMap::new();
    for i in env["included"].as_array().unwrap() {
        let mut attributes = keys(&i["attributes"]);
        if i["type"] == "terminal" {
            // optional members a terminal has only where a public source gives them
            // (crates/core/data/README.md): the example's terminal is not the live one
            attributes.retain(|k| {
                !["smdg_code", "bic_facility_code", "street", "zip"].contains(&k.as_str())
            });
        }
        included.insert(
            i["type"].as_str().unwrap().to_string(),
            (attributes, keys(&i["relationships"])),
        );
    }
    (about, included)
}

/// An example is what a live delivery of the same event carries: the same object, the same
/// included types, each with the same attributes and relationships.
#[tokio::test]
async fn examples_have_the_shape_of_live_deliveries() {
    let (app, key, seen, _, db) = subscribed_app(&boxtrack_core::webhooks::EVENTS, 200).await;
    app.post(
        "/v2/tracking_requests",
        &key,
        MT,
        &crate::helpers::tracking_request_body("TEST-SCN-HOLDS", "bill_of_lading", "TEST"),
    )
    .await;
    let start = boxtrack_store::now_us();
    app.process_at(start).await;
    for h in [0, 24, 48, 60, 480, 494, 520, 600, 700] {
        app.tick_at(start + h * 1_000_000).await;
    }
    let d = deliverer(&db, 100);
    while d.deliver_due(boxtrack_store::now_us()).await.unwrap() > 0 {}
    let got = seen.lock().await;
    let mut compared = std::collections::BTreeSet::new();
    for (_, body) in got.iter() {
        let live: serde_json::Value = serde_json::from_slice(body).unwrap();
        let event = live["data"]["attributes"]["event"]
            .as_str()
            .unwrap()
            .to_string();
        if !compared.insert(event.clone()) {
            continue;
        }
        let examples = app
            .get(
                &format!("/v2/webhook_notifications/examples?event={event}"),
                Some(&key),
            )
            .await
            .json();
        let example = json!({
            "data": examples["data"][0],
            "included": examples["included"],
        });
        let (live_about, live_included) = envelope_shape(&live);
        let (example_about, example_included) = envelope_shape(&example);
        assert_eq!(live_about, example_about, "{event}");
        // a shipment's ETA or a succeeded request may include more containers or events in
        // the examples (other journeys), never other kinds or other fields
        assert_eq!(
            live_included.keys().collect::<Vec<_>>(),
            example_included.keys().collect::<Vec<_>>(),
            "{event}"
        );
        for (kind, shape) in &live_included {
            assert_eq!(Some(shape), example_included.get(kind), "{event}: {kind}");
        }
    }
    for event in [
        "tracking_request.succeeded",
        "container.transport.vessel_arrived",
        "shipment.estimated.arrival",
        "container.updated",
    ] {
        assert!(compared.contains(event), "{event} in {compared:?}");
    }
}
