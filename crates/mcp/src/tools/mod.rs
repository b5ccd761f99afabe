//! The MCP tools: their declarations (input and output schemas, titles, annotations) and
//! their calls. The tools that read a container or a shipment work on the read layer (the
//! store's rows, scoped to the caller's account, and the views' typed attributes), with the
//! answers computed by `core::tracking::assess`; the others still go through the REST router
//! in process with the caller's own credentials, so they obey exactly the account isolation,
//! entitlements and rate limits of the REST API.

mod account;
mod call;
mod clock;
mod container;
mod credential;
mod defs;
mod docs;
mod events;
mod fields;
mod lists;
mod rest;
mod route;
mod search;
mod shipment;
mod summary;
mod text;
mod track;

pub use call::{Outcome, call};
pub use container::resource_text as container_resource_text;
pub use credential::Credential;
pub use defs::{list, validate};
pub use lists::{ContainerRow, RequestRow, ShipmentRow};
pub use text::summary as text_summary;
