//! The token endpoint (authorization code with PKCE, refresh with rotation and reuse detection) and
//! the bearer check of /mcp.

use std::collections::HashMap;

use super::shapes::{TokenForm, Tokens};
use axum::Json;
use axum::extract::{Form, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use boxtrack_core::oauth as core;
use boxtrack_core::ratelimit::Attempt;
use boxtrack_store::oauth as store;

use boxtrack_http::Front;

use super::common::*;

async fn issue(
    state: &Front,
    client_id: &str,
    user_id: uuid::Uuid,
    account_id: uuid::Uuid,
    resource: &str,
    family: uuid::Uuid,
) -> Response {
    let access = core::new_secret();
    let refresh = core::new_secret();
    let now = boxtrack_store::now_us();
    let stored = store::store_pair(
        &state.ctx.db,
        &core::digest(&access),
        &core::digest(&refresh),
        &store::Token {
            kind: String::new(),
            client_id: client_id.to_string(),
            user_id,
            account_id,
            resource: resource.to_string(),
            family,
            expires_us: 0,
            used_us: None,
            revoked_us: None,
        },
        now + ACCESS_TTL_US,
        now + REFRESH_TTL_US,
    )
    .await;
    if let Err(e) = stored {
        return boxtrack_http::error::ApiError::from(e).into_response();
    }
    let mut r = Json(Tokens {
        access_token: access,
        token_type: "Bearer",
        expires_in: ACCESS_TTL_US / 1_000_000,
        refresh_token: refresh,
        scope: "mcp",
    })
    .into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// `POST /oauth/token`: `authorization_code` (with the PKCE verifier) and `refresh_token`; at
/// most [`boxtrack_core::ratelimit::TOKEN_REQUESTS_PER_MINUTE`] per `client_id`.
pub async fn token(State(state): State<Front>, Form(f): Form<HashMap<String, String>>) -> Response {
    let f = TokenForm::from_fields(f);
    if let Err(r) = admit(&state, Attempt::Token(&f.client_id), "oauth_token").await {
        return r;
    }
    let now = boxtrack_store::now_us();
    let answer = match f.grant_type.as_str() {
        "authorization_code" => code_grant(&state, &f, now).await,
        "refresh_token" => refresh_grant(&state, &f, now).await,
        other => Err(oauth_error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            &format!("grant_type {other:?} is not supported"),
        )),
    };
    answer.unwrap_or_else(|refused| refused)
}

/// An `invalid_grant` refusal saying why.
fn invalid_grant(why: &str) -> Response {
    oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", why)
}

/// A store failure as the API answers it.
fn store_failed(e: boxtrack_store::StoreError) -> Response {
    boxtrack_http::error::ApiError::from(e).into_response()
}

/// `grant_type=authorization_code`: the code (used once, alive a minute), for the client and
/// redirect URI it was given to, with the PKCE verifier of its challenge and (when sent) its
/// resource; new tokens of a new grant.
async fn code_grant(state: &Front, f: &TokenForm, now: i64) -> Result<Response, Response> {
    let code = store::take_code(&state.ctx.db, &core::digest(&f.code), now)
        .await
        .map_err(store_failed)?
        .ok_or_else(|| invalid_grant("the code is unknown or was used already"))?;
    if code.expires_us < now {
        return Err(invalid_grant("the code expired"));
    }
    if code.client_id != f.client_id || code.redirect_uri != f.redirect_uri {
        return Err(invalid_grant(
            "client_id or redirect_uri differs from the authorization request",
        ));
    }
    if !core::pkce_s256_matches(&f.code_verifier, &code.code_challenge) {
        return Err(invalid_grant("the PKCE code_verifier does not match"));
    }
    if let Some(r) = &f.resource
        && core::canonical_resource(r).as_deref() != Some(code.resource.as_str())
    {
        return Err(oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_target",
            "resource differs from the authorization request",
        ));
    }
    Ok(issue(
        state,
        &code.client_id,
        code.user_id,
        code.account_id,
        &code.resource,
        uuid::Uuid::now_v7(),
    )
    .await)
}

/// `grant_type=refresh_token`: a live refresh token of this client, used once; new tokens of
/// the same grant. A token used twice revokes every token of its grant (a stolen token is
/// worth nothing once its owner refreshes).
async fn refresh_grant(state: &Front, f: &TokenForm, now: i64) -> Result<Response, Response> {
    let hash = core::digest(&f.refresh_token);
    let t = store::get_token(&state.ctx.db, &hash)
        .await
        .map_err(store_failed)?
        .filter(|t| t.kind == "refresh")
        .ok_or_else(|| invalid_grant("unknown refresh token"))?;
    if t.client_id != f.client_id {
        return Err(invalid_grant("the refresh token belongs to another client"));
    }
    if t.revoked_us.is_some() || t.expires_us < now {
        return Err(invalid_grant("the refresh token expired or was revoked"));
    }
    if store::use_refresh(&state.ctx.db, &hash, now)
        .await
        .map_err(store_failed)?
    {
        return Ok(issue(
            state,
            &t.client_id,
            t.user_id,
            t.account_id,
            &t.resource,
            t.family,
        )
        .await);
    }
    // reuse of a rotated token: revoke everything issued from this grant
    store::revoke_family(&state.ctx.db, t.family, now)
        .await
        .map_err(store_failed)?;
    tracing::warn!(client = %t.client_id, "refresh token reused; its token family is revoked");
    Err(invalid_grant(
        "the refresh token was used already; every token of this grant is revoked",
    ))
}

/// The account an OAuth access token stands for, when it is valid for `resource`.
pub async fn account_for_bearer(
    state: &Front,
    token: &str,
    resource: &str,
) -> Result<Option<(boxtrack_store::accounts::Account, uuid::Uuid)>, boxtrack_store::StoreError> {
    let Some(t) = store::get_token(&state.ctx.db, &core::digest(token)).await? else {
        return Ok(None);
    };
    let now = boxtrack_store::now_us();
    if t.kind != "access" || t.revoked_us.is_some() || t.expires_us < now || t.resource != resource
    {
        return Ok(None);
    }
    Ok(boxtrack_store::accounts::get(&state.ctx.db, t.account_id)
        .await?
        .map(|a| (a, t.user_id)))
}
