//! What a person knows first-hand — a last free day the line told them by phone, the
//! appointment booked, the box picked up, delivered, returned empty — entered as data with a
//! source (`docs/precedence.md`, "What a person enters").
//!
//! An entry becomes an observation of source [`DataSource::UserInput`] and goes through the
//! same merge as a source's report, so it makes the same transport events and webhooks. A
//! person's value wins over every source's (first in every precedence row, the first last free
//! day of the coalesced one, an appointment of its own) until a person clears it; clearing
//! removes only what a person set, and the sources' values show again. An entry that
//! contradicts the journey (a pickup before the discharge) is refused by [`check`].

use super::times::TimeKey;
use super::{
    ContainerState, DataSource, EventFact, Fact, LfdKind, Milestone, Observation, Place, Route,
    rules::t,
};

/// What a person may enter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Entry {
    /// `pickup_lfd`: the last free day.
    PickupLfd,
    /// `pickup_appointment_at`: the pickup appointment.
    PickupAppointment,
    /// `pod_full_out_at`: picked up (gated out full at the port of discharge).
    PodFullOut,
    /// `delivered_at`: delivered.
    Delivered,
    /// `empty_terminated_at`: returned empty.
    EmptyTerminated,
}

impl Entry {
    /// Every entry.
    pub const ALL: [Entry; 5] = [
        Entry::PickupLfd,
        Entry::PickupAppointment,
        Entry::PodFullOut,
        Entry::Delivered,
        Entry::EmptyTerminated,
    ];

    /// The container attribute it sets.
    pub fn name(self) -> &'static str {
        match self {
            Entry::PickupLfd => "pickup_lfd",
            Entry::PickupAppointment => "pickup_appointment_at",
            Entry::PodFullOut => "pod_full_out_at",
            Entry::Delivered => "delivered_at",
            Entry::EmptyTerminated => "empty_terminated_at",
        }
    }

    /// The entry of an attribute name.
    pub fn parse(s: &str) -> Option<Entry> {
        Entry::ALL.into_iter().find(|e| e.name() == s)
    }

    /// The milestone it reports, where it is one, and where it happens.
    pub fn milestone(self) -> Option<(Milestone, Place)> {
        match self {
            Entry::PodFullOut => Some((Milestone::FullOut, Place::Pod)),
            Entry::Delivered => Some((Milestone::Delivered, Place::Inland)),
            Entry::EmptyTerminated => Some((Milestone::EmptyIn, Place::Pod)),
            Entry::PickupLfd | Entry::PickupAppointment => None,
        }
    }

    /// The source id of a person's report of this entry made at `observed_us`, so that
    /// clearing it withdraws exactly that report.
    pub fn upstream_id(self, observed_us: i64) -> String {
        format!("user:{}:{observed_us}", self.name())
    }
}

/// Why an entry is refused: the attribute and the reason in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contradiction {
    /// The attribute entered.
    pub attribute: &'static str,
    /// Why it contradicts the journey.
    pub reason: String,
}

/// How far ahead of now a person may say something happened (clocks differ a little).
const AHEAD_US: i64 = 3_600_000_000;
/// A last free day may fall on the day of the discharge, not a day before.
const DAY_US: i64 = 86_400_000_000;

/// Checks that `entry` at `at_us` agrees with the journey as `c` tells it, at `now_us`:
/// nothing picked up, delivered or returned before the discharge or in the future, no delivery
/// or return before the pickup, no appointment before the discharge, no last free day before
/// the discharge's day.
pub fn check(
    c: &ContainerState,
    entry: Entry,
    at_us: i64,
    now_us: i64,
) -> Result<(), Contradiction> {
    let refuse = |reason: String| {
        Err(Contradiction {
            attribute: entry.name(),
            reason,
        })
    };
    let when = |k: TimeKey| c.times.get(&k).copied();
    let shown = crate::time::format_micros;
    let discharged = when(t::POD_DISCHARGED);
    if entry.milestone().is_some() && at_us > now_us + AHEAD_US {
        return refuse("is in the future: enter what has happened".into());
    }
    if let Some(d) = discharged {
        let before = match entry {
            Entry::PickupLfd => at_us < d - DAY_US,
            _ => at_us < d,
        };
        if before {
            return refuse(format!(
                "is before the discharge at the port ({})",
                shown(d)
            ));
        }
    }
    let out = when(t::POD_FULL_OUT).or(when(t::FINAL_FULL_OUT));
    match (entry, out) {
        (Entry::Delivered | Entry::EmptyTerminated, Some(o)) if at_us < o => {
            return refuse(format!("is before the pickup ({})", shown(o)));
        }
        _ => {}
    }
    if let (Entry::EmptyTerminated, Some(d)) = (entry, when(t::DELIVERED))
        && at_us < d
    {
        return refuse(format!("is before the delivery ({})", shown(d)));
    }
    if let (Entry::PodFullOut, Some(e)) = (entry, when(t::EMPTY_TERMINATED))
        && at_us > e
    {
        return refuse(format!("is after the empty return ({})", shown(e)));
    }
    Ok(())
}

