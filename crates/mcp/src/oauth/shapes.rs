//! The authorization server's answers and the token request, as types: what the handlers
//! write and read, and what the served document says of them (derived from these types).

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Serialize;

/// RFC 9728 metadata of the MCP endpoint.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ProtectedResource {
    /// The MCP endpoint's canonical resource identifier.
    pub resource: String,
    /// The authorization servers (this service).
    pub authorization_servers: Vec<String>,
    /// How a token is sent: `header`.
    pub bearer_methods_supported: [&'static str; 1],
    /// `mcp`.
    pub scopes_supported: [&'static str; 1],
    /// The resource's name for people.
    pub resource_name: &'static str,
}

/// RFC 8414 metadata of the authorization server.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AuthorizationServer {
    /// This service's address.
    pub issuer: String,
    /// The sign-in and consent page.
    pub authorization_endpoint: String,
    /// Where codes and refresh tokens are exchanged.
    pub token_endpoint: String,
    /// Dynamic client registration.
    pub registration_endpoint: String,
    /// `code`.
    pub response_types_supported: [&'static str; 1],
    /// `authorization_code`, `refresh_token`.
    pub grant_types_supported: [&'static str; 2],
    /// `S256` only.
    pub code_challenge_methods_supported: [&'static str; 1],
    /// `none`: public clients with PKCE.
    pub token_endpoint_auth_methods_supported: [&'static str; 1],
    /// `mcp`.
    pub scopes_supported: [&'static str; 1],
}

/// A client just registered (RFC 7591).
#[derive(Debug, Serialize, JsonSchema)]
pub struct RegisteredClient {
    /// Its id (`btc_…`).
    pub client_id: String,
    /// When it was issued (Unix seconds).
    pub client_id_issued_at: i64,
    /// Its name.
    pub client_name: String,
    /// Where codes may be sent.
    pub redirect_uris: Vec<String>,
    /// `none`.
    pub token_endpoint_auth_method: &'static str,
    /// `authorization_code`, `refresh_token`.
    pub grant_types: [&'static str; 2],
    /// `code`.
    pub response_types: [&'static str; 1],
}

/// Tokens issued.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Tokens {
    /// Sent as `Authorization: Bearer <token>` to /mcp.
    pub access_token: String,
    /// `Bearer`.
    pub token_type: &'static str,
    /// Seconds the access token lives.
    pub expires_in: i64,
    /// Exchanged for new tokens once (they rotate).
    pub refresh_token: String,
    /// `mcp`.
    pub scope: &'static str,
}

/// An RFC 6749 §5.2 error.
#[derive(Debug, Serialize, JsonSchema)]
pub struct OAuthError<'a> {
    /// The code (`invalid_grant`, …).
    pub error: &'a str,
    /// What went wrong.
    pub error_description: &'a str,
}

/// What to do with the token request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Grant {
    /// A code from the sign-in, with its PKCE verifier.
    AuthorizationCode,
    /// A refresh token.
    RefreshToken,
}

/// The token request's form (`application/x-www-form-urlencoded`); a field not sent is
/// empty.
#[derive(Debug, Clone, Default, JsonSchema)]
#[serde(default)]
pub struct TokenForm {
    /// `authorization_code` or `refresh_token`.
    #[schemars(with = "Option<Grant>")]
    pub grant_type: String,
    /// The code (authorization_code).
    pub code: String,
    /// The redirect URI the code was sent to (authorization_code).
    pub redirect_uri: String,
    /// The registered client.
    pub client_id: String,
    /// The PKCE verifier (authorization_code).
    pub code_verifier: String,
    /// The refresh token (refresh_token).
    pub refresh_token: String,
    /// The resource the token is for (optional; must be the code's).
    pub resource: Option<String>,
}

impl TokenForm {
    /// The form's fields as sent (the last of a field given twice).
    pub fn from_fields(mut f: HashMap<String, String>) -> TokenForm {
        let mut take = |k: &str| f.remove(k).unwrap_or_default();
        TokenForm {
            grant_type: take("grant_type"),
            code: take("code"),
            redirect_uri: take("redirect_uri"),
            client_id: take("client_id"),
            code_verifier: take("code_verifier"),
            refresh_token: take("refresh_token"),
            resource: f.remove("resource"),
        }
    }
}
