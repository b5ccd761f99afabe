//! What is wrong with an upstream, in plain words: one pure rule that reads the outcome of a
//! request (the answer, or the [`UpstreamError`] it ended in) and says it as a short code and
//! a sentence. `boxtrack carriers check`, `GET /v2/sources` (the last request of each
//! upstream) and the console's sources page all say what [`diagnose`] says.

use serde::Serialize;

use crate::upstream::{Network, TokenCause, UpstreamError};

/// What is wrong, as a code to act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    /// The upstream answered in its format and accepted the credentials.
    Ok,
    /// Connected, but the line knows nothing of the number asked (404, or no events).
    NumberUnknown,
    /// No connection: DNS, connect, TLS or a timeout.
    Unreachable,
    /// 401: the credentials are refused.
    CredentialsRefused,
    /// 401 or 403 saying the credentials expired.
    CredentialsExpired,
    /// 403: known credentials, no access (a subscription missing, an address not allowed).
    Forbidden,
    /// The token endpoint refused the client.
    TokenRefused,
    /// The token endpoint could not be reached.
    TokenUnreachable,
    /// The token endpoint answered without a usable token.
    TokenUnusable,
    /// The API refused an access token its token endpoint had just issued.
    TokenRejected,
    /// 429: the line limits requests.
    RateLimited,
    /// 404 not in DCSA's shape: the address is not the API's.
    WrongAddress,
    /// The answer is not the expected format (not JSON, not DCSA).
    UnexpectedFormat,
    /// 400: the line refused the request itself.
    RequestRefused,
    /// 5xx: the line's server failed.
    ServerError,
    /// Another error status.
    HttpError,
    /// boxtrack's own request budget for it is spent for now.
    BudgetSpent,
    /// No upstream is configured.
    NotConfigured,
}

impl Code {
    /// Every code, in the order the documentation lists them.
    pub const ALL: &'static [Code] = &[
        Code::Ok,
        Code::NumberUnknown,
        Code::Unreachable,
        Code::CredentialsRefused,
        Code::CredentialsExpired,
        Code::Forbidden,
        Code::TokenRefused,
        Code::TokenUnreachable,
        Code::TokenUnusable,
        Code::TokenRejected,
        Code::RateLimited,
        Code::WrongAddress,
        Code::UnexpectedFormat,
        Code::RequestRefused,
        Code::ServerError,
        Code::HttpError,
        Code::BudgetSpent,
        Code::NotConfigured,
    ];

    /// Its name, e.g. `credentials_refused`.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Ok => "ok",
            Code::NumberUnknown => "number_unknown",
            Code::Unreachable => "unreachable",
            Code::CredentialsRefused => "credentials_refused",
            Code::CredentialsExpired => "credentials_expired",
            Code::Forbidden => "forbidden",
            Code::TokenRefused => "token_refused",
            Code::TokenUnreachable => "token_unreachable",
            Code::TokenUnusable => "token_unusable",
            Code::TokenRejected => "token_rejected",
            Code::RateLimited => "rate_limited",
            Code::WrongAddress => "wrong_address",
            Code::UnexpectedFormat => "unexpected_format",
            Code::RequestRefused => "request_refused",
            Code::ServerError => "server_error",
            Code::HttpError => "http_error",
            Code::BudgetSpent => "budget_spent",
            Code::NotConfigured => "not_configured",
        }
    }
}

/// What is wrong with an upstream: a code and a sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnosis {
    /// The code.
    pub code: Code,
    /// What it means, in plain words.
    pub says: String,
    /// Seconds the upstream asked to wait (`rate_limited`, `budget_spent`).
    pub retry_after_secs: Option<u64>,
}

impl Diagnosis {
    /// Whether nothing is wrong.
    pub fn is_ok(&self) -> bool {
        self.code == Code::Ok
    }
}

/// A 404 answer of a DCSA endpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NotFound {
    /// Whether its body was DCSA's (an error object, an empty array or nothing), so the API
    /// was reached and only the number is unknown.
    pub dcsa: bool,
    /// What it said.
    pub said: Option<String>,
}

/// Whether a 404 body is one a DCSA API sends: nothing, an array, or an error object with
/// `errors` or `statusCode`.
pub fn dcsa_shaped(body: &str) -> bool {
    let body = body.trim();
    if body.is_empty() {
        return true;
    }
    match serde_json::from_str::<serde_json::Value>(body) {
        Ok(serde_json::Value::Array(_)) => true,
        Ok(serde_json::Value::Object(o)) => {
            o.contains_key("errors") || o.contains_key("statusCode")
        }
        _ => false,
    }
}

