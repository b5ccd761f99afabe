//! The sign-in and consent page: the request checked, a CSRF-protected form without scripts under
//! strict security headers, and the decision that redirects back with a code.

use std::collections::HashMap;

use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use boxtrack_app::oauth;
use boxtrack_core::oauth as core;
use boxtrack_http::error::ApiError;

use boxtrack_http::Front;
use boxtrack_http::html::{cookie, secure_html};
use boxtrack_http::signin::{SignIn, SignInFailed};
use maud::{DOCTYPE, Markup, html};

use super::common::*;

/// What the authorize page carries from request to form.
#[derive(Debug, Clone, Default)]
struct AuthzRequest {
    client_id: String,
    redirect_uri: String,
    state: String,
    code_challenge: String,
    resource: String,
}

/// The sign-in page's own style (no stylesheet: its policy loads nothing).
const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
label{display:block;margin-top:1rem;font-weight:600}input[type=email],input[type=password]{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
.error{color:#b00020;margin:.25rem 0 0}button{margin-top:1.25rem;margin-right:.5rem;padding:.6rem 1.2rem;font-size:1rem}
.note{color:#444}";

/// The sign-in form: who asks, the fields with their errors, the request carried along.
fn form(
    title: &str,
    client_name: &str,
    r: &AuthzRequest,
    csrf: &str,
    email: &str,
    errors: &HashMap<&str, String>,
) -> Markup {
    let field_error = |f: &str| {
        html! {
            @if let Some(m) = errors.get(f) {
                p class="error" id={ (f) "-error" } role="alert" { (m) }
            }
        }
    };
    let described = |f: &str| errors.contains_key(f).then(|| format!("{f}-error"));
    let invalid = |f: &str| errors.contains_key(f).then_some("true");
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · boxtrack" }
                style { (STYLE) }
            }
            body { main {
                h1 { "Sign in to boxtrack" }
                p class="note" {
                    strong { (client_name) }
                    " asks to use your boxtrack account through the MCP server: read your shipments and containers, start and stop tracking, refresh containers and manage webhooks."
                }
                (field_error("form"))
                form method="post" action="/oauth/authorize" {
                    input type="hidden" name="csrf" value=(csrf);
                    input type="hidden" name="client_id" value=(r.client_id);
                    input type="hidden" name="redirect_uri" value=(r.redirect_uri);
                    input type="hidden" name="state" value=(r.state);
                    input type="hidden" name="code_challenge" value=(r.code_challenge);
                    input type="hidden" name="resource" value=(r.resource);
                    label for="email" { "Email" }
                    input id="email" name="email" type="email" autocomplete="username" required value=(email)
                        aria-invalid=[invalid("email")] aria-describedby=[described("email")];
                    (field_error("email"))
                    label for="password" { "Password" }
                    input id="password" name="password" type="password" autocomplete="current-password" required
                        aria-invalid=[invalid("password")] aria-describedby=[described("password")];
                    (field_error("password"))
                    div {
                        button type="submit" name="decision" value="allow" { "Sign in and allow" }
                        " "
                        button type="submit" name="decision" value="deny" { "Deny" }
                    }
                }
            } }
        }
    }
}

/// The sign-in page (400 when it shows errors), with its policy and form cookie; a form may
/// post only here and to the client's origin (the redirect after it).
fn page(
    title: &str,
    client_name: &str,
    r: &AuthzRequest,
    csrf: &str,
    email: &str,
    errors: &HashMap<&str, String>,
    redirect_origin: Option<String>,
) -> Response {
    let html = form(title, client_name, r, csrf, email, errors).into_string();
    let status = if errors.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::BAD_REQUEST
    };
    let mut resp = (status, html).into_response();
    let form_action = match redirect_origin {
        Some(o) => format!("'self' {o}"),
        None => "'self'".into(),
    };
    secure_html(
        &mut resp,
        &format!(
            "default-src 'none'; style-src 'unsafe-inline'; form-action {form_action}; frame-ancestors 'none'; base-uri 'none'"
        ),
    );
    let h = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&format!(
        "btk_csrf={csrf}; Path=/oauth; HttpOnly; SameSite=Strict"
    )) {
        h.insert(header::SET_COOKIE, v);
    }
    resp
}

