//! Sending one signed webhook request: the SSRF check at delivery time, the signature headers,
//! no redirects, a timeout, and a record of what was sent and received. Used by the test
//! trigger now and by the delivery worker later.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use boxtrack_core::webhooks::{self, is_internal};

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
    if let Err(e) = webhooks::check_url(o.url, allow_private) {
        return failed(e.to_string(), headers, started);
    }
    let Ok(parsed) = url::Url::parse(o.url) else {
        return failed("url is not a valid URL".into(), headers, started);
    };
    if !allow_private {
        let host = parsed
            .host_str()
            .unwrap_or_default()
            .trim_matches(['[', ']'])
            .to_string();
        let port = parsed.port_or_known_default().unwrap_or(443);
        match tokio::net::lookup_host((host.as_str(), port)).await {
            Ok(addrs) => {
                let addrs: Vec<_> = addrs.collect();
                if addrs.is_empty() || addrs.iter().any(|a| is_internal(a.ip())) {
                    return failed(
                        format!("{host} resolves to an internal address; refused"),
                        headers,
                        started,
                    );
                }
            }
            Err(e) => return failed(format!("cannot resolve {host}: {e}"), headers, started),
        }
    }
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

/// Seconds between attempts: 12 retries after the first attempt, about 57 hours in all.
pub const RETRY_SCHEDULE_SECS: [i64; 12] = [
    5, 30, 120, 300, 900, 1800, 3600, 7200, 18000, 36000, 50400, 72000,
];

/// The delay before retry number `retry` (1-based) of `schedule`, with ±20 % jitter from
/// `jitter` (0..1), at least the receiver's `Retry-After`; `None` when the retries are used up.
pub fn next_delay_secs_in(
    schedule: &[i64],
    retry: i64,
    jitter: f64,
    retry_after: Option<u64>,
) -> Option<i64> {
    let base = *schedule.get(usize::try_from(retry - 1).ok()?)?;
    let jittered = (base as f64 * (0.8 + 0.4 * jitter.clamp(0.0, 1.0))).round() as i64;
    Some(
        jittered
            .max(retry_after.map_or(0, |s| i64::try_from(s).unwrap_or(i64::MAX)))
            .max(1),
    )
}

/// Sends one notification and says what to record.
#[allow(clippy::too_many_arguments)]
async fn attempt_one(
    client: &reqwest::Client,
    allow_private: bool,
    schedule: &[i64],
    signature_header: &str,
    n: &boxtrack_store::notifications::NotificationRow,
    hook: Option<&boxtrack_store::webhooks::WebhookRow>,
    body: &str,
    now_us: i64,
) -> boxtrack_store::notifications::Attempt {
    let Some(h) = hook else {
        return boxtrack_store::notifications::Attempt {
            at_us: now_us,
            status_code: None,
            duration_ms: 0,
            error: Some("the webhook was deleted".into()),
            succeeded: false,
            next_attempt_us: None,
        };
    };
    let id = n.id.to_string();
    let o = Outgoing {
        url: &h.url,
        body: body.as_bytes(),
        id: &id,
        secret: Some(&h.secret),
        headers: &h.headers.0,
        signature_header,
    };
    let s = send(client, &o, allow_private).await;
    let retry_after = s
        .retry_after_secs
        .filter(|_| matches!(s.status_code, Some(429 | 503)));
    let jitter = (n.id.as_u128() % 1000) as f64 / 1000.0;
    let next = if s.succeeded {
        None
    } else {
        next_delay_secs_in(schedule, n.attempts + 1, jitter, retry_after)
            .map(|d| now_us + d * 1_000_000)
    };
    boxtrack_store::notifications::Attempt {
        at_us: now_us,
        status_code: s.status_code.map(i64::from),
        duration_ms: s.duration_ms as i64,
        error: s.error.clone(),
        succeeded: s.succeeded,
        next_attempt_us: next,
    }
}

/// Concurrent requests to one webhook at most.
pub const PER_ENDPOINT: usize = 4;

/// [`next_delay_secs_in`] the default schedule.
pub fn next_delay_secs(retry: i64, jitter: f64, retry_after: Option<u64>) -> Option<i64> {
    next_delay_secs_in(&RETRY_SCHEDULE_SECS, retry, jitter, retry_after)
}

/// Delivers due webhook notifications.
#[derive(Clone)]
pub struct Deliverer {
    signature_header: std::sync::Arc<String>,
    schedule: std::sync::Arc<Vec<i64>>,
    metrics: std::sync::Arc<crate::Metrics>,
    db: boxtrack_store::Db,
    client: reqwest::Client,
    allow_private: bool,
    deactivate_after: i64,
}

impl Deliverer {
    /// A deliverer with a request timeout; webhooks are deactivated after `deactivate_after`
    /// failed attempts in a row.
    pub fn new(
        db: boxtrack_store::Db,
        timeout: Duration,
        allow_private: bool,
        deactivate_after: i64,
    ) -> Deliverer {
        Deliverer {
            signature_header: std::sync::Arc::new(SIGNATURE_HEADER.to_string()),
            schedule: std::sync::Arc::new(RETRY_SCHEDULE_SECS.to_vec()),
            metrics: std::sync::Arc::default(),
            db,
            client: client_for(timeout, allow_private),
            allow_private,
            deactivate_after,
        }
    }

    /// Sends the hex signature under this header name.
    pub fn with_signature_header(mut self, name: &str) -> Deliverer {
        self.signature_header = std::sync::Arc::new(name.to_string());
        self
    }

    /// Uses this retry schedule (seconds before each retry; its length is the number of
    /// retries) instead of [`RETRY_SCHEDULE_SECS`].
    pub fn with_schedule(mut self, schedule: Vec<i64>) -> Deliverer {
        self.schedule = std::sync::Arc::new(schedule);
        self
    }

