//! `GET /v2/webhook_notifications`: what was (or will be) sent to each webhook, and the
//! envelope each notification is delivered in. Notifications are written with the events they
//! announce; the worker's deliverer sends them (`boxtrack_views::notifications` builds the
//! envelope).

use axum::extract::{OriginalUri, RawQuery, State};
use axum::http::HeaderMap;
use boxtrack_app::webhooks::{NotificationFilter as Filter, notification, notifications};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::state::AppState;
use boxtrack_http::auth::Caller;
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::extract::IdPath;
use boxtrack_http::jsonapi::{JsonApi, QueryParams, list_response};
pub use boxtrack_views::notifications::to_resource;

use crate::examples;
use crate::state::Routes;
use boxtrack_core::webhooks;
use boxtrack_http::doc::{Doc, Q, list_of, single, typed_params};
use boxtrack_http::schema::Param;
use boxtrack_views::notifications as views_notifications;

/// What a notification's delivery can be (`filter[delivery_status]`).
const DELIVERY_STATUSES: [&str; 3] = ["pending", "succeeded", "failed"];

/// `GET /v2/webhook_notifications`.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let page = q.page()?;
    let status = q
        .one_of("filter[delivery_status]", &DELIVERY_STATUSES)?
        .map(str::to_string);
    let webhook_id = q.uuid("filter[webhook_id]")?;
    let filter = Filter {
        webhook_id,
        event: q
            .one_of("filter[event]", &webhooks::all_events().collect::<Vec<_>>())?
            .map(str::to_string),
        delivery_status: status,
        created_start_us: q.time("filter[created_at][start]")?,
        created_end_us: q.time_end("filter[created_at][end]")?,
    };
    // a list may be as old as a replica's lag (never older than the account's own writes)
    let listed = notifications(&state.ctx, caller.account.id, &filter, &page).await?;
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

/// `GET /v2/webhook_notifications/{id}`.
pub async fn show(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<JsonApi> {
    let (n, attempts) = notification(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("webhook_notification"))?;
    let mut r = views_notifications::notification(&n);
    r.attributes.delivery_attempts = Some(attempts.iter().map(Into::into).collect());
    Ok(JsonApi::single(r.to_value(), vec![]))
}

/// `GET /v2/webhook_notifications/examples?event=`: what a delivery of that event carries,
/// taken from sandbox journeys played through the live notification code (every event when
/// none is named; see [`crate::examples`]).
pub async fn examples(
    State(state): State<AppState>,
    _caller: Caller,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let events: Vec<&str> = match q.get("event") {
        Some(e) => {
            let Some(found) = webhooks::EVENTS.iter().find(|x| **x == e) else {
                return Err(ApiError::bad_parameter(
                    "event",
                    format!("{e:?} is not a webhook event; see GET /v2/webhooks/events"),
                ));
            };
            vec![*found]
        }
        None => webhooks::EVENTS.to_vec(),
    };
    let (data, included) = examples::examples(state.rest_router)
        .await?
        .of_events(&events);
    let n = data.len();
    Ok(JsonApi::of(&ExamplesDocument {
        data,
        included,
        meta: ExamplesMeta { size: n, total: n },
    }))
}

/// Example notifications: each as its delivery's `data`, with what the deliveries include.
#[derive(Serialize, JsonSchema)]
pub struct ExamplesDocument {
    /// One notification per event (as its delivery's `data`).
    #[schemars(with = "Vec<views_notifications::EnvelopeData>")]
    pub data: Vec<Value>,
    /// The resources the deliveries include, each once.
    #[schemars(schema_with = "envelope_included")]
    pub included: Vec<Value>,
    /// How many.
    pub meta: ExamplesMeta,
}

/// What a delivery's `included` may hold, by reference to the envelope's schema among the
/// components (inline it would be every resource's schema again, 45 KB of the document).
fn envelope_included(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"$ref": "#/components/schemas/WebhookEnvelope/properties/included"})
}

/// How many examples.
#[derive(Serialize, JsonSchema)]
pub struct ExamplesMeta {
    /// In this document.
    pub size: usize,
    /// In all.
    pub total: usize,
}

/// The filters of the notification list.
fn list_filters() -> Vec<Param> {
    typed_params(&[
        ("filter[webhook_id]", Q::Uuid, "One webhook"),
        (
            "filter[event]",
            Q::OneOf(webhooks::EVENTS.to_vec()),
            "One event name",
        ),
        (
            "filter[delivery_status]",
            Q::OneOf(DELIVERY_STATUSES.to_vec()),
            "pending, succeeded or failed",
        ),
        (
            "filter[created_at][start]",
            Q::Time,
            "Created at or after (ISO 8601)",
        ),
        (
            "filter[created_at][end]",
            Q::Time,
            "Created at or before (ISO 8601)",
        ),
    ])
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .get("/v2/webhook_notifications", list, || {
            Doc::new("Webhooks", "List webhook notifications")
                .about("One notification per event and subscribed active webhook, written in the same transaction as the event, newest first.")
                .paged()
                .params(list_filters())
                .errors(&[400, 401, 429])
                .ok("A page of notifications", list_of("WebhookNotification"))
                .reference_id("get-webhook-notifications")
        })
        .get("/v2/webhook_notifications/examples", examples, || {
            Doc::new("Webhooks", "Example notifications")
                .about("What a delivery of `event` carries (all events when `event` is omitted): sandbox journeys played through the same code as live notifications, the first notification of each event, with the resources its delivery includes. Events no journey produces (`document.*`: boxtrack does not extract documents) have no example.")
                .params(typed_params(&[(
                    "event",
                    Q::OneOf(webhooks::EVENTS.to_vec()),
                    "A webhook event name",
                )]))
                .errors(&[400, 401, 429])
                .ok_of::<ExamplesDocument>("Examples")
                .reference_id("get-webhook-notifications-example")
        })
        .get("/v2/webhook_notifications/{id}", show, || {
            Doc::new("Webhooks", "Get a webhook notification")
                .about("One notification with its delivery state.")
                .id("Notification")
                .errors(&[401, 404, 429])
                .ok("The notification", single("WebhookNotification"))
                .reference_id("get-webhook-notification-id")
        })
}