/// A page that only says why the request cannot go on.
fn plain_page(status: StatusCode, message: &str) -> Response {
    let html = html! {
        (DOCTYPE)
        html lang="en" {
            head { meta charset="utf-8"; title { "boxtrack sign-in" } }
            body { main { h1 { "Cannot sign in" } p role="alert" { (message) } } }
        }
    }
    .into_string();
    let mut r = (status, html).into_response();
    secure_html(&mut r, "default-src 'none'; frame-ancestors 'none'");
    r
}

fn origin_of(uri: &str) -> Option<String> {
    url::Url::parse(uri)
        .ok()
        .map(|u| u.origin().ascii_serialization())
}

/// Checks the client and redirect URI (errors here are shown, never redirected) and the
/// PKCE and resource parameters.
async fn check_request(
    state: &Front,
    headers: &HeaderMap,
    q: &HashMap<String, String>,
) -> Result<(AuthzRequest, String), Response> {
    let get = |k: &str| q.get(k).cloned().unwrap_or_default();
    let client = match oauth::client(&state.ctx, &get("client_id")).await {
        Ok(Some(c)) => c,
        Ok(None) => {
            return Err(plain_page(
                StatusCode::BAD_REQUEST,
                "Unknown client_id: register the client first (POST /oauth/register).",
            ));
        }
        Err(e) => return Err(ApiError::from(e).into_response()),
    };
    let redirect_uri = get("redirect_uri");
    if !client.allows(&redirect_uri) {
        return Err(plain_page(
            StatusCode::BAD_REQUEST,
            "redirect_uri is not one the client registered.",
        ));
    }
    let resource = q
        .get("resource")
        .and_then(|r| core::canonical_resource(r))
        .unwrap_or_else(|| mcp_resource(state, headers));
    if resource != mcp_resource(state, headers) {
        return Err(plain_page(
            StatusCode::BAD_REQUEST,
            &format!("resource must be {}", mcp_resource(state, headers)),
        ));
    }
    Ok((
        AuthzRequest {
            client_id: client.client_id,
            redirect_uri,
            state: get("state"),
            code_challenge: get("code_challenge"),
            resource,
        },
        client.name,
    ))
}

