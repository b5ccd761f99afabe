//! Every relationship a resource names can be included on the path that answered it: the
//! reference's SDK asks `include=` for what it maps (a shipment's `pod_terminal`, a raw event's
//! port and vessel) and builds nothing for a relationship whose resource is not in `included`.
//! The graph itself (no resource relating to itself, every asked relationship present) is
//! checked on every answer of the suite by `reference_gate::check_graph`.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::helpers::*;

/// Relationships that name a resource boxtrack has no include for, and why.
const NOT_INCLUDABLE: &[(&str, &str, &str)] = &[];

/// The names of the relationships with data in `doc`'s primary resources.
fn named(doc: &Value) -> BTreeSet<String> {
    let primary: Vec<&Value> = match &doc["data"] {
        Value::Array(a) => a.iter().collect(),
        one @ Value::Object(_) => vec![one],
        _ => Vec::new(),
    };
    let mut out = BTreeSet::new();
    for r in primary {
        for (name, rel) in r["relationships"].as_object().into_iter().flatten() {
            let has = match &rel["data"] {
                Value::Array(a) => !a.is_empty(),
                Value::Object(_) => true,
                _ => false,
            };
            if has {
                out.insert(name.clone());
            }
        }
    }
    out
}

#[tokio::test]
async fn every_relationship_a_resource_names_can_be_included() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let request = app.track_sandbox(&key, "TEST-SCN-IMPORT").await;
    let request_id = request["data"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let shipments = app.get("/v2/shipments", Some(&key)).await.json();
    let shipment: uuid::Uuid = shipments["data"][0]["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let started = boxtrack_store::sandbox::started_us(&app.db, account.id, shipment)
        .await
        .unwrap()
        .expect("a sandbox run");
    // past discharge and the terminal's release: terminal, vessel, ports and events are known
    app.tick_at(started + 520 * 1_000_000).await;
    let containers = app.get("/v2/containers", Some(&key)).await.json();
    let container = containers["data"][0]["id"].as_str().unwrap().to_string();
    // the POD terminal column the writer keeps beside each container's state agrees with it
    let refs = boxtrack_store::reads::container_refs_of_many(&app.db, account.id, &[shipment])
        .await
        .unwrap();
    let refs = refs.get(&shipment).cloned().unwrap_or_default();
    assert!(!refs.is_empty());
    for r in &refs {
        let row = boxtrack_store::reads::container(&app.db, account.id, r.id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(r.pod_terminal, row.state.pod_terminal, "{}", r.id);
    }
    assert!(refs.iter().any(|r| r.pod_terminal.is_some()), "{refs:?}");
    let events = app
        .get(
            &format!("/v2/containers/{container}/transport_events"),
            Some(&key),
        )
        .await
        .json();
    assert!(
        events["data"].as_array().is_some_and(|e| !e.is_empty()),
        "{events}"
    );

    // a custom field definition with an option and a value set with it
    let mt = "application/vnd.api+json";
    let def = app
        .post(
            "/v2/custom_field_definitions",
            &key,
            mt,
            r#"{"data":{"type":"custom_field_definition","attributes":{"entity_type":"Shipment","api_slug":"band","display_name":"Band","data_type":"enum"}}}"#,
        )
        .await
        .json();
    let def = def["data"]["id"].as_str().unwrap_or_default().to_string();
    let option = app
        .post(
            &format!("/v2/custom_field_definitions/{def}/options"),
            &key,
            mt,
            r#"{"data":{"type":"custom_field_option","attributes":{"label":"Frozen","value":"frozen"}}}"#,
        )
        .await;
    assert_eq!(option.status, 201, "{}", option.text);
    let value = app
        .post(
            &format!("/v2/shipments/{shipment}/custom_fields"),
            &key,
            mt,
            r#"{"data":{"type":"custom_field","attributes":{"api_slug":"band","value":"frozen"}}}"#,
        )
        .await;
    assert_eq!(value.status, 201, "{}", value.text);

    let paths = [
        format!("/v2/custom_field_definitions/{def}"),
        "/v2/custom_field_definitions".to_string(),
        format!("/v2/shipments/{shipment}"),
        "/v2/shipments".to_string(),
        format!("/v2/containers/{container}"),
        "/v2/containers".to_string(),
        format!("/v2/containers/{container}/transport_events"),
        format!("/v2/containers/{container}/raw_events"),
        format!("/v2/tracking_requests/{request_id}"),
        "/v2/tracking_requests".to_string(),
    ];
    let mut refused = Vec::new();
    for path in &paths {
        let plain = app.get(path, Some(&key)).await;
        assert_eq!(plain.status, 200, "{path}: {}", plain.text);
        for name in named(&plain.json()) {
            if NOT_INCLUDABLE
                .iter()
                .any(|(p, n, _)| path.contains(p) && *n == name)
            {
                continue;
            }
            // the graph check of every answer asserts that what was named is included
            let asked = app.get(&format!("{path}?include={name}"), Some(&key)).await;
            if asked.status != 200 {
                refused.push(format!("{path}?include={name}: {}", asked.status));
            }
        }
    }
    assert!(
        refused.is_empty(),
        "refused includes:\n{}",
        refused.join("\n")
    );
    // a terminal alone includes nothing: its port would list it back
    let t = app.get("/v2/terminals/Y258", Some(&key)).await.json();
    assert!(
        t.get("included")
            .is_none_or(|i| i == &serde_json::json!([])),
        "{t}"
    );
}
