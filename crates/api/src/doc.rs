//! The building blocks of the served OpenAPI document that route modules use to describe
//! their operations: [`Op`], parameters, bodies, error responses and document shapes. This
//! module names no route; `crate::openapi` assembles the document from the modules.

use axum::Router;
use axum::routing::MethodRouter;
use serde_json::{Map, Value, json};

use crate::state::AppState;

/// The schema of a request body type as it is read (what deserializing it accepts), inline:
/// request documents describe themselves with the struct the handler deserializes.
pub fn request_schema_of<T: schemars::JsonSchema>() -> Value {
    let mut s = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Some(o) = s.as_object_mut() {
        o.remove("title");
    }
    s
}

/// A module's routes together with the documentation of their operations: what a route
/// module (and a mounted crate such as MCP) hands to the service, so a route and its
/// documentation are declared in the same place.
pub struct Routes {
    /// Routes that need an API key (the service puts them behind the key check and the
    /// rate limits).
    pub authenticated: Router<AppState>,
    /// Routes that carry their own credential, or need none.
    pub public: Router<AppState>,
    /// The operations of both, built only when the document is (not each time the routes
    /// are, as MCP tools do per call).
    pub operations: fn() -> Vec<Op>,
}

impl Routes {
    /// No routes yet; these operations.
    pub fn new(operations: fn() -> Vec<Op>) -> Routes {
        Routes {
            authenticated: Router::new(),
            public: Router::new(),
            operations,
        }
    }

    /// A route that needs an API key.
    pub fn route(mut self, path: &str, handler: MethodRouter<AppState>) -> Routes {
        self.authenticated = self.authenticated.route(path, handler);
        self
    }

    /// A route that carries its own credential or needs none.
    pub fn public(mut self, path: &str, handler: MethodRouter<AppState>) -> Routes {
        self.public = self.public.route(path, handler);
        self
    }
}

/// The schema of a response type as it is serialized, inline (no references): the documents
/// that are not resources (search results, source health, reports) describe themselves with
/// the same struct the handler serializes.
pub fn schema_of<T: schemars::JsonSchema>() -> Value {
    let mut s = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Some(o) = s.as_object_mut() {
        o.remove("title");
    }
    s
}

/// One documented operation.
#[derive(Debug, Clone)]
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
                501 => "Something the reference does that boxtrack deliberately does not do (the detail says what to do instead)",
                502 => "An upstream (carrier, terminal) could not be read",
                503 => "The service cannot answer now (code `database_unavailable`, `storage_full`, `request_timeout` or `connection_limit`); retry after Retry-After when it is given",
                _ => "Error",
            };
            (s.to_string(), body(text, schema_ref("Errors")))
        })
        .collect()
}

