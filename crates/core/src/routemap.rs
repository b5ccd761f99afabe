//! A container's route as a GeoJSON map (`GET /v2/containers/{id}/map_geojson`): the ports
//! of its journey in order (POL, transshipments, POD), where its vessel is, the path it sailed
//! (AIS positions) and the legs still ahead.
//!
//! Pure: the caller gathers the shipment's ports and milestones ([`stops`]), asks which legs
//! need positions ([`Leg::window`]), reads them, and [`render`] builds the document. Paths
//! ahead are great-circle arcs between ports (sea lanes are not modelled): the map says where
//! the box is going, not the way the ship will steer.

use serde_json::{Value, json};

use crate::reference::{self, stable_id};
use crate::time::format_micros;

/// A port of the journey.
#[derive(Debug, Clone, PartialEq)]
pub struct Stop {
    /// UN/LOCODE.
    pub locode: String,
    /// `POL`, `TS1`, `TS2` … or `POD`.
    pub label: String,
    /// Estimated arrival.
    pub eta_us: Option<i64>,
    /// Actual arrival.
    pub ata_us: Option<i64>,
    /// Estimated departure.
    pub etd_us: Option<i64>,
    /// Actual departure.
    pub atd_us: Option<i64>,
    /// The vessel that leaves this port with the container (loaded or departed here).
    pub outbound: Option<Vessel>,
}

/// A vessel as the milestones name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vessel {
    /// IMO number.
    pub imo: String,
    /// Name.
    pub name: Option<String>,
    /// Voyage number.
    pub voyage: Option<String>,
}

/// One actual milestone of the container (`vessel_departed`, `transshipment_arrived`, …),
/// as [`stops`] reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Milestone {
    /// The milestone's name without the `container.transport.` prefix.
    pub name: String,
    /// When.
    pub at_us: Option<i64>,
    /// Where.
    pub locode: Option<String>,
    /// The vessel it names.
    pub vessel: Option<Vessel>,
}

/// What the shipment says about its two ends.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ends {
    /// Port of lading.
    pub pol: Option<String>,
    /// Estimated departure from the POL.
    pub pol_etd_us: Option<i64>,
    /// Actual departure from the POL.
    pub pol_atd_us: Option<i64>,
    /// Port of discharge.
    pub pod: Option<String>,
    /// Estimated arrival at the POD.
    pub pod_eta_us: Option<i64>,
    /// Actual arrival at the POD.
    pub pod_ata_us: Option<i64>,
    /// The vessel the carrier names for the POD.
    pub pod_vessel: Option<Vessel>,
}

/// The ports of a journey in order: the POL, every transshipment port in the order the
/// container reached it, the POD. Empty when neither end is known.
pub fn stops(ends: &Ends, milestones: &[Milestone]) -> Vec<Stop> {
    let mut ordered: Vec<&Milestone> = milestones.iter().filter(|m| m.at_us.is_some()).collect();
    ordered.sort_by_key(|m| m.at_us);
    let stop = |locode: &str, label: String| Stop {
        locode: locode.to_string(),
        label,
        eta_us: None,
        ata_us: None,
        etd_us: None,
        atd_us: None,
        outbound: None,
    };
    let mut out = Vec::new();
    if let Some(pol) = &ends.pol {
        let mut s = stop(pol, "POL".into());
        s.etd_us = ends.pol_etd_us;
        s.atd_us = ends.pol_atd_us;
        for m in ordered.iter().filter(|m| m.locode.as_deref() == Some(pol)) {
            match m.name.as_str() {
                "vessel_departed" => s.atd_us = s.atd_us.or(m.at_us),
                "vessel_loaded" => {}
                _ => continue,
            }
            if m.vessel.is_some() {
                s.outbound.clone_from(&m.vessel);
            }
        }
        out.push(s);
    }
    let mut ts: Vec<Stop> = Vec::new();
    for m in &ordered {
        let Some(locode) = m.locode.as_deref() else {
            continue;
        };
        let Some(kind) = m
            .name
            .strip_prefix("transshipment_")
            .or_else(|| m.name.strip_prefix("feeder_"))
        else {
            continue;
        };
        if Some(locode) == ends.pol.as_deref() || Some(locode) == ends.pod.as_deref() {
            continue;
        }
        // a port visited again after another one is a new stop
        if ts.last().is_none_or(|s| s.locode != locode) {
            let label = format!("TS{}", ts.len() + 1);
            ts.push(stop(locode, label));
        }
        let Some(s) = ts.last_mut() else { continue };
        match kind {
            "arrived" => s.ata_us = s.ata_us.or(m.at_us),
            "discharged" => s.ata_us = s.ata_us.or(m.at_us),
            "departed" => s.atd_us = m.at_us,
            _ => {}
        }
        if matches!(kind, "loaded" | "departed") && m.vessel.is_some() {
            s.outbound.clone_from(&m.vessel);
        }
    }
    out.extend(ts);
    if let Some(pod) = &ends.pod {
        let mut s = stop(pod, "POD".into());
        s.eta_us = ends.pod_eta_us;
        s.ata_us = ends.pod_ata_us;
        out.push(s);
    }
    // the last leg's vessel is the one the carrier names for the POD, unless a milestone
    // named one
    let n = out.len();
    if n >= 2 && out[n - 2].outbound.is_none() {
        out[n - 2].outbound.clone_from(&ends.pod_vessel);
    }
    out
}

