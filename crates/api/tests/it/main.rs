//! Integration tests of the HTTP edge: a real server on port 0 against a fresh database
//! (SQLite by default, PostgreSQL when `DATABASE_URL=postgres://…`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod abuse;
mod api_keys;
mod architecture;
mod auth;
mod charges;
mod citus;
mod conformance;
mod custom_fields;
mod documents;
mod entries;
mod faults;
mod helpers;
mod includes;
mod ingest;
mod isolation;
mod joining;
mod journeys;
mod jsonapi;
mod ops;
mod parties;
mod ratelimit;
mod readcache;
mod reference_gate;
mod release;
mod replicas;
mod tracking;
mod webhooks;
