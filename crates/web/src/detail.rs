//! The container page's sections beyond the timeline, as HTML built by pure functions: holds,
//! fees with their sums (per currency, without the terminal's `total` lines, which repeat the
//! items), the last free day of each source with the one `pickup_lfd` uses, the documents
//! and custom fields of the container and its shipment, and the raw events (what each source
//! said, verbatim) page by page.

use std::collections::BTreeMap;

use boxtrack_app::model::{DocumentRow, FieldRow, RawEventRow};
use boxtrack_core::time::{format_local, format_micros};
use boxtrack_core::tracking::provenance::FieldSource;
use boxtrack_core::tracking::rules::{coalesced_lfd, days_until, fee_sums};
use boxtrack_core::tracking::{self, DataSource, Fee, Hold, LfdKind};
use maud::{Markup, html};

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
pub(crate) fn holds(holds: Option<&[Hold]>) -> Markup {
    let Some(holds) = holds else {
        return html! { p { "Not reported yet: no source has said whether the box is held." } };
    };
    if holds.is_empty() {
        return html! { p { "None: the terminal reports no holds." } };
    }
    html! {
        table {
            thead {
                tr {
                    th scope="col" { "Hold" }
                    th scope="col" { "Status" }
                    th scope="col" { "As the terminal said it" }
                }
            }
            tbody {
                @for h in holds {
                    tr {
                        td { (h.name) }
                        td { (h.status) }
                        td { (h.description.as_deref().unwrap_or("")) }
                    }
                }
            }
        }
    }
}

