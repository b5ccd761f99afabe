//! The dashboard's shipments table: `GET /console/shipments`, the account's shipments with the
//! filters the API has for them (search by bill of lading, reference or container number;
//! carrier; port of discharge; tracked or stopped; updated within N days), most recently
//! updated first, paged, and kept current like the other live pages.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use boxtrack_app::accounts;
use boxtrack_app::fields::{Instant, One, Range, Text};
use boxtrack_app::model::{ContainerRef, ListSort, Listed, ShipmentRow};
use boxtrack_app::shipments::{self, ListShipments, ShipmentFilter, ShipmentSort, ShipmentStatus};
use boxtrack_core::paging::Page;
use boxtrack_core::time::{format_local, format_micros};
use boxtrack_http::Front;
use boxtrack_http::doc::Doc;
use boxtrack_http::front::Mount;
use maud::{Markup, html};
use uuid::Uuid;

use crate::common::{
    self, SignedIn, app_unavailable, page_with, pager, sort_header, sort_input, time_sort_headers,
    total_text, unavailable, url_encode,
};
use crate::csv::{self, Walk};
use crate::layout::{Place, signed_in};
use crate::live::{self, marker};

/// Rows per page.
const PAGE_SIZE: u32 = 50;
const DAY_US: i64 = 86_400_000_000;

/// What the form asks for, as the query string carries it.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Asked {
    q: String,
    carrier: String,
    port: String,
    /// `tracked`, `stopped` or empty (both).
    tracking: String,
    updated_days: Option<u32>,
    /// Arriving at the port of discharge within this many days (its estimate).
    eta_days: Option<u32>,
    sort: ListSort,
    page: u32,
}

/// The orders the table offers.
const SORTS: [ListSort; 6] = [
    ListSort::UpdatedDesc,
    ListSort::UpdatedAsc,
    ListSort::CreatedDesc,
    ListSort::CreatedAsc,
    ListSort::EtaAsc,
    ListSort::EtaDesc,
];

impl Asked {
    /// Reads the query; values that mean nothing are left out.
    pub(crate) fn from_query(q: &HashMap<String, String>) -> Asked {
        let text = |k: &str| q.get(k).map(|v| v.trim().to_string()).unwrap_or_default();
        let tracking = text("tracking");
        Asked {
            q: text("q"),
            carrier: common::code(&text("carrier"), 2..=4),
            port: common::code(&text("port"), 5..=5),
            tracking: if matches!(tracking.as_str(), "tracked" | "stopped") {
                tracking
            } else {
                String::new()
            },
            updated_days: text("updated_days").parse().ok().filter(|d| *d <= 365),
            eta_days: text("eta_days").parse().ok().filter(|d| *d <= 365),
            sort: common::sort_of(q, &SORTS),
            page: text("page").parse().ok().filter(|p| *p >= 1).unwrap_or(1),
        }
    }

    /// The use case's question ([`ListShipments`], as the API and MCP ask it) at `now_us`:
    /// the form's days become instants.
    pub(crate) fn input(&self, now_us: i64) -> ListShipments {
        let text = |t: &str| (!t.is_empty()).then(|| Text(t.to_string()));
        ListShipments {
            q: text(&self.q),
            number: None,
            filter: ShipmentFilter {
                carrier: text(&self.carrier),
                port: text(&self.port),
                status: match self.tracking.as_str() {
                    "tracked" => Some(One(ShipmentStatus::Tracking)),
                    "stopped" => Some(One(ShipmentStatus::TrackingStopped)),
                    _ => None,
                },
                updated_at: Range {
                    start: self
                        .updated_days
                        .map(|d| Instant(now_us - i64::from(d) * DAY_US)),
                    end: None,
                },
                pod_eta_at: Range {
                    start: self.eta_days.map(|_| Instant(now_us)),
                    end: self
                        .eta_days
                        .map(|d| Instant(now_us + i64::from(d) * DAY_US)),
                },
                ..ShipmentFilter::default()
            },
            sort: Some(One(ShipmentSort(self.sort))),
        }
    }

