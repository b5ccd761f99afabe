//! `/sim/v1/lines/{profile}/…`: each line's token endpoint and events endpoint at the paths its
//! profile's addresses name, answering as the line does.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Instant;

use axum::Json;
use axum::extract::{OriginalUri, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use boxtrack_sources::auth::ClientAuth;
use boxtrack_sources::dcsa::{Event, Version};
use boxtrack_sources::profiles::ProfileAuth;
use serde_json::json;

use super::{ErrorShape, Line, Paging};
use crate::auth::{clients, form_pairs, issue, oauth_error};
use crate::feeds::{asked_shipment, dcsa_error, visible_events};
use crate::{Fault, MALFORMED, Sim};

/// An error answer in the line's shape.
fn refusal(line: &Line, status: StatusCode, uri: &str, reason: &str, message: &str) -> Response {
    match line.errors {
        ErrorShape::Dcsa => dcsa_error(status, uri, reason, message),
        ErrorShape::ApiConnect => (
            status,
            Json(json!({
                "httpCode": status.as_u16().to_string(),
                "httpMessage": status.canonical_reason().unwrap_or(""),
                "moreInformation": message,
            })),
        )
            .into_response(),
        ErrorShape::Cop => {
            (status, Json(json!({"code": 5500, "message": message}))).into_response()
        }
    }
}

/// What a path the line does not serve answers: its gateway's 404 (not DCSA's).
fn no_route(line: Option<&Line>) -> Response {
    match line.map(|l| l.errors) {
        Some(ErrorShape::ApiConnect) => (
            StatusCode::NOT_FOUND,
            Json(json!({"httpCode": "404", "httpMessage": "Not Found", "moreInformation": "No resources match requested URI"})),
        )
            .into_response(),
        _ => (
            StatusCode::NOT_FOUND,
            [("Content-Type", "text/html")],
            "<html><body><h1>404 Not Found</h1></body></html>",
        )
            .into_response(),
    }
}

fn line_named(sim: &Sim, name: &str) -> Option<Line> {
    sim.lines().iter().find(|l| l.name() == name).copied()
}

/// `GET /sim/v1/lines/{profile}/{path}`: the line's events endpoint.
pub(crate) async fn get(
    State(sim): State<Sim>,
    Path((name, path)): Path<(String, String)>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let cop_number = |line: &Line| {
        let at = format!("{}/", line.events_path());
        format!("/{path}")
            .strip_prefix(&at)
            .filter(|n| line.speaks_cop() && !n.is_empty() && !n.contains('/'))
            .map(str::to_string)
    };
    match line_named(&sim, &name) {
        Some(line) if let Some(number) = cop_number(&line) => {
            let wire = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
            super::cop::tracking(&sim, &line, &headers, wire, &number, &q).await
        }
        Some(line) if format!("/{path}") == line.events_path() => {
            events(&sim, &line, &headers, &q).await
        }
        line => no_route(line.as_ref()),
    }
}

/// `POST /sim/v1/lines/{profile}/{path}`: the line's token endpoint, for OAuth 2.0.
pub(crate) async fn post(
    State(sim): State<Sim>,
    Path((name, path)): Path<(String, String)>,
    headers: HeaderMap,
    body: String,
) -> Response {
    match line_named(&sim, &name) {
        Some(line) if Some(format!("/{path}")) == line.token_path() => {
            token(&sim, &line, &headers, &body)
        }
        line => no_route(line.as_ref()),
    }
}

/// RFC 6749 §4.4 as the line's profile says: the client authenticated in the form or with
/// HTTP Basic (only the one the profile names), its id and secret the line's test
/// credentials; an expired client is refused, an unsubscribed one gets a token.
fn token(sim: &Sim, line: &Line, headers: &HeaderMap, body: &str) -> Response {
    let ProfileAuth::OAuth2 { client_auth, .. } = line.profile.auth else {
        return no_route(Some(line));
    };
    let form = form_pairs(body);
    if form.get("grant_type").map(String::as_str) != Some("client_credentials") {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            "only grant_type=client_credentials",
        );
    }
    let (basic, in_form) = clients(headers, &form);
    let (client, how) = match client_auth {
        ClientAuth::Body => (in_form, "in the form (client_id, client_secret)"),
        ClientAuth::Basic => (basic, "with HTTP Basic"),
    };
    let refuse = |why: &str| {
        sim.0.refused.fetch_add(1, Ordering::Relaxed);
        oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", why)
    };
    let Some((id, secret)) = client else {
        return refuse(&format!("send the client id and secret {how}"));
    };
    if id == line.expired() {
        return refuse("the client's credentials expired");
    }
    let known = id == line.credential("client_id") || id == line.unsubscribed();
    if !known || secret != line.credential("client_secret") {
        return refuse("client authentication failed");
    }
    issue(sim, Some(line.name()), &id)
}

