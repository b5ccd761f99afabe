//! How the tables and summaries write a container's holds and fees, yes and no, and times.

use super::resources::{ContainerAttributes, Fee};

/// A text member as printed: empty when it is missing.
pub(super) fn text(v: &Option<String>) -> String {
    v.clone().unwrap_or_default()
}

/// `yes`, `no`, or nothing when not known.
pub(super) fn yes_no(v: Option<bool>) -> String {
    match v {
        Some(true) => "yes".into(),
        Some(false) => "no".into(),
        None => String::new(),
    }
}

/// The day of an ISO 8601 time or date as the API wrote it (its local offset kept).
pub(super) fn day(v: &Option<String>) -> Option<String> {
    v.as_deref().map(|s| s.chars().take(10).collect())
}

/// Day and minute of an ISO 8601 time (`2026-03-04 09:30`).
pub(super) fn minute(v: &Option<String>) -> String {
    v.as_deref()
        .map(|s| s.chars().take(16).collect::<String>().replacen('T', " ", 1))
        .unwrap_or_default()
}

/// Whether no source has read the terminal for this box yet, so that an empty list of holds
/// or fees says nothing.
fn not_reported<T>(list: Option<&Vec<T>>, a: &ContainerAttributes) -> bool {
    list.is_none_or(|l| l.is_empty() && a.terminal_checked_at.is_none())
}

/// The holds in force (`customs, freight`), `none`, or `not reported`.
pub(super) fn holds_summary(a: &ContainerAttributes) -> String {
    let Some(holds) = &a.holds_at_pod_terminal else {
        return "not reported".to_string();
    };
    if not_reported(Some(holds), a) {
        return "not reported".to_string();
    }
    let held: Vec<String> = holds
        .iter()
        .filter(|h| h.status.as_deref() == Some("hold"))
        .map(|h| text(&h.name))
        .collect();
    if held.is_empty() {
        "none".to_string()
    } else {
        held.join(", ")
    }
}

/// The release gates in one line (`customs held (PA …, shipping_line) · line released ·
/// terminal unknown`), or none from a server that does not keep them.
pub(super) fn release_summary(a: &ContainerAttributes) -> Option<String> {
    let g = a.release_gates.as_ref()?;
    let one = |name: &str, gate: &super::resources::Gate| {
        let status = gate.status.as_deref().unwrap_or("unknown");
        let said: Vec<&str> = [gate.wording.as_deref(), gate.source.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        if said.is_empty() {
            format!("{name} {status}")
        } else {
            format!("{name} {status} ({})", said.join(", "))
        }
    };
    Some(
        [
            one("customs", &g.customs),
            one("line", &g.line),
            one("terminal", &g.terminal),
        ]
        .join(" · "),
    )
}

/// The fees (`demurrage 120 USD`), `none`, or `not reported`.
pub(super) fn fees_summary(a: &ContainerAttributes) -> String {
    let Some(fees) = &a.fees_at_pod_terminal else {
        return "not reported".to_string();
    };
    if not_reported(Some(fees), a) {
        return "not reported".to_string();
    }
    let fees: Vec<String> = fees.iter().map(fee).collect();
    if fees.is_empty() {
        "none".to_string()
    } else {
        fees.join(", ")
    }
}

/// One fee: type, amount and currency.
fn fee(f: &Fee) -> String {
    format!(
        "{} {} {}",
        text(&f.kind),
        f.amount
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default(),
        text(&f.currency_code)
    )
}
