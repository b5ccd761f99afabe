//! The MCP tools: their declarations (input and output schemas, titles, annotations) and
//! their calls. Every tool works on the read layer and the store, as the REST handlers do:
//! the store's rows, scoped to the caller's account, the views' typed attributes, and the
//! answers computed by `core::tracking::assess`; entitlements are checked per tool and every
//! call counts against the account's REST rate limits.

mod account;
mod call;
mod clock;
mod container;
mod credential;
mod defs;
mod events;
mod fields;
mod lists;
mod request_list;
mod route;
mod search;
mod search_docs;
mod shipment;
mod summary;
mod text;
mod track;
mod writes;

pub use call::{Outcome, call};
pub use container::resource_text as container_resource_text;
pub use credential::Credential;
pub use defs::{list, validate};
pub use lists::{ContainerRow, ShipmentRow};
pub use request_list::RequestRow;
pub use text::summary as text_summary;
