//! A container's journey as a map: the ports it called at, the path its vessels sailed, where
//! the vessel is and the legs ahead, as one GeoJSON document (`GET
//! /v2/containers/{id}/map_geojson`, the console's map and the embeddable one draw the same);
//! the geometry is `boxtrack_core::routemap`'s.

use boxtrack_core::routemap::{self, Ends, Fix, Position, Progress, Sailed, Stop, Vessel};
use boxtrack_store::{ais, reads};
use serde_json::Value;
use uuid::Uuid;

use crate::AppError;
use crate::containers;
use crate::ctx::Ctx;

/// The ports a shipment's containers called at, in order: the voyage's ends and every
/// transport event that happened (estimates left out). What the map draws and MCP's
/// `get_container_route` lists.
pub fn stops_of(s: &reads::ShipmentRow, events: &[reads::TransportEventRow]) -> Vec<Stop> {
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
    let (route, st) = (&s.route, &s.state);
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
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
) -> Result<Option<(Uuid, Value)>, AppError> {
    let db = &ctx.db;
    let Some(read) = containers::with_events(db, account_id, id).await? else {
        return Ok(None);
    };
    let Some(s) = read.shipment else {
        return Ok(Some((
            read.container.shipment_id,
            routemap::render(&[], &[], None),
        )));
    };
    let events = read.events;
    let stops = stops_of(&s, &events);
    let mut sailed = Vec::new();
    for leg in routemap::legs(&stops) {
        let mut got = Sailed::default();
        if let (Some((from, to)), Some(v)) = (leg.window(&stops), &stops[leg.from].outbound)
            && let Some(report) = ais::by_imo(db, &v.imo).await?
        {
            got.track = ais::track(db, report.mmsi, from, to, 5_000)
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
                    (report.latitude, report.longitude, report.position_us)
            {
                got.latest = Some(Position {
                    fix: Fix { at_us, lat, lon },
                    heading: report.heading.map(f64::from).or(report.course),
                    speed_knots: report.speed_knots,
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
