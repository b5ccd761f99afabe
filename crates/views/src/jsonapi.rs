//! JSON:API building blocks: typed resource objects ([`Resource`] of a [`Kind`]),
//! relationships and timestamps, whose schemas are derived from the same types that are
//! serialized; and the untyped [`resource`] / [`to_one`] of resources not typed yet.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde_json::{Value, json};

/// The JSON:API media type.
pub const MEDIA_TYPE: &str = "application/vnd.api+json";

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

/// A resource identifier object: `{id, type}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Identifier {
    /// The resource's id.
    pub id: String,
    /// The resource's type.
    #[serde(rename = "type")]
    pub kind: String,
}

impl Identifier {
    /// The identifier of a `kind` resource.
    pub fn new(kind: &str, id: impl IdText) -> Identifier {
        Identifier {
            id: id.id_text(),
            kind: kind.to_string(),
        }
    }
}

/// What a resource's id is written as: a UUID's hyphenated lower-case text (written straight
/// into the string, not through `Display`'s formatter: a shown container names ten), or a
/// text id as it is.
pub trait IdText {
    /// The id's text.
    fn id_text(self) -> String;
}

impl IdText for uuid::Uuid {
    fn id_text(self) -> String {
        let mut buf = uuid::Uuid::encode_buffer();
        self.hyphenated().encode_lower(&mut buf).to_owned()
    }
}

impl IdText for &uuid::Uuid {
    fn id_text(self) -> String {
        (*self).id_text()
    }
}

impl IdText for String {
    fn id_text(self) -> String {
        self
    }
}

impl IdText for &String {
    fn id_text(self) -> String {
        self.clone()
    }
}

impl IdText for &str {
    fn id_text(self) -> String {
        self.to_owned()
    }
}

/// A to-one relationship: `{data: {id, type}}` or `{data: null}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ToOne {
    /// The related resource, or null.
    pub data: Option<Identifier>,
}

impl ToOne {
    /// A relationship to a `kind` resource, or to none.
    pub fn new(kind: &str, id: Option<impl IdText>) -> ToOne {
        ToOne {
            data: id.map(|id| Identifier::new(kind, id)),
        }
    }

    /// A relationship to nothing (`{data: null}`).
    pub fn none() -> ToOne {
        ToOne { data: None }
    }
}

/// A to-many relationship: `{data: [{id, type}, …]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ToMany {
    /// The related resources.
    pub data: Vec<Identifier>,
}

impl ToMany {
    /// A relationship to these `kind` resources.
    pub fn new<I: IdText>(kind: &str, ids: impl IntoIterator<Item = I>) -> ToMany {
        ToMany {
            data: ids
                .into_iter()
                .map(|id| Identifier::new(kind, id))
                .collect(),
        }
    }
}

/// `value` as JSON text, written by [`crate::json`] (serde_json's text, escaped faster). The
/// response parts written so are plain structs of strings, numbers, options and lists; what
/// that writer leaves to serde_json is written by serde_json, and `null` stands in if that
/// ever failed too.
pub fn written<T: Serialize + ?Sized>(value: &T) -> String {
    crate::json::to_string(value)
        .or_else(|_| serde_json::to_string(value))
        .unwrap_or_else(|_| "null".into())
}

/// The resources a document includes, each once (JSON:API), written out as they are added:
/// a document assembled from written parts never becomes a JSON tree.
#[derive(Debug, Default)]
pub struct Included {
    keys: std::collections::HashSet<(String, String)>,
    written: Vec<String>,
}

impl Included {
    /// Adds a typed resource, made by `make` only when its id is not included yet.
    pub fn typed<K: Kind>(&mut self, id: uuid::Uuid, make: impl FnOnce() -> Resource<K>) {
        if self.keys.insert((K::TYPE.to_string(), id.to_string())) {
            self.written.push(written(&make()));
        }
    }

    /// Adds a resource written by `write` only when no `kind` resource of its id is included
    /// yet.
    pub fn written(&mut self, kind: &str, id: uuid::Uuid, write: impl FnOnce() -> String) {
        let key = (kind.to_string(), id.to_string());
        if !self.keys.contains(&key) {
            self.written.push(write());
            self.keys.insert(key);
        }
    }

    /// Adds a resource built as a JSON value (one with a string `id` and `type`).
    pub fn value(&mut self, resource: &Value) {
        let key = (
            resource["type"].as_str().unwrap_or_default().to_string(),
            resource["id"].as_str().unwrap_or_default().to_string(),
        );
        if self.keys.insert(key) {
            self.written.push(written(resource));
        }
    }

    /// The resources in the order they were added.
    pub fn into_written(self) -> Vec<String> {
        self.written
    }
}

/// Adds a resource to an `included` list unless one of the same type and id is there
/// (JSON:API: each resource at most once in a document).
pub fn include_once(included: &mut Vec<Value>, resource: Value) {
    if !included
        .iter()
        .any(|i| i["id"] == resource["id"] && i["type"] == resource["type"])
    {
        included.push(resource);
    }
}

