//! `GET /v2/containers/{id}/map_geojson`: a container's journey as a GeoJSON
//! FeatureCollection (the routing entitlement); the geometry is `boxtrack_core::routemap`'s.

use axum::Json;
use axum::extract::State;
use boxtrack_store::reads;
use serde_json::Value;

use crate::auth::Caller;
use crate::doc::{Doc, Routes};
use crate::error::{ApiError, ApiResult};
use crate::extract::IdPath;
use crate::schema::Schema;
use crate::state::AppState;

/// `GET /v2/containers/{id}/map_geojson`: the container's journey as GeoJSON (ports, the
/// path its vessels sailed, where the vessel is, the legs ahead); needs the `routing`
/// entitlement. See [`boxtrack_core::routemap`].
pub async fn map_geojson(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<Json<Value>> {
    caller.require(boxtrack_core::plan::Entitlement::Routing)?;
    let (_, doc) = journey(&state.db, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("container"))?;
    Ok(Json(doc))
}

/// The ports a shipment's containers called at, in order: the voyage's ends and every
/// transport event that happened (estimates left out). What the map draws and MCP's
/// `get_container_route` lists.
pub fn stops_of(
    s: &reads::ShipmentRow,
    events: &[reads::TransportEventRow],
) -> Vec<boxtrack_core::routemap::Stop> {
    use boxtrack_core::routemap::{self, Ends, Vessel};
    let vessel = |imo: &Option<String>, name: &Option<String>, voyage: &Option<String>| {
        imo.as_ref().map(|imo| Vessel {
            imo: imo.clone(),
            name: name.clone(),
            voyage: voyage.clone(),
        })
    };
    let milestones: Vec<routemap::Milestone> = events
        .iter()
        .filter_map(|e| {
            let name = e.event.strip_prefix("container.transport.")?;
            (!name.starts_with("estimated.")).then(|| routemap::Milestone {
                name: name.to_string(),
                at_us: e.at_us,
                locode: e.locode.clone(),
                vessel: vessel(&e.vessel_imo, &e.vessel_name, &e.voyage),
            })
        })
        .collect();
    let (route, st) = (&s.route.0, &s.state.0);
    let ends = Ends {
        pol: route.pol_locode.clone(),
        pol_etd_us: st.pol_etd_us,
        pol_atd_us: st.pol_atd_us,
        pod: route.pod_locode.clone(),
        pod_eta_us: st.pod_eta_us,
        pod_ata_us: st.pod_ata_us,
        pod_vessel: vessel(
            &st.pod_vessel_imo,
            &st.pod_vessel_name,
            &st.pod_voyage_number,
        ),
    };
    routemap::stops(&ends, &milestones)
}

/// The GeoJSON journey of one of the account's containers with the id of its shipment, or
/// `None` when the account has no such container (the console and the embeddable map draw
/// the same document).
pub async fn journey(
    db: &boxtrack_store::Db,
    account_id: uuid::Uuid,
    id: uuid::Uuid,
) -> ApiResult<Option<(uuid::Uuid, Value)>> {
    use boxtrack_core::routemap::{self, Fix, Position, Progress, Sailed};
    let Some(c) = reads::container(db, account_id, id).await? else {
        return Ok(None);
    };
    let Some(s) = reads::shipment(db, account_id, c.shipment_id).await? else {
        return Ok(Some((c.shipment_id, routemap::render(&[], &[], None))));
    };
    let events = reads::all_transport_events(db, account_id, id).await?;
    let stops = stops_of(&s, &events);
    let mut sailed = Vec::new();
    for leg in routemap::legs(&stops) {
        let mut got = Sailed::default();
        if let (Some((from, to)), Some(v)) = (leg.window(&stops), &stops[leg.from].outbound)
            && let Some(ais) = boxtrack_store::ais::by_imo(db, &v.imo).await?
        {
            got.track = boxtrack_store::ais::track(db, ais.mmsi, from, to, 5_000)
                .await?
                .into_iter()
                .map(|p| Fix {
                    at_us: p.position_us,
                    lat: p.latitude,
                    lon: p.longitude,
                })
                .collect();
            if leg.progress == Progress::Underway
                && let (Some(lat), Some(lon), Some(at_us)) =
                    (ais.latitude, ais.longitude, ais.position_us)
            {
                got.latest = Some(Position {
                    fix: Fix { at_us, lat, lon },
                    heading: ais.heading.map(f64::from).or(ais.course),
                    speed_knots: ais.speed_knots,
                });
            }
        }
        sailed.push(got);
    }
    Ok(Some((
        s.id,
        routemap::render(&stops, &sailed, Some(s.updated_us)),
    )))
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
