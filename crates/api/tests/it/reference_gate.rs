//! The reference gate: responses of operations the reference API describes are validated
//! against the reference's own schema for that operation and status (its OpenAPI 3.0
//! document, turned into JSON Schema 2020-12: `nullable` becomes a `null` type).
//!
//! The operations in [`CONFORMING`] must conform: a violation fails the test that caused it.
//! For the others the violations are collected; `REFERENCE_REPORT=1` prints them (one line
//! per distinct violation) so the list in `docs/compatibility.md` can be kept true. An
//! operation moves into [`CONFORMING`] when its responses validate.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Value, json};

use crate::helpers::Resp;

/// Reference operations (method, reference path) whose responses in the suite validate
/// against the reference schema; a violation of one of them fails the suite.
const CONFORMING: &[(&str, &str)] = &[
    ("delete", "/documents/{id}"),
    ("get", "/containers/{id}/map_geojson"),
    ("get", "/custom_field_definitions"),
    ("get", "/custom_field_definitions/{definition_id}/options"),
    ("get", "/custom_fields"),
    ("get", "/documents"),
    ("get", "/documents/types"),
    ("get", "/documents/{id}"),
    ("get", "/documents/{id}/download_url"),
    ("get", "/email_submissions"),
    ("get", "/email_submissions/{id}"),
    ("get", "/metro_areas/{id}"),
    ("get", "/parties"),
    ("get", "/ports/{id}"),
    ("get", "/search"),
    ("get", "/shipments"),
    ("get", "/shipments/{id}"),
    ("get", "/shipments/{shipment_id}/custom_fields"),
    ("get", "/shipping_lines"),
    ("get", "/shipping_lines/{id}"),
    ("get", "/tracking_requests"),
    ("get", "/vessels/{id}"),
    ("get", "/vessels/{id}/future_positions"),
    ("get", "/vessels/{id}/future_positions_with_coordinates"),
    ("get", "/webhooks"),
    ("get", "/webhooks/events"),
    ("get", "/webhooks/ips"),
    ("get", "/webhooks/{id}"),
    ("patch", "/containers/{id}/refresh"),
    ("patch", "/custom_field_definitions/{id}"),
    ("patch", "/custom_fields/{id}"),
    ("patch", "/documents/{id}"),
    ("patch", "/parties/{id}"),
    ("patch", "/shipments/{id}"),
    ("patch", "/shipments/{id}/resume_tracking"),
    ("patch", "/shipments/{id}/stop_tracking"),
    ("patch", "/shipments/{shipment_id}/custom_fields/{api_slug}"),
    ("patch", "/tracking_requests/{id}"),
    ("patch", "/webhooks/{id}"),
    ("post", "/custom_field_definitions"),
    ("post", "/custom_field_definitions/{definition_id}/options"),
    ("post", "/custom_fields"),
    ("post", "/documents"),
    ("post", "/documents/{id}/reclassify"),
    ("post", "/documents/{id}/relink"),
    ("post", "/parties"),
    ("post", "/shipments/{shipment_id}/custom_fields"),
    ("post", "/tracking_requests/infer_number"),
    (
        "post",
        "/tracking_requests/{tracking_request_id}/custom_fields",
    ),
    ("post", "/webhooks"),
    ("post", "/webhooks/trigger"),
];

