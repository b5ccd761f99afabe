//! Scripted sandbox journeys. Each is a documented test number (`scac: "TEST"`) whose journey
//! plays through the real merge path on a virtual clock: observations are written relative
//! to the start of the journey and shifted to the moment the request succeeded.

use boxtrack_core::tracking::{Fact, Observation, Route};

mod journeys;
mod script;

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

/// Every scripted journey.
pub fn scenarios() -> Vec<Scenario> {
    vec![
        journeys::import(),
        journeys::transshipment(),
        journeys::rollover(),
        journeys::holds(),
        journeys::rail(),
        journeys::terminal_change(),
        journeys::reuse(),
        journeys::feeder(),
        journeys::release(),
    ]
}

/// The scenario started by this number.
pub fn by_number(number: &str) -> Option<Scenario> {
    scenarios().into_iter().find(|s| s.number == number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use boxtrack_core::tracking::merge::{View, merge};
    use boxtrack_core::tracking::release;
    use boxtrack_core::tracking::rules::{self, ContainerStatus, current_status, t};
    use boxtrack_core::tracking::{ContainerState, Fact, Milestone, Place, ShipmentState};

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
    fn every_box_discharged_at_its_port_has_a_terminal_of_that_port() {
        for scenario in scenarios() {
            let discharged = scenario.steps.iter().any(|st| {
                matches!(&st.observation.fact, Fact::Event(e)
                    if e.milestone == Milestone::VesselDischarged && e.place == Place::Pod)
            });
            if !discharged {
                continue;
            }
            let pod = scenario.route.pod_locode.clone().unwrap_or_default();
            let (cs, _, _) = play(&scenario);
            for (i, c) in cs.iter().enumerate() {
                let terminal = c
                    .pod_terminal
                    .as_deref()
                    .and_then(boxtrack_core::reference::terminal)
                    .unwrap_or_else(|| {
                        panic!("{}: container {i} has no POD terminal", scenario.number)
                    });
                assert_eq!(terminal.port_locode, pod, "{} {i}", scenario.number);
            }
            // and the events at the terminal name it
            let discharge = scenario
                .steps
                .iter()
                .find_map(|st| match &st.observation.fact {
                    Fact::Event(e)
                        if e.milestone == Milestone::VesselDischarged && e.place == Place::Pod =>
                    {
                        Some(e.terminal.clone())
                    }
                    _ => None,
                });
            assert!(
                discharge.flatten().is_some(),
                "{}: the discharge names no terminal",
                scenario.number
            );
        }
    }

    #[test]
    fn every_scenario_is_valid_and_ends_where_it_says() {
        let all = scenarios();
        assert_eq!(all.len(), 9);
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

        // the release gates move as the parties say, each change told once
        let release = by_number("TEST-SCN-RELEASE").unwrap();
        let mut c = ContainerState::default();
        let mut ship = ShipmentState::default();
        let mut told = vec![];
        let mut line_held_by_terminal_after_the_line_released = false;
        for step in &release.steps {
            let m = merge(
                &c,
                &ship,
                std::slice::from_ref(&step.observation),
                View::default(),
            );
            (c, ship) = (m.container, m.shipment);
            for ch in &m.changes {
                if let boxtrack_core::tracking::Change::ReleaseChanged { new, .. } = ch {
                    told.push(format!("{} {}", new.gate.name(), new.status.name()));
                }
            }
            let [_, line, _] = release::gates(&c, release::left(&c, false));
            if line.status == release::GateStatus::Held
                && line.words.iter().any(|w| {
                    w.source == boxtrack_core::tracking::DataSource::ShippingLine
                        && w.status == release::GateStatus::Released
                })
            {
                line_held_by_terminal_after_the_line_released = true;
            }
        }
        assert!(line_held_by_terminal_after_the_line_released);
        // the person's pickup, entered before the terminal's report, stands: one event
        assert_eq!(c.times.get(&t::POD_FULL_OUT), Some(&(584 * H)));
        assert_eq!(
            told,
            [
                "terminal pending",
                "customs held",
                "line held",
                "line released",
                "customs released",
                "terminal released",
            ]
        );

        let reuse = by_number("TEST-SCN-REUSE").unwrap();
        assert_eq!(
            reuse.containers,
            by_number("TEST-SCN-IMPORT").unwrap().containers
        );
    }
}
