//! JSON:API documents: resource objects, list links and meta, request bodies, query parameters.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use boxtrack_core::paging::{self, Key, Page, RawPage};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::ApiError;

pub use boxtrack_views::jsonapi::{MEDIA_TYPE, resource, to_one};

/// A response document, sent with the JSON:API media type.
#[derive(Debug, Clone)]
pub struct JsonApi(pub Value);

impl JsonApi {
    /// A typed response document.
    pub fn of<T: serde::Serialize>(doc: &T) -> JsonApi {
        // response documents are plain structs of strings, numbers, maps and options:
        // serializing them cannot fail
        JsonApi(serde_json::to_value(doc).unwrap_or(Value::Null))
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
fn document(members: Vec<(&str, Value)>) -> JsonApi {
    let mut doc = serde_json::Map::new();
    for (k, v) in members {
        doc.insert(k.into(), v);
    }
    JsonApi(Value::Object(doc))
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

impl From<ListDocument> for JsonApi {
    fn from(d: ListDocument) -> JsonApi {
        let mut members = vec![
            ("data", Value::Array(d.data)),
            ("links", serde_json::to_value(d.links).unwrap_or_default()),
            ("meta", serde_json::to_value(d.meta).unwrap_or_default()),
        ];
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
        let mut res = (StatusCode::OK, self.0.to_string()).into_response();
        res.headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(MEDIA_TYPE));
        res
    }
}

pub use boxtrack_app::fields::either;

/// Query parameters as ordered pairs (JSON:API names like `page[size]` kept whole).
#[derive(Debug, Clone, Default)]
pub struct QueryParams(pub Vec<(String, String)>);

impl QueryParams {
    /// Parses a raw query string. A text parameter given with an empty value
    /// (`filter[port]=`) is as if it were not given, as forms and generated clients send
    /// them; a number must be a number ([`QueryParams::integer`], page numbers and sizes).
    pub fn parse(raw: Option<&str>) -> QueryParams {
        QueryParams(
            url::form_urlencoded::parse(raw.unwrap_or_default().as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )
    }

    /// The last value given for a parameter, unless that is empty.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.given(name).filter(|v| !v.is_empty())
    }

    /// The last value given for a parameter, empty or not.
    pub fn given(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// A trimmed, non-empty parameter value.
    pub fn text(&self, name: &str) -> Option<String> {
        self.get(name)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    }

    /// An ISO 8601 instant parameter as Unix microseconds, as written (no spaces around);
    /// anything else is 400.
    pub fn time(&self, name: &str) -> Result<Option<i64>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => Some(v)
                .filter(|v| v.trim() == *v)
                .and_then(boxtrack_core::time::parse_micros)
                .map(Some)
                .ok_or_else(|| {
                    ApiError::bad_parameter(
                        name,
                        format!("{name} must be an ISO 8601 time such as 2026-01-31T00:00:00Z"),
                    )
                }),
        }
    }

    /// The end of a time range: an ISO 8601 instant that includes its whole second, since
    /// the API shows times in whole seconds (`filter[pickup_lfd][end]` equal to the LFD a
    /// container shows includes that container, though it is stored with microseconds).
    pub fn time_end(&self, name: &str) -> Result<Option<i64>, ApiError> {
        Ok(self.time(name)?.map(boxtrack_core::time::end_of_second))
    }

    /// A `true` / `false` parameter; anything else is 400.
    pub fn boolean(&self, name: &str) -> Result<Option<bool>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(_) => Err(ApiError::bad_parameter(
                name,
                format!("{name} must be true or false"),
            )),
        }
    }

    /// A UUID parameter in its hyphenated form; anything else is 400.
    pub fn uuid(&self, name: &str) -> Result<Option<uuid::Uuid>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => uuid::Uuid::try_parse(v)
                .ok()
                .filter(|_| v.len() == 36)
                .map(Some)
                .ok_or_else(|| ApiError::bad_parameter(name, format!("{name} must be a UUID"))),
        }
    }

    /// A parameter that must be one of `allowed` as written; anything else is 400 naming
    /// them.
    pub fn one_of(&self, name: &str, allowed: &[&str]) -> Result<Option<&str>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(v) if allowed.contains(&v) => Ok(Some(v)),
            Some(_) => Err(ApiError::bad_parameter(
                name,
                format!("{name} must be {}", either(allowed)),
            )),
        }
    }

    /// A whole number parameter within `min..=max`, digits as written (an optional minus,
    /// no plus, no spaces); anything else is 400.
    pub fn integer(&self, name: &str, min: i64, max: i64) -> Result<Option<i64>, ApiError> {
        match self.given(name) {
            None => Ok(None),
            Some(v) => {
                let digits = v.strip_prefix('-').unwrap_or(v);
                Some(v)
                    .filter(|_| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|v| v.parse::<i64>().ok())
                    .filter(|n| (min..=max).contains(n))
                    .map(Some)
                    .ok_or_else(|| {
                        ApiError::bad_parameter(
                            name,
                            format!("{name} must be a whole number from {min} to {max}"),
                        )
                    })
            }
        }
    }

    /// A use case's typed input ([`boxtrack_app`]) read from these parameters: JSON:API's
    /// bracketed names are its nested fields, and an invalid value is 400 naming its
    /// parameter.
    pub fn input<T: DeserializeOwned>(&self) -> Result<T, ApiError> {
        let pairs = self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        Ok(boxtrack_app::query::parse(
            boxtrack_app::query::from_pairs(pairs),
        )?)
    }

    /// Validated paging parameters.
    pub fn page(&self) -> Result<Page, ApiError> {
        paging::parse(RawPage {
            // numbers: given empty is not a number
            number: self.given("page[number]"),
            size: self.given("page[size]"),
            after: self.get("page[after]"),
            before: self.get("page[before]"),
        })
        .map_err(|e| ApiError::bad_parameter(e.param(), e.to_string()))
    }

    /// The relations named in `include`, each checked against `allowed`.
    pub fn includes(&self, resource_type: &str, allowed: &[&str]) -> Result<Vec<String>, ApiError> {
        let Some(raw) = self.get("include") else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        // names as written, spaces around commas allowed; an empty name is refused
        for name in raw.split(',').map(|s| s.trim_matches(' ')) {
            if !allowed.contains(&name) {
                let hint = if allowed.is_empty() {
                    "it has no includable relationships".to_string()
                } else {
                    format!("includable: {}", allowed.join(", "))
                };
                return Err(ApiError::bad_parameter(
                    "include",
                    format!("{name} is not a relationship of {resource_type} ({hint})"),
                ));
            }
            if !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
        }
        Ok(out)
    }
}

