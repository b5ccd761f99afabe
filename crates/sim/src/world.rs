//! The simulated world: vessels, shipments and their containers, generated from a seed, and
//! what each upstream says about them at a given virtual time. Pure and deterministic: the
//! same seed and origin give the same world and the same answers.

mod dcsa;
mod edi;

use boxtrack_core::carriers;
use boxtrack_core::ident;
use boxtrack_core::time::format_micros;
use boxtrack_sources::terminal::{FeedFee, FeedHold, TerminalStatus};
use serde::Serialize;

const H: i64 = 3_600_000_000;
const D: i64 = 24 * H;

/// A small deterministic generator (SplitMix64), stable across versions and platforms.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// Seeded.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// Next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..hi` (`lo` when empty).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        lo + (self.next_u64() % (hi - lo) as u64) as i64
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.range(0, items.len() as i64) as usize]
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() as f64 / u64::MAX as f64) < p
    }
}

/// A vessel.
#[derive(Debug, Clone, Serialize)]
pub struct Vessel {
    /// Name.
    pub name: String,
    /// IMO number (valid check digit).
    pub imo: String,
    /// MMSI.
    pub mmsi: u32,
    /// Call sign.
    pub callsign: String,
}

/// The rail leg to an inland destination.
#[derive(Debug, Clone, Serialize)]
pub struct Inland {
    /// UN/LOCODE of the inland ramp.
    pub locode: String,
    /// Rail carrier SCAC.
    pub rail_scac: String,
}

/// A shipment (one bill of lading).
#[derive(Debug, Clone, Serialize)]
pub struct Shipment {
    /// Carrier SCAC.
    pub scac: String,
    /// Bill of lading.
    pub bill_of_lading: String,
    /// Booking.
    pub booking: String,
    /// Container numbers (ISO 6346).
    pub containers: Vec<String>,
    /// ISO size-type.
    pub iso_type: String,
    /// Port of lading.
    pub pol: String,
    /// Port of discharge.
    pub pod: String,
    /// POD terminal (FIRMS code).
    pub terminal: String,
    /// Rail leg, if any.
    pub inland: Option<Inland>,
    /// Index into the world's vessels.
    pub vessel: usize,
    /// Voyage number.
    pub voyage: String,
    /// Departure from the POL.
    pub depart_us: i64,
    /// Planned transit.
    pub transit_us: i64,
    /// Delay on arrival.
    pub delay_us: i64,
    /// Whether customs holds the containers for a while after discharge.
    pub customs_hold: bool,
}

/// A milestone as it happened in the world.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Happened {
    /// The milestone (`vessel_departed`: the name of its transport event without
    /// `container.transport.`).
    pub event: &'static str,
    /// Where (UN/LOCODE).
    pub locode: String,
    /// When, Unix microseconds.
    pub at_us: i64,
}

/// An event and when it becomes visible upstream.
#[derive(Debug, Clone)]
pub struct Timed<T> {
    /// When the upstream starts reporting it.
    pub visible_us: i64,
    /// What it reports.
    pub item: T,
}

/// The whole world.
#[derive(Debug, Clone, Serialize)]
pub struct World {
    /// Seed.
    pub seed: u64,
    /// Virtual time the world was built around.
    pub origin_us: i64,
    /// Vessels.
    pub vessels: Vec<Vessel>,
    /// Shipments.
    pub shipments: Vec<Shipment>,
}

const POLS: [&str; 7] = [
    "CNSHA", "CNYTN", "HKHKG", "JPTYO", "KRPUS", "SGSIN", "TWKHH",
];
const PODS: [(&str, &str, i64); 6] = [
    ("USLAX", "Y258", 15),
    ("USLGB", "W185", 16),
    ("USOAK", "Y549", 17),
    ("USSEA", "X117", 14),
    ("USNYC", "E364", 32),
    ("USSAV", "L737", 30),
];
const INLAND: [(&str, &str); 2] = [("USCHI", "BNSF"), ("USKCK", "UPRR")];
const VESSEL_NAMES: [&str; 12] = [
    "EVER GIVEN",
    "MSC OSCAR",
    "CMA CGM MARCO POLO",
    "MAERSK ESSEN",
    "ONE APUS",
    "HMM ALGECIRAS",
    "COSCO SHIPPING UNIVERSE",
    "HAPAG EXPRESS",
    "ZIM KINGSTON",
    "YM WELLNESS",
    "APL TEMASEK",
    "OOCL HONG KONG",
];