fn redirect(to: &str, params: &[(&str, &str)]) -> Response {
    let Ok(mut u) = url::Url::parse(to) else {
        return plain_page(StatusCode::BAD_REQUEST, "invalid redirect_uri");
    };
    {
        let mut qp = u.query_pairs_mut();
        for (k, v) in params {
            if !v.is_empty() {
                qp.append_pair(k, v);
            }
        }
    }
    let mut r = StatusCode::SEE_OTHER.into_response();
    if let Ok(v) = HeaderValue::from_str(u.as_str()) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// `GET /oauth/authorize`: the sign-in and consent page.
pub async fn authorize_page(
    State(state): State<Front>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let (r, client_name) = match check_request(&state, &headers, &q).await {
        Ok(x) => x,
        Err(resp) => return resp,
    };
    // from here on, errors go back to the client's redirect URI
    if q.get("response_type").map(String::as_str) != Some("code") {
        return redirect(
            &r.redirect_uri,
            &[("error", "unsupported_response_type"), ("state", &r.state)],
        );
    }
    match q.get("code_challenge_method").map(String::as_str) {
        Some("S256") if !r.code_challenge.is_empty() => {}
        _ => {
            return redirect(
                &r.redirect_uri,
                &[
                    ("error", "invalid_request"),
                    (
                        "error_description",
                        "PKCE with code_challenge_method=S256 is required (plain is refused)",
                    ),
                    ("state", &r.state),
                ],
            );
        }
    }
    let csrf = core::new_secret();
    page(
        "Sign in",
        &client_name,
        &r,
        &csrf,
        "",
        &HashMap::new(),
        origin_of(&r.redirect_uri),
    )
}

/// `POST /oauth/authorize`: checks the CSRF token and the credentials, then redirects back with
/// a code (or `access_denied`). Wrong credentials show the page again with the error next to
/// the field.
pub async fn authorize_submit(
    State(state): State<Front>,
    headers: HeaderMap,
    Form(f): Form<HashMap<String, String>>,
) -> Response {
    let (r, client_name) = match check_request(&state, &headers, &f).await {
        Ok(x) => x,
        Err(resp) => return resp,
    };
    let sent = f.get("csrf").cloned().unwrap_or_default();
    let expected = cookie(&headers, "btk_csrf").unwrap_or_default();
    if sent.is_empty() || expected.is_empty() || core::digest(&sent) != core::digest(&expected) {
        return plain_page(
            StatusCode::FORBIDDEN,
            "The form expired or did not come from this page; start the sign-in again from your application.",
        );
    }
    if r.code_challenge.is_empty() {
        return redirect(
            &r.redirect_uri,
            &[("error", "invalid_request"), ("state", &r.state)],
        );
    }
    if f.get("decision").map(String::as_str) == Some("deny") {
        return redirect(
            &r.redirect_uri,
            &[("error", "access_denied"), ("state", &r.state)],
        );
    }
    let email = f.get("email").cloned().unwrap_or_default();
    let password = f.get("password").cloned().unwrap_or_default();
    let user = match credentials(&state, &email, &password).await {
        Ok(Ok(user)) => user,
        Ok(Err(refusal)) => {
            let csrf = core::new_secret();
            let mut resp = page(
                "Sign in",
                &client_name,
                &r,
                &csrf,
                &email,
                &refusal.errors,
                origin_of(&r.redirect_uri),
            );
            if let Some(secs) = refusal.retry_after {
                *resp.status_mut() = StatusCode::TOO_MANY_REQUESTS;
                resp.headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(secs));
            }
            return resp;
        }
        Err(resp) => return resp,
    };
    let grant = oauth::Grant {
        client_id: r.client_id.clone(),
        redirect_uri: r.redirect_uri.clone(),
        code_challenge: r.code_challenge.clone(),
        resource: r.resource.clone(),
    };
    let code = match oauth::issue_code(&state.ctx, &user, &grant).await {
        Ok(code) => code,
        Err(e) => return ApiError::from(e).into_response(),
    };
    redirect(&r.redirect_uri, &[("code", &code), ("state", &r.state)])
}

/// Why a sign-in form did not sign in: the errors by field (`form` for the whole form), and
/// the seconds to wait when the email has had too many attempts.
struct Refusal {
    errors: HashMap<&'static str, String>,
    retry_after: Option<u64>,
}

/// The user these credentials sign in, or why not ([`Front::sign_in`]: the attempt is counted
/// before the password is checked, in the window the console's sign-in uses). `Err` is the answer to a failure of
/// the limiter or the database.
async fn credentials(
    state: &Front,
    email: &str,
    password: &str,
) -> Result<Result<oauth::User, Refusal>, Response> {
    let mut refusal = Refusal {
        errors: HashMap::new(),
        retry_after: None,
    };
    if email.trim().is_empty() {
        refusal
            .errors
            .insert("email", "Enter your email address.".to_string());
    }
    if password.is_empty() {
        refusal
            .errors
            .insert("password", "Enter your password.".to_string());
    }
    if !refusal.errors.is_empty() {
        return Ok(Err(refusal));
    }
    match state.sign_in(email, password).await {
        Ok(SignIn::User(u)) => Ok(Ok(u)),
        Ok(SignIn::TooMany(secs)) => {
            refusal.errors.insert(
                "form",
                format!("Too many sign-in attempts for this email. Try again in {secs} seconds."),
            );
            refusal.retry_after = Some(secs);
            Ok(Err(refusal))
        }
        Ok(SignIn::Wrong) => {
            refusal.errors.insert(
                "password",
                "The email or password is not right.".to_string(),
            );
            Ok(Err(refusal))
        }
        Err(SignInFailed::Limiter(e)) => Err(e.into_response()),
        Err(SignInFailed::App(e)) => Err(ApiError::from(e).into_response()),
    }
}
