//! The container page's sections beyond the timeline, as HTML built by pure functions: holds,
//! fees with their sums (per currency, without the terminal's `total` lines, which repeat the
//! items), the last free day of each source with the one `pickup_lfd` uses, the documents
//! and custom fields of the container and its shipment, and the raw events (what each source
//! said, verbatim) page by page.

use std::collections::BTreeMap;

use boxtrack_core::time::{format_local, format_micros};
use boxtrack_core::tracking::rules::{coalesced_lfd, days_until, fee_sums};
use boxtrack_core::tracking::{Fee, Hold, LfdKind};
use boxtrack_http::html::esc;
use boxtrack_store::custom_fields::FieldRow;
use boxtrack_store::documents::DocumentRow;
use boxtrack_store::reads::RawEventRow;

/// An amount in minor units as `1,234.50 USD` (two decimals; the currencies terminals bill in
/// have two).
pub(crate) fn money(minor: i64, currency: &str) -> String {
    let sign = if minor < 0 { "-" } else { "" };
    let abs = minor.unsigned_abs();
    let units = (abs / 100).to_string();
    let mut grouped = String::new();
    for (i, ch) in units.chars().enumerate() {
        if i > 0 && (units.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(ch);
    }
    format!("{sign}{grouped}.{:02} {currency}", abs % 100)
}

/// The holds section.
pub(crate) fn holds(holds: Option<&[Hold]>) -> String {
    let Some(holds) = holds else {
        return "<p>Not reported yet: no source has said whether the box is held.</p>".to_string();
    };
    if holds.is_empty() {
        return "<p>None: the terminal reports no holds.</p>".to_string();
    }
    let rows: String = holds
        .iter()
        .map(|h| {
            format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&h.name),
                esc(&h.status),
                esc(h.description.as_deref().unwrap_or(""))
            )
        })
        .collect();
    format!(
        r#"<table><thead><tr><th scope="col">Hold</th><th scope="col">Status</th><th scope="col">As the terminal said it</th></tr></thead><tbody>{rows}</tbody></table>"#
    )
}

/// The fees section: each line, then the sums per currency (`total` lines left out of them).
/// Where each value came from (`core::tracking::provenance`): the attribute, whose word
/// decided it, who stated it, when and how precisely (docs/precedence.md). `sandbox`: the
/// container's journey is the sandbox's (its reports are the sandbox's, whatever party the
/// script plays).
pub(crate) fn provenance(
    sources: &[boxtrack_core::tracking::provenance::FieldSource],
    sandbox: bool,
) -> String {
    if sources.is_empty() {
        return "<p>No source has reported anything yet.</p>".to_string();
    }
    let name = |s: boxtrack_core::tracking::DataSource| {
        if sandbox {
            "sandbox"
        } else {
            boxtrack_core::tracking::source_name(s)
        }
        .replace('_', " ")
    };
    let rows: String = sources
        .iter()
        .map(|f| {
            format!(
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(f.attribute),
                esc(&name(f.source)),
                esc(&name(f.report.source)),
                esc(&boxtrack_core::time::format_micros(f.report.observed_us)),
                f.report.precision.name()
            )
        })
        .collect();
    format!(
        r#"<p>Whose word decided each value, and the report that stated it (the same as <code>GET /v2/containers/{{id}}/field_sources</code>).</p><table><thead><tr><th scope="col">Attribute</th><th scope="col">Decided by</th><th scope="col">Stated by</th><th scope="col">Reported at (UTC)</th><th scope="col">Precision</th></tr></thead><tbody>{rows}</tbody></table>"#
    )
}

