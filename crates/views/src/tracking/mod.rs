//! Resource objects of tracking: tracking requests, shipments, containers, transport and raw
//! events. Each is a typed [`Resource`] whose attributes are a struct: every attribute of the
//! contract is present (null when unknown), and the OpenAPI schema is derived from the same
//! struct that is serialized.

mod containers;
mod events;
pub mod release;
mod rels;
mod requests;
mod shipments;
mod stored;

pub use containers::*;
pub use events::*;
pub use rels::*;
pub use requests::*;
pub use shipments::*;
