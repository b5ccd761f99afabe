//! Scripted sandbox journeys. Each is a documented test number (`scac: "TEST"`) whose journey
//! plays through the real merge path on a virtual clock: observations are written relative
//! to the start of the journey and shifted to the moment the request succeeded.

use boxtrack_core::tracking::{
    DataSource, Equipment, EventFact, Fact, Fee, Hold, LfdKind, Milestone, Observation, Place,
    Route,
};

use crate::sandbox::container_number;

const H: i64 = 3_600_000_000;

/// One scripted observation, `at_h` hours after the journey starts.
#[derive(Debug, Clone)]
pub struct Step {
    /// Hours after the start.
    pub at_h: i64,
    /// Index into [`Scenario::containers`].
    pub container: usize,
    /// The observation, with times relative to the start (0 = start).
    pub observation: Observation,
}

/// A scripted journey.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The test number that starts it.
    pub number: &'static str,
    /// Short title.
    pub title: &'static str,
    /// What happens.
    pub description: &'static str,
    /// Ports.
    pub route: Route,
    /// Container numbers.
    pub containers: Vec<String>,
    /// Steps in time order.
    pub steps: Vec<Step>,
}

impl Scenario {
    /// Length of the journey in hours.
    pub fn duration_h(&self) -> i64 {
        self.steps.iter().map(|s| s.at_h).max().unwrap_or(0)
    }
}

/// Shifts every time in an observation by `base_us` (relative script time to virtual time).
pub fn shift(o: &Observation, base_us: i64) -> Observation {
    let mut o = o.clone();
    o.observed_us += base_us;
    match &mut o.fact {
        Fact::Event(e) => e.at_us = e.at_us.map(|t| t + base_us),
        Fact::Lfd { at_us, .. } | Fact::Appointment { at_us } => {
            *at_us = at_us.map(|t| t + base_us)
        }
        _ => {}
    }
    o
}

struct Place_ {
    place: Place,
    locode: &'static str,
    tz: &'static str,
}

const SHA: Place_ = Place_ {
    place: Place::Origin,
    locode: "CNSHA",
    tz: "Asia/Shanghai",
};
const YTN: Place_ = Place_ {
    place: Place::Origin,
    locode: "CNYTN",
    tz: "Asia/Shanghai",
};
const PUS: Place_ = Place_ {
    place: Place::Transshipment,
    locode: "KRPUS",
    tz: "Asia/Seoul",
};
const HKG: Place_ = Place_ {
    place: Place::Transshipment,
    locode: "HKHKG",
    tz: "Asia/Hong_Kong",
};
const LAX: Place_ = Place_ {
    place: Place::Pod,
    locode: "USLAX",
    tz: "America/Los_Angeles",
};
const LGB: Place_ = Place_ {
    place: Place::Pod,
    locode: "USLGB",
    tz: "America/Los_Angeles",
};
const OAK: Place_ = Place_ {
    place: Place::Pod,
    locode: "USOAK",
    tz: "America/Los_Angeles",
};
const KCK: Place_ = Place_ {
    place: Place::Inland,
    locode: "USKCK",
    tz: "America/Chicago",
};
const CHI: Place_ = Place_ {
    place: Place::Inland,
    locode: "USCHI",
    tz: "America/Chicago",
};

struct Script {
    containers: usize,
    steps: Vec<Step>,
}

impl Script {
    fn new(containers: usize) -> Script {
        Script {
            containers,
            steps: Vec::new(),
        }
    }

    fn all(&mut self, at_h: i64, source: DataSource, fact: Fact) -> &mut Self {
        for container in 0..self.containers {
            self.steps.push(Step {
                at_h,
                container,
                observation: Observation {
                    observed_us: at_h * H,
                    source,
                    fact: fact.clone(),
                    precision: Default::default(),
                    upstream_id: None,
                },
            });
        }
        self
    }

    fn one(&mut self, container: usize, at_h: i64, source: DataSource, fact: Fact) -> &mut Self {
        self.steps.push(Step {
            at_h,
            container,
            observation: Observation {
                observed_us: at_h * H,
                source,
                fact,
                precision: Default::default(),
                upstream_id: None,
            },
        });
        self
    }

