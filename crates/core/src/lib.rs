//! Domain types and rules of boxtrack.
//!
//! Everything in this crate is pure: no I/O, no clock, no randomness except where a caller
//! explicitly asks for a fresh secret ([`apikey::ApiKey::generate`]). Handlers, stores and
//! workers call into these functions so the rules live in one place and can be tested alone.

pub mod apikey;
pub mod carriers;
pub mod charges;
pub mod csv;
pub mod custom_fields;
pub mod datebounds;
pub mod documents;
pub mod email;
pub mod ident;
pub mod oauth;
pub mod paging;
pub mod plan;
pub mod ratelimit;
pub mod reference;
pub mod requests;
pub mod routemap;
pub mod schedule;
pub mod search;
pub mod time;
pub mod tracking;
pub mod webhooks;
