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
    let (name, uris) = match metadata(&body) {
        Ok(m) => m,
        Err((error, description)) => {
            return oauth_error(StatusCode::BAD_REQUEST, error, &description);
        }
    };
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

/// The client's name and redirect URIs from its registration metadata (RFC 7591), or the
/// OAuth error code and description that refuse it: a JSON object, every redirect URI a
/// string (a list with anything else is refused whole, not filtered) that is https:// or a
/// loopback http:// address, and a public client (`token_endpoint_auth_method` "none").
fn metadata(body: &[u8]) -> Result<(String, Vec<String>), (&'static str, String)> {
    let refuse = |error: &'static str, description: &str| Err((error, description.to_string()));
    let req = match serde_json::from_slice::<Value>(body) {
        Ok(req) if req.is_object() => req,
        _ => return refuse("invalid_client_metadata", "the body must be a JSON object"),
    };
    let uris: Option<Vec<String>> = req["redirect_uris"]
        .as_array()
        .and_then(|a| a.iter().map(|u| u.as_str().map(str::to_string)).collect());
    let uris = match uris {
        Some(u) => u,
        None if req.get("redirect_uris").is_none() => Vec::new(),
        None => {
            return refuse(
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
            return refuse(
                "invalid_client_metadata",
                &format!("{member} must be {what}"),
            );
        }
    }
    if uris.is_empty() {
        return refuse("invalid_redirect_uri", "redirect_uris is required");
    }
    if let Some(bad) = uris.iter().find(|u| !core::redirect_uri_allowed(u)) {
        return refuse(
            "invalid_redirect_uri",
            &format!("{bad} is neither https:// nor a loopback http:// address"),
        );
    }
    if req["token_endpoint_auth_method"].as_str().unwrap_or("none") != "none" {
        return refuse(
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
    Ok((name, uris))
}

#[cfg(test)]
mod tests {
    use super::metadata;

    #[test]
    fn registration_metadata_is_read_or_refused_whole() {
        let ok = metadata(br#"{"client_name":"Claude","redirect_uris":["https://claude.ai/cb","http://127.0.0.1:3000/cb"]}"#);
        assert_eq!(
            ok,
            Ok((
                "Claude".to_string(),
                vec![
                    "https://claude.ai/cb".to_string(),
                    "http://127.0.0.1:3000/cb".to_string()
                ]
            ))
        );
        let named = metadata(br#"{"redirect_uris":["https://a.example/cb"]}"#);
        assert_eq!(named.map(|(n, _)| n), Ok("MCP client".to_string()));
        for (body, error) in [
            (&b"[1]"[..], "invalid_client_metadata"),
            (b"not json", "invalid_client_metadata"),
            (br#"{"redirect_uris":["https://a.example/cb", 3]}"#, "invalid_redirect_uri"),
            (br#"{"redirect_uris":[]}"#, "invalid_redirect_uri"),
            (br#"{}"#, "invalid_redirect_uri"),
            (br#"{"redirect_uris":["http://a.example/cb"]}"#, "invalid_redirect_uri"),
            (br#"{"redirect_uris":["https://a.example/cb"],"client_name":7}"#, "invalid_client_metadata"),
            (
                br#"{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}"#,
                "invalid_client_metadata",
            ),
        ] {
            assert_eq!(metadata(body).map_err(|(e, _)| e), Err(error), "{}", String::from_utf8_lossy(body));
        }
    }
}