/// The absolute base address used in top-level links (e.g. `http://127.0.0.1:8080`).
pub fn base_url(configured: Option<&str>, headers: &HeaderMap) -> String {
    if let Some(b) = configured {
        return b.trim_end_matches('/').to_string();
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_graphic()))
        .unwrap_or("localhost");
    format!("http://{host}")
}

fn encode_component(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes())
        .collect::<String>()
        .replace("%5B", "[")
        .replace("%5D", "]")
}

fn page_url(
    base: &str,
    path: &str,
    keep: &[(String, String)],
    number: u32,
    size: u32,
    cursor: Option<(&str, String)>,
) -> String {
    let mut parts: Vec<String> = keep
        .iter()
        .map(|(k, v)| format!("{}={}", encode_component(k), encode_component(v)))
        .collect();
    parts.push(format!("page[number]={number}"));
    parts.push(format!("page[size]={size}"));
    if let Some((name, key)) = cursor {
        parts.push(format!("{name}={}", encode_component(&key)));
    }
    format!("{base}{path}?{}", parts.join("&"))
}

/// A list response: `data`, `included`, absolute `links` and `meta {size, total}`.
pub struct ListDoc<'a> {
    /// Absolute base address.
    pub base: &'a str,
    /// Request path, e.g. `/v2/api_keys`.
    pub path: &'a str,
    /// The request's query parameters.
    pub query: &'a QueryParams,
    /// The validated page.
    pub page: Page,
    /// Matching rows in all (a lower bound when not `total_exact`).
    pub total: u64,
    /// Whether `total` is exact; when it is not, no `last` link or page is given.
    pub total_exact: bool,
    /// Whether another page follows this one.
    pub has_next: bool,
    /// Sort keys of the first and last row on this page, for cursor links.
    pub edge_keys: Option<(Key, Key)>,
}

