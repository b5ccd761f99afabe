//! `GET /v2/events?after=<sequence>`: the account's event log in order, so a client that was
//! away can catch up from the last sequence it saw (beyond the reference, which cannot replay).

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use boxtrack_app::events;
use serde_json::Value;

use crate::state::AppState;
use crate::state::Routes;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::Doc;
use boxtrack_http::error::ApiResult;
use boxtrack_http::jsonapi::{JsonApi, QueryParams, base_url};
use boxtrack_http::schema::{Param, Schema};
use boxtrack_views::jsonapi;
use boxtrack_views::notifications::EventData;

/// The default and largest number of events per page.
const DEFAULT_SIZE: i64 = 100;
const MAX_SIZE: i64 = 1000;

/// `GET /v2/events`.
pub async fn feed(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let after = q.integer("after", 0, i64::MAX)?.unwrap_or(0);
    let size = q
        .integer("page[size]", 1, MAX_SIZE)?
        .unwrap_or(DEFAULT_SIZE);
    let filter_event = q.text("filter[event]");
    // the feed may be as old as a replica's lag (never older than the account's own writes)
    let db = state.ctx.read_db(caller.account.id);
    let log = events::page(db, caller.account.id, after, size, filter_event.as_deref()).await?;
    let (data, included) = items(log.envelopes);
    let last = log.last;
    let base = base_url(state.config.public_url.as_deref(), &headers);
    let path = "/v2/events";
    let mut next = format!("{base}{path}?after={last}&page[size]={size}");
    if let Some(f) = &filter_event {
        next.push_str(&format!("&filter[event]={f}"));
    }
    Ok(JsonApi::of(&Feed {
        data,
        included,
        links: FeedLinks {
            this: format!("{base}{path}?after={after}&page[size]={size}"),
            next,
        },
        meta: FeedMeta {
            size,
            after,
            last_sequence: last,
            more: log.full,
        },
    }))
}

/// Each envelope's data as a log entry (type `event`, no delivery status, no webhook), and
/// the resources they include, each once.
fn items(envelopes: Vec<Value>) -> (Vec<Value>, Vec<Value>) {
    let mut data: Vec<Value> = Vec::with_capacity(envelopes.len());
    let mut included: Vec<Value> = Vec::new();
    for env in envelopes {
        let mut item = env["data"].clone();
        item["type"] = "event".into();
        // a log entry, not a delivery: no status of one
        if let Some(a) = item["attributes"].as_object_mut() {
            a.remove("delivery_status");
        }
        item["relationships"]["webhook"] = jsonapi::to_one("webhook", None::<String>);
        data.push(item);
        for r in env["included"].as_array().into_iter().flatten() {
            if !included
                .iter()
                .any(|i: &Value| i["id"] == r["id"] && i["type"] == r["type"])
            {
                included.push(r.clone());
            }
        }
    }
    (data, included)
}

/// A page of the event log.
#[derive(Debug, serde::Serialize)]
pub struct Feed {
    /// The events: each a webhook envelope's `data`.
    pub data: Vec<Value>,
    /// The resources the events name.
    pub included: Vec<Value>,
    /// This page and the next.
    pub links: FeedLinks,
    /// Where the page stands in the log.
    pub meta: FeedMeta,
}

/// The addresses of a page of the event log and of the next.
#[derive(Debug, serde::Serialize)]
pub struct FeedLinks {
    /// This page.
    #[serde(rename = "self")]
    pub this: String,
    /// The page after this one (ask it even when this one is not full: new events land).
    pub next: String,
}

/// Where a page stands in the event log.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct FeedMeta {
    /// The page size asked for
    pub size: i64,
    /// The sequence this page starts after
    pub after: i64,
    /// The last sequence of this page (ask again with after=this)
    pub last_sequence: i64,
    /// The page is full: ask again at once
    pub more: bool,
}

/// The schema of [`Feed`]: its events and included resources are the webhook envelope's.
fn feed_schema() -> Schema {
    Schema::record(&[
        ("data", Schema::array(Schema::of_type::<EventData>())),
        (
            "included",
            Schema::at("#/components/schemas/WebhookEnvelope/properties/included"),
        ),
        (
            "links",
            Schema::record(&[("self", Schema::string()), ("next", Schema::string())]),
        ),
        ("meta", Schema::of_type::<FeedMeta>()),
    ])
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .get("/v2/events", feed, || {
            Doc::new("Events", "Read the event log")
                .about("Every change of the account's tracking data, in order, each with a per-account `sequence` without gaps, in the envelope webhook deliveries carry (`data[]` items with `attributes.event` and `attributes.sequence`, related resources in `included`). Poll with `after=<last sequence you processed>` and follow `links.next`; `meta.more` says whether to ask again at once. The same events drive webhooks.")
                .param(Param::query(
                    "after",
                    Schema::integer().range(0, i64::MAX).default_value(0),
                    "Return events with a greater sequence",
                ))
                .param(Param::query(
                    "page[size]",
                    Schema::integer().range(1, MAX_SIZE).default_value(DEFAULT_SIZE),
                    "",
                ))
                .param(Param::query(
                    "filter[event]",
                    Schema::string(),
                    "Only this event name",
                ))
                .errors(&[400, 401, 429])
                .ok("Events in order", feed_schema())
        })
}
