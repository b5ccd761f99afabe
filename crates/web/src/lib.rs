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

use axum::extract::{Form, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::{get, post};
use boxtrack_api::Mount;
use boxtrack_api::html::{cookie, esc};
use boxtrack_api::state::AppState;
use boxtrack_core::oauth as secrets;
use boxtrack_core::ratelimit::Bucket;
use boxtrack_store::sessions::{self, Session};
use boxtrack_store::{accounts, keys, now_us, oauth};
use uuid::Uuid;

mod common;
mod containers;
mod docs;
mod reference;
mod requests;

use common::*;
pub use common::{SESSION_COOKIE, SESSION_TTL_US};

/// Sign-in attempts accepted per email a minute, counted before the password is checked, so
/// guessing one user's password (or making the server hash passwords) goes no faster. The
/// window is the rate limiter's: shared by every process when limits are shared.
pub const SIGN_IN_ATTEMPTS_PER_MINUTE: u32 = 10;

/// The rate limiter's key for sign-in attempts as `email` (no account's id: it is derived
/// from the email, so unknown emails are limited too).
fn sign_in_key(email: &str) -> Uuid {
    let d = secrets::digest(&format!("console sign-in {}", email.to_lowercase()));
    d.get(..32)
        .and_then(|h| Uuid::parse_str(h).ok())
        .unwrap_or_else(Uuid::nil)
}

/// The console's routes and their documentation, for `boxtrack_api::service`.
pub fn mount() -> Mount {
    Mount::new(docs::operations)
        .public("/console", get(home))
        .public("/console/sign-in", get(sign_in_page).post(sign_in))
        .public("/console/sign-out", post(sign_out))
        .public("/console/keys", post(create_key))
        .public("/console/keys/{id}/revoke", post(revoke_key))
        .public("/console/containers", get(containers::list))
        .public("/console/containers/{id}", get(containers::show))
        .public(
            "/console/tracking_requests",
            get(requests::list).post(requests::create),
        )
        .public("/console/reference", get(reference::page))
        .public(
            "/console/assets/redoc.standalone.js",
            get(reference::redoc_js),
        )
        .public("/console/assets/reference.js", get(reference::reference_js))
        .public("/console/assets/favicon.svg", get(reference::favicon))
        .public(
            "/console/assets/redoc-licenses.txt",
            get(reference::licenses),
        )
}

fn sign_in_form(
    status: StatusCode,
    state: &AppState,
    email: &str,
    error: Option<&str>,
) -> Response {
    let csrf = secrets::new_secret();
    let (err, invalid) = match error {
        Some(m) => (
            format!(
                r#"<p class="error" id="sign-in-error" role="alert">{}</p>"#,
                esc(m)
            ),
            r#" aria-invalid="true" aria-describedby="sign-in-error""#,
        ),
        None => (String::new(), ""),
    };
    let body = format!(
        r#"<main><h1>Sign in to boxtrack</h1>{err}
<form method="post" action="/console/sign-in">
<input type="hidden" name="csrf" value="{csrf}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="{email}"{invalid}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required{invalid}>
<button type="submit">Sign in</button>
</form>
<p>Users are created by the operator: <code>boxtrack users create --account ID --email EMAIL --password-stdin</code>.</p></main>"#,
        csrf = esc(&csrf),
        email = esc(email),
    );
    let mut resp = page(status, "Sign in", &body);
    set_cookie(&mut resp, state, SIGN_IN_CSRF_COOKIE, &csrf, 3600);
    resp
}

/// `GET /console/sign-in`.
async fn sign_in_page(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if session(&state, &headers).await.is_some() {
        return see_other("/console");
    }
    sign_in_form(StatusCode::OK, &state, "", None)
}

/// `POST /console/sign-in`: checks the form token and the password, then starts a session.
async fn sign_in(
    State(state): State<AppState>,
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
    match state
        .limiter
        .check(
            sign_in_key(email),
            Bucket::Default,
            SIGN_IN_ATTEMPTS_PER_MINUTE,
        )
        .await
    {
        Ok(d) if !d.allowed => {
            let mut resp = sign_in_form(
                StatusCode::TOO_MANY_REQUESTS,
                &state,
                email,
                Some(&format!(
                    "Too many sign-in attempts for this email. Try again in {} seconds.",
                    d.retry_after_secs()
                )),
            );
            if let Ok(v) = HeaderValue::from_str(&d.retry_after_secs().to_string()) {
                resp.headers_mut().insert(header::RETRY_AFTER, v);
            }
            return resp;
        }
        Ok(_) => {}
        Err(_) => {
            return page(
                StatusCode::SERVICE_UNAVAILABLE,
                "Unavailable",
                r#"<main><h1>Sign-in is unavailable</h1><p role="alert">The rate limiter cannot be reached; try again in a moment.</p></main>"#,
            );
        }
    }
    let user = match oauth::get_user(&state.db, email).await {
        Ok(Some(u)) if secrets::verify_password(password, &u.password_hash) => u,
        Ok(_) => {
            return sign_in_form(
                StatusCode::BAD_REQUEST,
                &state,
                email,
                Some("The email or password is not right."),
            );
        }
        Err(e) => return unavailable(&e),
    };
    let token = secrets::new_secret();
    let now = now_us();
    if let Err(e) = sessions::start(
        &state.db,
        &user,
        &secrets::digest(&token),
        &secrets::new_secret(),
        now,
        now + SESSION_TTL_US,
    )
    .await
    {
        return unavailable(&e);
    }
    let mut resp = see_other("/console");
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
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(f): Form<HashMap<String, String>>,
) -> Response {
    let (digest, _) = match signed_form(&state, &headers, &f).await {
        Ok(x) => x,
        Err(answer) => return answer,
    };
    if let Err(e) = sessions::end(&state.db, &digest, now_us()).await {
        return unavailable(&e);
    }
    let mut resp = see_other("/console/sign-in");
    set_cookie(&mut resp, &state, SESSION_COOKIE, "", 0);
    resp
}

/// `GET /console`: the account and its keys.
async fn home(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let Some((_, s)) = session(&state, &headers).await else {
        return see_other("/console/sign-in");
    };
    portal(&state, &s, StatusCode::OK, None).await
}

/// The developer portal page; `created` is a key just issued, shown this once.
async fn portal(
    state: &AppState,
    s: &Session,
    status: StatusCode,
    created: Option<(&keys::ApiKeyRecord, &str)>,
) -> Response {
    let account = match accounts::get(&state.db, s.account_id).await {
        Ok(Some(a)) => a,
        Ok(None) => {
            return page(
                StatusCode::NOT_FOUND,
                "No account",
                "<main><h1>This user's account no longer exists</h1></main>",
            );
        }
        Err(e) => return unavailable(&e),
    };
    let list = match keys::list_all(&state.db, account.id).await {
        Ok(l) => l,
        Err(e) => return unavailable(&e),
    };
    let csrf = esc(&s.csrf);
    let entitlements = if account.entitlements.is_empty() {
        "<li>none</li>".to_string()
    } else {
        account
            .entitlements
            .iter()
            .map(|e| format!("<li>{}</li>", esc(e.title())))
            .collect::<String>()
    };
    let mut limits = String::new();
    for b in Bucket::ALL {
        let used = match state.limiter.used(account.id, b).await {
            Ok(Some(n)) => n.to_string(),
            Ok(None) => "kept in Redis".to_string(),
            Err(_) => "unknown".to_string(),
        };
        limits.push_str(&format!(
            "<tr><td><code>{}</code></td><td>{} a minute</td><td>{}</td></tr>",
            esc(b.as_str()),
            account.rate_limits.limit(b),
            used
        ));
    }
    let active = match boxtrack_store::tracking::active_containers(&state.db, account.id).await {
        Ok(n) => n,
        Err(e) => return unavailable(&e),
    };
    let container_limit = match account.plan.active_container_limit() {
        Some(n) => format!("{active} of at most {n} active containers"),
        None => format!("{active} active containers (no limit)"),
    };
    let fresh = created.map_or(String::new(), |(k, full)| {
        format!(
            r#"<section aria-labelledby="new-key"><h2 id="new-key">Your new key{}</h2>
<p role="status">Copy it now: it is shown only this once. Send it as <code>Authorization: Token &lt;key&gt;</code>.</p>
<p class="secret" id="new-key-value">{}</p></section>"#,
            k.name.as_deref().map_or(String::new(), |n| format!(" “{}”", esc(n))),
            esc(full)
        )
    });
    let rows: String = list
        .iter()
        .map(|k| {
            let state_cell = match k.revoked_us {
                Some(_) => "revoked".to_string(),
                None => format!(
                    r#"<form method="post" action="/console/keys/{id}/revoke"><input type="hidden" name="csrf" value="{csrf}"><button type="submit" aria-label="Revoke key {hint}">Revoke</button></form>"#,
                    id = k.id,
                    hint = esc(&k.hint)
                ),
            };
            format!(
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(k.name.as_deref().unwrap_or("")),
                esc(&k.hint),
                boxtrack_core::time::format_micros(k.created_us),
                k.last_used_us.map_or("never".to_string(), boxtrack_core::time::format_micros),
                state_cell
            )
        })
        .collect();
    let body = format!(
        r#"<header><p><strong>boxtrack</strong> console · Account · <a href="/console/containers">Containers</a> · <a href="/console/tracking_requests">Tracking requests</a> · <a href="/console/reference">API reference</a></p><form method="post" action="/console/sign-out"><input type="hidden" name="csrf" value="{csrf}"><span>{email}</span> <button type="submit">Sign out</button></form></header>
<main><h1>{name}</h1>
{fresh}
<section aria-labelledby="plan"><h2 id="plan">Plan</h2>
<p>Plan <strong>{plan}</strong>: {container_limit}.</p>
<h3>Entitlements</h3><ul>{entitlements}</ul>
<h3>Rate limits</h3><table><thead><tr><th scope="col">Bucket</th><th scope="col">Limit</th><th scope="col">Used in the last minute</th></tr></thead><tbody>{limits}</tbody></table></section>
<section aria-labelledby="keys"><h2 id="keys">API keys</h2>
<table><thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"></th></tr></thead><tbody>{rows}</tbody></table>
<form method="post" action="/console/keys"><input type="hidden" name="csrf" value="{csrf}">
<label for="key-name">Name of a new key</label><input id="key-name" name="name" type="text" maxlength="100">
<button type="submit">Create a key</button></form></section></main>"#,
        email = esc(&s.email),
        name = esc(&account.name),
        plan = esc(account.plan.as_str()),
    );
    page(status, &account.name, &body)
}

/// `POST /console/keys`: issues a key and shows it once.
async fn create_key(
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(f): Form<HashMap<String, String>>,
) -> Response {
    let (_, s) = match signed_form(&state, &headers, &f).await {
        Ok(x) => x,
        Err(answer) => return answer,
    };
    let name = f
        .get("name")
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
        .map(|n| n.chars().take(100).collect::<String>());
    match keys::create(&state.db, s.account_id, name.as_deref()).await {
        Ok((record, key)) => {
            portal(
                &state,
                &s,
                StatusCode::CREATED,
                Some((&record, key.expose())),
            )
            .await
        }
        Err(e) => unavailable(&e),
    }
}

/// `POST /console/keys/{id}/revoke`.
async fn revoke_key(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Form(f): Form<HashMap<String, String>>,
) -> Response {
    let (_, s) = match signed_form(&state, &headers, &f).await {
        Ok(x) => x,
        Err(answer) => return answer,
    };
    let Ok(id) = id.parse::<Uuid>() else {
        return no_such_key();
    };
    match keys::revoke(&state.db, id, Some(s.account_id)).await {
        Ok(_) => {
            state.keys.forget_key(id);
            see_other("/console")
        }
        Err(boxtrack_store::StoreError::NotFound(_)) => no_such_key(),
        Err(e) => unavailable(&e),
    }
}
