//! The operations page for webhooks: `GET /console/webhooks` (the account's webhooks and a
//! form for a new one), `GET /console/webhooks/{id}` (its settings, a test delivery, and its
//! newest notifications with every attempt's time, response code, duration and error), and
//! the forms behind them: create, edit (URL, on or off, events), send a test, redeliver one
//! notification (a new notification of the same event, as `replay` makes them).

use std::collections::HashMap;

use axum::extract::{Form, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use boxtrack_app::model::{NotificationRow, Session, WebhookRow};
use boxtrack_app::webhooks::{AttemptRow, NotificationFilter};
use boxtrack_core::paging::Page;
use boxtrack_core::time::format_micros;
use boxtrack_core::webhooks::{self as rules, EVENTS};
use boxtrack_http::{Front, schema};
use maud::{Markup, html};
use uuid::Uuid;

use boxtrack_app::{AppError, sample, webhooks as app};
use boxtrack_http::doc::Doc;
use boxtrack_http::front::Mount;

use crate::common::{
    self, SignedForm, SignedIn, app_unavailable, page, page_with, see_other, session, signed_form,
    unavailable,
};
use crate::layout::{Place, signed_in};
use crate::live::{self, marker_at};
use crate::pagedoc::{self, Problem, Version};

/// The page for a webhook that is not the account's.
fn missing() -> Response {
    page(
        StatusCode::NOT_FOUND,
        "No such webhook",
        html! {
            main {
                h1 { "No such webhook" }
                p { a href="/console/webhooks" { "Back to the webhooks" } }
            }
        },
    )
}

/// `GET /console/webhooks`.
pub async fn list(State(state): State<Front>, SignedIn(s): SignedIn) -> Response {
    render_list(&state, &s, StatusCode::OK, None, "").await
}

async fn render_list(
    state: &Front,
    s: &Session,
    status: StatusCode,
    error: Option<&str>,
    url: &str,
) -> Response {
    let listed = match app::list(&state.ctx, s.account_id, &Page::first(100)).await {
        Ok(l) => l,
        Err(e) => return common::app_unavailable(e),
    };
    let main = html! {
        h1 { "Webhooks" }
        table {
            thead {
                tr {
                    th scope="col" { "URL" }
                    th scope="col" { "State" }
                    th scope="col" { "Events" }
                    th scope="col" { "Failures in a row" }
                    th scope="col" { "Created (UTC)" }
                }
            }
            tbody {
                @for w in &listed.rows {
                    tr {
                        td { a href={ "/console/webhooks/" (w.id) } { (w.url) } }
                        td { (if w.active { "on" } else { "off" }) }
                        td { (w.events.len()) " of " (EVENTS.len()) }
                        td { (w.consecutive_failures) }
                        td { (format_micros(w.created_us)) }
                    }
                }
            }
        }
        section aria-labelledby="new" {
            h2 id="new" { "A new webhook" }
            @if let Some(e) = error {
                p class="error" role="alert" id="webhook-error" { (e) }
            }
            form method="post" action="/console/webhooks" {
                input type="hidden" name="csrf" value=(s.csrf);
                label for="webhook-url" { "URL (https)" }
                input id="webhook-url" name="url" type="text" value=(url) required;
                p { "It receives every event (" (EVENTS.len()) " kinds; the API can subscribe to fewer). Its signing secret is shown on its page." }
                button type="submit" { "Create the webhook" }
            }
        }
    };
    page(status, "Webhooks", signed_in(Place::Webhooks, s, main))
}

/// `POST /console/webhooks`.
pub async fn create(State(state): State<Front>, SignedForm(s, f): SignedForm) -> Response {
    let raw = f.get("url").map_or("", String::as_str);
    // every event; the API can subscribe to fewer
    let asked = app::WebhookIn {
        url: Some(raw.to_string()),
        ..app::WebhookIn::default()
    };
    match app::create(&state.ctx, s.account_id, &asked).await {
        Ok(w) => see_other(&format!("/console/webhooks/{}", w.id)),
        Err(AppError::Unprocessable { detail, .. }) => {
            render_list(&state, &s, StatusCode::BAD_REQUEST, Some(&detail), raw).await
        }
        Err(e) => app_unavailable(e),
    }
}

/// `GET /console/webhooks/{id}`.
pub async fn show(
    State(state): State<Front>,
    SignedIn(s): SignedIn,
    Path(id): Path<String>,
) -> Response {
    let Ok(id) = id.parse::<Uuid>() else {
        return missing();
    };
    render_one(&state, &s, id, StatusCode::OK, html! {}).await
}

/// What changes when the webhook's page would: its settings and its newest notifications'
/// states and attempts.
fn version_of<'a>(w: &WebhookRow, rows: impl IntoIterator<Item = &'a NotificationRow>) -> String {
    let mut v = format!("{}:{}", w.updated_us, w.consecutive_failures);
    for n in rows {
        v.push_str(&format!("|{}:{}:{}", n.id, n.delivery_status, n.attempts));
    }
    v
}

