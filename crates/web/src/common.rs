//! What every console page shares: the session cookie and its reading, form tokens, the
//! page frame with its security headers, and the common answers (redirects, 403, 503).

use std::collections::HashMap;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use boxtrack_app::AppError;
use boxtrack_app::accounts;
use boxtrack_app::model::{ListSort, Session};
use boxtrack_core::oauth as secrets;
use boxtrack_http::Front;
use boxtrack_http::html::{cookie, secure_html};
use maud::{Markup, html};

use crate::layout::{User, document};

/// The session cookie.
pub const SESSION_COOKIE: &str = "btk_console";
/// The sign-in form's double-submit cookie.
pub(crate) const SIGN_IN_CSRF_COOKIE: &str = "btk_console_csrf";
/// How long a session lasts: 12 hours.
pub const SESSION_TTL_US: i64 = 12 * 3_600_000_000;

pub(crate) const CSP: &str = "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The policy of a page that runs the service's own scripts (the route map): scripts,
/// stylesheets and requests of this origin only.
pub(crate) const CSP_SCRIPTS: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// A page in the console's frame ([`crate::layout::document`]) under the strict policy.
pub(crate) fn page(status: StatusCode, title: &str, body: Markup) -> Response {
    page_with(status, title, body, &[], &[])
}

/// A page that also loads `styles` and, at the end of its body, `scripts` (paths of this
/// service's own files); a page with scripts is served under the policy that lets them run.
pub(crate) fn page_with(
    status: StatusCode,
    title: &str,
    body: Markup,
    styles: &[&str],
    scripts: &[&str],
) -> Response {
    let html = document(title, styles, scripts, body).into_string();
    let mut resp = (status, html).into_response();
    secure_html(
        &mut resp,
        if scripts.is_empty() { CSP } else { CSP_SCRIPTS },
    );
    resp
}

pub(crate) fn see_other(to: &str) -> Response {
    let mut r = StatusCode::SEE_OTHER.into_response();
    if let Ok(v) = HeaderValue::from_str(to) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

pub(crate) fn set_cookie(
    resp: &mut Response,
    state: &Front,
    name: &str,
    value: &str,
    max_age: i64,
) {
    let secure = state
        .config
        .public_url
        .as_deref()
        .is_some_and(|u| u.starts_with("https://"));
    let v = format!(
        "{name}={value}; Path=/console; HttpOnly; SameSite=Strict; Max-Age={max_age}{}",
        if secure { "; Secure" } else { "" }
    );
    if let Ok(v) = HeaderValue::from_str(&v) {
        resp.headers_mut().append(header::SET_COOKIE, v);
    }
}

/// The live session of the request's cookie, with its token's digest.
pub(crate) async fn session(state: &Front, headers: &HeaderMap) -> Option<(String, Session)> {
    let token = cookie(headers, SESSION_COOKIE)?;
    let digest = secrets::digest(&token);
    match accounts::session(&state.ctx, &digest).await {
        Ok(s) => s.map(|s| (digest, s)),
        Err(e) => {
            tracing::warn!(error = %e, "console: cannot read the session");
            None
        }
    }
}

/// The signed-in user's session, as a handler's argument: a request without a live session is
/// sent to the sign-in page.
pub(crate) struct SignedIn(pub(crate) Session);

impl axum::extract::FromRequestParts<Front> for SignedIn {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &Front,
    ) -> Result<SignedIn, Response> {
        match session(state, &parts.headers).await {
            Some((_, s)) => Ok(SignedIn(s)),
            None => Err(see_other("/console/sign-in")),
        }
    }
}

impl<'a> From<&'a Session> for User<'a> {
    fn from(s: &'a Session) -> User<'a> {
        User {
            email: &s.email,
            csrf: &s.csrf,
        }
    }
}

/// Whether a form's `csrf` field is the session's token.
pub(crate) fn csrf_ok(session: &Session, form: &HashMap<String, String>) -> bool {
    let sent = form.get("csrf").map(String::as_str).unwrap_or_default();
    !sent.is_empty() && secrets::digest(sent) == secrets::digest(&session.csrf)
}

/// The session of a signed-in form's request, if its form token is the session's; otherwise
/// the answer to give (to the sign-in page without a session, 403 with a wrong token).
pub(crate) async fn signed_form(
    state: &Front,
    headers: &HeaderMap,
    form: &HashMap<String, String>,
) -> Result<(String, Session), Response> {
    let Some((digest, s)) = session(state, headers).await else {
        return Err(see_other("/console/sign-in"));
    };
    if !csrf_ok(&s, form) {
        return Err(forbidden());
    }
    Ok((digest, s))
}

