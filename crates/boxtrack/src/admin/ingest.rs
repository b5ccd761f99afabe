//! `boxtrack ingest …`: upstream files (X12, EDIFACT, AIS) fed through the ingest path.

use anyhow::{Context, bail};
use boxtrack_store::Db;
use clap::Subcommand;

use super::{JsonFlag, parse_id, print_json};

/// `ingest` subcommands.
#[derive(Subcommand, Debug)]
pub enum IngestCommand {
    /// Read an ANSI X12 004010 file of 315 (ocean status) and 322 (rail / terminal) sets,
    /// store it verbatim and merge what it says into the containers it names. Prints what was
    /// read, matched and changed; exits with status 1 when nothing could be read (the
    /// segment and reason are printed).
    X12 {
        /// The file ("-" reads standard input).
        file: String,
        /// Only this account's containers (default: every account's).
        #[arg(long, value_name = "ACCOUNT_ID")]
        account: Option<String>,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Read a UN/EDIFACT file of IFTSTA status messages (a carrier's multimodal status
    /// reports, D:95B to D:00B; UNA, release characters and envelope counts honoured), store
    /// it verbatim and merge what it says into the containers it names. A message with a
    /// wrong UNT count, or an interchange with a wrong UNZ, is refused with its reason and
    /// nothing of it is applied. Prints what was read, matched and changed; exits with status
    /// 1 when nothing could be read.
    Edifact {
        /// The file ("-" reads standard input).
        file: String,
        /// Only this account's containers (default: every account's).
        #[arg(long, value_name = "ACCOUNT_ID")]
        account: Option<String>,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Read a file of NMEA 0183 AIS sentences (!AIVDM / !AIVDO; multi-part messages,
    /// checksums checked; other sentences skipped) and store each vessel's latest position
    /// (types 1, 2, 3) and static data (type 5: IMO, name, destination, ETA).
    Ais {
        /// The file ("-" reads standard input).
        file: String,
        #[command(flatten)]
        json: JsonFlag,
    },
}

fn read_input(file: &str) -> anyhow::Result<String> {
    if file == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .context("reading standard input")?;
        Ok(s)
    } else {
        let bytes = std::fs::read(file).with_context(|| format!("reading {file}"))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Runs an `ingest` subcommand.
pub async fn ingest(db: &Db, cmd: &IngestCommand) -> anyhow::Result<()> {
    match cmd {
        IngestCommand::Ais { file, json } => {
            let text = read_input(file)?;
            let mut decoder = boxtrack_sources::ais::Decoder::new();
            let report = boxtrack_sources::ais::ingest_lines(
                db,
                &mut decoder,
                text.lines(),
                boxtrack_store::now_us(),
            )
            .await?;
            if json.json {
                print_json(&serde_json::to_value(&report)?)?;
            } else {
                println!(
                    "{} AIS sentences: {} vessel positions and {} static reports stored; {} refused; {} other lines skipped",
                    report.sentences,
                    report.positions,
                    report.statics,
                    report.errors,
                    report.skipped
                );
            }
            Ok(())
        }
        IngestCommand::X12 {
            file,
            account,
            json,
        }
        | IngestCommand::Edifact {
            file,
            account,
            json,
        } => {
            let account = account
                .as_deref()
                .map(|a| parse_id("account id", a))
                .transpose()?;
            let text = read_input(file)?;
            let scope = boxtrack_sources::ingest::Scope {
                sender: None,
                containers_of: account,
            };
            let now = boxtrack_store::now_us();
            let report = if matches!(cmd, IngestCommand::X12 { .. }) {
                boxtrack_sources::ingest::x12(db, scope, "cli", &text, now).await?
            } else {
                boxtrack_sources::ingest::edifact(db, scope, "cli", &text, now).await?
            };
            if json.json {
                print_json(&serde_json::to_value(&report)?)?;
            } else {
                println!(
                    "payload {}: {} ({} transaction sets or messages read, {} refused); {} observations; {} changes",
                    report.payload_id,
                    report.status,
                    report.transaction_sets_accepted,
                    report.transaction_sets_rejected,
                    report.observations,
                    report.changes
                );
                println!(
                    "containers updated: {}",
                    list_or_none(&report.containers_matched)
                );
                println!(
                    "containers nobody tracks: {} ({} kept for when one is tracked)",
                    list_or_none(&report.containers_unknown),
                    report.early_reports_kept
                );
                for f in &report.findings {
                    let level = match f.severity {
                        boxtrack_sources::x12::Severity::Warning => "warning",
                        boxtrack_sources::x12::Severity::Error => "error",
                    };
                    println!("{level}: {f}");
                }
                for n in &report.notes {
                    println!("note: {n}");
                }
            }
            if report.status == "rejected" {
                bail!("nothing in {file} could be read");
            }
            Ok(())
        }
    }
}

fn list_or_none(v: &[String]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}
