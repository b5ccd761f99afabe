//! The isolation matrix: account A holds data of every kind; account B calls every operation
//! of the served document with A's ids, every list and search with A's ids and numbers as
//! filters, and every MCP tool and resource: nothing of A is found, shown or changed.
//! The operations come from the served document, so a new endpoint cannot skip the matrix:
//! one this test does not know how to call fails it.

use std::collections::{BTreeMap, BTreeSet};

use boxtrack_api::Limiter;
use boxtrack_app::ctx::Policy;
use boxtrack_core::plan::{Entitlement, Plan};
use boxtrack_core::ratelimit::{Bucket, Limits};
use serde_json::{Value, json};

use crate::helpers::{Resp, TestApp, fresh_db};

const MT: &str = "application/vnd.api+json";

/// Operations that hold no account's data: reference data, documentation and health.
fn shared(method: &str, path: &str) -> bool {
    let reference = [
        "/v2/shipping_lines",
        "/v2/shipping_lines/{id}",
        "/v2/ports/{id}",
        "/v2/terminals/{id}",
        "/v2/metro_areas/{id}",
        "/v2/document_schemas/{id}",
        "/v2/documents/types",
        "/v2/webhooks/events",
        "/v2/webhooks/ips",
        "/v2/webhook_notifications/examples",
        "/v2/sandbox/scenarios",
        "/v2/sources",
        "/v2/openapi.json",
    ];
    (method == "get" && reference.contains(&path))
        || ["/docs", "/healthz", "/readyz", "/metrics"].contains(&path)
}

/// A's data, by the kind of id a path parameter names.
struct Victim {
    key: String,
    ids: BTreeMap<&'static str, String>,
    /// Strings only A's data holds: its numbers, names, URLs, slugs, file names.
    markers: Vec<String>,
}