    /// An actual milestone at `at_h`, reported then.
    fn ev(
        &mut self,
        at_h: i64,
        m: Milestone,
        p: &Place_,
        vessel: Option<(&str, &str, &str)>,
    ) -> &mut Self {
        let source = match (m, p.place) {
            (
                Milestone::RailLoaded
                | Milestone::RailDeparted
                | Milestone::RailArrived
                | Milestone::RailUnloaded
                | Milestone::ArrivedAtInlandDestination,
                _,
            ) => DataSource::Rail,
            (
                Milestone::FullOut | Milestone::Available | Milestone::NotAvailable,
                Place::Inland,
            ) => DataSource::Rail,
            (
                Milestone::VesselBerthed
                | Milestone::VesselDischarged
                | Milestone::FullOut
                | Milestone::EmptyIn,
                _,
            ) => DataSource::Terminal,
            _ => DataSource::ShippingLine,
        };
        self.all(at_h, source, event(m, p, Some(at_h * H), false, vessel))
    }

    /// An estimate of `m` at `when_h`, reported at `at_h`.
    fn est(
        &mut self,
        at_h: i64,
        m: Milestone,
        p: &Place_,
        when_h: i64,
        source: DataSource,
    ) -> &mut Self {
        self.all(at_h, source, event(m, p, Some(when_h * H), true, None))
    }

    fn done(&mut self) -> Vec<Step> {
        let mut steps = std::mem::take(&mut self.steps);
        steps.sort_by_key(|s| s.at_h);
        steps
    }
}

fn event(
    m: Milestone,
    p: &Place_,
    at_us: Option<i64>,
    estimated: bool,
    vessel: Option<(&str, &str, &str)>,
) -> Fact {
    Fact::Event(EventFact {
        milestone: m,
        estimated,
        at_us,
        place: p.place,
        locode: Some(p.locode.into()),
        timezone: Some(p.tz.into()),
        terminal: None,
        vessel_name: vessel.map(|v| v.0.to_string()),
        vessel_imo: vessel.map(|v| v.1.to_string()),
        voyage: vessel.map(|v| v.2.to_string()),
    })
}

fn route(
    pol: &Place_,
    pol_name: &str,
    pod: &Place_,
    pod_name: &str,
    dest: Option<(&Place_, &str)>,
) -> Route {
    Route {
        pol_locode: Some(pol.locode.into()),
        pol_name: Some(pol_name.into()),
        pol_timezone: Some(pol.tz.into()),
        pod_locode: Some(pod.locode.into()),
        pod_name: Some(pod_name.into()),
        pod_timezone: Some(pod.tz.into()),
        destination_locode: dest.map(|d| d.0.locode.to_string()),
        destination_name: dest.map(|d| d.1.to_string()),
        destination_timezone: dest.map(|d| d.0.tz.to_string()),
    }
}

fn equipment(kind: &str, length: i64) -> Fact {
    Fact::Equipment(Equipment {
        equipment_type: Some(kind.into()),
        equipment_length: Some(length),
        equipment_height: Some(if length >= 40 {
            "high_cube".into()
        } else {
            "standard".into()
        }),
        weight_in_lbs: Some(if length >= 40 { 26_500 } else { 18_200 }),
        seal_number: Some("SBX0042".into()),
    })
}

fn hold(name: &str, status: &str, text: &str) -> Hold {
    Hold {
        name: name.into(),
        status: status.into(),
        description: Some(text.into()),
    }
}

fn usd(kind: &str, dollars: i64) -> Fee {
    Fee {
        kind: kind.into(),
        amount_minor: dollars * 100,
        currency_code: "USD".into(),
    }
}

const EVER: Option<(&str, &str, &str)> = Some(("EVER GIVEN", "9811000", "0412E"));
const FEEDER: Option<(&str, &str, &str)> = Some(("HYUNDAI BUSAN", "9463011", "029E"));
const MSC: Option<(&str, &str, &str)> = Some(("MSC ANNA", "9777589", "FA238A"));

