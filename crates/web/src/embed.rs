//! The embeddable map and tracking widget (`/embed/…`): their scripts and stylesheets, the
//! offline base map, and the two data endpoints a publishable key (`btp_…`) can read:
//! `GET /embed/v1/map_geojson` (one container's journey) and `GET /embed/v1/track` (what the
//! account tracks under one number). Nothing else accepts a publishable key, and these accept
//! nothing else: a secret API key is refused here, so it is never pasted into a web page.
//!
//! A key reads only its own account's data, needs the account's `widget` entitlement (403
//! otherwise), may be limited to listed origins (checked against `Origin`, and answered with
//! CORS headers naming only that origin), and is counted in a rate-limit window of its own
//! (the `embed` bucket).

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use boxtrack_app::model::Account;
use boxtrack_app::{journey, keys};
use boxtrack_core::apikey::{PublishableKey, origin_allowed};
use boxtrack_core::plan::Entitlement;
use boxtrack_core::ratelimit::Bucket;
use boxtrack_http::Front;
use boxtrack_http::error::ApiError;
use uuid::Uuid;

use crate::common;
use crate::widget;

/// The map's script: Leaflet (vendored) followed by the map's own code.
const MAP_JS: &str = concat!(
    include_str!("../assets/vendor/leaflet/leaflet.js"),
    "\n",
    include_str!("../assets/embed/map.js")
);
/// The map's stylesheet: Leaflet's, then the map's own (scoped under `.tntm`).
const MAP_CSS: &str = concat!(
    include_str!("../assets/vendor/leaflet/leaflet.css"),
    "\n",
    include_str!("../assets/embed/map.css")
);
/// The widget's script.
const WIDGET_JS: &str = include_str!("../assets/embed/widget.js");
/// The widget's stylesheet (scoped under `.btw`).
const WIDGET_CSS: &str = include_str!("../assets/embed/widget.css");
/// Natural Earth's 1:110m land polygons (from world-atlas), the map's offline base map.
const LAND: &str = include_str!("../assets/vendor/world-atlas/land-110m.geojson");
/// The licences of what the embeds contain.
const LICENSES: &str = concat!(
    include_str!("../assets/vendor/leaflet/VERSION"),
    "\n",
    include_str!("../assets/vendor/leaflet/LICENSE"),
    "\n",
    include_str!("../assets/vendor/world-atlas/VERSION"),
    "\n",
    include_str!("../assets/vendor/world-atlas/LICENSE")
);

/// A static embed asset: readable from any origin (the land file is fetched by pages of
/// other sites).
fn asset(body: &'static str, content_type: &'static str) -> Response {
    common::asset(body.as_bytes(), content_type, true)
}

/// `GET /embed/map.js`.
pub async fn map_js() -> Response {
    asset(MAP_JS, "text/javascript; charset=utf-8")
}

/// `GET /embed/map.css`.
pub async fn map_css() -> Response {
    asset(MAP_CSS, "text/css; charset=utf-8")
}

/// `GET /embed/widget.js`.
pub async fn widget_js() -> Response {
    asset(WIDGET_JS, "text/javascript; charset=utf-8")
}

/// `GET /embed/widget.css`.
pub async fn widget_css() -> Response {
    asset(WIDGET_CSS, "text/css; charset=utf-8")
}

/// `GET /embed/land-110m.geojson`.
pub async fn land() -> Response {
    asset(LAND, "application/geo+json")
}

/// `GET /embed/licenses.txt`.
pub async fn licenses() -> Response {
    asset(LICENSES, "text/plain; charset=utf-8")
}

/// The request's `Origin`, if it sent one.
fn origin(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::ORIGIN).and_then(|v| v.to_str().ok())
}

/// Adds the CORS headers of an answer to `origin` (none without one): the data endpoints
/// answer the asking origin by name, never `*`, so a key's list of origins is what a browser
/// enforces.
fn with_cors(mut resp: Response, origin: Option<&str>) -> Response {
    let h = resp.headers_mut();
    h.insert(header::VARY, HeaderValue::from_static("Origin"));
    if let Some(v) = origin.and_then(|o| HeaderValue::from_str(o).ok()) {
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, v);
        h.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static("retry-after, ratelimit, ratelimit-policy"),
        );
    }
    resp
}

/// `OPTIONS /embed/v1/*`: the preflight of a request with an `Authorization` header. The key
/// is not sent with a preflight, so the origin is checked on the request itself.
pub async fn preflight(headers: HeaderMap) -> Response {
    let mut resp = StatusCode::NO_CONTENT.into_response();
    let h = resp.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, OPTIONS"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("authorization"),
    );
    h.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
    with_cors(resp, origin(&headers))
}

