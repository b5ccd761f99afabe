//! `POST /v2/webhooks/trigger`: one example notification sent to a URL now, and what was sent
//! and received.

use std::collections::BTreeMap;

use axum::extract::State;
use boxtrack_core::webhooks::{self, EVENTS};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::state::AppState;
use crate::state::Routes;
use boxtrack_app::sample;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::{self, Doc};
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::jsonapi::{Body, JsonApi};

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
    #[schemars(required, extend("type" = "string", "pattern" = doc::HTTPS_URL_PATTERN))]
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

/// `POST /v2/webhooks/trigger`: sends one sample notification to a URL (signed when a secret
/// is given) and reports what happened. No webhook record is needed; nothing is stored.
pub async fn trigger(
    State(state): State<AppState>,
    _caller: Caller,
    Body(b): Body<TriggerBody>,
) -> ApiResult<JsonApi> {
    let url = b.url.unwrap_or_default();
    let url = webhooks::check_url(&url, state.ctx.policy.allow_private_webhook_urls)
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
    let (body, sent) = sample::send(&state.ctx, &url, &event, b.secret.as_deref(), &none).await?;
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
