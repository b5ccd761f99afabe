//! Charges in the console: what a box owes and what each coming day adds (its page), what
//! boxes accrue (the containers table), and the account's exposure (`GET /console/charges`).
//! The figures are `boxtrack_app::charges`' (boxtrack's extension: `pickup_lfd` stays what the
//! sources said).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use boxtrack_app::charges::container::ContainerCharges;
use boxtrack_app::charges::summary::{self, AccruingBox, Ending, GroupTotal, Summary};
use boxtrack_http::Front;
use maud::{Markup, html};

use crate::common::{SignedIn, app_unavailable, page};
use crate::layout::{Place, signed_in};

/// A kind's name as a person reads it.
fn kind_name(kind: &str) -> &str {
    match kind {
        "demurrage" => "Demurrage",
        "storage" => "Storage",
        "detention" => "Detention",
        "combined" => "Demurrage and detention",
        other => other,
    }
}

/// The box's charges on its page: for each kind, its tariff's issuer, the calculated last
/// free day (beside the reported one when they differ), the days charged and the amount, the
/// excused days, and what each of the next days adds while it stays.
pub(crate) fn container_section(charges: Option<&ContainerCharges>) -> Markup {
    let Some(ch) = charges else {
        return html! { p { "Not counted: the box's shipment is not known." } };
    };
    html! {
        @if ch.charges.is_empty() {
            p { "No tariff prices this box yet. Load one (" code { "POST /v2/tariffs" } " or " code { "boxtrack tariffs import" } ") for its line, port and equipment." }
        }
        @for c in &ch.charges {
            (kind_block(c))
        }
        @if !ch.missing.is_empty() {
            details {
                summary { "Not counted (" (ch.missing.len()) ")" }
                ul {
                    @for m in &ch.missing {
                        li { (kind_name(&m.kind)) ": " (m.reason) }
                    }
                }
            }
        }
        p class="muted" { "Counted as of " (ch.as_of.strftime("%Y-%m-%d %H:%M UTC")) " on the clock of this box's data, in local dates at the port." }
    }
}

fn kind_block(c: &boxtrack_app::charges::container::ContainerCharge) -> Markup {
    let ch = &c.charge;
    let differs = c
        .reported_last_free_day
        .as_ref()
        .filter(|r| Some(&r.date) != ch.last_free_day.as_ref());
    html! {
        h3 { (kind_name(&ch.kind)) " · " (ch.issuer) }
        dl class="facts" {
            dt { "Owed" }
            dd { strong { (ch.currency) " " (ch.amount) } " for " (ch.chargeable_days) " day" @if ch.chargeable_days != 1 { "s" } }
            dt { "Last free day (calculated)" }
            dd { (ch.last_free_day.as_deref().unwrap_or("not yet: the clock has not started")) }
            @if let Some(r) = differs {
                dt { "Last free day (reported by the " (r.source) ")" }
                dd {
                    (r.date)
                    @if let Some(d) = c.last_free_day_difference_days {
                        " — the tariff gives " (d.abs()) " day" @if d.abs() != 1 { "s" } " " (if d > 0 { "more" } else { "less" })
                    }
                }
            }
            @if let Some(end) = &ch.ended_on {
                dt { "Clock stopped" }
                dd { (end) }
            }
        }
        @if !ch.excused.is_empty() {
            p { "Excused: "
                @for (i, e) in ch.excused.iter().enumerate() {
                    @if i > 0 { ", " }
                    (e.date) " (" (e.reason) ")"
                }
            }
        }
        @if !c.coming.is_empty() {
            table {
                caption { "What each coming day adds while the box stays" }
                thead { tr { th scope="col" { "Day" } th scope="col" { "Adds" } th scope="col" { "Total" } } }
                tbody {
                    @for d in &c.coming {
                        tr {
                            td { (d.date) }
                            td class="num" { (d.adds) }
                            td class="num" { (d.total) }
                        }
                    }
                }
            }
        }
    }
}

/// What a box of the containers table accrues, kind by kind (nothing when none does).
pub(crate) fn accruing_cell(accruing: Option<&Vec<AccruingBox>>) -> Markup {
    html! {
        @for a in accruing.into_iter().flatten() {
            div class="lfd-past" {
                (kind_name(&a.kind)) ": " (a.currency) " " (a.accrued) ", +" (a.tomorrow_adds) " tomorrow"
            }
        }
    }
}

