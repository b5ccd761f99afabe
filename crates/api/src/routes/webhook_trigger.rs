//! `POST /v2/webhooks/trigger`: one example notification sent to a URL now, and what was sent
//! and received.

use std::collections::BTreeMap;

use axum::extract::State;
use boxtrack_core::time::format_micros;
use boxtrack_core::webhooks::{self, EVENTS};
use boxtrack_views::jsonapi::{At, ToMany, ToOne};
use boxtrack_views::notifications::{
    Envelope, EnvelopeAttributes, EnvelopeData, EnvelopeLinks, EnvelopeRelationships,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::auth::Caller;
use crate::doc::{Doc, Routes};
use crate::error::{ApiError, ApiResult};
use crate::jsonapi::{Body, JsonApi, resource};
use crate::state::AppState;

/// What a test notification sent and received.
#[derive(Serialize, JsonSchema)]
pub struct Triggered {
    /// Where it went.
    pub url: String,
    /// 200, 201, 202 or 204 came back.
    pub succeeded: bool,
    /// Why it failed.
    pub error: Option<String>,
    /// The status received.
    pub status_code: Option<u16>,
    /// Headers sent.
    pub request_headers: BTreeMap<String, String>,
    /// The body sent.
    pub request_body: String,
    /// Headers received.
    pub response_headers: BTreeMap<String, String>,
    /// The body received (its first 4 KiB).
    pub response_body: Option<String>,
    /// How long it took.
    pub duration_ms: u64,
}

/// Body of `POST /v2/webhooks/trigger` (plain JSON).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TriggerBody {
    /// Where to send it: an https:// address.
    #[schemars(required, extend("type" = "string", "pattern" = crate::doc::HTTPS_URL_PATTERN))]
    url: Option<String>,
    /// Which event's sample.
    #[schemars(required, schema_with = "event_schema")]
    event: Option<String>,
    /// A secret to sign it with (`whsec_…` also signs the Standard Webhooks way).
    #[serde(default)]
    secret: Option<String>,
}

fn event_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"enum": EVENTS.as_slice()})
}

/// A sample envelope for an event that no sandbox journey produces (`document.*`): the
/// notification, and a resource of the kind it would be about that names the event.
pub fn sample_envelope(event: &str, id: uuid::Uuid) -> Value {
    let (kind, collection) = match event.split('.').next().unwrap_or_default() {
        "tracking_request" => ("tracking_request", "tracking_requests"),
        "shipment" => ("shipment", "shipments"),
        "document" => ("document", "documents"),
        _ if event.starts_with("container.transport.")
            || event.starts_with("container.pickup_") =>
        {
            ("transport_event", "transport_events")
        }
        _ => ("container", "containers"),
    };
    let reference = uuid::Uuid::now_v7();
    let now = boxtrack_store::now_us();
    let data = EnvelopeData {
        attributes: EnvelopeAttributes {
            created_at: At(now),
            delivery_status: "pending",
            event: event.to_string(),
            id,
            // no event of the log: the sample's place in it is nought
            sequence: 0,
        },
        id,
        relationships: EnvelopeRelationships {
            reference_object: ToOne::new(kind, Some(reference)),
            webhook: ToOne::none(),
            webhook_notification_logs: ToMany { data: Vec::new() },
        },
        kind: "webhook_notification",
    };
    let about = SampleAbout {
        sample: true,
        event,
        created_at: At(now),
    };
    let envelope = Envelope {
        data,
        included: vec![resource(
            kind,
            reference,
            collection,
            serde_json::to_value(about).unwrap_or_default(),
            None,
        )],
        links: EnvelopeLinks {
            this: format!("/v2/webhook_notifications/{id}"),
        },
    };
    serde_json::to_value(envelope).unwrap_or_default()
}

/// The attributes of the resource a sample notification is about: that it is a sample, for
/// which event, made when.
#[derive(Serialize)]
struct SampleAbout<'a> {
    sample: bool,
    event: &'a str,
    created_at: At,
}

