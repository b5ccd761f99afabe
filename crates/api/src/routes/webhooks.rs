//! `/v2/webhooks`: subscriptions (create, list, get, update, delete) and the event catalog.
//! Delivery of notifications is not built yet.

use std::collections::BTreeMap;

use axum::extract::{OriginalUri, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use boxtrack_app::model::WebhookRow;
use boxtrack_app::webhooks as app;
use boxtrack_core::webhooks::{self, EVENTS};
use boxtrack_views::jsonapi::At;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::state::AppState;
use crate::state::Routes;
use boxtrack_core::time;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::{self, Doc, body, list_of, single};
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::extract::IdPath;
use boxtrack_http::jsonapi::{Body, JsonApi, QueryParams, list_response};
use boxtrack_views::accounts;

/// The `webhook` resource.
pub fn to_resource(w: &WebhookRow) -> Value {
    accounts::webhook(w).to_value()
}

/// The reference's events, then boxtrack's own (sent only to a webhook that names them).
fn events_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let events: Vec<&str> = webhooks::all_events().collect();
    schemars::json_schema!({"type": "array", "items": {"enum": events}})
}

/// The subscription.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Attrs {
    /// https:// receiver (internal addresses are refused unless the operator allows them).
    #[serde(default)]
    #[schemars(extend("pattern" = doc::HTTPS_URL_PATTERN))]
    url: Option<String>,
    /// Notifications are sent (default true).
    #[serde(default)]
    active: Option<bool>,
    /// The events it receives (absent on creation: all; a list names at least one).
    #[serde(default)]
    #[schemars(schema_with = "events_schema")]
    events: Option<Vec<String>>,
    /// Headers sent with every notification: a list of `{name, value}` (as the reference
    /// writes them) or an object of names to values.
    #[serde(default)]
    headers: Option<HeadersIn>,
}

/// Headers as a request gives them.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum HeadersIn {
    /// `[{"name": "X-Team", "value": "ops"}]`
    List(Vec<HeaderIn>),
    /// `{"X-Team": "ops"}`
    Map(BTreeMap<String, String>),
}

/// One header.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct HeaderIn {
    /// Its name.
    name: String,
    /// Its value.
    value: String,
}

impl From<Attrs> for app::WebhookIn {
    fn from(a: Attrs) -> app::WebhookIn {
        app::WebhookIn {
            url: a.url,
            active: a.active,
            events: a.events,
            headers: a.headers.map(HeadersIn::into_map),
        }
    }
}

impl HeadersIn {
    fn into_map(self) -> BTreeMap<String, String> {
        match self {
            HeadersIn::Map(m) => m,
            HeadersIn::List(l) => l.into_iter().map(|h| (h.name, h.value)).collect(),
        }
    }
}

/// A webhook to create or change.
#[derive(Deserialize, JsonSchema)]
struct Data {
    /// `webhook`.
    #[serde(default, rename = "type")]
    #[schemars(extend("const" = "webhook"))]
    kind: Option<String>,
    /// The subscription.
    attributes: Attrs,
}

/// Body of `POST` and `PATCH /v2/webhooks`.
#[derive(Deserialize, JsonSchema)]
pub struct WebhookDoc {
    data: Data,
}

fn check_type(kind: &Option<String>) -> ApiResult<()> {
    match kind.as_deref() {
        None | Some("webhook") => Ok(()),
        Some(other) => Err(ApiError::unprocessable(
            "/data/type",
            "invalid_type",
            format!("type must be \"webhook\", not {other:?}"),
        )),
    }
}

/// `POST /v2/webhooks`.
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Body(doc): Body<WebhookDoc>,
) -> ApiResult<impl IntoResponse> {
    check_type(&doc.data.kind)?;
    let w = app::create(&state.ctx, caller.account.id, &doc.data.attributes.into()).await?;
    let mut res = JsonApi::single(to_resource(&w), vec![]).into_response();
    *res.status_mut() = StatusCode::CREATED;
    Ok(res)
}

/// `GET /v2/webhooks`.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let page = q.page()?;
    q.includes("webhook", &[])?;
    let listed = app::list(&state.ctx, caller.account.id, &page).await?;
    let data = listed.rows.iter().map(to_resource).collect();
    Ok(list_response(
        state.config.public_url.as_deref(),
        &headers,
        uri.path(),
        &q,
        page,
        &listed,
        data,
        vec![],
    ))
}

