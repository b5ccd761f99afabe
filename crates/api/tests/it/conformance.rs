//! Every response the suite receives from the application is checked against the served
//! OpenAPI document: its path and method must be documented, its status must be among the
//! operation's responses, its media type among that response's content, and a JSON body must
//! validate against the response's schema (JSON Schema 2020-12, as OpenAPI 3.1 says).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Value, json};

use crate::helpers::Resp;

/// Paths served outside the documented API (scraped, embedded or negotiated elsewhere).
const UNDOCUMENTED: &[&str] = &["/metrics"];

struct Doc {
    document: Value,
    /// Path templates split into segments, literal-first so `/v2/webhooks/events` wins over
    /// `/v2/webhooks/{id}`.
    templates: Vec<(String, Vec<String>)>,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

fn doc() -> &'static Doc {
    static DOC: OnceLock<Doc> = OnceLock::new();
    DOC.get_or_init(|| {
        // as a server that allows internal webhook receivers serves it (the tests' receivers
        // are on 127.0.0.1): a request accepted without that setting matches it too
        let mut document = boxtrack_api::openapi::for_settings(
            boxtrack_api::openapi::document_with(Vec::new()),
            true,
        );
        closed(&mut document);
        let templates = templates(&document);
        Doc {
            document,
            templates,
            validators: Mutex::default(),
        }
    })
}

/// Makes every object schema that lists its properties closed (`additionalProperties: false`
/// unless it says otherwise), so a member the document does not name fails the check: the
/// document must name everything a response carries.
fn closed(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if o.get("properties").is_some_and(Value::is_object)
                && !o.contains_key("additionalProperties")
            {
                o.insert("additionalProperties".into(), Value::Bool(false));
            }
            o.values_mut().for_each(closed);
        }
        Value::Array(a) => a.iter_mut().for_each(closed),
        _ => {}
    }
}

/// The path templates of a document, literal-first so `/v2/webhooks/events` wins over
/// `/v2/webhooks/{id}`.
pub fn templates(document: &Value) -> Vec<(String, Vec<String>)> {
    let mut templates: Vec<(String, Vec<String>)> = document["paths"]
        .as_object()
        .map(|p| {
            p.keys()
                .map(|k| (k.clone(), k.split('/').map(str::to_string).collect()))
                .collect()
        })
        .unwrap_or_default();
    templates.sort_by_key(|(_, segs)| segs.iter().filter(|s| s.starts_with('{')).count());
    templates
}

/// The template `path` matches (`/v2/shipments/1` → `/v2/shipments/{id}`).
pub fn template_for<'a>(templates: &'a [(String, Vec<String>)], path: &str) -> Option<&'a str> {
    let segs: Vec<&str> = path.split('/').collect();
    templates
        .iter()
        .find(|(_, t)| {
            t.len() == segs.len()
                && t.iter()
                    .zip(&segs)
                    .all(|(t, s)| t == s || (t.starts_with('{') && !s.is_empty()))
        })
        .map(|(k, _)| k.as_str())
}

fn template_of<'a>(d: &'a Doc, path: &str) -> Option<&'a str> {
    template_for(&d.templates, path)
}

/// The validator of `schema` within `document` (its `#/components/schemas/…` references
/// resolve), compiled once per `key` into `cache`.
pub fn compiled(
    cache: &Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
    document: &Value,
    key: &str,
    schema: &Value,
) -> Arc<jsonschema::Validator> {
    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
    cache
        .entry(key.to_string())
        .or_insert_with(|| {
            let root = json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "components": document["components"],
                "allOf": [schema],
            });
            let v = jsonschema::draft202012::options()
                .build(&root)
                .unwrap_or_else(|e| panic!("the schema of {key} does not compile: {e}"));
            Arc::new(v)
        })
        .clone()
}

fn validator(d: &Doc, pointer: &str, schema: &Value) -> Arc<jsonschema::Validator> {
    compiled(&d.validators, &d.document, pointer, schema)
}

/// The first violations of `value` against `v`, a line each.
fn violations(v: &jsonschema::Validator, value: &Value) -> Vec<String> {
    v.iter_errors(value)
        .take(8)
        .map(|e| format!("  at {}: {e}", e.instance_path()))
        .collect()
}

/// Panics when `value` does not match the served document's component schema `name` (for
/// bodies the service sends rather than answers, such as webhook deliveries).
pub fn check_component(name: &str, value: &Value) {
    let d = doc();
    let schema = json!({"$ref": format!("#/components/schemas/{name}")});
    let v = validator(d, &format!("component {name}"), &schema);
    let errors = violations(&v, value);
    assert!(
        errors.is_empty(),
        "{name}: the body does not match the served document:\n{}\nbody: {value}",
        errors.join("\n")
    );
}

