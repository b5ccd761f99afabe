//! Tracking requests in the console: `GET /console/tracking_requests` lists the account's
//! requests, newest first, 50 a page, with their state and why one failed, filtered as the
//! API filters them (number or reference, status, carrier) and exported as CSV
//! (`/console/tracking_requests.csv`); `POST` tracks a number through the same path as
//! `POST /v2/tracking_requests` (validation, plan limit, duplicates, the carrier detected
//! from the number when none is given).

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use boxtrack_app::accounts;
use boxtrack_app::model::{Listed, Session, TrackingRequestRow};
use boxtrack_core::paging::Page;
use boxtrack_core::requests::{self, NewRequest};
use boxtrack_core::time::{self, format_micros};
use boxtrack_http::Front;
use maud::{Markup, html};

use boxtrack_app::fields::{One, Text};
use boxtrack_app::requests::{self as app, ListRequests, RequestsFilter};
use boxtrack_app::tracking::{Refused, track};
use boxtrack_http::doc::Doc;
use boxtrack_http::front::Mount;
use boxtrack_http::schema::Schema;

use crate::common::{
    self, SignedForm, SignedIn, app_unavailable, page_with, pager, see_other, total_text,
    unavailable,
};
use crate::csv::{self, Walk};
use crate::layout::{Place, signed_in};
use crate::live::{self, marker};

/// Rows per page.
const PAGE_SIZE: u32 = 50;

/// What the filter form asks for, as the query string carries it.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Asked {
    q: String,
    status: String,
    scac: String,
    page: u32,
}

impl Asked {
    /// Reads the query; values that mean nothing are left out.
    pub(crate) fn from_query(q: &HashMap<String, String>) -> Asked {
        let text = |k: &str| q.get(k).map(|v| v.trim().to_string()).unwrap_or_default();
        let status = text("status");
        Asked {
            q: text("q"),
            status: if requests::Status::parse(&status).is_some() {
                status
            } else {
                String::new()
            },
            scac: common::code(&text("scac"), 2..=4),
            page: text("page").parse().ok().filter(|p| *p >= 1).unwrap_or(1),
        }
    }

    /// No filter, the first page.
    pub(crate) fn first_page() -> Asked {
        Asked {
            page: 1,
            ..Asked::default()
        }
    }

    /// The use case's question ([`ListRequests`], as the API and MCP ask it).
    pub(crate) fn input(&self) -> ListRequests {
        let some = |v: &String| (!v.is_empty()).then(|| Text(v.clone()));
        ListRequests {
            q: some(&self.q),
            filter: RequestsFilter {
                status: requests::Status::parse(&self.status).map(One),
                scac: some(&self.scac),
                ..RequestsFilter::default()
            },
        }
    }

    /// The query string of this question on page `n`.
    pub(crate) fn query_for(&self, n: u32) -> String {
        common::query_string(
            &[
                ("q", self.q.clone()),
                ("status", self.status.clone()),
                ("scac", self.scac.clone()),
            ],
            n,
        )
    }
}

const TYPES: [(&str, &str); 3] = [
    ("bill_of_lading", "Bill of lading"),
    ("booking_number", "Booking number"),
    ("container", "Container number"),
];

/// `GET /console/tracking_requests`.
pub async fn list(
    State(state): State<Front>,
    SignedIn(s): SignedIn,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let asked = Asked::from_query(&query);
    render(&state, &s, StatusCode::OK, None, &HashMap::new(), &asked).await
}

/// `GET /console/tracking_requests.csv`: the requests the filters select (every page, up to
/// [`crate::csv::EXPORT_MAX_ROWS`]), newest first, as CSV.
pub async fn export(
    State(state): State<Front>,
    SignedIn(s): SignedIn,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let asked = Asked::from_query(&query).input();
    let mut out = csv::record(&[
        "request_number",
        "request_type",
        "scac",
        "status",
        "failed_reason",
        "ref_numbers",
        "created_at",
        "updated_at",
        "id",
    ]);
    // one database for every page of the export (a replica, or the primary)
    let db = state.ctx.read_db(s.account_id);
    let mut walk = Walk::by_cursor();
    loop {
        let listed = match app::list(db, s.account_id, &asked, &walk.page()).await {
            Ok(l) => l,
            Err(e) => return app_unavailable(e),
        };
        for r in &listed.rows {
            out.push_str(&csv::record(&[
                r.request_number.clone(),
                r.request_type.clone(),
                r.scac.clone().unwrap_or_default(),
                r.status.clone(),
                r.failed_reason.clone().unwrap_or_default(),
                r.ref_numbers.join(" "),
                time::format_micros(r.created_us),
                time::format_micros(r.updated_us),
                r.id.to_string(),
            ]));
        }
        if !walk.advance(&listed.rows, listed.has_next) {
            break;
        }
    }
    csv::download(out, "tracking_requests.csv")
}

