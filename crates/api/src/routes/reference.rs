//! Reference data: shipping lines, ports (by id or UN/LOCODE) and terminals (by id or FIRMS code).

use axum::extract::{Path, RawQuery};
use boxtrack_app::vessels;
use boxtrack_core::reference::{self, Port};
use boxtrack_core::{carriers, routemap};
use serde_json::Value;
use uuid::Uuid;

pub use boxtrack_views::reference::{
    line_resource, metro_id, metro_resource, port_resource, terminal_resource, vessel_id,
    vessel_resource,
};

use boxtrack_http::auth::Caller;
use boxtrack_views::jsonapi::{At, Resource};
use boxtrack_views::reference::{Position, Vessel, line_id};

use crate::state::{AppState, Routes};
use boxtrack_core::plan::Entitlement;
use boxtrack_http::doc::{Doc, Q, all_of, q_schema, single};
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::jsonapi::{Collection, JsonApi, QueryParams, SelfLink};
use boxtrack_http::schema::{Param, Schema, Type};
use boxtrack_views::reference as views_reference;

/// `GET /v2/shipping_lines` (optionally `search=` on name or SCAC).
pub async fn lines(_caller: Caller, RawQuery(raw): RawQuery) -> JsonApi {
    let q = QueryParams::parse(raw.as_deref());
    let search = q
        .text("search")
        .or_else(|| q.text("q"))
        .map(|s| s.to_lowercase());
    let data: Vec<Value> = carriers::shipping_lines()
        .iter()
        .filter(|l| {
            search.as_deref().is_none_or(|s| {
                l.name.to_lowercase().contains(s)
                    || l.scac.to_lowercase().contains(s)
                    || l.short_name.to_lowercase().contains(s)
            })
        })
        .map(line_resource)
        .collect();
    JsonApi::of(&Collection::of(data))
}

/// `GET /v2/shipping_lines/{id}` (id or SCAC).
pub async fn line(_caller: Caller, Path(id): Path<String>) -> ApiResult<JsonApi> {
    // by id, SCAC or an alternative SCAC (`SEAL` is SeaLand's `SEAU`)
    let found = carriers::shipping_lines()
        .iter()
        .find(|l| line_id(&l.scac).to_string() == id)
        .or_else(|| carriers::by_scac(&id.to_ascii_uppercase()));
    found
        .map(|l| JsonApi::single(line_resource(l), vec![]))
        .ok_or_else(|| ApiError::not_found("shipping_line"))
}

/// `GET /v2/ports/{id}` (id or UN/LOCODE).
pub async fn port(
    _caller: Caller,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let includes = QueryParams::parse(raw.as_deref()).includes("port", &["terminals"])?;
    let found = match Uuid::parse_str(&id) {
        Ok(u) => reference::port_by_id(*u.as_bytes()),
        Err(_) => reference::port(&id.to_ascii_uppercase()),
    };
    let p = found.ok_or_else(|| ApiError::not_found("port"))?;
    // its terminals, when asked for (they name the port back)
    let included = if includes.iter().any(|i| i == "terminals") {
        reference::terminals()
            .iter()
            .filter(|t| t.port_locode == p.locode)
            .map(terminal_resource)
            .collect()
    } else {
        Vec::new()
    };
    Ok(JsonApi::single(port_resource(p), included))
}

/// The IMO and name of a vessel of the account's events, by id or 7-digit IMO number.
async fn find_vessel(state: &AppState, caller: &Caller, id: &str) -> ApiResult<(String, String)> {
    let imo = if id.len() == 7 && id.bytes().all(|b| b.is_ascii_digit()) {
        Some(id.to_string())
    } else {
        None
    };
    let imo = match (imo, Uuid::parse_str(id)) {
        (Some(imo), _) => imo,
        (None, Ok(u)) => {
            // ids are derived from the IMO; find it among the account's vessels
            let imos = vessels::imos(&state.ctx, caller.account.id).await?;
            imos.into_iter()
                .find(|i| vessel_id(i) == u)
                .ok_or_else(|| ApiError::not_found("vessel"))?
        }
        _ => return Err(ApiError::not_found("vessel")),
    };
    let name = vessels::name(&state.ctx, caller.account.id, &imo)
        .await?
        .ok_or_else(|| ApiError::not_found("vessel"))?;
    Ok((imo, name))
}

