//! The served OpenAPI 3.1 document, assembled from the operations each route module declares
//! (with the blocks of `boxtrack_http::doc`) and the schemas of the typed resources
//! (`boxtrack_views::schemas`). Route modules never import this module: it imports them.

use serde_json::{Map, Value, json};

use boxtrack_http::doc::{self, Op, Routes};
use boxtrack_http::jsonapi::{ListLinks, ListMeta};
use boxtrack_views::schemas;

use crate::rest::parts;

fn components() -> Value {
    let mut c = base_components();
    for (name, schema) in schemas() {
        c["schemas"][name] = schema;
    }
    c["schemas"]["ListLinks"] = doc::schema_of::<ListLinks>();
    c["schemas"]["ListMeta"] = doc::schema_of::<ListMeta>();
    c
}

fn base_components() -> Value {
    json!({
        "securitySchemes": {
            "Token": {
                "type": "apiKey", "in": "header", "name": "Authorization",
                "description": "`Authorization: Token <API key>`. Keys are created with `boxtrack accounts create` or `POST /v2/api_keys`."
            },
            "Publishable": {
                "type": "apiKey", "in": "header", "name": "Authorization",
                "description": "`Authorization: Token <publishable key>` (`btp_…`), made in the console's portal, by `POST /v2/publishable_keys` or `boxtrack keys create --publishable` for the embeddable map and widget; it reads only `/embed/v1/*`, only its account's data, from its allowed origins."
            },
            "ConsoleSession": {
                "type": "apiKey", "in": "cookie", "name": "btk_console",
                "description": "The web console's session cookie, set by `POST /console/sign-in` (HttpOnly, SameSite=Strict, 12 hours). Its forms also carry the session's CSRF token."
            },
            "OAuthBearer": {
                "type": "http", "scheme": "bearer",
                "description": "`Authorization: Bearer <access token>` from the OAuth 2.1 flow of `/oauth/*` (what AI clients use for `/mcp`)."
            },
            "DcsaSignature": {
                "type": "apiKey", "in": "header", "name": "Notification-Signature",
                "description": "`sha256=<hex>`: the HMAC-SHA256 of the exact body keyed with the base64-decoded DCSA subscription secret (`dcsa_push_secret`)."
            }
        },
        "schemas": {
            "Errors": {
                "type": "object", "required": ["errors"],
                "properties": {"errors": {"type": "array", "items": {
                    "type": "object", "required": ["status", "title"],
                    "properties": {
                        "status": {"type": "string", "examples": ["422"]},
                        "title": {"type": "string"},
                        "detail": {"type": "string"},
                        "code": {"type": "string"},
                        "source": {"type": "object", "properties": {"pointer": {"type": "string"}, "parameter": {"type": "string"}}},
                        "meta": {"type": "object", "description": "More about the error (for a duplicate, the existing resource)"}
                    }
                }}}
            },
            "Relationship": {
                "type": "object",
                "properties": {"data": {"oneOf": [
                    {"type": "null"},
                    {"$ref": "#/components/schemas/ResourceIdentifier"},
                    {"type": "array", "items": {"$ref": "#/components/schemas/ResourceIdentifier"}}
                ]}}
            },
            "SelfLink": {
                "type": "object", "required": ["self"],
                "properties": {"self": {"type": "string", "description": "/v2/<collection>/<id>"}}
            },
            "ResourceIdentifier": {
                "type": "object", "required": ["id", "type"],
                "properties": {"id": {"type": "string", "format": "uuid"}, "type": {"type": "string"}}
            },
        }
    })
}

/// The `operationId` of an operation that declares none (operations the reference also has
/// declare its id with their route: `Doc::reference_id`): one made from the method and
/// the path alike (`get-webhooks-id`).
fn operation_id(method: &str, path: &str) -> String {
    let words: Vec<&str> = path
        .trim_start_matches("/v2/")
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    format!("{method}-{}", words.join("-"))
}

