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

/// Concurrent requests to one webhook at most.
pub const PER_ENDPOINT: usize = 4;

/// How long the recorder waits for more outcomes before writing a partial batch: outcomes
/// arrive one by one, and a transaction costs about as much for 40 rows as for 200.
const GATHER: Duration = Duration::from_millis(2);

/// Notifications claimed per statement.
const BATCH: usize = 256;

/// Requests in flight (sending or waiting for their webhook's turn) at most, across webhooks.
const WINDOW: usize = 1024;

/// [`next_delay_secs_in`] the default schedule.
pub fn next_delay_secs(retry: i64, jitter: f64, retry_after: Option<u64>) -> Option<i64> {
    next_delay_secs_in(&RETRY_SCHEDULE_SECS, retry, jitter, retry_after)
}

/// A subscription made ready to send to once per claimed batch: URL parsed and checked (and,
/// unless private addresses are allowed, its host resolved and refused if any address is
/// internal), headers parsed, signing keys decoded.
struct Target {
    url: Result<reqwest::Url, String>,
    hex_key: String,
    standard_key: Option<Vec<u8>>,
    headers: reqwest::header::HeaderMap,
}

impl Target {
    async fn new(h: &boxtrack_store::webhooks::WebhookRow, allow_private: bool) -> Target {
        use reqwest::header::{HeaderName, HeaderValue};
        let mut headers = reqwest::header::HeaderMap::new();
        let mut bad_header = None;
        for (k, v) in &h.headers.0 {
            match (
                HeaderName::from_bytes(k.as_bytes()),
                HeaderValue::from_str(v),
            ) {
                (Ok(k), Ok(v)) => {
                    headers.insert(k, v);
                }
                _ => bad_header = Some(format!("the custom header {k:?} cannot be sent")),
            }
        }
        let url = match bad_header {
            Some(e) => Err(e),
            None => checked_url(&h.url, allow_private).await,
        };
        Target {
            url,
            hex_key: h.secret.clone(),
            standard_key: webhooks::standard_key(&h.secret),
            headers,
        }
    }
}

/// The URL if it may be sent to: scheme and literal address checked, and unless
/// `allow_private`, every address the host resolves to external (the client's resolver drops
/// internal addresses again when it connects, so a later DNS answer cannot reach them either).
async fn checked_url(raw: &str, allow_private: bool) -> Result<reqwest::Url, String> {
    webhooks::check_url(raw, allow_private).map_err(|e| e.to_string())?;
    let parsed = url::Url::parse(raw).map_err(|_| "url is not a valid URL".to_string())?;
    if !allow_private {
        let host = parsed
            .host_str()
            .unwrap_or_default()
            .trim_matches(['[', ']'])
            .to_string();
        let port = parsed.port_or_known_default().unwrap_or(443);
        let addrs: Vec<_> = tokio::net::lookup_host((host.as_str(), port))
            .await
            .map_err(|e| format!("cannot resolve {host}: {e}"))?
            .collect();
        if addrs.is_empty() || addrs.iter().any(|a| is_internal(a.ip())) {
            return Err(format!("{host} resolves to an internal address; refused"));
        }
    }
    Ok(parsed)
}

/// One claimed notification ready to send.
struct Job {
    row: boxtrack_store::notifications::NotificationRow,
    target: Option<std::sync::Arc<Target>>,
    body: axum::body::Bytes,
}

/// Sends one notification the lean way (no copies of what was sent or received beyond the
/// status and `Retry-After`) and says what to record.
async fn attempt(
    client: &reqwest::Client,
    schedule: &[i64],
    signature_header: &reqwest::header::HeaderName,
    job: &Job,
    now_us: i64,
) -> boxtrack_store::notifications::Attempt {
    use boxtrack_store::notifications::Attempt;
    use reqwest::header::{CONTENT_TYPE, HeaderValue};
    let started = Instant::now();
    let n = &job.row;
    let outcome: Result<(u16, Option<u64>), String> = async {
        let target = job
            .target
            .as_deref()
            .ok_or_else(|| "the webhook was deleted".to_string())?;
        let url = target.url.clone()?;
        let id = n.id.to_string();
        let timestamp = jiff::Timestamp::now().as_second();
        let mut headers = target.headers.clone();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let value = |s: String| HeaderValue::from_str(&s).map_err(|e| e.to_string());
        headers.insert("webhook-id", value(id.clone())?);
        headers.insert("webhook-timestamp", value(timestamp.to_string())?);
        headers.insert(
            signature_header.clone(),
            value(webhooks::sign_hex(&target.hex_key, &job.body))?,
        );
        if let Some(key) = &target.standard_key {
            headers.insert(
                "webhook-signature",
                value(webhooks::sign_standard_with(key, &id, timestamp, &job.body))?,
            );
        }
        let res = client
            .post(url)
            .headers(headers)
            .body(job.body.clone())
            .send()
            .await
            .map_err(|e| {
                if e.is_timeout() {
                    "timed out".to_string()
                } else {
                    format!("request failed: {e}")
                }
            })?;
        let status = res.status().as_u16();
        let retry_after = res
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse().ok());
        // read to the end so the connection goes back to the pool
        let _ = res.bytes().await;
        Ok((status, retry_after))
    }
    .await;
    let duration_ms = started.elapsed().as_millis() as i64;
    let (status_code, retry_after, error) = match outcome {
        Ok((status, retry_after)) => (
            Some(status),
            retry_after.filter(|_| matches!(status, 429 | 503)),
            (!matches!(status, 200 | 201 | 202 | 204))
                .then(|| format!("receiver answered {status}")),
        ),
        Err(e) => (None, None, Some(e)),
    };
    let succeeded = error.is_none();
    let jitter = (n.id.as_u128() % 1000) as f64 / 1000.0;
    let next_attempt_us = if succeeded || job.target.is_none() {
        None
    } else {
        next_delay_secs_in(schedule, n.attempts + 1, jitter, retry_after)
            .map(|d| now_us + d * 1_000_000)
    };
    Attempt {
        at_us: now_us,
        status_code: status_code.map(i64::from),
        duration_ms,
        error,
        succeeded,
        next_attempt_us,
    }
}