/// The vessel resource with what AIS says of it.
async fn vessel_with_ais(
    state: &AppState,
    imo: &str,
    name: &str,
) -> ApiResult<(Resource<Vessel>, Option<vessels::AisVessel>)> {
    let ais = vessels::ais(&state.ctx, imo).await?;
    Ok((views_reference::vessel(imo, Some(name), ais.as_ref()), ais))
}

/// `GET /v2/vessels/{id}` (id or 7-digit IMO number) for vessels seen in the account's
/// events; `show_positions[from_timestamp]` / `[to_timestamp]` add the AIS track (routing
/// entitlement).
pub async fn vessel(
    axum::extract::State(state): axum::extract::State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    axum::extract::RawQuery(raw): axum::extract::RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let from = q.time("show_positions[from_timestamp]")?;
    let to = q.time("show_positions[to_timestamp]")?;
    let show_positions = from.is_some() || to.is_some();
    if show_positions {
        caller.require(Entitlement::Routing)?;
    }
    let (imo, name) = find_vessel(&state, &caller, &id).await?;
    let (mut v, ais) = vessel_with_ais(&state, &imo, &name).await?;
    if show_positions && let Some(ais) = ais {
        let track = vessels::track(&state.ctx, ais.mmsi, from, to, 10_000).await?;
        v.attributes.positions = track
            .iter()
            .map(|p| Position {
                latitude: p.latitude,
                longitude: p.longitude,
                heading: None,
                timestamp: At(p.position_us),
                estimated: false,
            })
            .collect();
    }
    Ok(JsonApi::single(v.to_value(), vec![]))
}

/// A port by its id or UN/LOCODE, or 400 naming the parameter.
fn port_param(q: &QueryParams, name: &str) -> ApiResult<&'static Port> {
    let raw = q.get(name).unwrap_or_default();
    let locode = raw.len() == 5 && raw.bytes().all(|b| b.is_ascii_alphanumeric());
    let found = match Uuid::try_parse(raw) {
        Ok(u) if raw.len() == 36 => reference::port_by_id(*u.as_bytes()),
        _ if locode => reference::port(&raw.to_ascii_uppercase()),
        _ => {
            return Err(ApiError::bad_parameter(
                name,
                format!("{name} must be a port id or a UN/LOCODE"),
            ));
        }
    };
    // well-formed, but no port boxtrack can sail to: not found, as an unknown id in a path
    found
        .filter(|p| p.latitude.is_some() && p.longitude.is_some())
        .ok_or_else(|| {
            ApiError::new(
                axum::http::StatusCode::NOT_FOUND,
                format!("{name} {raw:?} is not a port with coordinates (GET /v2/ports/{{id}})"),
            )
        })
}

/// The destination and previous port parameters of the future positions.
fn port_params() -> Vec<(&'static str, Schema, bool, &'static str)> {
    vec![
        (
            "port_id",
            port_schema(),
            true,
            "Destination port (id or UN/LOCODE)",
        ),
        (
            "previous_port_id",
            port_schema(),
            true,
            "Previous port (id or UN/LOCODE)",
        ),
    ]
}

/// The schema of a port given by id or UN/LOCODE.
fn port_schema() -> Schema {
    Schema::any_of(vec![
        Schema::any().format("uuid"),
        Schema::any().pattern("^[A-Za-z]{2}[A-Za-z0-9]{3}$"),
    ])
    .typed(Type::String)
}

/// Knots assumed when AIS gives no useful speed.
const DEFAULT_KNOTS: f64 = 15.0;

