//! The MCP tools: their declarations (input and output schemas, titles, annotations) and
//! their calls. Every call goes through the REST router in process with the caller's own
//! credentials, so tools obey exactly the account isolation, entitlements and rate limits of
//! the REST API.

mod call;
mod defs;
mod rest;

pub use call::{Outcome, call};
pub use defs::{list, validate};