/// The observations a person's entry (`Some`) or clearing (`None`) of `entry` is, made at
/// `observed_us` on a shipment whose route is `route`. A milestone entered again withdraws the
/// person's earlier report of it first (so a corrected pickup stays one pickup); clearing
/// withdraws it (`c` says which); clearing one never entered is nothing.
pub fn observations(
    c: &ContainerState,
    route: &Route,
    entry: Entry,
    at_us: Option<i64>,
    observed_us: i64,
) -> Vec<Observation> {
    let said = |fact: Fact, upstream_id: Option<String>| Observation {
        observed_us,
        source: DataSource::UserInput,
        fact,
        precision: Default::default(),
        upstream_id,
    };
    let Some((milestone, place)) = entry.milestone() else {
        let fact = match entry {
            Entry::PickupLfd => Fact::Lfd {
                which: LfdKind::User,
                at_us,
            },
            _ => Fact::Appointment { at_us },
        };
        return vec![said(fact, None)];
    };
    let mut out: Vec<Observation> = entered_id(c, entry)
        .map(|upstream_id| said(Fact::Retracted { upstream_id }, None))
        .into_iter()
        .collect();
    if let Some(at) = at_us {
        let (locode, timezone) = match place {
            Place::Inland if route.inland() => (
                route.destination_locode.clone(),
                route.destination_timezone.clone(),
            ),
            _ => (route.pod_locode.clone(), route.pod_timezone.clone()),
        };
        let fact = Fact::Event(EventFact {
            milestone,
            estimated: false,
            at_us: Some(at),
            place,
            locode,
            timezone,
            terminal: c.pod_terminal.clone().filter(|_| place == Place::Pod),
            vessel_name: None,
            vessel_imo: None,
            voyage: None,
        });
        out.push(said(fact, Some(entry.upstream_id(observed_us))));
    }
    out
}

/// The source id of the person's report of `entry` still in force, if there is one.
pub fn entered_id(c: &ContainerState, entry: Entry) -> Option<String> {
    let prefix = format!("user:{}:", entry.name());
    c.milestones
        .0
        .iter()
        .flat_map(|r| r.reports.iter())
        .filter(|r| r.source == DataSource::UserInput)
        .filter_map(|r| r.upstream_id.clone())
        .filter(|id| id.starts_with(&prefix))
        .max_by_key(|id| id[prefix.len()..].parse::<i64>().unwrap_or(0))
}