async fn populate(app: &TestApp, key: &str) -> Victim {
    let mut ids = BTreeMap::new();
    let mut markers = Vec::new();
    let id_of = |r: &Resp| r.json()["data"]["id"].as_str().unwrap().to_string();

    // a webhook first, so the tracking below makes notifications for it
    let hook_url = "http://127.0.0.1:9/victim-hook-a8f3";
    let r = app
        .post(
            "/v2/webhooks",
            key,
            MT,
            &json!({"data": {"type": "webhook", "attributes": {"url": hook_url}}}).to_string(),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    ids.insert("webhook", id_of(&r));
    markers.push(hook_url.to_string());

    let customer = app
        .post(
            "/v2/parties",
            key,
            MT,
            &json!({"data": {"type": "party", "attributes": {"company_name": "Victim Importers 7731"}}})
                .to_string(),
        )
        .await;
    assert_eq!(customer.status, 201, "{}", customer.text);
    ids.insert("party", id_of(&customer));
    markers.push("Victim Importers 7731".into());

    let tr = app.track_sandbox(key, "TEST-SCN-IMPORT").await;
    ids.insert(
        "tracking_request",
        tr["data"]["id"].as_str().unwrap().into(),
    );
    let shipment = app.get("/v2/shipments", Some(key)).await.json()["data"][0].clone();
    ids.insert("shipment", shipment["id"].as_str().unwrap().into());
    markers.push(
        shipment["attributes"]["bill_of_lading_number"]
            .as_str()
            .unwrap()
            .into(),
    );
    let container = app.get("/v2/containers", Some(key)).await.json()["data"][0].clone();
    ids.insert("container", container["id"].as_str().unwrap().into());
    let number = container["attributes"]["number"]
        .as_str()
        .unwrap()
        .to_string();
    markers.push(number.clone());

    // custom fields: a definition with an option, a value on the shipment
    let def = app
        .post(
            "/v2/custom_field_definitions",
            key,
            MT,
            &json!({"data": {"type": "custom_field_definition", "attributes": {
                "entity_type": "Shipment", "api_slug": "victim_band", "display_name": "Victim band",
                "data_type": "enum"}}})
            .to_string(),
        )
        .await;
    assert_eq!(def.status, 201, "{}", def.text);
    ids.insert("custom_field_definition", id_of(&def));
    markers.push("victim_band".into());
    let option = app
        .post(
            &format!("/v2/custom_field_definitions/{}/options", id_of(&def)),
            key,
            MT,
            &json!({"data": {"type": "custom_field_option", "attributes": {"label": "Victim cold 9", "value": "victim-cold-9", "position": 1}}})
                .to_string(),
        )
        .await;
    assert_eq!(option.status, 201, "{}", option.text);
    ids.insert("custom_field_option", id_of(&option));
    markers.push("victim-cold-9".into());
    let field = app
        .post(
            &format!("/v2/shipments/{}/custom_fields", ids["shipment"]),
            key,
            MT,
            &json!({"data": {"type": "custom_field", "attributes": {"api_slug": "victim_band", "value": "victim-cold-9"}}})
                .to_string(),
        )
        .await;
    assert_eq!(field.status, 201, "{}", field.text);
    ids.insert("custom_field", id_of(&field));

    // a document by e-mail (the submission and its attachment)
    let message = format!(
        "From: Victim Ops <ops@victim.example>\r\nTo: docs@boxtrack.example\r\nSubject: AN {number}\r\n\
Message-ID: <victim-1@victim.example>\r\nMIME-Version: 1.0\r\n\
Content-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n--b1\r\nContent-Type: text/plain\r\n\r\nattached\r\n\
--b1\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; filename=\"victim-notice-5521.pdf\"\r\n\
Content-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQKJSBhcnJpdmFsIG5vdGljZQolJUVPRgo=\r\n--b1--\r\n"
    );
    let mail = app
        .post("/v2/email_submissions", key, "message/rfc822", &message)
        .await;
    assert_eq!(mail.status, 201, "{}", mail.text);
    ids.insert("email_submission", id_of(&mail));
    markers.push("victim-notice-5521".into());
    let docs = app.get("/v2/documents", Some(key)).await.json();
    ids.insert("document", docs["data"][0]["id"].as_str().unwrap().into());

    // a second key, and the notifications the tracking made for the webhook
    let k = app
        .post(
            "/v2/api_keys",
            key,
            MT,
            &json!({"data": {"type": "api_key", "attributes": {"name": "victim key 4410"}}})
                .to_string(),
        )
        .await;
    assert_eq!(k.status, 201, "{}", k.text);
    ids.insert("api_key", id_of(&k));
    markers.push("victim key 4410".into());
    let pk = app
        .post(
            "/v2/publishable_keys",
            key,
            MT,
            &json!({"data": {"type": "publishable_key", "attributes": {"name": "victim widget 7731", "allowed_origins": ["https://victim-7731.example"]}}})
                .to_string(),
        )
        .await;
    assert_eq!(pk.status, 201, "{}", pk.text);
    ids.insert("publishable_key", id_of(&pk));
    markers.push("victim widget 7731".into());
    markers.push("victim-7731".into());
    // a tariff and a calendar of A's own (its quotes use them; B's never do)
    let tariff = json!({"data": {"type": "tariff", "attributes": {
        "name": "Victim tariff 7731", "issuer": "TEST", "kind": "demurrage", "ports": ["*"],
        "equipment": ["*"], "valid_from": "2026-01-01", "currency": "USD",
        "free_time": {"days": 3}, "tiers": [{"from_day": 1, "to_day": null, "rate": "77.31"}]}}});
    let t = app.post("/v2/tariffs", key, MT, &tariff.to_string()).await;
    assert_eq!(t.status, 201, "{}", t.text);
    ids.insert("tariff", id_of(&t));
    markers.push("Victim tariff 7731".into());
    let calendar = json!({"data": {"type": "calendar", "attributes": {
        "port": "USLAX", "facility": "VICTIM7731", "closures": [{"date": "2026-03-04", "reason": "victim closure 7731"}]}}});
    let c = app
        .post("/v2/calendars", key, MT, &calendar.to_string())
        .await;
    assert_eq!(c.status, 201, "{}", c.text);
    ids.insert("calendar", id_of(&c));
    markers.push("victim closure 7731".into());
    let n = app.get("/v2/webhook_notifications", Some(key)).await.json();
    ids.insert(
        "webhook_notification",
        n["data"][0]["id"]
            .as_str()
            .expect("the tracking made a notification")
            .into(),
    );
    // every id is a marker too, wherever it is not the one asked for
    markers.extend(ids.values().cloned());
    Victim {
        key: key.to_string(),
        ids,
        markers,
    }
}

/// The kind of A's id a path's parameter names (by the path before it).
fn kind_of(path: &str, param: &str) -> Option<&'static str> {
    let before = path.split(&format!("/{{{param}}}")).next()?;
    let collection = before.rsplit('/').next()?;
    Some(match (collection, param) {
        ("containers", "id") => "container",
        ("shipments", "id") => "shipment",
        ("tracking_requests", "id") => "tracking_request",
        ("webhooks", "id") => "webhook",
        ("webhook_notifications", "id") => "webhook_notification",
        ("parties", "id") => "party",
        ("documents", "id") => "document",
        ("email_submissions", "id") => "email_submission",
        ("api_keys", "id") => "api_key",
        ("publishable_keys", "id") => "publishable_key",
        ("custom_field_definitions", "id") => "custom_field_definition",
        ("options", "option_id") => "custom_field_option",
        ("custom_fields", "id") => "custom_field",
        ("custom_fields", "api_slug") => "api_slug",
        ("vessels", "id") => "vessel",
        ("tariffs", "id") => "tariff",
        ("calendars", "id") => "calendar",
        _ => return None,
    })
}

