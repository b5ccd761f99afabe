//! Dynamic client registration (RFC 7591) for public clients.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use boxtrack_app::oauth;
use boxtrack_core::oauth as core;
use boxtrack_core::ratelimit::Attempt;
use serde_json::Value;

use boxtrack_http::Front;
use boxtrack_http::error::ApiError;

use super::common::*;

/// `POST /oauth/register` (RFC 7591), public clients only; at most
/// [`boxtrack_core::ratelimit::REGISTRATIONS_PER_MINUTE`] from one peer address (behind a
/// reverse proxy the peer is the proxy, so the limit is the whole service's).
pub async fn register(
    State(state): State<Front>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    body: axum::body::Bytes,
) -> Response {
    let ip = peer.map_or(IpAddr::from([0, 0, 0, 0]), |Extension(ConnectInfo(a))| {
        a.ip()
    });
    if let Err(r) = admit(&state, Attempt::Registration(ip), "oauth_register").await {
        return r;
    }
    let Ok(req) = serde_json::from_slice::<Value>(&body) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_client_metadata",
            "the body must be a JSON object",
        );
    };
    if !req.is_object() {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_client_metadata",
            "the body must be a JSON object",
        );
    }
    // every redirect URI a string: a list with anything else is refused whole, not filtered
    let uris: Option<Vec<String>> = req["redirect_uris"]
        .as_array()
        .and_then(|a| a.iter().map(|u| u.as_str().map(str::to_string)).collect());
    let uris = match uris {
        Some(u) => u,
        None if req.get("redirect_uris").is_none() => Vec::new(),
        None => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_redirect_uri",
                "redirect_uris must be a list of addresses (strings)",
            );
        }
    };
    for (member, what) in [
        ("client_name", "a string"),
        ("token_endpoint_auth_method", "\"none\""),
    ] {
        if req.get(member).is_some_and(|v| !v.is_string()) {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_client_metadata",
                &format!("{member} must be {what}"),
            );
        }
    }
    if uris.is_empty() {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_redirect_uri",
            "redirect_uris is required",
        );
    }
    if let Some(bad) = uris.iter().find(|u| !core::redirect_uri_allowed(u)) {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_redirect_uri",
            &format!("{bad} is neither https:// nor a loopback http:// address"),
        );
    }
    let method = req["token_endpoint_auth_method"].as_str().unwrap_or("none");
    if method != "none" {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_client_metadata",
            "only public clients (token_endpoint_auth_method none, with PKCE) are registered",
        );
    }
    let name = req["client_name"]
        .as_str()
        .unwrap_or("MCP client")
        .chars()
        .take(100)
        .collect::<String>();
    let (client_id, issued_at) = match oauth::register(&state.ctx, &name, &uris).await {
        Ok(registered) => registered,
        Err(e) => return ApiError::from(e).into_response(),
    };
    let mut r = (
        StatusCode::CREATED,
        Json(super::shapes::RegisteredClient {
            client_id,
            client_id_issued_at: issued_at,
            client_name: name,
            redirect_uris: uris,
            token_endpoint_auth_method: "none",
            grant_types: ["authorization_code", "refresh_token"],
            response_types: ["code"],
        }),
    )
        .into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}