    /// Counts outcomes in these metrics (the service's own, so they show at `/metrics`).
    pub fn with_metrics(mut self, metrics: std::sync::Arc<crate::Metrics>) -> Deliverer {
        self.metrics = metrics;
        self
    }

    /// Attempts every notification due at `now_us`, a batch at a time: one claim, one read of
    /// the webhooks and stored bodies, bodies rendered once and stored, the requests sent
    /// concurrently (at most 32 at once and [`PER_ENDPOINT`] per webhook), and one transaction
    /// recording every attempt. Returns how many attempts were made.
    pub async fn deliver_due(&self, now_us: i64) -> Result<usize, boxtrack_store::StoreError> {
        use std::collections::HashMap;

        use boxtrack_store::notifications;
        let mut made = 0;
        loop {
            let claimed = notifications::claim_due(&self.db, now_us, 120_000_000, 256).await?;
            if claimed.is_empty() {
                return Ok(made);
            }
            let mut hook_ids: Vec<uuid::Uuid> = claimed.iter().map(|c| c.row.webhook_id).collect();
            hook_ids.sort_unstable();
            hook_ids.dedup();
            let hooks: HashMap<uuid::Uuid, boxtrack_store::webhooks::WebhookRow> =
                boxtrack_store::webhooks::get_many(&self.db, &hook_ids)
                    .await?
                    .into_iter()
                    .map(|w| (w.id, w))
                    .collect();
            let mut bodies: HashMap<uuid::Uuid, String> = HashMap::new();
            let mut due = Vec::with_capacity(claimed.len());
            for c in claimed {
                if let Some(b) = c.body {
                    bodies.insert(c.row.id, b);
                }
                due.push(c.row);
            }
            let mut cache = HashMap::new();
            let mut rendered = Vec::new();
            for n in due.iter().filter(|n| !bodies.contains_key(&n.id)) {
                let env =
                    crate::routes::notifications::envelope_cached(&self.db, n, &mut cache).await?;
                rendered.push((n.id, env.to_string()));
            }
            if !rendered.is_empty() {
                bodies.extend(notifications::store_bodies(&self.db, &rendered).await?);
            }
            let mut set = tokio::task::JoinSet::new();
            let limit = std::sync::Arc::new(tokio::sync::Semaphore::new(32));
            let mut per_hook: HashMap<uuid::Uuid, std::sync::Arc<tokio::sync::Semaphore>> =
                HashMap::new();
            for n in due {
                let hook = hooks.get(&n.webhook_id).cloned();
                let body = bodies.get(&n.id).cloned().unwrap_or_default();
                let slot = per_hook
                    .entry(n.webhook_id)
                    .or_insert_with(|| {
                        std::sync::Arc::new(tokio::sync::Semaphore::new(PER_ENDPOINT))
                    })
                    .clone();
                let limit = limit.clone();
                let client = self.client.clone();
                let allow_private = self.allow_private;
                let schedule = self.schedule.clone();
                let signature_header = self.signature_header.clone();
                set.spawn(async move {
                    let _slot = slot.acquire_owned().await;
                    let _permit = limit.acquire_owned().await;
                    let attempt = attempt_one(
                        &client,
                        allow_private,
                        &schedule,
                        &signature_header,
                        &n,
                        hook.as_ref(),
                        &body,
                        now_us,
                    )
                    .await;
                    (n, attempt)
                });
            }
            let mut done = Vec::new();
            while let Some(r) = set.join_next().await {
                match r {
                    Ok(pair) => done.push(pair),
                    Err(e) => tracing::error!(error = %e, "a delivery task failed"),
                }
            }
            made += done.len();
            for hook in notifications::record_many(&self.db, &done, self.deactivate_after).await? {
                self.metrics.record_deactivation();
                tracing::warn!(webhook.id = %hook, "webhook deactivated after repeated delivery failures");
            }
            let succeeded = done.iter().filter(|(_, a)| a.succeeded).count() as u64;
            let retrying = done
                .iter()
                .filter(|(_, a)| !a.succeeded && a.next_attempt_us.is_some())
                .count() as u64;
            let failed = done.len() as u64 - succeeded - retrying;
            for (outcome, n) in [
                ("succeeded", succeeded),
                ("retrying", retrying),
                ("failed", failed),
            ] {
                if n > 0 {
                    self.metrics.record_deliveries(outcome, n);
                }
            }
        }
    }

    /// Delivers until `shutdown`, checking for due work every `poll`.
    pub async fn run(self, shutdown: tokio_util::sync::CancellationToken, poll: Duration) {
        loop {
            if let Err(e) = self.deliver_due(boxtrack_store::now_us()).await {
                tracing::error!(error = %e, "webhook delivery failed; will retry");
            }
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = tokio::time::sleep(poll) => {},
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twelve_retries_with_jitter_and_retry_after() {
        assert_eq!(next_delay_secs(1, 0.5, None), Some(5));
        assert_eq!(next_delay_secs(12, 0.5, None), Some(72000));
        assert_eq!(next_delay_secs(13, 0.5, None), None);
        assert_eq!(next_delay_secs(0, 0.5, None), None);
        assert_eq!(next_delay_secs(2, 0.0, None), Some(24));
        assert_eq!(next_delay_secs(2, 1.0, None), Some(36));
        assert_eq!(next_delay_secs(1, 0.5, Some(90)), Some(90));
        let total: i64 = (1..=12)
            .map(|r| next_delay_secs(r, 0.5, None).unwrap())
            .sum();
        assert!((50 * 3600..60 * 3600).contains(&total), "{total}");
    }
}
