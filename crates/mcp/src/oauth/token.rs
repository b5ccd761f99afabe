//! The token endpoint (authorization code with PKCE, refresh with rotation and reuse detection) and
//! the bearer check of /mcp.

use std::collections::HashMap;

use super::shapes::{TokenForm, Tokens};
use axum::Json;
use axum::extract::{Form, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use boxtrack_app::AppError;
use boxtrack_app::model::Account;
use boxtrack_app::oauth::{self, Refusal};
use boxtrack_core::ratelimit::Attempt;
use boxtrack_http::Front;
use boxtrack_http::error::ApiError;

use super::common::*;

/// The token answer: the new pair, never cached.
fn tokens(issued: oauth::Issued) -> Response {
    let mut r = Json(Tokens {
        access_token: issued.access_token,
        token_type: "Bearer",
        expires_in: issued.expires_in,
        refresh_token: issued.refresh_token,
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
    let answer = match f.grant_type.as_str() {
        "authorization_code" => {
            let exchange = oauth::Exchange {
                code: &f.code,
                client_id: &f.client_id,
                redirect_uri: &f.redirect_uri,
                code_verifier: &f.code_verifier,
                resource: f.resource.as_deref(),
            };
            oauth::exchange_code(&state.ctx, &exchange).await
        }
        "refresh_token" => oauth::refresh(&state.ctx, &f.refresh_token, &f.client_id).await,
        other => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "unsupported_grant_type",
                &format!("grant_type {other:?} is not supported"),
            );
        }
    };
    match answer {
        Ok(issued) => tokens(issued),
        Err(Refusal::InvalidGrant(why)) => {
            oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", why)
        }
        Err(Refusal::InvalidTarget(why)) => {
            oauth_error(StatusCode::BAD_REQUEST, "invalid_target", why)
        }
        Err(Refusal::Failed(e)) => ApiError::from(e).into_response(),
    }
}

/// The account an OAuth access token stands for, and its user, when it is valid for
/// `resource`.
pub async fn account_for_bearer(
    state: &Front,
    token: &str,
    resource: &str,
) -> Result<Option<(Account, uuid::Uuid)>, AppError> {
    oauth::account_for_bearer(&state.ctx, token, resource).await
}
