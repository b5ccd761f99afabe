//! Authentication (`Authorization: Token <key>`), rate limiting and entitlement checks for `/v2`.

use axum::extract::{FromRequestParts, MatchedPath, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use boxtrack_core::apikey::ApiKey;
use boxtrack_core::plan::Entitlement;
use boxtrack_core::ratelimit::{Bucket, Decision, WINDOW_US};
use boxtrack_store::accounts::Account;
use uuid::Uuid;

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// The authenticated caller of a `/v2` request.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The API key used.
    pub key_id: Uuid,
    /// The key's account (shared with the key cache: a clone is a reference count).
    pub account: std::sync::Arc<Account>,
}

impl Caller {
    /// 403 naming the entitlement unless the account has it.
    pub fn require(&self, e: Entitlement) -> ApiResult<()> {
        if self.account.has(e) {
            Ok(())
        } else {
            Err(ApiError::forbidden(format!(
                "{} feature is not enabled for this account (entitlement `{}`)",
                e.title(),
                e.as_str()
            ))
            .with_code("entitlement_required"))
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> ApiResult<Caller> {
        parts
            .extensions
            .get::<Caller>()
            .cloned()
            .ok_or_else(|| ApiError::unauthorized("Invalid or missing API token."))
    }
}

fn parse_authorization(value: Option<&HeaderValue>) -> ApiResult<ApiKey> {
    let Some(value) = value else {
        return Err(ApiError::unauthorized(
            "Invalid or missing API token. Send the header Authorization: Token <API key>.",
        ));
    };
    let value = value
        .to_str()
        .map_err(|_| ApiError::unauthorized("The Authorization header is not readable text."))?;
    let (scheme, token) = value.trim().split_once(' ').unwrap_or((value.trim(), ""));
    if !scheme.eq_ignore_ascii_case("token") {
        return Err(ApiError::unauthorized(refused_scheme(scheme)));
    }
    ApiKey::parse(token.trim())
        .map_err(|e| ApiError::unauthorized(format!("Malformed API key: {e}.")))
}

/// Why the `Authorization` scheme `scheme` is refused, naming it only when it is a scheme's
/// word (`Bearer`, `Basic`): anything else may be the credential itself, sent without the
/// word `Token`, and a credential is never written back.
fn refused_scheme(scheme: &str) -> String {
    let a_word = !scheme.is_empty()
        && scheme.len() <= 16
        && scheme.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-');
    if a_word {
        format!(
            "Authorization scheme {scheme:?} is not accepted; send Authorization: Token <API key>."
        )
    } else {
        "The Authorization header does not start with a scheme (an API key sent without the word \"Token\"?); send Authorization: Token <API key>.".to_string()
    }
}

/// `"bucket";a=1;b=2`: a `RateLimit` header's value, written piece by piece (two of them on
/// every authenticated answer; `format!` cost several times as much).
fn limit_header(bucket: Bucket, params: [(&str, u64); 2]) -> Option<HeaderValue> {
    let mut v = String::with_capacity(48);
    v.push('"');
    v.push_str(bucket.as_str());
    v.push('"');
    let mut n = itoa::Buffer::new();
    for (name, value) in params {
        v.push(';');
        v.push_str(name);
        v.push('=');
        v.push_str(n.format(value));
    }
    HeaderValue::from_str(&v).ok()
}

fn policy_header(bucket: Bucket, limit: u32) -> Option<HeaderValue> {
    limit_header(
        bucket,
        [
            ("q", u64::from(limit)),
            ("w", (WINDOW_US / 1_000_000).unsigned_abs()),
        ],
    )
}

fn state_header(bucket: Bucket, d: &Decision) -> Option<HeaderValue> {
    limit_header(
        bucket,
        [("r", u64::from(d.remaining)), ("t", d.reset_after_secs())],
    )
}

/// Middleware on every authenticated `/v2` route: authenticates the key, applies the
/// account's rate limit for the route's bucket, and adds the `RateLimit` headers.
pub async fn guard(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let internal = req.extensions().get::<Internal>().cloned();
    let (key_id, account) = if let Some(Internal(account)) = internal {
        (Uuid::nil(), std::sync::Arc::new(account))
    } else {
        let key = match parse_authorization(req.headers().get(header::AUTHORIZATION)) {
            Ok(k) => k,
            Err(e) => return e.into_response(),
        };
        let digest = key.digest();
        match state.keys.get(&digest) {
            Some(found) => {
                if found.refresh {
                    let (db, keys) = (state.db.clone(), state.keys.clone());
                    tokio::spawn(async move {
                        match boxtrack_store::keys::authenticate(&db, &key).await {
                            Ok(Some((key_id, account))) => {
                                keys.put(digest, key_id, std::sync::Arc::new(account))
                            }
                            Ok(None) => keys.forget(&digest),
                            Err(e) => {
                                tracing::debug!(error = %e, "reading an API key again failed");
                                keys.refresh_failed(&digest);
                            }
                        }
                    });
                }
                (found.key_id, found.account)
            }
            // boxed: a key not held in memory is rare, and the lookup's future would
            // otherwise make every request's guard as large as it
            None => match Box::pin(boxtrack_store::keys::authenticate(&state.db, &key)).await {
                Ok(Some((key_id, account))) => {
                    let account = std::sync::Arc::new(account);
                    state.keys.put(digest, key_id, account.clone());
                    (key_id, account)
                }
                Ok(None) => {
                    return ApiError::unauthorized("Invalid or missing API token.").into_response();
                }
                Err(e) => return ApiError::from(e).into_response(),
            },
        }
    };
    let bucket = Bucket::for_route(
        req.method().as_str(),
        req.extensions()
            .get::<MatchedPath>()
            .map_or("", MatchedPath::as_str),
    );
    let limit = account.rate_limits.limit(bucket);
    let decision = match state.limiter.check(account.id, bucket, limit).await {
        Ok(d) => d,
        Err(e) => return e.into_response(),
    };
    let mut res = if decision.allowed {
        let account_id = account.id;
        let writes = !req.method().is_safe();
        crate::middleware::note_account(req.extensions(), account_id);
        req.extensions_mut().insert(Caller { key_id, account });
        let res = next.run(req).await;
        if writes {
            // what this request committed retires the account's cached reads before the
            // client sees the response (other processes hear of it from the database)
            state.reads.changes().touch(account_id);
        }
        res
    } else {
        state.metrics.record_rate_limited(bucket.as_str());
        ApiError::too_many_requests(
            decision.retry_after_secs(),
            format!(
                "Your account has exceeded its rate limit of {limit} requests per minute for {bucket}. \
                 Retry after {} seconds, or use webhooks instead of polling.",
                decision.retry_after_secs()
            ),
        )
        .into_response()
    };
    let h = res.headers_mut();
    if let Some(v) = policy_header(bucket, limit) {
        h.insert("ratelimit-policy", v);
    }
    if let Some(v) = state_header(bucket, &decision) {
        h.insert("ratelimit", v);
    }
    res
}

/// A principal the MCP server authenticated already (API key or OAuth access token), attached
/// in process to the REST calls its tools make. Only code can set a request extension, so a
/// client cannot send one.
#[derive(Debug, Clone)]
pub struct Internal(pub boxtrack_store::accounts::Account);

/// The account an `Authorization` value names (`Token <API key>`), or `None` when it is
/// missing, malformed, unknown or revoked. Used by the MCP endpoint, which answers 401 itself.
pub async fn account_for(
    state: &AppState,
    authorization: &str,
) -> ApiResult<Option<boxtrack_store::accounts::Account>> {
    let Ok(value) = HeaderValue::from_str(authorization) else {
        return Ok(None);
    };
    let Ok(key) = parse_authorization(Some(&value)) else {
        return Ok(None);
    };
    Ok(boxtrack_store::keys::authenticate(&state.db, &key)
        .await?
        .map(|(_, a)| a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorization_header_forms() {
        let key = ApiKey::generate();
        let ok = HeaderValue::from_str(&format!("Token {}", key.expose())).unwrap();
        assert_eq!(parse_authorization(Some(&ok)).unwrap(), key);
        let lower = HeaderValue::from_str(&format!("token  {}", key.expose())).unwrap();
        assert!(parse_authorization(Some(&lower)).is_ok());
        let bearer = HeaderValue::from_str(&format!("Bearer {}", key.expose())).unwrap();
        assert!(parse_authorization(Some(&bearer)).is_err());
        assert!(parse_authorization(None).is_err());
        let junk = HeaderValue::from_static("Token nope");
        assert!(parse_authorization(Some(&junk)).is_err());
    }

    #[test]
    fn a_key_sent_without_its_scheme_is_not_written_back() {
        let key = ApiKey::generate();
        let bare = HeaderValue::from_str(key.expose()).unwrap();
        let e = parse_authorization(Some(&bare)).unwrap_err();
        let said = format!("{e:?}");
        assert!(!said.contains(&key.expose()[4..]), "{said}");
        assert!(said.contains("without the word"), "{said}");
        let odd = HeaderValue::from_static("s3cr3t_value rest");
        let said = format!("{:?}", parse_authorization(Some(&odd)).unwrap_err());
        assert!(!said.contains("s3cr3t"), "{said}");
        let bearer = HeaderValue::from_static("Bearer abc");
        let said = format!("{:?}", parse_authorization(Some(&bearer)).unwrap_err());
        assert!(said.contains("Bearer"), "{said}");
    }
}
