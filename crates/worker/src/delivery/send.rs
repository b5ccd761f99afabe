//! One signed webhook request: the SSRF check at delivery time (a resolver that drops internal
//! addresses), the signature headers, no redirects, a timeout, and a record of what was sent
//! and received. The test trigger of the API and the deliverer's clients use it.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use boxtrack_core::webhooks::{self, is_internal};

use super::job::checked_url;

/// The header with the reference-style signature (hex HMAC-SHA256 of the body).
pub const SIGNATURE_HEADER: &str = "X-Boxtrack-Webhook-Signature";

/// One request to send.
#[derive(Debug, Clone)]
pub struct Outgoing<'a> {
    /// Receiver.
    pub url: &'a str,
    /// The exact body bytes (serialized once, sent as stored).
    pub body: &'a [u8],
    /// The message id (`webhook-id`, equal to `data.id`).
    pub id: &'a str,
    /// Signing secret, if any.
    pub secret: Option<&'a str>,
    /// Extra headers of the subscription.
    pub headers: &'a BTreeMap<String, String>,
    /// The name of the hex signature header (default [`SIGNATURE_HEADER`]; configurable so
    /// receivers written for another service's header name work unchanged).
    pub signature_header: &'a str,
}

/// What happened.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Sent {
    /// 200, 201, 202 or 204 came back.
    pub succeeded: bool,
    /// Status received, if any.
    pub status_code: Option<u16>,
    /// Why it failed, if it did.
    pub error: Option<String>,
    /// Headers sent.
    pub request_headers: BTreeMap<String, String>,
    /// Headers received.
    pub response_headers: BTreeMap<String, String>,
    /// Body received (first 4 KiB).
    pub response_body: Option<String>,
    /// `Retry-After` seconds, if the receiver sent one.
    pub retry_after_secs: Option<u64>,
    /// How long it took.
    pub duration_ms: u64,
}

/// A DNS resolver that drops internal addresses, so a connection only ever goes to an address
/// that was checked (no window for DNS rebinding between the check and the connect).
struct ExternalOnly {
    allow_private: bool,
}

impl reqwest::dns::Resolve for ExternalOnly {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow = self.allow_private;
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addrs: Vec<std::net::SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .filter(|a| allow || !is_internal(a.ip()))
                .collect();
            if addrs.is_empty() {
                return Err(format!("{host} resolves to no external address").into());
            }
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// An HTTP client for webhooks: no redirects, no proxy, a timeout, and a resolver that never
/// yields internal addresses (unless `allow_private`).
pub fn client_for(timeout: Duration, allow_private: bool) -> reqwest::Client {
    reqwest::Client::builder()
        .dns_resolver(std::sync::Arc::new(ExternalOnly { allow_private }))
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .timeout(timeout)
        .connect_timeout(timeout.min(Duration::from_secs(10)))
        .user_agent(concat!("boxtrack-webhooks/", env!("CARGO_PKG_VERSION")))
        .build()
        .unwrap_or_else(|_| reqwest::Client::new())
}

/// An HTTP client for webhooks that refuses internal addresses: no redirects, no proxy, a timeout.
pub fn client(timeout: Duration) -> reqwest::Client {
    client_for(timeout, false)
}

/// The headers a delivery carries.
pub fn headers_for(o: &Outgoing<'_>, timestamp: i64) -> BTreeMap<String, String> {
    let mut h = BTreeMap::new();
    h.insert("Content-Type".to_string(), "application/json".to_string());
    h.insert("webhook-id".to_string(), o.id.to_string());
    h.insert("webhook-timestamp".to_string(), timestamp.to_string());
    if let Some(secret) = o.secret {
        h.insert(
            o.signature_header.to_string(),
            webhooks::sign_hex(secret, o.body),
        );
        if let Some(sig) = webhooks::sign_standard(secret, o.id, timestamp, o.body) {
            h.insert("webhook-signature".to_string(), sig);
        }
    }
    for (k, v) in o.headers {
        h.insert(k.clone(), v.clone());
    }
    h
}

fn failed(error: String, request_headers: BTreeMap<String, String>, started: Instant) -> Sent {
    Sent {
        succeeded: false,
        status_code: None,
        error: Some(error),
        request_headers,
        response_headers: BTreeMap::new(),
        response_body: None,
        retry_after_secs: None,
        duration_ms: started.elapsed().as_millis() as u64,
    }
}

/// Sends one request. Host names are resolved first and refused when any address is internal
/// (unless `allow_private`), so a name that points at 127.0.0.1 cannot reach the service's
/// own network.
pub async fn send(client: &reqwest::Client, o: &Outgoing<'_>, allow_private: bool) -> Sent {
    let started = Instant::now();
    let timestamp = jiff::Timestamp::now().as_second();
    let headers = headers_for(o, timestamp);
    let parsed = match checked_url(o.url, allow_private).await {
        Ok(u) => u,
        Err(e) => return failed(e, headers, started),
    };
    let mut req = client.post(parsed).body(o.body.to_vec());
    for (k, v) in &headers {
        req = req.header(k, v);
    }
    match req.send().await {
        Err(e) => failed(
            if e.is_timeout() {
                "timed out".into()
            } else {
                format!("request failed: {e}")
            },
            headers,
            started,
        ),
        Ok(res) => {
            let status = res.status().as_u16();
            let response_headers: BTreeMap<String, String> = res
                .headers()
                .iter()
                .filter_map(|(k, v)| {
                    v.to_str()
                        .ok()
                        .map(|v| (k.as_str().to_string(), v.to_string()))
                })
                .collect();
            let retry_after_secs = response_headers
                .get("retry-after")
                .and_then(|v| v.trim().parse().ok());
            let body = res
                .bytes()
                .await
                .ok()
                .map(|b| String::from_utf8_lossy(&b[..b.len().min(4096)]).into_owned());
            let succeeded = matches!(status, 200 | 201 | 202 | 204);
            Sent {
                succeeded,
                status_code: Some(status),
                error: (!succeeded).then(|| format!("receiver answered {status}")),
                request_headers: headers,
                response_headers,
                response_body: body,
                retry_after_secs,
                duration_ms: started.elapsed().as_millis() as u64,
            }
        }
    }
}