/// Where a leg stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Arrived at its end.
    Done,
    /// Departed, not arrived.
    Underway,
    /// Not departed.
    Ahead,
}

/// The leg from stop `from` to stop `from + 1`.
#[derive(Debug, Clone, PartialEq)]
pub struct Leg {
    /// Index of the departure stop.
    pub from: usize,
    /// Where it stands.
    pub progress: Progress,
}

impl Leg {
    /// The time range whose AIS positions of the leg's vessel belong to it, when the leg has
    /// been sailed (in part): from the departure (or open) to the arrival (or now).
    pub fn window(&self, stops: &[Stop]) -> Option<(Option<i64>, Option<i64>)> {
        let (a, b) = (stops.get(self.from)?, stops.get(self.from + 1)?);
        match self.progress {
            Progress::Ahead => None,
            Progress::Underway => Some((a.atd_us, None)),
            Progress::Done => Some((a.atd_us, b.ata_us.or(b.atd_us))),
        }
    }
}

/// The legs between consecutive stops. A leg is done once its end port, or any port after
/// it, has an arrival or a departure; underway once its start port has a departure.
pub fn legs(stops: &[Stop]) -> Vec<Leg> {
    let reached = |s: &Stop| s.ata_us.is_some() || s.atd_us.is_some();
    (0..stops.len().saturating_sub(1))
        .map(|i| {
            let progress = if stops[i + 1..].iter().any(reached) {
                Progress::Done
            } else if stops[i].atd_us.is_some() {
                Progress::Underway
            } else {
                Progress::Ahead
            };
            Leg { from: i, progress }
        })
        .collect()
}

/// A vessel position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fix {
    /// When.
    pub at_us: i64,
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lon: f64,
}

/// The vessel's latest AIS report.
#[derive(Debug, Clone, PartialEq)]
pub struct Position {
    /// Where and when.
    pub fix: Fix,
    /// Heading, degrees.
    pub heading: Option<f64>,
    /// Speed over ground, knots.
    pub speed_knots: Option<f64>,
}

/// What the caller read for one leg.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sailed {
    /// The leg's vessel's positions inside [`Leg::window`], oldest first.
    pub track: Vec<Fix>,
    /// The vessel's latest report (used while the leg is underway).
    pub latest: Option<Position>,
}

/// Points along the great circle from `a` to `b` (each `[lat, lon]` in degrees), one about
/// every `step_km` kilometres, both ends included, as GeoJSON `[lon, lat]` pairs.
pub fn great_circle(a: [f64; 2], b: [f64; 2], step_km: f64) -> Vec<[f64; 2]> {
    let steps = if step_km > 0.0 {
        ((distance_km(a, b) / step_km).ceil() as usize).clamp(1, 4096)
    } else {
        1
    };
    let mut out = Vec::with_capacity(steps + 1);
    out.push([a[1], a[0]]);
    for k in 1..steps {
        let [lat, lon] = along(a, b, k as f64 / steps as f64);
        out.push([lon, lat]);
    }
    out.push([b[1], b[0]]);
    out
}

