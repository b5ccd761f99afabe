//! The page a dispatcher lands on after signing in, `GET /console/action`: what needs action
//! now, in three short tables: boxes on hold, boxes whose free time ends within three days
//! (or has ended) while they wait at the terminal, and boxes arriving this week. Each links to
//! the containers table filtered the same way.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use boxtrack_app::containers::{self, ContainerFilter, ContainerSort, ListContainers};
use boxtrack_app::fields::{AnyOf, Flag, Instant, One, Range};
use boxtrack_app::model::ListSort;
use boxtrack_core::paging::Page;
use boxtrack_core::tracking::rules::ContainerStatus;
use boxtrack_http::Front;
use boxtrack_http::doc::Doc;
use boxtrack_http::front::Mount;
use maud::{Markup, html};

use crate::common::{SignedIn, app_unavailable, page_with};
use crate::containers::rows as container_rows;
use crate::layout::{Place, signed_in};

const DAY_US: i64 = 86_400_000_000;
/// Rows each section shows; the link shows them all.
const SHOWN: u32 = 20;

/// One question of the page.
struct Section {
    /// Its heading.
    title: &'static str,
    /// What an empty answer says.
    none: &'static str,
    /// The containers table's query string that asks the same.
    more: &'static str,
    /// The question.
    ask: ListContainers,
}

/// The page's three questions at `now_us`.
fn sections(now_us: i64) -> [Section; 3] {
    let tracked = || ContainerFilter {
        tracking_stopped: Some(Flag(false)),
        ..ContainerFilter::default()
    };
    let waiting = [
        ContainerStatus::Grounded,
        ContainerStatus::NotAvailable,
        ContainerStatus::Available,
    ];
    [
        Section {
            title: "On hold",
            none: "No box is held.",
            more: "holds=1",
            ask: ListContainers {
                filter: ContainerFilter {
                    on_hold: Some(Flag(true)),
                    ..tracked()
                },
                sort: Some(One(ContainerSort(ListSort::LfdAsc))),
                ..ListContainers::default()
            },
        },
        Section {
            title: "Free time ends within 3 days, or has ended",
            none: "No box at a terminal has its last free day within 3 days.",
            more: "lfd_days=3&sort=pickup_lfd",
            ask: ListContainers {
                filter: ContainerFilter {
                    current_status: Some(AnyOf::of(waiting.to_vec())),
                    pickup_lfd: Range {
                        start: None,
                        end: Some(Instant(now_us + 3 * DAY_US)),
                    },
                    ..tracked()
                },
                sort: Some(One(ContainerSort(ListSort::LfdAsc))),
                ..ListContainers::default()
            },
        },
        Section {
            title: "Arriving this week",
            none: "No box is due at its port of discharge in the next 7 days.",
            more: "eta_days=7&sort=pod_eta_at",
            ask: ListContainers {
                filter: ContainerFilter {
                    current_status: Some(AnyOf::of(vec![
                        ContainerStatus::New,
                        ContainerStatus::OnShip,
                    ])),
                    pod_eta_at: Range {
                        start: Some(Instant(now_us)),
                        end: Some(Instant(now_us + 7 * DAY_US)),
                    },
                    ..tracked()
                },
                sort: Some(One(ContainerSort(ListSort::EtaAsc))),
                ..ListContainers::default()
            },
        },
    ]
}

/// `GET /console/action`.
pub async fn action(State(state): State<Front>, SignedIn(s): SignedIn) -> Response {
    let db = state.ctx.read_db(s.account_id);
    let now = state.ctx.now_us();
    let page = Page {
        number: 1,
        size: SHOWN,
        cursor: None,
    };
    let mut parts = Vec::new();
    for section in sections(now) {
        let found = match containers::list(db, s.account_id, &section.ask, &page).await {
            Ok(found) => found,
            Err(e) => return app_unavailable(e),
        };
        let rows = container_rows(&state, s.account_id, &found, now).await;
        parts.push(section_html(&section, found.listed.total, rows));
    }
    let main = html! {
        h1 { "Needs action" }
        @for part in parts {
            (part)
        }
    };
    page_with(
        StatusCode::OK,
        "Needs action",
        signed_in(Place::Action, &s, main),
        &[],
        &[],
    )
}

/// One question's section: its heading, and its `n` boxes' `rows` in the containers table's
/// columns with a link to all of them there, or what an empty answer says.
fn section_html(section: &Section, n: u64, rows: Markup) -> Markup {
    html! {
        section {
            @if rows.0.is_empty() {
                h2 { (section.title) }
                p { (section.none) }
            } @else {
                h2 { (section.title) " " span class="rel" { (n) } }
                div class="table-wrap" {
                    table {
                        thead {
                            tr {
                                th scope="col" { "Number and references" }
                                th scope="col" { "Status" }
                                th scope="col" { "Ready for pickup" }
                                th scope="col" { "Last free day" }
                                th scope="col" { "Arrival (port, inland) and terminal" }
                                th scope="col" class="hide-narrow" { "Vessel" }
                                th scope="col" { "Holds and fees" }
                                th scope="col" { "Updated (UTC)" }
                                th scope="col" { "Tracked since (UTC)" }
                            }
                        }
                        tbody { (rows) }
                    }
                }
                p {
                    a href={ "/console/containers?" (section.more) } { "All of them in the containers table" }
                }
            }
        }
    }
}

/// This module's page.
pub(crate) fn routes() -> Mount {
    use crate::pagedoc::{html, page, see_other, unavailable};
    Mount::default().public_get("/console/action", self::action, || {
        Doc::from_value(page(
            "What needs action",
            "The page the console opens on after sign-in: the signed-in account's boxes on hold, those whose free time ends within 3 days (or has ended) while they wait at the terminal, and those arriving at their port of discharge within 7 days, 20 of each with a link to the containers table filtered the same way.",
            ("200", html("The page")),
            vec![
                ("303", see_other("To /console/sign-in: no session")),
                ("503", unavailable()),
            ],
            None,
        ))
    })
}
