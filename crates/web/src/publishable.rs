//! Publishable keys in the developer portal: the section of `/console` that lists them, and
//! `POST /console/publishable_keys` (with allowed origins, one per line) and
//! `POST /console/publishable_keys/{id}/revoke`. A key is made only for an account with the
//! `widget` entitlement, and shown once.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use boxtrack_app::{AppError, accounts, keys};
use boxtrack_core::apikey;
use boxtrack_core::plan::Entitlement;
use boxtrack_http::Front;
use boxtrack_http::front::Mount;
use boxtrack_http::schema::Schema;
use maud::html;
use uuid::Uuid;

use crate::common;
use crate::common::*;
use crate::pagedoc;
use crate::portal::{Fresh, portal};

/// Parses the origins field (one per line, or separated by commas or spaces): normalized and
/// without repeats, or the first that is not an origin.
pub(crate) fn parse_origins(raw: &str) -> Result<Vec<String>, String> {
    apikey::normalize_origins(
        raw.split(|c: char| c == ',' || c.is_whitespace())
            .filter(|p| !p.is_empty()),
    )
}

/// `POST /console/publishable_keys`.
pub(crate) async fn create(State(state): State<Front>, SignedForm(s, f): SignedForm) -> Response {
    let account = match accounts::get(&state.ctx, s.account_id).await {
        Ok(Some(a)) => a,
        Ok(None) => return no_such_key(),
        Err(e) => return unavailable(&e),
    };
    if !account.entitlements.contains(&Entitlement::Widget) {
        return problem(
            StatusCode::FORBIDDEN,
            "Publishable keys need the embeddable map and widget entitlement.",
        );
    }
    let origins = match parse_origins(f.get("origins").map_or("", String::as_str)) {
        Ok(o) => o,
        Err(message) => return problem(StatusCode::BAD_REQUEST, &message),
    };
    let name = f
        .get("name")
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
        .map(|n| n.chars().take(100).collect::<String>());
    match keys::create_publishable(&state.ctx, s.account_id, name.as_deref(), &origins).await {
        Ok((record, key)) => {
            portal(
                &state,
                &s,
                StatusCode::CREATED,
                Some(Fresh {
                    publishable: true,
                    name: record.name.as_deref(),
                    full: key.expose(),
                }),
            )
            .await
        }
        Err(e) => common::app_unavailable(e),
    }
}

/// `POST /console/publishable_keys/{id}/revoke`.
pub(crate) async fn revoke(
    State(state): State<Front>,
    Path(id): Path<String>,
    SignedForm(s, _): SignedForm,
) -> Response {
    let Ok(id) = id.parse::<Uuid>() else {
        return no_such_key();
    };
    match keys::revoke_publishable(&state.ctx, s.account_id, id).await {
        Ok(_) => see_other("/console"),
        Err(AppError::NotFound(_)) => no_such_key(),
        Err(e) => common::app_unavailable(e),
    }
}

/// A page that says what was wrong with a form, with a way back.
fn problem(status: StatusCode, message: &str) -> Response {
    page(
        status,
        "Not done",
        html! {
            main {
                h1 { "Nothing was created" }
                p role="alert" { (message) }
                p { a href="/console" { "Back to the console" } }
            }
        },
    )
}

/// This module's routes, each declared with its documentation.
pub(crate) fn routes() -> Mount {
    use crate::pagedoc::{expired, form, html, not_form, page, see_other, unavailable};
    use boxtrack_http::doc::Doc;

    Mount::default()
        .public_post("/console/publishable_keys", self::create, || {
            Doc::from_value(page(
                "Create a publishable key",
                "Issues a publishable key (`btp_…`) for the embeddable map and widget, optionally limited to listed origins (one per line), and shows it this once. Needs the `widget` entitlement.",
                ("201", html("The portal with the new key")),
                vec![
                    ("303", see_other("To /console/sign-in: no session")),
                    (
                        "400",
                        html("An allowed origin is not an origin; nothing was created"),
                    ),
                    (
                        "403",
                        html(
                            "The form token is not this session's, or the account lacks the widget entitlement",
                        ),
                    ),
                    ("415", not_form()),
                    ("503", unavailable()),
                ],
                Some(form(
                    &[
                        ("name", Schema::string().max_length(100)),
                        (
                            "origins",
                            Schema::string().describe("Allowed origins, one per line; empty for any"),
                        ),
                    ],
                    &[],
                )),
            ))
        })
        .public_post("/console/publishable_keys/{id}/revoke", self::revoke, || {
            Doc::from_value(page(
                "Revoke a publishable key",
                "Revokes one of the account's publishable keys; the map and widget stop working with it at once.",
                ("303", see_other("To /console")),
                vec![
                    ("403", expired()),
                    ("404", html("No such publishable key in this account")),
                    ("415", not_form()),
                    ("503", unavailable()),
                ],
                Some(form(&[], &[])),
            ))
            .with(
                "parameters",
                pagedoc::path_ids(&["id"]),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_one_per_line_normalized_and_unique() {
        assert_eq!(
            parse_origins(
                "https://Shop.example.com/\nhttp://localhost:8080, https://shop.example.com"
            )
            .unwrap(),
            vec!["https://shop.example.com", "http://localhost:8080"]
        );
        assert_eq!(parse_origins("  \n ").unwrap(), Vec::<String>::new());
        assert!(parse_origins("https://ok.example\nnot-an-origin").is_err());
        let many: String = (0..21).map(|i| format!("https://h{i}.example\n")).collect();
        assert!(parse_origins(&many).is_err());
    }
}