fn totals(rows: &[GroupTotal], what: &str) -> Markup {
    html! {
        table {
            thead {
                tr {
                    th scope="col" { (what) }
                    th scope="col" { "Currency" }
                    th scope="col" { "Boxes" }
                    th scope="col" { "Accrued" }
                    th scope="col" { "Tomorrow adds" }
                }
            }
            tbody {
                @for g in rows {
                    tr {
                        td { (g.key.as_deref().map_or("not known", kind_name)) }
                        td { (g.total.currency) }
                        td class="num" { (g.total.boxes) }
                        td class="num" { (g.total.accrued) }
                        td class="num" { (g.total.tomorrow_adds) }
                    }
                }
            }
        }
    }
}

fn ending(title: &str, e: &Ending) -> Markup {
    html! {
        h3 { (title) " (" (e.count) ")" }
        @if e.boxes.is_empty() {
            p { "None." }
        } @else {
            ul {
                @for b in &e.boxes {
                    li {
                        a href={ "/console/containers/" (b.container_id) } { code { (b.number) } }
                        " · " (kind_name(&b.kind)) " · last free day " (b.last_free_day)
                        @if let Some(t) = &b.terminal { " · " (t) }
                    }
                }
            }
        }
    }
}

fn exposure(s: &Summary) -> Markup {
    html! {
        h1 { "Charges" }
        p { "What the account's " (s.boxes) " tracked boxes owe by the tariffs it reads (" (s.priced) " of them priced), each counted on the clock of its own data. Load tariffs with " code { "POST /v2/tariffs" } " or " code { "boxtrack tariffs import" } "; see " a href="/console/reference" { "the API reference" } "." }
        section aria-labelledby="totals" {
            h2 id="totals" { "Exposure" }
            @if s.totals.is_empty() {
                p { "Nothing is owed." }
            }
            @for t in &s.totals {
                p { strong { (t.currency) " " (t.accrued) } " accrued over " (t.boxes) " boxes; tomorrow adds " (t.currency) " " (t.tomorrow_adds) "." }
            }
            (totals(&s.by_kind, "Kind"))
            (totals(&s.by_terminal, "Terminal"))
        }
        section aria-labelledby="ending" {
            h2 id="ending" { "Free time ending" }
            (ending("Today", &s.free_time_ends_today))
            (ending("Tomorrow", &s.free_time_ends_tomorrow))
            (ending("In two or three days", &s.free_time_ends_within_3_days))
        }
        section aria-labelledby="accruing" {
            h2 id="accruing" { "Accruing (" (s.accruing_count) ")" }
            p { a href="/console/containers?accruing=1" { "These boxes in the containers table" } }
            @if !s.accruing.is_empty() {
                table {
                    thead { tr { th scope="col" { "Container" } th scope="col" { "Kind" } th scope="col" { "Accrued" } th scope="col" { "Tomorrow adds" } th scope="col" { "Terminal" } } }
                    tbody {
                        @for a in &s.accruing {
                            tr {
                                td { a href={ "/console/containers/" (a.container_id) } { code { (a.number) } } }
                                td { (kind_name(&a.kind)) }
                                td class="num" { (a.currency) " " (a.accrued) }
                                td class="num" { (a.tomorrow_adds) }
                                td { (a.terminal.as_deref().unwrap_or("")) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `GET /console/charges`: the account's exposure.
pub async fn page_of_exposure(State(state): State<Front>, SignedIn(s): SignedIn) -> Response {
    match summary::summary(&state.ctx, s.account_id).await {
        Ok(sum) => page(
            StatusCode::OK,
            "Charges",
            signed_in(Place::Charges, &s, exposure(&sum)),
        ),
        Err(e) => app_unavailable(e),
    }
}

pub(crate) fn routes() -> boxtrack_http::front::Mount {
    use crate::pagedoc::{html, page, see_other, unavailable};
    boxtrack_http::front::Mount::default().public_get(
        "/console/charges",
        self::page_of_exposure,
        || {
            boxtrack_http::doc::Doc::from_value(page(
                "The account's charges",
                "What the signed-in account's tracked boxes owe by the tariffs it reads (demurrage, storage, detention), each on its own data's clock: accrued and what tomorrow adds per currency, kind and terminal; the free times ending today, tomorrow, in two or three days; the boxes accruing. The figures of `GET /v2/charges/summary`.",
                ("200", html("The page")),
                vec![
                    ("303", see_other("To /console/sign-in: no session")),
                    ("503", unavailable()),
                ],
                None,
            ))
        },
    )
}
