//! Protected resource metadata (RFC 9728) and authorization server metadata (RFC 8414).

use super::shapes::{AuthorizationServer, ProtectedResource};
use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;

use boxtrack_http::Front;

use super::common::*;

/// `GET /.well-known/oauth-protected-resource[/mcp]`.
pub async fn protected_resource(
    State(state): State<Front>,
    headers: HeaderMap,
) -> Json<ProtectedResource> {
    let base = base_url(&state, &headers);
    Json(ProtectedResource {
        resource: mcp_resource(&state, &headers),
        authorization_servers: vec![base],
        bearer_methods_supported: ["header"],
        scopes_supported: ["mcp"],
        resource_name: "boxtrack MCP server",
    })
}

/// `GET /.well-known/oauth-authorization-server`.
pub async fn authorization_server(
    State(state): State<Front>,
    headers: HeaderMap,
) -> Json<AuthorizationServer> {
    let base = base_url(&state, &headers);
    Json(AuthorizationServer {
        authorization_endpoint: format!("{base}/oauth/authorize"),
        token_endpoint: format!("{base}/oauth/token"),
        registration_endpoint: format!("{base}/oauth/register"),
        issuer: base,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        scopes_supported: ["mcp"],
    })
}
