//! Reference data: shipping lines, ports (by id or UN/LOCODE) and terminals (by id or FIRMS code).

use axum::extract::{Path, RawQuery};
use boxtrack_core::carriers::{self, ShippingLine};
use boxtrack_core::reference::{self, Port, Terminal, stable_id};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::jsonapi::{JsonApi, QueryParams, resource, to_one};
use crate::openapi::{Op, body, errors, operation};

/// The stable id of a port.
pub fn port_id(locode: &str) -> Uuid {
    Uuid::from_bytes(stable_id("port", locode))
}

/// The stable id of a terminal.
pub fn terminal_id(firms: &str) -> Uuid {
    Uuid::from_bytes(stable_id("terminal", firms))
}

/// The `port` resource.
pub fn port_resource(p: &Port) -> Value {
    let id = port_id(&p.locode);
    resource(
        "port",
        id,
        "ports",
        json!({"id": id, "name": p.name, "code": p.locode, "country_code": p.country_code, "latitude": p.latitude, "longitude": p.longitude, "time_zone": p.time_zone}),
        None,
    )
}

/// The `terminal` resource.
pub fn terminal_resource(t: &Terminal) -> Value {
    let id = terminal_id(&t.firms_code);
    resource(
        "terminal",
        id,
        "terminals",
        json!({"id": id, "name": t.name, "nickname": t.nickname, "firms_code": t.firms_code, "smdg_code": null, "bic_facility_code": null, "city": t.city, "time_zone": t.time_zone}),
        Some(
            json!({"port": to_one("port", reference::port(&t.port_locode).map(|p| port_id(&p.locode)))}),
        ),
    )
}

fn line_resource(l: &ShippingLine) -> Value {
    let id = Uuid::from_bytes(stable_id("shipping_line", &l.scac));
    resource(
        "shipping_line",
        id,
        "shipping_lines",
        json!({
            "scac": l.scac, "name": l.name, "short_name": l.short_name, "alternative_scacs": [],
            "bill_of_lading_tracking_support": l.supported,
            "booking_number_tracking_support": l.supported,
            "container_number_tracking_support": l.supported && l.container_number_tracking,
            "bill_of_lading_prefix": l.bill_of_lading_prefix,
            "notes": l.notes,
        }),
        None,
    )
}

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
    let n = data.len();
    JsonApi(json!({"data": data, "meta": {"size": n, "total": n}}))
}

/// `GET /v2/shipping_lines/{id}` (id or SCAC).
pub async fn line(_caller: Caller, Path(id): Path<String>) -> ApiResult<JsonApi> {
    let found = carriers::shipping_lines().iter().find(|l| {
        l.scac.eq_ignore_ascii_case(&id)
            || Uuid::from_bytes(stable_id("shipping_line", &l.scac)).to_string() == id
    });
    found
        .map(|l| JsonApi::single(line_resource(l), vec![]))
        .ok_or_else(|| ApiError::not_found("shipping_line"))
}

/// `GET /v2/ports/{id}` (id or UN/LOCODE).
pub async fn port(_caller: Caller, Path(id): Path<String>) -> ApiResult<JsonApi> {
    let found = match Uuid::parse_str(&id) {
        Ok(u) => reference::port_by_id(*u.as_bytes()),
        Err(_) => reference::port(&id.to_ascii_uppercase()),
    };
    found
        .map(|p| JsonApi::single(port_resource(p), vec![]))
        .ok_or_else(|| ApiError::not_found("port"))
}

/// The stable id of a vessel (by IMO number).
pub fn vessel_id(imo: &str) -> Uuid {
    Uuid::from_bytes(stable_id("vessel", imo))
}

/// The `vessel` resource as known from carrier events (positions come with AIS).
pub fn vessel_resource(imo: &str, name: Option<&str>) -> Value {
    let id = vessel_id(imo);
    resource(
        "vessel",
        id,
        "vessels",
        json!({"id": id, "name": name, "imo": imo, "mmsi": null, "latitude": null, "longitude": null, "nautical_speed_knots": null, "navigational_heading_degrees": null, "position_timestamp": null, "positions": []}),
        None,
    )
}