/// What a test delivery of `event` sends: the event's example (a sandbox journey's live
/// notification, see [`crate::examples`]) under a new notification id, or, for the events no
/// journey produces (`document.*`), a sample naming the event.
async fn trigger_envelope(state: &AppState, event: &str, id: uuid::Uuid) -> ApiResult<Value> {
    let examples = crate::examples::examples(state.rest_router).await?;
    let Some(example) = examples.by_event.get(event) else {
        return Ok(sample_envelope(event, id));
    };
    let mut env = example.clone();
    let id_text = Value::from(id.to_string());
    env["data"]["id"] = id_text.clone();
    env["data"]["attributes"]["id"] = id_text;
    env["data"]["attributes"]["created_at"] = format_micros(boxtrack_store::now_us()).into();
    env["links"]["self"] = format!("/v2/webhook_notifications/{id}").into();
    Ok(env)
}

/// Sends one sample delivery of `event` (see [`trigger_envelope`]) to `url`, signed with
/// `secret` when given, with `headers`: the body sent and what came back. The URL must have
/// been checked already. Used by `POST /v2/webhooks/trigger` and the console's test button.
pub async fn send_sample(
    state: &AppState,
    url: &str,
    event: &str,
    secret: Option<&str>,
    headers: &BTreeMap<String, String>,
) -> ApiResult<(String, boxtrack_worker::delivery::Sent)> {
    let id = uuid::Uuid::now_v7();
    let body = trigger_envelope(state, event, id).await?.to_string();
    let outgoing = boxtrack_worker::delivery::Outgoing {
        url,
        body: body.as_bytes(),
        id: &id.to_string(),
        secret,
        headers,
        signature_header: &state.config.webhook_signature_header,
    };
    let client = boxtrack_worker::delivery::client_for(
        std::time::Duration::from_secs(30),
        state.config.allow_private_webhook_urls,
    );
    let sent = boxtrack_worker::delivery::send(
        &client,
        &outgoing,
        state.config.allow_private_webhook_urls,
    )
    .await;
    Ok((body, sent))
}

/// `POST /v2/webhooks/trigger`: sends one sample notification to a URL (signed when a secret
/// is given) and reports what happened. No webhook record is needed; nothing is stored.
pub async fn trigger(
    State(state): State<AppState>,
    _caller: Caller,
    Body(b): Body<TriggerBody>,
) -> ApiResult<JsonApi> {
    let url = b.url.unwrap_or_default();
    let url = webhooks::check_url(&url, state.config.allow_private_webhook_urls)
        .map(|()| url.trim().to_string())
        .map_err(|e| ApiError::unprocessable("/url", "invalid", e.to_string()))?;
    let event = b.event.unwrap_or_default();
    if !EVENTS.contains(&event.as_str()) {
        return Err(ApiError::unprocessable(
            "/event",
            "invalid",
            format!("{event:?} is not a webhook event; see GET /v2/webhooks/events"),
        ));
    }
    let none = BTreeMap::new();
    let (body, sent) = send_sample(&state, &url, &event, b.secret.as_deref(), &none).await?;
    Ok(JsonApi::of(&Triggered {
        url,
        succeeded: sent.succeeded,
        error: sent.error,
        status_code: sent.status_code,
        request_headers: sent.request_headers,
        request_body: body,
        response_headers: sent.response_headers,
        response_body: sent.response_body,
        duration_ms: sent.duration_ms,
    }))
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .post("/v2/webhooks/trigger", trigger, || {
            Doc::new("Webhooks", "Send a test notification")
                .about("Plain JSON `{url, event, secret?}`: sends one sample notification of that event to the URL, signed when a secret is given (`X-Boxtrack-Webhook-Signature`: lowercase hex HMAC-SHA256 of the body keyed with the secret; for `whsec_` secrets also the Standard Webhooks `webhook-id`, `webhook-timestamp`, `webhook-signature`), and answers what was sent and received. Does not replay history.")
                .body::<TriggerBody>()
                .errors(&[400, 401, 415, 422, 429])
                .ok_of::<Triggered>("What happened")
                .reference_id("post-webhooks-trigger")
        })
}
