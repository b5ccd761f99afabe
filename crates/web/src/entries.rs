//! The console's "What you know" on a container page: the last free day, the appointment,
//! the pickup, the delivery and the empty return a person enters (or clears), each shown with
//! who entered it; posted through the same use case as the container's REST `PATCH`.

use std::collections::HashMap;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use boxtrack_app::AppError;
use boxtrack_app::entries::{self, EntryRow};
use boxtrack_core::tracking::entries::Entry;
use boxtrack_http::Front;
use maud::{Markup, html};
use uuid::Uuid;

use crate::common::{SignedForm, app_unavailable, page, see_other};
use crate::look;

/// A person's entry's label.
fn label(e: Entry) -> &'static str {
    match e {
        Entry::PickupLfd => "Last free day",
        Entry::PickupAppointment => "Pickup appointment",
        Entry::PodFullOut => "Picked up",
        Entry::Delivered => "Delivered",
        Entry::EmptyTerminated => "Empty returned",
    }
}

/// The section: each attribute's latest entry ("entered by NAME"), and the form.
pub(crate) fn section(id: Uuid, csrf: &str, rows: &[EntryRow], zone: Option<&str>) -> Markup {
    let latest = |e: Entry| rows.iter().find(|r| r.attribute == e.name());
    html! {
        p class="muted" { "What you know first-hand wins over the sources until you clear it. Times are the port's (" (zone.unwrap_or("UTC")) ")." }
        form method="post" action={ "/console/containers/" (id) "/entries" } {
            input type="hidden" name="csrf" value=(csrf);
            @if let Some(z) = zone {
                input type="hidden" name="zone" value=(z);
            }
            table {
                thead { tr { th scope="col" { "What" } th scope="col" { "Entered" } th scope="col" { "New value" } th scope="col" { "Clear" } } }
                tbody {
                    @for e in Entry::ALL {
                        tr {
                            th scope="row" { label for={ "entry-" (e.name()) } { (label(e)) } }
                            td {
                                @match latest(e) {
                                    Some(r) => {
                                        (r.after_us.map_or("cleared".to_string(), |t| look::short_local(t, zone)))
                                        " — entered by " (r.entered_by) ", " (look::short_local(r.entered_us, None))
                                    }
                                    None => { "—" }
                                }
                            }
                            td { input type="datetime-local" id={ "entry-" (e.name()) } name=(e.name()); }
                            td { input type="checkbox" name={ "clear_" (e.name()) } value="1" aria-label={ "Clear " (label(e)) }; }
                        }
                    }
                }
            }
            button type="submit" { "Save" }
        }
    }
}

/// The entries a form asks: a time at the port's clock, or a clearing.
fn asked(
    form: &HashMap<String, String>,
    zone: Option<&str>,
) -> Result<Vec<(Entry, Option<i64>)>, String> {
    let mut out = vec![];
    for e in Entry::ALL {
        if form
            .get(&format!("clear_{}", e.name()))
            .is_some_and(|v| v == "1")
        {
            out.push((e, None));
            continue;
        }
        let Some(text) = form
            .get(e.name())
            .map(|t| t.trim())
            .filter(|t| !t.is_empty())
        else {
            continue;
        };
        let at = boxtrack_core::time::parse_local(text, zone)
            .ok_or_else(|| format!("{}: {text:?} is not a date and time", label(e)))?;
        out.push((e, Some(at)));
    }
    Ok(out)
}

/// `POST /console/containers/{id}/entries`: saved, back to the container; a value that
/// contradicts the journey is said on a page of its own, and nothing changes.
pub async fn post(
    State(state): State<Front>,
    Path(id): Path<String>,
    SignedForm(s, form): SignedForm,
) -> Response {
    let missing = || {
        page(
            StatusCode::NOT_FOUND,
            "No such container",
            html! { main { h1 { "No such container" } } },
        )
    };
    let Ok(id) = id.parse::<Uuid>() else {
        return missing();
    };
    let back = format!("/console/containers/{id}");
    let zone = form.get("zone").cloned();
    let refused = |detail: String| {
        page(
            StatusCode::UNPROCESSABLE_ENTITY,
            "Not saved",
            html! { main { h1 { "Not saved" } p role="alert" { (detail) } p { a href=(back) { "Back to the container" } } } },
        )
    };
    let asked = match asked(&form, zone.as_deref()) {
        Ok(a) => a,
        Err(detail) => return refused(detail),
    };
    match entries::enter(&state.ctx, s.account_id, id, &s.email, &asked).await {
        Ok(()) => see_other(&back),
        Err(AppError::Unprocessable { detail, .. }) => refused(detail),
        Err(AppError::NotFound(_)) => missing(),
        Err(e) => app_unavailable(e),
    }
}

/// This part's route, declared with its documentation.
pub(crate) fn routes() -> boxtrack_http::front::Mount {
    use crate::pagedoc::{self, expired, form, html, not_form, page, see_other, unavailable};
    use boxtrack_http::doc::Doc;
    use boxtrack_http::schema::Schema;
    boxtrack_http::front::Mount::default().public_post("/console/containers/{id}/entries", self::post, || {
        let mut fields: Vec<(&str, Schema)> = Entry::ALL
            .iter()
            .map(|e| (e.name(), Schema::string().describe("A date and time at the port's clock (YYYY-MM-DDTHH:MM)")))
            .collect();
        let clears: Vec<String> = Entry::ALL.iter().map(|e| format!("clear_{}", e.name())).collect();
        for c in &clears {
            fields.push((c.as_str(), Schema::string().describe("1 clears what a person entered")));
        }
        fields.push(("zone", Schema::string().describe("The port's IANA time zone")));
        let mut op = page(
            "Enter what you know on a container",
            "What a person knows first-hand (the last free day, the pickup appointment, the pickup, the delivery, the empty return), entered or cleared as `PATCH /v2/containers/{id}` takes them: merged as reports of source `user_input`, each recorded with who entered it; back to the container page.",
            ("303", see_other("To the container page, or to /console/sign-in without a session")),
            vec![
                ("403", expired()),
                ("404", html("No such container in this account")),
                ("415", not_form()),
                ("422", html("A value is not a date and time, or contradicts the journey; nothing changed")),
                ("503", unavailable()),
            ],
            Some(form(&fields, &[])),
        );
        op["parameters"] = pagedoc::path_ids(&["id"]);
        Doc::from_value(op)
    })
}
