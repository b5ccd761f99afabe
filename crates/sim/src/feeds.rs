//! The carriers' DCSA Track & Trace endpoints (2.2 and 3.0) and the terminals' availability
//! feeds.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use boxtrack_core::time::{format_micros, parse_micros};
use boxtrack_sources::dcsa::Version;
use serde_json::json;

use crate::{CarrierAuth, Sim, dcsa_version};

pub(crate) fn dcsa_error(status: StatusCode, uri: &str, reason: &str, message: &str) -> Response {
    (
        status,
        Json(json!({
            "httpMethod": "GET", "requestUri": uri, "statusCode": status.as_u16(),
            "statusCodeText": status.canonical_reason().unwrap_or(""),
            "errorDateTime": format_micros(boxtrack_core::time::now_us()),
            "errors": [{"reason": reason, "message": message}]
        })),
    )
        .into_response()
}

pub(crate) async fn dcsa_events_v2(
    State(sim): State<Sim>,
    Path(scac): Path<String>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    dcsa_events(sim, scac, headers, q, Version::V2_2).await
}

pub(crate) async fn dcsa_events_v3(
    State(sim): State<Sim>,
    Path(scac): Path<String>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    dcsa_events(sim, scac, headers, q, Version::V3_0).await
}

/// A carrier's events in the DCSA version asked for, if it speaks it.
async fn dcsa_events(
    sim: Sim,
    scac: String,
    headers: HeaderMap,
    q: HashMap<String, String>,
    version: Version,
) -> Response {
    let uri = format!("/sim/v1/carriers/{scac}{}", version.events_path());
    if let Some(line) = sim.line_of(&scac) {
        return dcsa_error(
            StatusCode::NOT_FOUND,
            &uri,
            "notFound",
            &format!(
                "{scac} speaks through its line's API, at {}{}",
                line.prefix(),
                line.events_path()
            ),
        );
    }
    if let Some(refused) = refuse_version(&scac, version, &uri) {
        return refused;
    }
    if !sim.admits(&headers, &q) {
        return refuse_caller(&sim, &uri);
    }
    sim.maybe_slow().await;
    if let Some(r) = sim.fault() {
        return r;
    }
    let now = sim.clock().now_us();
    let (shipment, equipment) = match asked_shipment(&sim, &q, now) {
        Some(asked) => asked,
        None => {
            return dcsa_error(
                StatusCode::BAD_REQUEST,
                &uri,
                "invalidQuery",
                "one of transportDocumentReference, carrierBookingReference or equipmentReference is required",
            );
        }
    };
    let (since, limit) = since_and_limit(&q, version);
    let Some(offset) = page_offset(q.get("cursor"), version) else {
        return dcsa_error(
            StatusCode::BAD_REQUEST,
            &uri,
            "invalidCursor",
            "the cursor is not one this carrier issued",
        );
    };
    let items = visible_events(
        &sim,
        &[scac.as_str()],
        shipment,
        equipment.as_deref(),
        since,
        now,
    );
    events_page(&items, offset, limit, version)
}

/// 404 when the carrier does not speak the DCSA version asked for.
fn refuse_version(scac: &str, version: Version, uri: &str) -> Option<Response> {
    let speaks = dcsa_version(scac);
    (speaks != version).then(|| {
        dcsa_error(
            StatusCode::NOT_FOUND,
            uri,
            "notFound",
            &format!(
                "{scac} speaks DCSA Track & Trace {speaks}, at /sim/v1/carriers/{scac}{}",
                speaks.events_path()
            ),
        )
    })
}

/// 401 for a caller without the credential the simulator demands (counted as refused).
fn refuse_caller(sim: &Sim, uri: &str) -> Response {
    sim.0.refused.fetch_add(1, Ordering::Relaxed);
    let mut r = dcsa_error(
        StatusCode::UNAUTHORIZED,
        uri,
        "unauthorized",
        match sim.0.carrier_auth {
            CarrierAuth::OAuth2 => "a valid access token is required",
            CarrierAuth::Headers => "the client id and secret headers are required",
            _ => "a valid API key is required",
        },
    );
    if sim.0.carrier_auth == CarrierAuth::OAuth2 {
        r.headers_mut().insert(
            "WWW-Authenticate",
            HeaderValue::from_static("Bearer error=\"invalid_token\""),
        );
    }
    r
}