/// Whether a request carries what the line demands.
enum Verdict {
    Admit,
    Refuse(String),
    Expired,
    Unsubscribed,
}

fn verdict(sim: &Sim, line: &Line, headers: &HeaderMap) -> Verdict {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    match line.profile.auth {
        ProfileAuth::Headers { headers: list } => {
            let names: Vec<&str> = list.iter().map(|h| h.header).collect();
            let wrong = Verdict::Refuse(format!(
                "the {} header(s) are missing or wrong",
                names.join(" and ")
            ));
            let mut who = None;
            for h in list {
                let got = header(h.header);
                if h.credential == line.identity() {
                    who = got.map(str::to_string);
                } else if got != Some(line.credential(h.credential).as_str()) {
                    return wrong;
                }
            }
            match who {
                Some(w) if w == line.expired() => Verdict::Expired,
                Some(w) if w == line.unsubscribed() => Verdict::Unsubscribed,
                Some(w) if w == line.credential(line.identity()) => Verdict::Admit,
                _ => wrong,
            }
        }
        ProfileAuth::OAuth2 { headers: extra, .. } => {
            let grant = header("Authorization")
                .and_then(|v| v.strip_prefix("Bearer "))
                .and_then(|t| {
                    sim.0
                        .tokens
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .get(t.trim())
                        .filter(|g| g.line == Some(line.name()) && g.expires > Instant::now())
                        .cloned()
                });
            let Some(grant) = grant else {
                return Verdict::Refuse("a valid access token is required".into());
            };
            for h in extra {
                let want = if h.credential == "client_id" {
                    grant.client.clone()
                } else {
                    line.credential(h.credential)
                };
                if header(h.header) != Some(want.as_str()) {
                    return Verdict::Refuse(format!(
                        "the {} header must carry the application's {}",
                        h.header, h.credential
                    ));
                }
            }
            if grant.client == line.unsubscribed() {
                Verdict::Unsubscribed
            } else {
                Verdict::Admit
            }
        }
        ProfileAuth::NotConfirmed { .. } => match header(super::UNCONFIRMED_AUTH_HEADER) {
            Some(k) if k == line.expired() => Verdict::Expired,
            Some(k) if k == line.unsubscribed() => Verdict::Unsubscribed,
            Some(k) if k == line.credential("api_key") => Verdict::Admit,
            _ => Verdict::Refuse(format!(
                "the {} header is missing or wrong",
                super::UNCONFIRMED_AUTH_HEADER
            )),
        },
        _ => Verdict::Admit,
    }
}

/// The answer to a caller the line does not admit, if it does not.
fn refused(sim: &Sim, line: &Line, headers: &HeaderMap, uri: &str) -> Option<Response> {
    let (status, message) = match verdict(sim, line, headers) {
        Verdict::Admit => return None,
        Verdict::Refuse(why) => (StatusCode::UNAUTHORIZED, why),
        Verdict::Expired => (
            StatusCode::UNAUTHORIZED,
            "the credentials expired; renew them on the portal".to_string(),
        ),
        Verdict::Unsubscribed => (
            StatusCode::FORBIDDEN,
            "the application is not subscribed to Track & Trace".to_string(),
        ),
    };
    sim.0.refused.fetch_add(1, Ordering::Relaxed);
    let reason = if status == StatusCode::FORBIDDEN {
        "forbidden"
    } else {
        "unauthorized"
    };
    let mut r = refusal(line, status, uri, reason, &message);
    if status == StatusCode::UNAUTHORIZED && matches!(line.profile.auth, ProfileAuth::OAuth2 { .. })
    {
        r.headers_mut().insert(
            "WWW-Authenticate",
            HeaderValue::from_static("Bearer error=\"invalid_token\""),
        );
    }
    Some(r)
}

