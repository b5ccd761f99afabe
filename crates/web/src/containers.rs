//! The dashboard's containers table: `GET /console/containers`, the account's containers with
//! the filters the API has for them (search by number, reference or bill of lading; status;
//! ready for pickup; last free day within N days), most recently updated first, paged.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use boxtrack_app::charges::summary::{self, AccruingBox};
use boxtrack_app::containers::{self, ContainerFilter, ContainerSort, ListContainers};
use boxtrack_app::fields::{AnyOf, Flag, Instant, One, Range, Text};
use boxtrack_app::model::{ContainerRow, ListSort, ShipmentRow};
use boxtrack_app::{AppError, accounts, clock};
use boxtrack_core::paging::Page;
use boxtrack_core::time;
use boxtrack_core::tracking::release::Gate;
use boxtrack_core::tracking::rules::{self, ContainerStatus};
use boxtrack_http::Front;
use boxtrack_http::doc::Doc;
use boxtrack_http::front::Mount;
use maud::{Markup, html};
use uuid::Uuid;

use crate::charges;
use crate::common::{
    self, SignedIn, app_unavailable, page_with, pager, sort_header, sort_input, time_sort_headers,
    total_text, unavailable,
};
use crate::csv;
use crate::csv::Walk;
use crate::layout::{Place, signed_in};
use crate::live::{self, marker};
use crate::look;

/// Rows per page.
const PAGE_SIZE: u32 = 50;
const DAY_US: i64 = 86_400_000_000;

/// What the form asks for, as the query string carries it.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Asked {
    q: String,
    status: String,
    ready: bool,
    lfd_days: Option<u32>,
    /// Arriving at the port of discharge within this many days (its estimate).
    eta_days: Option<u32>,
    carrier: String,
    port: String,
    updated_days: Option<u32>,
    /// With an active hold (`Some(true)`), without one, or either.
    holds: Option<bool>,
    /// Held at a release gate: a gate's name, `any`, or empty for either.
    held: String,
    /// Released by a gate: a gate's name, `all` (all three), or empty for either.
    released: String,
    /// Only the boxes accruing a charge (past a calculated last free day, still there).
    accruing: bool,
    sort: ListSort,
    page: u32,
}

/// The orders the table offers.
const SORTS: [ListSort; 8] = ListSort::ALL;

impl Asked {
    /// Reads the query; values that mean nothing are left out rather than refused (a form
    /// cannot send a wrong status, and a hand-edited address gets the unfiltered list).
    pub(crate) fn from_query(q: &HashMap<String, String>) -> Asked {
        let text = |k: &str| q.get(k).map(|v| v.trim().to_string()).unwrap_or_default();
        let status = text("status");
        Asked {
            q: text("q"),
            status: if ContainerStatus::parse(&status).is_some() {
                status
            } else {
                String::new()
            },
            ready: matches!(text("ready").as_str(), "1" | "true" | "on"),
            lfd_days: text("lfd_days").parse().ok().filter(|d| *d <= 365),
            eta_days: text("eta_days").parse().ok().filter(|d| *d <= 365),
            carrier: common::code(&text("carrier"), 2..=4),
            port: common::code(&text("port"), 5..=5),
            updated_days: text("updated_days").parse().ok().filter(|d| *d <= 365),
            holds: match text("holds").as_str() {
                "1" | "true" | "on" => Some(true),
                "0" | "false" => Some(false),
                _ => None,
            },
            held: gate_choice(&text("held"), "any"),
            released: gate_choice(&text("released"), "all"),
            accruing: matches!(text("accruing").as_str(), "1" | "true" | "on"),
            sort: common::sort_of(q, &SORTS),
            page: text("page").parse().ok().filter(|p| *p >= 1).unwrap_or(1),
        }
    }

