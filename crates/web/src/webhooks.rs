//! The operations page for webhooks: `GET /console/webhooks` (the account's webhooks and a
//! form for a new one), `GET /console/webhooks/{id}` (its settings, a test delivery, and its
//! newest notifications with every attempt's time, response code, duration and error), and
//! the forms behind them: create, edit (URL, on or off, events), send a test, redeliver one
//! notification (a new notification of the same event, as `replay` makes them).

use std::collections::HashMap;

use axum::extract::{Form, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use boxtrack_core::paging::Page;
use boxtrack_core::time::format_micros;
use boxtrack_core::webhooks::{self as rules, EVENTS};
use boxtrack_http::Front;
use boxtrack_http::html::esc;
use boxtrack_store::{StoreError, notifications, webhooks};
use uuid::Uuid;

use boxtrack_app::webhooks as app;

use crate::common::{
    SignedForm, SignedIn, app_unavailable, page, page_with, see_other, session, signed_form,
    unavailable,
};

fn nav(email: &str) -> String {
    format!(
        r#"<header><p><strong>boxtrack</strong> console · <a href="/console/action">Needs action</a> · <a href="/console">Account</a> · <a href="/console/shipments">Shipments</a> · <a href="/console/containers">Containers</a> · <a href="/console/tracking_requests">Tracking requests</a> · <a href="/console/webhooks">Webhooks</a> · <a href="/console/sources">Sources</a> · <a href="/console/reference">API reference</a></p><p>{}</p></header>"#,
        esc(email)
    )
}

fn missing() -> Response {
    page(
        StatusCode::NOT_FOUND,
        "No such webhook",
        r#"<main><h1>No such webhook</h1><p><a href="/console/webhooks">Back to the webhooks</a></p></main>"#,
    )
}

/// `GET /console/webhooks`.
pub async fn list(State(state): State<Front>, SignedIn(s): SignedIn) -> Response {
    render_list(&state, &s, StatusCode::OK, None, "").await
}

async fn render_list(
    state: &Front,
    s: &boxtrack_store::sessions::Session,
    status: StatusCode,
    error: Option<&str>,
    url: &str,
) -> Response {
    let listed = match app::list(&state.ctx, s.account_id, &Page::first(100)).await {
        Ok(l) => l,
        Err(e) => return crate::common::app_unavailable(e),
    };
    let rows: String = listed
        .rows
        .iter()
        .map(|w| {
            format!(
                r#"<tr><td><a href="/console/webhooks/{id}">{url}</a></td><td>{on}</td><td>{n} of {all}</td><td>{fails}</td><td>{created}</td></tr>"#,
                id = w.id,
                url = esc(&w.url),
                on = if w.active { "on" } else { "off" },
                n = w.events.0.len(),
                all = EVENTS.len(),
                fails = w.consecutive_failures,
                created = esc(&format_micros(w.created_us)),
            )
        })
        .collect();
    let err = error.map_or(String::new(), |e| {
        format!(
            r#"<p class="error" role="alert" id="webhook-error">{}</p>"#,
            esc(e)
        )
    });
    let body = format!(
        r#"{nav}<main><h1>Webhooks</h1>
<table><thead><tr><th scope="col">URL</th><th scope="col">State</th><th scope="col">Events</th><th scope="col">Failures in a row</th><th scope="col">Created (UTC)</th></tr></thead><tbody>{rows}</tbody></table>
<section aria-labelledby="new"><h2 id="new">A new webhook</h2>{err}
<form method="post" action="/console/webhooks"><input type="hidden" name="csrf" value="{csrf}">
<label for="webhook-url">URL (https)</label><input id="webhook-url" name="url" type="text" value="{url}" required>
<p>It receives every event ({all} kinds; the API can subscribe to fewer). Its signing secret is shown on its page.</p>
<button type="submit">Create the webhook</button></form></section></main>"#,
        nav = nav(&s.email),
        csrf = esc(&s.csrf),
        url = esc(url),
        all = EVENTS.len(),
    );
    page(status, "Webhooks", &body)
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
        Err(boxtrack_app::AppError::Unprocessable { detail, .. }) => {
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
    render_one(&state, &s, id, StatusCode::OK, "").await
}

/// What changes when the webhook's page would: its settings and its newest notifications'
/// states and attempts.
fn version_of<'a>(
    w: &webhooks::WebhookRow,
    rows: impl IntoIterator<Item = &'a notifications::NotificationRow>,
) -> String {
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
        return (
            StatusCode::UNAUTHORIZED,
            crate::pagedoc::Problem::says("signed out"),
        )
            .into_response();
    };
    let Ok(id) = id.parse::<Uuid>() else {
        return missing();
    };
    let w = match app::get(&state.ctx, s.account_id, id).await {
        Ok(Some(w)) => w,
        Ok(None) => return missing(),
        Err(e) => return crate::common::app_unavailable(e),
    };
    let of_webhook = notifications::Filter {
        webhook_id: Some(id),
        ..Default::default()
    };
    match app::notifications(&state.ctx, s.account_id, &of_webhook, &Page::first(NEWEST)).await {
        Ok(listed) => axum::Json(crate::pagedoc::Version {
            version: version_of(&w, &listed.rows),
        })
        .into_response(),
        Err(e) => crate::common::app_unavailable(e),
    }
}

