//! Access tokens of the upstreams that want OAuth 2.0 client credentials (cached per
//! upstream, refreshed one at a time), and each request with its endpoint's credentials.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::error::{Network, TokenCause};
use super::{Auth, Endpoint, UpstreamError, Upstreams, dcsa, network_error};
use crate::auth::{OAuth2, Secret, token_due};

/// An access token as cached.
#[derive(Debug)]
pub(super) struct CachedToken {
    value: Secret,
    fetched: Instant,
    lifetime: Duration,
}

/// One upstream's token: an async lock, so one refresh runs at a time and concurrent requests
/// wait for it.
pub(super) type TokenSlot = Arc<tokio::sync::Mutex<Option<CachedToken>>>;

impl Upstreams {
    pub(super) fn token_slot(&self, key: &str) -> TokenSlot {
        self.tokens
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key.to_string())
            .or_default()
            .clone()
    }

    /// The upstream's access token: the cached one while it is not due for refresh, otherwise
    /// a new one (one fetch at a time per upstream; concurrent callers wait for it).
    pub(super) async fn access_token(
        &self,
        key: &str,
        name: &str,
        o: &OAuth2,
    ) -> Result<Secret, UpstreamError> {
        let slot = self.token_slot(key);
        let mut cached = slot.lock().await;
        if let Some(t) = cached.as_ref()
            && !token_due(t.fetched.elapsed(), t.lifetime)
        {
            return Ok(t.value.clone());
        }
        // a token due for refresh is still good until it expires, should the refresh fail
        let current = cached.take().filter(|t| t.fetched.elapsed() < t.lifetime);
        let fetched = Instant::now();
        let issued = match self.fetch_token(name, o).await {
            Ok(issued) => issued,
            Err(e) => {
                let Some(t) = current else {
                    return Err(e);
                };
                tracing::warn!(upstream = name, error = %e, "token refresh failed; the current token is used until it expires");
                let value = t.value.clone();
                *cached = Some(t);
                return Ok(value);
            }
        };
        let value = issued.access_token.clone();
        *cached = Some(CachedToken {
            value: issued.access_token,
            fetched,
            lifetime: issued.lifetime,
        });
        Ok(value)
    }

    /// Forgets `used` if it is still the cached token (the upstream refused it).
    pub(super) async fn drop_token(&self, key: &str, used: &Secret) {
        let slot = self.token_slot(key);
        let mut cached = slot.lock().await;
        if cached.as_ref().is_some_and(|t| &t.value == used) {
            *cached = None;
        }
    }

    /// RFC 6749 §4.4: `grant_type=client_credentials`, the client authenticated with HTTP
    /// Basic or in the body.
    pub(super) async fn fetch_token(
        &self,
        name: &str,
        o: &OAuth2,
    ) -> Result<crate::auth::IssuedToken, UpstreamError> {
        let token_error = |reason: String, cause: TokenCause| UpstreamError::Token {
            name: name.to_string(),
            reason,
            cause,
        };
        let mut form: Vec<(&str, &str)> = vec![("grant_type", "client_credentials")];
        if let Some(scope) = &o.scope {
            form.push(("scope", scope));
        }
        let mut req = self
            .client
            .post(&o.token_url)
            .header(reqwest::header::ACCEPT, "application/json");
        match o.client_auth {
            crate::auth::ClientAuth::Basic => {
                let mut v = reqwest::header::HeaderValue::from_str(
                    &crate::auth::basic_credentials(&o.client_id, &o.client_secret),
                )
                .map_err(|_| {
                    token_error(
                        "the client credentials are not usable".into(),
                        TokenCause::Unusable,
                    )
                })?;
                v.set_sensitive(true);
                req = req.header(reqwest::header::AUTHORIZATION, v);
            }
            crate::auth::ClientAuth::Body => {
                form.push(("client_id", o.client_id.expose()));
                form.push(("client_secret", o.client_secret.expose()));
            }
        }
        let res = req.form(&form).send().await.map_err(|e| {
            let UpstreamError::Unreachable { reason, cause } = network_error(name, e) else {
                return token_error(
                    "the token endpoint is unreachable".into(),
                    TokenCause::Unreachable(Network::Other),
                );
            };
            token_error(
                format!("the token endpoint is unreachable ({reason})"),
                TokenCause::Unreachable(cause),
            )
        })?;
        let status = res.status().as_u16();
        let body = res.text().await.map_err(|e| {
            token_error(
                format!("the token answer could not be read: {e}"),
                TokenCause::Unusable,
            )
        })?;
        crate::auth::read_token_answer(status, &body).map_err(|reason| {
            let cause = if (200..300).contains(&status) {
                TokenCause::Unusable
            } else {
                TokenCause::Refused {
                    status,
                    error: serde_json::from_str::<serde_json::Value>(&body)
                        .ok()
                        .and_then(|j| j.get("error")?.as_str().map(str::to_string))
                        .map(|e| e.chars().filter(|c| !c.is_control()).take(60).collect()),
                }
            };
            token_error(reason, cause)
        })
    }

    /// The request with the endpoint's credentials, and the access token used, if any.
    pub(super) async fn authorized(
        &self,
        key: &str,
        ep: &Endpoint,
        url: &str,
        name: &str,
    ) -> Result<(reqwest::RequestBuilder, Option<Secret>), UpstreamError> {
        let mut url = reqwest::Url::parse(url)
            .map_err(|e| UpstreamError::NotConfigured(format!("{name}: {e}")))?;
        let mut headers: Vec<(reqwest::header::HeaderName, &Secret)> = Vec::new();
        let mut bearer = None;
        match &ep.auth {
            Auth::None => {}
            Auth::Headers(h) => headers.extend(h.iter().map(|(n, v)| (n.clone(), v))),
            Auth::Query { param, value } => {
                if !url.query_pairs().any(|(k, _)| k == param.as_str()) {
                    url.query_pairs_mut().append_pair(param, value.expose());
                }
            }
            Auth::OAuth2(o) => {
                bearer = Some(self.access_token(key, name, o).await?);
                headers.extend(o.headers.iter().map(|(n, v)| (n.clone(), v)));
            }
            Auth::CoscoHmac { .. } => {}
        }
        // the path and query as sent, which COP's signature covers
        let wire_path = match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_string(),
        };
        let mut req = self
            .client
            .get(url)
            .header("Accept", "application/json")
            .header(
                "API-Version",
                match ep.dcsa_version {
                    dcsa::Version::V2_2 => "2",
                    dcsa::Version::V3_0 => "3.0.0",
                },
            );
        let sensitive = |v: &str| {
            let mut v = reqwest::header::HeaderValue::from_str(v).map_err(|_| {
                UpstreamError::NotConfigured(format!("{name}: a credential is not a header value"))
            })?;
            v.set_sensitive(true);
            Ok::<_, UpstreamError>(v)
        };
        for (n, v) in headers {
            req = req.header(n, sensitive(v.expose())?);
        }
        if let Auth::CoscoHmac {
            api_key,
            secret_key,
        } = &ep.auth
        {
            let date = boxtrack_core::time::format_http_date(boxtrack_core::time::now_us());
            let nonce = uuid::Uuid::new_v4().simple().to_string();
            let signed = crate::cosco::signed_headers(
                api_key.expose(),
                secret_key.expose(),
                "GET",
                &wire_path,
                b"",
                &date,
                &nonce,
            );
            for (n, v) in signed {
                req = req.header(n, sensitive(&v)?);
            }
        }
        if let Some(t) = &bearer {
            req = req.header(
                reqwest::header::AUTHORIZATION,
                sensitive(&format!("Bearer {}", t.expose()))?,
            );
        }
        Ok((req, bearer))
    }
}