    /// The use case's question ([`ListContainers`], as the API and MCP ask it) at `now_us`:
    /// the form's days become instants.
    pub(crate) fn input(&self, now_us: i64) -> ListContainers {
        let text = |t: &str| (!t.is_empty()).then(|| Text(t.to_string()));
        let flag = |b: bool| b.then_some(Flag(true));
        let days =
            |d: Option<u32>, sign: i64| d.map(|d| Instant(now_us + sign * i64::from(d) * DAY_US));
        ListContainers {
            q: text(&self.q),
            filter: ContainerFilter {
                current_status: ContainerStatus::parse(&self.status).map(|c| AnyOf::of(vec![c])),
                ready_for_pickup: flag(self.ready),
                pickup_lfd: Range {
                    start: None,
                    end: days(self.lfd_days, 1),
                },
                carrier: text(&self.carrier),
                port: text(&self.port),
                updated_at: Range {
                    start: days(self.updated_days, -1),
                    end: None,
                },
                on_hold: self.holds.map(Flag),
                held: gates(&self.held),
                released: gates(&self.released),
                pod_eta_at: Range {
                    start: self.eta_days.map(|_| Instant(now_us)),
                    end: days(self.eta_days, 1),
                },
                ..ContainerFilter::default()
            },
            sort: Some(One(ContainerSort(self.sort))),
        }
    }

    /// The use case's question at `now_us`, with the boxes accruing a charge looked up when
    /// only those are asked for.
    async fn question(
        &self,
        state: &Front,
        account_id: Uuid,
        now_us: i64,
    ) -> Result<ListContainers, AppError> {
        let mut input = self.input(now_us);
        if self.accruing {
            input.filter.further.ids = Some(summary::accruing_ids(&state.ctx, account_id).await?);
        }
        Ok(input)
    }

    /// The query string of this question on page `n`.
    pub(crate) fn query_for(&self, n: u32) -> String {
        self.query_sorted(self.sort, n)
    }

    /// The query string of this question in the order `sort`, on page `n`.
    fn query_sorted(&self, sort: ListSort, n: u32) -> String {
        let days = |d: Option<u32>| d.map_or(String::new(), |d| d.to_string());
        common::query_string(
            &[
                ("q", self.q.clone()),
                ("status", self.status.clone()),
                (
                    "ready",
                    if self.ready {
                        "1".into()
                    } else {
                        String::new()
                    },
                ),
                ("lfd_days", days(self.lfd_days)),
                ("eta_days", days(self.eta_days)),
                ("carrier", self.carrier.clone()),
                ("port", self.port.clone()),
                ("updated_days", days(self.updated_days)),
                (
                    "holds",
                    match self.holds {
                        Some(true) => "1".into(),
                        Some(false) => "0".into(),
                        None => String::new(),
                    },
                ),
                ("held", self.held.clone()),
                ("released", self.released.clone()),
                (
                    "accruing",
                    if self.accruing {
                        "1".into()
                    } else {
                        String::new()
                    },
                ),
                ("sort", common::sort_value(sort)),
            ],
            n,
        )
    }
}

/// `GET /console/containers`.
pub async fn list(
    State(state): State<Front>,
    SignedIn(s): SignedIn,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let asked = Asked::from_query(&query);
    // one database for the whole page (a replica, or the primary)
    let db = state.ctx.read_db(s.account_id);
    let now = state.ctx.now_us();
    // read before the page's rows, so a change in between shows on the next check
    let version = match accounts::fingerprint(db, s.account_id).await {
        Ok(v) => v,
        Err(e) => return unavailable(&e),
    };
    let page = Page {
        number: asked.page,
        size: PAGE_SIZE,
        cursor: None,
    };
    let question = match asked.question(&state, s.account_id, now).await {
        Ok(q) => q,
        Err(e) => return app_unavailable(e),
    };
    let found = match containers::list(db, s.account_id, &question, &page).await {
        Ok(found) => found,
        Err(e) => return app_unavailable(e),
    };
    let listed = &found.listed;
    let rows = rows(&state, s.account_id, &found, now).await;
    let total = total_text(listed.total, listed.total_exact);
    let href = |o: ListSort| format!("/console/containers?{}", asked.query_sorted(o, 1));
    let pager = pager("/console/containers", asked.page, listed.has_next, |n| {
        asked.query_for(n)
    });
    let main = html! {
        h1 { "Containers" }
        (filters(&asked))
        (marker(&version))
        div id="containers-live" data-live {
            div class="toolbar" {
                p { (total) " containers; page " (asked.page) "." }
                p {
                    a href={ "/console/containers.csv?" (asked.query_for(1)) } download { "Export these containers as CSV" }
                }
            }
            div class="table-wrap" {
                table {
                    thead {
                        tr {
                            th scope="col" { "Number and references" }
                            th scope="col" { "Status" }
                            th scope="col" { "Ready for pickup" }
                            (sort_header("Last free day", asked.sort, (ListSort::LfdAsc, ListSort::LfdDesc), href))
                            (sort_header("Arrival (port, inland) and terminal", asked.sort, (ListSort::EtaAsc, ListSort::EtaDesc), href))
                            th scope="col" class="hide-narrow" { "Vessel" }
                            th scope="col" { "Holds, fees and charges" }
                            (time_sort_headers(asked.sort, href))
                        }
                    }
                    tbody { (rows) }
                }
            }
            nav aria-label="Pages" { (pager) }
        }
    };
    page_with(
        StatusCode::OK,
        "Containers",
        signed_in(Place::Containers, &s, main),
        &[],
        &[live::SCRIPT],
    )
}

