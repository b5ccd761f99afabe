//! Another account's data stays out of reach through MCP: every tool with account A's ids and
//! numbers in each of its string arguments, and every resource template with A's ids, answers
//! B with errors or empty answers, never A's data; with B's API key and with an OAuth access
//! token of B's user, as AI clients sign in.

use std::collections::BTreeMap;

use boxtrack_core::requests::NewRequest;
use serde_json::{Value, json};

use crate::harness::{Resp, TestApp};

/// A's data: its ids by kind, and strings only A's data holds.
struct Victim {
    ids: BTreeMap<&'static str, String>,
    markers: Vec<String>,
}

/// A webhook, a customer, a tracked sandbox bill with its shipment and container, for the
/// key's account.
async fn populate(app: &TestApp, key: &str) -> Victim {
    let account = app.account_of(key).await;
    let ctx = &app.front.ctx;
    let mut ids = BTreeMap::new();
    let mut markers = Vec::new();
    let hook_url = "https://victim-hooks.example/a8f3";
    let hook = boxtrack_app::webhooks::create(
        ctx,
        account.id,
        &boxtrack_app::webhooks::WebhookIn {
            url: Some(hook_url.into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    ids.insert("webhook", hook.id.to_string());
    markers.push(hook_url.to_string());
    let party = boxtrack_store::parties::create(&app.db, account.id, "Victim Importers 7731")
        .await
        .unwrap();
    ids.insert("party", party.id.to_string());
    markers.push("Victim Importers 7731".into());
    let asked = NewRequest {
        request_number: Some("TEST-SCN-IMPORT".into()),
        request_type: Some("bill_of_lading".into()),
        scac: Some("TEST".into()),
        auto_detect: false,
        ref_numbers: vec!["victim-ref-3301".into()],
        shipment_tags: vec![],
    };
    let extras = boxtrack_store::tracking::RequestExtras {
        customer_id: Some(party.id),
        initial_custom_fields: vec![],
    };
    let request = boxtrack_app::tracking::track(ctx, &account, &asked, extras)
        .await
        .unwrap();
    ids.insert("tracking_request", request.id.to_string());
    app.process().await;
    let shipment = app.shipment_of(key, request.id).await;
    ids.insert("shipment", shipment.to_string());
    let s = boxtrack_store::reads::shipment(&app.db, account.id, shipment)
        .await
        .unwrap()
        .unwrap();
    markers.push(s.bill_of_lading_number.clone());
    let container = app.containers(key).await[0].clone();
    ids.insert("container", container["id"].as_str().unwrap().into());
    markers.push(container["attributes"]["number"].as_str().unwrap().into());
    // the bill and the container number (2 and 3) are what the tools are asked with
    markers.push("victim-ref-3301".into());
    Victim { ids, markers }
}

/// The markers of A's data in an answer to a request that did not send them itself.
fn leaked(victim: &Victim, sent: &str, r: &Resp) -> Vec<String> {
    victim
        .markers
        .iter()
        .filter(|m| !sent.contains(m.as_str()) && r.text.contains(m.as_str()))
        .cloned()
        .collect()
}

#[tokio::test]
async fn another_account_reaches_nothing_through_the_tools() {
    let app = TestApp::spawn().await;
    let (_, a_key) = app.account().await;
    let victim = populate(&app, &a_key).await;
    let (b_account, b_key) = app.account().await;
    mcp_matrix(&app, &format!("Token {b_key}"), &victim).await;
    // and with an OAuth access token of B's user, as AI clients sign in
    let hash = boxtrack_core::oauth::hash_password("a long enough password").unwrap();
    let user = boxtrack_store::oauth::create_user(&app.db, b_account.id, "b@b.example", &hash)
        .await
        .unwrap();
    boxtrack_store::oauth::register_client(&app.db, "btc_b", "B's client", &[])
        .await
        .unwrap();
    let access = boxtrack_core::oauth::new_secret();
    let resource = boxtrack_core::oauth::canonical_resource(&format!("{}/mcp", app.base)).unwrap();
    let now = boxtrack_store::now_us();
    boxtrack_store::oauth::store_pair(
        &app.db,
        &boxtrack_core::oauth::digest(&access),
        &boxtrack_core::oauth::digest(&boxtrack_core::oauth::new_secret()),
        &boxtrack_store::oauth::Token {
            kind: String::new(),
            client_id: "btc_b".into(),
            user_id: user.id,
            account_id: b_account.id,
            resource,
            family: uuid::Uuid::now_v7(),
            expires_us: 0,
            used_us: None,
            revoked_us: None,
        },
        now + 3_600_000_000,
        now + 7_200_000_000,
    )
    .await
    .unwrap();
    mcp_matrix(&app, &format!("Bearer {access}"), &victim).await;
}

/// Every MCP tool with A's ids and numbers in each of its arguments, and every resource
/// template with A's ids: errors or empty answers, never A's data.
async fn mcp_matrix(app: &TestApp, authorization: &str, victim: &Victim) {
    let rpc = |method: &str, params: Value| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let req = app
            .client
            .post(app.url("/mcp"))
            .header("Authorization", authorization)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2025-06-18")
            .body(body.to_string());
        async move { app.send(req).await }
    };
    let tools = rpc("tools/list", json!({})).await;
    assert_eq!(tools.status, 200, "{authorization}: {}", tools.text);
    let tools = tools.json()["result"]["tools"].as_array().unwrap().clone();
    assert!(tools.len() > 10);
    let values = [
        victim.ids["container"].clone(),
        victim.ids["shipment"].clone(),
        victim.ids["tracking_request"].clone(),
        victim.ids["party"].clone(),
        victim.markers[2].clone(),
        victim.markers[3].clone(),
    ];
    let mut failures = Vec::new();
    for tool in &tools {
        let name = tool["name"].as_str().unwrap();
        let props = tool["inputSchema"]["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let strings: Vec<&String> = props
            .iter()
            .filter(|(_, s)| s["type"] == "string" || s["type"].is_null())
            .map(|(k, _)| k)
            .collect();
        for value in &values {
            let mut args = serde_json::Map::new();
            for k in &strings {
                args.insert((*k).clone(), Value::from(value.clone()));
            }
            let r = rpc("tools/call", json!({"name": name, "arguments": args})).await;
            let leaks = leaked(victim, value, &r);
            if !leaks.is_empty() {
                failures.push(format!("{name}({value}): {leaks:?}"));
            }
        }
    }
    let templates = rpc("resources/templates/list", json!({})).await.json();
    for t in templates["result"]["resourceTemplates"]
        .as_array()
        .cloned()
        .unwrap_or_default()
    {
        let template = t["uriTemplate"].as_str().unwrap();
        for value in &values {
            let uri = template
                .split('{')
                .next()
                .map(|head| format!("{head}{value}"))
                .unwrap();
            let r = rpc("resources/read", json!({"uri": uri})).await;
            let leaks = leaked(victim, value, &r);
            if !leaks.is_empty()
                || r.json()["result"]["contents"]
                    .as_array()
                    .is_some_and(|c| !c.is_empty())
            {
                failures.push(format!(
                    "resource {uri}: {leaks:?} {}",
                    &r.text[..r.text.len().min(200)]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
