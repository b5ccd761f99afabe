//! Integration tests of the MCP server and its OAuth pages: the mount served on a real socket
//! against a fresh database (SQLite by default, PostgreSQL when `DATABASE_URL=postgres://…`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod harness;
mod isolation;
mod oauth;
mod recorded;
mod server;