/// The filter form, as `asked` fills it.
fn filters(asked: &Asked) -> Markup {
    let days = |d: Option<u32>| d.map_or(String::new(), |d| d.to_string());
    // the less used filters stay folded unless one of them is set
    let more_open = !(asked.carrier.is_empty()
        && asked.port.is_empty()
        && asked.updated_days.is_none()
        && asked.holds.is_none()
        && asked.held.is_empty()
        && asked.released.is_empty()
        && !asked.accruing);
    html! {
        form method="get" action="/console/containers" role="search" class="filters" {
            div class="f wide" {
                label for="q" { "Number, reference or bill of lading" }
                input id="q" name="q" type="text" value=(asked.q);
            }
            div class="f" {
                label for="status" { "Status" }
                select id="status" name="status" { (status_options(&asked.status)) }
            }
            div class="f narrow" {
                label for="lfd_days" { "LFD within (days)" }
                input id="lfd_days" name="lfd_days" type="number" min="0" max="365" value=(days(asked.lfd_days));
            }
            div class="f narrow" {
                label for="eta_days" { "Arriving within (days)" }
                input id="eta_days" name="eta_days" type="number" min="0" max="365" value=(days(asked.eta_days));
            }
            div class="f" {
                label class="check" {
                    input name="ready" type="checkbox" value="1" checked[asked.ready];
                    " Ready for pickup only"
                }
            }
            (sort_input(asked.sort))
            details class="more" open[more_open] {
                summary { "More filters" }
                div class="more-fields" {
                    div class="f narrow" {
                        label for="carrier" { "Carrier SCAC" }
                        input id="carrier" name="carrier" type="text" maxlength="4" value=(asked.carrier);
                    }
                    div class="f narrow" {
                        label for="port" { "POD (UN/LOCODE)" }
                        input id="port" name="port" type="text" maxlength="5" value=(asked.port);
                    }
                    div class="f narrow" {
                        label for="updated_days" { "Updated within (days)" }
                        input id="updated_days" name="updated_days" type="number" min="0" max="365" value=(days(asked.updated_days));
                    }
                    div class="f" {
                        label for="holds" { "Terminal holds" }
                        select id="holds" name="holds" { (hold_options(asked.holds)) }
                    }
                    div class="f" {
                        label for="held" { "Held by" }
                        select id="held" name="held" { (gate_options(&asked.held, "any", "any gate")) }
                    }
                    div class="f" {
                        label for="released" { "Released by" }
                        select id="released" name="released" { (gate_options(&asked.released, "all", "all three")) }
                    }
                    div class="f" {
                        label class="check" {
                            input name="accruing" type="checkbox" value="1" checked[asked.accruing];
                            " Accruing charges only"
                        }
                    }
                }
            }
            div class="f" { button type="submit" { "Filter" } }
            " "
            div class="f" { a href="/console/containers" { "Clear" } }
        }
    }
}

/// The status filter's options, `chosen` selected.
fn status_options(chosen: &str) -> Markup {
    let options = std::iter::once(("", "any status")).chain(
        ContainerStatus::ALL
            .iter()
            .map(|c| (c.as_str(), c.as_str())),
    );
    html! {
        @for (value, label) in options {
            option value=(value) selected[value == chosen] { (label.replace('_', " ")) }
        }
    }
}

/// The hold filter's options, `chosen` selected.
/// A release gate's name, or `every` (the word meaning all three), as the form may send it;
/// anything else is left out.
fn gate_choice(v: &str, every: &str) -> String {
    if v == every || Gate::parse(v).is_some() {
        v.to_string()
    } else {
        String::new()
    }
}

