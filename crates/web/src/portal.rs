//! The developer portal (`GET /console`): the account, its plan, entitlements and rate
//! limits with what the last minute used, its API keys (created, shown once, revoked) and its
//! publishable keys.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use boxtrack_app::keys;
use boxtrack_app::model::{Account, ApiKeyRecord, PublishableKeyRecord, Session};
use boxtrack_app::{AppError, accounts};
use boxtrack_core::plan::Entitlement;
use boxtrack_core::ratelimit::Bucket;
use boxtrack_core::time::{format_micros, parse_instant_or_date};
use boxtrack_http::Front;
use boxtrack_http::doc::Doc;
use boxtrack_http::front::Mount;
use boxtrack_http::schema::Schema;
use maud::{Markup, html};
use uuid::Uuid;

use crate::common;
use crate::common::*;
use crate::layout::{Place, signed_in};
use crate::pagedoc;

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
    let account = match accounts::get(&state.ctx, s.account_id).await {
        Ok(Some(a)) => a,
        Ok(None) => {
            return page(
                StatusCode::NOT_FOUND,
                "No account",
                html! { main { h1 { "This user's account no longer exists" } } },
            );
        }
        Err(e) => return unavailable(&e),
    };
    let list = match keys::all(&state.ctx, account.id).await {
        Ok(l) => l,
        Err(e) => return common::app_unavailable(e),
    };
    let limits = limits_used(state, account.id).await;
    let active = match accounts::active_containers(&state.ctx, account.id).await {
        Ok(n) => n,
        Err(e) => return unavailable(&e),
    };
    let publishable_keys = match keys::publishable(&state.ctx, account.id).await {
        Ok(l) => publishable_section(&account, &l, &s.csrf),
        Err(e) => return common::app_unavailable(e),
    };
    let main = html! {
        h1 { (account.name) }
        @if let Some(k) = created {
            (fresh(&k))
        }
        (plan_section(&account, active, &limits))
        (keys_section(&list, &s.csrf, state.ctx.now_us()))
        (publishable_keys)
    };
    page(status, &account.name, signed_in(Place::Account, s, main))
}

/// What the account used of each rate-limit bucket in the last minute, as the page says it.
async fn limits_used(state: &Front, account_id: Uuid) -> Vec<(Bucket, String)> {
    let mut limits = Vec::new();
    for b in Bucket::ALL {
        let used = match state.limiter.used(account_id, b).await {
            _ if b == Bucket::Embed => "counted per publishable key".to_string(),
            Ok(Some(n)) => n.to_string(),
            Ok(None) => "kept in Redis".to_string(),
            Err(_) => "unknown".to_string(),
        };
        limits.push((b, used));
    }
    limits
}

/// The plan: its container limit, entitlements and rate limits with what was used.
fn plan_section(account: &Account, active: i64, limits: &[(Bucket, String)]) -> Markup {
    let container_limit = match account.plan.active_container_limit() {
        Some(n) => format!("{active} of at most {n} active containers"),
        None => format!("{active} active containers (no limit)"),
    };
    html! {
        section aria-labelledby="plan" {
            h2 id="plan" { "Plan" }
            p { "Plan " strong { (account.plan.as_str()) } ": " (container_limit) "." }
            h3 { "Entitlements" }
            ul {
                @for e in &account.entitlements {
                    li { (e.title()) }
                } @if account.entitlements.is_empty() {
                    li { "none" }
                }
            }
            h3 { "Rate limits" }
            table {
                thead { tr { th scope="col" { "Bucket" } th scope="col" { "Limit" } th scope="col" { "Used in the last minute" } } }
                tbody {
                    @for (b, used) in limits {
                        tr {
                            td { code { (b.as_str()) } }
                            td { (account.rate_limits.limit(*b)) " a minute" }
                            td { (used) }
                        }
                    }
                }
            }
        }
    }
}

/// The account's API keys and the form that makes one.
fn keys_section(list: &[ApiKeyRecord], csrf: &str, now_us: i64) -> Markup {
    html! {
        section aria-labelledby="keys" {
            h2 id="keys" { "API keys" }
            table {
                thead {
                    tr {
                        th scope="col" { "Name" }
                        th scope="col" { "Key" }
                        th scope="col" { "Created" }
                        th scope="col" { "Last used" }
                        th scope="col" { "Expires" }
                        th scope="col" {}
                    }
                }
                tbody { (key_rows(list, csrf, now_us)) }
            }
            form method="post" action="/console/keys" {
                input type="hidden" name="csrf" value=(csrf);
                label for="key-name" { "Name of a new key" }
                input id="key-name" name="name" type="text" maxlength="100";
                label for="key-expires" { "Expires on (optional; the key is refused from that day, midnight UTC)" }
                input id="key-expires" name="expires_on" type="date";
                " "
                button type="submit" { "Create a key" }
            }
        }
    }
}

