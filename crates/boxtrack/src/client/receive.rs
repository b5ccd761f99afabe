//! `boxtrack webhooks receive`: a local receiver that prints each delivery (its signature
//! checked with the webhook's secret) and answers 200.

use std::sync::Arc;

use anyhow::Context;
use axum::http::{HeaderMap, StatusCode};
use clap::Args;
use serde::Deserialize;
use serde_json::Value;

/// Flags of `webhooks receive`.
#[derive(Args, Debug)]
pub struct ReceiveArgs {
    /// Address to receive on; give the webhook the URL http://ADDR/ (any path).
    #[arg(long, default_value = "127.0.0.1:9000", value_name = "ADDR")]
    listen: String,
    /// The webhook's secret (shown when it was created): each delivery's signature is checked
    /// and a bad one answered 401.
    #[arg(
        long,
        env = "BOXTRACK_WEBHOOK_SECRET",
        hide_env_values = true,
        value_name = "SECRET"
    )]
    secret: Option<String>,
    /// The header the signature comes in (the server's webhook_signature_header).
    #[arg(
        long,
        default_value = "X-Boxtrack-Webhook-Signature",
        value_name = "NAME"
    )]
    signature_header: String,
    /// Print each delivery's whole body (pretty JSON) rather than one line.
    #[arg(long)]
    body: bool,
}

/// What the receiver checks and prints.
struct Receiver {
    /// The webhook's secret, when signatures are checked.
    secret: Option<String>,
    /// The signature header's name, in lower case.
    header: String,
    /// Whether each body is printed whole.
    whole: bool,
}

/// `boxtrack webhooks receive`: a local receiver that prints each delivery and answers 200.
pub async fn receive(args: &ReceiveArgs) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let addr = listener.local_addr()?;
    println!("receiving webhooks on http://{addr}/ (Ctrl-C stops)");
    let receiver = Arc::new(Receiver {
        secret: args.secret.clone(),
        header: args.signature_header.to_ascii_lowercase(),
        whole: args.body,
    });
    let app = axum::Router::new().fallback(move |headers: HeaderMap, body: axum::body::Bytes| {
        let receiver = Arc::clone(&receiver);
        async move { receiver.deliver(&headers, &body) }
    });
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}

impl Receiver {
    /// Checks and prints one delivery: 401 for a bad signature, else 200.
    fn deliver(&self, headers: &HeaderMap, body: &[u8]) -> StatusCode {
        let Some(check) = self.check(headers, body) else {
            println!(
                "{} refused: bad or missing {} header",
                jiff::Timestamp::now(),
                self.header
            );
            return StatusCode::UNAUTHORIZED;
        };
        let doc: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        say(&delivery_line(&Delivery::read(&doc), check));
        if self.whole {
            say(&serde_json::to_string_pretty(&doc).unwrap_or_default());
        }
        StatusCode::OK
    }

    /// What the signature check found; none when the signature is bad or missing.
    fn check(&self, headers: &HeaderMap, body: &[u8]) -> Option<&'static str> {
        let Some(secret) = &self.secret else {
            return Some("signature not checked (no --secret)");
        };
        let sent = headers
            .get(self.header.as_str())
            .and_then(|v| v.to_str().ok());
        (sent == Some(boxtrack_core::webhooks::sign_hex(secret, body).as_str()))
            .then_some("signature ok")
    }
}

/// A line to standard output; a reader that went away is not the receiver's trouble.
fn say(line: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}").and_then(|()| out.flush());
}

/// What the receiver prints of a delivered notification. Anything may be posted to a
/// receiver: each member of another shape reads as missing ([`lenient`]).
#[derive(Debug, Default, Deserialize)]
struct Delivery {
    #[serde(default, deserialize_with = "lenient")]
    data: Option<Notification>,
    #[serde(default, deserialize_with = "lenient")]
    included: Vec<About>,
}

/// The notification of a delivery.
#[derive(Debug, Default, Deserialize)]
struct Notification {
    #[serde(default, deserialize_with = "lenient")]
    attributes: NotificationAttributes,
}

/// What the line says of the notification.
#[derive(Debug, Default, Deserialize)]
struct NotificationAttributes {
    #[serde(default, deserialize_with = "lenient")]
    event: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    created_at: Option<String>,
}

/// An included resource, for the number it is about.
#[derive(Debug, Default, Deserialize)]
struct About {
    #[serde(default, deserialize_with = "lenient")]
    attributes: AboutAttributes,
}

/// The numbers an included resource may carry.
#[derive(Debug, Default, Deserialize)]
struct AboutAttributes {
    #[serde(default, deserialize_with = "lenient")]
    number: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    bill_of_lading_number: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    request_number: Option<String>,
}

/// A member read as a `T`, or as `T::default()` when it has another shape.
fn lenient<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned + Default,
{
    let v = Value::deserialize(d)?;
    Ok(T::deserialize(&v).unwrap_or_default())
}

impl Delivery {
    /// The delivery in `doc`, or an empty one when it is not a notification.
    fn read(doc: &Value) -> Delivery {
        Delivery::deserialize(doc).unwrap_or_default()
    }
}

/// One line for a received delivery: when, the event, what it is about, the signature check.
fn delivery_line(d: &Delivery, check: &str) -> String {
    let a = d.data.as_ref().map(|n| &n.attributes);
    let event = a
        .and_then(|a| a.event.as_deref())
        .unwrap_or("(not a boxtrack notification)");
    let about = d
        .included
        .iter()
        .find_map(|r| {
            let ra = &r.attributes;
            ra.number
                .as_deref()
                .or(ra.bill_of_lading_number.as_deref())
                .or(ra.request_number.as_deref())
        })
        .unwrap_or("");
    format!(
        "{} {event} {about} ({check})",
        a.and_then(|a| a.created_at.clone())
            .unwrap_or_else(|| jiff::Timestamp::now().to_string())
    )
    .replace("  (", " (")
}