    /// The query string of this question on page `n`.
    pub(crate) fn query_for(&self, n: u32) -> String {
        self.query_sorted(self.sort, n)
    }

    /// The query string of this question in the order `sort`, on page `n`.
    fn query_sorted(&self, sort: ListSort, n: u32) -> String {
        common::query_string(
            &[
                ("q", self.q.clone()),
                ("carrier", self.carrier.clone()),
                ("port", self.port.clone()),
                ("tracking", self.tracking.clone()),
                (
                    "updated_days",
                    self.updated_days.map_or(String::new(), |d| d.to_string()),
                ),
                (
                    "eta_days",
                    self.eta_days.map_or(String::new(), |d| d.to_string()),
                ),
                ("sort", common::sort_value(sort)),
            ],
            n,
        )
    }
}

/// A shipment's row of the table: its bill of lading (linking to its containers), carrier,
/// route, arrival at the port's clock, how many boxes, whether it is tracked, its times.
fn row(sh: &ShipmentRow, boxes: usize) -> Markup {
    let (route, st) = (&sh.route, &sh.state);
    let arrival = match (st.pod_ata_us, st.pod_eta_us) {
        (Some(t), _) => format!("arrived {}", format_local(t, route.pod_timezone.as_deref())),
        (None, Some(t)) => format!("ETA {}", format_local(t, route.pod_timezone.as_deref())),
        _ => String::new(),
    };
    html! {
        tr {
            td {
                a href={ "/console/containers?q=" (url_encode(&sh.bill_of_lading_number)) } {
                    code { (sh.bill_of_lading_number) }
                }
            }
            td { (sh.scac) }
            td {
                (route.pol_locode.as_deref().unwrap_or("?"))
                " → "
                (route.pod_locode.as_deref().unwrap_or("?"))
            }
            td { (arrival) }
            td { (boxes) }
            td { (if sh.tracking_stopped_us.is_some() { "stopped" } else { "tracked" }) }
            td { (format_micros(sh.updated_us)) }
            td { (format_micros(sh.created_us)) }
        }
    }
}

/// `GET /console/shipments`.
pub async fn list(
    State(state): State<Front>,
    SignedIn(s): SignedIn,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let asked = Asked::from_query(&query);
    // one database for the whole page (a replica, or the primary)
    let db = state.ctx.read_db(s.account_id);
    let version = match accounts::fingerprint(db, s.account_id).await {
        Ok(v) => v,
        Err(e) => return unavailable(&e),
    };
    let page = Page {
        number: asked.page,
        size: PAGE_SIZE,
        cursor: None,
    };
    let input = asked.input(state.ctx.now_us());
    let (listed, containers) =
        match shipments::list_with_refs(db, s.account_id, &input, &page).await {
            Ok(found) => (found.listed, found.containers),
            Err(e) => return app_unavailable(e),
        };
    let main = html! {
        h1 { "Shipments" }
        (filter_form(&asked))
        p {
            a href={ "/console/shipments.csv?" (asked.query_for(1)) } download { "Export these shipments as CSV" }
        }
        (marker(&version))
        (table(&asked, &listed, &containers))
    };
    page_with(
        StatusCode::OK,
        "Shipments",
        signed_in(Place::Shipments, &s, main),
        &[],
        &[live::SCRIPT],
    )
}

