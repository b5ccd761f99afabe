//! Charges in the console: what a box owes and what each coming day adds (its page), what
//! boxes accrue (the containers table), and the account's exposure (`GET /console/charges`).
//! The figures are `boxtrack_app::charges`' (boxtrack's extension: `pickup_lfd` stays what the
//! sources said).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use boxtrack_app::charges::container::{ContainerCharge, ContainerCharges};
use boxtrack_app::charges::summary::{self, AccruingBox, Ending, GroupTotal, Summary};
use boxtrack_http::Front;
use maud::{Markup, html};

use boxtrack_app::AppError;
use boxtrack_app::charges::audit::{self, AuditOut, CSV_COLUMNS};
use boxtrack_http::doc::Doc;
use boxtrack_http::front::Mount;
use boxtrack_http::schema::Schema;

use crate::common::{SignedForm, SignedIn, app_unavailable, page};
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

fn kind_block(c: &ContainerCharge) -> Markup {
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
            @if !s.totals.is_empty() {
                (totals(&s.by_kind, "Kind"))
                (totals(&s.by_terminal, "Terminal"))
            }
        }
        section aria-labelledby="ending" {
            h2 id="ending" { "Free time ending" }
            (ending("Today", &s.free_time_ends_today))
            (ending("Tomorrow", &s.free_time_ends_tomorrow))
            (ending("In two or three days", &s.free_time_ends_within_3_days))
        }
        section aria-labelledby="accruing" {
            h2 id="accruing" { "Accruing (" (s.accruing_count) ")" }
            p {
                a href="/console/containers?accruing=1" { "These boxes in the containers table" }
                " · "
                a href="/console/charges/audit" { "Audit an invoice" }
            }
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

/// The audit form: a CSV of the invoice, one row per day charged.
fn audit_form(csrf: &str, text: &str) -> Markup {
    html! {
        form method="post" action="/console/charges/audit" {
            input type="hidden" name="csrf" value=(csrf);
            label for="audit-csv" { "The invoice as CSV" }
            textarea id="audit-csv" name="csv" rows="10" cols="80" spellcheck="false" placeholder="container_number,invoice_number,invoice_date,kind,date,rate,amount,total" { (text) }
            " "
            button type="submit" { "Audit" }
        }
        details {
            summary { "Columns" }
            p { "One row per day charged, with its " code { "date" } ", " code { "rate" } " and " code { "amount" } ". The invoice's own values may stand on any row: " }
            p { @for (i, c) in CSV_COLUMNS.iter().enumerate() { @if i > 0 { ", " } code { (c) } } }
            p { "Without " code { "container_id" } " or the box's " code { "scac" } " and " code { "port" } ", the account's tracked container of " code { "container_number" } " is the box. " code { "statements" } " are separated by " code { "|" } "." }
        }
    }
}

/// The findings of an audit, and the computed charge beside the billed one.
fn audit_result(a: &AuditOut) -> Markup {
    html! {
        section aria-labelledby="findings" {
            h2 id="findings" { "Findings (" (a.findings.len()) ")" }
            @if !a.contents_complete {
                p class="error" { "Items 46 CFR 541.6 requires are missing: under 541.5 the billed party need not pay this invoice." }
            }
            @if a.findings.is_empty() {
                p { "None: the invoice states what 541.6 asks for, and bills what the tariff computes." }
            } @else {
                table {
                    thead { tr { th scope="col" { "Line" } th scope="col" { "Date" } th scope="col" { "Rule" } th scope="col" { "What was found" } } }
                    tbody {
                        @for f in &a.findings {
                            tr {
                                td { (f.line.map_or(String::new(), |l| (l + 1).to_string())) }
                                td { (f.date.as_deref().unwrap_or("")) }
                                td { (f.rule) }
                                td { (f.detail) }
                            }
                        }
                    }
                }
            }
            p {
                "Billed: " (a.billed.total.as_deref().unwrap_or("no total")) " (lines add up to " (a.billed.lines_total) " over " (a.billed.days) " days). "
                @match &a.computed {
                    Some(c) => { "Computed by the tariff: " (c.currency) " " (c.amount) " for " (c.chargeable_days) " days, last free day " (c.last_free_day.as_deref().unwrap_or("not reached")) "." }
                    None => { "Not computed: no tariff the account reads prices this box." }
                }
            }
        }
    }
}

/// `GET /console/charges/audit`: the form.
pub async fn audit_page(SignedIn(s): SignedIn) -> Response {
    let main = html! {
        h1 { "Audit an invoice" }
        p { "A demurrage or detention invoice checked against the contents 46 CFR 541.6 requires and, line by line, against the charge the account's tariffs compute (" code { "POST /v2/charges/audits" } ")." }
        (audit_form(&s.csrf, ""))
    };
    page(
        StatusCode::OK,
        "Audit an invoice",
        signed_in(Place::Charges, &s, main),
    )
}

/// `POST /console/charges/audit`: the findings.
pub async fn audit_run(State(state): State<Front>, SignedForm(s, f): SignedForm) -> Response {
    let text = f.get("csv").map_or("", String::as_str);
    let (status, body) = match audit::audit_csv(&state.ctx, s.account_id, text).await {
        Ok(a) => (StatusCode::OK, audit_result(&a)),
        Err(AppError::Rejected(problems)) => (
            StatusCode::BAD_REQUEST,
            html! {
                @for (field, detail) in &problems {
                    p class="error" role="alert" { (field.trim_start_matches('/')) ": " (detail) }
                }
            },
        ),
        Err(AppError::NotFound(what)) => (
            StatusCode::BAD_REQUEST,
            html! { p class="error" role="alert" { "No such " (what) " in this account." } },
        ),
        Err(e) => return app_unavailable(e),
    };
    let main = html! {
        h1 { "Audit an invoice" }
        (body)
        (audit_form(&s.csrf, text))
    };
    page(
        status,
        "Audit an invoice",
        signed_in(Place::Charges, &s, main),
    )
}

pub(crate) fn routes() -> Mount {
    use crate::pagedoc::{expired, form, html, not_form, page, see_other, unavailable};
    Mount::default()
        .public_get("/console/charges/audit", self::audit_page, || {
            Doc::from_value(page(
                "Audit an invoice (CSV)",
                "A form for a demurrage or detention invoice as CSV: the attributes of `POST /v2/charges/audits` as columns, one row per day charged.",
                ("200", html("The form")),
                vec![("303", see_other("To /console/sign-in: no session"))],
                None,
            ))
        })
        .public_post("/console/charges/audit", self::audit_run, || {
            Doc::from_value(page(
                "Audit an invoice's CSV",
                "The invoice checked as `POST /v2/charges/audits` checks it: each item of 46 CFR 541.6 missing, 541.7's thirty days, each line against the tariff's computed charge; the findings as a table. Without `container_id` or the box's `scac` and `port`, the account's tracked container of `container_number` is the box.",
                ("200", html("The findings")),
                vec![
                    ("303", see_other("To /console/sign-in: no session")),
                    ("400", html("The CSV cannot be read, or names no box")),
                    ("403", expired()),
                    ("415", not_form()),
                    ("503", unavailable()),
                ],
                Some(form(
                    &[(
                        "csv",
                        Schema::string().describe("The invoice as CSV"),
                    )],
                    &["csv"],
                )),
            ))
        })
        .public_get(
        "/console/charges",
        self::page_of_exposure,
        || {
            Doc::from_value(page(
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