/// The gates a choice of [`gate_choice`] names: all three for the word meaning every gate.
fn gates(choice: &str) -> Option<AnyOf<Gate>> {
    match Gate::parse(choice) {
        Some(g) => Some(AnyOf::of(vec![g])),
        None if !choice.is_empty() => Some(AnyOf::of(Gate::ALL.to_vec())),
        None => None,
    }
}

/// The options of a gate select: either, every gate (`every`, shown as `every_label`), or one.
fn gate_options(chosen: &str, every: &str, every_label: &str) -> Markup {
    let options = [
        ("", "either"),
        (every, every_label),
        ("customs", "customs"),
        ("line", "line"),
        ("terminal", "terminal"),
    ];
    html! {
        @for (v, l) in options {
            option value=(v) selected[v == chosen] { (l) }
        }
    }
}

fn hold_options(chosen: Option<bool>) -> Markup {
    let options = [
        (None, "any"),
        (Some(true), "on hold"),
        (Some(false), "no active hold"),
    ];
    html! {
        @for (v, l) in options {
            option value=(match v {
                Some(true) => "1",
                Some(false) => "0",
                None => "",
            }) selected[v == chosen] { (l) }
        }
    }
}

/// The table's rows of a page of containers at real time `now`: each box's last free day
/// counts on its data's clock (a sandbox journey's, a fast source's), boxtrack's own times on
/// the wall clock.
pub(crate) async fn rows(
    state: &Front,
    account_id: Uuid,
    found: &containers::ContainerPage,
    now: i64,
) -> Markup {
    let ids: Vec<Uuid> = found.listed.rows.iter().map(|c| c.shipment_id).collect();
    let clocks = clock::clocks(&state.ctx, account_id, &ids)
        .await
        .unwrap_or_default();
    let at = |c: &ContainerRow| clocks.get(&c.shipment_id).map_or(now, |k| k.at(now));
    let priced: Vec<(&ContainerRow, &ShipmentRow, i64)> = found
        .listed
        .rows
        .iter()
        .filter_map(|c| Some((c, found.shipments.get(&c.shipment_id)?, at(c))))
        .collect();
    // what each box accrues (a table without it when the tariffs cannot be read)
    let accruing = summary::accruing_on_page(&state.ctx, account_id, &priced)
        .await
        .unwrap_or_default();
    html! {
        @for c in &found.listed.rows {
            (row(
                c,
                found.shipments.get(&c.shipment_id),
                (at(c), now),
                accruing.get(&c.id),
            ))
        }
    }
}

/// A container's row of the table: its badges, its last free day (highlighted when close or
/// past, at the port's clock) and its times (UTC, as the headers say) with how long ago they
/// were.
fn row(
    c: &ContainerRow,
    shipment: Option<&ShipmentRow>,
    (now, wall): (i64, i64),
    accruing: Option<&Vec<AccruingBox>>,
) -> Markup {
    let st = &c.state;
    let status = ContainerStatus::parse(&c.current_status).unwrap_or(ContainerStatus::New);
    let zone = shipment.and_then(|s| s.route.pod_timezone.as_deref());
    let days = look::lfd_days(status, c.pickup_lfd_us, zone, now);
    let (arrival, vessel, refs) = shipment.map_or_else(Default::default, |sh| {
        (
            look::arrival(&sh.route, &sh.state),
            look::vessel(&sh.state),
            look::customer_and_refs(sh.customer_name.as_deref(), &c.ref_numbers, &sh.ref_numbers),
        )
    });
    html! {
        tr {
            td {
                a href={ "/console/containers/" (c.id) } { code { (c.number) } }
                div class="muted" { (refs) }
            }
            td { (look::badges_html(&look::container_badges(status, st, days))) }
            td { (if c.ready_for_pickup { "yes" } else { "no" }) }
            td class=(look::lfd_class(days)) {
                @if let Some(t) = c.pickup_lfd_us {
                    (look::short_day(t, zone))
                    @if let Some(b) = look::lfd_badge(days) {
                        br;
                        strong { (b.label) }
                    }
                }
            }
            td {
                (arrival)
                div class="muted" { (st.pod_terminal.as_deref().unwrap_or("")) }
            }
            td class="hide-narrow" { (vessel) }
            td {
                (look::holds_and_fees(st))
                (charges::accruing_cell(accruing))
            }
            td { (look::when(c.updated_us, None, wall)) }
            td { (look::when(c.created_us, None, wall)) }
        }
    }
}