/// A signed-in user's form, as a handler's last argument: the session and the form's fields,
/// once the form's `csrf` field is found to be the session's token. A form that cannot be
/// read is refused as axum refuses it; without a session the answer is the sign-in page, with
/// a wrong token a 403.
pub(crate) struct SignedForm(pub(crate) Session, pub(crate) HashMap<String, String>);

impl axum::extract::FromRequest<Front> for SignedForm {
    type Rejection = Response;

    async fn from_request(req: axum::extract::Request, state: &Front) -> Result<Self, Response> {
        let headers = req.headers().clone();
        let axum::extract::Form(form) =
            axum::extract::Form::<HashMap<String, String>>::from_request(req, state)
                .await
                .map_err(IntoResponse::into_response)?;
        let (_, session) = signed_form(state, &headers, &form).await?;
        Ok(SignedForm(session, form))
    }
}

/// The page for a key that is not the account's.
pub(crate) fn no_such_key() -> Response {
    page(
        StatusCode::NOT_FOUND,
        "No such key",
        html! {
            main {
                h1 { "No such key" }
                p { a href="/console" { "Back to the console" } }
            }
        },
    )
}

/// The page for a form whose token is not the session's.
pub(crate) fn forbidden() -> Response {
    page(
        StatusCode::FORBIDDEN,
        "Form expired",
        html! {
            main {
                h1 { "This form expired" }
                p role="alert" {
                    "It did not come from this session's page. "
                    a href="/console" { "Open the console again" }
                    " and repeat what you did."
                }
            }
        },
    )
}

/// The page for a database that did not answer.
pub(crate) fn unavailable(e: &dyn std::fmt::Display) -> Response {
    tracing::warn!(error = %e, "console: the database failed");
    page(
        StatusCode::SERVICE_UNAVAILABLE,
        "Unavailable",
        html! {
            main {
                h1 { "The console cannot reach its database" }
                p role="alert" { "Try again in a moment." }
            }
        },
    )
}

/// The page for a use case that did not answer: the database's (as [`unavailable`]), or a
/// value of the address that means nothing, said plainly.
pub(crate) fn app_unavailable(e: AppError) -> Response {
    let (status, title, heading, said) = match e {
        e @ AppError::Store(_) => return unavailable(&e),
        AppError::NotFound(what) => {
            let body = html! {
                main {
                    h1 { "Not found" }
                    p { "This account has no such " (what) "." }
                }
            };
            return page(StatusCode::NOT_FOUND, "Not found", body);
        }
        AppError::Upstream(detail) => (
            StatusCode::BAD_GATEWAY,
            "Not read",
            "A source could not be read",
            detail,
        ),
        AppError::PlanLimit(limit) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            "Plan limit",
            "The plan's limit is reached",
            format!("The plan tracks at most {limit} active containers at once."),
        ),
        e @ AppError::Rejected(_) => (
            StatusCode::BAD_REQUEST,
            "Not understood",
            "The address asks for something the console cannot show",
            e.to_string(),
        ),
        AppError::Invalid { detail, .. }
        | AppError::Refused { detail, .. }
        | AppError::Unprocessable { detail, .. } => (
            StatusCode::BAD_REQUEST,
            "Not understood",
            "The address asks for something the console cannot show",
            detail,
        ),
    };
    page(
        status,
        title,
        html! {
            main {
                h1 { (heading) }
                p role="alert" { (said) }
            }
        },
    )
}

/// "N" or "more than N" for a list's total.
pub(crate) fn total_text(listed_total: u64, exact: bool) -> String {
    if exact {
        listed_total.to_string()
    } else {
        format!("more than {listed_total}")
    }
}

/// The previous and next links of a table at `path`; `query_for(n)` is page `n`'s query.
pub(crate) fn pager(
    path: &str,
    page: u32,
    has_next: bool,
    query_for: impl Fn(u32) -> String,
) -> Markup {
    let link = |n: u32| format!("{path}?{}", query_for(n));
    html! {
        @if page > 1 {
            a href=(link(page - 1)) rel="prev" { "Previous page" }
        }
        @if page > 1 && has_next {
            " · "
        }
        @if has_next {
            a href=(link(page + 1)) rel="next" { "Next page" }
        }
    }
}

/// A file compiled into the binary, cached for an hour; `cross_origin` lets pages of other
/// sites read it (the embeds).
pub(crate) fn asset(
    body: &'static [u8],
    content_type: &'static str,
    cross_origin: bool,
) -> Response {
    let mut resp = (StatusCode::OK, body).into_response();
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    if cross_origin {
        h.insert(
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        );
        h.insert(
            "cross-origin-resource-policy",
            HeaderValue::from_static("cross-origin"),
        );
    }
    resp
}