/// The form that filters the table, filled with what was asked.
fn filter_form(asked: &Asked) -> Markup {
    let days = |d: Option<u32>| d.map_or(String::new(), |d| d.to_string());
    let tracking_options = [
        ("", "tracked or stopped"),
        ("tracked", "tracked"),
        ("stopped", "stopped"),
    ];
    html! {
        form method="get" action="/console/shipments" role="search" {
            label for="q" { "Bill of lading, reference or container number" }
            input id="q" name="q" type="text" value=(asked.q);
            label for="carrier" { "Carrier SCAC" }
            input id="carrier" name="carrier" type="text" maxlength="4" value=(asked.carrier);
            label for="port" { "Port of discharge (UN/LOCODE)" }
            input id="port" name="port" type="text" maxlength="5" value=(asked.port);
            label for="tracking" { "Tracking" }
            select id="tracking" name="tracking" {
                @for (v, l) in tracking_options {
                    option value=(v) selected[v == asked.tracking] { (l) }
                }
            }
            label for="updated_days" { "Updated within (days)" }
            input id="updated_days" name="updated_days" type="number" min="0" max="365" value=(days(asked.updated_days));
            label for="eta_days" { "Arriving within (days)" }
            input id="eta_days" name="eta_days" type="number" min="0" max="365" value=(days(asked.eta_days));
            " "
            (sort_input(asked.sort))
            button type="submit" { "Filter" }
            " "
            a href="/console/shipments" { "Clear" }
        }
    }
}

/// The page of shipments (the part the live script replaces), with its pager.
fn table(
    asked: &Asked,
    listed: &Listed<ShipmentRow>,
    containers: &HashMap<Uuid, Vec<ContainerRef>>,
) -> Markup {
    let total = total_text(listed.total, listed.total_exact);
    let href = |o: ListSort| format!("/console/shipments?{}", asked.query_sorted(o, 1));
    let pager = pager("/console/shipments", asked.page, listed.has_next, |n| {
        asked.query_for(n)
    });
    html! {
        div id="shipments-live" data-live {
            p { (total) " shipments; page " (asked.page) "." }
            table {
                thead {
                    tr {
                        th scope="col" { "Bill of lading" }
                        th scope="col" { "Carrier" }
                        th scope="col" { "Route" }
                        (sort_header("Arrival (port time)", asked.sort, (ListSort::EtaAsc, ListSort::EtaDesc), href))
                        th scope="col" { "Containers" }
                        th scope="col" { "Tracking" }
                        (time_sort_headers(asked.sort, href))
                    }
                }
                tbody {
                    @for sh in &listed.rows {
                        (row(sh, containers.get(&sh.id).map_or(0, Vec::len)))
                    }
                }
            }
            nav aria-label="Pages" { (pager) }
        }
    }
}

/// `GET /console/shipments.csv`: the shipments the table's filters select (every page, up to
/// [`crate::csv::EXPORT_MAX_ROWS`]), in the table's order, as CSV with one row per shipment.
pub async fn export(
    State(state): State<Front>,
    SignedIn(s): SignedIn,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let asked = Asked::from_query(&query).input(state.ctx.now_us());
    let mut out = csv::record(&[
        "bill_of_lading",
        "scac",
        "pol_locode",
        "pod_locode",
        "pod_eta",
        "pod_ata",
        "containers",
        "ref_numbers",
        "tracking",
        "customer",
        "created_at",
        "updated_at",
        "id",
    ]);
    // one database for every page of the export (a replica, or the primary)
    let db = state.ctx.read_db(s.account_id);
    let mut walk = Walk::new(asked.sort());
    loop {
        let (listed, containers) =
            match shipments::list(db, s.account_id, &asked, &walk.page()).await {
                Ok(found) => (found.listed, found.containers),
                Err(e) => return app_unavailable(e),
            };
        let time = |t: Option<i64>| t.map(format_micros).unwrap_or_default();
        for sh in &listed.rows {
            let (route, st) = (&sh.route, &sh.state);
            let numbers: Vec<String> = containers
                .get(&sh.id)
                .map(|cs| cs.iter().map(|c| c.number.clone()).collect())
                .unwrap_or_default();
            out.push_str(&csv::record(&[
                sh.bill_of_lading_number.clone(),
                sh.scac.clone(),
                route.pol_locode.clone().unwrap_or_default(),
                route.pod_locode.clone().unwrap_or_default(),
                time(st.pod_eta_us),
                time(st.pod_ata_us),
                numbers.join(" "),
                sh.ref_numbers.join(" "),
                if sh.tracking_stopped_us.is_some() {
                    "stopped".into()
                } else {
                    "tracked".into()
                },
                sh.customer_name.clone().unwrap_or_default(),
                format_micros(sh.created_us),
                format_micros(sh.updated_us),
                sh.id.to_string(),
            ]));
        }
        if !walk.advance(&listed.rows, listed.has_next) {
            break;
        }
    }
    csv::download(out, "shipments.csv")
}