/// Spacing of the points of an estimated leg.
const STEP_KM: f64 = 250.0;

/// Great-circle distance in kilometres between two `[lat, lon]` points.
pub fn distance_km(a: [f64; 2], b: [f64; 2]) -> f64 {
    let (p1, p2) = (a[0].to_radians(), b[0].to_radians());
    let dl = (b[1] - a[1]).to_radians();
    let c = p1.sin() * p2.sin() + p1.cos() * p2.cos() * dl.cos();
    c.clamp(-1.0, 1.0).acos() * 6371.0
}

/// The point a fraction `t` (0..=1) of the way along the great circle from `a` to `b`, as
/// `[lat, lon]`.
pub fn along(a: [f64; 2], b: [f64; 2], t: f64) -> [f64; 2] {
    let v = |p: [f64; 2]| {
        let (la, lo) = (p[0].to_radians(), p[1].to_radians());
        [la.cos() * lo.cos(), la.cos() * lo.sin(), la.sin()]
    };
    let (va, vb) = (v(a), v(b));
    let dot = (va[0] * vb[0] + va[1] * vb[1] + va[2] * vb[2]).clamp(-1.0, 1.0);
    let angle = dot.acos();
    let (wa, wb) = if angle.sin().abs() < 1e-12 {
        (1.0 - t, t)
    } else {
        (
            ((1.0 - t) * angle).sin() / angle.sin(),
            (t * angle).sin() / angle.sin(),
        )
    };
    let p = [
        wa * va[0] + wb * vb[0],
        wa * va[1] + wb * vb[1],
        wa * va[2] + wb * vb[2],
    ];
    [
        p[2].atan2((p[0] * p[0] + p[1] * p[1]).sqrt()).to_degrees(),
        p[1].atan2(p[0]).to_degrees(),
    ]
}

/// The initial compass bearing (0 = north, 90 = east) from `a` to `b`, degrees in 0..360.
pub fn bearing(a: [f64; 2], b: [f64; 2]) -> f64 {
    let (p1, p2) = (a[0].to_radians(), b[0].to_radians());
    let dl = (b[1] - a[1]).to_radians();
    let y = dl.sin() * p2.cos();
    let x = p1.cos() * p2.sin() - p1.sin() * p2.cos() * dl.cos();
    (y.atan2(x).to_degrees() + 360.0) % 360.0
}

/// An estimated position on a passage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimated {
    /// When.
    pub at_us: i64,
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lon: f64,
    /// Bearing to the next position (the last keeps the one before).
    pub heading: f64,
}

/// Where a vessel sailing the great circle from `from` to `to` (`[lat, lon]`) at `knots`
/// will be, one position every `step_us` from `start_us` until it arrives (the last
/// position is `to`), at most `max_points` of them.
pub fn sail(
    from: [f64; 2],
    to: [f64; 2],
    start_us: i64,
    knots: f64,
    step_us: i64,
    max_points: usize,
) -> Vec<Estimated> {
    let total = distance_km(from, to);
    let km_per_step = knots.max(0.1) * 1.852 * step_us as f64 / 3_600_000_000.0;
    let steps = ((total / km_per_step).ceil() as usize).clamp(1, max_points.max(2) - 1);
    let mut points: Vec<Estimated> = (0..=steps)
        .map(|k| {
            let t = (k as f64 * km_per_step / total.max(1e-9)).min(1.0);
            let [lat, lon] = if k == steps && t >= 1.0 {
                to
            } else {
                along(from, to, t)
            };
            Estimated {
                at_us: start_us + k as i64 * step_us,
                lat,
                lon,
                heading: 0.0,
            }
        })
        .collect();
    for k in 0..points.len() {
        let heading = match (points.get(k), points.get(k + 1)) {
            (Some(a), Some(b)) => bearing([a.lat, a.lon], [b.lat, b.lon]),
            _ => k.checked_sub(1).map_or(0.0, |j| points[j].heading),
        };
        points[k].heading = heading;
    }
    points
}

