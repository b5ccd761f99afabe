//! JSON:API building blocks: resource objects and relationships.

use serde_json::{Value, json};

/// Builds a resource object; `links.self` is the relative path `/v2/<collection>/<id>`.
pub fn resource(
    kind: &str,
    id: impl ToString,
    collection: &str,
    attributes: Value,
    relationships: Option<Value>,
) -> Value {
    let id = id.to_string();
    let mut r = json!({
        "id": id,
        "type": kind,
        "attributes": attributes,
        "links": { "self": format!("/v2/{collection}/{id}") },
    });
    if let Some(rel) = relationships {
        r["relationships"] = rel;
    }
    r
}

/// A to-one relationship `{data: {id, type}}` (or `{data: null}`).
pub fn to_one(kind: &str, id: Option<impl ToString>) -> Value {
    match id {
        Some(id) => json!({ "data": { "id": id.to_string(), "type": kind } }),
        None => json!({ "data": null }),
    }
}
