//! Tracking requests in the console: `GET /console/tracking_requests` lists the account's
//! newest requests with their state and why one failed; `POST` tracks a number through the
//! same path as `POST /v2/tracking_requests` (validation, plan limit, duplicates, the carrier
//! detected from the number when none is given).

use std::collections::HashMap;

use axum::extract::{Form, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use boxtrack_api::html::esc;
use boxtrack_api::state::AppState;
use boxtrack_core::paging::Page;
use boxtrack_core::requests::{self, NewRequest};
use boxtrack_store::sessions::Session;
use boxtrack_store::{StoreError, accounts, tracking};

use crate::common::{page_with, see_other, session, signed_form, unavailable};

const TYPES: [(&str, &str); 3] = [
    ("bill_of_lading", "Bill of lading"),
    ("booking_number", "Booking number"),
    ("container", "Container number"),
];

/// `GET /console/tracking_requests`.
pub async fn list(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let Some((_, s)) = session(&state, &headers).await else {
        return see_other("/console/sign-in");
    };
    render(&state, &s, StatusCode::OK, None, &HashMap::new()).await
}

/// `POST /console/tracking_requests`.
pub async fn create(
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(f): Form<HashMap<String, String>>,
) -> Response {
    let (_, s) = match signed_form(&state, &headers, &f).await {
        Ok(x) => x,
        Err(answer) => return answer,
    };
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
    let valid = match requests::validate(&input) {
        Ok(v) => v,
        Err(errors) => {
            let text = errors
                .iter()
                .map(|e| e.detail.clone())
                .collect::<Vec<_>>()
                .join(" ");
            return render(&state, &s, StatusCode::BAD_REQUEST, Some(&text), &f).await;
        }
    };
    let account = match accounts::get(&state.db, s.account_id).await {
        Ok(Some(a)) => a,
        Ok(None) => return see_other("/console/sign-in"),
        Err(e) => return unavailable(&e),
    };
    match boxtrack_api::routes::tracking_requests::enqueue(
        &state,
        &account,
        &valid,
        tracking::RequestExtras::default(),
    )
    .await
    {
        Ok(_) => see_other("/console/tracking_requests"),
        Err(StoreError::Duplicate(_)) => {
            let text = format!(
                "{} is tracked already (a request for it is pending or created).",
                valid.number
            );
            render(&state, &s, StatusCode::CONFLICT, Some(&text), &f).await
        }
        Err(StoreError::PlanLimit { limit }) => {
            let text = format!(
                "The plan tracks at most {limit} active containers at once: stop tracking a shipment or change the plan."
            );
            render(&state, &s, StatusCode::CONFLICT, Some(&text), &f).await
        }
        Err(e) => unavailable(&e),
    }
}

async fn render(
    state: &AppState,
    s: &Session,
    status: StatusCode,
    error: Option<&str>,
    form: &HashMap<String, String>,
) -> Response {
    // read before the page's rows, so a change in between shows on the next check
    let version = match boxtrack_store::reads::fingerprint(&state.db, s.account_id).await {
        Ok(v) => v,
        Err(e) => return unavailable(&e),
    };
    let listed = match tracking::list_requests(
        &state.db,
        s.account_id,
        &tracking::RequestFilter::default(),
        &Page {
            number: 1,
            size: 50,
            cursor: None,
        },
    )
    .await
    {
        Ok(l) => l,
        Err(e) => return unavailable(&e),
    };
    let sent = |k: &str| esc(form.get(k).map(String::as_str).unwrap_or_default());
    let chosen = form
        .get("request_type")
        .map(String::as_str)
        .unwrap_or("bill_of_lading");
    let types: String = TYPES
        .iter()
        .map(|(v, l)| {
            format!(
                r#"<option value="{v}"{}>{l}</option>"#,
                if *v == chosen { " selected" } else { "" }
            )
        })
        .collect();
    let (err, invalid) = match error {
        Some(m) => (
            format!(
                r#"<p class="error" id="track-error" role="alert">{}</p>"#,
                esc(m)
            ),
            r#" aria-invalid="true" aria-describedby="track-error""#,
        ),
        None => (String::new(), ""),
    };
    let rows: String = listed
        .rows
        .iter()
        .map(|r| {
            format!(
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&r.request_number),
                esc(&r.request_type.replace('_', " ")),
                esc(r.scac.as_deref().unwrap_or("detecting")),
                esc(&r.status.replace('_', " ")),
                esc(r.failed_reason.as_deref().unwrap_or("")),
                esc(&boxtrack_core::time::format_micros(r.created_us)),
            )
        })
        .collect();
    let body = format!(
        r#"<header><p><strong>boxtrack</strong> console · <a href="/console">Account</a> · <a href="/console/shipments">Shipments</a> · <a href="/console/containers">Containers</a> · Tracking requests · <a href="/console/webhooks">Webhooks</a> · <a href="/console/sources">Sources</a> · <a href="/console/reference">API reference</a></p><p>{email}</p></header>
<main><h1>Tracking requests</h1>
<section aria-labelledby="track"><h2 id="track">Track a number</h2>{err}
<form method="post" action="/console/tracking_requests"><input type="hidden" name="csrf" value="{csrf}">
<label for="request_number">Number</label><input id="request_number" name="request_number" type="text" required value="{number}"{invalid}>
<label for="request_type">Kind of number</label><select id="request_type" name="request_type">{types}</select>
<label for="scac">Carrier SCAC (leave empty to detect it from the number)</label><input id="scac" name="scac" type="text" maxlength="4" value="{scac}">
<button type="submit">Track</button></form>
<p>Sandbox journeys: carrier <code>TEST</code>, numbers such as <code>TEST-SCN-IMPORT</code>. Many numbers at once: <a href="/console/imports">import a CSV file</a>.</p></section>
<section aria-labelledby="recent"><h2 id="recent">Newest requests</h2>{live}
<div id="requests-live" data-live><p>{total} tracking requests.</p>
<table><thead><tr><th scope="col">Number</th><th scope="col">Kind</th><th scope="col">Carrier</th><th scope="col">Status</th><th scope="col">Why it failed</th><th scope="col">Created (UTC)</th></tr></thead>
<tbody>{rows}</tbody></table></div></section></main>"#,
        live = crate::live::marker(&version),
        email = esc(&s.email),
        csrf = esc(&s.csrf),
        number = sent("request_number"),
        scac = sent("scac"),
        total = listed.total,
    );
    page_with(
        status,
        "Tracking requests",
        &body,
        &[],
        &[crate::live::SCRIPT],
    )
}
