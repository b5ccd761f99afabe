//! `GET /v2/events?after=<sequence>`: the account's event log in order, so a client that was
//! away can catch up from the last sequence it saw (beyond the reference, which cannot replay).

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use boxtrack_app::events;
use boxtrack_app::model::NotificationRow;
use serde_json::Value;

use crate::state::AppState;
use crate::state::Routes;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::Doc;
use boxtrack_http::error::ApiResult;
use boxtrack_http::jsonapi::{JsonApi, QueryParams, base_url};
use boxtrack_http::schema::{Param, Schema};
use boxtrack_views::jsonapi;
use boxtrack_views::notifications::{self, EventData};

/// The default and largest number of events per page.
const DEFAULT_SIZE: i64 = 100;
const MAX_SIZE: i64 = 1000;

fn reference_type(object_type: &str) -> &str {
    match object_type {
        "container" => "container",
        "shipment" => "shipment",
        "tracking_request" => "tracking_request",
        _ => "transport_event",
    }
}

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
    // the feed may be as old as a replica's lag: a replica replays commits in the primary's
    // order, so what it shows is the log as the primary had it a moment ago
    let db = state.ctx.read_db(caller.account.id);
    let rows = events::after(db, caller.account.id, after, size).await?;
    // each item is the envelope a webhook delivery of the event carries
    let mut data: Vec<Value> = Vec::new();
    let mut included: Vec<Value> = Vec::new();
    let shown: Vec<&events::EventRow> = rows
        .iter()
        .filter(|e| filter_event.as_deref().is_none_or(|f| e.event == f))
        .collect();
    let ns: Vec<NotificationRow> = shown
        .iter()
        .map(|e| NotificationRow {
            id: e.id,
            account_id: caller.account.id,
            webhook_id: uuid::Uuid::nil(),
            event_id: e.id,
            seq: e.seq,
            event: e.event.clone(),
            reference_type: reference_type(&e.object_type).to_string(),
            reference_id: e.object_id,
            delivery_status: "pending".into(),
            attempts: 0,
            next_attempt_us: None,
            last_status_code: None,
            last_error: None,
            created_us: e.created_us,
            updated_us: e.created_us,
            replay_of: None,
        })
        .collect();
    // the page's related rows are read once for all its events
    let envelopes =
        notifications::envelopes(db, &ns, shown.iter().map(|e| (*e).clone()).collect()).await?;
    for env in envelopes {
        let mut item = env["data"].clone();
        item["type"] = "event".into();
        // a log entry, not a delivery: no status of one
        if let Some(a) = item["attributes"].as_object_mut() {
            a.remove("delivery_status");
        }
        item["relationships"]["webhook"] = jsonapi::to_one("webhook", None::<String>);
        data.push(item);
        if let Some(inc) = env["included"].as_array() {
            for r in inc {
                if !included
                    .iter()
                    .any(|i: &Value| i["id"] == r["id"] && i["type"] == r["type"])
                {
                    included.push(r.clone());
                }
            }
        }
    }
    let last = rows.last().map_or(after, |e| e.seq);
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
            more: rows.len() as i64 == size,
        },
    }))
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