/// The common ocean leg: empty out, full in, loaded, departed, estimates, arrival, discharge.
fn ocean_leg(
    s: &mut Script,
    pol: &Place_,
    pod: &Place_,
    arrive_h: i64,
    vessel: Option<(&str, &str, &str)>,
) {
    s.all(0, DataSource::ShippingLine, equipment("dry", 40))
        .ev(0, Milestone::EmptyOut, pol, None)
        .ev(24, Milestone::FullIn, pol, None)
        .est(
            24,
            Milestone::VesselDeparted,
            pol,
            60,
            DataSource::ShippingLine,
        )
        .est(
            24,
            Milestone::VesselArrived,
            pod,
            arrive_h,
            DataSource::ShippingLine,
        )
        .ev(48, Milestone::VesselLoaded, pol, vessel)
        .ev(60, Milestone::VesselDeparted, pol, vessel)
        .ev(arrive_h, Milestone::VesselArrived, pod, vessel)
        .ev(arrive_h + 4, Milestone::VesselBerthed, pod, vessel)
        .ev(arrive_h + 14, Milestone::VesselDischarged, pod, vessel);
}

fn terminal_release(s: &mut Script, pod: &Place_, from_h: i64) {
    s.all(
        from_h,
        DataSource::Terminal,
        Fact::PodTerminal {
            code: Some("Y258".into()),
        },
    )
    .all(
        from_h,
        DataSource::Terminal,
        Fact::Availability {
            available: false,
            at_us: None,
        },
    )
    .all(
        from_h,
        DataSource::Terminal,
        Fact::Lfd {
            which: LfdKind::Terminal,
            at_us: Some((from_h + 120) * H),
        },
    )
    .all(
        from_h,
        DataSource::Terminal,
        Fact::YardLocation {
            location: Some("B-12-04-2".into()),
        },
    )
    .all(
        from_h + 18,
        DataSource::Terminal,
        Fact::Availability {
            available: true,
            at_us: None,
        },
    )
    .all(
        from_h + 20,
        DataSource::Terminal,
        Fact::Appointment {
            at_us: Some((from_h + 30) * H),
        },
    )
    .all(
        from_h + 31,
        DataSource::Terminal,
        Fact::Chassis {
            number: Some("TRAC123456".into()),
        },
    )
    .ev(from_h + 31, Milestone::FullOut, pod, None);
}

