//! What a shipment's carriers and terminal send as EDI: the ocean carrier's X12 315, the rail
//! carrier's X12 322 and the POD terminal's EDIFACT CODECO and COARRI, each at the minute
//! it happened, in local time.

use boxtrack_sources::edifact::terminal::Report as TerminalReport;
use boxtrack_sources::x12::status::{Location as XLoc, RoutePoint, SetKind, Stamp, StatusMessage};

use super::{D, H, Shipment, Timed, World, jiff_local};

impl Shipment {
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
            let disc = self.discharge_us(i);
            let mut steps: Vec<(&str, i64, &str)> = vec![
                ("VD", self.depart_us, &self.pol),
                ("VA", self.arrival_us(), &self.pod),
                ("UV", disc, &self.pod),
                // the line releases its freight hold an hour before the terminal lifts it
                ("CR", disc + 5 * H, &self.pod),
            ];
            // customs: held for an exam then released, or released at once
            if self.customs_hold {
                steps.push(("PA", disc + H, &self.pod));
                steps.push(("CT", disc + 19 * H, &self.pod));
            } else {
                steps.push(("CT", disc + H, &self.pod));
            }
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
}