/// A key just issued, shown this once.
fn fresh(k: &Fresh<'_>) -> Markup {
    html! {
        section aria-labelledby="new-key" {
            h2 id="new-key" {
                "Your new " (if k.publishable { "publishable key" } else { "key" })
                @if let Some(n) = k.name {
                    " “" (n) "”"
                }
            }
            p role="status" {
                "Copy it now: it is shown only this once. "
                @if k.publishable {
                    "Put it in your pages' map and widget snippets (" code { "authToken" } ", " code { "data-token" } ")."
                } @else {
                    "Send it as " code { "Authorization: Token <key>" } "."
                }
            }
            p class="secret" id="new-key-value" { (k.full) }
        }
    }
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
        Some(day) => match parse_instant_or_date(day) {
            Some(at) if at > state.ctx.now_us() => Some(at),
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
        Err(e) => common::app_unavailable(e),
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
        Err(AppError::NotFound(_)) => no_such_key(),
        Err(e) => common::app_unavailable(e),
    }
}

/// The portal's section on publishable keys.
fn publishable_section(account: &Account, list: &[PublishableKeyRecord], csrf: &str) -> Markup {
    if !account.entitlements.contains(&Entitlement::Widget) {
        return html! {
            section aria-labelledby="pkeys" {
                h2 id="pkeys" { "Publishable keys" }
                p {
                    "Publishable keys let web pages show the embeddable map and tracking widget. They need the "
                    strong { "embeddable map and widget" }
                    " entitlement, which this account does not have; ask your operator ("
                    code { "boxtrack accounts update ACCOUNT --entitlements widget" }
                    ")."
                }
            }
        };
    }
    html! {
        section aria-labelledby="pkeys" {
            h2 id="pkeys" { "Publishable keys" }
            p {
                "For the embeddable map and tracking widget ("
                a href="https://github.com/boxtrack/boxtrack/blob/main/docs/embedding.md" { "how to embed them" }
                "): a publishable key reads only "
                code { "/embed/v1/map_geojson" }
                " and "
                code { "/embed/v1/track" }
                ", only this account's data, and, when origins are listed, only from pages of those origins."
            }
            table {
                thead {
                    tr {
                        th scope="col" { "Name" }
                        th scope="col" { "Key" }
                        th scope="col" { "Allowed origins" }
                        th scope="col" { "Created" }
                        th scope="col" {}
                    }
                }
                tbody {
                    @for k in list {
                        tr {
                            td { (k.name.as_deref().unwrap_or("")) }
                            td { code { (k.hint) } }
                            td {
                                @if k.allowed_origins.is_empty() {
                                    "any"
                                } @else {
                                    (k.allowed_origins.join(" "))
                                }
                            }
                            td { (format_micros(k.created_us)) }
                            td {
                                @if k.revoked_us.is_some() {
                                    "revoked"
                                } @else {
                                    form method="post" action={ "/console/publishable_keys/" (k.id) "/revoke" } {
                                        input type="hidden" name="csrf" value=(csrf);
                                        button type="submit" aria-label={ "Revoke publishable key " (k.hint) } { "Revoke" }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            form method="post" action="/console/publishable_keys" {
                input type="hidden" name="csrf" value=(csrf);
                label for="pkey-name" { "Name of a new publishable key" }
                input id="pkey-name" name="name" type="text" maxlength="100";
                label for="pkey-origins" { "Allowed origins, one per line (empty: any)" }
                textarea id="pkey-origins" name="origins" rows="2" placeholder="https://www.example.com" {}
                " "
                button type="submit" { "Create a publishable key" }
            }
        }
    }
}

/// This page's routes, each declared with its documentation.
pub(crate) fn routes() -> Mount {
    use crate::pagedoc::{expired, form, html, not_form, page, see_other, unavailable};

    Mount::default()
        .public_get("/console", self::home, || Doc::from_value(page(
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
        .public_post("/console/keys", self::create_key, || Doc::from_value(page(
                "Create an API key",
                "Issues a key for the signed-in user's account and shows the portal with the full key, this once; afterwards only its hint is shown.",
                ("201", html("The portal with the new key")),
                vec![
                    ("303", see_other("To /console/sign-in: no session")),
                    ("403", expired()),
                    ("415", not_form()),
                    ("503", unavailable()),
                ],
                Some(form(&[("name", Schema::string().max_length(100))], &[])),
            )))
        .public_post("/console/keys/{id}/revoke", self::revoke_key, || Doc::from_value({
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
                op["parameters"] = pagedoc::path_ids(&["id"]);
                op
            }))
}

/// The rows of the API key table: name, hint, created, last used, expiry, and a revoke
/// button for a key that still works (at `now`).
fn key_rows(list: &[ApiKeyRecord], csrf: &str, now: i64) -> Markup {
    let time = |t: Option<i64>| t.map_or("never".to_string(), format_micros);
    html! {
        @for k in list {
            tr {
                td { (k.name.as_deref().unwrap_or("")) }
                td { code { (k.hint) } }
                td { (format_micros(k.created_us)) }
                td { (time(k.last_used_us)) }
                td { (time(k.expires_us)) }
                td {
                    @match (k.revoked_us, k.expires_us) {
                        (Some(_), _) => { "revoked" }
                        (None, Some(at)) if at <= now => { "expired " (format_micros(at)) }
                        _ => {
                            form method="post" action={ "/console/keys/" (k.id) "/revoke" } {
                                input type="hidden" name="csrf" value=(csrf);
                                button type="submit" aria-label={ "Revoke key " (k.hint) } { "Revoke" }
                            }
                        }
                    }
                }
            }
        }
    }
}