/// Panics when a request body the application accepted (a 2xx answer) does not match the
/// operation's documented request body: what the document asks for must be what the handler
/// reads.
pub fn check_request(method: &str, path: &str, media: &str, body: &[u8], resp: &Resp) {
    if !(200..300).contains(&resp.status) {
        return;
    }
    let media = media.split(';').next().unwrap_or_default().trim();
    if !media.ends_with("json") {
        return;
    }
    let d = doc();
    let Some(template) = template_of(d, path) else {
        return;
    };
    let op = &d.document["paths"][template][method];
    // an operation that reads no body ignores what was sent
    let Some(content) = op["requestBody"]["content"].as_object() else {
        return;
    };
    let Some(schema) = content.get(media).and_then(|c| c.get("schema")) else {
        panic!(
            "{method} {template}: a {media} body was accepted, but the document names only {:?}",
            content.keys().collect::<Vec<_>>()
        );
    };
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    let pointer = format!("request {method} {template} {media}");
    let v = validator(d, &pointer, schema);
    let errors = violations(&v, &value);
    let report = format!(
        "{method} {template}: an accepted request body does not match the served document:\n{}\nbody: {value}",
        errors.join("\n")
    );
    if std::env::var_os("CONFORMANCE_REPORT").is_some() {
        if !errors.is_empty() {
            eprintln!("conformance: {}", report.replace('\n', " | "));
        }
        return;
    }
    assert!(errors.is_empty(), "{report}");
}

/// Panics when the response does not match the document (with `CONFORMANCE_REPORT=1` in the
/// environment, prints one `conformance:` line per mismatch and goes on, to see them all).
pub fn check(method: &str, path: &str, resp: &Resp) {
    if std::env::var_os("CONFORMANCE_REPORT").is_some() {
        if let Err(e) = std::panic::catch_unwind(|| mismatch(method, path, resp)) {
            let text = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            eprintln!("conformance: {}", text.replace('\n', " | "));
        }
        return;
    }
    mismatch(method, path, resp);
}

fn mismatch(method: &str, path: &str, resp: &Resp) {
    if UNDOCUMENTED.contains(&path) || resp.status == 405 {
        return;
    }
    let d = doc();
    let Some(template) = template_of(d, path) else {
        // an unknown path is a 404 JSON:API error
        assert_eq!(
            resp.status, 404,
            "{method} {path}: not in the served document"
        );
        return;
    };
    let Some(op) = d.document["paths"][template].get(method) else {
        panic!(
            "{method} {path} ({template}): no such operation in the served document ({} came back)",
            resp.status
        );
    };
    let status = resp.status.to_string();
    let range = format!("{}XX", &status[..1]);
    let responses = &op["responses"];
    let (key, response) = [status.as_str(), range.as_str(), "default"]
        .iter()
        .find_map(|k| responses.get(*k).map(|r| (*k, r)))
        .unwrap_or_else(|| {
            panic!(
                "{method} {template}: status {status} is not documented (documented: {:?}); body: {}",
                responses.as_object().map(|o| o.keys().collect::<Vec<_>>()),
                resp.text
            )
        });
    // an answer operations share is in components/responses
    let response = match response["$ref"].as_str() {
        Some(r) => d
            .document
            .pointer(r.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("{method} {template} {status}: {r} resolves to nothing")),
        None => response,
    };
    let media = resp
        .header("content-type")
        .map(|c| c.split(';').next().unwrap_or_default().trim().to_string());
    let Some(content) = response.get("content").and_then(Value::as_object) else {
        assert!(
            resp.text.is_empty(),
            "{method} {template} {status}: the document declares no body, but one came back: {}",
            resp.text
        );
        return;
    };
    if resp.text.is_empty() && resp.status == 304 {
        return;
    }
    let media = media.unwrap_or_default();
    let Some(declared) = content.get(&media) else {
        panic!(
            "{method} {template} {status}: media type {media:?} is not among {:?}",
            content.keys().collect::<Vec<_>>()
        );
    };
    let json_body = media.ends_with("json");
    let Some(schema) = declared.get("schema") else {
        return;
    };
    if !json_body {
        return;
    }
    let body: Value = serde_json::from_str(&resp.text)
        .unwrap_or_else(|e| panic!("{method} {template} {status}: body is not JSON ({e})"));
    let pointer = format!("{method} {template} {key} {media}");
    let v = validator(d, &pointer, schema);
    let errors = violations(&v, &body);
    assert!(
        errors.is_empty(),
        "{method} {template} {status}: the body does not match the served document:\n{}\nbody: {}",
        errors.join("\n"),
        &resp.text[..resp.text.len().min(2000)]
    );
}