/// A to-many relationship given by its link (`{links: {related}}`): too many to list with
/// every resource, and listed in `data` when the request includes them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RelatedMany {
    /// Where the related resources are listed.
    pub links: RelatedLink,
    /// The related resources, when the request included them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Vec<Identifier>>,
}

/// The `related` link of a relationship.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RelatedLink {
    /// The related collection's path, e.g. `/v2/containers/{id}/raw_events`.
    pub related: String,
}

impl RelatedMany {
    /// The relationship whose resources `path` lists.
    pub fn at(path: String) -> RelatedMany {
        RelatedMany {
            links: RelatedLink { related: path },
            data: None,
        }
    }
}

/// A timestamp, shown as RFC 3339 UTC (`2026-11-25T12:00:00Z`); stored as Unix microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct At(pub i64);

impl At {
    /// An optional timestamp.
    pub fn opt(us: Option<i64>) -> Option<At> {
        us.map(At)
    }
}

impl Serialize for At {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // written on the stack: a rendered resource shows some two dozen timestamps
        let mut buf = [0u8; 20];
        match boxtrack_core::time::write_micros(self.0, &mut buf) {
            Some(text) => s.serialize_str(text),
            None => s.serialize_str(&boxtrack_core::time::format_micros(self.0)),
        }
    }
}

impl JsonSchema for At {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "At".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "format": "date-time"})
    }
}

/// One resource type of the API: its JSON:API `type`, its collection path, the name of its
/// schema in the OpenAPI document and the shapes of its attributes and relationships.
pub trait Kind {
    /// The JSON:API `type` (`container`).
    const TYPE: &'static str;
    /// The collection under `/v2` (`containers`), for `links.self`.
    const COLLECTION: &'static str;
    /// The schema's name in the OpenAPI document (`Container`).
    const NAME: &'static str;
    /// The attributes object.
    type Attributes: Serialize + JsonSchema;
    /// The relationships object.
    type Relationships: Serialize + JsonSchema;
    /// Whether the resource has relationships (without, the member is left out).
    const HAS_RELATIONSHIPS: bool = true;
    /// A `links.download` at `/v2/<collection>/<id>/<this>`, for resources with a file.
    const DOWNLOAD: Option<&'static str> = None;
}

/// The relationships of a resource that has none.
#[derive(Debug, Serialize, JsonSchema)]
pub struct NoRelationships {}

/// A resource object: `{id, type, attributes, relationships, links: {self}}`.
pub struct Resource<K: Kind> {
    /// The resource's id.
    pub id: uuid::Uuid,
    /// Its attributes.
    pub attributes: K::Attributes,
    /// Its relationships.
    pub relationships: K::Relationships,
}

impl<K: Kind> Resource<K> {
    /// The resource as a JSON value (for documents still assembled as values).
    pub fn to_value(&self) -> Value {
        // the attribute and relationship types are plain structs of strings, numbers and
        // options: serializing them cannot fail
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl<K: Kind> Serialize for Resource<K> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        #[derive(Serialize)]
        struct Links {
            #[serde(rename = "self")]
            this: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            download: Option<String>,
        }
        let mut r = s.serialize_struct("Resource", 5)?;
        r.serialize_field("id", &self.id)?;
        r.serialize_field("type", K::TYPE)?;
        r.serialize_field("attributes", &self.attributes)?;
        if K::HAS_RELATIONSHIPS {
            r.serialize_field("relationships", &self.relationships)?;
        }
        let this = format!("/v2/{}/{}", K::COLLECTION, self.id);
        r.serialize_field(
            "links",
            &Links {
                download: K::DOWNLOAD.map(|d| format!("{this}/{d}")),
                this,
            },
        )?;
        r.end()
    }
}

impl<K: Kind> JsonSchema for Resource<K> {
    fn schema_name() -> Cow<'static, str> {
        K::NAME.into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let attributes = generator.subschema_for::<K::Attributes>();
        let mut links = json!({
            "type": "object",
            "required": ["self"],
            "properties": {"self": {"type": "string", "description": "/v2/<collection>/<id>"}}
        });
        if let Some(d) = K::DOWNLOAD {
            links["required"] = json!(["self", "download"]);
            links["properties"]["download"] =
                json!({"type": "string", "description": format!("/v2/<collection>/<id>/{d}")});
        }
        let mut required = vec!["id", "type", "attributes", "links"];
        let mut schema = json_schema!({
            "type": "object",
            "properties": {
                "id": {"type": "string", "format": "uuid"},
                "type": {"const": K::TYPE},
                "attributes": attributes,
                "links": links
            }
        });
        if K::HAS_RELATIONSHIPS {
            let relationships = generator.subschema_for::<K::Relationships>();
            if let Some(p) = schema.get_mut("properties").and_then(Value::as_object_mut) {
                p.insert("relationships".into(), relationships.to_value());
            }
            required.push("relationships");
        }
        schema.insert("required".into(), json!(required));
        schema
    }
}
