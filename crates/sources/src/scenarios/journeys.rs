//! The scripted journeys, one function each, written in the language of [`super::script`].

use boxtrack_core::tracking::release::{Gate, GateStatus};
use boxtrack_core::tracking::{DataSource, Fact, LfdKind, Milestone};

use super::script::{
    CHI, EVER, FEEDER, HKG, KCK, LAX, LGB, MSC, OAK, PUS, SHA, Script, YTN, equipment, event, hold,
    ocean_leg, route, terminal_release, usd,
};
use super::{H, Scenario};
use crate::sandbox::container_number;

/// `TEST-SCN-IMPORT`: Plain import.
pub(super) fn import() -> Scenario {
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
    Scenario {
        number: "TEST-SCN-IMPORT",
        title: "Plain import",
        description: "Shanghai to Los Angeles, one 40' container: empty out, full in, loaded, departed, one ETA update, arrival, discharge, terminal release with LFD and appointment, full out, empty returned (about 25 days).",
        route: route(&SHA, "Shanghai", &LAX, "Los Angeles", None),
        containers: vec![container_number("TEST-SCN-IMPORT")],
        steps: s.done(),
    }
}

/// `TEST-SCN-TRANSSHIPMENT`: Transshipment.
pub(super) fn transshipment() -> Scenario {
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
    Scenario {
        number: "TEST-SCN-TRANSSHIPMENT",
        title: "Transshipment",
        description: "Shanghai to Long Beach via Busan, two containers: feeder to Busan, transshipment discharge and load onto the mainline vessel, arrival, a customs document hold on the second container that clears, release, full out.",
        route: route(&SHA, "Shanghai", &LGB, "Long Beach", None),
        containers: vec![
            container_number("TEST-SCN-TRANSSHIPMENT/1"),
            container_number("TEST-SCN-TRANSSHIPMENT/2"),
        ],
        steps: s.done(),
    }
}

/// `TEST-SCN-ROLLOVER`: Rollover with ETA slips.
pub(super) fn rollover() -> Scenario {
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
    Scenario {
        number: "TEST-SCN-ROLLOVER",
        title: "Rollover with ETA slips",
        description: "Yantian to Oakland, one reefer: rolled to a vessel a week later (ETD and ETA move), then the ETA slips twice more before arrival; pod_original_eta_at keeps the first ETA.",
        route: route(&YTN, "Yantian", &OAK, "Oakland", None),
        containers: vec![container_number("TEST-SCN-ROLLOVER")],
        steps: s.done(),
    }
}

/// `TEST-SCN-HOLDS`: Holds, fees and LFD changes.
pub(super) fn holds() -> Scenario {
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
    Scenario {
        number: "TEST-SCN-HOLDS",
        title: "Holds, fees and LFD changes",
        description: "Los Angeles import held by customs, freight and a pending USDA hold; the freight hold clears, USDA becomes active, fees accrue (exam, then demurrage), the line sets its own LFD over the terminal's, the holds clear and the container is picked up.",
        route: route(&SHA, "Shanghai", &LAX, "Los Angeles", None),
        containers: vec![container_number("TEST-SCN-HOLDS")],
        steps: s.done(),
    }
}

/// `TEST-SCN-RAIL`: Rail to an inland ramp.
pub(super) fn rail() -> Scenario {
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
    Scenario {
        number: "TEST-SCN-RAIL",
        title: "Rail to an inland ramp",
        description: "Shanghai to Los Angeles, then Union Pacific rail to Chicago through Kansas City: rail loaded and departed at the POD, an interchange arrival, inland ETA updates, arrival at the inland destination, unloading, rail LFD (needs the rail_lfd entitlement), available, full out.",
        route: route(
            &SHA,
            "Shanghai",
            &LAX,
            "Los Angeles",
            Some((&CHI, "Chicago")),
        ),
        containers: vec![container_number("TEST-SCN-RAIL")],
        steps: s.done(),
    }
}