/// The notifications a webhook's page shows, newest first.
const NEWEST: u32 = 30;

/// `GET /console/webhooks/{id}/version`: `{"version": …}`, which changes when the page would.
pub async fn version(
    State(state): State<Front>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    use axum::response::IntoResponse;
    let Some((_, s)) = session(&state, &headers).await else {
        return (StatusCode::UNAUTHORIZED, Problem::says("signed out")).into_response();
    };
    let Ok(id) = id.parse::<Uuid>() else {
        return missing();
    };
    let w = match app::get(&state.ctx, s.account_id, id).await {
        Ok(Some(w)) => w,
        Ok(None) => return missing(),
        Err(e) => return common::app_unavailable(e),
    };
    let of_webhook = NotificationFilter {
        webhook_id: Some(id),
        ..Default::default()
    };
    match app::notifications(&state.ctx, s.account_id, &of_webhook, &Page::first(NEWEST)).await {
        Ok(listed) => axum::Json(Version {
            version: version_of(&w, &listed.rows),
        })
        .into_response(),
        Err(e) => common::app_unavailable(e),
    }
}

async fn render_one(
    state: &Front,
    s: &Session,
    id: Uuid,
    status: StatusCode,
    notice: Markup,
) -> Response {
    let w = match app::get(&state.ctx, s.account_id, id).await {
        Ok(Some(w)) => w,
        Ok(None) => return missing(),
        Err(e) => return common::app_unavailable(e),
    };
    let listed = match app::newest(&state.ctx, s.account_id, w.id, NEWEST).await {
        Ok(l) => l,
        Err(e) => return common::app_unavailable(e),
    };
    let version = version_of(&w, listed.iter().map(|(n, _)| n));
    let main = html! {
        h1 { "Webhook" }
        (notice)
        (facts(&w, &state.ctx.policy.webhook_signature_header))
        (settings_form(&w, &s.csrf))
        (test_form(w.id, &s.csrf))
        (sent_section(w.id, &version, &listed, &s.csrf))
    };
    page_with(
        status,
        "Webhook",
        signed_in(Place::Elsewhere, s, main),
        &[],
        &[live::SCRIPT],
    )
}

/// What the webhook is: its URL, state, events and signing secret.
fn facts(w: &WebhookRow, signature_header: &str) -> Markup {
    html! {
        dl {
            dt { "URL" }
            dd { code { (w.url) } }
            dt { "State" }
            dd {
                (if w.active { "on" } else { "off" })
                @if let Some(why) = &w.deactivated_reason {
                    " (" (why) ")"
                }
            }
            dt { "Events" }
            dd { (w.events.len()) " of " (EVENTS.len()) }
            dt { "Signing secret" }
            dd {
                code class="secret" { (w.secret) }
                " (header " code { (signature_header) } "; see the API reference for how to check it)"
            }
        }
    }
}

/// The form that changes its URL, state and events.
fn settings_form(w: &WebhookRow, csrf: &str) -> Markup {
    html! {
        section aria-labelledby="edit" {
            h2 id="edit" { "Settings" }
            form method="post" action={ "/console/webhooks/" (w.id) } {
                input type="hidden" name="csrf" value=(csrf);
                label for="webhook-url" { "URL (https)" }
                input id="webhook-url" name="url" type="text" value=(w.url) required;
                label {
                    input name="active" type="checkbox" value="1" checked[w.active];
                    " On (deliveries are sent)"
                }
                input type="hidden" name="events_shown" value="1";
                (event_boxes(&w.events))
                button type="submit" { "Save" }
            }
        }
    }
}