struct Reference {
    document: Value,
    templates: Vec<(String, Vec<String>)>,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

/// Where the reference document itself is wrong, patched here, each with why; nothing is
/// skipped.
fn patch(document: &mut Value) {
    // `email_submission` and `document` name a `user` relationship whose schema the
    // reference never defines (`#/components/schemas/user` dangles): a JSON:API to-one
    // relationship, null when no person did it
    document["components"]["schemas"]["user"] = json!({
        "type": "object",
        "properties": {"data": {"type": ["object", "null"], "properties": {
            "id": {"type": "string"}, "type": {"type": "string"}
        }}}
    });
    // the container resource's `type` is enumerated as ["account"] (a copy-paste slip: its
    // examples, and every API answer, say "container")
    document["components"]["schemas"]["container"]["properties"]["type"]["enum"] =
        json!(["container"]);
    // to-one relationships are written `data: {type: object}` without `nullable`, but a
    // to-one relationship with no related resource is `data: null` (JSON:API 1.0 §7.2.2.2),
    // which the reference's own examples use (a shipment before discharge has no POD
    // terminal)
    if let Some(schemas) = document["components"]["schemas"].as_object_mut() {
        for schema in schemas.values_mut() {
            let Some(rels) = schema
                .pointer_mut("/properties/relationships/properties")
                .and_then(Value::as_object_mut)
            else {
                continue;
            };
            for rel in rels.values_mut() {
                if let Some(data) = rel.pointer_mut("/properties/data")
                    && data.get("type") == Some(&json!("object"))
                {
                    data["nullable"] = json!(true);
                }
            }
        }
    }
}

/// OpenAPI 3.0 schema objects as JSON Schema 2020-12: `nullable: true` admits `null`.
fn from_openapi30(v: &mut Value) {
    match v {
        Value::Object(o) => {
            for x in o.values_mut() {
                from_openapi30(x);
            }
            if o.remove("nullable") == Some(Value::Bool(true)) {
                if let Some(t) = o.get("type").cloned() {
                    let mut types = match t {
                        Value::Array(a) => a,
                        other => vec![other],
                    };
                    types.push(json!("null"));
                    o.insert("type".into(), Value::Array(types));
                    if let Some(Value::Array(e)) = o.get_mut("enum") {
                        e.push(Value::Null);
                    }
                } else {
                    let inner = Value::Object(std::mem::take(o));
                    o.insert("anyOf".into(), json!([inner, {"type": "null"}]));
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(from_openapi30),
        _ => {}
    }
}

fn reference() -> &'static Reference {
    static REF: OnceLock<Reference> = OnceLock::new();
    REF.get_or_init(|| {
        let text = include_str!("reference/openapi.json");
        let mut document: Value = serde_json::from_str(text).unwrap();
        patch(&mut document);
        from_openapi30(&mut document);
        let templates = crate::conformance::templates(&document);
        Reference {
            document,
            templates,
            validators: Mutex::default(),
        }
    })
}

/// The reference's template for a boxtrack path (`/v2/shipments/1` → `/shipments/{id}`).
fn template_of<'a>(r: &'a Reference, path: &str) -> Option<&'a str> {
    crate::conformance::template_for(&r.templates, path.strip_prefix("/v2")?)
}

/// What the suite found against the reference: operation → distinct violations.
pub fn found() -> &'static Mutex<HashMap<String, Vec<String>>> {
    static FOUND: OnceLock<Mutex<HashMap<String, Vec<String>>>> = OnceLock::new();
    FOUND.get_or_init(Mutex::default)
}

/// Checks a response against the reference's schema for its operation and status.
pub fn check(method: &str, path: &str, resp: &Resp) {
    let r = reference();
    let Some(template) = template_of(r, path) else {
        return;
    };
    let Some(op) = r.document["paths"][template].get(method) else {
        return;
    };
    let status = resp.status.to_string();
    let Some(response) = op["responses"].get(&status) else {
        return;
    };
    let Some(schema) = response["content"]
        .as_object()
        .and_then(|c| c.values().find_map(|m| m.get("schema")))
    else {
        return;
    };
    let Ok(body) = serde_json::from_str::<Value>(&resp.text) else {
        return;
    };
    let key = format!("{method} {template} {status}");
    let v = crate::conformance::compiled(&r.validators, &r.document, &key, schema);
    let errors: Vec<String> = v
        .iter_errors(&body)
        .map(|e| {
            // one line per kind of violation, not per list item
            let at = e.instance_path().to_string();
            let at: String = at
                .split('/')
                .map(|s| if s.parse::<usize>().is_ok() { "N" } else { s })
                .collect::<Vec<_>>()
                .join("/");
            format!(
                "at {at}: {}",
                e.to_string().chars().take(200).collect::<String>()
            )
        })
        .collect();
    if errors.is_empty() {
        if std::env::var_os("REFERENCE_REPORT").is_some() {
            eprintln!("reference-ok: {method} {template} {status}");
        }
        return;
    }
    let op_key = (method, template);
    assert!(
        !CONFORMING.contains(&op_key),
        "{method} {template} {status} no longer validates against the reference:\n  {}",
        errors.join("\n  ")
    );
    let mut f = found().lock().unwrap_or_else(|p| p.into_inner());
    let list = f.entry(key).or_default();
    for e in errors {
        if !list.contains(&e) {
            if std::env::var_os("REFERENCE_REPORT").is_some() {
                eprintln!("reference: {method} {template} {status} {e}");
            }
            list.push(e);
        }
    }
}