impl ListDoc<'_> {
    /// Assembles the document.
    pub fn render(self, data: Vec<Value>, included: Vec<Value>) -> JsonApi {
        let keep: Vec<(String, String)> = self
            .query
            .0
            .iter()
            .filter(|(k, _)| !k.starts_with("page["))
            .cloned()
            .collect();
        let Page {
            number,
            size,
            cursor,
        } = self.page;
        let last = self
            .total_exact
            .then(|| paging::last_page(self.total, size));
        let current_cursor = cursor.map(|c| match c {
            paging::Cursor::After(k) => ("page[after]", k.to_string()),
            paging::Cursor::Before(k) => ("page[before]", k.to_string()),
        });
        let self_link = {
            let raw: Vec<String> = self
                .query
                .0
                .iter()
                .map(|(k, v)| format!("{}={}", encode_component(k), encode_component(v)))
                .collect();
            if raw.is_empty() {
                format!("{}{}", self.base, self.path)
            } else {
                format!("{}{}?{}", self.base, self.path, raw.join("&"))
            }
        };
        let url = |n: u32, c: Option<(&'static str, String)>| {
            page_url(self.base, self.path, &keep, n, size, c)
        };
        let more = self.has_next && !data.is_empty();
        let links = ListLinks {
            this: self_link,
            current: url(number, current_cursor),
            first: url(1, None),
            prev: (number > 1).then(|| {
                let c = self
                    .edge_keys
                    .map(|(first, _)| ("page[before]", first.to_string()));
                url(number - 1, c)
            }),
            // the last page number there is, when cursors walk past it
            next: more.then(|| {
                let c = self
                    .edge_keys
                    .map(|(_, last)| ("page[after]", last.to_string()));
                url(number.saturating_add(1), c)
            }),
            last: last.map(|l| url(l, None)),
        };
        let meta = ListMeta {
            size,
            total: self.total,
            // more rows match than are counted per request: `total` is a lower bound
            total_exact: (!self.total_exact).then_some(false),
            pagination: Pagination {
                current: number,
                last,
                next: more.then(|| number.saturating_add(1)),
                records: self.total,
            },
        };
        ListDocument {
            data,
            included,
            links,
            meta,
        }
        .into()
    }
}

/// A page of a list: the rows, what they include, the links to the other pages and the
/// counts.
#[derive(Debug, serde::Serialize)]
pub struct ListDocument {
    /// The rows.
    pub data: Vec<Value>,
    /// Resources the rows' relationships name, when `include` asked for them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub included: Vec<Value>,
    /// Links to this page and its neighbours.
    pub links: ListLinks,
    /// Counts and page numbers.
    pub meta: ListMeta,
}

/// Absolute addresses of a list's pages. Their query keeps `[` and `]` unescaped in
/// parameter names, as the reference writes them (`page[size]=30`): not RFC 3986 URIs, so
/// no `format: uri`.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct ListLinks {
    /// This request's address.
    #[serde(rename = "self")]
    #[schemars(extend("pattern" = "^https?://"))]
    pub this: String,
    /// This page (by its cursor, when one was followed).
    #[schemars(extend("pattern" = "^https?://"))]
    pub current: String,
    /// The first page.
    #[schemars(extend("pattern" = "^https?://"))]
    pub first: String,
    /// The page before, when this is not the first.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = "^https?://"))]
    pub prev: Option<String>,
    /// The page after, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = "^https?://"))]
    pub next: Option<String>,
    /// The last page (absent when the total is a lower bound).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = "^https?://"))]
    pub last: Option<String>,
}