/// The form that sends it a test delivery of a chosen event.
fn test_form(id: Uuid, csrf: &str) -> Markup {
    html! {
        section aria-labelledby="test" {
            h2 id="test" { "Send a test" }
            form method="post" action={ "/console/webhooks/" (id) "/test" } {
                input type="hidden" name="csrf" value=(csrf);
                label for="test-event" { "Event" }
                select id="test-event" name="event" {
                    @for e in EVENTS {
                        option value=(e) selected[e == "container.transport.vessel_arrived"] { (e) }
                    }
                }
                " "
                button type="submit" { "Send a test delivery" }
            }
        }
    }
}

/// Its newest notifications with their attempts, kept current by the live script.
fn sent_section(
    id: Uuid,
    version: &str,
    listed: &[(NotificationRow, Vec<AttemptRow>)],
    csrf: &str,
) -> Markup {
    html! {
        section aria-labelledby="sent" {
            h2 id="sent" { "Newest notifications" }
            (marker_at(version, &format!("/console/webhooks/{id}/version")))
            div id="notifications-live" data-live {
                table {
                    thead {
                        tr {
                            th scope="col" { "Event" }
                            th scope="col" { "Status" }
                            th scope="col" { "Attempts" }
                            th scope="col" { "Created (UTC)" }
                            th scope="col" {}
                        }
                    }
                    tbody {
                        @for (n, attempts) in listed {
                            (notification_row(id, n, attempts, csrf))
                        }
                    }
                }
            }
        }
    }
}