fn imo(rng: &mut Rng) -> String {
    let digits: Vec<u32> = (0..6)
        .map(|i| {
            if i == 0 {
                9
            } else {
                (rng.next_u64() % 10) as u32
            }
        })
        .collect();
    let sum: u32 = digits.iter().zip((2..=7).rev()).map(|(d, w)| d * w).sum();
    let s: String = digits.iter().map(|d| char::from(b'0' + *d as u8)).collect();
    format!("{s}{}", sum % 10)
}

/// The carriers the world uses: lines that track bills of lading, with a prefix and known
/// container prefixes.
pub fn carriers() -> Vec<(&'static str, &'static str, Vec<&'static str>)> {
    carriers::shipping_lines()
        .iter()
        .filter(|l| l.bill_of_lading_tracking && l.scac != carriers::SANDBOX_SCAC)
        .filter_map(|l| {
            let prefixes = carriers::container_prefixes(&l.scac);
            let bl = l.bill_of_lading_prefix.as_deref()?;
            (!prefixes.is_empty()).then_some((l.scac.as_str(), bl, prefixes))
        })
        .collect()
}

impl World {
    /// Builds a world of `n` shipments around `origin_us`: departures from 25 days before to
    /// 10 days after the origin, so some are at sea, some arrived and some not yet sailed.
    pub fn generate(seed: u64, origin_us: i64, n: usize) -> World {
        let mut rng = Rng::new(seed);
        let vessels: Vec<Vessel> = VESSEL_NAMES
            .iter()
            .enumerate()
            .map(|(i, name)| Vessel {
                name: (*name).to_string(),
                imo: imo(&mut rng),
                mmsi: 477_000_000 + (rng.next_u64() % 999_999) as u32 + i as u32,
                callsign: format!("VR{}", 100 + rng.range(0, 899)),
            })
            .collect();
        let lines = carriers();
        let mut shipments = Vec::with_capacity(n);
        let mut used = std::collections::HashSet::new();
        for i in 0..n {
            let (scac, bl_prefix, prefixes) = rng.pick(&lines).clone();
            let bill_of_lading = format!("{bl_prefix}{:09}", rng.range(100_000_000, 999_999_999));
            let booking = format!("{:010}", rng.range(1_000_000_000, 9_999_999_999));
            let count = rng.range(1, 4) as usize;
            let mut containers = Vec::new();
            while containers.len() < count {
                let prefix = rng.pick(&prefixes);
                let ten = format!("{prefix}{:06}", rng.range(0, 999_999));
                let Some(check) = ident::check_digit(&ten) else {
                    continue;
                };
                let number = format!("{ten}{check}");
                if used.insert(number.clone()) {
                    containers.push(number);
                }
            }
            let (pod, terminal, transit_days) = *rng.pick(&PODS);
            let west = pod.starts_with("USL") || pod == "USOAK" || pod == "USSEA";
            let inland = (west && rng.chance(0.35)).then(|| {
                let (locode, rail) = *rng.pick(&INLAND);
                Inland {
                    locode: locode.into(),
                    rail_scac: rail.into(),
                }
            });
            let delay_h = *rng.pick(&[0, 0, 0, 6, 30, -4]);
            shipments.push(Shipment {
                scac: scac.to_string(),
                bill_of_lading,
                booking,
                containers,
                iso_type: rng.pick(&["45G1", "42G1", "22G1", "45R1"]).to_string(),
                pol: rng.pick(&POLS).to_string(),
                pod: pod.into(),
                terminal: terminal.into(),
                inland,
                vessel: rng.range(0, vessels.len() as i64) as usize,
                voyage: format!(
                    "{:03}{}",
                    rng.range(1, 999),
                    if i % 2 == 0 { "E" } else { "W" }
                ),
                depart_us: origin_us + rng.range(-25 * D, 10 * D) / H * H,
                transit_us: transit_days * D,
                delay_us: delay_h * H,
                customs_hold: rng.chance(0.3),
            });
        }
        World {
            seed,
            origin_us,
            vessels,
            shipments,
        }
    }
}

impl Shipment {
    /// Arrival at the POD.
    pub fn arrival_us(&self) -> i64 {
        self.depart_us + self.transit_us + self.delay_us
    }

    /// Discharge of container `i`.
    pub fn discharge_us(&self, i: usize) -> i64 {
        self.arrival_us() + 8 * H + i as i64 * H
    }

    /// Full out of container `i` at the POD (no rail leg), or loaded on rail (rail leg).
    pub fn leaves_terminal_us(&self, i: usize) -> i64 {
        self.discharge_us(i)
            + if self.inland.is_some() {
                36 * H
            } else {
                3 * D + 5 * H
            }
    }

