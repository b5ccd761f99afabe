//! Route modules, one per resource; each declares its operations for the OpenAPI document
//! (`crate::openapi` collects them).

pub mod account;
pub mod api_keys;
pub mod charges;
pub mod container_map;
pub mod containers;
pub mod custom_fields;
pub mod documents;
pub mod email_submissions;
pub mod entries;
pub mod events;
pub mod health;
pub mod infer;
pub mod ingest;
pub mod notifications;
pub mod parties;
pub mod publishable_keys;
pub mod reference;
pub mod refresh;
mod rendered_check;
pub mod sandbox;
pub mod search;
pub mod served_document;
pub mod shipments;
pub mod sources;
pub mod tracking_requests;
pub mod uploads;
pub mod webhook_trigger;
pub mod webhooks;