/// A SCAC or a UN/LOCODE as typed: letters and digits only, in capitals, or nothing.
pub(crate) fn code(raw: &str, len: std::ops::RangeInclusive<usize>) -> String {
    let c = raw.trim().to_ascii_uppercase();
    if len.contains(&c.len()) && c.bytes().all(|b| b.is_ascii_alphanumeric()) {
        c
    } else {
        String::new()
    }
}

/// Percent-encodes a query value.
pub(crate) fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A table's query string: the `(name, value)` pairs whose value is not empty, percent-encoded
/// in the order given, then `page=n` past the first page.
pub(crate) fn query_string(pairs: &[(&str, String)], page: u32) -> String {
    let mut parts: Vec<String> = pairs
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}={}", url_encode(v)))
        .collect();
    if page > 1 {
        parts.push(format!("page={page}"));
    }
    parts.join("&")
}

/// The header of a column the table sorts by: a link that orders the table by `first`, or by
/// `second` when it is already ordered by `first`, with `aria-sort` saying the current order.
/// `href` gives the address of the table in an order.
pub(crate) fn sort_header(
    label: &str,
    current: ListSort,
    (first, second): (ListSort, ListSort),
    href: impl Fn(ListSort) -> String,
) -> Markup {
    let ascending = |o: ListSort| !o.as_str().starts_with('-');
    let (aria, mark, next) = if current == first || current == second {
        let dir = if ascending(current) {
            ("ascending", " ▲")
        } else {
            ("descending", " ▼")
        };
        (dir.0, dir.1, if current == first { second } else { first })
    } else {
        ("none", "", first)
    };
    html! {
        th scope="col" aria-sort=(aria) {
            a href=(href(next)) { (label) (mark) }
        }
    }
}

/// The headers of the two time columns every table has: last update, then tracked since.
pub(crate) fn time_sort_headers(current: ListSort, href: impl Fn(ListSort) -> String) -> Markup {
    html! {
        (sort_header(
            "Updated (UTC)",
            current,
            (ListSort::UpdatedDesc, ListSort::UpdatedAsc),
            &href,
        ))
        (sort_header(
            "Tracked since (UTC)",
            current,
            (ListSort::CreatedDesc, ListSort::CreatedAsc),
            &href,
        ))
    }
}

/// The filter form's hidden field that keeps the table's order (none for the default).
pub(crate) fn sort_input(o: ListSort) -> Markup {
    html! {
        @if o != ListSort::default() {
            input type="hidden" name="sort" value=(o.as_str());
        }
    }
}

/// The `sort` value of a query: the order named, or the default when it names none (or one
/// the table does not offer).
pub(crate) fn sort_of(q: &HashMap<String, String>, offered: &[ListSort]) -> ListSort {
    q.get("sort")
        .and_then(|s| ListSort::parse(s.trim()))
        .filter(|o| offered.contains(o))
        .unwrap_or_default()
}

/// The query-string value of an order: empty for the default.
pub(crate) fn sort_value(o: ListSort) -> String {
    if o == ListSort::default() {
        String::new()
    } else {
        o.as_str().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sort_header_says_the_order_and_offers_the_next() {
        let href = |o: ListSort| format!("?sort={}", o.as_str());
        let lfd = (ListSort::LfdAsc, ListSort::LfdDesc);
        let none = sort_header("LFD", ListSort::UpdatedDesc, lfd, href).into_string();
        assert_eq!(
            none,
            r#"<th scope="col" aria-sort="none"><a href="?sort=pickup_lfd">LFD</a></th>"#
        );
        let up = sort_header("LFD", ListSort::LfdAsc, lfd, href).into_string();
        assert!(up.contains(r#"aria-sort="ascending""#) && up.contains("?sort=-pickup_lfd"));
        let down = sort_header("LFD", ListSort::LfdDesc, lfd, href).into_string();
        assert!(down.contains(r#"aria-sort="descending""#) && down.contains("?sort=pickup_lfd\""));
    }

    #[test]
    fn only_offered_orders_are_taken() {
        let q = |v: &str| HashMap::from([("sort".to_string(), v.to_string())]);
        let offered = [ListSort::UpdatedDesc, ListSort::CreatedAsc];
        assert_eq!(sort_of(&q(" created_at "), &offered), ListSort::CreatedAsc);
        assert_eq!(sort_of(&q("pickup_lfd"), &offered), ListSort::UpdatedDesc);
        assert_eq!(sort_of(&q("nonsense"), &offered), ListSort::UpdatedDesc);
        assert_eq!(sort_of(&HashMap::new(), &offered), ListSort::UpdatedDesc);
        assert_eq!(sort_value(ListSort::UpdatedDesc), "");
        for o in ListSort::ALL {
            assert_eq!(ListSort::parse(o.as_str()), Some(o));
        }
    }
}
