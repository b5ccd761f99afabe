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
    (
        "delete",
        "/containers/{container_id}/custom_fields/{api_slug}",
    ),
    (
        "delete",
        "/custom_field_definitions/{definition_id}/options/{option_id}",
    ),
    ("delete", "/custom_field_definitions/{id}"),
    ("delete", "/custom_fields/{id}"),
    ("delete", "/documents/{id}"),
    (
        "delete",
        "/shipments/{shipment_id}/custom_fields/{api_slug}",
    ),
    (
        "delete",
        "/tracking_requests/{tracking_request_id}/custom_fields/{api_slug}",
    ),
    ("delete", "/webhooks/{id}"),
    ("get", "/containers"),
    ("get", "/containers/{container_id}/custom_fields"),
    ("get", "/containers/{id}"),
    ("get", "/containers/{id}/map_geojson"),
    ("get", "/containers/{id}/raw_events"),
    ("get", "/containers/{id}/transport_events"),
    ("get", "/custom_field_definitions"),
    ("get", "/custom_field_definitions/{definition_id}/options"),
    (
        "get",
        "/custom_field_definitions/{definition_id}/options/{option_id}",
    ),
    ("get", "/custom_field_definitions/{id}"),
    ("get", "/custom_fields"),
    ("get", "/custom_fields/{id}"),
    ("get", "/document_schemas/{id}"),
    ("get", "/documents"),
    ("get", "/documents/types"),
    ("get", "/documents/{id}"),
    ("get", "/documents/{id}/download_url"),
    ("get", "/email_submissions"),
    ("get", "/email_submissions/{id}"),
    ("get", "/metro_areas/{id}"),
    ("get", "/parties"),
    ("get", "/parties/{id}"),
    ("get", "/ports/{id}"),
    ("get", "/search"),
    ("get", "/shipments"),
    ("get", "/shipments/{id}"),
    ("get", "/shipments/{shipment_id}/custom_fields"),
    ("get", "/shipping_lines"),
    ("get", "/shipping_lines/{id}"),
    ("get", "/terminals/{id}"),
    ("get", "/tracking_requests"),
    ("get", "/tracking_requests/{id}"),
    (
        "get",
        "/tracking_requests/{tracking_request_id}/custom_fields",
    ),
    ("get", "/vessels/{id}"),
    ("get", "/vessels/{id}/future_positions"),
    ("get", "/vessels/{id}/future_positions_with_coordinates"),
    ("get", "/webhook_notifications"),
    ("get", "/webhook_notifications/examples"),
    ("get", "/webhook_notifications/{id}"),
    ("get", "/webhooks"),
    ("get", "/webhooks/events"),
    ("get", "/webhooks/ips"),
    ("get", "/webhooks/{id}"),
    ("patch", "/containers"),
    (
        "patch",
        "/containers/{container_id}/custom_fields/{api_slug}",
    ),
    ("patch", "/containers/{id}/refresh"),
    (
        "patch",
        "/custom_field_definitions/{definition_id}/options/{option_id}",
    ),
    ("patch", "/custom_field_definitions/{id}"),
    ("patch", "/custom_fields/{id}"),
    ("patch", "/documents/{id}"),
    ("patch", "/parties/{id}"),
    ("patch", "/shipments/{id}"),
    ("patch", "/shipments/{id}/resume_tracking"),
    ("patch", "/shipments/{id}/stop_tracking"),
    ("patch", "/shipments/{shipment_id}/custom_fields/{api_slug}"),
    ("patch", "/tracking_requests/{id}"),
    (
        "patch",
        "/tracking_requests/{tracking_request_id}/custom_fields/{api_slug}",
    ),
    ("patch", "/webhooks/{id}"),
    ("post", "/containers/{container_id}/custom_fields"),
    ("post", "/custom_field_definitions"),
    ("post", "/custom_field_definitions/{definition_id}/options"),
    ("post", "/custom_fields"),
    ("post", "/documents"),
    ("post", "/documents/{id}/reclassify"),
    ("post", "/documents/{id}/reextract"),
    ("post", "/documents/{id}/relink"),
    ("post", "/documents/{id}/rotate"),
    ("post", "/parties"),
    ("post", "/shipments/{shipment_id}/custom_fields"),
    ("post", "/tracking_requests"),
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
    // a raw event's `location_name` is declared a non-null string, yet 11 of the 12 raw
    // events in the reference's own example have `"location_name": null` (a carrier record
    // without a place)
    document["components"]["schemas"]["raw_event"]["properties"]["attributes"]["properties"]["location_name"]
        ["nullable"] = json!(true);
    // a tracking request's `scac` is declared a non-null string, yet the reference's own
    // `auto_detect_vocc_scac` description says the request "is created immediately … with
    // `status: "pending"` and `scac: null`" until the carrier is inferred
    document["components"]["schemas"]["tracking_request"]["properties"]["attributes"]["properties"]
        ["scac"]["nullable"] = json!(true);
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

