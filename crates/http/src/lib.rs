//! The HTTP kit the three front ends share (the REST API, the web console, the MCP server):
//! the building blocks of the served OpenAPI document ([`doc`], [`schema`]), JSON:API
//! documents and errors ([`jsonapi`], [`error`]), who a request acts for ([`auth::Caller`]) and
//! the `{id}` extractor ([`extract`]), access notes and lines ([`access`]), HTML helpers
//! ([`html`]), and the edge's state every front end's handler reaches ([`front::Front`]: the
//! application's context, settings, metrics, rate limiter, key cache).
//!
//! No front end imports another; each imports `boxtrack-app` for its use cases and this kit
//! for the edge.

pub mod access;
pub mod auth;
pub mod dbgate;
pub mod doc;
pub mod error;
pub mod extract;
pub mod front;
pub mod html;
pub mod jsonapi;
pub mod keycache;
pub mod limiter;
pub mod metrics;
pub mod schema;
pub mod signin;

pub use auth::Caller;
pub use error::{ApiError, ApiResult};
pub use front::{ApiConfig, Front};
pub use limiter::Limiter;
pub use metrics::Metrics;