/// What a person entered that is still in force, by attribute: the last free day, the
/// appointment, and each milestone whose person's report stands.
pub fn entered(c: &ContainerState) -> Vec<(Entry, i64)> {
    let mut out = vec![];
    if let Some(at) = c.lfd.get(&LfdKind::User) {
        out.push((Entry::PickupLfd, *at));
    }
    if let Some(at) = c.entered_appointment_us {
        out.push((Entry::PickupAppointment, at));
    }
    for entry in [Entry::PodFullOut, Entry::Delivered, Entry::EmptyTerminated] {
        let Some(id) = entered_id(c, entry) else {
            continue;
        };
        let at = c
            .milestones
            .0
            .iter()
            .flat_map(|r| r.reports.iter())
            .find(|r| r.upstream_id.as_deref() == Some(id.as_str()))
            .and_then(|r| r.fact.at_us);
        if let Some(at) = at {
            out.push((entry, at));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tracking::merge::{View, merge};
    use crate::tracking::{Change, ShipmentState};

    const H: i64 = 3_600_000_000;

    fn route() -> Route {
        Route {
            pod_locode: Some("USLAX".into()),
            pod_timezone: Some("America/Los_Angeles".into()),
            ..Default::default()
        }
    }

    /// A box discharged at 100 h by the terminal.
    fn discharged() -> ContainerState {
        let o = Observation {
            observed_us: 100 * H,
            source: DataSource::Terminal,
            fact: Fact::Event(EventFact {
                milestone: Milestone::VesselDischarged,
                estimated: false,
                at_us: Some(100 * H),
                place: Place::Pod,
                locode: Some("USLAX".into()),
                timezone: None,
                terminal: None,
                vessel_name: None,
                vessel_imo: None,
                voyage: None,
            }),
            precision: Default::default(),
            upstream_id: None,
        };
        merge(
            &ContainerState::default(),
            &ShipmentState::default(),
            &[o],
            View::default(),
        )
        .container
    }

    fn enter(
        c: &ContainerState,
        entry: Entry,
        at: Option<i64>,
        now: i64,
    ) -> (ContainerState, Vec<Change>) {
        let m = merge(
            c,
            &ShipmentState::default(),
            &observations(c, &route(), entry, at, now),
            View::default(),
        );
        (m.container, m.changes)
    }

    #[test]
    fn an_entry_that_contradicts_the_journey_is_refused() {
        let c = discharged();
        let e = check(&c, Entry::PodFullOut, 90 * H, 200 * H).unwrap_err();
        assert_eq!(e.attribute, "pod_full_out_at");
        assert!(
            e.reason.starts_with("is before the discharge"),
            "{}",
            e.reason
        );
        assert!(
            check(&c, Entry::PodFullOut, 300 * H, 200 * H).is_err(),
            "future"
        );
        assert!(check(&c, Entry::PodFullOut, 120 * H, 200 * H).is_ok());
        // a last free day on the discharge's day is fine, a day before is not
        assert!(check(&c, Entry::PickupLfd, 90 * H, 200 * H).is_ok());
        assert!(check(&c, Entry::PickupLfd, 70 * H, 200 * H).is_err());
        let (picked, _) = enter(&c, Entry::PodFullOut, Some(120 * H), 200 * H);
        let e = check(&picked, Entry::Delivered, 110 * H, 200 * H).unwrap_err();
        assert!(e.reason.starts_with("is before the pickup"), "{}", e.reason);
    }

    #[test]
    fn a_person_s_pickup_wins_until_cleared_and_the_terminal_s_shows_again() {
        let c = discharged();
        let (c, changes) = enter(&c, Entry::PodFullOut, Some(120 * H), 130 * H);
        assert_eq!(c.times.get(&t::POD_FULL_OUT), Some(&(120 * H)));
        assert!(
            changes
                .iter()
                .any(|ch| ch.event_name() == "container.transport.full_out"),
            "the same transport event as a source's: {changes:?}"
        );
        assert_eq!(entered(&c), vec![(Entry::PodFullOut, 120 * H)]);
        // the terminal reports its own out-gate later: the person's stands
        let terminal = Observation {
            observed_us: 140 * H,
            source: DataSource::Terminal,
            fact: Fact::Event(EventFact {
                milestone: Milestone::FullOut,
                estimated: false,
                at_us: Some(121 * H),
                place: Place::Pod,
                locode: Some("USLAX".into()),
                timezone: None,
                terminal: None,
                vessel_name: None,
                vessel_imo: None,
                voyage: None,
            }),
            precision: Default::default(),
            upstream_id: None,
        };
        let c = merge(&c, &ShipmentState::default(), &[terminal], View::default()).container;
        assert_eq!(c.times.get(&t::POD_FULL_OUT), Some(&(120 * H)));
        // corrected: still one pickup
        let (c, _) = enter(&c, Entry::PodFullOut, Some(119 * H), 150 * H);
        assert_eq!(c.times.get(&t::POD_FULL_OUT), Some(&(119 * H)));
        assert_eq!(entered(&c), vec![(Entry::PodFullOut, 119 * H)]);
        // cleared: the terminal's shows again, kept as evidence all along
        let (c, _) = enter(&c, Entry::PodFullOut, None, 160 * H);
        assert_eq!(c.times.get(&t::POD_FULL_OUT), Some(&(121 * H)));
        assert!(entered(&c).is_empty());
        // clearing what nobody entered is nothing
        assert!(observations(&c, &route(), Entry::Delivered, None, 170 * H).is_empty());
    }

    #[test]
    fn a_person_s_last_free_day_and_appointment_win_over_the_sources_until_cleared() {
        let c = discharged();
        let line = Observation {
            observed_us: 101 * H,
            source: DataSource::ShippingLine,
            fact: Fact::Lfd {
                which: LfdKind::Line,
                at_us: Some(200 * H),
            },
            precision: Default::default(),
            upstream_id: None,
        };
        let appointment = |at: i64, observed: i64| Observation {
            observed_us: observed,
            source: DataSource::Terminal,
            fact: Fact::Appointment { at_us: Some(at) },
            precision: Default::default(),
            upstream_id: None,
        };
        let c = merge(
            &c,
            &ShipmentState::default(),
            &[line, appointment(150 * H, 102 * H)],
            View::default(),
        )
        .container;
        let (c, changes) = enter(&c, Entry::PickupLfd, Some(180 * H), 110 * H);
        assert_eq!(
            crate::tracking::rules::coalesced_lfd(&c.lfd, false),
            Some(180 * H)
        );
        assert!(
            changes
                .iter()
                .any(|ch| ch.event_name() == "container.pickup_lfd.changed")
        );
        let (c, _) = enter(&c, Entry::PickupAppointment, Some(160 * H), 111 * H);
        // a later report of the terminal's appointment does not move the person's
        let c = merge(
            &c,
            &ShipmentState::default(),
            &[appointment(155 * H, 120 * H)],
            View::default(),
        )
        .container;
        assert_eq!(crate::tracking::rules::appointment(&c), Some(160 * H));
        let (c, _) = enter(&c, Entry::PickupAppointment, None, 130 * H);
        assert_eq!(crate::tracking::rules::appointment(&c), Some(155 * H));
        let (c, _) = enter(&c, Entry::PickupLfd, None, 131 * H);
        assert_eq!(
            crate::tracking::rules::coalesced_lfd(&c.lfd, false),
            Some(200 * H)
        );
        assert!(entered(&c).is_empty());
    }
}
