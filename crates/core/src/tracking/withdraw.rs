//! A source withdraws what it said (a DCSA 3.0 event marked `isRetracted`): the reports with
//! its id leave the container's and the shipment's milestone records, and what those records
//! set is decided again from what is left (`docs/precedence.md`, "A source withdraws what it
//! said").

use std::collections::BTreeSet;

use super::merge::{Pass, estimate_of, latest_time, shown, time_key};
use super::milestones::Record;
use super::times::TimeKey;
use super::{Change, ContainerState, Fact, Milestone, Observation, Place, ShipmentState};

/// Whether `o` is a copy of a report its source has already withdrawn from this container (a
/// redelivery, an answer read out of order): then it is not applied.
pub(super) fn withdrawn_before(c: &ContainerState, o: &Observation) -> bool {
    !matches!(o.fact, Fact::Retracted { .. })
        && o.upstream_id
            .as_ref()
            .is_some_and(|id| c.withdrawn.contains(id))
}

/// The source withdrew report `upstream_id`: it leaves every record of the container and its
/// shipment. A transport event left with no report is withdrawn (off the timelines, no event
/// of its own); one left with others shows what they decide. The times those records set
/// are decided again from what is left (gone when nothing is), and a time that changed goes
/// into the `container.updated` changeset.
pub(super) fn retract(
    c: &mut ContainerState,
    s: &mut ShipmentState,
    upstream_id: &str,
    pass: &mut Pass,
    out: &mut Vec<Change>,
) {
    c.withdrawn.insert(upstream_id.to_string());
    for w in c.milestones.withdraw(upstream_id) {
        if let Some(k) = time_key(w.milestone, w.place) {
            let now = latest_time(&c.milestones, k);
            if now != c.times.get(&k).copied() {
                pass.corrected.insert(k);
            }
            match now {
                Some(v) => c.times.insert(k, v),
                None => c.times.remove(&k),
            };
        }
        match c.milestones.get(&w.key).and_then(Record::decided) {
            Some(d) if d == *w.before => {}
            Some(d) => out.push(Change::TransportRevised(shown(&d, &w.key, false))),
            None => out.push(Change::TransportWithdrawn { key: w.key }),
        }
    }
    for w in c.estimates.withdraw(upstream_id) {
        let k = TimeKey::Estimated(w.milestone, w.place);
        match estimate_of(&c.estimates, w.milestone, w.place) {
            Some(v) => c.times.insert(k, v),
            None => c.times.remove(&k),
        };
        if w.gone {
            out.push(Change::TransportWithdrawn { key: w.key });
        }
    }
    let mut touched: BTreeSet<(Milestone, Place)> = BTreeSet::new();
    for w in s.milestones.withdraw(upstream_id) {
        touched.insert((w.milestone.as_vessel_move(), w.place));
    }
    for w in s.estimates.withdraw(upstream_id) {
        touched.insert((w.milestone, w.place));
    }
    for (m, place) in touched {
        let actual = s.milestones.latest_move(m, place);
        let estimate = estimate_of(&s.estimates, m, place);
        match (m, place) {
            (Milestone::VesselDeparted, Place::Origin) => {
                s.pol_atd_us = actual;
                s.pol_etd_us = estimate;
            }
            (Milestone::VesselArrived, Place::Pod) => {
                s.pod_ata_us = actual;
                s.pod_eta_us = estimate;
            }
            (Milestone::ArrivedAtInlandDestination, Place::Inland) => {
                s.destination_ata_us = actual;
                s.destination_eta_us = estimate;
            }
            _ => {}
        }
    }
}
