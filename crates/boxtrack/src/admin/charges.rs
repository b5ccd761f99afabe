//! `tariffs` and `calendars`: the public tariffs and calendars every account's charges are
//! counted with (an account's own, made through the API, beat them), loaded from files.

use anyhow::{Context, bail};
use boxtrack_app::Ctx;
use boxtrack_app::charges;
use boxtrack_core::charges::{CalendarDoc, TariffDoc};
use boxtrack_core::paging::Page;
use boxtrack_store::Db;
use clap::Subcommand;
use serde::de::DeserializeOwned;

use super::{JsonFlag, print_json};

/// `tariffs` subcommands.
#[derive(Subcommand, Debug)]
pub enum TariffsCommand {
    /// Load public tariffs from JSON files (each a tariff document, or a list of them, as
    /// `POST /v2/tariffs` takes its attributes). Every file is checked first: one document
    /// that breaks a rule is reported with its file, index and field, and nothing is loaded.
    Import {
        /// The files.
        #[arg(required = true)]
        files: Vec<String>,
    },
    /// List the public tariffs, newest first.
    List {
        #[command(flatten)]
        json: JsonFlag,
    },
}

/// `calendars` subcommands.
#[derive(Subcommand, Debug)]
pub enum CalendarsCommand {
    /// Load public calendars from JSON files (each a calendar document, or a list of them); a
    /// public calendar replaces the one of its port and facility. Every file is checked first;
    /// nothing is loaded when one document breaks a rule. `--shipped` loads the calendars
    /// boxtrack ships (US federal holidays and the published no-work days of USCHS, USHOU,
    /// USLAX, USLGB, USNYC, USOAK, USORF, USSAV, USSEA and USTIW, each naming its source).
    Import {
        /// The files.
        #[arg(required_unless_present = "shipped")]
        files: Vec<String>,
        /// Load the calendars boxtrack ships (before the files, which replace them).
        #[arg(long)]
        shipped: bool,
    },
    /// List the public calendars, newest first.
    List {
        #[command(flatten)]
        json: JsonFlag,
    },
}

/// The documents of the files: each file one document or a list of them; the file and index
/// of each for the errors.
fn documents<T: DeserializeOwned>(files: &[String]) -> anyhow::Result<Vec<(String, T)>> {
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {file}"))?;
        let value: serde_json::Value =
            serde_json::from_str(&text).with_context(|| format!("{file} is not JSON"))?;
        let items = match value {
            serde_json::Value::Array(items) => items,
            one => vec![one],
        };
        for (i, item) in items.into_iter().enumerate() {
            let doc = serde_path_to_error::deserialize(item)
                .map_err(|e| anyhow::anyhow!("{file}[{i}]: {}: {}", e.path(), e.inner()))?;
            out.push((format!("{file}[{i}]"), doc));
        }
    }
    Ok(out)
}

/// Runs a `tariffs` subcommand.
pub async fn tariffs(db: &Db, cmd: &TariffsCommand) -> anyhow::Result<()> {
    let ctx = Ctx::new(db.clone());
    match cmd {
        TariffsCommand::Import { files } => {
            let docs: Vec<(String, TariffDoc)> = documents(files)?;
            let mut wrong = Vec::new();
            for (at, doc) in &docs {
                if let Err(problems) = doc.clone().check() {
                    for p in problems {
                        wrong.push(format!("{at}{}: {}", p.field, p.detail));
                    }
                }
            }
            if !wrong.is_empty() {
                bail!("nothing loaded:\n{}", wrong.join("\n"));
            }
            for (_, doc) in docs {
                let t = charges::add_tariff(&ctx, None, doc).await?;
                println!(
                    "{}  {}  {}  {}",
                    t.id,
                    t.doc.issuer,
                    t.doc.kind.as_str(),
                    t.doc.name
                );
            }
            Ok(())
        }
        TariffsCommand::List { json } => {
            let page =
                charges::tariffs(&ctx, None, &Page::first(boxtrack_core::paging::MAX_SIZE)).await?;
            if json.json {
                let docs: Vec<serde_json::Value> = page
                    .rows
                    .iter()
                    .map(|t| serde_json::json!({"id": t.id, "document": t.doc}))
                    .collect();
                return print_json(&serde_json::Value::Array(docs));
            }
            for t in &page.rows {
                let to = t.doc.valid_to.map_or("open".to_string(), |d| d.to_string());
                println!(
                    "{}  {}  {}  {} to {}  {}",
                    t.id,
                    t.doc.issuer,
                    t.doc.kind.as_str(),
                    t.doc.valid_from,
                    to,
                    t.doc.name
                );
            }
            Ok(())
        }
    }
}

/// Runs a `calendars` subcommand.
pub async fn calendars(db: &Db, cmd: &CalendarsCommand) -> anyhow::Result<()> {
    let ctx = Ctx::new(db.clone());
    match cmd {
        CalendarsCommand::Import { files, shipped } => {
            let mut docs: Vec<(String, CalendarDoc)> = Vec::new();
            if *shipped {
                docs.extend(
                    charges::shipped::calendars()?
                        .into_iter()
                        .map(|(name, doc)| (format!("(shipped) {name}"), doc)),
                );
            }
            docs.extend(documents::<CalendarDoc>(files)?);
            let mut loaded = Vec::new();
            let mut wrong = Vec::new();
            for (at, doc) in &docs {
                let mut doc = doc.clone();
                doc.port = doc.port.trim().to_ascii_uppercase();
                for (field, detail) in charges::calendar_problems(&doc) {
                    wrong.push(format!("{at}{field}: {detail}"));
                }
            }
            if !wrong.is_empty() {
                bail!("nothing loaded:\n{}", wrong.join("\n"));
            }
            for (at, doc) in docs {
                let c = charges::add_calendar(&ctx, None, doc)
                    .await
                    .with_context(|| format!("{at} (the files before it are loaded)"))?;
                loaded.push(c);
            }
            for c in loaded {
                println!(
                    "{}  {}  {}",
                    c.id,
                    c.doc.port,
                    c.doc.facility.as_deref().unwrap_or("(port)")
                );
            }
            Ok(())
        }
        CalendarsCommand::List { json } => {
            let page =
                charges::calendars(&ctx, None, &Page::first(boxtrack_core::paging::MAX_SIZE))
                    .await?;
            if json.json {
                let docs: Vec<serde_json::Value> = page
                    .rows
                    .iter()
                    .map(|c| serde_json::json!({"id": c.id, "document": c.doc}))
                    .collect();
                return print_json(&serde_json::Value::Array(docs));
            }
            for c in &page.rows {
                println!(
                    "{}  {}  {}",
                    c.id,
                    c.doc.port,
                    c.doc.facility.as_deref().unwrap_or("(port)")
                );
            }
            Ok(())
        }
    }
}