async fn render_one(
    state: &Front,
    s: &boxtrack_store::sessions::Session,
    id: Uuid,
    status: StatusCode,
    notice: &str,
) -> Response {
    let w = match app::get(&state.ctx, s.account_id, id).await {
        Ok(Some(w)) => w,
        Ok(None) => return missing(),
        Err(e) => return crate::common::app_unavailable(e),
    };
    let listed = match app::newest(&state.ctx, s.account_id, w.id, NEWEST).await {
        Ok(l) => l,
        Err(e) => return crate::common::app_unavailable(e),
    };
    let mut rows = String::new();
    for (n, attempts) in &listed {
        let tries: String = attempts
            .iter()
            .map(|a| {
                format!(
                    "<li>{} · {} · {} ms{}{}</li>",
                    esc(&format_micros(a.attempted_us)),
                    a.status_code
                        .map_or("no answer".to_string(), |c| format!("HTTP {c}")),
                    a.duration_ms,
                    a.error
                        .as_deref()
                        .map_or(String::new(), |e| format!(" · {}", esc(e))),
                    a.response_body
                        .as_deref()
                        .map_or(String::new(), |b| format!(
                            "<br>Answered: <pre class=\"answer\">{}</pre>",
                            esc(b)
                        ))
                )
            })
            .collect();
        rows.push_str(&format!(
            r#"<tr><td>{event}</td><td>{status}</td><td>{count}{list}</td><td>{created}</td><td><form method="post" action="/console/webhooks/{wid}/notifications/{nid}/redeliver"><input type="hidden" name="csrf" value="{csrf}"><button type="submit" aria-label="Redeliver {event} of {created}">Redeliver</button></form></td></tr>"#,
            event = esc(&n.event),
            status = esc(&n.delivery_status),
            count = n.attempts,
            list = if tries.is_empty() { String::new() } else { format!("<details><summary>attempts</summary><ol>{tries}</ol></details>") },
            created = esc(&format_micros(n.created_us)),
            wid = w.id,
            nid = n.id,
            csrf = esc(&s.csrf),
        ));
    }
    let options: String = EVENTS
        .iter()
        .map(|e| {
            format!(
                r#"<option value="{e}"{sel}>{e}</option>"#,
                sel = if *e == "container.transport.vessel_arrived" {
                    " selected"
                } else {
                    ""
                }
            )
        })
        .collect();
    let body = format!(
        r#"{nav}<main><h1>Webhook</h1>{notice}
<dl><dt>URL</dt><dd><code>{url}</code></dd><dt>State</dt><dd>{on}{why}</dd><dt>Events</dt><dd>{n} of {all}</dd><dt>Signing secret</dt><dd><code class="secret">{secret}</code> (header <code>{header}</code>; see the API reference for how to check it)</dd></dl>
<section aria-labelledby="edit"><h2 id="edit">Settings</h2>
<form method="post" action="/console/webhooks/{id}"><input type="hidden" name="csrf" value="{csrf}">
<label for="webhook-url">URL (https)</label><input id="webhook-url" name="url" type="text" value="{url}" required>
<label><input name="active" type="checkbox" value="1"{checked}> On (deliveries are sent)</label>
<input type="hidden" name="events_shown" value="1">{event_boxes}
<button type="submit">Save</button></form></section>
<section aria-labelledby="test"><h2 id="test">Send a test</h2>
<form method="post" action="/console/webhooks/{id}/test"><input type="hidden" name="csrf" value="{csrf}">
<label for="test-event">Event</label><select id="test-event" name="event">{options}</select>
<button type="submit">Send a test delivery</button></form></section>
<section aria-labelledby="sent"><h2 id="sent">Newest notifications</h2>{live}
<div id="notifications-live" data-live><table><thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Created (UTC)</th><th scope="col"></th></tr></thead><tbody>{rows}</tbody></table></div></section></main>"#,
        nav = nav(&s.email),
        live = crate::live::marker_at(
            &version_of(&w, listed.iter().map(|(n, _)| n)),
            &format!("/console/webhooks/{}/version", w.id)
        )
        .into_string(),
        id = w.id,
        url = esc(&w.url),
        on = if w.active { "on" } else { "off" },
        why = w
            .deactivated_reason
            .as_deref()
            .map_or(String::new(), |r| format!(" ({})", esc(r))),
        n = w.events.0.len(),
        all = EVENTS.len(),
        secret = esc(&w.secret),
        header = esc(&state.ctx.policy.webhook_signature_header),
        csrf = esc(&s.csrf),
        checked = if w.active { " checked" } else { "" },
        event_boxes = event_boxes(&w.events.0),
    );
    page_with(status, "Webhook", &body, &[], &[crate::live::SCRIPT])
}

