//! The administration commands, run against the database: `accounts`, `keys`, `users`,
//! `webhooks` and `ingest`, with readable tables or `--json` for scripts.
//!
//! - [`accounts`]: open, list, show, change, disable and delete accounts;
//! - [`keys`]: issue, list and revoke API keys;
//! - [`users`]: the people who sign in on the console and the OAuth page;
//! - [`webhooks`]: list, pause and enable an account's webhooks;
//! - [`ingest`]: feed upstream files (X12, EDIFACT, AIS) through the ingest path;
//! - [`prune`]: remove the history the retention settings no longer keep;
//! - [`charges`]: load the public tariffs and calendars charges are counted with.

mod accounts;
mod charges;
mod ingest;
mod keys;
mod prune;
mod users;
mod webhooks;

pub use accounts::{AccountsCommand, accounts};
pub use charges::{CalendarsCommand, TariffsCommand, calendars, tariffs};
pub use ingest::{IngestCommand, ingest};
pub use keys::{KeysCommand, keys};
pub use prune::{PruneArgs, prune};
pub use users::{UsersCommand, users};
pub use webhooks::{WebhooksCommand, webhooks};

use anyhow::Context;
use boxtrack_store::Db;
use boxtrack_store::accounts::Account;
use clap::Args;
use serde_json::Value;
use uuid::Uuid;

/// `--json`
#[derive(Args, Debug, Clone, Copy)]
pub struct JsonFlag {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// An id given on the command line, as a UUID (`what` names it in the error).
fn parse_id(what: &str, s: &str) -> anyhow::Result<Uuid> {
    Uuid::parse_str(s.trim()).with_context(|| format!("{what} {s:?} is not a UUID"))
}

/// The account an id given on the command line names, disabled or not.
async fn account_named(db: &Db, id: &str) -> anyhow::Result<Account> {
    let id = parse_id("account id", id)?;
    boxtrack_store::accounts::get_any(db, id)
        .await?
        .with_context(|| format!("no account {id}"))
}

/// A store error with `NotFound` said as `missing` (`no account …`); any other as it is.
fn not_found(missing: String) -> impl FnOnce(boxtrack_store::StoreError) -> anyhow::Error {
    move |e| match e {
        boxtrack_store::StoreError::NotFound(_) => anyhow::anyhow!(missing),
        other => other.into(),
    }
}

/// A plain-text table: a header row and left-aligned columns two spaces apart.
pub(crate) fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.len()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut out = vec![line(headers.iter().map(|h| h.to_string()).collect())];
    out.extend(rows.iter().map(|r| line(r.clone())));
    out.join("\n")
}

/// Prints `v` as pretty JSON.
fn print_json(v: &Value) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_columns() {
        let t = table(
            &["A", "LONGER"],
            &[
                vec!["xyz".into(), "1".into()],
                vec!["q".into(), "22".into()],
            ],
        );
        assert_eq!(t, "A    LONGER\nxyz  1\nq    22");
    }
}
