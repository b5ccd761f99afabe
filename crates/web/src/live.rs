//! Pages that stay current by themselves: a page renders the account's fingerprint
//! ([`boxtrack_app::accounts::fingerprint`]) into a status element, and `live.js` asks
//! `GET /console/live` every few seconds; when the answer differs it fetches the page again
//! and swaps the regions marked `data-live` (so a half-typed filter is not lost), then says
//! so in the status element. Any process can answer: the fingerprint is read from the
//! database, not from a process's memory.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use boxtrack_app::accounts;
use boxtrack_http::Front;
use boxtrack_http::doc::Doc;
use boxtrack_http::front::Mount;
use maud::{Markup, html};

use crate::common::session;
use crate::pagedoc::{self, Problem, Version};

/// The scripts of a live page (after any of its own).
pub(crate) const SCRIPT: &str = "/console/assets/live.js";

/// The status element that carries the version a page was rendered at; `live.js` reads it
/// and writes "Updated …" into it.
pub(crate) fn marker(version: &str) -> Markup {
    marker_at(version, "/console/live")
}

/// A marker whose version `live.js` asks of `url` (a page whose content is not the
/// account's data, such as the sources page).
pub(crate) fn marker_at(version: &str, url: &str) -> Markup {
    html! {
        p id="live-status" role="status" aria-live="polite" data-version=(version) data-live-url=(url) class="live-status" {}
    }
}

/// `GET /console/live`: `{"version": "…"}` for the session's account (401 without one: the
/// script stops asking).
pub async fn version(State(state): State<Front>, headers: HeaderMap) -> Response {
    let Some((_, s)) = session(&state, &headers).await else {
        return (StatusCode::UNAUTHORIZED, Problem::says("signed out")).into_response();
    };
    // where the tables read it: a replica that has the account's writes, else the primary
    let db = state.ctx.read_db(s.account_id);
    match accounts::fingerprint(db, s.account_id).await {
        Ok(v) => {
            let mut r = axum::Json(Version { version: v }).into_response();
            r.headers_mut().insert(
                axum::http::header::CACHE_CONTROL,
                axum::http::HeaderValue::from_static("no-store"),
            );
            r
        }
        Err(e) => {
            tracing::warn!(error = %e, "console: the live version could not be read");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Problem::says("the database cannot be reached"),
            )
                .into_response()
        }
    }
}

/// This page's routes, each declared with its documentation.
pub(crate) fn routes() -> Mount {
    use crate::pagedoc::page;

    Mount::default()
        .public_get("/console/live", self::version, || Doc::from_value(page(
            "Whether the account changed (live pages)",
            "The account's version: the newest `updated_us` of its containers, shipments and tracking requests. The console's pages ask every 5 seconds and fetch themselves again when it changes.",
            (
                "200",
                pagedoc::version_answer(),
            ),
            vec![
                (
                    "401",
                    pagedoc::problem("No session"),
                ),
                (
                    "503",
                    pagedoc::problem("The database could not be reached"),
                ),
            ],
            None,
        )))
}