/// Paging parameters of every list.
pub fn page_params() -> Vec<Value> {
    vec![
        json!({"name": "page[number]", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": u32::MAX, "default": 1}, "description": "1-based page number"}),
        json!({"name": "page[size]", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 30}, "description": "Rows per page (at most 100; larger is 400)"}),
        json!({"name": "page[after]", "in": "query", "schema": {"type": "string", "pattern": CURSOR_PATTERN}, "description": "Cursor written into links.next; follow links rather than building it"}),
        json!({"name": "page[before]", "in": "query", "schema": {"type": "string", "pattern": CURSOR_PATTERN}, "description": "Cursor written into links.prev (when page[after] is given too, both must be cursors and page[after] is followed)"}),
    ]
}

/// An absolute https:// address with a host name or IPv4 address (and a port, path, query
/// or fragment; no IPv6 literal, no user info): what webhook URLs take. Internal addresses match too and are refused with
/// a 422 unless the operator allows them.
pub const HTTPS_URL_PATTERN: &str =
    "^https://[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]{1,5})?([/?#][^\\s]*)?$";

/// [`HTTPS_URL_PATTERN`] with http:// allowed too: webhook URLs where the operator allows
/// internal receivers.
pub const HTTP_URL_PATTERN: &str =
    "^https?://[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]{1,5})?([/?#][^\\s]*)?$";

/// The shape of a page cursor: the sort key's microseconds, a dot, the row id in hex (or
/// nothing: an empty parameter is as if not given).
const CURSOR_PATTERN: &str = "^(-?[0-9]{1,18}[.][0-9a-fA-F]{32})?$";

/// What a typed query parameter takes. Every kind also admits the empty value, which is as
/// if the parameter were not given ([`crate::jsonapi::QueryParams::parse`]); values are
/// taken as written (not trimmed).
#[derive(Debug, Clone)]
pub enum Q {
    /// Any text.
    Text,
    /// An RFC 3339 instant (`2026-01-31T00:00:00Z`, any offset).
    Time,
    /// `true` or `false`.
    Bool,
    /// A UUID in its hyphenated form.
    Uuid,
    /// One of these words.
    OneOf(Vec<&'static str>),
    /// A comma-separated list of these words.
    ListOf(Vec<&'static str>),
}

/// The schema of a query parameter of this kind.
pub fn q_schema(kind: &Q) -> Value {
    let words = |w: &[&str]| {
        w.iter()
            .map(|a| regex_escape(a))
            .collect::<Vec<_>>()
            .join("|")
    };
    match kind {
        Q::Text => json!({"type": "string"}),
        Q::Time => json!({"type": "string", "anyOf": [{"format": "date-time"}, {"maxLength": 0}]}),
        Q::Bool => json!({"type": "string", "enum": ["true", "false", ""]}),
        Q::Uuid => json!({"type": "string", "anyOf": [{"format": "uuid"}, {"maxLength": 0}]}),
        Q::OneOf(w) => {
            let mut e: Vec<&str> = w.clone();
            e.push("");
            json!({"type": "string", "enum": e})
        }
        Q::ListOf(w) => {
            let one = words(w);
            json!({"type": "string", "pattern": format!("^(({one})(,({one}))*)?$")})
        }
    }
}

/// `s` with the characters that are special in a regular expression escaped.
fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The query parameters of a use case's typed input ([`boxtrack_app`]), made from its schema:
/// a nested field is a bracketed name (`filter[pickup_lfd][start]`), its doc line the
/// description (a range's ends say what they bound), and its schema the query-string form of
/// what the field takes (as [`q_schema`] writes each kind: the empty value admitted).
pub fn query_params_of<T: schemars::JsonSchema>() -> Vec<Value> {
    let mut out = Vec::new();
    params_in(&request_schema_of::<T>(), None, None, &mut out);
    out
}

/// The parameters of `schema`'s properties under `prefix`; `about` is what the enclosing
/// field bounds (a range's ends name it).
fn params_in(schema: &Value, prefix: Option<&str>, about: Option<&str>, out: &mut Vec<Value>) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, s) in props {
        let full = prefix.map_or_else(|| name.clone(), |p| format!("{p}[{name}]"));
        let s = without_null(s);
        let doc = s
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if s.get("properties").is_some() {
            // a top-level group (`filter`) names nothing; a field within one does
            params_in(&s, Some(&full), prefix.map(|_| doc), out);
            continue;
        }
        let description = match about {
            Some(a) => format!("{a}: {}", lowercase_first(doc)),
            None => doc.to_string(),
        };
        out.push(json!({"name": full, "in": "query", "schema": query_schema(&s), "description": description}));
    }
}

/// A field's schema without the `null` an optional field admits.
fn without_null(s: &Value) -> Value {
    let mut s = s.clone();
    if let Some(t) = s.get("type").and_then(Value::as_array) {
        let kept: Vec<Value> = t.iter().filter(|x| *x != "null").cloned().collect();
        if let [one] = kept.as_slice() {
            s["type"] = one.clone();
        }
    }
    if let Some(any) = s.get("anyOf").and_then(Value::as_array) {
        let kept: Vec<&Value> = any.iter().filter(|x| x["type"] != "null").collect();
        if let [one] = kept.as_slice() {
            let mut inner = (*one).clone();
            if let (Some(o), Some(d)) = (inner.as_object_mut(), s.get("description")) {
                o.insert("description".into(), d.clone());
            }
            return inner;
        }
    }
    s
}

/// What a query string writes for a field of this JSON schema.
fn query_schema(s: &Value) -> Value {
    if s["type"] == "boolean" {
        return q_schema(&Q::Bool);
    }
    if let Some(words) = s.get("enum").and_then(Value::as_array) {
        let mut e = words.clone();
        e.push(json!(""));
        return json!({"type": "string", "enum": e});
    }
    match s.get("format").and_then(Value::as_str) {
        Some("date-time") => return q_schema(&Q::Time),
        Some("uuid") => return q_schema(&Q::Uuid),
        _ => {}
    }
    match s.get("pattern") {
        Some(p) => json!({"type": "string", "pattern": p}),
        None => q_schema(&Q::Text),
    }
}

/// `s` with its first letter in lower case.
fn lowercase_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_lowercase().chain(c).collect())
        .unwrap_or_default()
}