/// `POST /console/tracking_requests`.
pub async fn create(State(state): State<Front>, SignedForm(s, f): SignedForm) -> Response {
    let field = |k: &str| {
        f.get(k)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let scac = field("scac").map(|c| c.to_uppercase());
    let input = NewRequest {
        request_number: field("request_number"),
        request_type: field("request_type"),
        // an empty carrier is detected from the number, as the form says
        auto_detect: scac.is_none(),
        scac,
        ..Default::default()
    };
    let account = match accounts::get(&state.ctx, s.account_id).await {
        Ok(Some(a)) => a,
        Ok(None) => return see_other("/console/sign-in"),
        Err(e) => return unavailable(&e),
    };
    let refused = match track(&state.ctx, &account, &input, Default::default()).await {
        Ok(_) => return see_other("/console/tracking_requests"),
        Err(r) => r,
    };
    let (status, text) = match refused {
        Refused::Invalid(errors) => (
            StatusCode::BAD_REQUEST,
            errors
                .iter()
                .map(|e| e.detail.clone())
                .collect::<Vec<_>>()
                .join(" "),
        ),
        Refused::Duplicate(valid) => (
            StatusCode::CONFLICT,
            format!(
                "{} is tracked already (a request for it is pending or created).",
                valid.number
            ),
        ),
        Refused::PlanLimit(limit) => (
            StatusCode::CONFLICT,
            format!(
                "The plan tracks at most {limit} active containers at once: stop tracking a shipment or change the plan."
            ),
        ),
        Refused::Store(e) => return unavailable(&e),
    };
    render(&state, &s, status, Some(&text), &f, &Asked::first_page()).await
}

async fn render(
    state: &Front,
    s: &Session,
    status: StatusCode,
    error: Option<&str>,
    form: &HashMap<String, String>,
    asked: &Asked,
) -> Response {
    // the version before the rows (a change between shows on the next check), one database
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
    let listed = match app::list(db, s.account_id, &asked.input(), &page).await {
        Ok(l) => l,
        Err(e) => return app_unavailable(e),
    };
    let main = html! {
        h1 { "Tracking requests" }
        (track_section(&s.csrf, error, form))
        section aria-labelledby="recent" {
            h2 id="recent" { "Requests, newest first" }
            (filter_form(asked))
            p {
                a href={ "/console/tracking_requests.csv?" (asked.query_for(1)) } download { "Export these requests as CSV" }
            }
            (marker(&version))
            (table(asked, &listed))
        }
    };
    page_with(
        status,
        "Tracking requests",
        signed_in(Place::TrackingRequests, s, main),
        &[],
        &[live::SCRIPT],
    )
}

/// The form that filters the requests, filled with what was asked.
fn filter_form(asked: &Asked) -> Markup {
    let statuses = std::iter::once("").chain(requests::Status::ALL.iter().map(|st| st.as_str()));
    html! {
        form method="get" action="/console/tracking_requests" role="search" {
            label for="filter-q" { "Requests for number or reference" }
            input id="filter-q" name="q" type="text" value=(asked.q);
            label for="filter-status" { "Requests with status" }
            select id="filter-status" name="status" {
                @for v in statuses {
                    option value=(v) selected[v == asked.status] {
                        @if v.is_empty() {
                            "any status"
                        } @else {
                            (v.replace('_', " "))
                        }
                    }
                }
            }
            label for="filter-scac" { "Requests of carrier (SCAC)" }
            input id="filter-scac" name="scac" type="text" maxlength="4" value=(asked.scac);
            " "
            button type="submit" { "Filter" }
            " "
            a href="/console/tracking_requests" { "Clear" }
        }
    }
}

/// The page of requests (the part the live script replaces), with its pager.
fn table(asked: &Asked, listed: &Listed<TrackingRequestRow>) -> Markup {
    html! {
        div id="requests-live" data-live {
            p { (total_text(listed.total, listed.total_exact)) " tracking requests; page " (asked.page) "." }
            table {
                thead {
                    tr {
                        th scope="col" { "Number" }
                        th scope="col" { "Kind" }
                        th scope="col" { "Carrier" }
                        th scope="col" { "Status" }
                        th scope="col" { "Why it failed" }
                        th scope="col" { "Created (UTC)" }
                    }
                }
                tbody {
                    @for r in &listed.rows {
                        tr {
                            td { code { (r.request_number) } }
                            td { (r.request_type.replace('_', " ")) }
                            td { (r.scac.as_deref().unwrap_or(carrier_unknown(&r.status))) }
                            td { (r.status.replace('_', " ")) }
                            td { (r.failed_reason.as_deref().unwrap_or("")) }
                            td { (format_micros(r.created_us)) }
                        }
                    }
                }
            }
            nav aria-label="Pages" {
                (pager("/console/tracking_requests", asked.page, listed.has_next, |n| asked.query_for(n)))
            }
        }
    }
}

/// The form that tracks a number, with what was sent (`form`) and what was wrong with it, if
/// anything.
fn track_section(csrf: &str, error: Option<&str>, form: &HashMap<String, String>) -> Markup {
    let sent = |k: &str| form.get(k).map(String::as_str).unwrap_or_default();
    let chosen = form
        .get("request_type")
        .map(String::as_str)
        .unwrap_or("bill_of_lading");
    let invalid = error.map(|_| "true");
    let described = error.map(|_| "track-error");
    html! {
        section aria-labelledby="track" {
            h2 id="track" { "Track a number" }
            @if let Some(m) = error {
                p class="error" id="track-error" role="alert" { (m) }
            }
            form method="post" action="/console/tracking_requests" {
                input type="hidden" name="csrf" value=(csrf);
                label for="request_number" { "Number" }
                input id="request_number" name="request_number" type="text" required value=(sent("request_number")) aria-invalid=[invalid] aria-describedby=[described];
                label for="request_type" { "Kind of number" }
                select id="request_type" name="request_type" {
                    @for (v, l) in TYPES {
                        option value=(v) selected[v == chosen] { (l) }
                    }
                }
                label for="scac" { "Carrier SCAC (leave empty to detect it from the number)" }
                input id="scac" name="scac" type="text" maxlength="4" value=(sent("scac"));
                " "
                button type="submit" { "Track" }
            }
            p {
                "Sandbox journeys: carrier " code { "TEST" } ", numbers such as " code { "TEST-SCN-IMPORT" } ". Many numbers at once: "
                a href="/console/imports" { "import a CSV file" }
                "."
            }
        }
    }
}

/// This page's routes, each declared with its documentation.
pub(crate) fn routes() -> Mount {
    use crate::pagedoc::{
        csv_file, expired, form, html, not_form, page, query, see_other, unavailable,
    };

    Mount::default()
        .public_get("/console/tracking_requests", self::list, || Doc::from_value({
                let mut op = page(
                    "Tracking requests",
                    "The account's tracking requests, newest first, 50 a page, with their status and why one failed, filtered by `q` (number or reference), `status` and `scac` as the API filters them, and a form to track a number.",
                    ("200", html("The page")),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        ("503", unavailable()),
                    ],
                    None,
                );
                op["parameters"] = query(&[
                    ("q", "string"),
                    ("status", "string"),
                    ("scac", "string"),
                    ("page", "integer"),
                ]);
                op
            }))
        .public_get("/console/tracking_requests.csv", self::export, || Doc::from_value({
                let mut op = page(
                    "Export tracking requests as CSV",
                    "The requests the filters select (`q`, `status`, `scac`), every page up to 50,000 rows, newest first: request_number, request_type, scac, status, failed_reason, ref_numbers, created_at, updated_at, id. Cells a spreadsheet would run as a formula are prefixed with `'`.",
                    ("200", csv_file()),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        ("503", unavailable()),
                    ],
                    None,
                );
                op["parameters"] =
                    query(&[("q", "string"), ("status", "string"), ("scac", "string")]);
                op
            }))
        .public_post("/console/tracking_requests", self::create, || Doc::from_value(page(
                "Track a number",
                "Tracks a number as `POST /v2/tracking_requests` does (the carrier detected from the number when `scac` is empty) and shows the requests again.",
                ("303", see_other("To /console/tracking_requests")),
                vec![
                    (
                        "400",
                        html("The page again, with what is wrong with the number"),
                    ),
                    ("403", expired()),
                    (
                        "409",
                        html(
                            "The number is tracked already, or the plan's container limit is reached",
                        ),
                    ),
                    ("415", not_form()),
                    ("503", unavailable()),
                ],
                Some(form(
                    &[
                        ("request_number", Schema::string()),
                        (
                            "request_type",
                            Schema::string().words(&["bill_of_lading", "booking_number", "container"]),
                        ),
                        ("scac", Schema::string()),
                    ],
                    &["request_number", "request_type"],
                )),
            )))
}

/// What the carrier column says of a request without a SCAC: it is being detected while the
/// request waits, and was not detected once it has ended.
fn carrier_unknown(status: &str) -> &'static str {
    match status {
        "pending" | "awaiting_manifest" => "detecting",
        _ => "not detected",
    }
}

#[cfg(test)]
mod tests {
    use super::carrier_unknown;

    #[test]
    fn a_request_without_a_carrier_is_detecting_only_while_it_waits() {
        assert_eq!(carrier_unknown("pending"), "detecting");
        assert_eq!(carrier_unknown("awaiting_manifest"), "detecting");
        assert_eq!(carrier_unknown("failed"), "not detected");
    }
}
