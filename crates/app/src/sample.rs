//! A webhook's sample delivery: `POST /v2/webhooks/trigger` and the console's test button send
//! one example notification of an event to a receiver now, and say what was sent and received.

use std::collections::BTreeMap;

use boxtrack_core::time::format_micros;
use boxtrack_store::now_us;
use boxtrack_views::jsonapi::{At, ToMany, ToOne, resource};
use boxtrack_views::notifications::{
    Envelope, EnvelopeAttributes, EnvelopeData, EnvelopeLinks, EnvelopeRelationships,
};
use boxtrack_worker::delivery::{self, Outgoing, Sent};
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

use crate::AppError;
use crate::ctx::Ctx;

/// A sample envelope for an event that no sandbox journey produces (`document.*`): the
/// notification, and a resource of the kind it would be about that names the event.
fn sample_envelope(event: &str, id: Uuid) -> Value {
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
    let reference = Uuid::now_v7();
    let now = now_us();
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
/// notification, from [`crate::ctx::Examples`]) under a new notification id, or, for the events no
/// journey produces (`document.*`), a sample naming the event.
async fn envelope(ctx: &Ctx, event: &str, id: Uuid) -> Result<Value, AppError> {
    let example = match &ctx.examples {
        Some(examples) => examples.notification(event).await?,
        None => None,
    };
    let Some(mut env) = example else {
        return Ok(sample_envelope(event, id));
    };
    let id_text = Value::from(id.to_string());
    env["data"]["id"] = id_text.clone();
    env["data"]["attributes"]["id"] = id_text;
    env["data"]["attributes"]["created_at"] = format_micros(now_us()).into();
    env["links"]["self"] = format!("/v2/webhook_notifications/{id}").into();
    Ok(env)
}

/// Sends one sample delivery of `event` (the example of a journey, or a plain sample) to `url`, signed with
/// `secret` when given, with `headers`: the body sent and what came back. The URL must have
/// been checked already. Used by `POST /v2/webhooks/trigger` and the console's test button.
pub async fn send(
    ctx: &Ctx,
    url: &str,
    event: &str,
    secret: Option<&str>,
    headers: &BTreeMap<String, String>,
) -> Result<(String, Sent), AppError> {
    let id = Uuid::now_v7();
    let body = envelope(ctx, event, id).await?.to_string();
    let outgoing = Outgoing {
        url,
        body: body.as_bytes(),
        id: &id.to_string(),
        secret,
        headers,
        signature_header: &ctx.policy.webhook_signature_header,
    };
    let client = delivery::client_for(
        std::time::Duration::from_secs(30),
        ctx.policy.allow_private_webhook_urls,
    );
    let sent = delivery::send(&client, &outgoing, ctx.policy.allow_private_webhook_urls).await;
    Ok((body, sent))
}