/// An answer that came: how many events it had, how many records it refused (and the first
/// reason), and whether it was a 404.
#[derive(Debug, Clone, Default)]
pub struct Answered<'a> {
    /// Events read.
    pub events: usize,
    /// Records refused.
    pub refused: usize,
    /// The first refusal's reason.
    pub first_refusal: Option<&'a str>,
    /// The 404, when it was one.
    pub not_found: Option<&'a NotFound>,
}

/// What was asked: how boxtrack authenticates (`none`, `headers`, `query`,
/// `oauth2_client_credentials`) and the number, when one was asked for its own sake
/// (`boxtrack carriers check --number`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Asked<'a> {
    /// The authentication scheme.
    pub scheme: &'a str,
    /// The number.
    pub number: Option<&'a str>,
}

fn said(s: &Option<String>) -> String {
    s.as_deref().map(|s| format!(": {s}")).unwrap_or_default()
}

fn diagnosis(code: Code, says: String) -> Diagnosis {
    Diagnosis {
        code,
        says,
        retry_after_secs: None,
    }
}

fn network_words(cause: Network) -> &'static str {
    match cause {
        Network::Dns => "the host name does not resolve (DNS); check the address's host",
        Network::Connect => {
            "nothing accepts connections at the address's host and port (refused or no route)"
        }
        Network::Tls => {
            "the TLS handshake failed (certificate or protocol); check https:// or http:// and the host's certificate"
        }
        Network::Timeout => "no answer in time (timed out)",
        Network::Other => "the connection failed",
    }
}

/// What is wrong, from what a request to an upstream gave (`Ok`: the answer it read).
pub fn diagnose(outcome: Result<&Answered<'_>, &UpstreamError>, asked: Asked<'_>) -> Diagnosis {
    match outcome {
        Ok(a) => answered(a, asked),
        Err(e) => failed(e, asked),
    }
}

fn answered(a: &Answered<'_>, asked: Asked<'_>) -> Diagnosis {
    if let Some(nf) = a.not_found
        && !nf.dcsa
        && asked.scheme == "cosco_hmac"
    {
        return diagnosis(
            Code::WrongAddress,
            format!(
                "The address answered 404 Not Found{}: the url is probably not COSCO's COP (boxtrack adds /info/tracking/NUMBER to it; COP's is https://api.lines.coscoshipping.com/service).",
                said(&nf.said)
            ),
        );
    }
    if let Some(nf) = a.not_found
        && !nf.dcsa
    {
        return diagnosis(
            Code::WrongAddress,
            format!(
                "The address answered 404 Not Found{}, not in DCSA's shape: the url is probably not the line's Track & Trace API (boxtrack adds /v2/events for DCSA 2.2, /v3/events for 3.0).",
                said(&nf.said)
            ),
        );
    }
    if a.events == 0 && a.refused > 0 {
        return diagnosis(
            Code::UnexpectedFormat,
            format!(
                "The answer is not the DCSA Track & Trace boxtrack reads: all {} record(s) were refused{}. Check dcsa_version.",
                a.refused,
                a.first_refusal
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default()
            ),
        );
    }
    match asked.number {
        Some(n) if a.events == 0 => diagnosis(
            Code::NumberUnknown,
            format!(
                "Connected, but the line knows nothing of {n}: it answered {}. Check the number, that it is this line's, and its kind (bill of lading, booking or container).",
                if a.not_found.is_some() {
                    "404 Not Found"
                } else {
                    "no events"
                }
            ),
        ),
        Some(n) => diagnosis(
            Code::Ok,
            format!(
                "Connected: the line accepted the credentials and answered {} event(s) for {n}.",
                a.events
            ),
        ),
        None => diagnosis(
            Code::Ok,
            "Connected: the line accepted the credentials and answered in its format.".into(),
        ),
    }
}