/// Where boxtrack differs from the reference on purpose (each difference is listed with its
/// reason in `docs/compatibility.md`, "Different on purpose"), the reference is widened here
/// so that the gate checks everything else; nothing else is widened.
fn deliberate(document: &mut Value) {
    // `data_source` says who really reported an event: boxtrack reads rail carriers
    // (`rail`) and plays sandbox journeys (`sandbox`), two sources the reference does not have
    let schemas = &mut document["components"]["schemas"];
    if let Some(Value::Array(e)) =
        schemas.pointer_mut("/transport_event/properties/attributes/properties/data_source/enum")
    {
        // and what a person of the account entered (`user_input`, which the reference's
        // DataSync also names)
        e.extend([json!("rail"), json!("sandbox"), json!("user_input")]);
    }
    // `PATCH /containers` edits the container `data.id` names, as the reference's clients
    // send it, and also up to 100 when `data` is a list (answered with a list)
    if let Some(data) = document.pointer_mut(
        "/paths/~1containers/patch/responses/200/content/application~1json/schema/properties/data",
    ) {
        let one = data.clone();
        *data = json!({"anyOf": [one, {"type": "array", "items": one}]});
    }
    let schemas = &mut document["components"]["schemas"];
    // a tracking request whose shipment would take the account past its plan's container
    // limit fails with `plan_limit`, a reason the reference (which has no plan limits) lacks
    if let Some(Value::Array(e)) =
        schemas.pointer_mut("/tracking_request/properties/attributes/properties/failed_reason/enum")
    {
        e.push(json!("plan_limit"));
    }
    // notifications of the events the reference lists but gives no object type for
    // (`container.created`, `container.pod_terminal_changed`, `document.*`) are about a
    // `container_created_event`, a `container_pod_terminal_changed_event` (both shaped as
    // `container_updated_event`) or the `document`
    let ours = [
        "container_created_event",
        "container_pod_terminal_changed_event",
        "document",
    ];
    if let Some(Value::Array(e)) = schemas.pointer_mut(
        "/webhook_notification/properties/relationships/properties/reference_object/properties/data/properties/type/enum",
    ) {
        e.extend(ours.iter().map(|t| json!(t)));
    }
    if let Some(Value::Array(rules)) = schemas.pointer_mut("/included_resource/allOf")
        && let Some(Value::Array(types)) = rules
            .last_mut()
            .and_then(|r| r.pointer_mut("/properties/type/enum"))
    {
        types.extend(ours[..2].iter().map(|t| json!(t)));
    }
}

