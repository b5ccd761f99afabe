//! List documents: a page of rows with the links to the pages around it and its counts.

use axum::http::{HeaderMap, header};
use boxtrack_core::paging::{self, Key, Page};
use serde_json::Value;

use super::document::{JsonApi, document, push_array};
use super::query::QueryParams;
use crate::error::ApiError;

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
        let (links, meta) = self.links_and_meta(!data.is_empty());
        ListDocument {
            data,
            included,
            links,
            meta,
        }
        .into()
    }

    /// Writes the document straight out from its rows and included resources, each JSON
    /// already (no tree in between).
    pub fn written(self, data: &[String], included: &[String]) -> JsonApi {
        let (links, meta) = self.links_and_meta(!data.is_empty());
        let size = data.iter().chain(included).map(String::len).sum::<usize>();
        let mut out = String::with_capacity(size + 1024);
        out.push_str("{\"data\":");
        push_array(&mut out, data);
        if !included.is_empty() {
            out.push_str(",\"included\":");
            push_array(&mut out, included);
        }
        out.push_str(",\"links\":");
        out.push_str(&boxtrack_views::jsonapi::written(&links));
        out.push_str(",\"meta\":");
        out.push_str(&boxtrack_views::jsonapi::written(&meta));
        out.push('}');
        JsonApi::Text(out)
    }

    /// The document's links and counts, for a page with rows or without.
    fn links_and_meta(&self, any_rows: bool) -> (ListLinks, ListMeta) {
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
        let more = self.has_next && any_rows;
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
        (links, meta)
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
        public_url,
        headers,
        path,
        query,
        page,
        listed,
        false,
        Rows::Trees(data, included),
    )
}

/// A list page's rows and the resources they include: JSON trees, or each written out
/// already from its typed resource.
#[derive(Debug)]
pub enum Rows {
    /// Built as trees.
    Trees(Vec<Value>, Vec<Value>),
    /// Written out.
    Written(Vec<String>, Vec<String>),
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
    rows: Rows,
) -> JsonApi {
    let base = base_url(public_url, headers);
    let doc = ListDoc {
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
    };
    match rows {
        Rows::Trees(data, included) => doc.render(data, included),
        Rows::Written(data, included) => doc.written(&data, &included),
    }
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