    /// What happened to container `i`, whoever reports it: each physical milestone once,
    /// with its place and exact time (the world's own record, which boxtrack's view of the
    /// same world is scored against). Availability, which the terminal only reports as a
    /// state when it is asked, is not in it.
    pub fn record(&self, i: usize) -> Vec<Happened> {
        let at = |event: &'static str, locode: &str, at_us: i64| Happened {
            event,
            locode: locode.to_string(),
            at_us,
        };
        let i64_i = i as i64;
        let mut out = vec![
            at("empty_out", &self.pol, self.depart_us - 6 * D + i64_i * H),
            at("full_in", &self.pol, self.depart_us - 3 * D + i64_i * H),
            at(
                "vessel_loaded",
                &self.pol,
                self.depart_us - 12 * H + i64_i * H,
            ),
            at("vessel_departed", &self.pol, self.depart_us),
            at("vessel_arrived", &self.pod, self.arrival_us()),
            at("vessel_discharged", &self.pod, self.discharge_us(i)),
        ];
        let out_at = self.leaves_terminal_us(i);
        match &self.inland {
            None => {
                out.push(at("full_out", &self.pod, out_at));
                out.push(at("empty_in", &self.pod, out_at + 4 * D));
            }
            Some(inland) => {
                out.push(at("rail_loaded", &self.pod, out_at));
                out.push(at("rail_departed", &self.pod, out_at + 6 * H));
                out.push(at("rail_arrived", &inland.locode, out_at + 4 * D));
                out.push(at(
                    "arrived_at_inland_destination",
                    &inland.locode,
                    out_at + 4 * D,
                ));
                out.push(at("full_out", &inland.locode, out_at + 5 * D));
                out.push(at("empty_in", &inland.locode, out_at + 8 * D));
            }
        }
        out
    }

    /// What the POD terminal's feed says about container `i` at `now` (`None`: not there yet).
    pub fn terminal_status(&self, i: usize, now: i64) -> Option<TerminalStatus> {
        let c = self.containers.get(i)?;
        let disc = self.discharge_us(i);
        if now < disc {
            return None;
        }
        let out = self.leaves_terminal_us(i);
        let mut holds = Vec::new();
        if now < disc + 6 * H {
            holds.push(FeedHold {
                name: "freight".into(),
                status: "hold".into(),
                description: Some("Freight not released by the line".into()),
            });
        }
        if self.customs_hold && now < disc + 20 * H {
            holds.push(FeedHold {
                name: "customs".into(),
                status: "hold".into(),
                description: Some("CBP hold".into()),
            });
        }
        let lfd = disc + 4 * D;
        let gone = now >= out;
        let fees = if now > lfd && !gone {
            let days = (now - lfd) / D + 1;
            vec![FeedFee {
                kind: "demurrage".into(),
                amount_minor: days * 15_000,
                currency_code: "USD".into(),
            }]
        } else {
            vec![]
        };
        // released once the last hold clears
        let released = disc + if self.customs_hold { 20 * H } else { 6 * H };
        let available = holds.is_empty() && !gone;
        Some(TerminalStatus {
            container_number: c.clone(),
            terminal: self.terminal.clone(),
            discharged_at: Some(format_micros(disc)),
            available_for_pickup: available,
            available_at: available.then(|| format_micros(released)),
            holds,
            fees,
            last_free_day: Some(format_micros(lfd)),
            pickup_appointment_at: (now >= disc + D && !gone && self.inland.is_none())
                .then(|| format_micros(out - 2 * H)),
            yard_location: (!gone).then(|| format!("B-{:02}-{}", (disc / H) % 40, i + 1)),
            full_out_at: (gone && self.inland.is_none()).then(|| format_micros(out)),
            full_out_chassis_number: (gone && self.inland.is_none())
                .then(|| format!("CHZ{}", &c[4..10])),
            as_of: format_micros(now),
        })
    }
}

