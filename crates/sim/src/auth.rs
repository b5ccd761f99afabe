//! What the simulated carriers demand of a caller: the fixed test credentials, the OAuth 2.0
//! token endpoint, and the check of each carrier request.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Instant;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::{Sim, world};

/// The fixed test credentials the simulated carriers demand (documented, not secret).
pub mod credentials {
    /// OAuth 2.0 client id (`--carrier-auth oauth2`).
    pub const CLIENT_ID: &str = "boxtrack-sim";
    /// OAuth 2.0 client secret.
    pub const CLIENT_SECRET: &str = "sim-client-secret";
    /// Token endpoint path.
    pub const TOKEN_PATH: &str = "/sim/v1/oauth/token";
    /// First header of `--carrier-auth headers`, with [`CLIENT_ID`] as its value.
    pub const ID_HEADER: &str = "X-Client-Id";
    /// Second header of `--carrier-auth headers`.
    pub const SECRET_HEADER: &str = "X-Client-Secret";
    /// Its value.
    pub const HEADER_SECRET: &str = "sim-header-secret";
    /// Query parameter of `--carrier-auth query`.
    pub const QUERY_PARAM: &str = "apikey";
    /// Its value.
    pub const QUERY_KEY: &str = "sim-api-key";
}

/// What the simulated carriers' DCSA endpoints demand of a caller.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CarrierAuth {
    /// Nothing.
    #[default]
    None,
    /// `Authorization: Bearer <token>` with a live token from `POST /sim/v1/oauth/token`
    /// (client `boxtrack-sim` / `sim-client-secret`, HTTP Basic or in the form body).
    OAuth2,
    /// `X-Client-Id: boxtrack-sim` and `X-Client-Secret: sim-header-secret`.
    Headers,
    /// `?apikey=sim-api-key`.
    Query,
}

impl CarrierAuth {
    /// Reads `none`, `oauth2`, `headers` or `query`.
    pub fn parse(s: &str) -> Result<CarrierAuth, String> {
        match s.trim() {
            "none" | "" => Ok(CarrierAuth::None),
            "oauth2" => Ok(CarrierAuth::OAuth2),
            "headers" => Ok(CarrierAuth::Headers),
            "query" => Ok(CarrierAuth::Query),
            other => Err(format!(
                "{other:?} is not a scheme (none, oauth2, headers, query)"
            )),
        }
    }

    /// Its name, as [`CarrierAuth::parse`] reads it.
    pub fn as_str(self) -> &'static str {
        match self {
            CarrierAuth::None => "none",
            CarrierAuth::OAuth2 => "oauth2",
            CarrierAuth::Headers => "headers",
            CarrierAuth::Query => "query",
        }
    }

    /// One line saying what a caller of the simulator at `base` must send.
    pub fn describe(self, base: &str) -> String {
        use credentials::*;
        match self {
            CarrierAuth::None => "carrier auth: none".into(),
            CarrierAuth::OAuth2 => format!(
                "carrier auth: oauth2 client credentials; token_url {base}{TOKEN_PATH}, client_id {CLIENT_ID}, client_secret {CLIENT_SECRET}"
            ),
            CarrierAuth::Headers => format!(
                "carrier auth: headers {ID_HEADER}: {CLIENT_ID} and {SECRET_HEADER}: {HEADER_SECRET}"
            ),
            CarrierAuth::Query => format!("carrier auth: query ?{QUERY_PARAM}={QUERY_KEY}"),
        }
    }
}

/// `application/x-www-form-urlencoded` pairs.
pub(crate) fn form_pairs(body: &str) -> HashMap<String, String> {
    body.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (form_decode(k), form_decode(v))
        })
        .collect()
}

fn form_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'+', _) => out.push(b' '),
            (b'%', Some(b)) => {
                out.push(b);
                i += 2;
            }
            (b, _) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub(crate) fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    let mut r = (
        status,
        Json(json!({"error": error, "error_description": description})),
    )
        .into_response();
    r.headers_mut()
        .insert("Cache-Control", HeaderValue::from_static("no-store"));
    if status == StatusCode::UNAUTHORIZED {
        r.headers_mut().insert(
            "WWW-Authenticate",
            HeaderValue::from_static("Basic realm=\"boxtrack-sim\""),
        );
    }
    r
}

/// `POST /sim/v1/oauth/token`: RFC 6749 §4.4 client credentials, the client authenticated
/// with HTTP Basic or in the form body.
pub(crate) async fn oauth_token(
    State(sim): State<Sim>,
    headers: HeaderMap,
    body: String,
) -> Response {
    if sim.0.carrier_auth != CarrierAuth::OAuth2 {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "unauthorized_client",
            "the simulator runs without --carrier-auth oauth2",
        );
    }
    let form = form_pairs(&body);
    let (basic, in_form) = clients(&headers, &form);
    let client = basic.or(in_form);
    if form.get("grant_type").map(String::as_str) != Some("client_credentials") {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            "only grant_type=client_credentials",
        );
    }
    let ok = client.as_ref().is_some_and(|(id, secret)| {
        id == credentials::CLIENT_ID && secret == credentials::CLIENT_SECRET
    });
    if !ok {
        sim.0.refused.fetch_add(1, Ordering::Relaxed);
        return oauth_error(
            StatusCode::UNAUTHORIZED,
            "invalid_client",
            "client authentication failed",
        );
    }
    issue(&sim, None, credentials::CLIENT_ID)
}

