//! One claimed notification and its attempt: the subscription made ready to send to once per
//! batch (URL checked and resolved, headers parsed, keys decoded) and the lean send that says
//! what to record.

use std::time::Instant;

use boxtrack_core::webhooks::{self, is_internal};

use super::retry::next_delay_secs_in;

/// A subscription made ready to send to once per claimed batch: URL parsed and checked (and,
/// unless private addresses are allowed, its host resolved and refused if any address is
/// internal), headers parsed, signing keys decoded.
pub(super) struct Target {
    pub(super) url: Result<reqwest::Url, String>,
    pub(super) hex_key: String,
    pub(super) standard_key: Option<Vec<u8>>,
    pub(super) headers: reqwest::header::HeaderMap,
}

impl Target {
    pub(super) async fn new(
        h: &boxtrack_store::webhooks::WebhookRow,
        allow_private: bool,
    ) -> Target {
        use reqwest::header::{HeaderName, HeaderValue};
        let mut headers = reqwest::header::HeaderMap::new();
        let mut bad_header = None;
        for (k, v) in &h.headers {
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
pub(super) async fn checked_url(raw: &str, allow_private: bool) -> Result<reqwest::Url, String> {
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
pub(super) struct Job {
    pub(super) row: boxtrack_store::notifications::NotificationRow,
    pub(super) target: Option<std::sync::Arc<Target>>,
    pub(super) body: bytes::Bytes,
}

/// Sends one notification the lean way (no copies of what was sent or received beyond the
/// status and `Retry-After`) and says what to record.
pub(super) async fn attempt(
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
    let outcome: Result<(u16, Option<u64>, Option<String>), String> = async {
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
        let send = || {
            client
                .post(url.clone())
                .headers(headers.clone())
                .body(job.body.clone())
                .send()
        };
        let res = match send().await {
            // the request did not get through, most often on a kept-alive connection the
            // receiver had just closed: once more at once, on a new connection (receivers
            // deduplicate on webhook-id should the first have arrived after all), instead of
            // waiting out the first retry delay
            Err(e) if !e.is_timeout() && (e.is_request() || e.is_connect()) => send().await,
            other => other,
        }
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
        let body = kept_body(res).await;
        Ok((status, retry_after, body))
    }
    .await;
    let duration_ms = started.elapsed().as_millis() as i64;
    let (status_code, retry_after, error, response_body) = match outcome {
        Ok((status, retry_after, body)) => (
            Some(status),
            retry_after.filter(|_| matches!(status, 429 | 503)),
            (!matches!(status, 200 | 201 | 202 | 204))
                .then(|| format!("receiver answered {status}")),
            body,
        ),
        Err(e) => (None, None, Some(e), None),
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
        response_body,
        succeeded,
        next_attempt_us,
    }
}

/// The most of a response body an attempt reads: past it the connection is dropped rather
/// than drained, so a receiver cannot make the deliverer read without end.
const BODY_READ_MAX: usize = 64 * 1024;

/// Reads a receiver's answer, up to [`BODY_READ_MAX`] bytes (to the end, most often, so the
/// connection goes back to the pool), and keeps its first
/// [`boxtrack_store::notifications::RESPONSE_BODY_KEPT`] bytes as text; `None` when empty.
async fn kept_body(mut res: reqwest::Response) -> Option<String> {
    let keep = boxtrack_store::notifications::RESPONSE_BODY_KEPT;
    let mut kept: Vec<u8> = Vec::new();
    let mut read = 0;
    while read < BODY_READ_MAX {
        match res.chunk().await {
            Ok(Some(chunk)) => {
                read += chunk.len();
                let room = keep.saturating_sub(kept.len());
                kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            Ok(None) | Err(_) => break,
        }
    }
    kept_text(&kept)
}

/// The kept bytes as text: invalid UTF-8 replaced, a character cut at the end dropped, and
/// nothing for an empty body.
fn kept_text(bytes: &[u8]) -> Option<String> {
    if bytes.is_empty() {
        return None;
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t.to_string(),
        // cut inside a character at the end: keep what is whole
        Err(e) if e.error_len().is_none() => {
            String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned()
        }
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    };
    Some(text)
}

#[cfg(test)]
mod body_tests {
    use super::kept_text;

    #[test]
    fn kept_bodies_are_text_without_a_cut_character() {
        assert_eq!(kept_text(b""), None);
        assert_eq!(kept_text(b"ok").as_deref(), Some("ok"));
        // "é" is two bytes; a cut after the first drops it
        assert_eq!(kept_text(&[b'a', 0xC3]).as_deref(), Some("a"));
        assert_eq!(kept_text(&[0xFF, b'b']).as_deref(), Some("\u{FFFD}b"));
    }
}