/// A notification's row: its event, state, attempts (each with its time, answer, duration,
/// error and the body received), when it was made, and a button that redelivers it.
fn notification_row(
    webhook: Uuid,
    n: &NotificationRow,
    attempts: &[AttemptRow],
    csrf: &str,
) -> Markup {
    let created = format_micros(n.created_us);
    html! {
        tr {
            td { (n.event) }
            td { (n.delivery_status) }
            td {
                (n.attempts)
                @if !attempts.is_empty() {
                    details {
                        summary { "attempts" }
                        ol {
                            @for a in attempts {
                                li {
                                    (format_micros(a.attempted_us))
                                    " · "
                                    (a.status_code.map_or("no answer".to_string(), |c| format!("HTTP {c}")))
                                    " · "
                                    (a.duration_ms)
                                    " ms"
                                    @if let Some(e) = &a.error {
                                        " · " (e)
                                    }
                                    @if let Some(b) = &a.response_body {
                                        br;
                                        "Answered: "
                                        pre class="answer" { (b) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            td { (created) }
            td {
                form method="post" action={ "/console/webhooks/" (webhook) "/notifications/" (n.id) "/redeliver" } {
                    input type="hidden" name="csrf" value=(csrf);
                    button type="submit" aria-label={ "Redeliver " (n.event) " of " (created) } { "Redeliver" }
                }
            }
        }
    }
}

/// The events a webhook subscribes to, as checkboxes grouped by the catalog's categories,
/// each with its description.
fn event_boxes(subscribed: &[String]) -> Markup {
    html! {
        @for (category, name) in rules::CATEGORIES {
            fieldset {
                legend { (name) }
                @for e in rules::all_events().filter(|e| rules::category(e) == category) {
                    label class="event" {
                        input name="events" type="checkbox" value=(e) checked[subscribed.iter().any(|s| s == e)];
                        " "
                        code { (e) }
                        " "
                        span { (rules::describe(e)) }
                    }
                }
            }
        }
    }
}

/// `POST /console/webhooks/{id}`: changes the URL, whether deliveries are sent, and, from the
/// page's form (`events_shown`), the events it subscribes to (at least one).
pub async fn update(
    State(state): State<Front>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Response {
    let f: HashMap<String, String> = pairs.iter().cloned().collect();
    let (_, s) = match signed_form(&state, &headers, &f).await {
        Ok(x) => x,
        Err(answer) => return answer,
    };
    let Ok(id) = id.parse::<Uuid>() else {
        return missing();
    };
    // the events, when the form showed them: the ones checked
    let events = f.contains_key("events_shown").then(|| {
        pairs
            .iter()
            .filter(|(k, _)| k == "events")
            .map(|(_, v)| v.clone())
            .collect()
    });
    let asked = app::WebhookIn {
        url: Some(f.get("url").cloned().unwrap_or_default()),
        active: Some(f.get("active").is_some_and(|v| v == "1")),
        events,
        headers: None,
    };
    let why = match app::update(&state.ctx, s.account_id, id, &asked).await {
        Ok(_) => return see_other(&format!("/console/webhooks/{id}")),
        Err(e) if e.is_not_found() => return missing(),
        Err(AppError::Unprocessable {
            field: "events",
            code: "blank",
            ..
        }) => "Choose at least one event (or switch the webhook off).".to_string(),
        Err(AppError::Unprocessable { detail, .. }) => detail,
        Err(e) => return app_unavailable(e),
    };
    let refused = html! { p class="error" role="alert" { (why) } };
    render_one(&state, &s, id, StatusCode::BAD_REQUEST, refused).await
}

/// `POST /console/webhooks/{id}/test`: sends one sample delivery of the chosen event to the
/// webhook's URL, signed with its secret, and shows what came back.
pub async fn test(
    State(state): State<Front>,
    Path(id): Path<String>,
    SignedForm(s, f): SignedForm,
) -> Response {
    let Ok(id) = id.parse::<Uuid>() else {
        return missing();
    };
    let w = match app::get(&state.ctx, s.account_id, id).await {
        Ok(Some(w)) => w,
        Ok(None) => return missing(),
        Err(e) => return common::app_unavailable(e),
    };
    let event = f.get("event").map_or("", String::as_str);
    if !EVENTS.contains(&event) {
        let notice = html! { p class="error" role="alert" { "Choose one of the listed events." } };
        return render_one(&state, &s, id, StatusCode::BAD_REQUEST, notice).await;
    }
    let sent = match sample::send(&state.ctx, &w.url, event, Some(&w.secret), &w.headers).await {
        Ok((_, sent)) => sent,
        Err(_) => {
            let notice = html! {
                p class="error" role="alert" { "The sample delivery could not be built; try again in a moment." }
            };
            return render_one(&state, &s, id, StatusCode::SERVICE_UNAVAILABLE, notice).await;
        }
    };
    let notice = html! {
        section aria-labelledby="result" {
            h2 id="result" { "Test delivery" }
            p role="status" id="test-result" {
                (if sent.succeeded { "Delivered" } else { "Not delivered" })
                ": "
                (sent.status_code.map_or("no answer".to_string(), |c| format!("HTTP {c}")))
                " in " (sent.duration_ms) " ms"
                @if let Some(e) = &sent.error {
                    " (" (e) ")"
                }
                "."
            }
            @if let Some(b) = &sent.response_body {
                details {
                    summary { "Response body" }
                    pre { (b) }
                }
            }
        }
    };
    render_one(&state, &s, id, StatusCode::OK, notice).await
}

/// `POST /console/webhooks/{id}/notifications/{nid}/redeliver`: a new notification of the
/// same event for this webhook (its `replay_of` names the first), delivered as any other.
pub async fn redeliver(
    State(state): State<Front>,
    Path((id, nid)): Path<(String, String)>,
    SignedForm(s, _): SignedForm,
) -> Response {
    let (Ok(id), Ok(nid)) = (id.parse::<Uuid>(), nid.parse::<Uuid>()) else {
        return missing();
    };
    let n = match app::notification(&state.ctx, s.account_id, nid).await {
        Ok(Some((n, _))) if n.webhook_id == id => n,
        Ok(_) => return missing(),
        Err(e) => return unavailable(&e),
    };
    match app::replay(
        &state.ctx,
        s.account_id,
        id,
        std::slice::from_ref(&n.event),
        n.seq - 1,
        0,
        1,
    )
    .await
    {
        Ok(_) => see_other(&format!("/console/webhooks/{id}")),
        Err(e) => common::app_unavailable(e),
    }
}

/// The OpenAPI operations of this module's console routes (collected by
/// [`crate::operations`]).
pub(crate) fn routes() -> Mount {
    routes_1().merge(routes_2())
}

/// The webhook list and one webhook's page, each declared with its documentation.
fn routes_1() -> Mount {
    use crate::pagedoc::{expired, form, html, not_form, page, see_other, unavailable};
    use boxtrack_http::schema::Schema;

    Mount::default()
        .public_get("/console/webhooks", self::list, || Doc::from_value(page(
                "Webhooks",
                "The account's webhooks (URL, on or off, events, failures in a row) and a form for a new one that receives every event.",
                ("200", html("The page")),
                vec![
                    ("303", see_other("To /console/sign-in: no session")),
                    ("503", unavailable()),
                ],
                None,
            )))
        .public_post("/console/webhooks", self::create, || Doc::from_value(page(
                "Create a webhook",
                "A webhook for every event at the URL (checked as `POST /v2/webhooks` checks it), with a new signing secret; then its page.",
                ("303", see_other("To the webhook's page")),
                vec![
                    ("400", html("The URL is refused; nothing was created")),
                    ("403", expired()),
                    ("415", not_form()),
                    ("503", unavailable()),
                ],
                Some(form(&[("url", schema::Schema::string())], &["url"])),
            )))
        .public_get("/console/webhooks/{id}", self::show, || Doc::from_value({
                let mut op = page(
                    "A webhook",
                    "Its settings and signing secret, a test delivery, and its 30 newest notifications with every attempt's time, response code, duration and error, each with a button that redelivers it.",
                    ("200", html("The page")),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        ("404", html("No such webhook in this account")),
                        ("503", unavailable()),
                    ],
                    None,
                );
                op["parameters"] = pagedoc::path_ids(&["id"]);
                op
            }))
        .public_post("/console/webhooks/{id}", self::update, || Doc::from_value({
                let mut op = page(
                    "Change a webhook",
                    "Its URL (checked as the API checks it), whether deliveries are sent, and, when `events_shown` is sent (the page's form sends it), the events it subscribes to: every `events` field, at least one, each an event of the catalog.",
                    ("303", see_other("To the webhook's page")),
                    vec![
                        (
                            "400",
                            html("The URL or the events are refused; nothing changed"),
                        ),
                        ("403", expired()),
                        ("404", html("No such webhook in this account")),
                        ("415", not_form()),
                        ("503", unavailable()),
                    ],
                    Some(form(
                        &[
                            ("url", Schema::string()),
                            ("active", Schema::string().words(&["1"])),
                            ("events_shown", Schema::string().words(&["1"])),
                            (
                                "events",
                                Schema::array(
                                    Schema::string().words(&rules::all_events().collect::<Vec<_>>()),
                                ),
                            ),
                        ],
                        &["url"],
                    )),
                );
                op["parameters"] = pagedoc::path_ids(&["id"]);
                op
            }))
}

/// A webhook's test, version and redelivery, each declared with its documentation.
fn routes_2() -> Mount {
    use crate::pagedoc::{expired, form, html, not_form, page, see_other, unavailable};

    Mount::default()
        .public_get("/console/webhooks/{id}/version", self::version, || Doc::from_value({
                let mut op = page(
                    "Whether a webhook's page changed",
                    "A version that changes when the webhook's page would (its settings, its newest notifications' states and attempts); the page asks every 5 seconds.",
                    (
                        "200",
                        pagedoc::version_answer(),
                    ),
                    vec![
                        (
                            "401",
                            pagedoc::problem("No session"),
                        ),
                        ("404", html("No such webhook in this account")),
                        ("503", unavailable()),
                    ],
                    None,
                );
                op["parameters"] = pagedoc::path_ids(&["id"]);
                op
            }))
        .public_post("/console/webhooks/{id}/test", self::test, || Doc::from_value({
                let mut op = page(
                    "Send a test delivery",
                    "One sample delivery of the chosen event (a sandbox journey's notification) to the webhook's URL, signed with its secret; the page shows the response code, time and body. Nothing is stored.",
                    ("200", html("The webhook's page with the result")),
                    vec![
                        ("400", html("Not an event")),
                        ("403", expired()),
                        ("404", html("No such webhook in this account")),
                        ("415", not_form()),
                        ("503", unavailable()),
                    ],
                    Some(form(&[("event", schema::Schema::string())], &["event"])),
                );
                op["parameters"] = pagedoc::path_ids(&["id"]);
                op
            }))
        .public_post("/console/webhooks/{id}/notifications/{nid}/redeliver", self::redeliver, || Doc::from_value({
                let mut op = page(
                    "Redeliver a notification",
                    "A new notification of the same event for this webhook (its `replay_of` names the first), delivered as any other.",
                    ("303", see_other("To the webhook's page")),
                    vec![
                        ("403", expired()),
                        (
                            "404",
                            html("No such webhook or notification in this account"),
                        ),
                        ("415", not_form()),
                        ("503", unavailable()),
                    ],
                    Some(form(&[], &[])),
                );
                op["parameters"] = pagedoc::path_ids(&["id", "nid"]);
                op
            }))
}
