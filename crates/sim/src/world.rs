//! The simulated world: vessels, shipments and their containers, generated from a seed, and
//! what each upstream says about them at a given virtual time. Pure and deterministic: the
//! same seed and origin give the same world and the same answers.

use boxtrack_core::carriers;
use boxtrack_core::ident;
use boxtrack_core::time::format_micros;
use boxtrack_sources::dcsa::{
    DocumentReference, Event, Location, Seal, TransportCall, Vessel as DcsaVessel,
};
use boxtrack_sources::edifact::terminal::Report as TerminalReport;
use boxtrack_sources::terminal::{FeedFee, FeedHold, TerminalStatus};
use boxtrack_sources::x12::status::{Location as XLoc, RoutePoint, SetKind, Stamp, StatusMessage};
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

fn tc(s: &Shipment, w: &World, at: &str, mode: &str, facility: Option<&str>) -> TransportCall {
    let v = &w.vessels[s.vessel];
    TransportCall {
        transport_call_id: format!("{}-{}-{at}", v.imo, s.voyage),
        mode_of_transport: mode.into(),
        un_location_code: Some(at.into()),
        facility_code: facility.map(str::to_string),
        export_voyage_number: Some(s.voyage.clone()),
        import_voyage_number: Some(s.voyage.clone()),
        location: None,
        vessel: (mode == "VESSEL").then(|| DcsaVessel {
            vessel_imo_number: Some(v.imo.clone()),
            vessel_name: Some(v.name.clone()),
            vessel_flag: None,
        }),
    }
}

