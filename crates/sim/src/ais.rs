//! The vessels' AIS broadcasts: where each vessel is on the virtual clock, streamed as
//! NMEA sentences.

use std::time::Duration;

use crate::{Sim, world};

impl Sim {
    /// What every vessel broadcasts at virtual time `now`: a position report each, and static
    /// data (IMO, name, destination, ETA) when `with_static`. A vessel sails in a straight
    /// line from its current voyage's port of lading to its port of discharge; between
    /// voyages it is moored at its last port.
    pub fn ais_sentences(&self, now: i64, with_static: bool) -> Vec<String> {
        use boxtrack_sources::ais::{Position, StaticData, encode_position, encode_static};
        let w = self.world();
        let mut out = Vec::new();
        for (vi, v) in w.vessels.iter().enumerate() {
            let voyages: Vec<&world::Shipment> =
                w.shipments.iter().filter(|s| s.vessel == vi).collect();
            let current = voyages
                .iter()
                .filter(|s| s.depart_us <= now)
                .max_by_key(|s| s.depart_us);
            let Some(s) = current else { continue };
            let (Some((alat, alon)), Some((blat, blon))) =
                (coordinates(&s.pol), coordinates(&s.pod))
            else {
                continue;
            };
            let arrival = s.arrival_us();
            let sailing = now < arrival;
            let f = if sailing {
                (now - s.depart_us) as f64 / (arrival - s.depart_us).max(1) as f64
            } else {
                1.0
            };
            // the shorter way round in longitude
            let mut dlon = blon - alon;
            if dlon > 180.0 {
                dlon -= 360.0;
            } else if dlon < -180.0 {
                dlon += 360.0;
            }
            let mut lon = alon + dlon * f;
            if lon > 180.0 {
                lon -= 360.0;
            } else if lon < -180.0 {
                lon += 360.0;
            }
            let lat = alat + (blat - alat) * f;
            let bearing = (dlon.to_radians().sin() * blat.to_radians().cos())
                .atan2(
                    alat.to_radians().cos() * blat.to_radians().sin()
                        - alat.to_radians().sin()
                            * blat.to_radians().cos()
                            * dlon.to_radians().cos(),
                )
                .to_degrees()
                .rem_euclid(360.0);
            let nm =
                ((blat - alat).powi(2) + (dlon * alat.to_radians().cos()).powi(2)).sqrt() * 60.0;
            let hours = (arrival - s.depart_us) as f64 / 3.6e9;
            let speed = if sailing {
                (nm / hours.max(1.0) * 10.0).round() / 10.0
            } else {
                0.0
            };
            out.push(encode_position(&Position {
                msg_type: 1,
                mmsi: v.mmsi,
                nav_status: if sailing { 0 } else { 5 },
                speed_knots: Some(speed.min(102.2)),
                lon: Some((lon * 10_000.0).round() / 10_000.0),
                lat: Some((lat * 10_000.0).round() / 10_000.0),
                course: Some((bearing * 10.0).round() / 10.0),
                heading: Some(bearing.round() as u16 % 360),
                second: ((now / 1_000_000) % 60) as u8,
            }));
            if with_static {
                let eta = jiff::Timestamp::from_microsecond(arrival)
                    .ok()
                    .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC))
                    .map(|z| {
                        (
                            z.month() as u8,
                            z.day() as u8,
                            z.hour() as u8,
                            z.minute() as u8,
                        )
                    });
                out.extend(encode_static(
                    &StaticData {
                        mmsi: v.mmsi,
                        imo: v.imo.parse().ok(),
                        callsign: v.callsign.clone(),
                        name: v.name.clone(),
                        ship_type: 71,
                        eta,
                        draught_m: 12.5,
                        destination: s.pod.clone(),
                    },
                    (vi % 10) as u8,
                ));
            }
        }
        out
    }
}

/// Where a port is: the ports table, or (for the simulator's ports it lacks) a fixed point.
fn coordinates(locode: &str) -> Option<(f64, f64)> {
    if let Some(p) = boxtrack_core::reference::port(locode)
        && let (Some(lat), Some(lon)) = (p.latitude, p.longitude)
    {
        return Some((lat, lon));
    }
    match locode {
        "HKHKG" => Some((22.30, 114.17)),
        "JPTYO" => Some((35.62, 139.78)),
        "TWKHH" => Some((22.61, 120.28)),
        _ => None,
    }
}

/// Streams AIS to every client of `listener`: each vessel's position every `every` of real
/// time, static data every tenth round, until `shutdown`.
pub async fn serve_ais(
    sim: Sim,
    listener: tokio::net::TcpListener,
    every: Duration,
    shutdown: tokio_util::sync::CancellationToken,
) {
    use tokio::io::AsyncWriteExt;
    loop {
        let accepted = tokio::select! {
            _ = shutdown.cancelled() => return,
            a = listener.accept() => a,
        };
        let Ok((mut stream, _)) = accepted else {
            continue;
        };
        let sim = sim.clone();
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            let mut round = 0u64;
            loop {
                let text: String = sim
                    .ais_sentences(sim.clock().now_us(), round.is_multiple_of(10))
                    .into_iter()
                    .map(|s| s + "\r\n")
                    .collect();
                if stream.write_all(text.as_bytes()).await.is_err() {
                    return;
                }
                round += 1;
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = tokio::time::sleep(every) => {}
                }
            }
        });
    }
}
