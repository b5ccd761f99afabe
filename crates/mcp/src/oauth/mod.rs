//! boxtrack's own OAuth 2.1 authorization server, for MCP clients: protected resource
//! metadata (RFC 9728, root and path-suffixed), authorization server metadata (RFC 8414),
//! dynamic client registration (RFC 7591), a sign-in and consent page (no JavaScript, CSRF
//! protected, security headers), authorization codes with PKCE S256 only (single use, one
//! minute), access tokens bound to the MCP resource (one hour) and refresh tokens rotated with
//! reuse detection (30 days).

mod authorize;
mod common;
mod metadata;
pub mod operations;
mod register;
pub mod shapes;
mod token;

pub use authorize::{authorize_page, authorize_submit};
pub use common::{base_url, mcp_resource};
pub use metadata::{authorization_server, protected_resource};
pub use register::register;
pub use token::{account_for_bearer, token};