/// Delivers due webhook notifications.
#[derive(Clone)]
pub struct Deliverer {
    signature_header: reqwest::header::HeaderName,
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
            signature_header: reqwest::header::HeaderName::from_static(
                "x-boxtrack-webhook-signature",
            ),
            schedule: std::sync::Arc::new(RETRY_SCHEDULE_SECS.to_vec()),
            metrics: std::sync::Arc::default(),
            db,
            client: client_for(timeout, allow_private),
            allow_private,
            deactivate_after,
        }
    }

    /// Sends the hex signature under this header name (left at the default when `name` is
    /// not a valid header name; configuration checks it first).
    pub fn with_signature_header(mut self, name: &str) -> Deliverer {
        match reqwest::header::HeaderName::from_bytes(name.as_bytes()) {
            Ok(h) => self.signature_header = h,
            Err(_) => tracing::error!(header = name, "not a valid header name; kept the default"),
        }
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

    /// Claims a batch and makes it ready to send: webhooks read and prepared, bodies not yet
    /// stored rendered once and stored (a body another worker stored first wins). Empty when
    /// nothing is due.
    async fn prepare(&self, now_us: i64) -> Result<Vec<Job>, boxtrack_store::StoreError> {
        use std::collections::HashMap;

        use boxtrack_store::notifications;
        let claimed = notifications::claim_due(&self.db, now_us, 120_000_000, BATCH as i64).await?;
        if claimed.is_empty() {
            return Ok(vec![]);
        }
        let mut hook_ids: Vec<uuid::Uuid> = claimed.iter().map(|c| c.row.webhook_id).collect();
        hook_ids.sort_unstable();
        hook_ids.dedup();
        let mut targets: HashMap<uuid::Uuid, std::sync::Arc<Target>> = HashMap::new();
        for h in boxtrack_store::webhooks::get_many(&self.db, &hook_ids).await? {
            let t = Target::new(&h, self.allow_private).await;
            targets.insert(h.id, std::sync::Arc::new(t));
        }
        let mut cache = HashMap::new();
        let mut rendered = Vec::new();
        for c in claimed.iter().filter(|c| c.body.is_none()) {
            let env =
                crate::routes::notifications::envelope_cached(&self.db, &c.row, &mut cache).await?;
            rendered.push((c.row.id, env.to_string()));
        }
        let mut stored = if rendered.is_empty() {
            HashMap::new()
        } else {
            notifications::store_bodies(&self.db, &rendered).await?
        };
        Ok(claimed
            .into_iter()
            .map(|c| {
                let body = c
                    .body
                    .or_else(|| stored.remove(&c.row.id))
                    .unwrap_or_default();
                Job {
                    target: targets.get(&c.row.webhook_id).cloned(),
                    body: axum::body::Bytes::from(body),
                    row: c.row,
                }
            })
            .collect())
    }

    /// Sends every job that arrives, each once its webhook has one of its [`PER_ENDPOINT`]
    /// slots, with at most [`WINDOW`] in flight, and passes each outcome on to be recorded.
    async fn send_all(
        &self,
        mut jobs: tokio::sync::mpsc::Receiver<Job>,
        done: tokio::sync::mpsc::Sender<(
            boxtrack_store::notifications::NotificationRow,
            boxtrack_store::notifications::Attempt,
        )>,
        now_us: i64,
    ) {
        use std::sync::Arc;

        use tokio::sync::Semaphore;
        let window = Arc::new(Semaphore::new(WINDOW));
        let mut per_hook: std::collections::HashMap<uuid::Uuid, Arc<Semaphore>> =
            std::collections::HashMap::new();
        let mut set = tokio::task::JoinSet::new();
        while let Some(job) = jobs.recv().await {
            if done.is_closed() {
                // recording failed: stop taking work (the lease brings claimed rows back)
                break;
            }
            let Ok(in_flight) = window.clone().acquire_owned().await else {
                break;
            };
            while set.try_join_next().is_some() {}
            let slot = per_hook
                .entry(job.row.webhook_id)
                .or_insert_with(|| Arc::new(Semaphore::new(PER_ENDPOINT)))
                .clone();
            let client = self.client.clone();
            let schedule = self.schedule.clone();
            let signature_header = self.signature_header.clone();
            let done = done.clone();
            set.spawn(async move {
                let _in_flight = in_flight;
                let a = {
                    // the webhook's slot is held for the request only, not while the
                    // outcome waits to be recorded
                    let _slot = slot.acquire_owned().await;
                    attempt(&client, &schedule, &signature_header, &job, now_us).await
                };
                // a closed channel means recording failed; the lease brings the row back
                let _ = done.send((job.row, a)).await;
            });
        }
        while let Some(r) = set.join_next().await {
            if let Err(e) = r {
                tracing::error!(error = %e, "a delivery task failed");
            }
        }
    }

    /// Records outcomes as they arrive, as many per transaction as are waiting (up to
    /// [`BATCH`]), counts them in the metrics and reports deactivations. Returns how many were
    /// recorded.
    async fn record_all(
        &self,
        mut done: tokio::sync::mpsc::Receiver<(
            boxtrack_store::notifications::NotificationRow,
            boxtrack_store::notifications::Attempt,
        )>,
    ) -> Result<usize, boxtrack_store::StoreError> {
        use boxtrack_store::notifications;
        let mut recorded = 0;
        let mut batch = Vec::with_capacity(BATCH);
        while done.recv_many(&mut batch, BATCH).await > 0 {
            // gather a little longer, so one transaction records more outcomes
            let until = tokio::time::Instant::now() + GATHER;
            while batch.len() < BATCH {
                let room = BATCH - batch.len();
                match tokio::time::timeout_at(until, done.recv_many(&mut batch, room)).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
            }
            let deact = notifications::record_many(&self.db, &batch, self.deactivate_after).await?;
            for hook in deact {
                self.metrics.record_deactivation();
                tracing::warn!(webhook.id = %hook, "webhook deactivated after repeated delivery failures");
            }
            let succeeded = batch.iter().filter(|(_, a)| a.succeeded).count() as u64;
            let retrying = batch
                .iter()
                .filter(|(_, a)| !a.succeeded && a.next_attempt_us.is_some())
                .count() as u64;
            let failed = batch.len() as u64 - succeeded - retrying;
            for (outcome, n) in [
                ("succeeded", succeeded),
                ("retrying", retrying),
                ("failed", failed),
            ] {
                if n > 0 {
                    self.metrics.record_deliveries(outcome, n);
                }
            }
            recorded += batch.len();
            batch.clear();
        }
        Ok(recorded)
    }

    /// Attempts every notification due at `now_us` and returns how many attempts were made.
    ///
    /// Three stages run at once, joined by bounded channels, so the database work of one
    /// batch overlaps the requests of another: claiming (one statement per [`BATCH`], with a
    /// lease) and preparing (webhooks read once, bodies rendered once and stored); sending
    /// (signed, [`PER_ENDPOINT`] at a time per webhook, [`WINDOW`] in flight in all); and
    /// recording (every outcome waiting, in one transaction). A worker killed at any point
    /// leaves its claimed rows to come back when the lease ends; receivers deduplicate on
    /// `webhook-id`.
    pub async fn deliver_due(&self, now_us: i64) -> Result<usize, boxtrack_store::StoreError> {
        let (job_tx, job_rx) = tokio::sync::mpsc::channel(2 * BATCH);
        let (done_tx, done_rx) = tokio::sync::mpsc::channel(2 * BATCH);
        let sender = {
            let me = self.clone();
            tokio::spawn(async move { me.send_all(job_rx, done_tx, now_us).await })
        };
        let recorder = {
            let me = self.clone();
            tokio::spawn(async move { me.record_all(done_rx).await })
        };
        let claiming: Result<(), boxtrack_store::StoreError> = async {
            loop {
                let jobs = self.prepare(now_us).await?;
                if jobs.is_empty() {
                    return Ok(());
                }
                for job in jobs {
                    if job_tx.send(job).await.is_err() {
                        // the sender stopped because recording failed; its error is returned
                        return Ok(());
                    }
                }
            }
        }
        .await;
        drop(job_tx);
        if let Err(e) = sender.await {
            tracing::error!(error = %e, "the delivery sender failed");
        }
        let recorded = match recorder.await {
            Ok(r) => r?,
            Err(e) => {
                tracing::error!(error = %e, "the delivery recorder failed");
                0
            }
        };
        claiming?;
        Ok(recorded)
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