/// `GET /v2/vessels/{id}/future_positions` and `…_with_coordinates`: where the vessel will
/// be, one position a minute, sailing the great circle to `port_id` from `latitude` /
/// `longitude` (with coordinates), else from its latest AIS position, else from
/// `previous_port_id`, at its AIS speed (15 knots when it reports under 3).
async fn future(
    state: AppState,
    caller: Caller,
    id: String,
    raw: Option<String>,
    with_coordinates: bool,
) -> ApiResult<JsonApi> {
    caller.require(Entitlement::Routing)?;
    let q = QueryParams::parse(raw.as_deref());
    let to = port_param(&q, "port_id")?;
    let previous = port_param(&q, "previous_port_id")?;
    let (imo, name) = find_vessel(&state, &caller, &id).await?;
    let (mut v, ais) = vessel_with_ais(&state, &imo, &name).await?;
    let coordinate = |name: &str, range: f64| -> ApiResult<f64> {
        q.get(name)
            .and_then(|t| t.parse::<f64>().ok())
            .filter(|x| x.is_finite() && x.abs() <= range)
            .ok_or_else(|| {
                ApiError::bad_parameter(name, format!("{name} must be a number within ±{range}"))
            })
    };
    let now = state.ctx.now_us();
    let at_port = |p: &Port| {
        [
            p.latitude.unwrap_or_default(),
            p.longitude.unwrap_or_default(),
        ]
    };
    let (start, start_us) = if with_coordinates {
        (
            [
                coordinate("latitude", 90.0)?,
                coordinate("longitude", 180.0)?,
            ],
            now,
        )
    } else {
        match ais
            .as_ref()
            .and_then(|a| Some(([a.latitude?, a.longitude?], a.position_us?)))
        {
            Some((p, at)) => (p, at),
            None => (at_port(previous), now),
        }
    };
    let knots = ais
        .as_ref()
        .and_then(|a| a.speed_knots)
        .filter(|k| *k >= 3.0 && *k < 60.0)
        .unwrap_or(DEFAULT_KNOTS);
    let passage = routemap::sail(
        start,
        at_port(to),
        start_us,
        knots,
        60_000_000,
        60 * 24 * 45,
    );
    v.attributes.positions = passage
        .iter()
        .map(|p| Position {
            latitude: p.lat,
            longitude: p.lon,
            heading: Some((p.heading * 10.0).round() / 10.0),
            timestamp: At(p.at_us),
            estimated: true,
        })
        .collect();
    let mut doc = JsonApi::single(v.to_value(), vec![]);
    doc.tree_mut()["links"] =
        Value::from(SelfLink::to(format!("/v2/vessels/{id}/future_positions")));
    Ok(doc)
}

/// `GET /v2/vessels/{id}/future_positions`.
pub async fn future_positions(
    axum::extract::State(state): axum::extract::State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    axum::extract::RawQuery(raw): axum::extract::RawQuery,
) -> ApiResult<JsonApi> {
    future(state, caller, id, raw, false).await
}

/// `GET /v2/vessels/{id}/future_positions_with_coordinates`.
pub async fn future_positions_with_coordinates(
    axum::extract::State(state): axum::extract::State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    axum::extract::RawQuery(raw): axum::extract::RawQuery,
) -> ApiResult<JsonApi> {
    future(state, caller, id, raw, true).await
}

/// `GET /v2/metro_areas/{id}` (id or UN/LOCODE).
pub async fn metro(_caller: Caller, Path(id): Path<String>) -> ApiResult<JsonApi> {
    let found = match Uuid::parse_str(&id) {
        Ok(u) => reference::ports().iter().find(|p| metro_id(&p.locode) == u),
        Err(_) => reference::port(&id.to_ascii_uppercase()),
    };
    found
        .map(|p| JsonApi::single(metro_resource(p), vec![]))
        .ok_or_else(|| ApiError::not_found("metro_area"))
}

/// `GET /v2/terminals/{id}` (id or FIRMS code).
pub async fn terminal(
    _caller: Caller,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let includes = QueryParams::parse(raw.as_deref()).includes("terminal", &["port"])?;
    let found = match Uuid::parse_str(&id) {
        Ok(u) => reference::terminal_by_id(*u.as_bytes()),
        Err(_) => reference::terminal(&id.to_ascii_uppercase()),
    };
    let t = found.ok_or_else(|| ApiError::not_found("terminal"))?;
    // its port only when asked for, as the reference answers: the port lists its terminals,
    // so an unasked port would hand a client a terminal that contains itself
    let included = if includes.iter().any(|i| i == "port") {
        reference::port(&t.port_locode)
            .map(port_resource)
            .into_iter()
            .collect()
    } else {
        Vec::new()
    };
    Ok(JsonApi::single(terminal_resource(t), included))
}

