//! The developer portal (`GET /console`): the account, its plan, entitlements and rate
//! limits with what the last minute used, its API keys (created, shown once, revoked) and its
//! publishable keys.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use boxtrack_app::keys;
use boxtrack_core::plan::Entitlement;
use boxtrack_core::ratelimit::Bucket;
use boxtrack_http::Front;
use boxtrack_http::html::esc;
use boxtrack_store::accounts::{self, Account};
use boxtrack_store::publishable::PublishableKeyRecord;
use boxtrack_store::sessions::Session;
use uuid::Uuid;

use crate::common::*;

/// `GET /console`: the account and its keys.
pub(crate) async fn home(State(state): State<Front>, SignedIn(s): SignedIn) -> Response {
    portal(&state, &s, StatusCode::OK, None).await
}

/// A key just issued, shown this once.
pub(crate) struct Fresh<'a> {
    /// A publishable key (else an API key).
    pub(crate) publishable: bool,
    /// Its name.
    pub(crate) name: Option<&'a str>,
    /// The whole key.
    pub(crate) full: &'a str,
}

/// The developer portal page; `created` is a key just issued, shown this once.
pub(crate) async fn portal(
    state: &Front,
    s: &Session,
    status: StatusCode,
    created: Option<Fresh<'_>>,
) -> Response {
    let account = match accounts::get(&state.ctx.db, s.account_id).await {
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
    let list = match keys::all(&state.ctx, account.id).await {
        Ok(l) => l,
        Err(e) => return crate::common::app_unavailable(e),
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
            _ if b == Bucket::Embed => "counted per publishable key".to_string(),
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
    let active = match boxtrack_store::tracking::active_containers(&state.ctx.db, account.id).await
    {
        Ok(n) => n,
        Err(e) => return unavailable(&e),
    };
    let container_limit = match account.plan.active_container_limit() {
        Some(n) => format!("{active} of at most {n} active containers"),
        None => format!("{active} active containers (no limit)"),
    };
    let fresh = created.map_or(String::new(), |k| {
        let (what, how) = if k.publishable {
            (
                "publishable key",
                "Put it in your pages' map and widget snippets (<code>authToken</code>, <code>data-token</code>).",
            )
        } else {
            (
                "key",
                "Send it as <code>Authorization: Token &lt;key&gt;</code>.",
            )
        };
        format!(
            r#"<section aria-labelledby="new-key"><h2 id="new-key">Your new {what}{}</h2>
<p role="status">Copy it now: it is shown only this once. {how}</p>
<p class="secret" id="new-key-value">{}</p></section>"#,
            k.name.map_or(String::new(), |n| format!(" “{}”", esc(n))),
            esc(k.full)
        )
    });
    let publishable_keys = match keys::publishable(&state.ctx, account.id).await {
        Ok(l) => publishable_section(&account, &l, &csrf),
        Err(e) => return crate::common::app_unavailable(e),
    };
    let rows = key_rows(&list, &csrf);
    let body = format!(
        r#"<header><p><strong>boxtrack</strong> console · <a href="/console/action">Needs action</a> · Account · <a href="/console/shipments">Shipments</a> · <a href="/console/containers">Containers</a> · <a href="/console/tracking_requests">Tracking requests</a> · <a href="/console/webhooks">Webhooks</a> · <a href="/console/sources">Sources</a> · <a href="/console/reference">API reference</a></p><form method="post" action="/console/sign-out"><input type="hidden" name="csrf" value="{csrf}"><span>{email}</span> <button type="submit">Sign out</button></form></header>
<main><h1>{name}</h1>
{fresh}
<section aria-labelledby="plan"><h2 id="plan">Plan</h2>
<p>Plan <strong>{plan}</strong>: {container_limit}.</p>
<h3>Entitlements</h3><ul>{entitlements}</ul>
<h3>Rate limits</h3><table><thead><tr><th scope="col">Bucket</th><th scope="col">Limit</th><th scope="col">Used in the last minute</th></tr></thead><tbody>{limits}</tbody></table></section>
<section aria-labelledby="keys"><h2 id="keys">API keys</h2>
<table><thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"></th></tr></thead><tbody>{rows}</tbody></table>
<form method="post" action="/console/keys"><input type="hidden" name="csrf" value="{csrf}">
<label for="key-name">Name of a new key</label><input id="key-name" name="name" type="text" maxlength="100">
<label for="key-expires">Expires on (optional; the key is refused from that day, midnight UTC)</label><input id="key-expires" name="expires_on" type="date">
<button type="submit">Create a key</button></form></section>
{publishable_keys}</main>"#,
        email = esc(&s.email),
        name = esc(&account.name),
        plan = esc(account.plan.as_str()),
    );
    page(status, &account.name, &body)
}

/// `POST /console/keys`: issues a key and shows it once.
pub(crate) async fn create_key(
    State(state): State<Front>,
    SignedForm(s, f): SignedForm,
) -> Response {
    let name = f
        .get("name")
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
        .map(|n| n.chars().take(100).collect::<String>());
    // a day in the future, or none; anything else is refused and nothing made
    let expires_us = match f
        .get("expires_on")
        .map(|d| d.trim())
        .filter(|d| !d.is_empty())
    {
        None => None,
        Some(day) => match boxtrack_core::time::parse_instant_or_date(day) {
            Some(at) if at > boxtrack_store::now_us() => Some(at),
            _ => {
                return (
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "The expiry must be a day after today (YYYY-MM-DD); no key was made.",
                )
                    .into_response();
            }
        },
    };
    match keys::create(&state.ctx, s.account_id, name.as_deref(), expires_us).await {
        Ok((record, key)) => {
            portal(
                &state,
                &s,
                StatusCode::CREATED,
                Some(Fresh {
                    publishable: false,
                    name: record.name.as_deref(),
                    full: key.expose(),
                }),
            )
            .await
        }
        Err(e) => crate::common::app_unavailable(e),
    }
}

/// `POST /console/keys/{id}/revoke`.
pub(crate) async fn revoke_key(
    State(state): State<Front>,
    Path(id): Path<String>,
    SignedForm(s, _): SignedForm,
) -> Response {
    let Ok(id) = id.parse::<Uuid>() else {
        return no_such_key();
    };
    match keys::revoke(&state.ctx, s.account_id, id).await {
        Ok(_) => {
            state.keys.forget_key(id);
            see_other("/console")
        }
        Err(boxtrack_app::AppError::NotFound(_)) => no_such_key(),
        Err(e) => crate::common::app_unavailable(e),
    }
}

/// The portal's section on publishable keys (`csrf` already escaped for HTML).
fn publishable_section(account: &Account, list: &[PublishableKeyRecord], csrf: &str) -> String {
    if !account.entitlements.contains(&Entitlement::Widget) {
        return r#"<section aria-labelledby="pkeys"><h2 id="pkeys">Publishable keys</h2>
<p>Publishable keys let web pages show the embeddable map and tracking widget. They need the <strong>embeddable map and widget</strong> entitlement, which this account does not have; ask your operator (<code>boxtrack accounts update ACCOUNT --entitlements widget</code>).</p></section>"#.to_string();
    }
    let rows: String = list
        .iter()
        .map(|k| {
            let state_cell = match k.revoked_us {
                Some(_) => "revoked".to_string(),
                None => format!(
                    r#"<form method="post" action="/console/publishable_keys/{id}/revoke"><input type="hidden" name="csrf" value="{csrf}"><button type="submit" aria-label="Revoke publishable key {hint}">Revoke</button></form>"#,
                    id = k.id,
                    hint = esc(&k.hint)
                ),
            };
            let origins = if k.allowed_origins.0.is_empty() {
                "any".to_string()
            } else {
                esc(&k.allowed_origins.0.join(" "))
            };
            format!(
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(k.name.as_deref().unwrap_or("")),
                esc(&k.hint),
                origins,
                boxtrack_core::time::format_micros(k.created_us),
                state_cell
            )
        })
        .collect();
    format!(
        r#"<section aria-labelledby="pkeys"><h2 id="pkeys">Publishable keys</h2>
<p>For the embeddable map and tracking widget (<a href="https://github.com/boxtrack/boxtrack/blob/main/docs/embedding.md">how to embed them</a>): a publishable key reads only <code>/embed/v1/map_geojson</code> and <code>/embed/v1/track</code>, only this account's data, and, when origins are listed, only from pages of those origins.</p>
<table><thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Allowed origins</th><th scope="col">Created</th><th scope="col"></th></tr></thead><tbody>{rows}</tbody></table>
<form method="post" action="/console/publishable_keys"><input type="hidden" name="csrf" value="{csrf}">
<label for="pkey-name">Name of a new publishable key</label><input id="pkey-name" name="name" type="text" maxlength="100">
<label for="pkey-origins">Allowed origins, one per line (empty: any)</label><textarea id="pkey-origins" name="origins" rows="2" placeholder="https://www.example.com"></textarea>
<button type="submit">Create a publishable key</button></form></section>"#
    )
}

/// This page's routes, each declared with its documentation.
pub(crate) fn routes() -> boxtrack_http::front::Mount {
    use crate::pagedoc::{expired, form, html, not_form, page, see_other, unavailable};

    boxtrack_http::front::Mount::default()
        .public_get("/console", self::home, || boxtrack_http::doc::Doc::from_value(page(
                "The developer portal",
                "The signed-in user's account: plan, entitlements, rate limits and API keys (masked), with forms to create and revoke keys. Without a session (cookie `btk_console`) it redirects to the sign-in page.",
                ("200", html("The portal page")),
                vec![
                    ("303", see_other("To /console/sign-in")),
                    ("404", html("The user's account no longer exists")),
                    ("503", unavailable()),
                ],
                None,
            )))
        .public_post("/console/keys", self::create_key, || boxtrack_http::doc::Doc::from_value(page(
                "Create an API key",
                "Issues a key for the signed-in user's account and shows the portal with the full key, this once; afterwards only its hint is shown.",
                ("201", html("The portal with the new key")),
                vec![
                    ("303", see_other("To /console/sign-in: no session")),
                    ("403", expired()),
                    ("415", not_form()),
                    ("503", unavailable()),
                ],
                Some(form(&[("name", boxtrack_http::schema::Schema::string().max_length(100))], &[])),
            )))
        .public_post("/console/keys/{id}/revoke", self::revoke_key, || boxtrack_http::doc::Doc::from_value({
                let mut op = page(
                    "Revoke an API key",
                    "Revokes one of the account's keys at once (in every process within a second).",
                    ("303", see_other("To /console")),
                    vec![
                        ("403", expired()),
                        ("404", html("No such key in this account")),
                        ("415", not_form()),
                        ("503", unavailable()),
                    ],
                    Some(form(&[], &[])),
                );
                op["parameters"] = crate::pagedoc::path_ids(&["id"]);
                op
            }))
}

/// The rows of the API key table: name, hint, created, last used, expiry, and a revoke
/// button for a key that still works.
fn key_rows(list: &[boxtrack_store::keys::ApiKeyRecord], csrf: &str) -> String {
    let now = boxtrack_store::now_us();
    list
        .iter()
        .map(|k| {
            let state_cell = match (k.revoked_us, k.expires_us) {
                (Some(_), _) => "revoked".to_string(),
                (None, Some(at)) if at <= now => {
                    format!("expired {}", boxtrack_core::time::format_micros(at))
                }
                _ => format!(
                    r#"<form method="post" action="/console/keys/{id}/revoke"><input type="hidden" name="csrf" value="{csrf}"><button type="submit" aria-label="Revoke key {hint}">Revoke</button></form>"#,
                    id = k.id,
                    hint = esc(&k.hint)
                ),
            };
            format!(
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(k.name.as_deref().unwrap_or("")),
                esc(&k.hint),
                boxtrack_core::time::format_micros(k.created_us),
                k.last_used_us.map_or("never".to_string(), boxtrack_core::time::format_micros),
                k.expires_us.map_or("never".to_string(), boxtrack_core::time::format_micros),
                state_cell
            )
        })
        .collect()
}
