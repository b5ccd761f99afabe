//! The MCP server and the OAuth 2.1 authorization server its clients sign in with, mounted
//! into the HTTP service beside the REST API ([`mount`]) and served over stdio by
//! `boxtrack mcp --stdio` ([`dispatch`]).
//!
//! - [`server`]: JSON-RPC 2.0 over Streamable HTTP (`POST /mcp`), prompts, completions;
//! - [`resources`]: the container resource, the milestone glossary, the query guidance;
//! - [`tools`]: the tools, on the read layer and the store as the REST handlers are;
//! - [`oauth`]: metadata, dynamic registration, the sign-in page, tokens.

pub mod oauth;
pub mod protocol;
pub mod resources;
pub mod server;
pub mod tools;

use boxtrack_http::front::Mount;

pub use server::dispatch;

/// The MCP and OAuth endpoints, each declared with its documentation (all public: each
/// checks its own credentials).
pub fn mount() -> Mount {
    use oauth::operations as docs;
    Mount::default()
        .public_get(
            "/.well-known/oauth-protected-resource",
            oauth::protected_resource,
            docs::protected_resource,
        )
        .public_get(
            "/.well-known/oauth-protected-resource/mcp",
            oauth::protected_resource,
            docs::protected_resource_mcp,
        )
        .public_get(
            "/.well-known/oauth-authorization-server",
            oauth::authorization_server,
            docs::authorization_server,
        )
        .public_post("/oauth/register", oauth::register, docs::register)
        .public_get(
            "/oauth/authorize",
            oauth::authorize_page,
            docs::authorize_page,
        )
        .public_post(
            "/oauth/authorize",
            oauth::authorize_submit,
            docs::authorize_submit,
        )
        .public_post("/oauth/token", oauth::token, docs::token)
        // GET and DELETE answer 405 with `Allow: POST` like any method a route does not
        // take: the server keeps no sessions and opens no server-initiated stream
        .public_post("/mcp", server::post, server::doc)
}