pub(crate) fn fees(fees: Option<&[Fee]>) -> String {
    let Some(fees) = fees else {
        return "<p>Not reported yet: no source has said what is owed.</p>".to_string();
    };
    if fees.is_empty() {
        return "<p>None: the terminal reports no fees.</p>".to_string();
    }
    let rows: String = fees
        .iter()
        .map(|f| {
            format!(
                r#"<tr><td>{}</td><td class="num">{}</td></tr>"#,
                esc(&f.kind.replace('_', " ")),
                esc(&money(f.amount_minor, &f.currency_code))
            )
        })
        .collect();
    let sums: String = fee_sums(fees)
        .iter()
        .map(|(cur, minor)| {
            format!(
                r#"<tr><th scope="row">Sum in {c}</th><td class="num"><strong>{}</strong></td></tr>"#,
                esc(&money(*minor, cur)),
                c = esc(cur)
            )
        })
        .collect();
    format!(
        r#"<table><thead><tr><th scope="col">Fee</th><th scope="col">Amount</th></tr></thead><tbody>{rows}</tbody><tfoot>{sums}</tfoot></table>
<p>Sums leave out the terminal's “total” lines, which repeat the items above them.</p>"#
    )
}

/// The last free day of each source, which one `pickup_lfd` takes (the line's, else the
/// terminal's, else the rail carrier's), and the days left in the terminal's calendar.
pub(crate) fn lfd(
    lfd: &BTreeMap<LfdKind, i64>,
    rail_visible: bool,
    zone: Option<&str>,
    now_us: i64,
) -> String {
    let used = coalesced_lfd(lfd, rail_visible);
    let chosen = used.map(|_| chosen_kind(lfd, rail_visible));
    let mut rows = String::new();
    for (kind, label) in [
        (LfdKind::Line, "Shipping line"),
        (LfdKind::Terminal, "POD terminal"),
        (LfdKind::Rail, "Rail carrier"),
    ] {
        if kind == LfdKind::Rail && !rail_visible {
            continue;
        }
        let cell = match lfd.get(&kind) {
            Some(t) => {
                let day = format_local(*t, zone);
                let mark = if chosen == Some(kind) {
                    " (this is pickup_lfd)"
                } else {
                    ""
                };
                format!("{}{mark}", esc(&day))
            }
            None => "not reported".to_string(),
        };
        rows.push_str(&format!(
            r#"<tr><th scope="row">{label}</th><td>{cell}</td></tr>"#
        ));
    }
    let left = used
        .and_then(|t| days_until(t, zone, now_us))
        .map_or(String::new(), |d| match d {
            0 => "<p><strong>Today is the last free day.</strong></p>".to_string(),
            d if d < 0 => format!(
                "<p><strong>The last free day passed {} day{} ago.</strong></p>",
                -d,
                if d == -1 { "" } else { "s" }
            ),
            d => format!(
                "<p>{d} day{} until the last free day, in the terminal's calendar.</p>",
                if d == 1 { "" } else { "s" }
            ),
        });
    format!(r#"<table><tbody>{rows}</tbody></table>{left}"#)
}

/// Which source `pickup_lfd` takes, by the same preference as [`coalesced_lfd`].
fn chosen_kind(lfd: &BTreeMap<LfdKind, i64>, rail_visible: bool) -> LfdKind {
    if lfd.contains_key(&LfdKind::Line) {
        LfdKind::Line
    } else if lfd.contains_key(&LfdKind::Terminal) || !rail_visible {
        LfdKind::Terminal
    } else {
        LfdKind::Rail
    }
}

/// The newest raw events: source, what it said, when it said it, and the record verbatim.
pub(crate) fn raw_events(rows: &[RawEventRow]) -> String {
    if rows.is_empty() {
        return "<p>No upstream records yet.</p>".to_string();
    }
    let items: String = rows
        .iter()
        .map(|r| {
            let verbatim = serde_json::to_string_pretty(&r.original.0).unwrap_or_default();
            let when = r
                .at_us
                .map_or(String::new(), |t| format_local(t, r.timezone.as_deref()));
            format!(
                "<tr><td>{}</td><td>{}{}</td><td>{}</td><td>{}</td><td><details><summary>Record</summary><pre>{}</pre></details></td></tr>",
                esc(&r.data_source),
                esc(&r.event.replace('_', " ")),
                if r.estimated { " (estimated)" } else { "" },
                esc(&when),
                esc(&format_micros(r.created_us)),
                esc(&verbatim)
            )
        })
        .collect();
    format!(
        r#"<table><thead><tr><th scope="col">Source</th><th scope="col">Said</th><th scope="col">For (local)</th><th scope="col">Received (UTC)</th><th scope="col"></th></tr></thead><tbody>{items}</tbody></table>"#
    )
}

/// Links to the other pages of a container's upstream records (`page`, with `total` records
/// in all and whether a page follows).
pub(crate) fn raw_pager(container: uuid::Uuid, page: u32, total: u64, has_next: bool) -> String {
    if page <= 1 && !has_next {
        return String::new();
    }
    let link = |n: u32, label: &str, rel: &str| {
        format!(
            r##"<a href="/console/containers/{container}?raw_page={n}#raw" rel="{rel}">{label}</a>"##
        )
    };
    let mut parts = vec![format!("{total} records; page {page}.")];
    if page > 1 {
        parts.push(link(page - 1, "Newer records", "prev"));
    }
    if has_next {
        parts.push(link(page + 1, "Older records", "next"));
    }
    format!(
        r#"<nav aria-label="Upstream record pages"><p>{}</p></nav>"#,
        parts.join(" ")
    )
}

/// The documents linked to the container or to its shipment: name, type, file, size, when
/// added, and a link that downloads it.
pub(crate) fn documents(rows: &[DocumentRow]) -> String {
    if rows.is_empty() {
        return "<p>No documents are linked to this container or its shipment.</p>".to_string();
    }
    let items: String = rows
        .iter()
        .map(|d| {
            format!(
                r#"<tr><td><a href="/console/documents/{id}/download">{name}</a></td><td>{kind}</td><td>{file} ({mime}, {size})</td><td>{added}</td></tr>"#,
                id = d.id,
                name = esc(&d.name),
                kind = esc(&d
                    .document_type_manual
                    .as_deref()
                    .unwrap_or(&d.document_type)
                    .replace('_', " ")),
                file = esc(&d.file_name),
                mime = esc(&d.file_content_type),
                size = bytes(d.file_size_bytes),
                added = esc(&format_micros(d.created_us)),
            )
        })
        .collect();
    format!(
        r#"<table><thead><tr><th scope="col">Document</th><th scope="col">Type</th><th scope="col">File</th><th scope="col">Added (UTC)</th></tr></thead><tbody>{items}</tbody></table>"#
    )
}

/// A size in bytes for people: `512 B`, `12.3 KB`, `4.0 MB`.
pub(crate) fn bytes(n: i64) -> String {
    match n {
        n if n < 1_000 => format!("{n} B"),
        n if n < 1_000_000 => format!("{:.1} KB", n as f64 / 1e3),
        n => format!("{:.1} MB", n as f64 / 1e6),
    }
}

/// The container's and its shipment's custom fields: label, value, and which of the two it
/// belongs to.
pub(crate) fn custom_fields(rows: &[FieldRow]) -> String {
    if rows.is_empty() {
        return "<p>No custom fields are set on this container or its shipment.</p>".to_string();
    }
    let items: String = rows
        .iter()
        .map(|f| {
            format!(
                r#"<tr><th scope="row">{label} <code>{slug}</code></th><td>{value}</td><td>{on}</td></tr>"#,
                label = esc(&f.display_name),
                slug = esc(&f.api_slug),
                value = esc(&field_value(&f.value.0)),
                on = esc(&f.entity_type.to_lowercase()),
            )
        })
        .collect();
    format!(
        r#"<table><thead><tr><th scope="col">Field</th><th scope="col">Value</th><th scope="col">Set on</th></tr></thead><tbody>{items}</tbody></table>"#
    )
}

/// A custom field's value as text: strings as they are, lists joined by commas, nothing for
/// null, everything else as JSON.
pub(crate) fn field_value(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => if *b { "yes" } else { "no" }.to_string(),
        Value::Array(items) => items.iter().map(field_value).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fee(kind: &str, minor: i64, cur: &str) -> Fee {
        Fee {
            kind: kind.into(),
            amount_minor: minor,
            currency_code: cur.into(),
        }
    }

    #[test]
    fn values_sizes_and_record_pages_read_plainly() {
        use serde_json::json;
        assert_eq!(field_value(&json!("PO 7")), "PO 7");
        assert_eq!(field_value(&json!(["a", "b"])), "a, b");
        assert_eq!(field_value(&json!(null)), "");
        assert_eq!(field_value(&json!(true)), "yes");
        assert_eq!(field_value(&json!(12.5)), "12.5");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(12_345), "12.3 KB");
        assert_eq!(bytes(4_000_000), "4.0 MB");
        let id = uuid::Uuid::nil();
        assert_eq!(raw_pager(id, 1, 5, false), "");
        let first = raw_pager(id, 1, 45, true);
        assert!(first.contains("45 records; page 1.") && first.contains("raw_page=2#raw"));
        assert!(!first.contains("Newer records"));
        let last = raw_pager(id, 3, 45, false);
        assert!(last.contains("raw_page=2#raw\" rel=\"prev\"") && !last.contains("Older"));
    }

    #[test]
    fn money_reads_like_money() {
        assert_eq!(money(123_450, "USD"), "1,234.50 USD");
        assert_eq!(money(5, "USD"), "0.05 USD");
        assert_eq!(money(-100_000_000, "EUR"), "-1,000,000.00 EUR");
    }

    #[test]
    fn fee_sums_leave_out_total_lines_and_keep_currencies_apart() {
        let html = fees(Some(&[
            fee("demurrage", 30_000, "USD"),
            fee("exam", 12_550, "USD"),
            fee("total", 42_550, "USD"),
            fee("other", 1_000, "CAD"),
        ]));
        assert!(
            html.contains("Sum in USD</th><td class=\"num\"><strong>425.50 USD"),
            "{html}"
        );
        assert!(
            html.contains("Sum in CAD</th><td class=\"num\"><strong>10.00 CAD"),
            "{html}"
        );
        assert!(
            !html.contains("851.00"),
            "a total line was added in: {html}"
        );
        assert_eq!(
            fees(Some(&[])),
            "<p>None: the terminal reports no fees.</p>"
        );
        assert!(fees(None).starts_with("<p>Not reported yet"));
    }

    #[test]
    fn the_lfd_in_use_is_marked_and_counted_in_the_terminal_s_days() {
        let day = 86_400_000_000;
        let lfd_at = boxtrack_core::time::parse_micros("2026-03-20T04:00:00Z").unwrap();
        let map: BTreeMap<LfdKind, i64> =
            [(LfdKind::Terminal, lfd_at), (LfdKind::Rail, lfd_at + day)]
                .into_iter()
                .collect();
        // 13:00 on the 19th in Los Angeles: the LFD (21:00 on the 19th there) is today
        let now = lfd_at - day / 24 * 8;
        let html = lfd(&map, true, Some("America/Los_Angeles"), now);
        assert!(
            html.contains("Shipping line</th><td>not reported"),
            "{html}"
        );
        assert!(html.contains("(this is pickup_lfd)"), "{html}");
        assert_eq!(html.matches("(this is pickup_lfd)").count(), 1);
        assert!(html.contains("Today is the last free day"), "{html}");
        // without the rail entitlement the rail carrier's LFD is not shown
        assert!(!lfd(&map, false, None, now).contains("Rail carrier"));
        let passed = lfd(&map, true, Some("America/Los_Angeles"), lfd_at + 3 * day);
        assert!(passed.contains("passed 3 days ago"), "{passed}");
    }

    #[test]
    fn holds_are_escaped() {
        let html = holds(Some(&[Hold {
            name: "customs".into(),
            status: "hold".into(),
            description: Some("<b>CBP</b> exam".into()),
        }]));
        assert!(html.contains("&lt;b&gt;CBP&lt;/b&gt; exam"));
        assert_eq!(
            holds(Some(&[])),
            "<p>None: the terminal reports no holds.</p>"
        );
        assert!(holds(None).starts_with("<p>Not reported yet"));
    }
}
