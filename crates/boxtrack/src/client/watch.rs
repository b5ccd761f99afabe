//! `boxtrack watch`: follows a container live, printing each change, until it reaches a
//! status asked for.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::bail;
use serde_json::json;

use super::args::WatchArgs;
use super::http::Api;
use super::query;
use super::resources::{Container, ContainerAttributes, List, decode};
use super::summaries::{day, fees_summary, holds_summary, text, yes_no};

/// What `watch` follows of a container, by the name it prints.
type Look = BTreeMap<&'static str, String>;

/// `boxtrack watch`: looks every `interval`, prints each change, and stops at a named status.
pub async fn watch(args: &WatchArgs) -> anyhow::Result<()> {
    let api = Api::new(&args.conn)?;
    let number = args.number.trim().to_ascii_uppercase();
    let until = statuses(args.until.as_deref());
    let spinner = indicatif::ProgressBar::new_spinner();
    spinner.enable_steady_tick(Duration::from_millis(120));
    let started = Instant::now();
    let q = query(&[("filter[number]", Some(number.clone()))]);
    let mut last: Option<Look> = None;
    loop {
        let Some(now) = look(&api, &q).await? else {
            spinner.finish_and_clear();
            bail!(
                "{number} is not a container this account tracks (`boxtrack containers` lists them)"
            );
        };
        let changes = changes(last.as_ref(), &now);
        if !changes.is_empty() {
            spinner.suspend(|| print_changes(&number, &changes, args.conn.json));
        }
        let status = now.get("status").cloned().unwrap_or_default();
        if until.contains(&status) {
            spinner.finish_and_clear();
            if !args.conn.json {
                println!("{number} is {status}");
            }
            return Ok(());
        }
        last = Some(now);
        if let Some(t) = args.timeout
            && started.elapsed() >= Duration::from_secs(t)
        {
            spinner.finish_and_clear();
            bail!(
                "{number} did not reach {} within {t} s (it is {status})",
                until.join(" or ")
            );
        }
        let wait = args.interval.max(1);
        spinner.set_message(format!("{number}: {status}; next look in {wait} s"));
        tokio::time::sleep(Duration::from_secs(wait)).await;
    }
}

/// The statuses of `--until` (comma-separated; blanks dropped).
fn statuses(until: Option<&str>) -> Vec<String> {
    until
        .map(|u| {
            u.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// One look at the container the query `q` finds; none when the account has no such
/// container.
async fn look(api: &Api, q: &str) -> anyhow::Result<Option<Look>> {
    let doc = api.get(&format!("/v2/containers?{q}")).await?;
    let list: List<Container> = decode(&doc, "a list of containers")?;
    Ok(list.data.first().map(|c| watched(&c.attributes)))
}

/// Prints what changed: one line per field, or one JSON line per look (`--json`).
fn print_changes(number: &str, changes: &[(&'static str, String)], json_out: bool) {
    if json_out {
        let fields: Vec<_> = changes
            .iter()
            .map(|(k, v)| json!({"field": k, "value": v}))
            .collect();
        println!(
            "{}",
            json!({"at": jiff::Timestamp::now().to_string(), "container": number, "changes": fields})
        );
    } else {
        let stamp = jiff::Zoned::now().strftime("%H:%M:%S").to_string();
        for (k, v) in changes {
            println!("{stamp} {number} {k}: {v}");
        }
    }
}

/// What `watch` follows of a container.
fn watched(a: &ContainerAttributes) -> Look {
    BTreeMap::from([
        ("status", text(&a.current_status)),
        (
            "last free day",
            day(&a.pickup_lfd).unwrap_or_else(|| "not known".into()),
        ),
        ("ready for pickup", yes_no(a.ready_for_pickup)),
        ("holds", holds_summary(a)),
        ("fees", fees_summary(a)),
    ])
}

/// The fields that differ from the last look (all of them on the first).
pub fn changes(before: Option<&Look>, now: &Look) -> Vec<(&'static str, String)> {
    now.iter()
        .filter(|(k, v)| before.and_then(|b| b.get(*k)) != Some(*v))
        .map(|(k, v)| (*k, v.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attributes(v: serde_json::Value) -> ContainerAttributes {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn watch_reports_only_what_changed() {
        let a = watched(&attributes(
            json!({"current_status": "on_ship", "ready_for_pickup": false}),
        ));
        assert_eq!(changes(None, &a).len(), a.len());
        let b = watched(&attributes(
            json!({"current_status": "available", "ready_for_pickup": false}),
        ));
        assert_eq!(
            changes(Some(&a), &b),
            vec![("status", "available".to_string())]
        );
        assert!(changes(Some(&b), &b).is_empty());
    }
}