/// Every scripted journey.
pub fn scenarios() -> Vec<Scenario> {
    let mut out = Vec::new();

    let mut s = Script::new(1);
    ocean_leg(&mut s, &SHA, &LAX, 480, EVER);
    s.est(
        200,
        Milestone::VesselArrived,
        &LAX,
        486,
        DataSource::ShippingLine,
    );
    terminal_release(&mut s, &LAX, 494);
    s.ev(600, Milestone::EmptyIn, &LAX, None);
    out.push(Scenario {
        number: "TEST-SCN-IMPORT",
        title: "Plain import",
        description: "Shanghai to Los Angeles, one 40' container: empty out, full in, loaded, departed, one ETA update, arrival, discharge, terminal release with LFD and appointment, full out, empty returned (about 25 days).",
        route: route(&SHA, "Shanghai", &LAX, "Los Angeles", None),
        containers: vec![container_number("TEST-SCN-IMPORT")],
        steps: s.done(),
    });

    let mut s = Script::new(2);
    s.all(0, DataSource::ShippingLine, equipment("dry", 40))
        .ev(0, Milestone::EmptyOut, &SHA, None)
        .ev(20, Milestone::FullIn, &SHA, None)
        .est(
            20,
            Milestone::VesselArrived,
            &LGB,
            430,
            DataSource::ShippingLine,
        )
        .ev(40, Milestone::VesselLoaded, &SHA, FEEDER)
        .ev(48, Milestone::VesselDeparted, &SHA, FEEDER)
        .ev(96, Milestone::TransshipmentArrived, &PUS, FEEDER)
        .ev(104, Milestone::TransshipmentDischarged, &PUS, FEEDER)
        .ev(150, Milestone::TransshipmentLoaded, &PUS, MSC)
        .ev(160, Milestone::TransshipmentDeparted, &PUS, MSC)
        .ev(430, Milestone::VesselArrived, &LGB, MSC)
        .ev(440, Milestone::VesselDischarged, &LGB, MSC)
        .one(
            1,
            446,
            DataSource::Terminal,
            Fact::Holds {
                holds: vec![hold("customs", "hold", "CBP DOCUMENT REVIEW")],
            },
        )
        .one(1, 458, DataSource::Terminal, Fact::Holds { holds: vec![] });
    terminal_release(&mut s, &LGB, 444);
    out.push(Scenario {
        number: "TEST-SCN-TRANSSHIPMENT",
        title: "Transshipment",
        description: "Shanghai to Long Beach via Busan, two containers: feeder to Busan, transshipment discharge and load onto the mainline vessel, arrival, a customs document hold on the second container that clears, release, full out.",
        route: route(&SHA, "Shanghai", &LGB, "Long Beach", None),
        containers: vec![container_number("TEST-SCN-TRANSSHIPMENT/1"), container_number("TEST-SCN-TRANSSHIPMENT/2")],
        steps: s.done(),
    });

    let mut s = Script::new(1);
    s.all(0, DataSource::ShippingLine, equipment("reefer", 40))
        .ev(0, Milestone::EmptyOut, &YTN, None)
        .ev(24, Milestone::FullIn, &YTN, None)
        .est(
            24,
            Milestone::VesselDeparted,
            &YTN,
            60,
            DataSource::ShippingLine,
        )
        .est(
            24,
            Milestone::VesselArrived,
            &OAK,
            400,
            DataSource::ShippingLine,
        )
        .est(
            58,
            Milestone::VesselDeparted,
            &YTN,
            228,
            DataSource::ShippingLine,
        )
        .est(
            58,
            Milestone::VesselArrived,
            &OAK,
            568,
            DataSource::ShippingLine,
        )
        .est(
            200,
            Milestone::VesselArrived,
            &OAK,
            590,
            DataSource::ShippingLine,
        )
        .ev(220, Milestone::VesselLoaded, &YTN, EVER)
        .ev(228, Milestone::VesselDeparted, &YTN, EVER)
        .est(
            400,
            Milestone::VesselArrived,
            &OAK,
            602,
            DataSource::ShippingLine,
        )
        .ev(602, Milestone::VesselArrived, &OAK, EVER)
        .ev(612, Milestone::VesselDischarged, &OAK, EVER);
    out.push(Scenario {
        number: "TEST-SCN-ROLLOVER",
        title: "Rollover with ETA slips",
        description: "Yantian to Oakland, one reefer: rolled to a vessel a week later (ETD and ETA move), then the ETA slips twice more before arrival; pod_original_eta_at keeps the first ETA.",
        route: route(&YTN, "Yantian", &OAK, "Oakland", None),
        containers: vec![container_number("TEST-SCN-ROLLOVER")],
        steps: s.done(),
    });

    let mut s = Script::new(1);
    ocean_leg(&mut s, &SHA, &LAX, 480, EVER);
    s.all(
        494,
        DataSource::Terminal,
        Fact::PodTerminal {
            code: Some("W185".into()),
        },
    )
    .all(
        494,
        DataSource::Terminal,
        Fact::Availability {
            available: false,
            at_us: None,
        },
    )
    .all(
        494,
        DataSource::Terminal,
        Fact::Holds {
            holds: vec![
                hold("customs", "hold", "CBP EXAM REQUIRED"),
                hold("freight", "hold", "LINE HOLD - FREIGHT UNPAID"),
                hold("USDA", "pending", "USDA INSPECTION"),
            ],
        },
    )
    .all(
        494,
        DataSource::Terminal,
        Fact::Lfd {
            which: LfdKind::Terminal,
            at_us: Some(590 * H),
        },
    )
    .all(
        494,
        DataSource::Terminal,
        Fact::Fees {
            fees: vec![usd("exam", 0)],
        },
    )
    .all(
        520,
        DataSource::Terminal,
        Fact::Holds {
            holds: vec![
                hold("customs", "hold", "CBP EXAM REQUIRED"),
                hold("USDA", "hold", "USDA INSPECTION"),
            ],
        },
    )
    .all(
        540,
        DataSource::Terminal,
        Fact::Fees {
            fees: vec![usd("exam", 350), usd("total", 350)],
        },
    )
    .all(
        560,
        DataSource::ShippingLine,
        Fact::Lfd {
            which: LfdKind::Line,
            at_us: Some(614 * H),
        },
    )
    .all(
        600,
        DataSource::Terminal,
        Fact::Fees {
            fees: vec![usd("exam", 350), usd("demurrage", 150), usd("total", 500)],
        },
    )
    .all(
        610,
        DataSource::Terminal,
        Fact::Holds {
            holds: vec![hold("USDA", "hold", "USDA INSPECTION")],
        },
    )
    .all(
        624,
        DataSource::Terminal,
        Fact::Fees {
            fees: vec![usd("exam", 350), usd("demurrage", 300), usd("total", 650)],
        },
    )
    .all(630, DataSource::Terminal, Fact::Holds { holds: vec![] })
    .all(
        630,
        DataSource::Terminal,
        Fact::Availability {
            available: true,
            at_us: None,
        },
    )
    .all(
        634,
        DataSource::Terminal,
        Fact::Appointment {
            at_us: Some(640 * H),
        },
    )
    .ev(641, Milestone::FullOut, &LAX, None);
    out.push(Scenario {
        number: "TEST-SCN-HOLDS",
        title: "Holds, fees and LFD changes",
        description: "Los Angeles import held by customs, freight and a pending USDA hold; the freight hold clears, USDA becomes active, fees accrue (exam, then demurrage), the line sets its own LFD over the terminal's, the holds clear and the container is picked up.",
        route: route(&SHA, "Shanghai", &LAX, "Los Angeles", None),
        containers: vec![container_number("TEST-SCN-HOLDS")],
        steps: s.done(),
    });

    let mut s = Script::new(1);
    ocean_leg(&mut s, &SHA, &LAX, 480, EVER);
    s.all(
        480,
        DataSource::Rail,
        Fact::RailCarriers {
            pod: Some("UP".into()),
            ind: Some("UP".into()),
        },
    )
    .ev(520, Milestone::RailLoaded, &LAX, None)
    .ev(524, Milestone::RailDeparted, &LAX, None)
    .est(
        524,
        Milestone::ArrivedAtInlandDestination,
        &CHI,
        620,
        DataSource::Rail,
    )
    .ev(570, Milestone::RailArrived, &KCK, None)
    .est(
        575,
        Milestone::ArrivedAtInlandDestination,
        &CHI,
        628,
        DataSource::Rail,
    )
    .ev(628, Milestone::ArrivedAtInlandDestination, &CHI, None)
    // the shipping line's view of the inland leg (destination_eta_at / destination_ata_at)
    .est(
        0,
        Milestone::ArrivedAtInlandDestination,
        &CHI,
        624,
        DataSource::ShippingLine,
    )
    .est(
        524,
        Milestone::ArrivedAtInlandDestination,
        &CHI,
        630,
        DataSource::ShippingLine,
    )
    .all(
        629,
        DataSource::ShippingLine,
        event(
            Milestone::ArrivedAtInlandDestination,
            &CHI,
            Some(628 * H),
            false,
            None,
        ),
    )
    .ev(632, Milestone::RailUnloaded, &CHI, None)
    .all(
        632,
        DataSource::Rail,
        Fact::Lfd {
            which: LfdKind::Rail,
            at_us: Some(680 * H),
        },
    )
    .ev(640, Milestone::Available, &CHI, None)
    .ev(660, Milestone::FullOut, &CHI, None);
    out.push(Scenario {
        number: "TEST-SCN-RAIL",
        title: "Rail to an inland ramp",
        description: "Shanghai to Los Angeles, then Union Pacific rail to Chicago through Kansas City: rail loaded and departed at the POD, an interchange arrival, inland ETA updates, arrival at the inland destination, unloading, rail LFD (needs the rail_lfd entitlement), available, full out.",
        route: route(&SHA, "Shanghai", &LAX, "Los Angeles", Some((&CHI, "Chicago"))),
        containers: vec![container_number("TEST-SCN-RAIL")],
        steps: s.done(),
    });

    let mut s = Script::new(1);
    ocean_leg(&mut s, &SHA, &LAX, 480, EVER);
    s.all(
        300,
        DataSource::Terminal,
        Fact::PodTerminal {
            code: Some("Y258".into()),
        },
    )
    .all(
        470,
        DataSource::Terminal,
        Fact::PodTerminal {
            code: Some("W185".into()),
        },
    );
    terminal_release(&mut s, &LAX, 500);
    out.push(Scenario {
        number: "TEST-SCN-TERMINAL-CHANGE",
        title: "POD terminal change",
        description: "The container is first assigned to one Los Angeles terminal and moved to another before arrival (container.pod_terminal_changed).",
        route: route(&SHA, "Shanghai", &LAX, "Los Angeles", None),
        containers: vec![container_number("TEST-SCN-TERMINAL-CHANGE")],
        steps: s.done(),
    });

    let mut s = Script::new(1);
    ocean_leg(&mut s, &YTN, &OAK, 400, MSC);
    terminal_release(&mut s, &OAK, 414);
    out.push(Scenario {
        number: "TEST-SCN-REUSE",
        title: "A container on a later trip",
        description: "The container of TEST-SCN-IMPORT, reused on a later booking from Yantian to Oakland: the same number appears on two shipments, each with its own history.",
        route: route(&YTN, "Yantian", &OAK, "Oakland", None),
        containers: vec![container_number("TEST-SCN-IMPORT")],
        steps: s.done(),
    });
    let mut s = Script::new(1);
    s.all(0, DataSource::ShippingLine, equipment("reefer", 40))
        .ev(0, Milestone::EmptyOut, &YTN, None)
        .ev(12, Milestone::FullIn, &YTN, None)
        .ev(20, Milestone::FeederLoaded, &YTN, FEEDER)
        .ev(24, Milestone::FeederDeparted, &YTN, FEEDER)
        .ev(40, Milestone::FeederArrived, &HKG, FEEDER)
        .ev(44, Milestone::FeederDischarged, &HKG, FEEDER)
        .est(
            44,
            Milestone::VesselArrived,
            &OAK,
            380,
            DataSource::ShippingLine,
        )
        .ev(70, Milestone::TransshipmentLoaded, &HKG, MSC)
        .ev(76, Milestone::TransshipmentDeparted, &HKG, MSC)
        .ev(380, Milestone::VesselArrived, &OAK, MSC)
        .ev(394, Milestone::VesselDischarged, &OAK, MSC)
        .all(
            396,
            DataSource::Terminal,
            Fact::PodTerminal {
                code: Some("Y258".into()),
            },
        )
        .all(
            400,
            DataSource::Terminal,
            Fact::Availability {
                available: true,
                at_us: None,
            },
        )
        // an exam is ordered after release: the container is held and not available again
        .all(
            404,
            DataSource::Terminal,
            Fact::Holds {
                holds: vec![hold("customs", "hold", "CBP EXAM ORDERED")],
            },
        )
        .all(
            404,
            DataSource::Terminal,
            Fact::Availability {
                available: false,
                at_us: None,
            },
        )
        .all(420, DataSource::Terminal, Fact::Holds { holds: vec![] })
        .all(
            420,
            DataSource::Terminal,
            Fact::Availability {
                available: true,
                at_us: None,
            },
        )
        .ev(430, Milestone::FullOut, &OAK, None)
        .ev(440, Milestone::Delivered, &OAK, None)
        .ev(460, Milestone::EmptyIn, &OAK, None);
    out.push(Scenario {
        number: "TEST-SCN-FEEDER",
        title: "Feeder leg and a release withdrawn",
        description: "Yantian by feeder to Hong Kong, then the mainline vessel to Oakland, one reefer: feeder loaded, departed, arrived and discharged, transshipment loaded and departed, arrival, release, an exam that withdraws availability until it clears, full out, delivered, empty returned.",
        route: route(&YTN, "Yantian", &OAK, "Oakland", None),
        containers: vec![container_number("TEST-SCN-FEEDER")],
        steps: s.done(),
    });
    out
}