/// Where each value came from (`core::tracking::provenance`): the attribute, whose word
/// decided it, who stated it, when and how precisely (docs/precedence.md). `sandbox`: the
/// container's journey is the sandbox's (its reports are the sandbox's, whatever party the
/// script plays).
pub(crate) fn provenance(sources: &[FieldSource], sandbox: bool) -> Markup {
    if sources.is_empty() {
        return html! { p { "No source has reported anything yet." } };
    }
    let name = |s: DataSource| {
        if sandbox {
            "sandbox"
        } else {
            tracking::source_name(s)
        }
        .replace('_', " ")
    };
    html! {
        p {
            "Whose word decided each value, and the report that stated it (the same as "
            code { "GET /v2/containers/{id}/field_sources" }
            ")."
        }
        table {
            thead {
                tr {
                    th scope="col" { "Attribute" }
                    th scope="col" { "Decided by" }
                    th scope="col" { "Stated by" }
                    th scope="col" { "Reported at (UTC)" }
                    th scope="col" { "Precision" }
                    th scope="col" { "Also reported by" }
                }
            }
            tbody {
                @for f in sources {
                    tr {
                        td { code { (f.attribute) } }
                        td { (name(f.source)) }
                        td { (name(f.report.source)) }
                        td { (format_micros(f.report.observed_us)) }
                        td { (f.report.precision.name()) }
                        td {
                            @for (i, p) in f.also.iter().enumerate() {
                                @if i > 0 { "; " }
                                (name(p.source)) " at " (format_micros(p.observed_us))
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The fees section: each line, then the sums per currency (`total` lines left out of them).
pub(crate) fn fees(fees: Option<&[Fee]>) -> Markup {
    let Some(fees) = fees else {
        return html! { p { "Not reported yet: no source has said what is owed." } };
    };
    if fees.is_empty() {
        return html! { p { "None: the terminal reports no fees." } };
    }
    html! {
        table {
            thead {
                tr {
                    th scope="col" { "Fee" }
                    th scope="col" { "Amount" }
                }
            }
            tbody {
                @for f in fees {
                    tr {
                        td { (f.kind.replace('_', " ")) }
                        td class="num" { (money(f.amount_minor, &f.currency_code)) }
                    }
                }
            }
            tfoot {
                @for (cur, minor) in fee_sums(fees) {
                    tr {
                        th scope="row" { "Sum in " (cur) }
                        td class="num" { strong { (money(minor, &cur)) } }
                    }
                }
            }
        }
        p { "Sums leave out the terminal's “total” lines, which repeat the items above them." }
    }
}

/// The last free day of each source, which one `pickup_lfd` takes (the line's, else the
/// terminal's, else the rail carrier's), and the days left in the terminal's calendar.
pub(crate) fn lfd(
    lfd: &BTreeMap<LfdKind, i64>,
    rail_visible: bool,
    zone: Option<&str>,
    now_us: i64,
) -> Markup {
    let used = coalesced_lfd(lfd, rail_visible);
    let chosen = used.map(|_| chosen_kind(lfd, rail_visible));
    let kinds = [
        (LfdKind::Line, "Shipping line"),
        (LfdKind::Terminal, "POD terminal"),
        (LfdKind::Rail, "Rail carrier"),
    ]
    .into_iter()
    .filter(|(kind, _)| *kind != LfdKind::Rail || rail_visible);
    let left = used.and_then(|t| days_until(t, zone, now_us));
    html! {
        table {
            tbody {
                @for (kind, label) in kinds {
                    tr {
                        th scope="row" { (label) }
                        td {
                            @match lfd.get(&kind) {
                                Some(t) => {
                                    (format_local(*t, zone))
                                    @if chosen == Some(kind) {
                                        " (this is pickup_lfd)"
                                    }
                                }
                                None => { "not reported" }
                            }
                        }
                    }
                }
            }
        }
        @match left {
            Some(0) => {
                p { strong { "Today is the last free day." } }
            }
            Some(d) if d < 0 => {
                p { strong { "The last free day passed " (-d) " day" (if d == -1 { "" } else { "s" }) " ago." } }
            }
            Some(d) => {
                p { (d) " day" (if d == 1 { "" } else { "s" }) " until the last free day, in the terminal's calendar." }
            }
            None => {}
        }
    }
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
pub(crate) fn raw_events(rows: &[RawEventRow]) -> Markup {
    if rows.is_empty() {
        return html! { p { "No upstream records yet." } };
    }
    html! {
        table {
            thead {
                tr {
                    th scope="col" { "Source" }
                    th scope="col" { "Said" }
                    th scope="col" { "For (local)" }
                    th scope="col" { "Received (UTC)" }
                    th scope="col" {}
                }
            }
            tbody {
                @for r in rows {
                    tr {
                        td { (r.data_source) }
                        td {
                            (r.event.replace('_', " "))
                            @if r.estimated {
                                " (estimated)"
                            }
                        }
                        td { (r.at_us.map_or(String::new(), |t| format_local(t, r.timezone.as_deref()))) }
                        td { (format_micros(r.created_us)) }
                        td {
                            details {
                                summary { "Record" }
                                pre { (serde_json::to_string_pretty(&r.original).unwrap_or_default()) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Links to the other pages of a container's upstream records (`page`, with `total` records
/// in all and whether a page follows).
pub(crate) fn raw_pager(container: uuid::Uuid, page: u32, total: u64, has_next: bool) -> Markup {
    if page <= 1 && !has_next {
        return html! {};
    }
    let href = |n: u32| format!("/console/containers/{container}?raw_page={n}#raw");
    html! {
        nav aria-label="Upstream record pages" {
            p {
                (total) " records; page " (page) "."
                @if page > 1 {
                    " "
                    a href=(href(page - 1)) rel="prev" { "Newer records" }
                }
                @if has_next {
                    " "
                    a href=(href(page + 1)) rel="next" { "Older records" }
                }
            }
        }
    }
}

/// The documents linked to the container or to its shipment: name, type, file, size, when
/// added, and a link that downloads it.
pub(crate) fn documents(rows: &[DocumentRow]) -> Markup {
    if rows.is_empty() {
        return html! { p { "No documents are linked to this container or its shipment." } };
    }
    html! {
        table {
            thead {
                tr {
                    th scope="col" { "Document" }
                    th scope="col" { "Type" }
                    th scope="col" { "File" }
                    th scope="col" { "Added (UTC)" }
                }
            }
            tbody {
                @for d in rows {
                    tr {
                        td { a href={ "/console/documents/" (d.id) "/download" } { (d.name) } }
                        td {
                            (d.document_type_manual
                                .as_deref()
                                .unwrap_or(&d.document_type)
                                .replace('_', " "))
                        }
                        td { (d.file_name) " (" (d.file_content_type) ", " (bytes(d.file_size_bytes)) ")" }
                        td { (format_micros(d.created_us)) }
                    }
                }
            }
        }
    }
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
pub(crate) fn custom_fields(rows: &[FieldRow]) -> Markup {
    if rows.is_empty() {
        return html! { p { "No custom fields are set on this container or its shipment." } };
    }
    html! {
        table {
            thead {
                tr {
                    th scope="col" { "Field" }
                    th scope="col" { "Value" }
                    th scope="col" { "Set on" }
                }
            }
            tbody {
                @for f in rows {
                    tr {
                        th scope="row" { (f.display_name) " " code { (f.api_slug) } }
                        td { (field_value(&f.value)) }
                        td { (f.entity_type.to_lowercase()) }
                    }
                }
            }
        }
    }
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
    use boxtrack_core::time;

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
        assert_eq!(raw_pager(id, 1, 5, false).into_string(), "");
        let first = raw_pager(id, 1, 45, true).into_string();
        assert!(first.contains("45 records; page 1.") && first.contains("raw_page=2#raw"));
        assert!(!first.contains("Newer records"));
        let last = raw_pager(id, 3, 45, false).into_string();
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
        ]))
        .into_string();
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
            fees(Some(&[])).into_string(),
            "<p>None: the terminal reports no fees.</p>"
        );
        assert!(fees(None).into_string().starts_with("<p>Not reported yet"));
    }

    #[test]
    fn the_lfd_in_use_is_marked_and_counted_in_the_terminal_s_days() {
        let day = 86_400_000_000;
        let lfd_at = time::parse_micros("2026-03-20T04:00:00Z").unwrap();
        let map: BTreeMap<LfdKind, i64> =
            [(LfdKind::Terminal, lfd_at), (LfdKind::Rail, lfd_at + day)]
                .into_iter()
                .collect();
        // 13:00 on the 19th in Los Angeles: the LFD (21:00 on the 19th there) is today
        let now = lfd_at - day / 24 * 8;
        let html = lfd(&map, true, Some("America/Los_Angeles"), now).into_string();
        assert!(
            html.contains("Shipping line</th><td>not reported"),
            "{html}"
        );
        assert!(html.contains("(this is pickup_lfd)"), "{html}");
        assert_eq!(html.matches("(this is pickup_lfd)").count(), 1);
        assert!(html.contains("Today is the last free day"), "{html}");
        // without the rail entitlement the rail carrier's LFD is not shown
        assert!(
            !lfd(&map, false, None, now)
                .into_string()
                .contains("Rail carrier")
        );
        let passed = lfd(&map, true, Some("America/Los_Angeles"), lfd_at + 3 * day).into_string();
        assert!(passed.contains("passed 3 days ago"), "{passed}");
    }

    #[test]
    fn holds_are_escaped() {
        let html = holds(Some(&[Hold {
            name: "customs".into(),
            status: "hold".into(),
            description: Some("<b>CBP</b> exam".into()),
        }]))
        .into_string();
        assert!(html.contains("&lt;b&gt;CBP&lt;/b&gt; exam"));
        assert_eq!(
            holds(Some(&[])).into_string(),
            "<p>None: the terminal reports no holds.</p>"
        );
        assert!(holds(None).into_string().starts_with("<p>Not reported yet"));
    }
}
