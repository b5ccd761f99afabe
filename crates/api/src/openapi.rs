//! The served OpenAPI 3.1 document, assembled from the operations each route module declares.
//!
//! Every route module lists its operations next to its handlers ([`Op`]); the router and this
//! document are both built from those lists, and a test checks that they agree.

use serde_json::{Map, Value, json};

/// One documented operation.
pub struct Op {
    /// HTTP method, lowercase (`get`, `post`, ...).
    pub method: &'static str,
    /// Path template with `{param}` segments, e.g. `/v2/api_keys/{id}`.
    pub path: &'static str,
    /// The OpenAPI operation object.
    pub op: Value,
}

/// `$ref` to a component schema.
pub fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

/// A JSON:API response body of `schema`.
pub fn body(description: &str, schema: Value) -> Value {
    json!({
        "description": description,
        "content": { "application/vnd.api+json": { "schema": schema } }
    })
}

/// The standard error responses for the given statuses.
pub fn errors(statuses: &[u16]) -> Map<String, Value> {
    statuses
        .iter()
        .map(|s| {
            let text = match s {
                400 => {
                    "Malformed request or failed validation (source names the parameter or pointer)"
                }
                401 => "Missing, malformed, unknown or revoked API key",
                403 => "The account lacks the entitlement for this feature",
                404 => "No such resource for this account",
                415 => "The request body is not application/vnd.api+json or application/json",
                422 => "Well-formed, but the content was rejected",
                429 => "Rate limit exceeded; Retry-After says how many seconds to wait",
                502 => "An upstream (carrier, terminal) could not be read",
                503 => "The database is not reachable",
                _ => "Error",
            };
            (s.to_string(), body(text, schema_ref("Errors")))
        })
        .collect()
}

/// Paging parameters of every list.
pub fn page_params() -> Vec<Value> {
    vec![
        json!({"name": "page[number]", "in": "query", "schema": {"type": "integer", "minimum": 1, "default": 1}, "description": "1-based page number"}),
        json!({"name": "page[size]", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 30}, "description": "Rows per page (at most 100; larger is 400)"}),
        json!({"name": "page[after]", "in": "query", "schema": {"type": "string"}, "description": "Cursor written into links.next; follow links rather than building it"}),
        json!({"name": "page[before]", "in": "query", "schema": {"type": "string"}, "description": "Cursor written into links.prev"}),
    ]
}

/// Plain string query parameters (filters) with their descriptions.
pub fn query_params(list: &[(&str, &str)]) -> Vec<Value> {
    list.iter()
        .map(|(name, d)| json!({"name": name, "in": "query", "schema": {"type": "string"}, "description": d}))
        .collect()
}

/// The `include` parameter with its allowed relation names.
pub fn include_param(allowed: &[&str]) -> Value {
    json!({
        "name": "include", "in": "query",
        "description": format!("Comma-separated relationships to embed in `included`: {}", allowed.join(", ")),
        "schema": {"type": "string"}
    })
}

/// A UUID path parameter named `id`.
pub fn id_param(what: &str) -> Value {
    json!({"name": "id", "in": "path", "required": true, "schema": {"type": "string", "format": "uuid"}, "description": format!("{what} id")})
}

/// Builds an operation object.
pub fn operation(
    tag: &str,
    summary: &str,
    description: &str,
    params: Vec<Value>,
    request: Option<Value>,
    mut responses: Map<String, Value>,
    ok: (&str, Value),
) -> Value {
    responses.insert(ok.0.to_string(), ok.1);
    let mut op = json!({
        "tags": [tag],
        "summary": summary,
        "description": description,
        "parameters": params,
        "responses": responses,
    });
    if let Some(r) = request {
        op["requestBody"] = json!({
            "required": true,
            "content": {
                "application/vnd.api+json": {"schema": r},
                "application/json": {"schema": r}
            }
        });
    }
    op
}

fn components() -> Value {
    let mut c = base_components();
    for (name, schema) in boxtrack_views::schemas() {
        c["schemas"][name] = schema;
    }
    for (name, schema) in crate::routes::custom_fields::schemas() {
        c["schemas"][name] = schema;
    }
    c
}

fn base_components() -> Value {
    json!({
        "securitySchemes": {
            "Token": {
                "type": "apiKey", "in": "header", "name": "Authorization",
                "description": "`Authorization: Token <API key>`. Keys are created with `boxtrack accounts create` or `POST /v2/api_keys`."
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
            "ListLinks": {
                "type": "object",
                "properties": {
                    "self": {"type": "string", "format": "uri"}, "current": {"type": "string", "format": "uri"},
                    "first": {"type": "string", "format": "uri"}, "prev": {"type": "string", "format": "uri"},
                    "next": {"type": "string", "format": "uri"}, "last": {"type": "string", "format": "uri"}
                }
            },
            "ListMeta": {
                "type": "object",
                "required": ["size", "total", "pagination"],
                "properties": {
                    "size": {"type": "integer", "description": "Rows per page"},
                    "total": {"type": "integer", "description": "Rows in the whole list"},
                    "pagination": {
                        "type": "object", "required": ["current", "last", "records"],
                        "properties": {
                            "current": {"type": "integer", "description": "This page's number"},
                            "last": {"type": "integer", "description": "The last page's number"},
                            "next": {"type": "integer", "description": "The next page's number, when there is one"},
                            "records": {"type": "integer", "description": "Rows in the whole list"}
                        }
                    }
                }
            },
            "Account": crate::routes::account::schema(),
            "ApiKey": crate::routes::api_keys::schema(),
            "Webhook": crate::routes::webhooks::schema(),
            "Document": crate::routes::documents::schema(),
            "Party": crate::routes::parties::schema(),
            "EmailSubmission": crate::routes::email_submissions::schema(),
        }
    })
}

/// A list document schema for a resource schema.
pub fn list_of(resource: &str) -> Value {
    json!({
        "type": "object", "required": ["data", "links", "meta"],
        "properties": {
            "data": {"type": "array", "items": schema_ref(resource)},
            "included": {"type": "array", "items": {"type": "object"}},
            "links": schema_ref("ListLinks"),
            "meta": schema_ref("ListMeta")
        }
    })
}

/// A document holding a whole small collection at once (no paging, so no links):
/// `data` and `meta.total`.
pub fn all_of(resource: &str) -> Value {
    json!({
        "type": "object", "required": ["data", "meta"],
        "properties": {
            "data": {"type": "array", "items": schema_ref(resource)},
            "meta": {"type": "object", "required": ["total"], "properties": {"total": {"type": "integer"}}}
        }
    })
}

/// A single-resource document schema.
pub fn single(resource: &str) -> Value {
    json!({
        "type": "object", "required": ["data"],
        "properties": {
            "data": schema_ref(resource),
            "included": {"type": "array", "items": {"type": "object"}}
        }
    })
}

/// The whole document.
pub fn document() -> Value {
    let mut paths = Map::new();
    for op in crate::routes::operations() {
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
        entry[op.method] = o;
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "boxtrack API",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Self-hosted ocean container and shipment tracking. JSON:API under /v2; every /v2 request carries `Authorization: Token <API key>`. Rate limits are per account over a rolling 60-second window; every response carries `RateLimit` and `RateLimit-Policy` headers, and a refused request gets 429 with `Retry-After`."
        },
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": components(),
    })
}
