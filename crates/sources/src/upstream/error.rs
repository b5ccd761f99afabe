//! Why an upstream call gave nothing, without ever a credential or a keyed URL in the words,
//! with what [`crate::diagnosis`] needs to say it in plain words: why a connection failed,
//! what an error answer said, why no access token could be had.

/// An answer of upstream `name` that cannot be read, and why.
pub(super) fn malformed(name: &str, reason: String) -> UpstreamError {
    UpstreamError::Malformed {
        name: name.into(),
        reason,
    }
}

/// Why an upstream call gave nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UpstreamError {
    /// No upstream is configured for it.
    #[error("no upstream is configured for {0}")]
    NotConfigured(String),
    /// Its request budget is spent for now.
    #[error("request budget of {name} spent; next request in {wait_ms} ms")]
    Budget {
        /// Upstream.
        name: String,
        /// Wait.
        wait_ms: i64,
    },
    /// Network trouble or a timeout.
    #[error("{reason}")]
    Unreachable {
        /// What the client said, with its causes (never the URL).
        reason: String,
        /// What failed.
        cause: Network,
    },
    /// An error status.
    #[error("HTTP {status} from {name}{}", status_hint(*.status))]
    Status {
        /// Upstream.
        name: String,
        /// Status code.
        status: u16,
        /// `Retry-After` seconds, when sent.
        retry_after: Option<u64>,
        /// What the answer said, in a few words (a DCSA error's message, an OAuth
        /// `error_description`, a gateway's text), when it said anything readable.
        said: Option<String>,
    },
    /// No access token could be had from the upstream's token endpoint.
    #[error("no access token for {name}: {reason}")]
    Token {
        /// Upstream.
        name: String,
        /// Why (never the credentials).
        reason: String,
        /// What failed.
        cause: TokenCause,
    },
    /// The answer could not be read.
    #[error("unreadable answer from {name}: {reason}")]
    Malformed {
        /// Upstream.
        name: String,
        /// Why.
        reason: String,
    },
}

/// What failed when an upstream could not be reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Network {
    /// The host name does not resolve.
    Dns,
    /// Nothing accepts connections there (refused, no route).
    Connect,
    /// The TLS handshake failed (certificate, protocol).
    Tls,
    /// No answer in time.
    Timeout,
    /// The connection broke otherwise.
    Other,
}

/// Why a token endpoint gave no access token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenCause {
    /// It could not be reached.
    Unreachable(Network),
    /// It answered an error status, with the OAuth `error` code when it sent one.
    Refused {
        /// The status.
        status: u16,
        /// RFC 6749 §5.2 `error`, e.g. `invalid_client`.
        error: Option<String>,
    },
    /// It answered 2xx, but not a usable token.
    Unusable,
}

fn status_hint(status: u16) -> &'static str {
    match status {
        401 => " (credentials refused)",
        403 => " (access denied)",
        _ => "",
    }
}

/// What a network error's causes say failed: a timeout, the name lookup, the TLS handshake,
/// the connection. `texts` are the error and its causes in words, outermost first.
pub fn network_cause(timeout: bool, connect: bool, texts: &[String]) -> Network {
    let said = |words: &[&str]| {
        texts.iter().any(|t| {
            let t = t.to_ascii_lowercase();
            words.iter().any(|w| t.contains(w))
        })
    };
    if timeout || said(&["timed out", "deadline has elapsed"]) {
        Network::Timeout
    } else if said(&[
        "dns error",
        "failed to lookup address",
        "name or service not known",
        "no address associated",
        "nodename nor servname",
        "name resolution",
    ]) {
        Network::Dns
    } else if said(&[
        "certificate",
        "tls",
        "ssl",
        "handshake",
        "corrupt message",
        "invalidcontenttype",
        "peer is incompatible",
    ]) {
        Network::Tls
    } else if connect
        || said(&[
            "connection refused",
            "no route to host",
            "network is unreachable",
        ])
    {
        Network::Connect
    } else {
        Network::Other
    }
}