/// This page's routes, each declared with its documentation.
pub(crate) fn routes() -> Mount {
    use crate::pagedoc::{csv_file, html, page, query, see_other, unavailable};

    Mount::default()
        .public_get("/console/shipments", self::list, || Doc::from_value({
                let mut op = page(
                    "The shipments table",
                    "The signed-in account's shipments, most recently updated first, 50 a page, with the API's filters: `q` (bill of lading, reference or container number), `carrier` (SCAC), `port` (POD UN/LOCODE), `tracking` (`tracked` or `stopped`), `updated_days` (updated within that many days), `eta_days` (estimated arrival at the port of discharge within that many days), `sort` (`-updated_at`, the default, `updated_at`, `-created_at`, `created_at`, `pod_eta_at` or `-pod_eta_at`, missing estimates last), `page`. Values that mean nothing are left out. The page keeps itself current.",
                    ("200", html("The table")),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        ("503", unavailable()),
                    ],
                    None,
                );
                op["parameters"] = query(&[
                    ("q", "string"),
                    ("carrier", "string"),
                    ("port", "string"),
                    ("tracking", "string"),
                    ("updated_days", "integer"),
                    ("eta_days", "integer"),
                    ("sort", "string"),
                    ("page", "integer"),
                ]);
                op
            }))
        .public_get("/console/shipments.csv", self::export, || Doc::from_value({
                let mut op = page(
                    "Export shipments as CSV",
                    "The shipments the table's filters select (the same query parameters as `/console/shipments`, `page` aside), every page up to 50,000 rows, in the table's order, one row per shipment: bill_of_lading, scac, pol_locode, pod_locode, pod_eta, pod_ata, containers (their numbers), ref_numbers, tracking, customer, created_at, updated_at, id. Cells a spreadsheet would run as a formula are prefixed with `'`.",
                    ("200", csv_file()),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        ("503", unavailable()),
                    ],
                    None,
                );
                op["parameters"] = query(&[
                    ("q", "string"),
                    ("carrier", "string"),
                    ("port", "string"),
                    ("tracking", "string"),
                    ("updated_days", "integer"),
                    ("eta_days", "integer"),
                    ("sort", "string"),
                ]);
                op
            }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_form_becomes_the_api_s_filter_and_back() {
        let a = Asked::from_query(&query(&[
            ("q", " PO 7 "),
            ("carrier", "maeu"),
            ("port", "uslax"),
            ("tracking", "stopped"),
            ("updated_days", "7"),
            ("page", "3"),
        ]));
        let f = a.input(10 * DAY_US).filter();
        assert_eq!(f.q.as_deref(), Some("PO 7"));
        assert_eq!(f.carrier.as_deref(), Some("MAEU"));
        assert_eq!(f.port.as_deref(), Some("USLAX"));
        assert_eq!(f.tracking_stopped, Some(true));
        assert_eq!(f.updated_start_us, Some(3 * DAY_US));
        assert_eq!(
            a.query_for(4),
            "q=PO%207&carrier=MAEU&port=USLAX&tracking=stopped&updated_days=7&page=4"
        );
    }

    #[test]
    fn nonsense_is_left_out() {
        let a = Asked::from_query(&query(&[
            ("carrier", "M;EU"),
            ("port", "LA"),
            ("tracking", "sideways"),
            ("updated_days", "-2"),
            ("page", "0"),
        ]));
        assert_eq!(
            a,
            Asked {
                page: 1,
                ..Asked::default()
            }
        );
        let f = a.input(0).filter();
        assert!(f.carrier.is_none() && f.port.is_none() && f.tracking_stopped.is_none());
    }
}