/// A UTC instant as local CCYYMMDD and HHMM in `zone` (UTC when unknown).
fn jiff_local(us: i64, zone: Option<&str>) -> (String, String) {
    let ts = jiff::Timestamp::from_microsecond(us).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    let tz = zone
        .and_then(|z| jiff::tz::TimeZone::get(z).ok())
        .unwrap_or(jiff::tz::TimeZone::UTC);
    let z = ts.to_zoned(tz);
    (
        z.strftime("%Y%m%d").to_string(),
        z.strftime("%H%M").to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use boxtrack_sources::dcsa::Event;
    use boxtrack_sources::x12::status::StatusMessage;

    #[test]
    fn the_same_seed_gives_the_same_world() {
        let a = World::generate(7, 1_800_000_000_000_000, 50);
        let b = World::generate(7, 1_800_000_000_000_000, 50);
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap()
        );
        let c = World::generate(8, 1_800_000_000_000_000, 50);
        assert_ne!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&c).unwrap()
        );
    }

    #[test]
    fn numbers_are_valid_and_events_parse_as_dcsa() {
        let w = World::generate(1, 1_800_000_000_000_000, 40);
        for s in &w.shipments {
            assert!(s.bill_of_lading.len() >= 10);
            for c in &s.containers {
                assert!(ident::validate_container(c).is_ok(), "{c}");
            }
            let events: Vec<Event> = s.dcsa_events(&w).into_iter().map(|t| t.item).collect();
            let body = serde_json::to_vec(&events).unwrap();
            let parsed = boxtrack_sources::dcsa::parse(&body, 1_900_000_000_000_000).unwrap();
            assert!(parsed.rejected.is_empty(), "{:?}", parsed.rejected);
            assert_eq!(parsed.events.len(), events.len());
            assert!(boxtrack_sources::x12::map::imo_valid(
                &w.vessels[s.vessel].imo
            ));
            let ocean: Vec<StatusMessage> =
                s.ocean_messages(&w).into_iter().map(|t| t.item).collect();
            let text =
                boxtrack_sources::x12::status::write_interchange(&ocean, 1, "20260101", "1200");
            let p = boxtrack_sources::x12::parse(&text).unwrap();
            assert!(p.findings.is_empty(), "{:?}", p.findings);
            for (_, set) in p.sets() {
                let m = boxtrack_sources::x12::status::read(set).unwrap();
                let mapped = boxtrack_sources::x12::map::map(&m, 0);
                assert_eq!(
                    mapped.container.as_deref(),
                    Some(m.container_number().unwrap().as_str())
                );
                assert!(!mapped.observations.is_empty());
            }
            let rail = s.rail_messages();
            if !rail.is_empty() {
                let text = boxtrack_sources::x12::status::write_interchange(
                    &rail.iter().map(|t| t.item.clone()).collect::<Vec<_>>(),
                    1,
                    "20260101",
                    "1200",
                );
                let p = boxtrack_sources::x12::parse(&text).unwrap();
                assert!(p.findings.is_empty(), "{:?}", p.findings);
            }
        }
    }

    #[test]
    fn terminal_feed_follows_the_discharge() {
        let w = World::generate(3, 1_800_000_000_000_000, 5);
        let s = &w.shipments[0];
        let d = s.discharge_us(0);
        assert!(s.terminal_status(0, d - 1).is_none());
        let first = s.terminal_status(0, d).unwrap();
        assert!(!first.available_for_pickup);
        assert_eq!(first.holds[0].name, "freight");
        let later = s.terminal_status(0, d + 22 * H).unwrap();
        assert!(later.available_for_pickup, "{later:?}");
    }

    #[test]
    fn ais_broadcasts_decode_to_the_vessels_at_sea() {
        let sim = crate::Sim::new(&crate::SimConfig {
            seed: 5,
            shipments: 30,
            speed: 1.0,
            origin_us: 1_800_000_000_000_000,
            clock_start_us: None,
            faults: crate::Faults::default(),
            x12_ingest: None,
            carrier_auth: crate::CarrierAuth::None,
            token_ttl: std::time::Duration::from_secs(3600),
            carrier_profiles: vec![],
        });
        let lines = sim.ais_sentences(1_800_000_000_000_000, true);
        let mut d = boxtrack_sources::ais::Decoder::new();
        let mut positions = 0;
        let mut statics = 0;
        for l in &lines {
            match d.feed(l).unwrap() {
                Some(boxtrack_sources::ais::Message::Position(p)) => {
                    positions += 1;
                    assert!(p.lat.unwrap().abs() <= 90.0 && p.lon.unwrap().abs() <= 180.0);
                    assert!(sim.world().vessels.iter().any(|v| v.mmsi == p.mmsi));
                }
                Some(boxtrack_sources::ais::Message::Static(s)) => {
                    statics += 1;
                    let v = sim
                        .world()
                        .vessels
                        .iter()
                        .find(|v| v.mmsi == s.mmsi)
                        .unwrap();
                    assert_eq!(s.imo.map(|i| format!("{i:07}")), Some(v.imo.clone()));
                    assert_eq!(s.name, v.name.chars().take(20).collect::<String>());
                }
                _ => {}
            }
        }
        assert!(
            positions > 0 && positions == statics,
            "{positions} {statics}"
        );
    }
}
