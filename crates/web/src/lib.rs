//! The web console, served by the same binary under `/console`: password sign-in (the users
//! the OAuth page signs in), and the developer portal: the account, its plan, entitlements and
//! rate limits, and its API keys, created (the full key shown once) and revoked self-serve.
//!
//! Server-rendered HTML without scripts: every page carries a strict content security policy,
//! and every form a CSRF token (the session's own once signed in; a double-submit cookie on the
//! sign-in form). The session cookie is `HttpOnly`, `SameSite=Strict`, limited to `/console`,
//! and `Secure` when the service's public URL is `https://`; the database keeps only its
//! digest. See `docs/console.md`.

use std::collections::HashMap;

use axum::extract::{Form, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use boxtrack_app::accounts;
use boxtrack_core::oauth as secrets;
use boxtrack_http::Front;
use boxtrack_http::doc::Doc;
use boxtrack_http::front::Mount;
use boxtrack_http::html::cookie;
use boxtrack_http::schema::Schema;
use boxtrack_http::signin::{SignIn, SignInFailed};
use maud::{Markup, html};

mod action;
mod charges;
mod common;
mod container;
mod containers;
mod csv;
mod detail;
mod embed;
mod embed_operations;
mod entries;
mod imports;
mod layout;
mod live;
mod look;
mod pagedoc;
mod portal;
mod publishable;
mod reference;
mod release;
mod requests;
mod shipments;
mod sources;
mod webhooks;
mod widget;
pub mod xlsx;

/// The console's parsers of uploaded files, reachable by the fuzz targets (`crates/fuzz`).
#[doc(hidden)]
pub mod fuzzing {
    use crate::imports;

    /// Checks an uploaded CSV file as the import page does.
    pub fn import_check(text: &str) -> Result<usize, String> {
        imports::check(text).map(|rows| rows.len())
    }

    /// Checks the rows of an uploaded workbook as the import page does.
    pub fn import_check_records(rows: &[Vec<String>]) -> Result<usize, String> {
        imports::check_records(rows).map(|rows| rows.len())
    }
}

use common::*;
pub use common::{SESSION_COOKIE, SESSION_TTL_US};

/// The console's and the embeds' routes, each page module's declared with its
/// documentation, for `boxtrack_api::service`.
pub fn mount() -> Mount {
    [
        action::routes,
        containers::routes,
        charges::routes,
        container::routes,
        entries::routes,
        shipments::routes,
        webhooks::routes,
        sources::routes,
        imports::routes,
        reference::routes,
        live::routes,
        requests::routes,
        portal::routes,
        sign_in_routes,
        publishable::routes,
        embed_operations::routes,
    ]
    .into_iter()
    .fold(Mount::default(), |all, part| all.merge(part()))
}

fn sign_in_form(status: StatusCode, state: &Front, email: &str, error: Option<&str>) -> Response {
    let csrf = secrets::new_secret();
    let mut resp = page(status, "Sign in", sign_in_body(&csrf, email, error));
    set_cookie(&mut resp, state, SIGN_IN_CSRF_COOKIE, &csrf, 3600);
    resp
}

/// The sign-in form, with the email typed and what was wrong, if anything.
fn sign_in_body(csrf: &str, email: &str, error: Option<&str>) -> Markup {
    let described = error.map(|_| "sign-in-error");
    let invalid = error.map(|_| "true");
    html! {
        main {
            h1 { "Sign in to boxtrack" }
            @if let Some(m) = error {
                p class="error" id="sign-in-error" role="alert" { (m) }
            }
            form method="post" action="/console/sign-in" {
                input type="hidden" name="csrf" value=(csrf);
                label for="email" { "Email" }
                input id="email" name="email" type="email" autocomplete="username" required value=(email) aria-invalid=[invalid] aria-describedby=[described];
                label for="password" { "Password" }
                input id="password" name="password" type="password" autocomplete="current-password" required aria-invalid=[invalid] aria-describedby=[described];
                " "
                button type="submit" { "Sign in" }
            }
            p {
                "Users are created by the operator: "
                code { "boxtrack users create --account ID --email EMAIL --password-stdin" }
                "."
            }
        }
    }
}

/// `GET /console/sign-in`.
async fn sign_in_page(State(state): State<Front>, headers: HeaderMap) -> Response {
    if session(&state, &headers).await.is_some() {
        return see_other("/console/action");
    }
    sign_in_form(StatusCode::OK, &state, "", None)
}

/// `POST /console/sign-in`: checks the form token and the password, then starts a session.
async fn sign_in(
    State(state): State<Front>,
    headers: HeaderMap,
    Form(f): Form<HashMap<String, String>>,
) -> Response {
    let sent = f.get("csrf").cloned().unwrap_or_default();
    let expected = cookie(&headers, SIGN_IN_CSRF_COOKIE).unwrap_or_default();
    if sent.is_empty()
        || expected.is_empty()
        || secrets::digest(&sent) != secrets::digest(&expected)
    {
        return forbidden();
    }
    let email = f.get("email").map(|e| e.trim()).unwrap_or_default();
    let password = f.get("password").map(String::as_str).unwrap_or_default();
    if email.is_empty() || password.is_empty() {
        return sign_in_form(
            StatusCode::BAD_REQUEST,
            &state,
            email,
            Some("Enter your email and password."),
        );
    }
    let user = match state.sign_in(email, password).await {
        Ok(SignIn::User(u)) => u,
        Ok(SignIn::TooMany(secs)) => {
            let mut resp = sign_in_form(
                StatusCode::TOO_MANY_REQUESTS,
                &state,
                email,
                Some(&format!(
                    "Too many sign-in attempts for this email. Try again in {secs} seconds."
                )),
            );
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
            return resp;
        }
        Ok(SignIn::Wrong) => {
            return sign_in_form(
                StatusCode::BAD_REQUEST,
                &state,
                email,
                Some("The email or password is not right."),
            );
        }
        Err(SignInFailed::Limiter(_)) => {
            return page(
                StatusCode::SERVICE_UNAVAILABLE,
                "Unavailable",
                html! {
                    main {
                        h1 { "Sign-in is unavailable" }
                        p role="alert" { "The rate limiter cannot be reached; try again in a moment." }
                    }
                },
            );
        }
        Err(SignInFailed::App(e)) => return app_unavailable(e),
    };
    let token = secrets::new_secret();
    let (digest, csrf) = (secrets::digest(&token), secrets::new_secret());
    let started = accounts::start_session(&state.ctx, &user, &digest, &csrf, SESSION_TTL_US);
    if let Err(e) = started.await {
        return app_unavailable(e);
    }
    // a dispatcher lands on what needs action, not on the account page
    let mut resp = see_other("/console/action");
    set_cookie(
        &mut resp,
        &state,
        SESSION_COOKIE,
        &token,
        SESSION_TTL_US / 1_000_000,
    );
    set_cookie(&mut resp, &state, SIGN_IN_CSRF_COOKIE, "", 0);
    resp
}

/// `POST /console/sign-out`.
async fn sign_out(
    State(state): State<Front>,
    headers: HeaderMap,
    Form(f): Form<HashMap<String, String>>,
) -> Response {
    let (digest, _) = match signed_form(&state, &headers, &f).await {
        Ok(x) => x,
        Err(answer) => return answer,
    };
    if let Err(e) = accounts::end_session(&state.ctx, &digest).await {
        return app_unavailable(e);
    }
    let mut resp = see_other("/console/sign-in");
    set_cookie(&mut resp, &state, SESSION_COOKIE, "", 0);
    resp
}

/// This page's routes, each declared with its documentation.
pub(crate) fn sign_in_routes() -> Mount {
    use crate::pagedoc::{expired, form, html, not_form, page, see_other, unavailable};

    Mount::default()
        .public_get("/console/sign-in", sign_in_page, || Doc::from_value(page(
                "The sign-in page",
                "Email and password of a user (`boxtrack users create`); sets the form's double-submit cookie. Signed in already: redirects to the portal.",
                ("200", html("The sign-in form")),
                vec![("303", see_other("To /console"))],
                None,
            )))
        .public_post("/console/sign-in", sign_in, || Doc::from_value(page(
                "Sign in",
                "Checks the form token, the attempts for this email (10 a minute) and the password, starts a 12-hour session (`btk_console` cookie: HttpOnly, SameSite=Strict, Path=/console, Secure behind https) and redirects to the portal. Wrong credentials show the form again.",
                ("303", see_other("To /console, signed in")),
                vec![
                    ("400", html("The form again, with what is wrong")),
                    ("403", expired()),
                    ("415", not_form()),
                    (
                        "429",
                        html(
                            "More than 10 attempts for this email in the last minute: the form again, with Retry-After",
                        ),
                    ),
                    ("503", unavailable()),
                ],
                Some(form(
                    &[("email", Schema::string()), ("password", Schema::string())],
                    &["email", "password"],
                )),
            )))
        .public_post("/console/sign-out", sign_out, || Doc::from_value(page(
                "Sign out",
                "Ends the session and clears its cookie.",
                ("303", see_other("To /console/sign-in")),
                vec![
                    ("403", expired()),
                    ("415", not_form()),
                    ("503", unavailable()),
                ],
                Some(form(&[], &[])),
            )))
}