fn failed(e: &UpstreamError, asked: Asked<'_>) -> Diagnosis {
    match e {
        UpstreamError::NotConfigured(what) => diagnosis(
            Code::NotConfigured,
            format!("No upstream is configured for {what}: add a [carriers.SCAC] table (boxtrack carriers profiles lists the profiles)."),
        ),
        UpstreamError::Budget { wait_ms, .. } => Diagnosis {
            code: Code::BudgetSpent,
            says: "boxtrack's own request budget for this upstream is spent for now (upstream_requests_per_sec); requests wait for it.".into(),
            retry_after_secs: e.retry_after().or(Some((*wait_ms / 1000).max(1) as u64)),
        },
        UpstreamError::Unreachable { cause, .. } => diagnosis(
            Code::Unreachable,
            format!("Unreachable: {}.", network_words(*cause)),
        ),
        UpstreamError::Token { cause, reason, .. } => token(cause, reason),
        UpstreamError::Malformed { reason, .. } => diagnosis(
            Code::UnexpectedFormat,
            format!(
                "The answer is not the expected format ({reason}); the url may point at a web page, a login or another API. Check url and dcsa_version."
            ),
        ),
        UpstreamError::Status {
            status,
            retry_after,
            said: words,
            ..
        } => status_diagnosis(*status, *retry_after, words, asked),
    }
}

fn token(cause: &TokenCause, reason: &str) -> Diagnosis {
    match cause {
        TokenCause::Unreachable(n) => diagnosis(
            Code::TokenUnreachable,
            format!("The token endpoint is unreachable: {}.", network_words(*n)),
        ),
        TokenCause::Refused { status, error } if *status < 500 => diagnosis(
            Code::TokenRefused,
            format!(
                "The token endpoint refused the client (HTTP {status}{}): check client_id and client_secret, and that they belong to this line's application.",
                error
                    .as_deref()
                    .map(|e| format!(", {e}"))
                    .unwrap_or_default()
            ),
        ),
        TokenCause::Refused { status, .. } => diagnosis(
            Code::TokenUnreachable,
            format!("The token endpoint failed (HTTP {status}); usually temporary."),
        ),
        TokenCause::Unusable => diagnosis(
            Code::TokenUnusable,
            format!(
                "The token endpoint answered without a usable access token ({reason}); check token_url."
            ),
        ),
    }
}