/// Each included resource is checked against the reference's schema for its own `type`.
/// The reference lists, per operation, the included types its examples show (a container
/// list: shipments only), while its `include` parameter takes any relationship (a container
/// list with `include=pod_terminal` includes terminals); JSON:API 1.0 §7.2.2.4 puts in
/// `included` whatever the request named.
fn included_by_type(document: &mut Value) {
    let mut by_type: Vec<(String, String)> = Vec::new();
    if let Some(schemas) = document["components"]["schemas"].as_object() {
        for (name, schema) in schemas {
            let Some([Value::String(t)]) = schema
                .pointer("/properties/type/enum")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
            else {
                continue;
            };
            // one schema per type: the resource's own (not the `vessel_with_positions` or
            // `document_email_submission` variants, nor geometry objects)
            let own = name == t || !by_type.iter().any(|(known, _)| known == t);
            if own && schema.pointer("/properties/attributes").is_some() {
                by_type.retain(|(known, _)| known != t);
                by_type.push((t.clone(), name.clone()));
            }
        }
    }
    let mut types: Vec<Value> = by_type.iter().map(|(t, _)| json!(t)).collect();
    // the reference's own notification examples include a `container_updated_event`, a type
    // it gives no schema
    types.push(json!("container_updated_event"));
    let mut rules: Vec<Value> = by_type
        .iter()
        .map(|(t, name)| {
            json!({
                "if": {"properties": {"type": {"const": t}}, "required": ["type"]},
                "then": {"$ref": format!("#/components/schemas/{name}")}
            })
        })
        .collect();
    rules.push(json!({"properties": {"type": {"enum": types}}, "required": ["type"]}));
    // kept as a schema of its own so that [`deliberate`] can name further types
    document["components"]["schemas"]["included_resource"] = json!({"allOf": rules});
    let items = json!({"$ref": "#/components/schemas/included_resource"});
    if let Some(paths) = document["paths"].as_object_mut() {
        for op in paths.values_mut().filter_map(Value::as_object_mut) {
            for op in op.values_mut() {
                let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
                    continue;
                };
                for response in responses.values_mut() {
                    let Some(content) = response.get_mut("content").and_then(Value::as_object_mut)
                    else {
                        continue;
                    };
                    for media in content.values_mut() {
                        if let Some(included) = media.pointer_mut("/schema/properties/included") {
                            included["items"] = items.clone();
                        }
                    }
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
        included_by_type(&mut document);
        deliberate(&mut document);
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
    let skipped = |why: &str| {
        if std::env::var_os("REFERENCE_REPORT").is_some() {
            eprintln!("reference-skip: {method} {template} {status} {why}");
        }
    };
    let Some(response) = op["responses"].get(&status) else {
        return skipped("(the reference does not describe this status)");
    };
    // boxtrack's own events reach only a client that named them (a webhook's `events`, its
    // notifications): the reference's enums cannot know them, and a client that names none
    // never sees one
    if boxtrack_core::webhooks::EXTENSION_EVENTS
        .iter()
        .any(|e| resp.text.contains(e))
    {
        return skipped("(names boxtrack's own events, which the client opted into)");
    }
    let Some(schema) = response["content"]
        .as_object()
        .and_then(|c| c.values().find_map(|m| m.get("schema")))
    else {
        // nothing to validate: the status is what the reference answers
        if std::env::var_os("REFERENCE_REPORT").is_some() {
            eprintln!("reference-ok: {method} {template} {status}");
        }
        return;
    };
    let Ok(body) = serde_json::from_str::<Value>(&resp.text) else {
        return skipped("(no JSON body)");
    };
    missing_members(r, method, template, &status, &body);
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

/// Attributes and relationships the reference lists for a type that boxtrack leaves out on
/// purpose when it does not know them (see "Different on purpose" in docs/compatibility.md).
const OMITTED_WHEN_UNKNOWN: &[(&str, &str)] = &[
    ("terminal", "smdg_code"),
    ("terminal", "bic_facility_code"),
    ("terminal", "street"),
    ("terminal", "zip"),
];

/// Every resource in a response carries each attribute and relationship that the
/// reference's schema for its type lists (JSON Schema alone does not say so: the reference
/// marks few members `required`).
fn missing_members(r: &Reference, method: &str, template: &str, status: &str, body: &Value) {
    // search results are typed `shipment`, `cargo` and `tracking_request` but carry the
    // members of the search operation's own schema, which the validation checks
    if template == "/search" {
        return;
    }
    let schemas = &r.document["components"]["schemas"];
    let mut resources: Vec<&Value> = Vec::new();
    match &body["data"] {
        Value::Array(items) => resources.extend(items.iter()),
        one @ Value::Object(_) => resources.push(one),
        _ => {}
    }
    resources.extend(body["included"].as_array().into_iter().flatten());
    let mut missing: Vec<String> = Vec::new();
    for res in resources {
        let Some(kind) = res["type"].as_str() else {
            continue;
        };
        // the resource's own schema: the one named like its type
        let Some(schema) = schemas.get(kind) else {
            continue;
        };
        for part in ["attributes", "relationships"] {
            let Some(listed) = schema
                .pointer(&format!("/properties/{part}/properties"))
                .and_then(Value::as_object)
            else {
                continue;
            };
            for name in listed.keys() {
                let present = res[part].get(name).is_some();
                let excused = OMITTED_WHEN_UNKNOWN.contains(&(kind, name.as_str()));
                if !present && !excused {
                    let m = format!("{kind}.{part}.{name}");
                    if !missing.contains(&m) {
                        missing.push(m);
                    }
                }
            }
        }
    }
    if missing.is_empty() {
        return;
    }
    let op_key = (method, template);
    assert!(
        !CONFORMING.contains(&op_key) || std::env::var_os("REFERENCE_REPORT").is_some(),
        "{method} {template} {status} leaves out what the reference lists: {}",
        missing.join(", ")
    );
    eprintln!(
        "reference-missing: {method} {template} {status} {}",
        missing.join(", ")
    );
}

/// The graph a JSON:API answer describes, as a client's deserializer builds it:
/// - no resource relates to itself (a relationship naming the resource's own id, as search
///   results' `entity` once did, makes the SDK's object contain itself, and `JSON.stringify`
///   of it fails);
/// - every relationship the request asked to include (`include=a,b.c`, its first step) that
///   names a resource has that resource in `included` (or in `data`), on every path.
pub fn check_graph(method: &str, path: &str, query: Option<&str>, resp: &Resp) {
    if method != "get" || resp.status != 200 || !path.starts_with("/v2/") {
        return;
    }
    let Ok(body) = serde_json::from_str::<Value>(&resp.text) else {
        return;
    };
    let primary: Vec<&Value> = match &body["data"] {
        Value::Array(items) => items.iter().collect(),
        one @ Value::Object(_) => vec![one],
        _ => return,
    };
    let included: Vec<&Value> = body["included"].as_array().into_iter().flatten().collect();
    let linked = |r: &Value| -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        for (name, rel) in r["relationships"].as_object().into_iter().flatten() {
            let items: Vec<&Value> = match &rel["data"] {
                Value::Array(a) => a.iter().collect(),
                one @ Value::Object(_) => vec![one],
                _ => Vec::new(),
            };
            for d in items {
                if let (Some(t), Some(id)) = (d["type"].as_str(), d["id"].as_str()) {
                    out.push((name.clone(), t.to_string(), id.to_string()));
                }
            }
        }
        out
    };
    for r in primary.iter().chain(included.iter()) {
        let own = r["id"].as_str().unwrap_or_default();
        let own_type = r["type"].as_str().unwrap_or_default();
        for (name, t, id) in linked(r) {
            assert!(
                own.is_empty() || id != own || t != own_type,
                "GET {path}: {} {own} relates to itself through {name:?}",
                r["type"]
            );
        }
    }
    let asked: Vec<String> = query
        .into_iter()
        .flat_map(|q| url::form_urlencoded::parse(q.as_bytes()))
        .filter(|(k, _)| k == "include")
        .flat_map(|(_, v)| {
            v.split(',')
                .map(|s| s.trim().split('.').next().unwrap_or_default().to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    let present = |t: &str, id: &str| {
        primary
            .iter()
            .chain(included.iter())
            .any(|x| x["type"] == t && x["id"] == id)
    };
    for r in &primary {
        for (name, t, id) in linked(r) {
            if asked.contains(&name) {
                assert!(
                    present(&t, &id),
                    "GET {path}?{}: {name} {t} {id} was asked for but is not in included",
                    query.unwrap_or_default()
                );
            }
        }
    }
}