/// A's markers that a response of B shows, leaving out what B itself sent.
fn leaked(victim: &Victim, sent: &str, r: &Resp) -> Vec<String> {
    victim
        .markers
        .iter()
        .filter(|m| !sent.contains(m.as_str()) && r.text.contains(m.as_str()))
        .cloned()
        .collect()
}

#[tokio::test]
async fn another_account_finds_sees_and_changes_nothing() {
    let (db, database) = fresh_db().await;
    let mut app = TestApp::spawn_policy(
        db.clone(),
        Limiter::memory(),
        Policy {
            allow_private_webhook_urls: true,
            ..Policy::default()
        },
    )
    .await;
    app.keep(database);
    let lifted = Limits(
        [
            (Bucket::Default, 1_000_000),
            (Bucket::CreateTrackingRequest, 1_000_000),
            (Bucket::RefreshContainer, 1_000_000),
        ]
        .into_iter()
        .collect(),
    );
    let (_, a_key) = app
        .account_with(Plan::Standard, &Entitlement::ALL, lifted.clone())
        .await;
    let (b_account, b_key) = app
        .account_with(Plan::Standard, &Entitlement::ALL, lifted)
        .await;
    let victim = populate(&app, &a_key).await;
    // B has data of its own, so its lists are not empty by construction
    app.track_sandbox(&b_key, "TEST-TR-SUCCEEDED").await;

    let doc = app.get("/v2/openapi.json", None).await.json();
    let before = snapshot(&app, &victim, &doc).await;

    let mut called = BTreeSet::new();
    let mut unknown = Vec::new();
    let mut failures = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if shared(method, path) {
                continue;
            }
            let params: Vec<String> = path
                .split('/')
                .filter_map(|s| Some(s.strip_prefix('{')?.strip_suffix('}')?.to_string()))
                .collect();
            // capabilities, not account data: a download or upload token is the credential
            if path.starts_with("/v2/downloads/") || path.starts_with("/v2/uploads/") {
                continue;
            }
            let mut url = path.clone();
            let mut ok = true;
            for p in &params {
                let value = match kind_of(path, p) {
                    Some("api_slug") => "victim_band".to_string(),
                    Some("vessel") => "9999999".to_string(),
                    Some(kind) => victim.ids[kind].clone(),
                    None => {
                        ok = false;
                        String::new()
                    }
                };
                url = url.replace(&format!("{{{p}}}"), &value);
            }
            if !ok {
                unknown.push(format!("{} {path}", method.to_uppercase()));
                continue;
            }
            called.insert(format!("{} {path}", method.to_uppercase()));
            for (target, body) in requests(method, path, &url, op, &victim) {
                let r = send(&app, method, &target, &b_key, &body).await;
                let leaks = leaked(&victim, &format!("{target} {body}"), &r);
                let refused = if params.is_empty() {
                    // collections: B acts on its own data (or is refused), never on A's
                    true
                } else {
                    (400..500).contains(&r.status)
                };
                if !leaks.is_empty() || !refused || r.status >= 500 {
                    failures.push(format!(
                        "{} {target} {body}: {} shows {leaks:?}: {}",
                        method.to_uppercase(),
                        r.status,
                        &r.text[..r.text.len().min(300)]
                    ));
                }
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "operations this matrix does not know how to call with another account's ids: {unknown:?}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(called.len() > 60, "{} operations called", called.len());

    // the embeddable widget with B's publishable key, and MCP with B's key
    let (_, publishable) = boxtrack_store::publishable::create(
        &app.db,
        b_account.id,
        None,
        &["https://b.example".to_string()],
    )
    .await
    .unwrap();
    for target in [
        format!("/embed/v1/track?number={}", victim.markers[2]),
        format!(
            "/embed/v1/map_geojson?shipment_id={}&container_id={}",
            victim.ids["shipment"], victim.ids["container"]
        ),
    ] {
        let r = app
            .send(
                app.client
                    .get(app.url(&target))
                    .header("Authorization", format!("Token {}", publishable.expose()))
                    .header("Origin", "https://b.example"),
            )
            .await;
        let leaks = leaked(&victim, &target, &r);
        assert!(
            leaks.is_empty() && r.status != 200,
            "{target}: {} {leaks:?}",
            r.status
        );
    }
    // MCP's tools and resources: the same matrix in MCP's suite (`mcp/tests/it/isolation.rs`)

    // and nothing of A changed
    let after = snapshot(&app, &victim, &doc).await;
    for (what, was) in &before {
        assert_eq!(after.get(what), Some(was), "{what} changed");
    }
}

/// The requests of one operation: with A's ids in the path (and a plausible body), and for
/// collections with A's ids and numbers in every filter and in search.
fn requests(
    method: &str,
    path: &str,
    url: &str,
    op: &Value,
    victim: &Victim,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let body = body_for(path, victim);
    if method == "get" {
        out.push((url.to_string(), String::new()));
        let params = op["parameters"].as_array().cloned().unwrap_or_default();
        for p in params.iter().filter(|p| p["in"] == "query") {
            let name = p["name"].as_str().unwrap();
            for value in [
                &victim.ids["shipment"],
                &victim.ids["container"],
                &victim.ids["party"],
                &victim.ids["webhook"],
                &victim.markers[2],
                &victim.markers[3],
            ] {
                let sep = if url.contains('?') { '&' } else { '?' };
                out.push((format!("{url}{sep}{name}={value}"), String::new()));
            }
        }
        if path == "/v2/search" || path.ends_with("/search") {
            for m in &victim.markers {
                out.push((format!("{url}?query={m}"), String::new()));
            }
        }
    } else {
        out.push((url.to_string(), body));
    }
    out
}

/// A body that would change A's resource at this path, were it B's.
fn body_for(path: &str, victim: &Victim) -> String {
    let relationship = |kind: &str, id: &str| json!({"data": {"type": kind, "id": id}});
    let v = match path {
        "/v2/containers" => {
            json!({"data": {"type": "container", "id": victim.ids["container"], "attributes": {"ref_numbers": ["B-1"]}}})
        }
        "/v2/custom_fields" => json!({"data": {"type": "custom_field",
            "attributes": {"api_slug": "victim_band", "value": "victim-cold-9"},
            "relationships": {"entity": relationship("shipment", &victim.ids["shipment"])}}}),
        "/v2/webhooks/trigger" => {
            json!({"url": "http://127.0.0.1:9/b", "event": "container.updated"})
        }
        "/v2/tracking_requests" => json!({"data": {"type": "tracking_request", "attributes": {
            "request_number": "TEST-SCN-IMPORT", "request_type": "bill_of_lading", "scac": "TEST"},
            "relationships": {"customer": relationship("party", &victim.ids["party"])}}}),
        "/v2/documents" => {
            json!({"data": {"type": "document", "attributes": {"name": "x", "attached_document": "nope"},
            "relationships": {"cargos": {"data": [{"type": "container", "id": victim.ids["container"]}]}}}})
        }
        p if p.ends_with("/replay") => json!({"since": 0}),
        p if p.ends_with("/relink") => {
            json!({"data": {"relationships": {"cargos": {"data": [{"type": "container", "id": victim.ids["container"]}]}}}})
        }
        p if p.ends_with("/reclassify") => {
            json!({"data": {"attributes": {"document_type": "invoice"}}})
        }
        p if p.ends_with("/rotate") => json!({"data": {"attributes": {"degrees": 90}}}),
        p if p.contains("custom_fields") => {
            json!({"data": {"type": "custom_field", "attributes": {"api_slug": "victim_band", "value": "victim-cold-9"}}})
        }
        p if p.contains("/options") => {
            json!({"data": {"type": "custom_field_option", "attributes": {"value": "b"}}})
        }
        p if p.contains("custom_field_definitions") => {
            json!({"data": {"type": "custom_field_definition", "attributes": {"display_name": "B"}}})
        }
        p if p.contains("/webhooks") => {
            json!({"data": {"type": "webhook", "attributes": {"active": false}}})
        }
        p if p.contains("/parties") => {
            json!({"data": {"type": "party", "attributes": {"company_name": "B"}}})
        }
        p if p.contains("/shipments") => {
            json!({"data": {"type": "shipment", "attributes": {"ref_numbers": ["B-1"]}}})
        }
        p if p.contains("/tracking_requests") => {
            json!({"data": {"type": "tracking_request", "attributes": {"ref_numbers": ["B-1"]}}})
        }
        p if p.contains("/containers") => {
            json!({"data": {"type": "container", "attributes": {"ref_numbers": ["B-1"]}}})
        }
        p if p.contains("/documents") => {
            json!({"data": {"type": "document", "attributes": {"name": "B"}}})
        }
        p if p.contains("/charges/quote") => {
            json!({"data": {"type": "charge_quote", "attributes": {"scac": "TEST", "port": "USLAX",
                "discharged_at": "2026-03-05T18:00:00Z", "as_of": "2026-04-01T00:00:00Z"}}})
        }
        _ => json!({}),
    };
    v.to_string()
}

async fn send(app: &TestApp, method: &str, url: &str, key: &str, body: &str) -> Resp {
    let m = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
    let mut req = app
        .client
        .request(m, app.url(url))
        .header("Authorization", format!("Token {key}"));
    if method != "get" && method != "delete" {
        let ct = if url.contains("email_submissions") {
            "message/rfc822"
        } else if url.contains("/ingest/x12") {
            "application/edi-x12"
        } else if url.contains("/ingest/edifact") {
            "application/edifact"
        } else {
            MT
        };
        req = req.header("Content-Type", ct).body(body.to_string());
    }
    app.send(req).await
}

/// Every single-resource read of A with A's key, by its URL: compared before and after.
async fn snapshot(app: &TestApp, victim: &Victim, doc: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        if item.get("get").is_none() || !path.starts_with("/v2/") || shared("get", path) {
            continue;
        }
        let mut url = path.clone();
        let mut ok = true;
        for p in path
            .split('/')
            .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
        {
            match kind_of(path, p) {
                Some("api_slug") => url = url.replace(&format!("{{{p}}}"), "victim_band"),
                Some(kind) if victim.ids.contains_key(kind) => {
                    url = url.replace(&format!("{{{p}}}"), &victim.ids[kind])
                }
                _ => ok = false,
            }
        }
        if !ok || url.contains("download_url") {
            continue;
        }
        let r = app.get(&url, Some(&victim.key)).await;
        // links and times of the read itself are not A's data
        let mut v: Value = serde_json::from_str(&r.text).unwrap_or(Value::Null);
        strip_volatile(&mut v);
        out.insert(url, format!("{} {v}", r.status));
    }
    out
}

fn strip_volatile(v: &mut Value) {
    match v {
        Value::Object(o) => {
            o.remove("links");
            o.remove("meta");
            // the instant a container's charges are counted to is the read's
            o.remove("as_of");
            o.values_mut().for_each(strip_volatile);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_volatile),
        _ => {}
    }
}