/// `GET /v2/webhooks/{id}`.
pub async fn show(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<JsonApi> {
    let w = app::get(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("webhook"))?;
    Ok(JsonApi::single(to_resource(&w), vec![]))
}

/// `PATCH /v2/webhooks/{id}`: url, active (true re-enables a deactivated webhook), events, headers.
pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    Body(doc): Body<WebhookDoc>,
) -> ApiResult<JsonApi> {
    check_type(&doc.data.kind)?;
    let w = app::update(
        &state.ctx,
        caller.account.id,
        id,
        &doc.data.attributes.into(),
    )
    .await?;
    Ok(JsonApi::single(to_resource(&w), vec![]))
}

/// `DELETE /v2/webhooks/{id}`: 200 with an empty body, as the reference answers.
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<StatusCode> {
    app::delete(&state.ctx, caller.account.id, id).await?;
    Ok(StatusCode::OK)
}

/// `GET /v2/webhooks/events`: every event a webhook can subscribe to.
pub async fn events(_caller: Caller) -> JsonApi {
    let data: Vec<EventCategory> = webhooks::CATEGORIES
        .iter()
        .map(|(id, name)| EventCategory {
            id,
            kind: "webhook_event_category",
            attributes: EventCategoryAttributes {
                name,
                // the reference's catalog; boxtrack's own events (`EXTENSION_EVENTS`), which a
                // webhook must name, are in the served document's webhook schema and the docs
                events: EVENTS
                    .iter()
                    .filter(|e| webhooks::category(e) == *id)
                    .map(|e| WebhookEvent {
                        name: e,
                        description: webhooks::describe(e),
                    })
                    .collect(),
            },
        })
        .filter(|c| !c.attributes.events.is_empty())
        .collect();
    let total = data.iter().map(|c| c.attributes.events.len()).sum();
    JsonApi::of(&EventsDocument {
        data,
        meta: Counts { size: total, total },
    })
}

/// The event catalog, by category (as the reference groups it).
#[derive(Serialize, JsonSchema)]
pub struct EventsDocument {
    /// The categories.
    pub data: Vec<EventCategory>,
    /// How many events.
    pub meta: Counts,
}

/// How many items a document holds.
#[derive(Serialize, JsonSchema)]
pub struct Counts {
    /// In this document.
    pub size: usize,
    /// In all.
    pub total: usize,
}

/// A category of events.
#[derive(Serialize, JsonSchema)]
pub struct EventCategory {
    /// Its id (`tracking-request-events`, …).
    pub id: &'static str,
    /// `webhook_event_category`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "webhook_event_category"))]
    pub kind: &'static str,
    /// Its name and events.
    pub attributes: EventCategoryAttributes,
}

/// A category's name and events.
#[derive(Serialize, JsonSchema)]
pub struct EventCategoryAttributes {
    /// Its name.
    pub name: &'static str,
    /// Its events.
    pub events: Vec<WebhookEvent>,
}

/// One event a webhook can subscribe to.
#[derive(Serialize, JsonSchema)]
pub struct WebhookEvent {
    /// Its name (`container.transport.vessel_arrived`, …), what `events` of a webhook lists.
    pub name: &'static str,
    /// What it announces.
    pub description: &'static str,
}

/// The addresses deliveries leave from.
#[derive(Serialize, JsonSchema)]
pub struct Ips {
    /// As the operator configured them (`webhook_source_ips`).
    pub webhook_notification_ips: Vec<String>,
    /// When this list was read.
    pub last_updated: At,
}

/// What a replay enqueued.
#[derive(Serialize, JsonSchema)]
pub struct Replayed {
    /// The webhook.
    pub webhook_id: uuid::Uuid,
    /// Notifications enqueued.
    pub replayed: usize,
}

/// `GET /v2/webhooks/ips`: the egress addresses deliveries come from (configured by the
/// operator with `webhook_source_ips`; empty when not configured).
pub async fn ips(State(state): State<AppState>, _caller: Caller) -> JsonApi {
    JsonApi::of(&Ips {
        webhook_notification_ips: state.ctx.policy.webhook_source_ips.clone(),
        last_updated: At(state.ctx.now_us()),
    })
}

/// Body of `POST /v2/webhooks/{id}/replay` (plain JSON): `since` is a sequence number or an
/// ISO 8601 time.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplayBody {
    /// A sequence number, or an ISO 8601 time.
    #[schemars(extend("oneOf" = [{"type": "integer", "minimum": 0, "maximum": i64::MAX}, {"type": "string", "format": "date-time"}]))]
    since: Value,
}