/// Typed query parameters (filters) with their descriptions.
pub fn typed_params(list: &[(&str, Q, &str)]) -> Vec<Value> {
    list.iter()
        .map(|(name, kind, d)| json!({"name": name, "in": "query", "schema": q_schema(kind), "description": d}))
        .collect()
}

/// The `include` parameter with its allowed relation names.
pub fn include_param(allowed: &[&str]) -> Value {
    json!({
        "name": "include", "in": "query",
        "description": format!("Comma-separated relationships to embed in `included`: {}", allowed.join(", ")),
        "schema": {"type": "string", "pattern": include_pattern(allowed)}
    })
}

/// A comma-separated list of the allowed names, spaces around commas allowed (or nothing: an
/// empty parameter is as if not given).
fn include_pattern(allowed: &[&str]) -> String {
    let one = allowed
        .iter()
        .map(|a| a.replace('.', "[.]"))
        .collect::<Vec<_>>()
        .join("|");
    format!("^( *({one}) *( *, *({one}) *)*)?$")
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
            "meta": {"type": "object", "required": ["total"], "properties": {"total": {"type": "integer"}, "size": {"type": "integer"}}}
        }
    })
}

/// A single-resource document schema.
pub fn single(resource: &str) -> Value {
    json!({
        "type": "object", "required": ["data"],
        "properties": {
            "data": schema_ref(resource),
            "included": {"type": "array", "items": {"type": "object"}},
            "links": {"type": "object", "properties": {"self": {"type": "string"}}}
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_use_case_s_input_becomes_its_query_parameters() {
        let params = query_params_of::<boxtrack_app::containers::ListContainers>();
        let named = |n: &str| params.iter().find(|p| p["name"] == n).cloned();
        let start = named("filter[pickup_lfd][start]").unwrap_or_default();
        assert_eq!(
            start["description"],
            "Coalesced last free day: at or after (ISO 8601)."
        );
        assert_eq!(start["schema"], q_schema(&Q::Time));
        assert_eq!(
            named("filter[ready_for_pickup]").unwrap_or_default()["schema"],
            q_schema(&Q::Bool)
        );
        assert_eq!(
            named("filter[customer_id]").unwrap_or_default()["schema"],
            q_schema(&Q::Uuid)
        );
        let sort = named("sort").unwrap_or_default();
        assert!(
            sort["schema"]["enum"]
                .as_array()
                .is_some_and(|e| e.contains(&json!("pickup_lfd")) && e.contains(&json!(""))),
            "{sort}"
        );
        // the groups are not parameters themselves
        assert!(named("filter").is_none() && named("filter[pickup_lfd]").is_none());
        assert!(named("q").is_some() && named("filter[updated_at][end]").is_some());
    }
}