/// `GET /console/containers.csv`: the containers the table's filters select (every page, up
/// to [`crate::csv::EXPORT_MAX_ROWS`]), in the table's order, as CSV.
pub async fn export(
    State(state): State<Front>,
    SignedIn(s): SignedIn,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let asked = match Asked::from_query(&query)
        .question(&state, s.account_id, state.ctx.now_us())
        .await
    {
        Ok(q) => q,
        Err(e) => return app_unavailable(e),
    };
    let mut out = csv::record(&[
        "number",
        "status",
        "ready_for_pickup",
        "pickup_lfd",
        "pod_terminal",
        "on_hold",
        "bill_of_lading",
        "scac",
        "pod_locode",
        "ref_numbers",
        "updated_at",
        "id",
    ]);
    // one database for every page of the export (a replica, or the primary)
    let db = state.ctx.read_db(s.account_id);
    let mut walk = Walk::new(asked.sort());
    loop {
        let found = match containers::list(db, s.account_id, &asked, &walk.page()).await {
            Ok(found) => found,
            Err(e) => return app_unavailable(e),
        };
        let (listed, shipments) = (&found.listed, &found.shipments);
        for c in &listed.rows {
            let sh = shipments.get(&c.shipment_id);
            out.push_str(&csv::record(&[
                c.number.clone(),
                c.current_status.clone(),
                c.ready_for_pickup.to_string(),
                c.pickup_lfd_us.map(time::format_micros).unwrap_or_default(),
                c.state.pod_terminal.clone().unwrap_or_default(),
                rules::active_holds(&c.state.holds)
                    .next()
                    .is_some()
                    .to_string(),
                sh.map(|x| x.bill_of_lading_number.clone())
                    .unwrap_or_default(),
                sh.map(|x| x.scac.clone()).unwrap_or_default(),
                sh.and_then(|x| x.route.pod_locode.clone())
                    .unwrap_or_default(),
                c.ref_numbers.join(" "),
                time::format_micros(c.updated_us),
                c.id.to_string(),
            ]));
        }
        if !walk.advance(&listed.rows, listed.has_next) {
            break;
        }
    }
    csv::download(out, "containers.csv")
}

/// This page's routes, each declared with its documentation.
pub(crate) fn routes() -> Mount {
    use crate::pagedoc::{csv_file, html, page, query, see_other, unavailable};

    Mount::default()
        .public_get("/console/containers", self::list, || Doc::from_value({
                let mut op = page(
                    "The containers table",
                    "The signed-in account's containers, most recently updated first, 50 a page, with the API's filters: `q` (number, reference or bill of lading), `status` (a `current_status`), `ready=1`, `lfd_days` (last free day within that many days), `eta_days` (estimated arrival at the port of discharge within that many days), `carrier` (SCAC), `port` (POD UN/LOCODE), `updated_days` (updated within that many days), `holds` (`1` with an active terminal hold, `0` without), `held` (a release gate held: `customs`, `line`, `terminal`, or `any`), `released` (released by a gate: `customs`, `line`, `terminal`, or `all` three), `accruing=1` (only the boxes accruing a charge by the account's tariffs: past the calculated last free day, still there), `sort` (`-updated_at`, the default, `updated_at`, `-created_at`, `created_at`, `pickup_lfd` or `-pickup_lfd`, missing last free days last, `pod_eta_at` or `-pod_eta_at`, missing estimates last), `page`. Values that mean nothing are left out.",
                    ("200", html("The table")),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        ("503", unavailable()),
                    ],
                    None,
                );
                op["parameters"] = query(&[
                    ("q", "string"),
                    ("status", "string"),
                    ("ready", "string"),
                    ("lfd_days", "integer"),
                    ("eta_days", "integer"),
                    ("carrier", "string"),
                    ("port", "string"),
                    ("updated_days", "integer"),
                    ("holds", "string"),
                    ("held", "string"),
                    ("released", "string"),
                    ("accruing", "string"),
                    ("sort", "string"),
                    ("page", "integer"),
                ]);
                op
            }))
        .public_get("/console/containers.csv", self::export, || Doc::from_value({
                let mut op = page(
                    "Export containers as CSV",
                    "The containers the table's filters select (the same query parameters as `/console/containers`, `page` aside), every page up to 50,000 rows, in the table's order: number, status, ready_for_pickup, pickup_lfd, pod_terminal, on_hold, bill_of_lading, scac, pod_locode, ref_numbers, updated_at, id. Cells a spreadsheet would run as a formula are prefixed with `'`.",
                    ("200", csv_file()),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        ("503", unavailable()),
                    ],
                    None,
                );
                op["parameters"] = query(&[
                    ("q", "string"),
                    ("status", "string"),
                    ("ready", "string"),
                    ("lfd_days", "integer"),
                    ("carrier", "string"),
                    ("port", "string"),
                    ("updated_days", "integer"),
                    ("holds", "string"),
                    ("held", "string"),
                    ("released", "string"),
                    ("accruing", "string"),
                    ("sort", "string"),
                ]);
                op
            }))
}