/// A list's counts.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct ListMeta {
    /// Rows per page
    pub size: u32,
    /// Rows in the whole list. Unfiltered lists of shipments, containers and tracking
    /// requests are always exact; other lists count at most 10,000 matching rows per
    /// request, and past that this is a lower bound and `total_exact` is false
    pub total: u64,
    /// Present (false) only when `total` is a lower bound: more rows match than are counted
    /// per request. There is then no `last` page; follow `links.next`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_exact: Option<bool>,
    /// Page numbers.
    pub pagination: Pagination,
}

/// Page numbers of a list.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Pagination {
    /// This page's number
    pub current: u32,
    /// The last page's number (absent when the total is a lower bound)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<u32>,
    /// The next page's number, when there is one
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<u32>,
    /// Rows in the whole list
    pub records: u64,
}

/// Renders a page of stored rows as a list document with cursor links.
#[allow(clippy::too_many_arguments)]
pub fn list_response<T: boxtrack_store::list::Keyed>(
    public_url: Option<&str>,
    headers: &HeaderMap,
    path: &str,
    query: &QueryParams,
    page: Page,
    listed: &boxtrack_store::list::Listed<T>,
    data: Vec<Value>,
    included: Vec<Value>,
) -> JsonApi {
    sorted_list_response(
        public_url, headers, path, query, page, listed, false, data, included,
    )
}

/// [`list_response`] for a list in the order the request asked for: when that is not the
/// list's default (`sorted`), the links page by number, since cursors follow the default
/// order only.
#[allow(clippy::too_many_arguments)]
pub fn sorted_list_response<T: boxtrack_store::list::Keyed>(
    public_url: Option<&str>,
    headers: &HeaderMap,
    path: &str,
    query: &QueryParams,
    page: Page,
    listed: &boxtrack_store::list::Listed<T>,
    sorted: bool,
    data: Vec<Value>,
    included: Vec<Value>,
) -> JsonApi {
    let base = base_url(public_url, headers);
    ListDoc {
        base: &base,
        path,
        query,
        page,
        total: listed.total,
        total_exact: listed.total_exact,
        has_next: listed.has_next,
        edge_keys: listed
            .rows
            .first()
            .zip(listed.rows.last())
            .filter(|_| !sorted)
            .map(|(f, l)| (f.key(), l.key())),
    }
    .render(data, included)
}

/// A list held whole in memory (a definition's options, reference data) answered one page at
/// a time like every other list: `page[number]` and `page[size]` slice it, links page by
/// number. A cursor (`page[after]`, `page[before]`) is 400: such a list has no sort keys.
pub fn memory_list_response(
    public_url: Option<&str>,
    headers: &HeaderMap,
    path: &str,
    query: &QueryParams,
    all: Vec<Value>,
) -> Result<JsonApi, ApiError> {
    let page = query.page()?;
    if page.cursor.is_some() {
        return Err(ApiError::bad_parameter(
            if query.get("page[after]").is_some() {
                "page[after]"
            } else {
                "page[before]"
            },
            "this list pages by number only: use page[number]",
        ));
    }
    let total = all.len();
    let size = page.size as usize;
    let start = (page.number.saturating_sub(1) as usize).saturating_mul(size);
    let data: Vec<Value> = all.into_iter().skip(start).take(size).collect();
    let base = base_url(public_url, headers);
    Ok(ListDoc {
        base: &base,
        path,
        query,
        page,
        total: total as u64,
        total_exact: true,
        has_next: start.saturating_add(size) < total,
        edge_keys: None,
    }
    .render(data, Vec::new()))
}