/// OpenAPI `links` from each operation that makes or lists resources to the operations on
/// one of them: a `201` of `POST /v2/x` links to `/v2/x/{id}…` with the new id, a list's
/// `200` with its first row's id; parameters the two paths share are passed on. Clients
/// and schemathesis's stateful phase follow them (create → read → update → delete).
fn add_links(paths: &mut Map<String, Value>) {
    let ops: Vec<(String, String, String)> = paths
        .iter()
        .flat_map(|(path, item)| {
            item.as_object()
                .into_iter()
                .flatten()
                .filter_map(|(method, op)| {
                    op["operationId"]
                        .as_str()
                        .map(|id| (path.clone(), method.clone(), id.to_string()))
                })
        })
        .collect();
    for (path, method, _) in &ops {
        let op = &paths[path][method];
        let (status, row) = if method == "post" && op["responses"].get("201").is_some() {
            ("201", "/data")
        } else if method == "get"
            && op["responses"]["200"]["content"]["application/vnd.api+json"]["schema"]["properties"]
                ["data"]["type"]
                == "array"
        {
            ("200", "/data/0")
        } else {
            continue;
        };
        let shared: Vec<&str> = path
            .split('/')
            .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
            .collect();
        let mut links = Map::new();
        for (target, _, target_id) in &ops {
            let Some(rest) = target
                .strip_prefix(path.as_str())
                .and_then(|r| r.strip_prefix("/{"))
            else {
                continue;
            };
            let Some((param, tail)) = rest.split_once('}') else {
                continue;
            };
            // one new parameter only
            if tail.contains('{') {
                continue;
            }
            let from = if param == "id" || param.ends_with("_id") {
                format!("$response.body#{row}/id")
            } else {
                format!("$response.body#{row}/attributes/{param}")
            };
            let mut parameters = Map::new();
            parameters.insert(param.to_string(), Value::from(from));
            for p in &shared {
                parameters.insert((*p).to_string(), Value::from(format!("$request.path.{p}")));
            }
            links.insert(
                target_id.clone(),
                json!({"operationId": target_id, "parameters": parameters}),
            );
        }
        if !links.is_empty()
            && let Some(r) = paths
                .get_mut(path)
                .and_then(|i| i.get_mut(method))
                .and_then(|o| o["responses"].get_mut(status))
                .and_then(Value::as_object_mut)
        {
            r.insert("links".into(), Value::Object(links));
        }
    }
}

/// Every documented operation of the REST routes, in display order.
pub fn operations() -> Vec<Op> {
    parts().iter().flat_map(Routes::operations).collect()
}

/// The document as this process serves it: where the operator allows webhook receivers on
/// internal addresses (`allow_private_webhook_urls`), webhook URLs may be http:// too, and
/// the document says so.
pub fn for_settings(mut doc: Value, allow_private_webhook_urls: bool) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(o) => {
                if o.get("pattern").and_then(Value::as_str) == Some(doc::HTTPS_URL_PATTERN) {
                    o.insert("pattern".into(), Value::from(doc::HTTP_URL_PATTERN));
                }
                o.values_mut().for_each(walk);
            }
            Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    if allow_private_webhook_urls {
        walk(&mut doc);
    }
    doc
}

/// The document of the REST service alone.
pub fn document() -> Value {
    document_with(Vec::new())
}

/// How an operation outside `/v2`'s API keys is authenticated, by its path, so that every
/// operation of the document says it: the console's pages (but signing in, the reference and
/// the static files) take the console session; MCP an OAuth access token or an API key; a
/// DCSA push its signature; the probes, the document and the static files nothing.
fn security_by_path(path: &str) -> Option<Value> {
    let public = [
        "/healthz",
        "/readyz",
        "/metrics",
        "/docs",
        "/v2/openapi.json",
    ];
    if public.contains(&path) {
        return Some(json!([]));
    }
    if path == "/mcp" || path.starts_with("/mcp/") {
        return Some(json!([{"OAuthBearer": []}, {"Token": []}]));
    }
    if path == "/v2/ingest/dcsa" {
        return Some(json!([{"DcsaSignature": []}]));
    }
    let console_public = path.starts_with("/console/assets/")
        || path == "/console/sign-in"
        || path == "/console/reference";
    if path.starts_with("/console") && !console_public {
        return Some(json!([{"ConsoleSession": []}]));
    }
    None
}