/// Who is asking: the publishable key's id and account.
struct Embedder {
    key_id: Uuid,
    account: Account,
}

/// Authenticates the publishable key of a request, checks its origin, the entitlement and
/// its rate limit.
async fn embedder(state: &Front, headers: &HeaderMap) -> Result<Embedder, Response> {
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, rest) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("token").then(|| rest.trim())
        });
    let Some(presented) = presented else {
        return Err(ApiError::unauthorized(
            "Send the publishable key as `Authorization: Token btp_…`.",
        )
        .into_response());
    };
    let key = PublishableKey::parse(presented).map_err(|_| {
        ApiError::unauthorized(
            "This endpoint takes a publishable key (btp_…) from the console, never a secret API key.",
        )
        .into_response()
    })?;
    let found = keys::authenticate_publishable(&state.ctx, &key)
        .await
        .map_err(|e| ApiError::from(e).into_response())?;
    let Some((key_id, origins, account)) = found else {
        return Err(ApiError::unauthorized("Unknown or revoked publishable key.").into_response());
    };
    if !origin_allowed(&origins, origin(headers)) {
        return Err(ApiError::forbidden(
            "This publishable key may not be used from this origin; add it to the key's allowed origins in the console.",
        )
        .into_response());
    }
    if !account.entitlements.contains(&Entitlement::Widget) {
        return Err(ApiError::forbidden(
            "The embeddable map and widget need the account's `widget` entitlement.",
        )
        .into_response());
    }
    let limit = account.rate_limits.limit(Bucket::Embed);
    let decision = state
        .limiter
        .check(key_id, Bucket::Embed, limit)
        .await
        .map_err(IntoResponse::into_response)?;
    if !decision.allowed {
        return Err(ApiError::too_many_requests(
            decision.retry_after_secs(),
            format!(
                "This publishable key has made its {limit} requests of the last minute; retry after {} seconds.",
                decision.retry_after_secs()
            ),
        )
        .into_response());
    }
    Ok(Embedder { key_id, account })
}

/// A required UUID query parameter.
fn uuid_param(q: &HashMap<String, String>, name: &str) -> Result<Uuid, ApiError> {
    let raw = q.get(name).map(|s| s.trim()).unwrap_or_default();
    Uuid::parse_str(raw).map_err(|_| {
        ApiError::bad_parameter(
            name,
            format!("`{name}` must be the id (a UUID) from the API."),
        )
    })
}

/// `GET /embed/v1/map_geojson?shipment_id=…&container_id=…`: the container's journey, as
/// `GET /v2/containers/{id}/map_geojson` draws it, when the container is the account's and
/// on that shipment.
pub async fn map_geojson(
    State(state): State<Front>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let asking = origin(&headers).map(str::to_string);
    let answer = async {
        let who = embedder(&state, &headers).await?;
        let shipment_id = uuid_param(&q, "shipment_id").map_err(IntoResponse::into_response)?;
        let container_id = uuid_param(&q, "container_id").map_err(IntoResponse::into_response)?;
        let found = journey::journey(&state.ctx, who.account.id, container_id)
            .await
            .map_err(|e| ApiError::from(e).into_response())?;
        match found {
            Some((on, doc)) if on == shipment_id => {
                tracing::debug!(key = %who.key_id, %container_id, "embedded map");
                let mut resp = axum::Json(doc).into_response();
                resp.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/geo+json"),
                );
                Ok(resp)
            }
            _ => Err(ApiError::not_found("container").into_response()),
        }
    }
    .await;
    with_cors(answer.unwrap_or_else(|e| e), asking.as_deref())
}

/// `GET /embed/v1/track?number=…`: the shipments and containers of the account whose bill of
/// lading, container or reference number is exactly `number` (no partial matches: a visitor
/// cannot list what the account tracks), with status, milestones, ETA and last free day.
pub async fn track(
    State(state): State<Front>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let asking = origin(&headers).map(str::to_string);
    let answer = async {
        let who = embedder(&state, &headers).await?;
        let number = q.get("number").map(|s| s.trim()).unwrap_or_default();
        let number = widget::valid_number(number)
            .map_err(|m| ApiError::bad_parameter("number", m).into_response())?;
        let body = widget::lookup(&state.ctx.db, who.account.id, &number)
            .await
            .map_err(|e| ApiError::from(e).into_response())?;
        tracing::debug!(key = %who.key_id, found = body.data.len(), "widget lookup");
        Ok::<Response, Response>(axum::Json(body).into_response())
    }
    .await;
    with_cors(answer.unwrap_or_else(|e| e), asking.as_deref())
}
