//! What a shipment's carrier reports in DCSA Track & Trace: the booking, the voyage's plan and
//! its transport events, and each container's equipment events, each visible from the moment
//! it happens (plans and estimates earlier).

use boxtrack_core::time::format_micros;
use boxtrack_sources::dcsa::{
    DocumentReference, Event, Location, Seal, TransportCall, Vessel as DcsaVessel,
};

use super::{D, H, Shipment, Timed, World};

impl Shipment {
    /// Every DCSA 2.2 event of this shipment, in order of visibility.
    pub fn dcsa_events(&self, w: &World) -> Vec<Timed<Event>> {
        let mut events = Events::new(self, w);
        events.booking_and_plan();
        events.origin_gates_and_loading();
        events.voyage();
        events.discharge_and_return();
        let mut out = events.out;
        out.sort_by_key(|t| t.visible_us);
        out
    }
}

/// A shipment's DCSA events as they are written, numbered in that order (the number makes
/// each event's id).
struct Events<'a> {
    shipment: &'a Shipment,
    world: &'a World,
    /// The bill of lading and the booking, on every event.
    docs: Vec<DocumentReference>,
    /// Events written so far.
    n: u32,
    out: Vec<Timed<Event>>,
}

impl<'a> Events<'a> {
    fn new(shipment: &'a Shipment, world: &'a World) -> Events<'a> {
        let docs = vec![
            DocumentReference {
                document_reference_type: "TRD".into(),
                document_reference_value: shipment.bill_of_lading.clone(),
            },
            DocumentReference {
                document_reference_type: "BKG".into(),
                document_reference_value: shipment.booking.clone(),
            },
        ];
        Events {
            shipment,
            world,
            docs,
            n: 0,
            out: Vec::new(),
        }
    }

    /// Writes `ev`, which happens (or is planned) at `at` and is reported from `visible`.
    fn push(&mut self, visible: i64, at: i64, ev: Event) {
        self.n += 1;
        let mut ev = ev;
        ev.event_id = Some(event_id(self.shipment, self.n));
        ev.event_created_date_time = format_micros(visible);
        ev.event_date_time = format_micros(at);
        self.out.push(Timed {
            visible_us: visible,
            item: ev,
        });
    }

    /// An event of a type and classifier with nothing else but the shipment's documents.
    fn blank(&self, event_type: &str, classifier: &str) -> Event {
        Event {
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
            document_references: self.docs.clone(),
            references: vec![],
            seals: vec![],
            delay_reason_code: None,
            reason: None,
        }
    }

    /// The vessel's departure or arrival (`code`) at `at`.
    fn transport(&self, code: &str, classifier: &str, at: &str) -> Event {
        Event {
            transport_event_type_code: Some(code.into()),
            transport_call: Some(tc(self.shipment, self.world, at, "VESSEL", None)),
            ..self.blank("TRANSPORT", classifier)
        }
    }

    /// An actual move of container `c` (`code`), empty or laden, at `at` by `mode`.
    fn equipment(
        &self,
        c: &str,
        code: &str,
        empty: bool,
        at: &str,
        facility: Option<&str>,
        mode: &str,
    ) -> Event {
        Event {
            equipment_event_type_code: Some(code.into()),
            equipment_reference: Some(c.to_string()),
            iso_equipment_code: Some(self.shipment.iso_type.clone()),
            empty_indicator_code: Some(if empty { "EMPTY" } else { "LADEN" }.into()),
            event_location: Some(Location {
                un_location_code: Some(at.into()),
                facility_code: facility.map(str::to_string),
                ..Default::default()
            }),
            transport_call: Some(tc(self.shipment, self.world, at, mode, facility)),
            ..self.blank("EQUIPMENT", "ACT")
        }
    }

    /// Ten days before departure: the booking's confirmation, the planned departure and
    /// arrival, and the planned rail arrival at the inland ramp.
    fn booking_and_plan(&mut self) {
        let s = self.shipment;
        let booked = s.depart_us - 10 * D;
        let confirmed = Event {
            shipment_event_type_code: Some("CONF".into()),
            document_type_code: Some("BKG".into()),
            document_id: Some(s.booking.clone()),
            ..self.blank("SHIPMENT", "ACT")
        };
        self.push(booked, booked, confirmed);
        let planned_arrival = s.depart_us + s.transit_us;
        let departure = self.transport("DEPA", "PLN", &s.pol);
        self.push(booked, s.depart_us, departure);
        let arrival = self.transport("ARRI", "PLN", &s.pod);
        self.push(booked, planned_arrival, arrival);
        if let Some(inland) = &s.inland {
            // the carrier's planned rail arrival at the inland ramp
            let mut ev = self.blank("TRANSPORT", "PLN");
            ev.transport_event_type_code = Some("ARRI".into());
            let mut call = tc(s, self.world, &inland.locode, "RAIL", None);
            call.transport_call_id = format!("{}-rail-{}", s.bill_of_lading, inland.locode);
            ev.transport_call = Some(call);
            self.push(booked, planned_arrival + 6 * D, ev);
        }
    }

    /// Each container at the port of lading: out empty, in full, loaded (sealed).
    fn origin_gates_and_loading(&mut self) {
        let s = self.shipment;
        for (i, c) in s.containers.iter().enumerate() {
            let sealed = |ev: Event| Event {
                seals: vec![Seal {
                    seal_number: format!("SL{}", &c[4..10]),
                }],
                ..ev
            };
            let e = s.depart_us - 6 * D + i as i64 * H;
            let empty_out = sealed(self.equipment(c, "GTOT", true, &s.pol, None, "TRUCK"));
            self.push(e, e, empty_out);
            let f = s.depart_us - 3 * D + i as i64 * H;
            let full_in = sealed(self.equipment(c, "GTIN", false, &s.pol, None, "TRUCK"));
            self.push(f, f, full_in);
            let l = s.depart_us - 12 * H + i as i64 * H;
            let loaded = sealed(self.equipment(c, "LOAD", false, &s.pol, None, "VESSEL"));
            self.push(l, l, loaded);
        }
    }

    /// The vessel's departure, its estimated arrival half-way, and its arrival.
    fn voyage(&mut self) {
        let s = self.shipment;
        let departed = self.transport("DEPA", "ACT", &s.pol);
        self.push(s.depart_us, s.depart_us, departed);
        let mid = s.depart_us + s.transit_us / 2;
        let estimate = self.transport("ARRI", "EST", &s.pod);
        self.push(mid, s.arrival_us(), estimate);
        let arrived = self.transport("ARRI", "ACT", &s.pod);
        self.push(s.arrival_us(), s.arrival_us(), arrived);
    }

    /// Each container at the port of discharge: discharged and, when it leaves by road, out
    /// full and back in empty.
    fn discharge_and_return(&mut self) {
        let s = self.shipment;
        for (i, c) in s.containers.iter().enumerate() {
            let d = s.discharge_us(i);
            let discharged = self.equipment(c, "DISC", false, &s.pod, Some(&s.terminal), "VESSEL");
            self.push(d, d, discharged);
            if i == 0 {
                self.releases(d);
            }
            if s.inland.is_none() {
                let o = s.leaves_terminal_us(i);
                let full_out = self.equipment(c, "GTOT", false, &s.pod, Some(&s.terminal), "TRUCK");
                self.push(o, o, full_out);
                let r = o + 4 * D;
                let empty_in = self.equipment(c, "GTIN", true, &s.pod, None, "TRUCK");
                self.push(r, r, empty_in);
            }
        }
    }
}

impl Events<'_> {
    /// The bill's releases after the first discharge: customs (held for an exam first, when
    /// the shipment has one) and the line's release message, as shipment events about the
    /// bill (`HOLD` / `RELS` of a `CUS` and an `SRM` document).
    fn releases(&mut self, discharged: i64) {
        let s = self.shipment;
        let mut said = vec![];
        if s.customs_hold {
            said.push(("HOLD", "CUS", discharged + H, "Selected for examination"));
            said.push(("RELS", "CUS", discharged + 19 * H, "Examination complete"));
        } else {
            said.push(("RELS", "CUS", discharged + H, "Cleared"));
        }
        said.push(("RELS", "SRM", discharged + 5 * H, "Freight paid"));
        for (code, document, at, reason) in said {
            let ev = Event {
                shipment_event_type_code: Some(code.into()),
                document_type_code: Some(document.into()),
                document_id: Some(s.bill_of_lading.clone()),
                reason: Some(reason.into()),
                ..self.blank("SHIPMENT", "ACT")
            };
            self.push(at, at, ev);
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
