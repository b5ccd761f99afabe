//! The MCP server and the OAuth 2.1 authorization server its clients sign in with, mounted
//! into the HTTP service beside the REST API ([`mount`]) and served over stdio by
//! `boxtrack mcp --stdio` ([`dispatch`]).
//!
//! - [`server`]: JSON-RPC 2.0 over Streamable HTTP (`POST /mcp`), prompts, completions;
//! - [`resources`]: the container resource, the milestone glossary, the query guidance;
//! - [`tools`]: the tools, on the read layer and the store as the REST handlers are;
//! - [`oauth`]: metadata, dynamic registration, the sign-in page, tokens.

pub mod oauth;
pub mod resources;
pub mod server;
pub mod tools;

use axum::routing::{get, post};
use boxtrack_api::Mount;

pub use server::dispatch;

/// The MCP and OAuth endpoints with the documentation of their operations (all public: each
/// checks its own credentials).
pub fn mount() -> Mount {
    Mount::new(operations)
        .public(
            "/.well-known/oauth-protected-resource",
            get(oauth::protected_resource),
        )
        .public(
            "/.well-known/oauth-protected-resource/mcp",
            get(oauth::protected_resource),
        )
        .public(
            "/.well-known/oauth-authorization-server",
            get(oauth::authorization_server),
        )
        .public("/oauth/register", post(oauth::register))
        .public(
            "/oauth/authorize",
            get(oauth::authorize_page).post(oauth::authorize_submit),
        )
        .public("/oauth/token", post(oauth::token))
        // GET and DELETE answer 405 with `Allow: POST` like any method a route does not
        // take: the server keeps no sessions and opens no server-initiated stream
        .public("/mcp", post(server::post))
}

/// The operations of the MCP and OAuth endpoints.
fn operations() -> Vec<boxtrack_api::doc::Op> {
    let mut operations = server::operations();
    operations.extend(oauth::operations());
    operations
}