/// `POST /v2/webhooks/{id}/replay`: sends the webhook again every subscribed event since a
/// sequence or a time (up to 10 000 events per call), as new notifications with `replay_of`.
pub async fn replay(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    Body(b): Body<ReplayBody>,
) -> ApiResult<JsonApi> {
    let w = app::get(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("webhook"))?;
    let (after_seq, since_us) = match &b.since {
        // a whole number (338.0 arrives as 338: see `jsonapi::parse_body`)
        Value::Number(n) if n.as_i64().is_some_and(|v| v >= 0) => {
            (n.as_i64().unwrap_or_default(), i64::MIN)
        }
        Value::String(s) => match time::parse_micros(s) {
            Some(us) => (0, us),
            None => {
                return Err(ApiError::unprocessable(
                    "/since",
                    "invalid",
                    "since must be a sequence number or an ISO 8601 time",
                ));
            }
        },
        _ => {
            return Err(ApiError::unprocessable(
                "/since",
                "invalid",
                "since must be a sequence number or an ISO 8601 time",
            ));
        }
    };
    let n = app::replay(
        &state.ctx,
        caller.account.id,
        w.id,
        &w.events,
        after_seq,
        since_us,
        app::REPLAY_MAX,
    )
    .await?;
    Ok(JsonApi::of(&Replayed {
        webhook_id: w.id,
        replayed: n,
    }))
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .post("/v2/webhooks", create, || {
            Doc::new("Webhooks", "Create a webhook")
                .about("Subscribes a URL to events. The response carries the `secret` (whsec_…) once. Unknown events and non-https or internal URLs are 422.")
                .body::<WebhookDoc>()
                .errors(&[400, 401, 415, 422, 429])
                .answer("201", body("The webhook with its secret", single("Webhook")))
                .reference_id("post-webhooks")
        })
        .get("/v2/webhooks", list, || {
            Doc::new("Webhooks", "List webhooks")
                .about("Newest first, with each `active` flag.")
                .paged()
                .errors(&[400, 401, 429])
                .ok("A page of webhooks", list_of("Webhook"))
                .reference_id("get-webhooks")
        })
        .get("/v2/webhooks/ips", ips, || {
            Doc::new("Webhooks", "Webhook source addresses")
                .about("`{webhook_notification_ips, last_updated}`: the addresses deliveries leave from, as the operator configured them (`webhook_source_ips`). Receivers may allow-list them; cache for about a day.")
                .errors(&[401, 429])
                .ok_of::<Ips>("Addresses")
                .reference_id("get-webhooks-ips")
        })
        .post("/v2/webhooks/{id}/replay", replay, || {
            Doc::new("Webhooks", "Replay events to a webhook")
                .about("Plain JSON `{\"since\": <sequence> | \"<ISO 8601 time>\"}`: every event since then that the webhook subscribes to is delivered again as a new notification (`replay_of` names the earlier one). Up to 10 000 events per call; call again from the last sequence for more.")
                .id("Webhook")
                .body::<ReplayBody>()
                .errors(&[400, 401, 404, 415, 422, 429])
                .ok_of::<Replayed>("How many were enqueued")
        })
        .get("/v2/webhooks/events", events, || {
            Doc::new("Webhooks", "List webhook events")
                .about("Every event name a webhook can subscribe to.")
                .errors(&[401, 429])
                .ok_of::<EventsDocument>("The catalog")
                .reference_id("get-webhooks-events")
        })
        .get("/v2/webhooks/{id}", show, || {
            Doc::new("Webhooks", "Get a webhook")
                .about("One webhook (without its secret).")
                .id("Webhook")
                .errors(&[401, 404, 429])
                .ok("The webhook", single("Webhook"))
                .reference_id("get-webhooks-id")
        })
        .patch("/v2/webhooks/{id}", update, || {
            Doc::new("Webhooks", "Update a webhook")
                .about("Changes url, active, events or headers; `active: true` re-enables a deactivated webhook.")
                .id("Webhook")
                .body::<WebhookDoc>()
                .errors(&[400, 401, 404, 415, 422, 429])
                .ok("The webhook", single("Webhook"))
                .reference_id("patch-webhooks-id")
        })
        .delete("/v2/webhooks/{id}", delete, || {
            Doc::new("Webhooks", "Delete a webhook")
                .about("Removes the subscription; answers 200 with an empty body.")
                .id("Webhook")
                .errors(&[401, 404, 429])
                .answer("200", Doc::empty_answer("Deleted"))
                .reference_id("delete-webhooks-id")
        })
}