/// The vessel path parameter and these query parameters (name, schema, required,
/// description).
fn vessel_params(query: Vec<(&str, Schema, bool, &str)>) -> Vec<Param> {
    let mut p = vec![Param::path(
        "id",
        Schema::string(),
        "Vessel id or IMO number",
    )];
    p.extend(query.into_iter().map(|(name, schema, required, d)| {
        let one = Param::query(name, schema, d);
        if required { one.required() } else { one }
    }));
    p
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .get("/v2/shipping_lines", lines, || {
            Doc::new("Reference data", "List shipping lines")
                .about("Every carrier boxtrack knows, with what can be tracked. `search=` filters on name or SCAC.")
                .param(Param::query("search", Schema::string(), ""))
                .errors(&[401, 429])
                .ok("Shipping lines", all_of("ShippingLine"))
                .reference_id("get-shipping_lines")
        })
        .get("/v2/shipping_lines/{id}", line, || {
            Doc::new("Reference data", "Get a shipping line")
                .about("By id, SCAC or one of the line's alternative SCACs (`SEAL` answers SeaLand, `SEAU`).")
                .path_text("id", "Shipping line id or SCAC")
                .errors(&[401, 404, 429])
                .ok("The shipping line", single("ShippingLine"))
                .reference_id("get-shipping_lines-id")
        })
        .get("/v2/ports/{id}", port, || {
            Doc::new("Reference data", "Get a port")
                .about("By id or UN/LOCODE (e.g. USLAX): name, coordinates, IANA time zone, and the terminals boxtrack knows there (`include=terminals` adds them).")
                .path_text("id", "Port id or UN/LOCODE")
                .include(&["terminals"])
                .errors(&[400, 401, 404, 429])
                .ok("The port", single("Port"))
                .reference_id("get-port-id")
        })
        .get("/v2/vessels/{id}", vessel, || {
            Doc::new("Reference data", "Get a vessel")
                .about("A vessel seen in the account's transport events, by id or 7-digit IMO number: name and IMO, and from AIS its MMSI, latest position, speed and heading. `show_positions[from_timestamp]` / `show_positions[to_timestamp]` (ISO 8601) add `positions`, the AIS track in that range (a point per 10 minutes at most; routing entitlement, 403 otherwise).")
                .params(vessel_params(vec![
                    (
                        "show_positions[from_timestamp]",
                        q_schema(&Q::Time),
                        false,
                        "Track from (ISO 8601)",
                    ),
                    (
                        "show_positions[to_timestamp]",
                        q_schema(&Q::Time),
                        false,
                        "Track to (ISO 8601)",
                    ),
                ]))
                .errors(&[400, 401, 403, 404, 429])
                .ok("The vessel", single("Vessel"))
                .reference_id("get-vessels-id")
        })
        .get("/v2/vessels/{id}/future_positions", future_positions, || {
            Doc::new("Reference data", "Get vessel future positions")
                .about("Where the vessel will be on its way to `port_id`, one estimated position a minute: the great circle (sea lanes are not modelled) from its latest AIS position (or from `previous_port_id` without one) at its AIS speed (15 knots when it reports under 3), at most 45 days. Ports by id or UN/LOCODE. Routing entitlement (403 otherwise).")
                .params(vessel_params(port_params()))
                .errors(&[400, 401, 403, 404, 429])
                .ok("The vessel with `positions`", single("Vessel"))
                .reference_id("get-vessels-id-future-positions")
        })
        .get("/v2/vessels/{id}/future_positions_with_coordinates", future_positions_with_coordinates, || {
            Doc::new("Reference data", "Get vessel future positions from coordinates")
                .about("As future_positions, starting from `latitude` / `longitude` now.")
                .params(vessel_params(
                    [
                        port_params(),
                        vec![
                            (
                                "latitude",
                                Schema::number().range(-90, 90),
                                true,
                                "Starting latitude",
                            ),
                            (
                                "longitude",
                                Schema::number().range(-180, 180),
                                true,
                                "Starting longitude",
                            ),
                        ],
                    ]
                    .concat(),
                ))
                .errors(&[400, 401, 403, 404, 429])
                .ok("The vessel with `positions`", single("Vessel"))
                .reference_id("get-vessels-id-future-positions-with-coordinates")
        })
        .get("/v2/metro_areas/{id}", metro, || {
            Doc::new("Reference data", "Get a metro area")
                .about("An inland place (rail ramp, inland destination) by id or UN/LOCODE (e.g. USCHI): name, coordinates, IANA time zone.")
                .path_text("id", "Metro area id or UN/LOCODE")
                .errors(&[401, 404, 429])
                .ok("The metro area", single("MetroArea"))
                .reference_id("get-metro-area-id")
        })
        .get("/v2/terminals/{id}", terminal, || {
            Doc::new("Reference data", "Get a terminal")
                .about("By id or FIRMS code (e.g. Y258); `include=port` adds its port.")
                .path_text("id", "Terminal id or FIRMS code")
                .include(&["port"])
                .errors(&[400, 401, 404, 429])
                .ok("The terminal", single("Terminal"))
                .reference_id("get-terminal-id")
        })
}