/// The document with the operations of mounted parts (MCP, OAuth) after the REST ones.
pub fn document_with(extra: Vec<Op>) -> Value {
    let mut paths = Map::new();
    for op in operations().into_iter().chain(extra) {
        let entry = paths
            .entry(op.path.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        let mut o = op.op;
        // every /v2 operation takes the account's key unless it says otherwise (a public
        // one declares `security: []`)
        if op.path.starts_with("/v2/")
            && op.path != "/v2/openapi.json"
            && o.get("security").is_none()
        {
            o["security"] = json!([{"Token": []}]);
        }
        if let Some(security) = security_by_path(op.path) {
            o["security"] = security;
        }
        // any /v2 operation answers a query parameter it does not take with 400
        // (`middleware::RequestShape`)
        if op.path.starts_with("/v2/")
            && o["responses"].get("400").is_none()
            && let Some(r) = o["responses"].as_object_mut()
        {
            r.insert(
                "400".into(),
                doc::body(
                    "Malformed request, or a query parameter the operation does not take (source.parameter names it)",
                    doc::schema_ref("Errors"),
                ),
            );
        }
        // any operation may find the service unable to answer now (middleware::EdgeLayer,
        // ApiError::database_unavailable, listen.rs's connection cap)
        if let Some(r) = o["responses"].as_object_mut() {
            let unavailable = doc::errors(&[503]);
            for (status, body) in unavailable {
                r.entry(status).or_insert(body);
            }
        }
        if o.get("operationId").is_none() {
            o["operationId"] = Value::from(operation_id(op.method, op.path));
        }
        entry[op.method] = o;
    }
    add_links(&mut paths);
    let responses = shared_error_responses(&mut paths);
    let mut components = components();
    components["responses"] = Value::Object(responses);
    for (name, schema) in shared_request_schemas(&mut paths) {
        components["schemas"][name] = schema;
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "boxtrack API",
            "version": env!("CARGO_PKG_VERSION"),
            // the quickstart, authentication, limits, errors and how to check a webhook's
            // signature (examples in four languages): docs/api-guide.md
            "description": include_str!("../../../docs/api-guide.md")
        },
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": components,
    })
}

/// Moves the schema of each request body that several media types take alike (JSON:API's and
/// plain JSON's) into `components/schemas` as `<method>-<path>.body`, and points each media type
/// at it (`$ref`): each was written out once per media type, close to a tenth of the
/// document.
fn shared_request_schemas(paths: &mut Map<String, Value>) -> Vec<(String, Value)> {
    let mut moved: Vec<(String, Value)> = Vec::new();
    for (path, item) in paths.iter_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for (method, op) in item.iter_mut() {
            // named by method and path: an operation id may stand for two routes
            let id = operation_id(method, path);
            let Some(content) = op
                .get_mut("requestBody")
                .and_then(|b| b.get_mut("content"))
                .and_then(Value::as_object_mut)
            else {
                continue;
            };
            let schemas: Vec<&Value> = content.values().filter_map(|m| m.get("schema")).collect();
            let alike = schemas.len() > 1 && schemas.windows(2).all(|w| w[0] == w[1]);
            let Some(schema) = schemas.first().filter(|_| alike).map(|s| (*s).clone()) else {
                continue;
            };
            // an operation whose body is another's (a PATCH as its POST) points at that one
            let name = match moved.iter().find(|(_, s)| *s == schema) {
                Some((name, _)) => name.clone(),
                None => {
                    let name = format!("{id}.body");
                    moved.push((name.clone(), schema));
                    name
                }
            };
            let reference = json!({"$ref": format!("#/components/schemas/{name}")});
            for media in content.values_mut() {
                media["schema"] = reference.clone();
            }
        }
    }
    moved
}

/// Moves the error answers (status 400 and up) that operations share into
/// `components/responses` and points at them (`$ref`): each operation wrote the same few
/// answers in full (a 503, a 429, a 401 …), a fifth of the document. The first answer of a
/// status is `Error<status>`, another text of the same status `Error<status>_<n>`.
fn shared_error_responses(paths: &mut Map<String, Value>) -> Map<String, Value> {
    let mut shared: Map<String, Value> = Map::new();
    for item in paths.values_mut().filter_map(Value::as_object_mut) {
        for op in item.values_mut() {
            let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
                continue;
            };
            for (status, answer) in responses.iter_mut() {
                if status.as_str() < "400" || answer.get("$ref").is_some() {
                    continue;
                }
                let name = match shared.iter().find(|(_, v)| *v == answer) {
                    Some((name, _)) => name.clone(),
                    None => {
                        let same = shared
                            .keys()
                            .filter(|k| {
                                k.strip_prefix("Error")
                                    .is_some_and(|r| r.starts_with(status.as_str()))
                            })
                            .count();
                        let name = match same {
                            0 => format!("Error{status}"),
                            n => format!("Error{status}_{n}"),
                        };
                        shared.insert(name.clone(), answer.clone());
                        name
                    }
                };
                *answer = json!({"$ref": format!("#/components/responses/{name}")});
            }
        }
    }
    shared
}