/// Operations without an example, and why: what the tour of the sandbox journeys cannot
/// make, or what answers no JSON.
const WITHOUT_EXAMPLE: &[(&str, &str, &str)] = &[
    ("get", "/v2/openapi.json", "the document itself"),
    (
        "get",
        "/v2/document_schemas/{id}",
        "boxtrack has no extraction schemas: always 404",
    ),
    ("get", "/v2/downloads/{token}", "answers the file, not JSON"),
    (
        "put",
        "/v2/uploads/{token}",
        "takes the file's bytes and answers 204",
    ),
    (
        "post",
        "/v2/ingest/dcsa",
        "a carrier's signed push, answered 204",
    ),
    ("post", "/v2/ingest/x12", "takes an X12 file, not JSON"),
    (
        "post",
        "/v2/ingest/edifact",
        "takes an EDIFACT interchange, not JSON",
    ),
    (
        "post",
        "/v2/email_submissions",
        "takes a MIME message, not JSON",
    ),
    (
        "get",
        "/v2/email_submissions/{id}",
        "the tour sends no e-mail",
    ),
    (
        "post",
        "/v2/webhooks/trigger",
        "sends a request to the given URL; the tour sends none",
    ),
    (
        "post",
        "/v2/documents/{id}/reextract",
        "boxtrack extracts nothing: always 501",
    ),
    (
        "post",
        "/v2/documents/{id}/rotate",
        "boxtrack keeps files as uploaded: always 501",
    ),
];

/// Every documented REST operation carries an example answer recorded from a tour of the
/// sandbox journeys (and its request body when it takes one), unless listed in
/// [`WITHOUT_EXAMPLE`] with the reason; each example is an answer (or a request) the document
/// itself allows.
#[tokio::test]
async fn the_served_document_s_examples_match_it() {
    let app = crate::helpers::TestApp::spawn().await;
    let r = app.get("/v2/openapi.json", None).await;
    assert_eq!(r.status, 200);
    // code generators and editors take it: under 600 KB (the reference's is 545 KB)
    assert!(r.text.len() < 600_000, "{} bytes", r.text.len());
    let doc = r.json();
    let cache = Mutex::default();
    let mut missing = Vec::new();
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        if !(path.starts_with("/v2/") || path.starts_with("/rails/")) {
            continue;
        }
        for (method, op) in item.as_object().unwrap() {
            let exempt = WITHOUT_EXAMPLE
                .iter()
                .any(|(m, p, _)| m == method && p == path);
            // a success without a body has nothing to show
            let mut answered = op["responses"]
                .as_object()
                .into_iter()
                .flatten()
                .any(|(status, resp)| status.starts_with('2') && resp.get("content").is_none());
            let mut shown = false;
            for (status, resp) in op["responses"].as_object().into_iter().flatten() {
                for (media, content) in resp["content"].as_object().into_iter().flatten() {
                    let Some(example) = content.get("example") else {
                        continue;
                    };
                    answered = true;
                    shown = true;
                    checked += 1;
                    let v = compiled(
                        &cache,
                        &doc,
                        &format!("{method} {path} {status} {media}"),
                        &content["schema"],
                    );
                    let wrong = violations(&v, example);
                    assert!(
                        wrong.is_empty(),
                        "{method} {path} {status}: the example breaks the document:\n{}",
                        wrong.join("\n")
                    );
                }
            }
            for (media, content) in op["requestBody"]["content"]
                .as_object()
                .into_iter()
                .flatten()
            {
                if let Some(example) = content.get("example") {
                    let v = compiled(
                        &cache,
                        &doc,
                        &format!("{method} {path} request {media}"),
                        &content["schema"],
                    );
                    let wrong = violations(&v, example);
                    assert!(
                        wrong.is_empty(),
                        "{method} {path}: the request example breaks the document:\n{}",
                        wrong.join("\n")
                    );
                }
            }
            if !answered && !exempt {
                missing.push(format!("{} {path}", method.to_uppercase()));
            }
            if shown && exempt {
                panic!("{method} {path} has an example now: take it off WITHOUT_EXAMPLE");
            }
        }
    }
    assert!(
        missing.is_empty(),
        "operations without an example:\n{}",
        missing.join("\n")
    );
    assert!(checked > 80, "{checked} examples");
}
