//! The building blocks of the served OpenAPI document that route modules use to describe
//! their operations: [`Op`], parameters, bodies, error responses and document shapes. This
//! module names no route; `crate::openapi` assembles the document from the modules.

use axum::Router;
use axum::routing::MethodRouter;
use serde_json::{Map, Value};

use crate::schema::{Param, Schema};
pub use crate::schema::{request_schema_of, schema_of};

/// A module's routes together with the documentation of their operations: what a route
/// module (and a mounted crate such as MCP) hands to the service. Each operation is declared
/// once, by [`Routes::get`] and its siblings: the path, the handler and its [`Doc`] together,
/// and the router and the served document are both made from that declaration.
pub struct Routes<S = ()> {
    /// Routes that need an API key (the service puts them behind the key check and the
    /// rate limits).
    pub authenticated: Router<S>,
    /// Routes that carry their own credential, or need none.
    pub public: Router<S>,
    /// The operations declared with their routes: method, path, documentation (built only
    /// when the document is, not each time the routes are).
    declared: Vec<Declared>,
}

/// One operation declared with its route: its method, path and documentation.
type Declared = (&'static str, &'static str, fn() -> Doc);

impl<S: Clone + Send + Sync + 'static> Default for Routes<S> {
    fn default() -> Routes<S> {
        Routes {
            authenticated: Router::new(),
            public: Router::new(),
            declared: Vec::new(),
        }
    }
}