fn uuid_text(kind: &str, key: &str) -> String {
    let b = stable_id(kind, key);
    let h = hex::encode(b);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

fn at(us: Option<i64>) -> Value {
    us.map_or(Value::Null, |u| Value::String(format_micros(u)))
}

fn line(coords: &[[f64; 2]], properties: Value) -> Value {
    json!({"type": "Feature", "geometry": {"type": "LineString", "coordinates": coords}, "properties": properties})
}

fn lat_lon(locode: &str) -> Option<[f64; 2]> {
    let p = reference::port(locode)?;
    Some([p.latitude?, p.longitude?])
}

/// The GeoJSON FeatureCollection of a journey: a `port` point per stop with coordinates; per
/// leg the path sailed (`past_vessel_locations`, from at least two positions), while underway
/// the vessel (`current_vessel`) and the rest of the leg from it (`estimated_partial_leg`), and
/// for legs not sailed (or sailed without positions) the great circle (`estimated_full_legs`).
/// `sailed` holds one entry per leg of [`legs`] (missing entries count as empty).
pub fn render(stops: &[Stop], sailed: &[Sailed], updated_us: Option<i64>) -> Value {
    let legs = legs(stops);
    let total = stops.len();
    let port_id = |i: usize| uuid_text("port", &stops[i].locode);
    let mut features = Vec::new();
    for (i, s) in stops.iter().enumerate() {
        if let (Some(p), Some([lat, lon])) = (reference::port(&s.locode), lat_lon(&s.locode)) {
            features.push(json!({
                "type": "Feature",
                "geometry": {"type": "Point", "coordinates": [lon, lat]},
                "properties": {
                    "feature_type": "port",
                    "ports_sequence": i + 1,
                    "ports_total": total,
                    "location_id": port_id(i),
                    "location_type": "Port",
                    "name": p.name,
                    "state_abbr": null,
                    "state": null,
                    "country_code": p.country_code,
                    "country": reference::country_name(&p.country_code),
                    "time_zone": p.time_zone,
                    "inbound_eta_at": at(s.eta_us),
                    "inbound_ata_at": at(s.ata_us),
                    "outbound_etd_at": at(s.etd_us),
                    "outbound_atd_at": at(s.atd_us),
                    "label": s.label,
                    "updated_at": at(updated_us),
                }
            }));
        }
        let Some(leg) = legs.get(i) else { continue };
        let next = &stops[i + 1];
        let (Some(from), Some(to)) = (lat_lon(&s.locode), lat_lon(&next.locode)) else {
            continue;
        };
        let empty = Sailed::default();
        let got = sailed.get(i).unwrap_or(&empty);
        let vessel = s.outbound.as_ref();
        let latest = match (leg.progress, &got.latest) {
            // a report from before the departure says nothing about this leg
            (Progress::Underway, Some(p)) if s.atd_us.is_none_or(|d| p.fix.at_us >= d) => Some(p),
            _ => None,
        };
        let mut track: Vec<[f64; 2]> = got.track.iter().map(|f| [f.lon, f.lat]).collect();
        if let Some(p) = latest
            && got.track.last().is_none_or(|f| f.at_us < p.fix.at_us)
        {
            track.push([p.fix.lon, p.fix.lat]);
        }
        let sailed_path = leg.progress != Progress::Ahead && track.len() >= 2 && vessel.is_some();
        if sailed_path {
            let start = got.track.first().map(|f| f.at_us);
            let end = latest
                .map(|p| p.fix.at_us)
                .or(got.track.last().map(|f| f.at_us));
            features.push(line(
                &track,
                json!({
                    "feature_type": "past_vessel_locations",
                    "ports_sequence": i + 1,
                    "vessel_id": vessel.map(|v| uuid_text("vessel", &v.imo)),
                    "start_time": at(start),
                    "end_time": at(end),
                    "point_count": track.len(),
                    "outbound_atd_at": at(s.atd_us),
                    "inbound_ata_at": at(next.ata_us),
                    "inbound_eta_at": at(next.eta_us),
                }),
            ));
        }
        match (leg.progress, latest, vessel) {
            (Progress::Underway, Some(p), Some(v)) => {
                let here = [p.fix.lat, p.fix.lon];
                features.push(current_vessel(stops, i, v, p, &port_id));
                let rest = great_circle(here, to, STEP_KM);
                features.push(line(
                    &rest,
                    json!({
                        "feature_type": "estimated_partial_leg",
                        "ports_sequence": i + 1,
                        "current_port_id": port_id(i),
                        "next_port_id": port_id(i + 1),
                        "point_count": rest.len(),
                    }),
                ));
            }
            _ if sailed_path => {}
            _ => {
                let path = great_circle(from, to, STEP_KM);
                features.push(line(
                    &path,
                    json!({
                        "feature_type": "estimated_full_legs",
                        "ports_sequence": i + 1,
                        "previous_port_id": port_id(i),
                        "next_port_id": port_id(i + 1),
                        "point_count": path.len(),
                    }),
                ));
            }
        }
    }
    json!({"type": "FeatureCollection", "features": features})
}

fn current_vessel(
    stops: &[Stop],
    i: usize,
    v: &Vessel,
    p: &Position,
    port_id: &dyn Fn(usize) -> String,
) -> Value {
    let (dep, arr) = (&stops[i], &stops[i + 1]);
    let (dp, ap) = (reference::port(&dep.locode), reference::port(&arr.locode));
    json!({
        "type": "Feature",
        "geometry": {"type": "Point", "coordinates": [p.fix.lon, p.fix.lat]},
        "properties": {
            "feature_type": "current_vessel",
            "ports_sequence": i + 1,
            "vessel_id": uuid_text("vessel", &v.imo),
            "vessel_name": v.name,
            "vessel_imo": v.imo,
            "voyage_number": v.voyage,
            "vessel_location_timestamp": at(Some(p.fix.at_us)),
            "vessel_location_heading": p.heading,
            "vessel_location_speed": p.speed_knots,
            "departure_port_id": port_id(i),
            "departure_port_name": dp.and_then(|x| x.name.clone()),
            "departure_port_state_abbr": null,
            "departure_port_state": null,
            "departure_port_country_code": dp.map(|x| x.country_code.clone()),
            "departure_port_country": dp.and_then(|x| reference::country_name(&x.country_code)),
            "departure_port_label": dep.label,
            "departure_port_atd": at(dep.atd_us),
            "departure_port_time_zone": dp.map(|x| x.time_zone.clone()),
            "arrival_port_id": port_id(i + 1),
            "arrival_port_name": ap.and_then(|x| x.name.clone()),
            "arrival_port_state_abbr": null,
            "arrival_port_state": null,
            "arrival_port_country_code": ap.map(|x| x.country_code.clone()),
            "arrival_port_country": ap.and_then(|x| reference::country_name(&x.country_code)),
            "arrival_port_label": arr.label,
            "arrival_port_eta": at(arr.eta_us),
            "arrival_port_time_zone": ap.map(|x| x.time_zone.clone()),
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use proptest::prelude::*;

    const H: i64 = 3_600_000_000;

    fn m(name: &str, at_h: i64, locode: &str, imo: Option<&str>) -> Milestone {
        Milestone {
            name: name.into(),
            at_us: Some(at_h * H),
            locode: Some(locode.into()),
            vessel: imo.map(|i| Vessel {
                imo: i.into(),
                name: Some(format!("V{i}")),
                voyage: Some("001E".into()),
            }),
        }
    }

    fn ends() -> Ends {
        Ends {
            pol: Some("CNSHA".into()),
            pol_etd_us: Some(10 * H),
            pod: Some("USLAX".into()),
            pod_eta_us: Some(500 * H),
            pod_vessel: Some(Vessel {
                imo: "9000002".into(),
                name: Some("LAST".into()),
                voyage: None,
            }),
            ..Ends::default()
        }
    }

    fn kinds(doc: &Value) -> Vec<String> {
        doc["features"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                f["properties"]["feature_type"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn no_ports_no_features() {
        let doc = render(&stops(&Ends::default(), &[]), &[], None);
        assert_eq!(doc, json!({"type": "FeatureCollection", "features": []}));
    }

    #[test]
    fn a_journey_not_started_is_ports_and_estimated_legs() {
        let s = stops(&ends(), &[]);
        assert_eq!(
            s.iter().map(|x| x.label.as_str()).collect::<Vec<_>>(),
            ["POL", "POD"]
        );
        assert_eq!(legs(&s)[0].progress, Progress::Ahead);
        let doc = render(&s, &[], Some(H));
        assert_eq!(kinds(&doc), ["port", "estimated_full_legs", "port"]);
        let pol = &doc["features"][0];
        assert_eq!(pol["properties"]["label"], "POL");
        assert_eq!(pol["properties"]["ports_total"], 2);
        assert_eq!(pol["properties"]["country"], "China");
        let leg = &doc["features"][1];
        let coords = leg["geometry"]["coordinates"].as_array().unwrap();
        assert_eq!(leg["properties"]["point_count"], coords.len());
        // starts at Shanghai, ends at Los Angeles ([lon, lat])
        assert_eq!(coords[0], pol["geometry"]["coordinates"]);
        assert_eq!(
            coords.last().unwrap(),
            &doc["features"][2]["geometry"]["coordinates"]
        );
    }

    #[test]
    fn transshipments_become_numbered_stops_in_order() {
        let ms = [
            m("vessel_loaded", 9, "CNSHA", Some("9000001")),
            m("vessel_departed", 11, "CNSHA", Some("9000001")),
            m("transshipment_arrived", 100, "SGSIN", Some("9000001")),
            m("transshipment_discharged", 101, "SGSIN", None),
            m("transshipment_loaded", 120, "SGSIN", Some("9000003")),
            m("transshipment_departed", 121, "SGSIN", Some("9000003")),
            m("transshipment_arrived", 200, "KRPUS", None),
        ];
        let s = stops(&ends(), &ms);
        assert_eq!(
            s.iter().map(|x| x.label.as_str()).collect::<Vec<_>>(),
            ["POL", "TS1", "TS2", "POD"]
        );
        assert_eq!(s[0].atd_us, Some(11 * H));
        assert_eq!(s[0].outbound.as_ref().unwrap().imo, "9000001");
        assert_eq!(s[1].ata_us, Some(100 * H));
        assert_eq!(s[1].atd_us, Some(121 * H));
        assert_eq!(s[1].outbound.as_ref().unwrap().imo, "9000003");
        // the last leg sails on the vessel the carrier names for the POD
        assert_eq!(s[2].outbound.as_ref().unwrap().imo, "9000002");
        let p: Vec<Progress> = legs(&s).iter().map(|l| l.progress).collect();
        assert_eq!(p, [Progress::Done, Progress::Done, Progress::Ahead]);
    }

    #[test]
    fn underway_with_a_position_shows_the_vessel_and_the_rest_of_the_leg() {
        let ms = [m("vessel_departed", 11, "CNSHA", Some("9000001"))];
        let s = stops(&ends(), &ms);
        let leg = &legs(&s)[0];
        assert_eq!(leg.progress, Progress::Underway);
        assert_eq!(leg.window(&s), Some((Some(11 * H), None)));
        let sailed = Sailed {
            track: vec![
                Fix {
                    at_us: 12 * H,
                    lat: 31.0,
                    lon: 123.0,
                },
                Fix {
                    at_us: 40 * H,
                    lat: 33.0,
                    lon: 135.0,
                },
            ],
            latest: Some(Position {
                fix: Fix {
                    at_us: 50 * H,
                    lat: 34.0,
                    lon: 140.0,
                },
                heading: Some(80.0),
                speed_knots: Some(18.5),
            }),
        };
        let doc = render(&s, &[sailed], None);
        assert_eq!(
            kinds(&doc),
            [
                "port",
                "past_vessel_locations",
                "current_vessel",
                "estimated_partial_leg",
                "port"
            ]
        );
        let past = &doc["features"][1];
        assert_eq!(past["properties"]["point_count"], 3);
        let v = &doc["features"][2]["properties"];
        assert_eq!(v["vessel_imo"], "9000001");
        assert_eq!(v["departure_port_label"], "POL");
        assert_eq!(v["arrival_port_label"], "POD");
        assert_eq!(v["vessel_location_speed"], 18.5);
        let rest = doc["features"][3]["geometry"]["coordinates"]
            .as_array()
            .unwrap();
        assert_eq!(rest[0], json!([140.0, 34.0]));
    }

    #[test]
    fn a_position_older_than_the_departure_is_not_shown() {
        let ms = [m("vessel_departed", 11, "CNSHA", Some("9000001"))];
        let s = stops(&ends(), &ms);
        let sailed = Sailed {
            track: vec![],
            latest: Some(Position {
                fix: Fix {
                    at_us: 5 * H,
                    lat: 31.0,
                    lon: 121.0,
                },
                heading: None,
                speed_knots: None,
            }),
        };
        let doc = render(&s, &[sailed], None);
        assert_eq!(kinds(&doc), ["port", "estimated_full_legs", "port"]);
    }

    #[test]
    fn a_port_without_coordinates_drops_its_point_and_legs_only() {
        let mut e = ends();
        e.pod = Some("ZZZZZ".into());
        let doc = render(&stops(&e, &[]), &[], None);
        assert_eq!(kinds(&doc), ["port"]);
        assert_eq!(doc["features"][0]["properties"]["ports_total"], 2);
    }

    #[test]
    fn a_passage_is_one_position_a_minute_until_arrival() {
        // Shanghai to Los Angeles is about 10 450 km: at 20 knots, ~282 hours
        let (sha, lax) = ([31.23, 121.47], [33.74, -118.27]);
        let p = sail(sha, lax, 0, 20.0, 60_000_000, 100_000);
        let hours = (p.last().unwrap().at_us as f64) / 3_600_000_000.0;
        assert!((270.0..295.0).contains(&hours), "{hours}");
        assert!(p.windows(2).all(|w| w[1].at_us - w[0].at_us == 60_000_000));
        assert_eq!([p.last().unwrap().lat, p.last().unwrap().lon], lax);
        // leaving Shanghai for California the ship heads north-east
        assert!((0.0..90.0).contains(&p[0].heading), "{}", p[0].heading);
        // capped
        assert_eq!(sail(sha, lax, 0, 20.0, 60_000_000, 100).len(), 100);
        assert!((bearing([0.0, 0.0], [0.0, 10.0]) - 90.0).abs() < 1e-9);
    }

    proptest! {
        #[test]
        fn great_circle_ends_at_its_ends_and_steps_evenly(
            la1 in -80.0f64..80.0, lo1 in -179.0f64..179.0,
            la2 in -80.0f64..80.0, lo2 in -179.0f64..179.0,
        ) {
            let pts = great_circle([la1, lo1], [la2, lo2], 250.0);
            prop_assert!(pts.len() >= 2);
            prop_assert_eq!(pts[0], [lo1, la1]);
            prop_assert_eq!(*pts.last().unwrap(), [lo2, la2]);
            let km = |a: [f64; 2], b: [f64; 2]| {
                let (p1, p2) = (a[1].to_radians(), b[1].to_radians());
                let dl = (b[0] - a[0]).to_radians();
                let c = p1.sin() * p2.sin() + p1.cos() * p2.cos() * dl.cos();
                c.clamp(-1.0, 1.0).acos() * 6371.0
            };
            let whole = km(pts[0], *pts.last().unwrap());
            let steps: Vec<f64> = pts.windows(2).map(|w| km(w[0], w[1])).collect();
            let sum: f64 = steps.iter().sum();
            // the points lie on the shortest path, in order, about 250 km apart
            prop_assert!((sum - whole).abs() < 1.0, "{} vs {}", sum, whole);
            for s in &steps {
                prop_assert!(*s <= 250.0 + 1e-6);
            }
            for p in &pts {
                prop_assert!((-180.0..=180.0).contains(&p[0]) && (-90.0..=90.0).contains(&p[1]));
            }
        }
    }
}