/// The scenario started by this number.
pub fn by_number(number: &str) -> Option<Scenario> {
    scenarios().into_iter().find(|s| s.number == number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use boxtrack_core::tracking::merge::{View, merge};
    use boxtrack_core::tracking::rules::{self, ContainerStatus, current_status};
    use boxtrack_core::tracking::{ContainerState, ShipmentState};

    /// Plays a scenario through the merge, one step at a time, and returns each container's
    /// final state, the shipment and every event name.
    fn play(s: &Scenario) -> (Vec<ContainerState>, ShipmentState, Vec<String>) {
        let mut cs = vec![ContainerState::default(); s.containers.len()];
        let mut ship = ShipmentState::default();
        let mut names = Vec::new();
        for step in &s.steps {
            let o = shift(&step.observation, 1_000 * H);
            let m = merge(
                &cs[step.container],
                &ship,
                &[o],
                View {
                    inland: s.route.inland(),
                    rail_lfd: true,
                },
            );
            cs[step.container] = m.container;
            ship = m.shipment;
            names.extend(m.changes.iter().map(|c| c.event_name()));
        }
        (cs, ship, names)
    }

    #[test]
    fn every_scenario_is_valid_and_ends_where_it_says() {
        let all = scenarios();
        assert_eq!(all.len(), 8);
        for s in &all {
            assert!(s.number.starts_with("TEST-SCN-"));
            for c in &s.containers {
                boxtrack_core::ident::validate_container(c).unwrap();
            }
            assert!(s.steps.windows(2).all(|w| w[0].at_h <= w[1].at_h));
            let (cs, _, names) = play(s);
            assert!(!names.is_empty(), "{}", s.number);
            let status = current_status(&cs[0], s.route.inland());
            let expected = match s.number {
                "TEST-SCN-IMPORT" | "TEST-SCN-FEEDER" => ContainerStatus::EmptyReturned,
                "TEST-SCN-ROLLOVER" => ContainerStatus::Grounded,
                _ => ContainerStatus::PickedUp,
            };
            assert_eq!(status, expected, "{}", s.number);
        }
    }

    #[test]
    fn scenarios_exercise_what_they_promise() {
        let (_, _, names) = play(&by_number("TEST-SCN-FEEDER").unwrap());
        for event in [
            "feeder_loaded",
            "feeder_departed",
            "feeder_arrived",
            "feeder_discharged",
            "transshipment_loaded",
            "transshipment_departed",
            "not_available",
            "delivered",
        ] {
            let name = format!("container.transport.{event}");
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        let (_, ship, names) = play(&by_number("TEST-SCN-ROLLOVER").unwrap());
        assert_eq!(
            names
                .iter()
                .filter(|n| *n == "shipment.estimated.arrival")
                .count(),
            4
        );
        assert_eq!(ship.pod_original_eta_us, Some(1_000 * H + 400 * H));
        assert_eq!(ship.pod_eta_us, Some(1_000 * H + 602 * H));
        let etd = ship.pol_etd_us.expect("an ETD");
        let original = ship.pol_original_etd_us.expect("the first ETD is kept");
        assert!(original < etd, "rolled: {original} then {etd}");
        assert!(ship.pod_vessel_name.is_some() && ship.pod_voyage_number.is_some());

        let (_, _, names) = play(&by_number("TEST-SCN-HOLDS").unwrap());
        assert!(names.iter().filter(|n| *n == "container.updated").count() >= 5);
        assert!(names.contains(&"container.pickup_lfd_line.changed".to_string()));

        let (cs, ship, names) = play(&by_number("TEST-SCN-RAIL").unwrap());
        assert_eq!(ship.destination_original_eta_us, Some(1_000 * H + 624 * H));
        assert_eq!(ship.destination_eta_us, Some(1_000 * H + 630 * H));
        assert_eq!(ship.destination_ata_us, Some(1_000 * H + 628 * H));
        assert!(
            !rules::ready_for_pickup(&cs[0], true),
            "picked up at the ramp"
        );
        for e in [
            "container.transport.rail_loaded",
            "container.transport.rail_arrived",
            "container.transport.arrived_at_inland_destination",
            "container.transport.estimated.arrived_at_inland_destination",
            "container.pickup_lfd_rail.changed",
        ] {
            assert!(names.contains(&e.to_string()), "{e}");
        }
        assert_eq!(cs[0].pod_rail_carrier_scac.as_deref(), Some("UP"));

        let (_, _, names) = play(&by_number("TEST-SCN-TERMINAL-CHANGE").unwrap());
        assert!(names.contains(&"container.pod_terminal_changed".to_string()));

        let (_, _, names) = play(&by_number("TEST-SCN-TRANSSHIPMENT").unwrap());
        assert_eq!(
            names
                .iter()
                .filter(|n| n.starts_with("container.transport.transshipment_"))
                .count(),
            8
        );

        let reuse = by_number("TEST-SCN-REUSE").unwrap();
        assert_eq!(
            reuse.containers,
            by_number("TEST-SCN-IMPORT").unwrap().containers
        );
    }
}