#[cfg(test)]
mod tests {
    use boxtrack_app::model::DateField;

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
            ("q", " MSCU 12 "),
            ("status", "available"),
            ("ready", "1"),
            ("lfd_days", "3"),
            ("carrier", "maeu"),
            ("port", "uslax"),
            ("updated_days", "2"),
            ("page", "2"),
        ]));
        let f = a.input(1_000).filter();
        assert_eq!(f.carrier.as_deref(), Some("MAEU"));
        assert_eq!(f.port.as_deref(), Some("USLAX"));
        assert_eq!(f.updated_start_us, Some(1_000 - 2 * DAY_US));
        assert_eq!(f.q.as_deref(), Some("MSCU 12"));
        assert_eq!(f.statuses, ["available"]);
        assert_eq!(f.ready_for_pickup, Some(true));
        // the end of a range takes in its whole second
        assert_eq!(f.lfd_end_us, Some(3 * DAY_US + 999_999));
        assert_eq!(
            a.query_for(3),
            "q=MSCU%2012&status=available&ready=1&lfd_days=3&carrier=MAEU&port=USLAX&updated_days=2&page=3"
        );
        assert_eq!(
            Asked::from_query(&query(&[
                ("q", "MSCU 12"),
                ("status", "available"),
                ("ready", "1"),
                ("lfd_days", "3")
            ]))
            .query_for(1),
            "q=MSCU%2012&status=available&ready=1&lfd_days=3"
        );
        // arriving within a week: the shipment's estimate from now to seven days on
        let eta = Asked::from_query(&query(&[("eta_days", "7"), ("sort", "pod_eta_at")]));
        let f = eta.input(1_000).filter();
        let d = f.dates.first().copied();
        assert_eq!(d.map(|d| d.field), Some(DateField::PodEta));
        assert_eq!(d.and_then(|d| d.start_us), Some(1_000));
        assert_eq!(f.sort, ListSort::EtaAsc);
        assert_eq!(eta.query_for(1), "eta_days=7&sort=pod_eta_at");
    }

    #[test]
    fn the_gate_selects_become_the_api_s_gate_filters() {
        let a = Asked::from_query(&query(&[("held", "customs"), ("released", "all")]));
        let f = a.input(0).filter();
        assert_eq!(f.held_any, Some(Gate::Customs.bit()));
        assert_eq!(f.released_all, Some(7));
        assert_eq!(a.query_for(1), "held=customs&released=all");
        let any = Asked::from_query(&query(&[("held", "any"), ("released", "line")]));
        let f = any.input(0).filter();
        assert_eq!(f.held_any, Some(7));
        assert_eq!(f.released_all, Some(Gate::Line.bit()));
        // a word that names no gate is left out
        let junk = Asked::from_query(&query(&[("held", "all"), ("released", "freight")]));
        assert!(junk.held.is_empty() && junk.released.is_empty());
        assert_eq!(junk.input(0).filter().held_any, None);
    }

    #[test]
    fn nonsense_is_left_out() {
        let a = Asked::from_query(&query(&[
            ("status", "teleported"),
            ("lfd_days", "-1"),
            ("page", "0"),
            ("ready", "maybe"),
        ]));
        assert_eq!(
            a,
            Asked {
                page: 1,
                ..Asked::default()
            }
        );
        let f = a.input(0).filter();
        assert!(f.q.is_none() && f.statuses.is_empty());
        assert!(f.ready_for_pickup.is_none() && f.lfd_end_us.is_none());
    }
}
