//! The served OpenAPI 3.1 document, assembled from the operations each route module declares
//! (with the blocks of `crate::doc`) and the schemas of the typed resources
//! (`boxtrack_views::schemas`). Route modules never import this module: it imports them.

use serde_json::{Map, Value, json};

use crate::doc::Op;

fn components() -> Value {
    let mut c = base_components();
    for (name, schema) in boxtrack_views::schemas() {
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
            },
            "Publishable": {
                "type": "apiKey", "in": "header", "name": "Authorization",
                "description": "`Authorization: Token <publishable key>` (`btp_…`), made in the console's portal for the embeddable map and widget; it reads only `/embed/v1/*`, only its account's data, from its allowed origins."
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
            // absolute http(s) addresses whose query keeps `[` and `]` unescaped in parameter
            // names, as the reference writes them (`page[size]=30`): not RFC 3986 URIs, so no
            // `format: uri`
            "ListLinks": {
                "type": "object",
                "properties": {
                    "self": {"$ref": "#/components/schemas/PageLink"}, "current": {"$ref": "#/components/schemas/PageLink"},
                    "first": {"$ref": "#/components/schemas/PageLink"}, "prev": {"$ref": "#/components/schemas/PageLink"},
                    "next": {"$ref": "#/components/schemas/PageLink"}, "last": {"$ref": "#/components/schemas/PageLink"}
                }
            },
            "PageLink": {
                "type": "string", "pattern": "^https?://",
                "description": "An absolute address of a page of the list; `[` and `]` in parameter names are not percent-encoded (`page[size]=30`), as the reference writes them."
            },
            "ListMeta": {
                "type": "object",
                "required": ["size", "total", "pagination"],
                "properties": {
                    "size": {"type": "integer", "description": "Rows per page"},
                    "total": {"type": "integer", "description": "Rows in the whole list. Unfiltered lists of shipments, containers and tracking requests are always exact; other lists count at most 10,000 matching rows per request, and past that this is a lower bound and `total_exact` is false"},
                    "total_exact": {"type": "boolean", "description": "Present (false) only when `total` is a lower bound: more rows match than are counted per request. There is then no `last` page; follow `links.next`"},
                    "pagination": {
                        "type": "object", "required": ["current", "records"],
                        "properties": {
                            "current": {"type": "integer", "description": "This page's number"},
                            "last": {"type": "integer", "description": "The last page's number (absent when the total is a lower bound)"},
                            "next": {"type": "integer", "description": "The next page's number, when there is one"},
                            "records": {"type": "integer", "description": "Rows in the whole list"}
                        }
                    }
                }
            },
        }
    })
}

/// Every documented operation of the REST routes, in display order.
pub fn operations() -> Vec<Op> {
    crate::rest::parts()
        .into_iter()
        .flat_map(|p| (p.operations)())
        .collect()
}

/// The document as this process serves it: where the operator allows webhook receivers on
/// internal addresses (`allow_private_webhook_urls`), webhook URLs may be http:// too, and
/// the document says so.
pub fn for_settings(mut doc: Value, allow_private_webhook_urls: bool) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(o) => {
                if o.get("pattern").and_then(Value::as_str) == Some(crate::doc::HTTPS_URL_PATTERN) {
                    o.insert("pattern".into(), Value::from(crate::doc::HTTP_URL_PATTERN));
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
        // any /v2 operation answers a query parameter it does not take with 400
        // (`middleware::known_query`)
        if op.path.starts_with("/v2/")
            && o["responses"].get("400").is_none()
            && let Some(r) = o["responses"].as_object_mut()
        {
            r.insert(
                "400".into(),
                crate::doc::body(
                    "Malformed request, or a query parameter the operation does not take (source.parameter names it)",
                    crate::doc::schema_ref("Errors"),
                ),
            );
        }
        entry[op.method] = o;
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
        "components": components(),
    })
}
