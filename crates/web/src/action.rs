//! The page a dispatcher lands on after signing in, `GET /console/action`: what needs action
//! now, in three short tables: boxes on hold, boxes whose free time ends within three days
//! (or has ended) while they wait at the terminal, and boxes arriving this week. Each links to
//! the containers table filtered the same way.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use boxtrack_app::containers::{self, ContainerFilter, ContainerSort, ListContainers};
use boxtrack_app::fields::{AnyOf, Flag, Instant, One, Range};
use boxtrack_core::paging::Page;
use boxtrack_core::tracking::rules::ContainerStatus;
use boxtrack_http::Front;
use boxtrack_http::html::esc;
use boxtrack_store::now_us;
use boxtrack_store::reads::{self, ListSort};

use crate::common::{SignedIn, app_unavailable, page_with};

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
    let now = now_us();
    let page = Page {
        number: 1,
        size: SHOWN,
        cursor: None,
    };
    let mut body = String::new();
    for section in sections(now) {
        let found =
            match containers::list::<reads::ContainerRow>(db, s.account_id, &section.ask, &page)
                .await
            {
                Ok(found) => found,
                Err(e) => return app_unavailable(e),
            };
        let rows = crate::containers::rows(&state, s.account_id, &found, now).await;
        let n = found.listed.total;
        body.push_str(&if rows.is_empty() {
            format!(
                r#"<section><h2>{title}</h2><p>{none}</p></section>"#,
                title = esc(section.title),
                none = esc(section.none)
            )
        } else {
            format!(
                r#"<section><h2>{title} <span class="rel">{n}</span></h2>
<div class="table-wrap"><table><thead><tr><th scope="col">Number and references</th><th scope="col">Status</th><th scope="col">Ready for pickup</th><th scope="col">Last free day</th><th scope="col">Arrival (port, inland) and terminal</th><th scope="col" class="hide-narrow">Vessel</th><th scope="col">Holds and fees</th><th scope="col">Updated (UTC)</th><th scope="col">Tracked since (UTC)</th></tr></thead><tbody>{rows}</tbody></table></div>
<p><a href="/console/containers?{more}">All of them in the containers table</a></p></section>"#,
                title = esc(section.title),
                more = esc(section.more),
            )
        });
    }
    let html = format!(
        r#"<header><p><strong>boxtrack</strong> console · Needs action · <a href="/console">Account</a> · <a href="/console/shipments">Shipments</a> · <a href="/console/containers">Containers</a> · <a href="/console/tracking_requests">Tracking requests</a> · <a href="/console/webhooks">Webhooks</a> · <a href="/console/sources">Sources</a> · <a href="/console/reference">API reference</a></p><p>{email}</p></header>
<main><h1>Needs action</h1>{body}</main>"#,
        email = esc(&s.email),
    );
    page_with(StatusCode::OK, "Needs action", &html, &[], &[])
}

/// This module's page.
pub(crate) fn routes() -> boxtrack_http::front::Mount {
    use crate::pagedoc::{html, page, see_other, unavailable};
    boxtrack_http::front::Mount::default().public_get("/console/action", self::action, || {
        boxtrack_http::doc::Doc::from_value(page(
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