/// A network error without its URL (a query-string key must not reach logs or errors), with
/// its causes, and what failed.
pub(super) fn network_error(name: &str, e: reqwest::Error) -> UpstreamError {
    let timeout = e.is_timeout();
    let connect = e.is_connect();
    let e = e.without_url();
    let mut texts = vec![e.to_string()];
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        texts.push(s.to_string());
        source = s.source();
    }
    let cause = network_cause(timeout, connect, &texts);
    let mut reason = format!("{name}: {}", texts.join(": "));
    if cause == Network::Timeout && !reason.contains("timed out") {
        reason.push_str(" (timed out)");
    }
    UpstreamError::Unreachable { reason, cause }
}

/// A few readable words from an error answer's body: a DCSA error's first `message` (or
/// `reason`), an OAuth `error_description` (or `error`), a gateway's `moreInformation` or
/// `message`, else the start of a short text body; control characters dropped, at most 160
/// characters. `None` for an empty body or markup.
pub fn said_in(body: &str) -> Option<String> {
    let body = body.trim();
    if body.is_empty() {
        return None;
    }
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(body) {
        let first = json
            .get("errors")
            .and_then(|e| e.get(0))
            .and_then(|e| e.get("message").or_else(|| e.get("reason")));
        let text = first
            .or_else(|| json.get("error_description"))
            .or_else(|| json.get("moreInformation"))
            .or_else(|| json.get("message"))
            .or_else(|| json.get("error"))
            .or_else(|| json.get("httpMessage"))
            .and_then(|v| v.as_str())?;
        return Some(short(text));
    }
    if body.starts_with('<') {
        return None;
    }
    Some(short(body))
}

/// The `error_description` (else the `error`) of a `WWW-Authenticate` challenge, e.g.
/// `Bearer error="invalid_token", error_description="The access token expired"`.
pub(super) fn challenge_said(v: &str) -> Option<String> {
    let param = |name: &str| {
        let at = v.find(&format!("{name}=\""))? + name.len() + 2;
        let rest = &v[at..];
        rest.find('"').map(|end| short(&rest[..end]))
    };
    param("error_description").or_else(|| param("error"))
}

fn short(s: &str) -> String {
    let clean: String = s.chars().filter(|c| !c.is_control()).take(160).collect();
    if s.chars().count() > 160 {
        format!("{clean}…")
    } else {
        clean
    }
}

impl UpstreamError {
    /// `Retry-After` seconds asked by the upstream.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            UpstreamError::Status { retry_after, .. } => *retry_after,
            UpstreamError::Budget { wait_ms, .. } => Some((*wait_ms / 1000 + 1) as u64),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_causes_are_told_apart() {
        let t = |s: &str| vec![s.to_string()];
        assert_eq!(network_cause(true, false, &t("x")), Network::Timeout);
        assert_eq!(
            network_cause(
                false,
                true,
                &t("dns error: failed to lookup address information")
            ),
            Network::Dns
        );
        assert_eq!(
            network_cause(false, true, &t("invalid peer certificate: UnknownIssuer")),
            Network::Tls
        );
        assert_eq!(
            network_cause(
                false,
                true,
                &t("tcp connect error: Connection refused (os error 111)")
            ),
            Network::Connect
        );
        assert_eq!(
            network_cause(false, false, &t("connection closed")),
            Network::Other
        );
    }

    #[test]
    fn error_bodies_are_read_in_a_few_words() {
        assert_eq!(
            said_in(r#"{"errors":[{"reason":"unauthorized","message":"API key expired"}]}"#)
                .as_deref(),
            Some("API key expired")
        );
        assert_eq!(
            said_in(
                r#"{"httpCode":"403","httpMessage":"Forbidden","moreInformation":"Not subscribed"}"#
            )
            .as_deref(),
            Some("Not subscribed")
        );
        assert_eq!(
            said_in(r#"{"error":"invalid_client"}"#).as_deref(),
            Some("invalid_client")
        );
        assert_eq!(said_in("<html><body>404</body></html>"), None);
        assert_eq!(said_in("  "), None);
        assert_eq!(said_in("busy\n").as_deref(), Some("busy"));
        assert!(said_in(&"x".repeat(500)).unwrap().ends_with('…'));
        assert_eq!(
            challenge_said(
                r#"Bearer error="invalid_token", error_description="The access token expired""#
            )
            .as_deref(),
            Some("The access token expired")
        );
        assert_eq!(
            challenge_said(r#"Bearer error="invalid_token""#).as_deref(),
            Some("invalid_token")
        );
        assert_eq!(challenge_said("Basic realm=\"x\""), None);
    }
}
