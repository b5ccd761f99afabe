//! What boxtrack shows. One function per resource type builds its JSON:API resource object from
//! the store's rows; the HTTP edge, the MCP server and the webhook deliverer all show the same
//! objects because they all call these.
//!
//! - [`jsonapi`]: resource objects and relationships;
//! - [`tracking`]: tracking requests, shipments, containers, transport and raw events;
//! - [`reference`]: ports, terminals, metro areas, shipping lines, vessels and their stable ids;
//! - [`notifications`]: the `webhook_notification` resource and the delivered envelope.

// the container resource is one `json!` object of some sixty attributes
#![recursion_limit = "256"]

pub mod jsonapi;
pub mod notifications;
pub mod reference;
pub mod tracking;
