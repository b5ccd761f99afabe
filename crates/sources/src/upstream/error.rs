//! Why an upstream call gave nothing, without ever a credential or a keyed URL in the words.

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
    #[error("{0}")]
    Unreachable(String),
    /// An error status.
    #[error("HTTP {status} from {name}{}", status_hint(*.status))]
    Status {
        /// Upstream.
        name: String,
        /// Status code.
        status: u16,
        /// `Retry-After` seconds, when sent.
        retry_after: Option<u64>,
    },
    /// No access token could be had from the upstream's token endpoint.
    #[error("no access token for {name}: {reason}")]
    Token {
        /// Upstream.
        name: String,
        /// Why (never the credentials).
        reason: String,
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

fn status_hint(status: u16) -> &'static str {
    match status {
        401 => " (credentials refused)",
        403 => " (access denied)",
        _ => "",
    }
}

/// A network error without its URL (a query-string key must not reach logs or errors), with
/// its causes.
pub(super) fn network_error(name: &str, e: reqwest::Error) -> UpstreamError {
    let timeout = e.is_timeout();
    let e = e.without_url();
    let mut text = format!("{name}: {e}");
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    if timeout && !text.contains("timed out") {
        text.push_str(" (timed out)");
    }
    UpstreamError::Unreachable(text)
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