fn status_diagnosis(
    status: u16,
    retry_after: Option<u64>,
    words: &Option<String>,
    asked: Asked<'_>,
) -> Diagnosis {
    let expired = words
        .as_deref()
        .is_some_and(|w| w.to_ascii_lowercase().contains("expire"));
    let oauth = asked.scheme == "oauth2_client_credentials";
    match status {
        401 if oauth => diagnosis(
            Code::TokenRejected,
            format!(
                "The line refused the access token its token endpoint had just issued (HTTP 401{}): the token may be for another API or expired at once; check token_url and the application's products.",
                said(words)
            ),
        ),
        401 | 403 if expired => diagnosis(
            Code::CredentialsExpired,
            format!(
                "Credentials expired (HTTP {status}{}): renew them on the line's portal.",
                said(words)
            ),
        ),
        401 => diagnosis(
            Code::CredentialsRefused,
            format!(
                "Credentials refused (HTTP 401{}): check their values (boxtrack carriers profiles names the ones each profile needs).",
                said(words)
            ),
        ),
        403 => diagnosis(
            Code::Forbidden,
            format!(
                "Forbidden (HTTP 403{}): the line knows the credentials but refuses this API; the application probably lacks a subscription to its Track & Trace product, or calls come from an address it does not allow.",
                said(words)
            ),
        ),
        429 => Diagnosis {
            code: Code::RateLimited,
            says: match retry_after {
                Some(s) => format!(
                    "Rate limited (HTTP 429{}): the line asks to wait {s} s before the next request.",
                    said(words)
                ),
                None => format!(
                    "Rate limited (HTTP 429{}): the line did not say how long to wait.",
                    said(words)
                ),
            },
            retry_after_secs: retry_after,
        },
        400 => diagnosis(
            Code::RequestRefused,
            format!(
                "The line refused the request (HTTP 400{}): the number may not be in a shape it takes, or the url names another API.",
                said(words)
            ),
        ),
        500..=599 => diagnosis(
            Code::ServerError,
            format!(
                "The line's server failed (HTTP {status}{}); usually temporary.",
                said(words)
            ),
        ),
        _ => diagnosis(
            Code::HttpError,
            format!("The line answered HTTP {status}{}.", said(words)),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(status: u16, retry_after: Option<u64>, words: Option<&str>) -> UpstreamError {
        UpstreamError::Status {
            name: "X".into(),
            status,
            retry_after,
            said: words.map(str::to_string),
        }
    }

    fn code(e: &UpstreamError, scheme: &str) -> Code {
        diagnose(
            Err(e),
            Asked {
                scheme,
                number: None,
            },
        )
        .code
    }

    #[test]
    fn every_failure_has_its_code() {
        assert_eq!(
            code(&status(401, None, None), "headers"),
            Code::CredentialsRefused
        );
        assert_eq!(
            code(&status(401, None, Some("API key expired")), "headers"),
            Code::CredentialsExpired
        );
        assert_eq!(
            code(&status(401, None, None), "oauth2_client_credentials"),
            Code::TokenRejected
        );
        assert_eq!(code(&status(403, None, None), "headers"), Code::Forbidden);
        let limited = diagnose(Err(&status(429, Some(3600), None)), Asked::default());
        assert_eq!(limited.code, Code::RateLimited);
        assert_eq!(limited.retry_after_secs, Some(3600));
        assert!(limited.says.contains("3600 s"), "{}", limited.says);
        assert_eq!(code(&status(400, None, None), "none"), Code::RequestRefused);
        assert_eq!(code(&status(503, None, None), "none"), Code::ServerError);
        assert_eq!(code(&status(418, None, None), "none"), Code::HttpError);
        let token = |cause| UpstreamError::Token {
            name: "X".into(),
            reason: "r".into(),
            cause,
        };
        assert_eq!(
            code(
                &token(TokenCause::Refused {
                    status: 401,
                    error: Some("invalid_client".into())
                }),
                "oauth2_client_credentials"
            ),
            Code::TokenRefused
        );
        assert_eq!(
            code(&token(TokenCause::Unreachable(Network::Dns)), "x"),
            Code::TokenUnreachable
        );
        assert_eq!(code(&token(TokenCause::Unusable), "x"), Code::TokenUnusable);
        let dns = UpstreamError::Unreachable {
            reason: "r".into(),
            cause: Network::Dns,
        };
        let d = diagnose(Err(&dns), Asked::default());
        assert_eq!(d.code, Code::Unreachable);
        assert!(d.says.contains("DNS"), "{}", d.says);
        assert_eq!(
            code(
                &UpstreamError::Malformed {
                    name: "X".into(),
                    reason: "not JSON".into()
                },
                "none"
            ),
            Code::UnexpectedFormat
        );
        // every code has its name once
        let names: std::collections::BTreeSet<&str> =
            Code::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(names.len(), Code::ALL.len());
        assert_eq!(
            serde_json::to_value(Code::TokenRejected).unwrap(),
            "token_rejected"
        );
    }

    #[test]
    fn answers_say_whether_the_number_is_known() {
        let with = |n| Asked {
            scheme: "none",
            number: n,
        };
        let a = Answered {
            events: 3,
            ..Answered::default()
        };
        assert_eq!(diagnose(Ok(&a), with(Some("BL1"))).code, Code::Ok);
        let none = Answered::default();
        assert_eq!(diagnose(Ok(&none), with(None)).code, Code::Ok);
        assert_eq!(
            diagnose(Ok(&none), with(Some("BL1"))).code,
            Code::NumberUnknown
        );
        let dcsa_404 = NotFound {
            dcsa: true,
            said: None,
        };
        let a = Answered {
            not_found: Some(&dcsa_404),
            ..Answered::default()
        };
        assert_eq!(
            diagnose(Ok(&a), with(Some("BL1"))).code,
            Code::NumberUnknown
        );
        let html_404 = NotFound {
            dcsa: false,
            said: None,
        };
        let a = Answered {
            not_found: Some(&html_404),
            ..Answered::default()
        };
        assert_eq!(diagnose(Ok(&a), with(None)).code, Code::WrongAddress);
        let a = Answered {
            refused: 2,
            first_refusal: Some("missing_field"),
            ..Answered::default()
        };
        assert_eq!(diagnose(Ok(&a), with(None)).code, Code::UnexpectedFormat);
        assert!(dcsa_shaped(r#"{"errors":[]}"#) && dcsa_shaped("") && dcsa_shaped("[]"));
        assert!(!dcsa_shaped("<html>") && !dcsa_shaped(r#"{"httpCode":"404"}"#));
    }
}