/// The shipment the query asks about (by bill of lading, booking or container) and the
/// container it is narrowed to; `None` when the query names none of them. A booking query
/// finds nothing during the silent days of the faults.
pub(crate) fn asked_shipment(
    sim: &Sim,
    q: &HashMap<String, String>,
    now: i64,
) -> Option<(Option<usize>, Option<String>)> {
    let inner = &sim.0;
    if let Some(bl) = q.get("transportDocumentReference") {
        Some((inner.by_bl.get(bl).copied(), None))
    } else if let Some(b) = q.get("carrierBookingReference") {
        if now < inner.world.origin_us + inner.faults.silent_booking_days * 86_400_000_000 {
            Some((None, None))
        } else {
            Some((inner.by_booking.get(b).copied(), None))
        }
    } else if let Some(c) = q.get("equipmentReference") {
        match inner.by_container.get(c) {
            Some((s, _)) => Some((Some(*s), Some(c.clone()))),
            None => Some((None, None)),
        }
    } else {
        None
    }
}

/// Where the page starts: a 2.2 cursor is the offset; a 3.0 cursor is opaque to the consumer
/// (`None`: not a cursor this carrier issued).
fn page_offset(cursor: Option<&String>, version: Version) -> Option<usize> {
    match (cursor, version) {
        (None, _) => Some(0),
        (Some(c), Version::V2_2) => Some(c.parse().unwrap_or(0)),
        (Some(c), Version::V3_0) => c.strip_prefix("after-").and_then(|n| n.parse().ok()),
    }
}

/// The shipment's events the carriers `scacs` report at `now`: their own shipments only,
/// created since `since`, about `equipment` (or the whole shipment) when asked.
pub(crate) fn visible_events<'a>(
    sim: &'a Sim,
    scacs: &[&str],
    shipment: Option<usize>,
    equipment: Option<&str>,
    since: Option<i64>,
    now: i64,
) -> Vec<&'a boxtrack_sources::dcsa::Event> {
    let inner = &sim.0;
    match shipment {
        Some(i) if scacs.contains(&inner.world.shipments[i].scac.as_str()) => inner.events[i]
            .iter()
            .filter(|t| t.visible_us <= now)
            .filter(|t| since.is_none_or(|s| t.visible_us >= s))
            .filter(|t| {
                equipment.is_none_or(|c| t.item.equipment_reference.as_ref().is_none_or(|e| e == c))
            })
            .map(|t| &t.item)
            .collect(),
        _ => vec![],
    }
}

/// One page of `items` in the version's shape, with its paging headers.
fn events_page(
    items: &[&boxtrack_sources::dcsa::Event],
    offset: usize,
    limit: usize,
    version: Version,
) -> Response {
    let page: Vec<&boxtrack_sources::dcsa::Event> =
        items.iter().skip(offset).take(limit).copied().collect();
    let mut headers = HeaderMap::new();
    headers.insert(
        "API-Version",
        HeaderValue::from_static(version.api_version()),
    );
    let more = offset + limit < items.len();
    match version {
        Version::V2_2 => {
            if let Ok(v) = HeaderValue::from_str(&offset.to_string()) {
                headers.insert("Current-Page", v);
            }
            if more && let Ok(v) = HeaderValue::from_str(&(offset + limit).to_string()) {
                headers.insert("Next-Page", v);
            }
            (StatusCode::OK, headers, Json(page)).into_response()
        }
        Version::V3_0 => {
            if more && let Ok(v) = HeaderValue::from_str(&format!("after-{}", offset + limit)) {
                headers.insert("Next-Page-Cursor", v);
            }
            let body = boxtrack_sources::dcsa::v3::body(page.iter().copied());
            (StatusCode::OK, headers, Json(body)).into_response()
        }
    }
}

pub(crate) async fn terminal_container(
    State(sim): State<Sim>,
    Path((code, number)): Path<(String, String)>,
) -> Response {
    sim.maybe_slow().await;
    if let Some(r) = sim.fault() {
        return r;
    }
    let now = sim.clock().now_us();
    match sim.0.by_container.get(&number) {
        Some((s, i)) if sim.0.world.shipments[*s].terminal == code => {
            match sim.0.world.shipments[*s].terminal_status(*i, now) {
                Some(status) => Json(status).into_response(),
                None => (
                    StatusCode::NOT_FOUND,
                    Json(json!({"error": format!("{number} is not at {code}")})),
                )
                    .into_response(),
            }
        }
        _ => (
            StatusCode::NOT_FOUND,
            Json(json!({"error": format!("{number} is not at {code}")})),
        )
            .into_response(),
    }
}

/// A DCSA events query's lower time bound (by the version's parameter name) and page size
/// (`limit`, 100 by default, 1 to 1,000).
pub(crate) fn since_and_limit(
    q: &HashMap<String, String>,
    version: Version,
) -> (Option<i64>, usize) {
    let since = q
        .get(match version {
            Version::V2_2 => "eventCreatedDateTime:gte",
            Version::V3_0 => "eventUpdatedDateTimeMin",
        })
        .and_then(|s| parse_micros(s));
    let limit = q
        .get("limit")
        .and_then(|l| l.parse().ok())
        .unwrap_or(100)
        .clamp(1, 1000);
    (since, limit)
}