/// A token issued to a client, for one line of the simulator (`None`: its carriers of
/// `--carrier-auth oauth2`).
#[derive(Debug, Clone)]
pub(crate) struct Grant {
    /// When it expires (real time).
    pub expires: Instant,
    /// The line it is good for.
    pub line: Option<&'static str>,
    /// The client id it was issued to.
    pub client: String,
}

/// The client id and secret of a token request: from HTTP Basic, and from the form.
pub(crate) type Client = Option<(String, String)>;

/// The client of a token request as HTTP Basic names it, and as the form does.
pub(crate) fn clients(headers: &HeaderMap, form: &HashMap<String, String>) -> (Client, Client) {
    use base64::Engine;
    let basic = headers
        .get("Authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|v| {
            base64::engine::general_purpose::STANDARD
                .decode(v.trim())
                .ok()
        })
        .and_then(|v| String::from_utf8(v).ok())
        .and_then(|v| {
            v.split_once(':')
                .map(|(id, secret)| (form_decode(id), form_decode(secret)))
        });
    let in_form = (|| {
        Some((
            form.get("client_id")?.clone(),
            form.get("client_secret")?.clone(),
        ))
    })();
    (basic, in_form)
}

/// A new access token for `client`, good for `line`, as RFC 6749 §5.1 answers it.
pub(crate) fn issue(sim: &Sim, line: Option<&'static str>, client: &str) -> Response {
    let n = sim.0.tokens_issued.fetch_add(1, Ordering::Relaxed) + 1;
    let mut rng = world::Rng::new(sim.0.world.seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let token = format!("sim-{n}-{:016x}", rng.next_u64());
    let now = Instant::now();
    {
        let mut tokens = sim.0.tokens.lock().unwrap_or_else(|e| e.into_inner());
        tokens.retain(|_, g| g.expires > now);
        tokens.insert(
            token.clone(),
            Grant {
                expires: now + sim.0.token_ttl,
                line,
                client: client.to_string(),
            },
        );
    }
    let mut r = Json(json!({
        "access_token": token,
        "token_type": "Bearer",
        "expires_in": sim.0.token_ttl.as_secs().max(1),
    }))
    .into_response();
    r.headers_mut()
        .insert("Cache-Control", HeaderValue::from_static("no-store"));
    r
}

/// `GET /sim/v1/auth`: the scheme, tokens issued and live, requests refused.
pub(crate) async fn auth_stats(State(sim): State<Sim>) -> Json<Value> {
    let now = Instant::now();
    let live = sim
        .0
        .tokens
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .values()
        .filter(|g| g.expires > now)
        .count();
    Json(json!({
        "carrier_auth": sim.0.carrier_auth.as_str(),
        "token_ttl_secs": sim.0.token_ttl.as_secs(),
        "tokens_issued": sim.0.tokens_issued.load(Ordering::Relaxed),
        "tokens_live": live,
        "refused": sim.0.refused.load(Ordering::Relaxed),
    }))
}

impl Sim {
    /// Whether a carrier request carries the credential the simulator demands.
    pub(crate) fn admits(&self, headers: &HeaderMap, query: &HashMap<String, String>) -> bool {
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        match self.0.carrier_auth {
            CarrierAuth::None => true,
            CarrierAuth::Headers => {
                header(credentials::ID_HEADER) == Some(credentials::CLIENT_ID)
                    && header(credentials::SECRET_HEADER) == Some(credentials::HEADER_SECRET)
            }
            CarrierAuth::Query => {
                query.get(credentials::QUERY_PARAM).map(String::as_str)
                    == Some(credentials::QUERY_KEY)
            }
            CarrierAuth::OAuth2 => header("Authorization")
                .and_then(|v| v.strip_prefix("Bearer "))
                .is_some_and(|t| {
                    self.0
                        .tokens
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .get(t.trim())
                        .is_some_and(|g| g.line.is_none() && g.expires > Instant::now())
                }),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn form_values_are_decoded() {
        let f = form_pairs("grant_type=client_credentials&scope=a+b%2Fc&client_id=x%zz");
        assert_eq!(f["grant_type"], "client_credentials");
        assert_eq!(f["scope"], "a b/c");
        assert_eq!(f["client_id"], "x%zz");
        assert_eq!(CarrierAuth::parse("oauth2"), Ok(CarrierAuth::OAuth2));
        assert!(CarrierAuth::parse("kerberos").is_err());
    }
}