/// Whether a list is in an order other than its default (its links then page by number); a
/// cursor follows the default order only, so one given with another order is 400.
pub fn sorted_page(sort: boxtrack_store::reads::ListSort, page: &Page) -> Result<bool, ApiError> {
    let sorted = sort != boxtrack_store::reads::ListSort::default();
    if sorted && page.cursor.is_some() {
        return Err(ApiError::bad_parameter(
            "sort",
            "a cursor (page[after], page[before]) follows the default order only: with sort, page by page[number]",
        ));
    }
    Ok(sorted)
}

/// Whether a `Content-Type` is acceptable for a request body: the JSON:API media type
/// (optionally with `ext` / `profile` parameters) or plain `application/json`.
pub fn acceptable_content_type(value: &str) -> bool {
    let mut parts = value.split(';').map(str::trim);
    let essence = parts.next().unwrap_or_default().to_ascii_lowercase();
    let params: Vec<String> = parts
        .filter(|p| !p.is_empty())
        .map(|p| p.to_ascii_lowercase())
        .collect();
    match essence.as_str() {
        MEDIA_TYPE => params
            .iter()
            .all(|p| p.starts_with("ext=") || p.starts_with("profile=")),
        "application/json" => params.iter().all(|p| p.starts_with("charset=")),
        _ => false,
    }
}

/// A JSON request body, checked for media type and parsed; failures name the problem.
pub struct Body<T>(pub T);

impl<S, T> FromRequest<S> for Body<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let ct = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        match ct {
            Some(ct) if acceptable_content_type(&ct) => {}
            Some(ct) => {
                return Err(ApiError::new(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    format!(
                        "Content-Type {ct:?} is not supported; send {MEDIA_TYPE} or application/json"
                    ),
                ));
            }
            None => {
                return Err(ApiError::new(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    format!("a request body needs Content-Type: {MEDIA_TYPE}"),
                ));
            }
        }
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(|e| ApiError::new(e.status(), e.body_text()))?;
        parse_body(&bytes).map(Body)
    }
}

/// Parses a JSON body into `T`, reporting the JSON pointer of the first problem.
pub fn parse_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    // `1995.0` is the integer 1995 in JSON (and in the document's schemas), which serde
    // would refuse for an integer field: whole numbers are made integers first
    if let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(bytes)
        && whole_numbers(&mut v)
    {
        return serde_path_to_error::deserialize::<_, T>(v).map_err(|err| {
            let pointer = pointer_of(err.path());
            let pointer = if pointer.is_empty() {
                "/".to_string()
            } else {
                pointer
            };
            let inner = err.into_inner();
            ApiError::bad_body(&pointer, format!("invalid value at {pointer}: {inner}"))
        });
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(v) => v,
        Err(err) => {
            let pointer = pointer_of(err.path());
            let inner = err.into_inner();
            let syntax = inner.is_syntax() || inner.is_eof();
            let pointer = if pointer.is_empty() || syntax {
                "/".to_string()
            } else {
                pointer
            };
            let detail = if syntax {
                format!("the request body is not valid JSON: {inner}")
            } else {
                format!("invalid value at {pointer}: {inner}")
            };
            return Err(ApiError::bad_body(&pointer, detail));
        }
    };
    de.end()
        .map_err(|e| ApiError::bad_body("/", format!("the request body is not valid JSON: {e}")))?;
    Ok(value)
}

/// Makes every number with a fraction of zero that fits an integer one; whether any was.
fn whole_numbers(v: &mut serde_json::Value) -> bool {
    use serde_json::Value;
    match v {
        Value::Number(n) if n.is_f64() => {
            match n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15) {
                Some(f) => {
                    *v = Value::from(f as i64);
                    true
                }
                None => false,
            }
        }
        // every member is visited (no short cut): each may need changing
        Value::Array(a) => a.iter_mut().map(whole_numbers).filter(|c| *c).count() > 0,
        Value::Object(o) => o.values_mut().map(whole_numbers).filter(|c| *c).count() > 0,
        _ => false,
    }
}

fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => out.push_str(&format!("/{index}")),
            Segment::Map { key } => {
                out.push_str(&format!("/{}", key.replace('~', "~0").replace('/', "~1")))
            }
            Segment::Enum { variant } => out.push_str(&format!("/{variant}")),
            Segment::Unknown => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn empty_query_values_are_as_if_not_given() {
        let q = QueryParams::parse(Some("filter[port]=&page[size]=5&include="));
        assert_eq!(q.get("filter[port]"), None);
        assert_eq!(q.get("include"), None);
        assert_eq!(q.get("page[size]"), Some("5"));
    }

    /// Found by schemathesis: `page[number]=4294967295` with a cursor and more rows to
    /// come overflowed the next page's number (a panic in debug builds).
    #[test]
    fn the_largest_page_number_has_a_next_page_without_overflow() {
        let q = QueryParams::parse(Some("page[number]=4294967295&page[size]=1"));
        let key = Key {
            sort_us: 5,
            id: [1; 16],
        };
        let doc = ListDoc {
            base: "http://h",
            path: "/v2/webhooks",
            query: &q,
            page: q.page().unwrap(),
            total: 3,
            total_exact: false,
            has_next: true,
            edge_keys: Some((key, key)),
        }
        .render(vec![json!({"id": "x"})], vec![]);
        assert_eq!(doc.0["meta"]["pagination"]["next"], u32::MAX);
    }

    #[test]
    fn whole_numbers_written_with_a_fraction_are_integers() {
        #[derive(serde::Deserialize)]
        struct T {
            n: i64,
            list: Vec<u32>,
            x: f64,
        }
        let t: T = parse_body(br#"{"n": 1995.0, "list": [1, 2.0], "x": 3.0}"#).unwrap();
        assert_eq!((t.n, t.list, t.x), (1995, vec![1, 2], 3.0));
        assert!(parse_body::<T>(br#"{"n": 1995.5, "list": [], "x": 1}"#).is_err());
    }

    #[test]
    fn content_types() {
        assert!(acceptable_content_type("application/vnd.api+json"));
        assert!(acceptable_content_type("application/json; charset=utf-8"));
        assert!(!acceptable_content_type(
            "application/vnd.api+json; charset=utf-8"
        ));
        assert!(!acceptable_content_type("text/plain"));
    }

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Doc {
        data: Inner,
    }
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Inner {
        attributes: Attrs,
    }
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Attrs {
        name: String,
    }

    #[test]
    fn body_errors_point_at_the_field() {
        let e = parse_body::<Doc>(br#"{"data":{"attributes":{"name":5}}}"#).unwrap_err();
        assert_eq!(e.status(), StatusCode::BAD_REQUEST);
        let src = e.errors()[0].source.clone().unwrap();
        assert_eq!(src["pointer"], "/data/attributes/name");
        let e = parse_body::<Doc>(br#"{"data":"#).unwrap_err();
        assert!(
            e.errors()[0]
                .detail
                .as_deref()
                .unwrap()
                .contains("not valid JSON")
        );
        let e = parse_body::<Doc>(br#"{"data":{"attributes":{"name":"x"}}} trailing"#).unwrap_err();
        assert_eq!(e.status(), StatusCode::BAD_REQUEST);
    }

    #[test]
    fn includes_are_checked() {
        let q = QueryParams::parse(Some("include=account,bogus"));
        let e = q.includes("api_key", &["account"]).unwrap_err();
        assert_eq!(
            e.errors()[0].source.clone().unwrap()["parameter"],
            "include"
        );
        let q = QueryParams::parse(Some("include=account,account"));
        assert_eq!(
            q.includes("api_key", &["account"]).unwrap(),
            vec!["account"]
        );
    }
}
