//! The little language the scenarios are written in: places, a script of observations per
//! container, and the parts most journeys share (the ocean leg, the terminal's release).

use boxtrack_core::tracking::{
    DataSource, Equipment, EventFact, Fact, Fee, Hold, LfdKind, Milestone, Observation, Place,
    Route,
};

use super::{H, Step};

pub(super) struct Place_ {
    place: Place,
    locode: &'static str,
    tz: &'static str,
}

pub(super) const SHA: Place_ = Place_ {
    place: Place::Origin,
    locode: "CNSHA",
    tz: "Asia/Shanghai",
};
pub(super) const YTN: Place_ = Place_ {
    place: Place::Origin,
    locode: "CNYTN",
    tz: "Asia/Shanghai",
};
pub(super) const PUS: Place_ = Place_ {
    place: Place::Transshipment,
    locode: "KRPUS",
    tz: "Asia/Seoul",
};
pub(super) const HKG: Place_ = Place_ {
    place: Place::Transshipment,
    locode: "HKHKG",
    tz: "Asia/Hong_Kong",
};
pub(super) const LAX: Place_ = Place_ {
    place: Place::Pod,
    locode: "USLAX",
    tz: "America/Los_Angeles",
};
pub(super) const LGB: Place_ = Place_ {
    place: Place::Pod,
    locode: "USLGB",
    tz: "America/Los_Angeles",
};
pub(super) const OAK: Place_ = Place_ {
    place: Place::Pod,
    locode: "USOAK",
    tz: "America/Los_Angeles",
};
pub(super) const KCK: Place_ = Place_ {
    place: Place::Inland,
    locode: "USKCK",
    tz: "America/Chicago",
};
pub(super) const CHI: Place_ = Place_ {
    place: Place::Inland,
    locode: "USCHI",
    tz: "America/Chicago",
};

pub(super) struct Script {
    containers: usize,
    steps: Vec<Step>,
}

impl Script {
    pub(super) fn new(containers: usize) -> Script {
        Script {
            containers,
            steps: Vec::new(),
        }
    }

    pub(super) fn all(&mut self, at_h: i64, source: DataSource, fact: Fact) -> &mut Self {
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

    pub(super) fn one(
        &mut self,
        container: usize,
        at_h: i64,
        source: DataSource,
        fact: Fact,
    ) -> &mut Self {
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
    pub(super) fn ev(
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
    pub(super) fn est(
        &mut self,
        at_h: i64,
        m: Milestone,
        p: &Place_,
        when_h: i64,
        source: DataSource,
    ) -> &mut Self {
        self.all(at_h, source, event(m, p, Some(when_h * H), true, None))
    }

    /// The steps in time order. A journey whose script names no POD terminal gets one when
    /// its box is discharged (the terminal reports it then, as a real one would), so that
    /// every sandbox container discharged at its port has a `pod_terminal`.
    pub(super) fn done(&mut self) -> Vec<Step> {
        let named = self
            .steps
            .iter()
            .any(|s| matches!(s.observation.fact, Fact::PodTerminal { .. }));
        let discharged = self.steps.iter().find_map(|s| match &s.observation.fact {
            Fact::Event(e)
                if e.milestone == Milestone::VesselDischarged && e.place == Place::Pod =>
            {
                Some((s.at_h, e.locode.clone()))
            }
            _ => None,
        });
        if !named && let Some((at_h, Some(locode))) = discharged {
            let code = terminal_at(&locode).map(str::to_string);
            self.all(at_h, DataSource::Terminal, Fact::PodTerminal { code });
        }
        let mut steps = std::mem::take(&mut self.steps);
        steps.sort_by_key(|s| s.at_h);
        name_pod_terminal(&mut steps);
        steps
    }
}

/// The terminal a box reaches at the port of discharge, on the events that happen there
/// (berthed, discharged, available, full out) and name none: the POD terminal the journey has
/// reported by then, or the first it reports.
fn name_pod_terminal(steps: &mut [Step]) {
    let terminals: Vec<(i64, String)> = steps
        .iter()
        .filter_map(|s| match &s.observation.fact {
            Fact::PodTerminal { code: Some(c) } => Some((s.at_h, c.clone())),
            _ => None,
        })
        .collect();
    let at_the_terminal = |m: Milestone| {
        matches!(
            m,
            Milestone::VesselBerthed
                | Milestone::VesselDischarged
                | Milestone::Available
                | Milestone::NotAvailable
                | Milestone::FullOut
        )
    };
    for step in steps.iter_mut() {
        let at_h = step.at_h;
        if let Fact::Event(e) = &mut step.observation.fact
            && e.place == Place::Pod
            && e.terminal.is_none()
            && !e.estimated
            && at_the_terminal(e.milestone)
        {
            let then = terminals.iter().rev().find(|(h, _)| *h <= at_h);
            e.terminal = then.or(terminals.first()).map(|(_, c)| c.clone());
        }
    }
}

/// The terminal the sandbox discharges at in the port `locode`: TraPac (`Y258`) in Los
/// Angeles, elsewhere the first terminal the reference data lists there.
fn terminal_at(locode: &str) -> Option<&'static str> {
    if locode == "USLAX" {
        return Some("Y258");
    }
    boxtrack_core::reference::terminals()
        .iter()
        .find(|t| t.port_locode == locode)
        .map(|t| t.firms_code.as_str())
}

pub(super) fn event(
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

pub(super) fn route(
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

pub(super) fn equipment(kind: &str, length: i64) -> Fact {
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

pub(super) fn hold(name: &str, status: &str, text: &str) -> Hold {
    Hold {
        name: name.into(),
        status: status.into(),
        description: Some(text.into()),
    }
}

pub(super) fn usd(kind: &str, dollars: i64) -> Fee {
    Fee {
        kind: kind.into(),
        amount_minor: dollars * 100,
        currency_code: "USD".into(),
    }
}

pub(super) const EVER: Option<(&str, &str, &str)> = Some(("EVER GIVEN", "9811000", "0412E"));
pub(super) const FEEDER: Option<(&str, &str, &str)> = Some(("HYUNDAI BUSAN", "9463011", "029E"));
pub(super) const MSC: Option<(&str, &str, &str)> = Some(("MSC ANNA", "9777589", "FA238A"));

/// The common ocean leg: empty out, full in, loaded, departed, estimates, arrival, discharge.
pub(super) fn ocean_leg(
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

pub(super) fn terminal_release(s: &mut Script, pod: &Place_, from_h: i64) {
    s.all(
        from_h,
        DataSource::Terminal,
        Fact::PodTerminal {
            code: terminal_at(pod.locode).map(str::to_string),
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
