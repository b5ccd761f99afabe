//! `GET /v2/containers/{id}/map_geojson`: a container's journey as a GeoJSON
//! FeatureCollection (the routing entitlement); the geometry is `boxtrack_core::routemap`'s.

use axum::Json;
use axum::extract::State;
use serde_json::Value;

use crate::state::AppState;
use crate::state::Routes;
use boxtrack_app::journey;
use boxtrack_core::plan::Entitlement;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::Doc;
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::extract::IdPath;
use boxtrack_http::schema::Schema;

/// `GET /v2/containers/{id}/map_geojson`: the container's journey as GeoJSON (ports, the
/// path its vessels sailed, where the vessel is, the legs ahead); needs the `routing`
/// entitlement. See [`boxtrack_core::routemap`].
pub async fn map_geojson(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<Json<Value>> {
    caller.require(Entitlement::Routing)?;
    let (_, doc) = journey::journey(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("container"))?;
    Ok(Json(doc))
}

/// The GeoJSON document the map answers.
fn geojson_schema() -> Schema {
    let kind = |word: &str| Schema::string().words(&[word]);
    let position = || Schema::array(Schema::number()).items_between(2, Some(2));
    let point = Schema::record(&[("type", kind("Point")), ("coordinates", position())]);
    let line = Schema::record(&[
        ("type", kind("LineString")),
        (
            "coordinates",
            Schema::array(position()).items_between(2, None),
        ),
    ]);
    let feature_types = [
        "port",
        "current_vessel",
        "past_vessel_locations",
        "estimated_full_legs",
        "estimated_partial_leg",
    ];
    let properties = Schema::record(&[("feature_type", Schema::string().words(&feature_types))])
        .prop("ports_sequence", Schema::integer())
        .open()
        .describe("`feature_type` decides the other members (a port's name, LOCODE and times; a vessel's name, IMO and position time; a leg's ports)");
    let feature = Schema::record(&[
        ("type", kind("Feature")),
        ("geometry", Schema::one_of(vec![point, line])),
        ("properties", properties),
    ]);
    Schema::record(&[
        ("type", kind("FeatureCollection")),
        ("features", Schema::array(feature)),
    ])
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .get("/v2/containers/{id}/map_geojson", map_geojson, || {
            Doc::new("Containers", "Get container map GeoJSON")
                .about("The container's journey as a GeoJSON FeatureCollection ([lon, lat], WGS84): a `port` point per port of the route in order (`label` POL, TS1, TS2 …, POD, with ETA/ATA/ETD/ATD), per leg the path its vessel sailed from AIS positions (`past_vessel_locations`, kept at most one per 10 minutes), while a leg is underway the vessel's latest AIS position (`current_vessel`) and the rest of the leg from there (`estimated_partial_leg`), and for legs ahead, or sailed without positions, a great-circle arc between the ports (`estimated_full_legs`; sea lanes are not modelled). A container with no known ports gets an empty `features` array. Needs the `routing` entitlement (403 otherwise).")
                .id("Container")
                .errors(&[401, 403, 404, 429])
                .answer("200", Doc::json_answer("GeoJSON FeatureCollection", geojson_schema()))
                .reference_id("get-containers-id-map-geojson")
        })
}