/// The events a webhook subscribes to, as checkboxes grouped by the catalog's categories,
/// each with its description.
fn event_boxes(subscribed: &[String]) -> String {
    rules::CATEGORIES
        .iter()
        .map(|(category, name)| {
            let boxes: String = EVENTS
                .iter()
                .filter(|e| rules::category(e) == *category)
                .map(|e| {
                    format!(
                        r#"<label class="event"><input name="events" type="checkbox" value="{e}"{on}> <code>{e}</code> <span>{what}</span></label>"#,
                        on = if subscribed.iter().any(|s| s == e) {
                            " checked"
                        } else {
                            ""
                        },
                        what = esc(rules::describe(e)),
                    )
                })
                .collect();
            format!("<fieldset><legend>{}</legend>{boxes}</fieldset>", esc(name))
        })
        .collect()
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
    let refuse = |e: &str| format!(r#"<p class="error" role="alert">{}</p>"#, esc(e));
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
        Err(boxtrack_app::AppError::Store(StoreError::NotFound(_))) => return missing(),
        Err(boxtrack_app::AppError::Unprocessable {
            field: "events",
            code: "blank",
            ..
        }) => "Choose at least one event (or switch the webhook off).".to_string(),
        Err(boxtrack_app::AppError::Unprocessable { detail, .. }) => detail,
        Err(e) => return app_unavailable(e),
    };
    render_one(&state, &s, id, StatusCode::BAD_REQUEST, &refuse(&why)).await
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
        Err(e) => return crate::common::app_unavailable(e),
    };
    let event = f.get("event").map_or("", String::as_str);
    if !EVENTS.contains(&event) {
        let notice = r#"<p class="error" role="alert">Choose one of the listed events.</p>"#;
        return render_one(&state, &s, id, StatusCode::BAD_REQUEST, notice).await;
    }
    let sent = match boxtrack_app::sample::send(
        &state.ctx,
        &w.url,
        event,
        Some(&w.secret),
        &w.headers.0,
    )
    .await
    {
        Ok((_, sent)) => sent,
        Err(_) => {
            let notice = r#"<p class="error" role="alert">The sample delivery could not be built; try again in a moment.</p>"#;
            return render_one(&state, &s, id, StatusCode::SERVICE_UNAVAILABLE, notice).await;
        }
    };
    let notice = format!(
        r#"<section aria-labelledby="result"><h2 id="result">Test delivery</h2><p role="status" id="test-result">{verdict}: {code} in {ms} ms{err}.</p>{resp}</section>"#,
        verdict = if sent.succeeded {
            "Delivered"
        } else {
            "Not delivered"
        },
        code = sent
            .status_code
            .map_or("no answer".to_string(), |c| format!("HTTP {c}")),
        ms = sent.duration_ms,
        err = sent
            .error
            .as_deref()
            .map_or(String::new(), |e| format!(" ({})", esc(e))),
        resp = sent
            .response_body
            .as_deref()
            .map_or(String::new(), |b| format!(
                "<details><summary>Response body</summary><pre>{}</pre></details>",
                esc(b)
            )),
    );
    render_one(&state, &s, id, StatusCode::OK, &notice).await
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
    let n = match notifications::get(&state.ctx.db, s.account_id, nid).await {
        Ok(Some(n)) if n.webhook_id == id => n,
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
        Err(e) => crate::common::app_unavailable(e),
    }
}

