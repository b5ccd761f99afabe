//! The REST service's guard on every authenticated `/v2` route: the API key checked (through
//! the process's key cache), the account's rate limit applied, the `RateLimit` headers added.

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

use boxtrack_app::keys::authenticate;
use boxtrack_app::model::Account;
use boxtrack_core::ratelimit::{Bucket, Decision, WINDOW_US};
use boxtrack_http::access;
use boxtrack_http::auth::{Caller, parse_authorization};
use boxtrack_http::error::ApiError;

use crate::state::AppState;

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
    let (key_id, account) = match key_holder(&state, req.headers()).await {
        Ok(held) => held,
        Err(e) => return e.into_response(),
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
        access::note_account(req.extensions(), account_id);
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

/// The key the request carries and its account: from this process's key cache (read again in
/// the background when the entry is due), else from the database.
async fn key_holder(
    state: &AppState,
    headers: &axum::http::HeaderMap,
) -> Result<(uuid::Uuid, Arc<Account>), ApiError> {
    let key = parse_authorization(headers.get(header::AUTHORIZATION))?;
    let digest = key.digest();
    if let Some(found) = state.keys.get(&digest) {
        if found.refresh {
            let (ctx, keys) = (state.ctx.clone(), state.keys.clone());
            tokio::spawn(async move {
                match authenticate(&ctx, &key).await {
                    Ok(Some((key_id, account))) => keys.put(digest, key_id, Arc::new(account)),
                    Ok(None) => keys.forget(&digest),
                    Err(e) => {
                        tracing::debug!(error = %e, "reading an API key again failed");
                        keys.refresh_failed(&digest);
                    }
                }
            });
        }
        return Ok((found.key_id, found.account));
    }
    // boxed: a key not held in memory is rare, and the lookup's future would otherwise make
    // every request's guard as large as it
    match Box::pin(authenticate(&state.ctx, &key)).await? {
        Some((key_id, account)) => {
            let account = Arc::new(account);
            state.keys.put(digest, key_id, account.clone());
            Ok((key_id, account))
        }
        None => Err(ApiError::unauthorized("Invalid or missing API token.")),
    }
}
