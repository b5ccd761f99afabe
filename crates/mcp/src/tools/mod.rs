//! The MCP tools: each one type implementing [`tool::Tool`] (name, description, typed input
//! and output, annotations, call), listed once in [`registry::TOOLS`]. Every tool works on the read layer and the store, as the REST handlers do:
//! the store's rows, scoped to the caller's account, the views' typed attributes, and the
//! answers computed by `core::tracking::assess`; entitlements are checked per tool and every
//! call counts against the account's REST rate limits.

use crate::protocol::{self, ToolResult};

mod account;
mod call;
mod charges;
mod container;
mod container_text;
mod contract;
mod credential;
mod entries;
mod error;
mod events;
mod fields;
mod filters;
mod guides;
mod lists;
mod registry;
mod request_list;
mod route;
mod search;
mod search_docs;
mod shipment;
mod summary;
mod text;
mod tool;
mod track;
mod writes;

pub use call::{Outcome, call};
pub use container_text::resource_text as container_resource_text;
pub use contract::COLUMN_CATALOG;
pub use credential::Credential;
pub use error::ToolError;
pub use lists::{ContainerRow, ShipmentRow};
pub use registry::{check as validate, list};

/// Whether a tool of this name exists.
pub fn exists(name: &str) -> bool {
    registry::find(name).is_some()
}
pub use request_list::RequestRow;
pub use text::summary as text_summary;

/// A tool's result as the client gets it: the answer as JSON (after a short rendering for
/// clients that show text only), links to the resources it lists, then the steering block
/// for the assistant; `structuredContent` is the answer with its response contract.
pub fn result(name: &str, answered: registry::Answered) -> ToolResult {
    use crate::protocol::Content;
    let registry::Answered {
        value,
        contract,
        links,
    } = answered;
    let mut content: Vec<Content> = text::summary(name, &value)
        .map(Content::text)
        .into_iter()
        .collect();
    content.push(Content::text(value.to_string()));
    content.extend(links);
    content.push(contract::steering(&contract));
    let mut structured = value;
    if let Some(o) = structured.as_object_mut() {
        o.insert(registry::CONTRACT.into(), protocol::to_value(&contract));
    }
    ToolResult {
        content,
        structured: Some(structured),
        is_error: false,
    }
}