/// A fault due for this request, answered as the line does.
pub(super) fn fault(sim: &Sim, line: &Line, uri: &str) -> Option<Response> {
    Some(match sim.fault_due()? {
        Fault::ServerError => refusal(
            line,
            StatusCode::SERVICE_UNAVAILABLE,
            uri,
            "serviceUnavailable",
            "upstream busy",
        ),
        Fault::RateLimited => {
            let mut r = refusal(
                line,
                StatusCode::TOO_MANY_REQUESTS,
                uri,
                "tooManyRequests",
                "rate limit exceeded",
            );
            if let Ok(v) = HeaderValue::from_str(&line.retry_after_secs.to_string()) {
                r.headers_mut().insert("Retry-After", v);
            }
            r
        }
        Fault::Malformed => (StatusCode::OK, MALFORMED).into_response(),
    })
}

async fn events(
    sim: &Sim,
    line: &Line,
    headers: &HeaderMap,
    q: &HashMap<String, String>,
) -> Response {
    let uri = format!("{}{}", line.prefix(), line.events_path());
    if let Some(r) = refused(sim, line, headers, &uri) {
        return r;
    }
    sim.maybe_slow().await;
    if let Some(r) = fault(sim, line, &uri) {
        return r;
    }
    let now = sim.clock().now_us();
    let Some((shipment, equipment)) = asked_shipment(sim, q, now) else {
        return refusal(
            line,
            StatusCode::BAD_REQUEST,
            &uri,
            "invalidQuery",
            "one of transportDocumentReference, carrierBookingReference or equipmentReference is required",
        );
    };
    let (since, limit) = crate::feeds::since_and_limit(q, line.version());
    let limit = limit.min(line.page_max);
    let offset = match (line.paging, q.get("cursor")) {
        (Paging::LimitOnly, _) | (_, None) => 0,
        (_, Some(c)) => match c.parse() {
            Ok(n) => n,
            Err(_) => {
                return refusal(
                    line,
                    StatusCode::BAD_REQUEST,
                    &uri,
                    "invalidCursor",
                    "the cursor is not one this line issued",
                );
            }
        },
    };
    let items: Vec<Event> = visible_events(
        sim,
        line.profile.scacs,
        shipment,
        equipment.as_deref(),
        since,
        now,
    )
    .into_iter()
    .filter_map(|e| line.shown(e))
    .collect();
    let host = headers
        .get("Host")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("127.0.0.1");
    let here = format!("http://{host}{uri}");
    page(line, &items, offset, limit, &here, q)
}

/// `here` with the query asked and the cursor at `offset`.
fn page_url(here: &str, q: &HashMap<String, String>, offset: usize) -> Option<HeaderValue> {
    let mut url = reqwest::Url::parse(here).ok()?;
    let mut pairs: Vec<(&String, &String)> = q.iter().filter(|(k, _)| *k != "cursor").collect();
    pairs.sort();
    {
        let mut w = url.query_pairs_mut();
        for (k, v) in pairs {
            w.append_pair(k, v);
        }
        w.append_pair("cursor", &offset.to_string());
    }
    HeaderValue::from_str(url.as_str()).ok()
}

/// One page of `items` with the line's paging headers.
fn page(
    line: &Line,
    items: &[Event],
    offset: usize,
    limit: usize,
    here: &str,
    q: &HashMap<String, String>,
) -> Response {
    let page: Vec<&Event> = items.iter().skip(offset).take(limit).collect();
    let more = offset + limit < items.len();
    let mut h = HeaderMap::new();
    h.insert(
        "API-Version",
        HeaderValue::from_static(line.version().api_version()),
    );
    match line.paging {
        Paging::LimitOnly => {}
        Paging::Cursor => {
            if more && let Ok(v) = HeaderValue::from_str(&(offset + limit).to_string()) {
                h.insert("Next-Page", v);
            }
        }
        Paging::Links => {
            let last = items.len().saturating_sub(1) / limit * limit;
            let mut link = |name: &'static str, at: usize| {
                if let Some(v) = page_url(here, q, at) {
                    h.insert(name, v);
                }
            };
            link("First-Page", 0);
            if offset > 0 {
                link("Previous-Page", offset.saturating_sub(limit));
            }
            if more {
                link("Next-Page", offset + limit);
            }
            link("Last-Page", last);
        }
    }
    match line.version() {
        Version::V2_2 => (StatusCode::OK, h, Json(page)).into_response(),
        Version::V3_0 => {
            let body = boxtrack_sources::dcsa::v3::body(page.iter().copied());
            (StatusCode::OK, h, Json(body)).into_response()
        }
    }
}