/// `TEST-SCN-TERMINAL-CHANGE`: POD terminal change.
pub(super) fn terminal_change() -> Scenario {
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
    Scenario {
        number: "TEST-SCN-TERMINAL-CHANGE",
        title: "POD terminal change",
        description: "The container is first assigned to one Los Angeles terminal and moved to another before arrival (container.pod_terminal_changed).",
        route: route(&SHA, "Shanghai", &LAX, "Los Angeles", None),
        containers: vec![container_number("TEST-SCN-TERMINAL-CHANGE")],
        steps: s.done(),
    }
}

/// `TEST-SCN-REUSE`: A container on a later trip.
pub(super) fn reuse() -> Scenario {
    let mut s = Script::new(1);
    ocean_leg(&mut s, &YTN, &OAK, 400, MSC);
    terminal_release(&mut s, &OAK, 414);
    Scenario {
        number: "TEST-SCN-REUSE",
        title: "A container on a later trip",
        description: "The container of TEST-SCN-IMPORT, reused on a later booking from Yantian to Oakland: the same number appears on two shipments, each with its own history.",
        route: route(&YTN, "Yantian", &OAK, "Oakland", None),
        containers: vec![container_number("TEST-SCN-IMPORT")],
        steps: s.done(),
    }
}

/// `TEST-SCN-FEEDER`: Feeder leg and a release withdrawn.
pub(super) fn feeder() -> Scenario {
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
                code: Some("Y549".into()),
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
    Scenario {
        number: "TEST-SCN-FEEDER",
        title: "Feeder leg and a release withdrawn",
        description: "Yantian by feeder to Hong Kong, then the mainline vessel to Oakland, one reefer: feeder loaded, departed, arrived and discharged, transshipment loaded and departed, arrival, release, an exam that withdraws availability until it clears, full out, delivered, empty returned.",
        route: route(&YTN, "Yantian", &OAK, "Oakland", None),
        containers: vec![container_number("TEST-SCN-FEEDER")],
        steps: s.done(),
    }
}

/// The line's word on a gate, in its code's words.
fn said(gate: Gate, status: GateStatus, wording: &str) -> Fact {
    Fact::Release {
        gate,
        status,
        wording: Some(wording.into()),
        at_us: None,
    }
}

/// `TEST-SCN-RELEASE`: Release gates from every party.
pub(super) fn release() -> Scenario {
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
            ],
        },
    )
    // customs picks the box for an exam: the line relays it
    .all(
        500,
        DataSource::ShippingLine,
        said(
            Gate::Customs,
            GateStatus::Held,
            "PA U.S. Customs Hold, Intensive Examination",
        ),
    )
    // the line releases its freight hold; the terminal still enforces it
    .all(
        530,
        DataSource::ShippingLine,
        said(Gate::Line, GateStatus::Released, "CR Carrier Release"),
    )
    .all(
        540,
        DataSource::Terminal,
        Fact::Holds {
            holds: vec![hold("customs", "hold", "CBP EXAM REQUIRED")],
        },
    )
    // the exam is done: customs releases, the terminal lifts its customs hold later
    .all(
        560,
        DataSource::ShippingLine,
        said(Gate::Customs, GateStatus::Released, "CT Customs Released"),
    )
    .all(570, DataSource::Terminal, Fact::Holds { holds: vec![] })
    .all(
        570,
        DataSource::Terminal,
        Fact::Availability {
            available: true,
            at_us: None,
        },
    )
    // the dispatcher says the box is out before the terminal does; the person's time stands
    .all(
        585,
        DataSource::UserInput,
        event(Milestone::FullOut, &LAX, Some(584 * H), false, None),
    )
    .ev(590, Milestone::FullOut, &LAX, None);
    Scenario {
        number: "TEST-SCN-RELEASE",
        title: "Release gates: an exam, a freight hold lifted",
        description: "Los Angeles import held by customs for an exam (the terminal's hold and the line's PA) and by the line for unpaid freight: the line releases its freight hold while the terminal still enforces it, then the terminal lifts it; customs releases (CT) before the terminal lifts its customs hold; available; the dispatcher enters the pickup before the terminal reports it, and the person's time stands.",
        route: route(&SHA, "Shanghai", &LAX, "Los Angeles", None),
        containers: vec![container_number("TEST-SCN-RELEASE")],
        steps: s.done(),
    }
}