/// `GET /v2/vessels/{id}` (id or 7-digit IMO number) for vessels seen in the account's events.
pub async fn vessel(
    axum::extract::State(state): axum::extract::State<crate::AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> ApiResult<JsonApi> {
    let imo = if id.len() == 7 && id.bytes().all(|b| b.is_ascii_digit()) {
        Some(id.clone())
    } else {
        None
    };
    let imo = match (imo, Uuid::parse_str(&id)) {
        (Some(imo), _) => imo,
        (None, Ok(u)) => {
            // ids are derived from the IMO; find it among the account's vessels
            let imos = boxtrack_store::reads::vessel_imos(&state.db, caller.account.id).await?;
            imos.into_iter()
                .find(|i| vessel_id(i) == u)
                .ok_or_else(|| ApiError::not_found("vessel"))?
        }
        _ => return Err(ApiError::not_found("vessel")),
    };
    let name = boxtrack_store::reads::vessel_name(&state.db, caller.account.id, &imo).await?;
    let Some(name) = name else {
        return Err(ApiError::not_found("vessel"));
    };
    let mut v = vessel_resource(&imo, Some(&name));
    if let Some(ais) = boxtrack_store::ais::by_imo(&state.db, &imo).await? {
        let a = &mut v["attributes"];
        a["mmsi"] = json!(ais.mmsi.to_string());
        a["latitude"] = json!(ais.latitude);
        a["longitude"] = json!(ais.longitude);
        a["nautical_speed_knots"] = json!(ais.speed_knots);
        a["navigational_heading_degrees"] = json!(ais.heading.map(f64::from).or(ais.course));
        a["position_timestamp"] = json!(ais.position_us.map(boxtrack_core::time::format_micros));
        a["ais_destination"] = json!(ais.destination);
        a["ais_eta_at"] = json!(ais.eta_us.map(boxtrack_core::time::format_micros));
        a["ais_navigation_status"] = json!(ais.nav_status);
    }
    Ok(JsonApi::single(v, vec![]))
}

/// The stable id of a metro area (an inland place by UN/LOCODE).
pub fn metro_id(locode: &str) -> Uuid {
    Uuid::from_bytes(stable_id("metro_area", locode))
}

/// The `metro_area` resource (inland destinations and rail ramps).
pub fn metro_resource(p: &Port) -> Value {
    let id = metro_id(&p.locode);
    resource(
        "metro_area",
        id,
        "metro_areas",
        json!({"id": id, "name": p.name, "code": p.locode, "country_code": p.country_code, "latitude": p.latitude, "longitude": p.longitude, "time_zone": p.time_zone}),
        None,
    )
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
pub async fn terminal(_caller: Caller, Path(id): Path<String>) -> ApiResult<JsonApi> {
    let found = match Uuid::parse_str(&id) {
        Ok(u) => reference::terminal_by_id(*u.as_bytes()),
        Err(_) => reference::terminal(&id.to_ascii_uppercase()),
    };
    let t = found.ok_or_else(|| ApiError::not_found("terminal"))?;
    let included = reference::port(&t.port_locode)
        .map(port_resource)
        .into_iter()
        .collect();
    Ok(JsonApi::single(terminal_resource(t), included))
}

/// Documented operations of this module.
pub fn operations() -> Vec<Op> {
    let id = |what: &str| json!({"name": "id", "in": "path", "required": true, "schema": {"type": "string"}, "description": what});
    let obj = json!({"type": "object"});
    vec![
        Op {
            method: "get",
            path: "/v2/shipping_lines",
            op: operation(
                "Reference data",
                "List shipping lines",
                "Every carrier boxtrack knows, with what can be tracked. `search=` filters on name or SCAC.",
                vec![json!({"name": "search", "in": "query", "schema": {"type": "string"}})],
                None,
                errors(&[401, 429]),
                ("200", body("Shipping lines", obj.clone())),
            ),
        },
        Op {
            method: "get",
            path: "/v2/shipping_lines/{id}",
            op: operation(
                "Reference data",
                "Get a shipping line",
                "By id or SCAC.",
                vec![id("Shipping line id or SCAC")],
                None,
                errors(&[401, 404, 429]),
                ("200", body("The shipping line", obj.clone())),
            ),
        },
        Op {
            method: "get",
            path: "/v2/ports/{id}",
            op: operation(
                "Reference data",
                "Get a port",
                "By id or UN/LOCODE (e.g. USLAX): name, coordinates, IANA time zone.",
                vec![id("Port id or UN/LOCODE")],
                None,
                errors(&[401, 404, 429]),
                ("200", body("The port", obj.clone())),
            ),
        },
        Op {
            method: "get",
            path: "/v2/vessels/{id}",
            op: operation(
                "Reference data",
                "Get a vessel",
                "A vessel seen in the account's transport events, by id or 7-digit IMO number: name and IMO (positions come with the AIS source).",
                vec![id("Vessel id or IMO number")],
                None,
                errors(&[401, 404, 429]),
                ("200", body("The vessel", json!({"type": "object"}))),
            ),
        },
        Op {
            method: "get",
            path: "/v2/metro_areas/{id}",
            op: operation(
                "Reference data",
                "Get a metro area",
                "An inland place (rail ramp, inland destination) by id or UN/LOCODE (e.g. USCHI): name, coordinates, IANA time zone.",
                vec![id("Metro area id or UN/LOCODE")],
                None,
                errors(&[401, 404, 429]),
                ("200", body("The metro area", json!({"type": "object"}))),
            ),
        },
        Op {
            method: "get",
            path: "/v2/terminals/{id}",
            op: operation(
                "Reference data",
                "Get a terminal",
                "By id or FIRMS code (e.g. Y258), with its port included.",
                vec![id("Terminal id or FIRMS code")],
                None,
                errors(&[401, 404, 429]),
                ("200", body("The terminal", obj)),
            ),
        },
    ]
}