/// Declares [`Routes`]' method for one HTTP method: the route (behind the key check, or
/// public) and its documentation in one call.
macro_rules! declare {
    ($name:ident, $public:ident, $method:literal, $route:path) => {
        #[doc = concat!("A `", $method, "` operation that needs an API key: its path, handler and documentation.")]
        pub fn $name<H, T>(mut self, path: &'static str, handler: H, doc: fn() -> Doc) -> Routes<S>
        where
            H: axum::handler::Handler<T, S>,
            T: 'static,
        {
            self.authenticated = self.authenticated.route(path, $route(handler));
            self.declared.push(($method, path, doc));
            self
        }

        #[doc = concat!("A `", $method, "` operation that carries its own credential or needs none: its path, handler and documentation.")]
        pub fn $public<H, T>(mut self, path: &'static str, handler: H, doc: fn() -> Doc) -> Routes<S>
        where
            H: axum::handler::Handler<T, S>,
            T: 'static,
        {
            self.public = self.public.route(path, $route(handler));
            self.declared.push(($method, path, doc));
            self
        }
    };
}

impl<S: Clone + Send + Sync + 'static> Routes<S> {
    /// An operation that needs an API key whose method router is built by hand (a layer of
    /// its own, such as a larger body limit): its method, path, router and documentation.
    pub fn routed(
        mut self,
        method: &'static str,
        path: &'static str,
        router: MethodRouter<S>,
        doc: fn() -> Doc,
    ) -> Routes<S> {
        self.authenticated = self.authenticated.route(path, router);
        self.declared.push((method, path, doc));
        self
    }

    /// [`Routes::routed`] for an operation that carries its own credential or needs none.
    pub fn public_routed(
        mut self,
        method: &'static str,
        path: &'static str,
        router: MethodRouter<S>,
        doc: fn() -> Doc,
    ) -> Routes<S> {
        self.public = self.public.route(path, router);
        self.declared.push((method, path, doc));
        self
    }

    declare!(get, public_get, "get", axum::routing::get);
    declare!(post, public_post, "post", axum::routing::post);
    declare!(patch, public_patch, "patch", axum::routing::patch);
    declare!(put, public_put, "put", axum::routing::put);
    declare!(delete, public_delete, "delete", axum::routing::delete);

    /// These routes and `other`'s (a crate's routes declared by its modules).
    pub fn merge(mut self, other: Routes<S>) -> Routes<S> {
        self.authenticated = self.authenticated.merge(other.authenticated);
        self.public = self.public.merge(other.public);
        self.declared.extend(other.declared);
        self
    }

    /// These routes with more added by `f` (a module's routes declared in parts).
    pub fn merge_into(self, f: fn(Routes<S>) -> Routes<S>) -> Routes<S> {
        f(self)
    }

    /// These routes with their state given: routes of any state (the REST service's, say)
    /// that they join.
    pub fn with_state<S2>(self, state: S) -> Routes<S2> {
        Routes {
            authenticated: self.authenticated.with_state(state.clone()),
            public: self.public.with_state(state),
            declared: self.declared,
        }
    }

    /// Every operation of these routes, documented.
    pub fn operations(&self) -> Vec<Op> {
        self.declared
            .iter()
            .map(|(method, path, doc)| Op {
                method,
                path,
                op: doc().into_value(),
            })
            .collect()
    }
}

/// The documentation of one operation, written with its route: tag, summary, description,
/// parameters, request body, answers and, where the reference has the operation, its
/// `operationId`. Parameters and bodies come from the handler's typed inputs
/// ([`Doc::query`], [`Doc::body`]) where it has them.
#[derive(Debug, Clone)]
pub struct Doc {
    op: Map<String, Value>,
}

impl Doc {
    /// An operation under `tag`, with its one-line summary.
    pub fn new(tag: &str, summary: &str) -> Doc {
        let mut op = Map::new();
        op.insert("tags".into(), Value::Array(vec![tag.into()]));
        op.insert("summary".into(), summary.into());
        op.insert("description".into(), "".into());
        op.insert("parameters".into(), Value::Array(Vec::new()));
        op.insert("responses".into(), Value::Object(Map::new()));
        Doc { op }
    }

    /// What it does, at length.
    pub fn about(mut self, description: &str) -> Doc {
        self.op.insert("description".into(), description.into());
        self
    }

    /// The reference's `operationId` for the same operation, so generated clients name it
    /// alike (others get one made from the method and path).
    pub fn reference_id(mut self, id: &str) -> Doc {
        self.op.insert("operationId".into(), id.into());
        self
    }

    /// One more parameter.
    pub fn param(mut self, p: impl Into<Value>) -> Doc {
        if let Some(Value::Array(list)) = self.op.get_mut("parameters") {
            list.push(p.into());
        }
        self
    }

    /// More parameters.
    pub fn params<P: Into<Value>>(self, ps: impl IntoIterator<Item = P>) -> Doc {
        ps.into_iter().fold(self, Doc::param)
    }

    /// The `{id}` path parameter of the resource `what` names.
    pub fn id(self, what: &str) -> Doc {
        self.param(id_param(what))
    }

    /// The `include` parameter with the relationships it takes.
    pub fn include(self, allowed: &[&str]) -> Doc {
        self.param(include_param(allowed))
    }

    /// The paging parameters of a list.
    pub fn paged(self) -> Doc {
        self.params(page_params())
    }

    /// The paging parameters of a list held whole in memory: `page[number]` and
    /// `page[size]` only (it has no sort keys for a cursor; see
    /// `jsonapi::memory_list_response`).
    pub fn paged_by_number(self) -> Doc {
        self.params(number_page_params())
    }

    /// The query parameters of the handler's typed input.
    pub fn query<T: schemars::JsonSchema>(self) -> Doc {
        self.params(query_params_of::<T>())
    }

    /// A request body of this schema (as JSON:API or plain JSON).
    pub fn body_schema(self, schema: impl Into<Value>) -> Doc {
        self.body_media(&["application/vnd.api+json", "application/json"], schema)
    }

    /// A request body of these media types, each of this schema.
    pub fn body_media(mut self, media: &[&str], schema: impl Into<Value>) -> Doc {
        let schema = schema.into();
        let mut content = Map::new();
        for m in media {
            let mut one = Map::new();
            one.insert("schema".into(), schema.clone());
            content.insert((*m).into(), Value::Object(one));
        }
        let mut body = Map::new();
        body.insert("required".into(), true.into());
        body.insert("content".into(), Value::Object(content));
        self.op.insert("requestBody".into(), Value::Object(body));
        self
    }

    /// A request header the operation reads.
    pub fn header(self, name: &str, required: bool, description: &str) -> Doc {
        self.param(Param::header(name, required, description))
    }

    /// A request body of the handler's typed input.
    pub fn body<T: schemars::JsonSchema>(self) -> Doc {
        self.body_schema(request_schema_of::<T>())
    }

    /// The standard error answers for these statuses.
    pub fn errors(mut self, statuses: &[u16]) -> Doc {
        if let Some(Value::Object(r)) = self.op.get_mut("responses") {
            r.extend(errors(statuses));
        }
        self
    }

    /// An answer: its status and response object.
    pub fn answer(mut self, status: &str, response: Value) -> Doc {
        if let Some(Value::Object(r)) = self.op.get_mut("responses") {
            r.insert(status.into(), response);
        }
        self
    }

    /// The `200` answer: a JSON:API document of this schema.
    pub fn ok(self, description: &str, schema: impl Into<Value>) -> Doc {
        self.answer("200", body(description, schema))
    }

    /// The `200` answer: a document of the type the handler serializes.
    pub fn ok_of<T: schemars::JsonSchema>(self, description: &str) -> Doc {
        self.ok(description, schema_of::<T>())
    }

    /// A path parameter of text (a token, a slug).
    pub fn path_text(self, name: &str, description: &str) -> Doc {
        self.param(Param::path(name, Schema::string(), description))
    }

    /// The operation needs no credential of the document's schemes (a URL that is its own
    /// credential, a public page).
    pub fn no_key(self) -> Doc {
        self.with("security", Value::Array(Vec::new()))
    }

    /// The operation needs an API key (said where the path is outside `/v2`, which takes one
    /// unless it says otherwise).
    pub fn key(self) -> Doc {
        self.with("security", security("Token"))
    }

    /// A response without a body.
    pub fn empty_answer(description: &str) -> Value {
        let mut r = Map::new();
        r.insert("description".into(), description.into());
        Value::Object(r)
    }

    /// Any other member of the operation object (`security`, `deprecated`, an `x-` member).
    pub fn with(mut self, key: &str, value: Value) -> Doc {
        self.op.insert(key.into(), value);
        self
    }

    /// A response object of plain JSON (not a JSON:API document).
    pub fn json_answer(description: &str, schema: impl Into<Value>) -> Value {
        Doc::media_answer(description, "application/json", schema)
    }

    /// A response object of plain JSON of the type the handler serializes.
    pub fn json_of<T: schemars::JsonSchema>(description: &str) -> Value {
        Doc::json_answer(description, schema_of::<T>())
    }

    /// A response object of one media type.
    pub fn media_answer(description: &str, media: &str, schema: impl Into<Value>) -> Value {
        let mut m = Map::new();
        m.insert("schema".into(), schema.into());
        let mut content = Map::new();
        content.insert(media.into(), Value::Object(m));
        let mut r = Map::new();
        r.insert("description".into(), description.into());
        r.insert("content".into(), Value::Object(content));
        Value::Object(r)
    }

    /// An operation object written whole (a console page's, made by its helpers).
    pub fn from_value(op: Value) -> Doc {
        match op {
            Value::Object(op) => Doc { op },
            _ => Doc::new("", ""),
        }
    }

    /// The operation object.
    pub fn into_value(self) -> Value {
        Value::Object(self.op)
    }
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

/// A security requirement of one scheme of the document (`Token`, `Publishable`).
pub fn security(scheme: &str) -> Value {
    let mut one = Map::new();
    one.insert(scheme.into(), Value::Array(Vec::new()));
    Value::Array(vec![Value::Object(one)])
}

/// Text that matches a pattern (an upstream file's first segment).
pub fn text_matching(pattern: &str) -> Value {
    Schema::string().pattern(pattern).into()
}

/// A response object with a header it always carries (`name: value`, documented).
pub trait WithHeader {
    /// The response with the header.
    fn with_header(self, name: &str, value: &str) -> Value;
}

impl WithHeader for Value {
    fn with_header(mut self, name: &str, value: &str) -> Value {
        let mut h = Map::new();
        h.insert("schema".into(), schema_of::<String>());
        h.insert("description".into(), value.into());
        if let Some(o) = self.as_object_mut() {
            let headers = o
                .entry("headers")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(hs) = headers.as_object_mut() {
                hs.insert(name.into(), Value::Object(h));
            }
        }
        self
    }
}

/// Bytes of any kind (a file).
pub fn binary() -> Value {
    Schema::string().format("binary").into()
}

/// Any JSON object.
pub fn object() -> Value {
    Schema::object().into()
}

/// `$ref` to a component schema.
pub fn schema_ref(name: &str) -> Value {
    Schema::component(name).into()
}

/// A JSON:API response body of `schema`.
pub fn body(description: &str, schema: impl Into<Value>) -> Value {
    Doc::media_answer(description, "application/vnd.api+json", schema)
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
pub fn page_params() -> Vec<Param> {
    let cursor = || Schema::string().pattern(CURSOR_PATTERN);
    let mut params = number_page_params();
    params.extend([
        Param::query(
            "page[after]",
            cursor(),
            "Cursor written into links.next; follow links rather than building it",
        ),
        Param::query(
            "page[before]",
            cursor(),
            "Cursor written into links.prev (when page[after] is given too, both must be cursors and page[after] is followed)",
        ),
    ]);
    params
}

/// `page[number]` and `page[size]`: the paging of every list, and all of it for a list held
/// in memory.
pub fn number_page_params() -> Vec<Param> {
    vec![
        Param::query(
            "page[number]",
            Schema::integer().range(1, u32::MAX).default_value(1),
            "1-based page number",
        ),
        Param::query(
            "page[size]",
            Schema::integer().range(1, 100).default_value(30),
            "Rows per page (at most 100; larger is 400)",
        ),
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
pub fn q_schema(kind: &Q) -> Schema {
    let words = |w: &[&str]| {
        w.iter()
            .map(|a| regex_escape(a))
            .collect::<Vec<_>>()
            .join("|")
    };
    match kind {
        Q::Text => Schema::string(),
        Q::Time => empty_or(Schema::any().format("date-time")),
        Q::Bool => Schema::string().words(&["true", "false", ""]),
        Q::Uuid => empty_or(Schema::any().format("uuid")),
        Q::OneOf(w) => {
            let mut e: Vec<&str> = w.clone();
            e.push("");
            Schema::string().words(&e)
        }
        Q::ListOf(w) => {
            let one = words(w);
            Schema::string().pattern(format!("^(({one})(,({one}))*)?$"))
        }
    }
}

/// Text of this form, or empty.
fn empty_or(form: Schema) -> Schema {
    Schema::any_of(vec![form, Schema::any().max_length(0)]).typed(crate::schema::Type::String)
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
pub fn query_params_of<T: schemars::JsonSchema>() -> Vec<Param> {
    let mut out = Vec::new();
    params_in(&request_schema_of::<T>(), None, None, &mut out);
    out
}

/// The parameters of `schema`'s properties under `prefix`; `about` is what the enclosing
/// field bounds (a range's ends name it).
fn params_in(schema: &Value, prefix: Option<&str>, about: Option<&str>, out: &mut Vec<Param>) {
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
        out.push(Param::query(full, query_schema(&s), description));
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
fn query_schema(s: &Value) -> Schema {
    if s["type"] == "boolean" {
        return q_schema(&Q::Bool);
    }
    if let Some(words) = s.get("enum").and_then(Value::as_array) {
        let mut e: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
        e.push("");
        return Schema::string().words(&e);
    }
    match s.get("format").and_then(Value::as_str) {
        Some("date-time") => return q_schema(&Q::Time),
        Some("uuid") => return q_schema(&Q::Uuid),
        _ => {}
    }
    match s.get("pattern").and_then(Value::as_str) {
        Some(p) => Schema::string().pattern(p),
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
pub fn typed_params(list: &[(&str, Q, &str)]) -> Vec<Param> {
    list.iter()
        .map(|(name, kind, d)| Param::query(*name, q_schema(kind), *d))
        .collect()
}

/// The `include` parameter with its allowed relation names.
pub fn include_param(allowed: &[&str]) -> Param {
    Param::query(
        "include",
        Schema::string().pattern(include_pattern(allowed)),
        format!(
            "Comma-separated relationships to embed in `included`: {}",
            allowed.join(", ")
        ),
    )
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
pub fn id_param(what: &str) -> Param {
    Param::path("id", Schema::string().format("uuid"), format!("{what} id"))
}

/// A list document schema for a resource schema.
pub fn list_of(resource: &str) -> Value {
    Schema::record(&[
        ("data", Schema::array(Schema::component(resource))),
        ("links", Schema::component("ListLinks")),
        ("meta", Schema::component("ListMeta")),
    ])
    .prop("included", Schema::array(Schema::object()))
    .into()
}

/// A document holding a whole small collection at once (no paging, so no links):
/// `data` and `meta.total`.
pub fn all_of(resource: &str) -> Value {
    let meta = Schema::record(&[("total", Schema::integer())]).prop("size", Schema::integer());
    Schema::record(&[
        ("data", Schema::array(Schema::component(resource))),
        ("meta", meta),
    ])
    .into()
}

/// A single-resource document schema.
pub fn single(resource: &str) -> Value {
    Schema::record(&[("data", Schema::component(resource))])
        .prop("included", Schema::array(Schema::object()))
        .prop("links", Schema::object().prop("self", Schema::string()))
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_use_case_s_input_becomes_its_query_parameters() {
        let params: Vec<Value> = query_params_of::<boxtrack_app::containers::ListContainers>()
            .into_iter()
            .map(Value::from)
            .collect();
        let named = |n: &str| params.iter().find(|p| p["name"] == n).cloned();
        let start = named("filter[pickup_lfd][start]").unwrap_or_default();
        assert_eq!(
            start["description"],
            "Coalesced last free day: at or after (ISO 8601)."
        );
        assert_eq!(start["schema"], Value::from(q_schema(&Q::Time)));
        assert_eq!(
            named("filter[ready_for_pickup]").unwrap_or_default()["schema"],
            Value::from(q_schema(&Q::Bool))
        );
        assert_eq!(
            named("filter[customer_id]").unwrap_or_default()["schema"],
            Value::from(q_schema(&Q::Uuid))
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
