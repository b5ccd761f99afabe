//! Response documents: a JSON tree or text written straight from typed parts, with the
//! JSON:API media type.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use boxtrack_views::jsonapi::MEDIA_TYPE;

/// A response document, sent with the JSON:API media type: a JSON tree that a handler may
/// still adjust, or a document written straight from its typed parts (the reads that carry
/// the most: a container, a page of containers), which never becomes a tree.
#[derive(Debug, Clone)]
pub enum JsonApi {
    /// The document as a JSON tree.
    Tree(Value),
    /// The document written out.
    Text(String),
}

impl JsonApi {
    /// A typed response document.
    pub fn of<T: serde::Serialize>(doc: &T) -> JsonApi {
        // response documents are plain structs of strings, numbers, maps and options:
        // serializing them cannot fail
        JsonApi::Tree(serde_json::to_value(doc).unwrap_or(Value::Null))
    }

    /// The document as a tree to adjust (one written out is read back, which only rare
    /// answers need).
    pub fn tree_mut(&mut self) -> &mut Value {
        if let JsonApi::Text(text) = self {
            *self = JsonApi::Tree(serde_json::from_str(text).unwrap_or(Value::Null));
        }
        match self {
            JsonApi::Tree(v) => v,
            JsonApi::Text(_) => unreachable!("turned into a tree above"),
        }
    }

    /// The document's text.
    pub fn into_text(self) -> String {
        match self {
            JsonApi::Tree(v) => boxtrack_views::jsonapi::written(&v),
            JsonApi::Text(t) => t,
        }
    }

    /// A document whose members are lists of resources written already (`data`, `included`),
    /// each given even when empty.
    pub fn written_lists(members: &[(&str, &[String])]) -> JsonApi {
        let mut out = String::from("{");
        for (i, (name, items)) in members.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&boxtrack_views::jsonapi::written(name));
            out.push(':');
            push_array(&mut out, items);
        }
        out.push('}');
        JsonApi::Text(out)
    }

    /// A document of one primary resource written straight out: `data` (the resource written
    /// out, whose own address `this` is the document's `links.self`) and the resources it
    /// includes, each written already ([`boxtrack_views::jsonapi::Included`]).
    pub fn written_single(data: &str, this: &str, included: &[String]) -> JsonApi {
        let size = included.iter().map(String::len).sum::<usize>();
        let mut out = String::with_capacity(data.len() + size + this.len() + 64);
        out.push_str("{\"data\":");
        out.push_str(data);
        if !included.is_empty() {
            out.push_str(",\"included\":");
            push_array(&mut out, included);
        }
        out.push_str(",\"links\":{\"self\":");
        out.push_str(&boxtrack_views::jsonapi::written(&this));
        out.push_str("}}");
        JsonApi::Text(out)
    }

    /// A response with one primary resource and optional included resources.
    pub fn single(data: Value, included: Vec<Value>) -> JsonApi {
        // the document's own link is the resource's (JSON:API top-level `links.self`)
        let this = data.pointer("/links/self").cloned();
        SingleDocument {
            data,
            links: this.map(|this| SelfLink { this }),
            included,
        }
        .into()
    }
}

/// A document's members as JSON: the resources are moved in as they are (a list's rows are
/// not copied), the small typed members serialized.
pub(crate) fn document(members: Vec<(&str, Value)>) -> JsonApi {
    let mut doc = serde_json::Map::new();
    for (k, v) in members {
        doc.insert(k.into(), v);
    }
    JsonApi::Tree(Value::Object(doc))
}

/// Writes `items`, each JSON already, as a JSON array.
pub(crate) fn push_array(out: &mut String, items: &[String]) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(item);
    }
    out.push(']');
}

impl From<SingleDocument> for JsonApi {
    fn from(d: SingleDocument) -> JsonApi {
        let mut members = vec![("data", d.data)];
        if let Some(l) = d.links {
            members.push(("links", l.into()));
        }
        if !d.included.is_empty() {
            members.push(("included", Value::Array(d.included)));
        }
        document(members)
    }
}

/// A document of one primary resource.
#[derive(Debug, serde::Serialize)]
pub struct SingleDocument {
    /// The resource.
    pub data: Value,
    /// The document's own address (the resource's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub links: Option<SelfLink>,
    /// Resources its relationships name, when asked for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub included: Vec<Value>,
}

/// `links.self` of a document.
#[derive(Debug, serde::Serialize)]
pub struct SelfLink {
    /// The address.
    #[serde(rename = "self")]
    pub this: Value,
}

impl SelfLink {
    /// A link to this address.
    pub fn to(address: impl Into<Value>) -> SelfLink {
        SelfLink {
            this: address.into(),
        }
    }
}

impl From<SelfLink> for Value {
    fn from(l: SelfLink) -> Value {
        serde_json::to_value(l).unwrap_or(Value::Null)
    }
}

/// A whole small collection at once (no paging, so no links): `data`, and `meta` with its
/// size and total (the same).
#[derive(Debug, serde::Serialize)]
pub struct Collection {
    /// Every resource.
    pub data: Vec<Value>,
    /// Resources their relationships name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub included: Vec<Value>,
    /// How many.
    pub meta: Count,
}

/// How many resources a collection holds.
#[derive(Debug, serde::Serialize)]
pub struct Count {
    /// Resources in this answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<usize>,
    /// Resources in all.
    pub total: usize,
}

impl Collection {
    /// The collection of these resources.
    pub fn of(data: Vec<Value>) -> Collection {
        let n = data.len();
        Collection {
            data,
            included: Vec::new(),
            meta: Count {
                size: Some(n),
                total: n,
            },
        }
    }

    /// The collection of these resources, with its total only.
    pub fn counted(data: Vec<Value>) -> Collection {
        let total = data.len();
        Collection {
            data,
            included: Vec::new(),
            meta: Count { size: None, total },
        }
    }
}

impl IntoResponse for JsonApi {
    fn into_response(self) -> Response {
        let mut res = (StatusCode::OK, self.into_text()).into_response();
        res.headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(MEDIA_TYPE));
        res
    }
}
