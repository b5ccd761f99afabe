//! The application layer: each use case once, between the front ends (the REST API, the web
//! console, the MCP tools) and the store and views below.
//!
//! A use case is one module with a typed input that derives `Deserialize` and `JsonSchema`
//! and a typed output. The REST API reads the input from its query string
//! ([`query::from_pairs`], JSON:API's `filter[...]` names become nested fields) and documents
//! its parameters from the input's schema; the console fills the same struct from its form;
//! an MCP tool takes it, or adapts the reference's argument names to it. Adding a filter is
//! one field here (with its doc line, which becomes the parameter's description) and its
//! translation in the use case's `filter`.

pub mod accounts;
pub mod charges;
pub mod clock;
pub mod containers;
pub mod ctx;
pub mod custom_fields;
pub mod detail;
pub mod documents;
pub mod entries;
pub mod error;
pub mod events;
pub mod examples;
pub mod fields;
pub mod gauges;
pub mod ingest;
pub mod journey;
pub mod keys;
pub mod lookup;
pub mod model;
pub mod oauth;
pub mod parties;
pub mod prerendered;
pub mod query;
pub mod refresh;
pub mod requests;
pub mod sample;
pub mod search;
pub mod shipments;
pub mod sources;
pub mod tracking;
pub mod vessels;
pub mod webhooks;

pub use ctx::Ctx;
pub use error::AppError;
