//! `boxtrack prune`: remove the history the retention settings no longer keep, now, as the
//! worker does every hour; `--dry-run` shows what would go and changes nothing.

use boxtrack_store::Db;
use boxtrack_store::retention::{self, Mode, Retention, Swept};
use clap::Args;

/// Flags of `prune`.
#[derive(Args, Debug)]
pub struct PruneArgs {
    /// Show what would go (rows per table and, on PostgreSQL, whole months) and change
    /// nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// Sweeps (or, dry, counts) at the wall clock with `keep` and prints what went.
pub async fn prune(db: &Db, keep: &Retention, args: &PruneArgs) -> anyhow::Result<()> {
    let now = boxtrack_store::now_us();
    let swept = if args.dry_run {
        retention::sweep(db, now, keep, Mode::DryRun).await?
    } else {
        boxtrack_worker::history::keep_once(db, keep, now).await?
    };
    if args.json {
        return super::print_json(&serde_json::json!({
            "dry_run": args.dry_run,
            "retention": keep,
            "tables": swept,
        }));
    }
    println!("{}", report(&swept, args.dry_run));
    Ok(())
}

/// The table `prune` prints: each table, what it keeps, and what went (or would go).
fn report(swept: &[Swept], dry: bool) -> String {
    let rows: Vec<Vec<String>> = swept
        .iter()
        .map(|s| {
            vec![
                s.table.to_string(),
                s.cutoff_us
                    .map_or("forever".into(), |c| format!("since {}", shown(c))),
                s.rows.to_string(),
                if s.partitions.is_empty() {
                    "-".into()
                } else {
                    s.partitions.join(" ")
                },
            ]
        })
        .collect();
    let gone = if dry { "would go" } else { "removed" };
    super::table(&["table", "keeps", gone, "whole months"], &rows)
}

/// A cutoff as an RFC 3339 time to the second.
fn shown(us: i64) -> String {
    jiff::Timestamp::from_microsecond(us)
        .map(|t| t.round(jiff::Unit::Second).unwrap_or(t).to_string())
        .unwrap_or_else(|_| us.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_says_what_each_table_keeps_and_what_went() {
        let swept = vec![
            Swept {
                table: "events",
                cutoff_us: Some(1_764_331_200_000_000),
                rows: 12,
                partitions: vec!["events_p202510".into()],
            },
            Swept {
                table: "source_payloads",
                cutoff_us: None,
                rows: 0,
                partitions: vec![],
            },
        ];
        let out = report(&swept, true);
        assert!(out.starts_with("table"), "{out}");
        assert!(out.contains("would go"), "{out}");
        assert!(
            out.contains("events           since 2025-11-28T12:00:00Z  12"),
            "{out}"
        );
        assert!(out.contains("events_p202510"), "{out}");
        assert!(out.contains("forever"), "{out}");
    }
}