/// The OpenAPI operations of this module's console routes (collected by
/// [`crate::operations`]).
pub(crate) fn routes() -> boxtrack_http::front::Mount {
    routes_1().merge(routes_2())
}

/// The webhook list and one webhook's page, each declared with its documentation.
fn routes_1() -> boxtrack_http::front::Mount {
    use crate::pagedoc::{expired, form, html, not_form, page, see_other, unavailable};
    use boxtrack_http::schema::Schema;

    boxtrack_http::front::Mount::default()
        .public_get("/console/webhooks", self::list, || boxtrack_http::doc::Doc::from_value(page(
                "Webhooks",
                "The account's webhooks (URL, on or off, events, failures in a row) and a form for a new one that receives every event.",
                ("200", html("The page")),
                vec![
                    ("303", see_other("To /console/sign-in: no session")),
                    ("503", unavailable()),
                ],
                None,
            )))
        .public_post("/console/webhooks", self::create, || boxtrack_http::doc::Doc::from_value(page(
                "Create a webhook",
                "A webhook for every event at the URL (checked as `POST /v2/webhooks` checks it), with a new signing secret; then its page.",
                ("303", see_other("To the webhook's page")),
                vec![
                    ("400", html("The URL is refused; nothing was created")),
                    ("403", expired()),
                    ("415", not_form()),
                    ("503", unavailable()),
                ],
                Some(form(&[("url", boxtrack_http::schema::Schema::string())], &["url"])),
            )))
        .public_get("/console/webhooks/{id}", self::show, || boxtrack_http::doc::Doc::from_value({
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
                op["parameters"] = crate::pagedoc::path_ids(&["id"]);
                op
            }))
        .public_post("/console/webhooks/{id}", self::update, || boxtrack_http::doc::Doc::from_value({
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
                                    Schema::string().words(boxtrack_core::webhooks::EVENTS.as_slice()),
                                ),
                            ),
                        ],
                        &["url"],
                    )),
                );
                op["parameters"] = crate::pagedoc::path_ids(&["id"]);
                op
            }))
}

/// A webhook's test, version and redelivery, each declared with its documentation.
fn routes_2() -> boxtrack_http::front::Mount {
    use crate::pagedoc::{expired, form, html, not_form, page, see_other, unavailable};

    boxtrack_http::front::Mount::default()
        .public_get("/console/webhooks/{id}/version", self::version, || boxtrack_http::doc::Doc::from_value({
                let mut op = page(
                    "Whether a webhook's page changed",
                    "A version that changes when the webhook's page would (its settings, its newest notifications' states and attempts); the page asks every 5 seconds.",
                    (
                        "200",
                        crate::pagedoc::version_answer(),
                    ),
                    vec![
                        (
                            "401",
                            crate::pagedoc::problem("No session"),
                        ),
                        ("404", html("No such webhook in this account")),
                        ("503", unavailable()),
                    ],
                    None,
                );
                op["parameters"] = crate::pagedoc::path_ids(&["id"]);
                op
            }))
        .public_post("/console/webhooks/{id}/test", self::test, || boxtrack_http::doc::Doc::from_value({
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
                    Some(form(&[("event", boxtrack_http::schema::Schema::string())], &["event"])),
                );
                op["parameters"] = crate::pagedoc::path_ids(&["id"]);
                op
            }))
        .public_post("/console/webhooks/{id}/notifications/{nid}/redeliver", self::redeliver, || boxtrack_http::doc::Doc::from_value({
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
                op["parameters"] = crate::pagedoc::path_ids(&["id", "nid"]);
                op
            }))
}