fn event_id(s: &Shipment, n: u32) -> String {
    // a stable UUID-shaped id from the bill of lading and the event's position
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bill_of_lading.bytes().chain(n.to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let a = h;
    let b = h.rotate_left(29) ^ 0x5bd1_e995;
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        (a >> 32) as u32,
        (a >> 16) as u16,
        a as u16 & 0xfff,
        b as u16 & 0xfff,
        b & 0xffff_ffff_ffff
    )
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

    /// Every DCSA 2.2 event of this shipment, in order of visibility.
    pub fn dcsa_events(&self, w: &World) -> Vec<Timed<Event>> {
        let docs = vec![
            DocumentReference {
                document_reference_type: "TRD".into(),
                document_reference_value: self.bill_of_lading.clone(),
            },
            DocumentReference {
                document_reference_type: "BKG".into(),
                document_reference_value: self.booking.clone(),
            },
        ];
        let mut n = 0u32;
        let mut out = Vec::new();
        let mut push = |visible: i64, at: i64, ev: Event| {
            n += 1;
            let mut ev = ev;
            ev.event_id = Some(event_id(self, n));
            ev.event_created_date_time = format_micros(visible);
            ev.event_date_time = format_micros(at);
            out.push(Timed {
                visible_us: visible,
                item: ev,
            });
        };
        let blank = |event_type: &str, classifier: &str| Event {
            event_id: None,
            event_created_date_time: String::new(),
            event_type: event_type.into(),
            event_classifier_code: classifier.into(),
            event_date_time: String::new(),
            transport_event_type_code: None,
            equipment_event_type_code: None,
            shipment_event_type_code: None,
            document_type_code: None,
            document_id: None,
            equipment_reference: None,
            iso_equipment_code: None,
            empty_indicator_code: None,
            event_location: None,
            transport_call: None,
            document_references: docs.clone(),
            references: vec![],
            seals: vec![],
            delay_reason_code: None,
        };
        let transport = |code: &str, classifier: &str, at: &str| Event {
            transport_event_type_code: Some(code.into()),
            transport_call: Some(tc(self, w, at, "VESSEL", None)),
            ..blank("TRANSPORT", classifier)
        };
        let booked = self.depart_us - 10 * D;
        push(
            booked,
            booked,
            Event {
                shipment_event_type_code: Some("CONF".into()),
                document_type_code: Some("BKG".into()),
                document_id: Some(self.booking.clone()),
                ..blank("SHIPMENT", "ACT")
            },
        );
        let planned_arrival = self.depart_us + self.transit_us;
        push(booked, self.depart_us, transport("DEPA", "PLN", &self.pol));
        push(booked, planned_arrival, transport("ARRI", "PLN", &self.pod));
        if let Some(inland) = &self.inland {
            // the carrier's planned rail arrival at the inland ramp
            let mut ev = blank("TRANSPORT", "PLN");
            ev.transport_event_type_code = Some("ARRI".into());
            let mut call = tc(self, w, &inland.locode, "RAIL", None);
            call.transport_call_id = format!("{}-rail-{}", self.bill_of_lading, inland.locode);
            ev.transport_call = Some(call);
            push(booked, planned_arrival + 6 * D, ev);
        }
        for (i, c) in self.containers.iter().enumerate() {
            let equipment = |code: &str,
                             classifier: &str,
                             empty: bool,
                             at: &str,
                             facility: Option<&str>,
                             mode: &str| Event {
                equipment_event_type_code: Some(code.into()),
                equipment_reference: Some(c.clone()),
                iso_equipment_code: Some(self.iso_type.clone()),
                empty_indicator_code: Some(if empty { "EMPTY" } else { "LADEN" }.into()),
                event_location: Some(Location {
                    un_location_code: Some(at.into()),
                    facility_code: facility.map(str::to_string),
                    ..Default::default()
                }),
                transport_call: Some(tc(self, w, at, mode, facility)),
                seals: vec![Seal {
                    seal_number: format!("SL{}", &c[4..10]),
                }],
                ..blank("EQUIPMENT", classifier)
            };
            let e = self.depart_us - 6 * D + i as i64 * H;
            push(
                e,
                e,
                equipment("GTOT", "ACT", true, &self.pol, None, "TRUCK"),
            );
            let f = self.depart_us - 3 * D + i as i64 * H;
            push(
                f,
                f,
                equipment("GTIN", "ACT", false, &self.pol, None, "TRUCK"),
            );
            let l = self.depart_us - 12 * H + i as i64 * H;
            push(
                l,
                l,
                equipment("LOAD", "ACT", false, &self.pol, None, "VESSEL"),
            );
        }
        push(
            self.depart_us,
            self.depart_us,
            transport("DEPA", "ACT", &self.pol),
        );
        let mid = self.depart_us + self.transit_us / 2;
        push(mid, self.arrival_us(), transport("ARRI", "EST", &self.pod));
        push(
            self.arrival_us(),
            self.arrival_us(),
            transport("ARRI", "ACT", &self.pod),
        );
        for (i, c) in self.containers.iter().enumerate() {
            let equipment =
                |code: &str, empty: bool, at: &str, facility: Option<&str>, mode: &str| Event {
                    equipment_event_type_code: Some(code.into()),
                    equipment_reference: Some(c.clone()),
                    iso_equipment_code: Some(self.iso_type.clone()),
                    empty_indicator_code: Some(if empty { "EMPTY" } else { "LADEN" }.into()),
                    event_location: Some(Location {
                        un_location_code: Some(at.into()),
                        facility_code: facility.map(str::to_string),
                        ..Default::default()
                    }),
                    transport_call: Some(tc(self, w, at, mode, facility)),
                    ..blank("EQUIPMENT", "ACT")
                };
            let d = self.discharge_us(i);
            push(
                d,
                d,
                equipment("DISC", false, &self.pod, Some(&self.terminal), "VESSEL"),
            );
            if self.inland.is_none() {
                let o = self.leaves_terminal_us(i);
                push(
                    o,
                    o,
                    equipment("GTOT", false, &self.pod, Some(&self.terminal), "TRUCK"),
                );
                let r = o + 4 * D;
                push(r, r, equipment("GTIN", true, &self.pod, None, "TRUCK"));
            }
        }
        out.sort_by_key(|t| t.visible_us);
        out
    }

    /// The rail carrier's X12 322 messages (shipments with a rail leg only).
    pub fn rail_messages(&self) -> Vec<Timed<StatusMessage>> {
        let Some(inland) = &self.inland else {
            return vec![];
        };
        let mut out = Vec::new();
        let place = |locode: &str| XLoc {
            qualifier: "UN".into(),
            id: locode.into(),
            name: boxtrack_core::reference::port(locode).and_then(|p| p.name.clone()),
            country: Some("US".into()),
            state: None,
        };
        for (i, c) in self.containers.iter().enumerate() {
            let (ini, rest) = c.split_at(4);
            let route = vec![
                RoutePoint {
                    function: "6".into(),
                    location: place(&self.pod),
                    terminal: None,
                    dates: vec![],
                },
                RoutePoint {
                    function: "7".into(),
                    location: place(&inland.locode),
                    terminal: None,
                    dates: vec![],
                },
            ];
            let loaded = self.leaves_terminal_us(i);
            let steps: [(&str, i64, &str, bool); 6] = [
                ("AL", loaded, &self.pod, false),
                ("RL", loaded + 6 * H, &self.pod, false),
                ("AR", loaded + 4 * D, &inland.locode, false),
                ("NF", loaded + 4 * D + 3 * D, &inland.locode, false),
                ("OA", loaded + 5 * D, &inland.locode, false),
                ("I", loaded + 8 * D, &inland.locode, true),
            ];
            for (status, at, loc, empty) in steps {
                let zone = boxtrack_core::reference::port(loc).map(|p| p.time_zone.clone());
                let local = jiff_local(at, zone.as_deref());
                let visible = if status == "NF" { loaded + 4 * D } else { at };
                let mut route = route.clone();
                if status == "AL" || status == "RL" {
                    route[1].dates.push(Stamp {
                        qualifier: "371".into(),
                        date: jiff_local(
                            loaded + 4 * D,
                            boxtrack_core::reference::port(&inland.locode)
                                .map(|p| p.time_zone.as_str()),
                        )
                        .0,
                        time: Some(
                            jiff_local(
                                loaded + 4 * D,
                                boxtrack_core::reference::port(&inland.locode)
                                    .map(|p| p.time_zone.as_str()),
                            )
                            .1,
                        ),
                        time_code: Some("LT".into()),
                    });
                }
                out.push(Timed {
                    visible_us: visible,
                    item: StatusMessage {
                        kind: SetKind::Ramp322,
                        control_number: String::new(),
                        status: status.into(),
                        at: Stamp {
                            qualifier: String::new(),
                            date: local.0,
                            time: Some(local.1),
                            time_code: Some("LT".into()),
                        },
                        location: None,
                        equipment_initial: Some(ini.into()),
                        equipment_number: Some(rest[..6].into()),
                        check_digit: Some(rest[6..].into()),
                        equipment_status: Some(if empty { "E" } else { "L" }.into()),
                        iso_type: Some(self.iso_type.clone()),
                        references: vec![("BM".into(), self.bill_of_lading.clone())],
                        vessel: None,
                        route: {
                            let mut r = route;
                            r.insert(
                                0,
                                RoutePoint {
                                    function: "5".into(),
                                    location: place(loc),
                                    terminal: None,
                                    dates: vec![],
                                },
                            );
                            r
                        },
                        dates: vec![],
                        parties: vec![("RR".into(), "Rail".into(), Some(inland.rail_scac.clone()))],
                        seals: vec![],
                    },
                });
            }
        }
        out.sort_by_key(|t| t.visible_us);
        out
    }

    /// The ocean carrier's X12 315 messages: departure, arrival and discharge of each
    /// container, with the voyage's route (R4 `L` and `D` with actual or estimated dates).
    pub fn ocean_messages(&self, w: &World) -> Vec<Timed<StatusMessage>> {
        let v = &w.vessels[self.vessel];
        let place = |locode: &str| XLoc {
            qualifier: "UN".into(),
            id: locode.into(),
            name: boxtrack_core::reference::port(locode).and_then(|p| p.name.clone()),
            country: Some(locode[..2].to_string()),
            state: None,
        };
        let zone = |l: &str| boxtrack_core::reference::port(l).map(|p| p.time_zone.clone());
        let stamp = |q: &str, at: i64, l: &str| {
            let (date, time) = jiff_local(at, zone(l).as_deref());
            Stamp {
                qualifier: q.into(),
                date,
                time: Some(time),
                time_code: Some("LT".into()),
            }
        };
        let mut out = Vec::new();
        for (i, c) in self.containers.iter().enumerate() {
            let (ini, rest) = c.split_at(4);
            let steps: [(&str, i64, &str); 3] = [
                ("VD", self.depart_us, &self.pol),
                ("VA", self.arrival_us(), &self.pod),
                ("UV", self.discharge_us(i), &self.pod),
            ];
            for (status, at, loc) in steps {
                let arrived = status != "VD";
                let route = vec![
                    RoutePoint {
                        function: "L".into(),
                        location: place(&self.pol),
                        terminal: None,
                        dates: vec![stamp("140", self.depart_us, &self.pol)],
                    },
                    RoutePoint {
                        function: "D".into(),
                        location: place(&self.pod),
                        terminal: Some(self.terminal.clone()),
                        dates: vec![stamp(
                            if arrived { "140" } else { "139" },
                            self.arrival_us(),
                            &self.pod,
                        )],
                    },
                ];
                let at_stamp = stamp("", at, loc);
                out.push(Timed {
                    visible_us: at,
                    item: StatusMessage {
                        kind: SetKind::Ocean315,
                        control_number: String::new(),
                        status: status.into(),
                        at: Stamp {
                            qualifier: String::new(),
                            time_code: None,
                            ..at_stamp
                        },
                        location: Some(XLoc {
                            qualifier: "UN".into(),
                            id: loc.to_string(),
                            name: None,
                            country: None,
                            state: None,
                        }),
                        equipment_initial: Some(ini.into()),
                        equipment_number: Some(rest[..6].into()),
                        check_digit: Some(rest[6..].into()),
                        equipment_status: Some("L".into()),
                        iso_type: Some(self.iso_type.clone()),
                        references: vec![
                            ("BM".into(), self.bill_of_lading.clone()),
                            ("BN".into(), self.booking.clone()),
                            ("EQ".into(), c.clone()),
                        ],
                        vessel: Some(boxtrack_sources::x12::status::Vessel {
                            code: Some(v.imo.clone()),
                            flag: None,
                            voyage: Some(self.voyage.clone()),
                            code_qualifier: Some("L".into()),
                            name: Some(v.name.clone()),
                        }),
                        route,
                        dates: vec![],
                        parties: vec![],
                        seals: vec![],
                    },
                });
            }
        }
        out.sort_by_key(|t| t.visible_us);
        out
    }

    /// The POD terminal's CODECO and COARRI reports (for a terminal that speaks EDIFACT):
    /// each container's discharge and, when it leaves by road, its gate-out full and its
    /// gate-in empty, each at the minute it happened, in local time.
    pub fn terminal_reports(&self, w: &World) -> Vec<Timed<TerminalReport>> {
        use boxtrack_sources::edifact::terminal::Move;
        let v = &w.vessels[self.vessel];
        let zone = boxtrack_core::reference::port(&self.pod).map(|p| p.time_zone.clone());
        let mut out = Vec::new();
        for (i, c) in self.containers.iter().enumerate() {
            let mut moves = vec![(Move::Discharged, self.discharge_us(i), true)];
            if self.inland.is_none() {
                let out_at = self.leaves_terminal_us(i);
                moves.push((Move::GateOut, out_at, true));
                moves.push((Move::GateIn, out_at + 4 * D, false));
            }
            for (kind, at, full) in moves {
                let (date, time) = jiff_local(at, zone.as_deref());
                out.push(Timed {
                    visible_us: at,
                    item: TerminalReport {
                        kind,
                        container: c.clone(),
                        iso_type: Some(self.iso_type.clone()),
                        full,
                        trade: "3",
                        at: Stamp {
                            qualifier: String::new(),
                            date,
                            time: Some(time),
                            time_code: Some("LT".into()),
                        },
                        locode: self.pod.clone(),
                        terminal: Some(self.terminal.clone()),
                        vessel: (kind == Move::Discharged).then(|| {
                            boxtrack_sources::x12::status::Vessel {
                                code: Some(v.imo.clone()),
                                flag: None,
                                voyage: Some(self.voyage.clone()),
                                code_qualifier: Some("L".into()),
                                name: Some(v.name.clone()),
                            }
                        }),
                        bill_of_lading: Some(self.bill_of_lading.clone()),
                    },
                });
            }
        }
        out.sort_by_key(|t| t.visible_us);
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
