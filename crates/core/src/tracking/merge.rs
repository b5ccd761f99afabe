//! `merge(state, observations) -> (state', changes)`: the only way container and shipment
//! state changes.
//!
//! Rules:
//! - A batch is sorted into one canonical order first (and exact duplicates dropped), so the
//!   order in which observations arrive inside a batch never matters.
//! - Every attribute remembers the `observed_us` of the report that last wrote it; a report
//!   not newer than that is ignored, so a late, stale message cannot undo newer knowledge.
//! - Actual transport events are recorded once, keyed by milestone, place, location and time.
//! - Applying a batch a second time finds nothing new: no state change, no changes emitted.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::milestones::{Added, Decided, Record, Report, decide};
use super::precedence::agree;
use super::rules::{self, t};
use super::times::TimeKey;
use super::versions::VersionKey;
use super::withdraw::retract;
use super::{
    Book, Change, ContainerState, DataSource, EventFact, Fact, Fee, Hold, LfdKind, Milestone,
    Observation, Place, ShipmentState, TransportEvent,
};
use crate::time::format_micros;

/// The result of a merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The container's new state.
    pub container: ContainerState,
    /// The shipment's new state.
    pub shipment: ShipmentState,
    /// What changed, in a deterministic order.
    pub changes: Vec<Change>,
}

/// Records `at` as the version of `key` unless a report at least as new already wrote it.
/// Of two reports with the same time, the first in the batch's canonical order wins, in this
/// batch and in every later one, so equal-time conflicts cannot flip the state back and forth.
fn newer(versions: &mut BTreeMap<VersionKey, i64>, key: VersionKey, at: i64) -> bool {
    match versions.get(&key) {
        Some(&v) if v >= at => false,
        _ => {
            versions.insert(key, at);
            true
        }
    }
}

/// The container attribute that milestone `m` at `place` sets (`pod_discharged_at`), if any.
pub fn time_attribute(m: Milestone, place: Place) -> Option<&'static str> {
    match time_key(m, place)? {
        TimeKey::At(a) => Some(a.name()),
        TimeKey::Estimated(..) => None,
    }
}

pub(super) fn time_key(m: Milestone, place: Place) -> Option<TimeKey> {
    use Milestone::*;
    // a feeder's move is a vessel's: the box is on a ship (docs/precedence.md)
    Some(match (m.as_vessel_move(), place) {
        (EmptyOut, Place::Origin) => t::EMPTY_OUT,
        (FullIn, Place::Origin) => t::POL_FULL_IN,
        (VesselLoaded, Place::Origin) => t::POL_VESSEL_LOADED,
        (VesselDeparted, Place::Origin) => t::POL_VESSEL_DEPARTED,
        (VesselArrived, Place::Pod) => t::POD_ARRIVED,
        (VesselDischarged, Place::Pod) => t::POD_DISCHARGED,
        (FullOut, Place::Pod) => t::POD_FULL_OUT,
        (FullOut, Place::Inland) => t::FINAL_FULL_OUT,
        (EmptyIn, _) => t::EMPTY_TERMINATED,
        (RailLoaded, Place::Pod) => t::POD_RAIL_LOADED,
        (RailDeparted, Place::Pod) => t::POD_RAIL_DEPARTED,
        (ArrivedAtInlandDestination, Place::Inland) => t::IND_ATA,
        (RailUnloaded, Place::Inland) => t::IND_RAIL_UNLOADED,
        (Delivered, _) => t::DELIVERED,
        _ => return None,
    })
}

fn transport(e: &EventFact, source: DataSource, estimated: bool) -> TransportEvent {
    TransportEvent {
        event: e.milestone.event_name(estimated),
        at_us: e.at_us,
        locode: e.locode.clone(),
        timezone: e.timezone.clone(),
        terminal: e.terminal.clone(),
        vessel_name: e.vessel_name.clone(),
        vessel_imo: e.vessel_imo.clone(),
        voyage: e.voyage.clone(),
        source,
        key: None,
    }
}

fn plain_event(event: String, at_us: Option<i64>, source: DataSource) -> Change {
    Change::Transport(TransportEvent {
        event,
        at_us,
        locode: None,
        timezone: None,
        terminal: None,
        vessel_name: None,
        vessel_imo: None,
        voyage: None,
        source,
        key: None,
    })
}

fn set_opt<T: PartialEq>(
    slot: &mut Option<T>,
    v: Option<T>,
    versions: &mut BTreeMap<VersionKey, i64>,
    key: VersionKey,
    at: i64,
) {
    if newer(versions, key, at) && *slot != v {
        *slot = v;
    }
}

/// Keeps the earliest-observed value in `slot` ("original" estimates): a report observed
/// before the one that set it replaces it; later ones never do. A value from a state written
/// before versions were kept stays.
fn first<T>(
    slot: &mut Option<T>,
    v: T,
    versions: &mut BTreeMap<VersionKey, i64>,
    key: VersionKey,
    at: i64,
) {
    match versions.get(&key) {
        Some(&old) if old <= at => {}
        None if slot.is_some() => {}
        _ => {
            *slot = Some(v);
            versions.insert(key, at);
        }
    }
}

/// How surely an event's vessel is the one that brings the container to the POD: the POD's
/// own calls (3, also estimates), the last transshipment's loading or departure (2), the
/// departure from the port of lading (1).
fn pod_vessel_rank(e: &EventFact) -> Option<i64> {
    use Milestone::*;
    match (e.milestone, e.place) {
        (VesselArrived | VesselBerthed | VesselDischarged, Place::Pod) => Some(3),
        (TransshipmentLoaded | TransshipmentDeparted, _)
        | (VesselLoaded | VesselDeparted, Place::Transshipment) => Some(2),
        (VesselLoaded | VesselDeparted, Place::Origin) => Some(1),
        _ => None,
    }
}

/// Sets the shipment's POD vessel and voyage from the first event that names them: a more
/// certain kind of event (see [`pod_vessel_rank`]) always wins, and among events of one kind
/// the newest report.
fn pod_vessel(s: &mut ShipmentState, e: &EventFact, at: i64) {
    let (Some(rank), Some(name)) = (pod_vessel_rank(e), e.vessel_name.as_ref()) else {
        return;
    };
    let held = s
        .versions
        .get(&VersionKey::PodVesselRank)
        .copied()
        .unwrap_or(
            // states from before the rank was kept hold the vessel of an arrival at the POD
            if s.pod_vessel_name.is_some() { 3 } else { 0 },
        );
    let take = rank > held
        || (rank == held
            && s.versions
                .get(&VersionKey::PodVesselName)
                .is_none_or(|&v| at > v));
    if take {
        s.versions.insert(VersionKey::PodVesselRank, rank);
        s.versions.insert(VersionKey::PodVesselName, at);
        // the same vessel named without its IMO or voyage keeps what is known of them
        let same = s.pod_vessel_name.as_ref() == Some(name);
        s.pod_vessel_name = Some(name.clone());
        if e.vessel_imo.is_some() || !same {
            s.pod_vessel_imo.clone_from(&e.vessel_imo);
        }
        if e.voyage.is_some() || !same {
            s.pod_voyage_number.clone_from(&e.voyage);
        }
    }
}

/// What a merge carries from one observation to the next: the container's time attributes
/// that a revision moved by more than their precision (they go into the `container.updated`
/// changeset), and whether the ETA at the POD changed while the vessel was still on its way.
#[derive(Default)]
pub(super) struct Pass {
    /// Milestone times a report corrected (not only refined) in this merge.
    pub(super) corrected: BTreeSet<TimeKey>,
    eta_news: bool,
}

fn report_of(e: &EventFact, o: &Observation) -> Report {
    Report {
        source: o.source,
        precision: o.precision,
        observed_us: o.observed_us,
        fact: e.clone(),
        upstream_id: o.upstream_id.clone(),
    }
}

pub(super) fn shown(d: &Decided, key: &str, estimated: bool) -> TransportEvent {
    let mut t = transport(&d.fact, d.source, estimated);
    t.key = Some(key.to_string());
    t
}

/// Whether milestone `m` has happened at `place` for this container: a record says so, or a
/// state from before records were kept has its time.
fn has_happened(c: &ContainerState, m: Milestone, place: Place) -> bool {
    c.milestones.happened(m, place) || time_key(m, place).is_some_and(|k| c.times.contains_key(&k))
}

/// The time attribute `key` from the latest occurrence of the milestones it shows.
pub(super) fn latest_time(book: &Book, key: TimeKey) -> Option<i64> {
    book.0
        .iter()
        .filter_map(Record::decided)
        .filter(|d| time_key(d.fact.milestone, d.fact.place) == Some(key))
        .filter_map(|d| d.fact.at_us)
        .max()
}

/// The latest decided time of milestone `m` at `place` in a book.
pub(super) fn latest_at(book: &Book, m: Milestone, place: Place) -> Option<i64> {
    book.latest(m, place).and_then(|d| d.fact.at_us)
}

fn apply_estimate(
    c: &mut ContainerState,
    s: &mut ShipmentState,
    r: Report,
    pass: &mut Pass,
    out: &mut Vec<Change>,
) {
    let (m, place) = (r.fact.milestone, r.fact.place);
    let (Some(value), at) = (r.fact.at_us, r.observed_us) else {
        return;
    };
    // an estimate of what already happened is no event (its value still counts, so the
    // state does not depend on which came first)
    let happened = has_happened(c, m, place);
    let key = Book::estimate_key(m, place);
    let rail = r.source == DataSource::Rail;
    let added = c.estimates.add_estimate(r.clone());
    let Some(record) = c.estimates.get(&key) else {
        return;
    };
    let Some(now) = record.decided() else { return };
    let event = match &added {
        Added::New(_) => true,
        // an estimate that only became more precise is the same estimate
        Added::Revised(_, before) => match (before.fact.at_us, now.fact.at_us) {
            (Some(a), Some(b)) => !agree(a, before.precision, b, now.precision),
            _ => true,
        },
        Added::Unchanged(_) => false,
    };
    if event && !happened && m.has_estimate_event() {
        out.push(Change::Transport(shown(&now, &key, true)));
    }
    if let Some(v) = now.fact.at_us {
        c.times.insert(TimeKey::Estimated(m, place), v);
    }
    match (m, place) {
        (Milestone::VesselArrived, Place::Pod) => {
            pass.eta_news |= s.pod_ata_us.is_none();
            s.estimates.add_estimate(r);
            s.pod_eta_us = estimate_of(&s.estimates, m, place).or(s.pod_eta_us);
            first(
                &mut s.pod_original_eta_us,
                value,
                &mut s.versions,
                VersionKey::PodOriginalEta,
                at,
            );
        }
        (Milestone::VesselDeparted, Place::Origin) => {
            s.estimates.add_estimate(r);
            s.pol_etd_us = estimate_of(&s.estimates, m, place).or(s.pol_etd_us);
            first(
                &mut s.pol_original_etd_us,
                value,
                &mut s.versions,
                VersionKey::PolOriginalEtd,
                at,
            );
        }
        // the railroad's ETA at the ramp is the container's; the line's is the shipment's
        (Milestone::ArrivedAtInlandDestination, Place::Inland) if rail => {
            let rail_reports: Vec<Report> = record
                .reports
                .iter()
                .filter(|x| x.source == DataSource::Rail)
                .cloned()
                .collect();
            if let Some(v) = decide(&rail_reports).and_then(|d| d.fact.at_us) {
                c.times.insert(t::IND_ETA, v);
            }
        }
        (Milestone::ArrivedAtInlandDestination, Place::Inland) => {
            s.estimates.add_estimate(r);
            s.destination_eta_us = estimate_of(&s.estimates, m, place).or(s.destination_eta_us);
            first(
                &mut s.destination_original_eta_us,
                value,
                &mut s.versions,
                VersionKey::DestinationOriginalEta,
                at,
            );
        }
        _ => {}
    }
}

pub(super) fn estimate_of(book: &Book, m: Milestone, place: Place) -> Option<i64> {
    book.get(&Book::estimate_key(m, place))
        .and_then(Record::decided)
        .and_then(|d| d.fact.at_us)
}

fn apply_actual(
    c: &mut ContainerState,
    s: &mut ShipmentState,
    r: Report,
    pass: &mut Pass,
    out: &mut Vec<Change>,
) {
    let (m, place) = (r.fact.milestone, r.fact.place);
    let legacy = c.milestones.find(&r.fact, r.precision).is_none()
        && c.seen_events.contains(&Book::actual_key(&r.fact));
    let added = c.milestones.add_actual(r.clone());
    match added {
        // recorded before records were kept: the record starts, the event exists
        Added::New(_) if legacy => {}
        Added::New(i) => {
            if let Some(record) = c.milestones.0.get(i)
                && let Some(d) = record.decided()
            {
                out.push(Change::Transport(shown(&d, &record.key, false)));
            }
        }
        Added::Revised(i, before) => {
            if let Some(record) = c.milestones.0.get(i)
                && let Some(d) = record.decided()
            {
                let moved = match (before.fact.at_us, d.fact.at_us) {
                    (Some(a), Some(b)) => !agree(a, before.precision, b, d.precision),
                    (a, b) => a != b,
                };
                if moved && let Some(k) = time_key(m, place) {
                    pass.corrected.insert(k);
                }
                out.push(Change::TransportRevised(shown(&d, &record.key, false)));
            }
        }
        Added::Unchanged(_) => {}
    }
    if let Some(k) = time_key(m, place)
        && let Some(when) = latest_time(&c.milestones, k)
    {
        c.times.insert(k, when);
    }
    let at = r.observed_us;
    if matches!(m, Milestone::Available | Milestone::NotAvailable)
        && newer(&mut c.versions, VersionKey::Availability, at)
    {
        c.availability_known = true;
        c.available_for_pickup = Some(m == Milestone::Available);
    }
    if m == Milestone::Available
        && let Some(at) = r.fact.at_us
    {
        rules::note_available(c, at);
    }
    match (m.as_vessel_move(), place) {
        (Milestone::VesselDeparted, Place::Origin) => {
            s.milestones.add_actual(r);
            let atd = s.milestones.latest_move(Milestone::VesselDeparted, place);
            s.pol_atd_us = atd.or(s.pol_atd_us);
        }
        (Milestone::VesselArrived, Place::Pod) => {
            s.milestones.add_actual(r);
            let ata = s.milestones.latest_move(Milestone::VesselArrived, place);
            s.pod_ata_us = ata.or(s.pod_ata_us);
        }
        // the line's word first, the railroad's when the line says nothing (precedence)
        (Milestone::ArrivedAtInlandDestination, Place::Inland) => {
            s.milestones.add_actual(r);
            s.destination_ata_us = latest_at(&s.milestones, m, place).or(s.destination_ata_us);
        }
        _ => {}
    }
}

fn apply_event(
    c: &mut ContainerState,
    s: &mut ShipmentState,
    e: &EventFact,
    o: &Observation,
    pass: &mut Pass,
    out: &mut Vec<Change>,
) {
    pod_vessel(s, e, o.observed_us);
    let r = report_of(e, o);
    if e.estimated {
        apply_estimate(c, s, r, pass, out);
    } else {
        apply_actual(c, s, r, pass, out);
    }
}

/// A newer availability: an `available` or `not_available` event when it changes (not for
/// a first report of unavailable), at when the terminal says it was released.
fn apply_availability(
    c: &mut ContainerState,
    available: bool,
    at_us: Option<i64>,
    o: &Observation,
    out: &mut Vec<Change>,
) {
    let at = o.observed_us;
    if !newer(&mut c.versions, VersionKey::Availability, at) {
        return;
    }
    let was = c.available_for_pickup;
    c.availability_known = true;
    c.available_for_pickup = Some(available);
    if was != Some(available) && (was.is_some() || available) {
        let m = if available {
            Milestone::Available
        } else {
            Milestone::NotAvailable
        };
        // when the terminal released it, where it says, not when it was asked
        let when = at_us.filter(|t| *t <= at).unwrap_or(at);
        if available {
            rules::note_available(c, when);
        }
        out.push(plain_event(m.event_name(false), Some(when), o.source));
    }
}

/// What a newer equipment report says, the known values kept where it says nothing.
fn merged_equipment(eq: &super::Equipment, known: &mut super::Equipment) -> super::Equipment {
    super::Equipment {
        equipment_type: eq.equipment_type.clone().or(known.equipment_type.take()),
        equipment_length: eq.equipment_length.or(known.equipment_length),
        equipment_height: eq
            .equipment_height
            .clone()
            .or(known.equipment_height.take()),
        weight_in_lbs: eq.weight_in_lbs.or(known.weight_in_lbs),
        seal_number: eq.seal_number.clone().or(known.seal_number.take()),
    }
}

fn apply(
    c: &mut ContainerState,
    s: &mut ShipmentState,
    o: &Observation,
    pass: &mut Pass,
    out: &mut Vec<Change>,
) {
    let at = o.observed_us;
    match &o.fact {
        Fact::Event(e) => apply_event(c, s, e, o, pass, out),
        Fact::Retracted { upstream_id } => retract(c, s, upstream_id, pass, out),
        Fact::Availability { available, at_us } => {
            apply_availability(c, *available, *at_us, o, out);
        }
        Fact::Holds { holds } => super::release::apply_hold_list(c, holds, o),
        Fact::Release { .. } => super::release::apply_release(c, o),
        Fact::Fees { fees } => {
            if newer(&mut c.versions, VersionKey::Fees, at) {
                c.fees = rules::normalize_fees(fees);
            }
        }
        Fact::Lfd { which, at_us } => {
            let key = VersionKey::Lfd(*which);
            if newer(&mut c.versions, key, at) {
                match at_us {
                    Some(v) => c.lfd.insert(*which, *v),
                    None => c.lfd.remove(which),
                };
            }
        }
        Fact::Appointment { at_us } => {
            let was = rules::appointment(c);
            if o.source == DataSource::UserInput {
                // a person's appointment, kept apart: the sources' stays under it
                c.entered_appointment_us = *at_us;
            } else {
                set_opt(
                    &mut c.pickup_appointment_us,
                    *at_us,
                    &mut c.versions,
                    VersionKey::Appointment,
                    at,
                );
            }
            if was != rules::appointment(c) {
                out.push(plain_event(
                    "container.pickup_appointment.changed".into(),
                    rules::appointment(c),
                    o.source,
                ));
            }
        }
        Fact::YardLocation { location } => set_opt(
            &mut c.location_at_pod_terminal,
            location.clone(),
            &mut c.versions,
            VersionKey::Yard,
            at,
        ),
        Fact::PodTerminal { code } => set_opt(
            &mut c.pod_terminal,
            code.clone(),
            &mut c.versions,
            VersionKey::PodTerminal,
            at,
        ),
        Fact::Equipment(eq) => {
            if newer(&mut c.versions, VersionKey::Equipment, at) {
                c.equipment = merged_equipment(eq, &mut c.equipment);
            }
        }
        Fact::RailCarriers { pod, ind } => {
            set_opt(
                &mut c.pod_rail_carrier_scac,
                pod.clone(),
                &mut c.versions,
                VersionKey::PodRailCarrier,
                at,
            );
            set_opt(
                &mut c.ind_rail_carrier_scac,
                ind.clone(),
                &mut c.versions,
                VersionKey::IndRailCarrier,
                at,
            );
        }
        Fact::Chassis { number } => set_opt(
            &mut c.pod_full_out_chassis_number,
            number.clone(),
            &mut c.versions,
            VersionKey::Chassis,
            at,
        ),
    }
}

/// A hold as the API shows it.
pub fn hold_json(h: &Hold) -> Value {
    json!({"name": h.name, "status": h.status, "description": h.description})
}

/// An amount of minor units in major units as the API shows it: whole amounts as integers
/// (`120`), others as decimals (`87.5`).
pub fn major_units(minor: i64) -> Value {
    if minor % 100 == 0 {
        json!(minor / 100)
    } else {
        json!(minor as f64 / 100.0)
    }
}

/// A fee as the API shows it (amount in major units).
pub fn fee_json(f: &Fee) -> Value {
    json!({"type": f.kind, "amount": major_units(f.amount_minor), "currency_code": f.currency_code})
}

fn ts(v: Option<i64>) -> Value {
    v.map_or(Value::Null, |us| Value::String(format_micros(us)))
}

/// Whose container a merge is for: where its journey goes and what its account may see. The
/// event log, webhooks and stored filter columns are per account, so a value the account may
/// not see (the rail LFD without the `rail_lfd` entitlement) is left out where the changes
/// are made, not hidden later.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct View {
    /// The shipment continues past the POD to an inland destination.
    pub inland: bool,
    /// The account may see the rail carrier's LFD.
    pub rail_lfd: bool,
}

/// The terminal-facing attributes whose changes make a `container.updated` changeset, with
/// the values the API shows the account (so a changeset's old value is what it saw before).
pub fn terminal_view(c: &ContainerState, view: View) -> BTreeMap<String, Value> {
    let mut m = BTreeMap::new();
    m.insert(
        "available_for_pickup".to_string(),
        json!(rules::available_for_pickup(c, view.inland)),
    );
    // arrays, as the reference declares them: not reported yet is an empty list too
    let holds = rules::reported_holds(c).unwrap_or_default();
    let fees = rules::reported_fees(c).unwrap_or_default();
    let holds: Value = holds.iter().map(hold_json).collect();
    m.insert("holds_at_pod_terminal".to_string(), holds);
    let fees: Value = fees.iter().map(fee_json).collect();
    m.insert("fees_at_pod_terminal".to_string(), fees);
    m.insert(
        "pickup_lfd".to_string(),
        ts(rules::coalesced_lfd(&c.lfd, view.rail_lfd)),
    );
    m.insert(
        "pickup_lfd_line".to_string(),
        ts(c.lfd.get(&LfdKind::Line).copied()),
    );
    m.insert(
        "pickup_lfd_terminal".to_string(),
        ts(c.lfd.get(&LfdKind::Terminal).copied()),
    );
    if view.rail_lfd {
        m.insert(
            "pickup_lfd_rail".to_string(),
            ts(c.lfd.get(&LfdKind::Rail).copied()),
        );
    }
    m.insert(
        "pickup_appointment_at".to_string(),
        ts(rules::appointment(c)),
    );
    m.insert(
        "location_at_pod_terminal".to_string(),
        json!(c.location_at_pod_terminal),
    );
    m
}

fn lfd_event(which: Option<LfdKind>) -> String {
    match which {
        // a person's is told as the coalesced one it decides
        None | Some(LfdKind::User) => "container.pickup_lfd.changed".into(),
        Some(LfdKind::Line) => "container.pickup_lfd_line.changed".into(),
        Some(LfdKind::Terminal) => "container.pickup_lfd_terminal.changed".into(),
        Some(LfdKind::Rail) => "container.pickup_lfd_rail.changed".into(),
    }
}

/// Folds the changes of one merge so that each transport event appears once: a new event
/// shows the details its later reports in the batch gave it (no revision of its own), and of
/// several estimates of one milestone in a batch only the last is an event.
fn fold(changes: Vec<Change>) -> Vec<Change> {
    let mut out: Vec<Change> = Vec::with_capacity(changes.len());
    for ch in changes {
        if let Change::TransportWithdrawn { key } = &ch {
            // an event new in this batch and withdrawn in it never was; one revised in it is
            // withdrawn
            let earlier = out.iter().position(|x| {
                matches!(x, Change::Transport(t) | Change::TransportRevised(t) if t.key.as_deref() == Some(key.as_str()))
            });
            match earlier.map(|i| (i, matches!(out.get(i), Some(Change::Transport(_))))) {
                Some((i, true)) => {
                    out.remove(i);
                }
                Some((i, false)) => {
                    out.remove(i);
                    out.push(ch);
                }
                None => out.push(ch),
            }
            continue;
        }
        let key = match &ch {
            Change::Transport(t) | Change::TransportRevised(t) => t.key.clone(),
            _ => None,
        };
        let Some(key) = key else {
            out.push(ch);
            continue;
        };
        let earlier = out.iter().position(|x| {
            matches!(x, Change::Transport(t) | Change::TransportRevised(t) if t.key.as_deref() == Some(key.as_str()))
        });
        match (earlier, ch) {
            (Some(i), Change::TransportRevised(n)) => match out.get_mut(i) {
                Some(Change::Transport(t) | Change::TransportRevised(t)) => *t = n,
                _ => out.push(Change::TransportRevised(n)),
            },
            (Some(i), Change::Transport(n)) => {
                out.remove(i);
                out.push(Change::Transport(n));
            }
            (_, ch) => out.push(ch),
        }
    }
    out
}

/// Applies a batch of observations about one container (and its shipment), for the account
/// and journey `view` describes (the journey decides where the container is picked up; the
/// account what its changes may show).
pub fn merge(
    container: &ContainerState,
    shipment: &ShipmentState,
    batch: &[Observation],
    view: View,
) -> Merged {
    let mut sorted: Vec<&Observation> = batch.iter().collect();
    sorted.sort();
    sorted.dedup();
    let mut c = container.clone();
    let mut s = shipment.clone();
    let mut changes = Vec::new();
    let view_before = terminal_view(&c, view);
    let gates_before = super::release::before(batch, &c, view.inland);
    let mut pass = Pass::default();
    for o in &sorted {
        if super::withdraw::withdrawn_before(&c, o) {
            continue;
        }
        let before = c.versions.clone();
        apply(&mut c, &mut s, o, &mut pass, &mut changes);
        // what this report wrote remembers it
        for (k, v) in &c.versions {
            if before.get(k) != Some(v) {
                c.provenance
                    .insert(*k, super::provenance::Provenance::of(o));
            }
        }
    }
    let mut changes = fold(changes);
    let source = sorted.last().map_or(DataSource::Sandbox, |o| o.source);

    for which in [LfdKind::Line, LfdKind::Terminal, LfdKind::Rail] {
        if which == LfdKind::Rail && !view.rail_lfd {
            continue;
        }
        let (a, b) = (container.lfd.get(&which), c.lfd.get(&which));
        if a != b {
            changes.push(plain_event(lfd_event(Some(which)), b.copied(), source));
        }
    }
    let (a, b) = (
        rules::coalesced_lfd(&container.lfd, view.rail_lfd),
        rules::coalesced_lfd(&c.lfd, view.rail_lfd),
    );
    if a != b {
        changes.push(plain_event(lfd_event(None), b, source));
    }

    let view_after = terminal_view(&c, view);
    let mut changeset: BTreeMap<String, [Value; 2]> = view_after
        .iter()
        .filter_map(|(k, new)| {
            let old = view_before.get(k).cloned().unwrap_or(Value::Null);
            (old != *new).then(|| (k.clone(), [old, new.clone()]))
        })
        .collect();
    // a milestone's time that a later report corrected (not only made more precise)
    for k in &pass.corrected {
        let (old, new) = (container.times.get(k), c.times.get(k));
        if old.is_some() && old != new {
            changeset.insert(k.name(), [ts(old.copied()), ts(new.copied())]);
        }
    }
    if !changeset.is_empty() {
        changes.push(Change::ContainerUpdated { changeset });
    }

    if container.pod_terminal.is_some() && container.pod_terminal != c.pod_terminal {
        changes.push(Change::PodTerminalChanged {
            old: container.pod_terminal.clone(),
            new: c.pod_terminal.clone(),
        });
    }
    changes.extend(super::release::after(gates_before, &c, view.inland));
    // once the vessel is in, a later estimate is no news
    if s.pod_eta_us != shipment.pod_eta_us && pass.eta_news {
        changes.push(Change::ShipmentEstimatedArrival {
            old_us: shipment.pod_eta_us,
            new_us: s.pod_eta_us,
        });
    }
    Merged {
        container: c,
        shipment: s,
        changes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tracking::Precision;
    use proptest::prelude::*;

    const H: i64 = 3_600_000_000;
    /// A journey that ends at the POD, for an account that sees everything.
    const ALL: View = View {
        inland: false,
        rail_lfd: true,
    };

    fn ev(m: Milestone, place: Place, at: i64, estimated: bool) -> Fact {
        Fact::Event(EventFact {
            milestone: m,
            estimated,
            at_us: Some(at),
            place,
            locode: Some(match place {
                Place::Origin => "CNSHA".into(),
                Place::Transshipment => "SGSIN".into(),
                Place::Pod => "USLAX".into(),
                Place::Inland => "USCHI".into(),
            }),
            timezone: None,
            terminal: None,
            vessel_name: Some("EVER GIVEN".into()),
            vessel_imo: Some("9811000".into()),
            voyage: Some("1234E".into()),
        })
    }

    fn obs(observed_us: i64, source: DataSource, fact: Fact) -> Observation {
        Observation {
            observed_us,
            source,
            fact,
            precision: Default::default(),
            upstream_id: None,
        }
    }

    fn names(changes: &[Change]) -> Vec<String> {
        changes.iter().map(Change::event_name).collect()
    }

    #[test]
    fn a_plain_import_emits_events_once_and_tracks_eta() {
        let c0 = ContainerState::default();
        let s0 = ShipmentState::default();
        let batch = vec![
            obs(
                1,
                DataSource::ShippingLine,
                ev(Milestone::VesselLoaded, Place::Origin, 10 * H, false),
            ),
            obs(
                1,
                DataSource::ShippingLine,
                ev(Milestone::VesselArrived, Place::Pod, 400 * H, true),
            ),
        ];
        let m = merge(&c0, &s0, &batch, ALL);
        assert_eq!(
            names(&m.changes),
            vec![
                "container.transport.vessel_loaded",
                "container.transport.estimated.vessel_arrived",
                "shipment.estimated.arrival"
            ]
        );
        assert_eq!(m.shipment.pod_original_eta_us, Some(400 * H));
        assert_eq!(
            rules::current_status(&m.container, false),
            rules::ContainerStatus::OnShip
        );

        // the ETA slips: a new estimate event and a shipment ETA change; the original stays
        let slip = vec![obs(
            2,
            DataSource::ShippingLine,
            ev(Milestone::VesselArrived, Place::Pod, 430 * H, true),
        )];
        let m2 = merge(&m.container, &m.shipment, &slip, ALL);
        assert_eq!(
            names(&m2.changes),
            vec![
                "container.transport.estimated.vessel_arrived",
                "shipment.estimated.arrival"
            ]
        );
        assert_eq!(m2.shipment.pod_eta_us, Some(430 * H));
        assert_eq!(m2.shipment.pod_original_eta_us, Some(400 * H));

        // again: nothing
        let m3 = merge(&m2.container, &m2.shipment, &slip, ALL);
        assert!(m3.changes.is_empty());
        assert_eq!(m3.container, m2.container);
    }

    /// `obs` with the source's own id of the report.
    fn with_id(o: Observation, id: &str) -> Observation {
        Observation {
            upstream_id: Some(id.into()),
            ..o
        }
    }

    fn retraction(observed_us: i64, id: &str) -> Observation {
        with_id(
            obs(
                observed_us,
                DataSource::ShippingLine,
                Fact::Retracted {
                    upstream_id: id.into(),
                },
            ),
            id,
        )
    }

    #[test]
    fn the_records_stored_apart_and_put_back_make_the_same_state() {
        let batch = vec![
            with_id(
                obs(
                    1,
                    DataSource::ShippingLine,
                    ev(Milestone::VesselLoaded, Place::Origin, 100 * H, false),
                ),
                "ev-load",
            ),
            obs(
                2,
                DataSource::ShippingLine,
                ev(Milestone::VesselArrived, Place::Pod, 300 * H, true),
            ),
            obs(
                3,
                DataSource::Terminal,
                Fact::Lfd {
                    which: LfdKind::Terminal,
                    at_us: Some(500 * H),
                },
            ),
            with_id(
                obs(
                    4,
                    DataSource::ShippingLine,
                    ev(Milestone::VesselDeparted, Place::Origin, 101 * H, false),
                ),
                "ev-depa",
            ),
            retraction(5, "ev-depa"),
        ];
        let mut full = merge(
            &ContainerState::default(),
            &ShipmentState::default(),
            &batch,
            ALL,
        )
        .container;
        full.seen_events.insert("legacy-key".into());
        assert!(
            !full.milestones.is_empty()
                && !full.estimates.is_empty()
                && !full.provenance.is_empty()
                && !full.withdrawn.is_empty(),
            "{full:?}"
        );
        let keys = |v: &serde_json::Value| -> std::collections::BTreeSet<String> {
            v.as_object()
                .map(|o| o.keys().cloned().collect())
                .unwrap_or_default()
        };
        let mut light = full.clone();
        let records = light.take_records();
        let (light_json, records_json) = (
            serde_json::to_value(&light).unwrap_or_default(),
            serde_json::to_value(&records).unwrap_or_default(),
        );
        // every key of the whole state is in exactly one of the two
        let whole = keys(&serde_json::to_value(&full).unwrap_or_default());
        let (l, r) = (keys(&light_json), keys(&records_json));
        assert!(l.is_disjoint(&r), "{l:?} {r:?}");
        assert_eq!(&l | &r, whole);
        assert_eq!(
            r,
            [
                "estimates",
                "milestones",
                "provenance",
                "seen_events",
                "withdrawn"
            ]
            .map(String::from)
            .into()
        );
        // read back apart and joined, the state is the one written
        let mut back: ContainerState = serde_json::from_value(light_json).unwrap_or_default();
        assert!(back.milestones.is_empty() && back.provenance.is_empty());
        back.put_records(serde_json::from_value(records_json).unwrap_or_default());
        assert_eq!(back, full);
        // and the shipment's voyage records the same way (before the departure is withdrawn)
        let voyage = merge(
            &ContainerState::default(),
            &ShipmentState::default(),
            &batch[..4],
            ALL,
        )
        .shipment;
        assert!(!voyage.milestones.is_empty() && !voyage.estimates.is_empty());
        let mut light = voyage.clone();
        let records = light.take_records();
        let light_json = serde_json::to_value(&light).unwrap_or_default();
        let records_json = serde_json::to_value(&records).unwrap_or_default();
        let (l, r) = (keys(&light_json), keys(&records_json));
        assert!(l.is_disjoint(&r));
        assert_eq!(
            &l | &r,
            keys(&serde_json::to_value(&voyage).unwrap_or_default())
        );
        let mut back: ShipmentState = serde_json::from_value(light_json).unwrap_or_default();
        back.put_records(serde_json::from_value(records_json).unwrap_or_default());
        assert_eq!(back, voyage);
    }

    #[test]
    fn a_feeder_leg_from_the_port_of_lading_puts_the_box_on_a_ship() {
        let line = |at: i64, m: Milestone, place: Place, t: i64| {
            obs(at, DataSource::ShippingLine, ev(m, place, t * H, false))
        };
        let loaded = merge(
            &ContainerState::default(),
            &ShipmentState::default(),
            &[line(1, Milestone::FeederLoaded, Place::Origin, 20)],
            ALL,
        );
        assert_eq!(
            loaded.container.times.get(&t::POL_VESSEL_LOADED),
            Some(&(20 * H))
        );
        assert_eq!(
            rules::current_status(&loaded.container, false),
            rules::ContainerStatus::OnShip
        );
        let m = merge(
            &loaded.container,
            &loaded.shipment,
            &[
                with_id(line(2, Milestone::FeederDeparted, Place::Origin, 24), "dep"),
                line(3, Milestone::FeederArrived, Place::Transshipment, 40),
                line(4, Milestone::FeederDischarged, Place::Transshipment, 44),
            ],
            ALL,
        );
        assert_eq!(
            m.container.times.get(&t::POL_VESSEL_DEPARTED),
            Some(&(24 * H))
        );
        assert_eq!(m.shipment.pol_atd_us, Some(24 * H));
        // discharged at the transshipment port, it is still on its way by sea
        assert_eq!(
            rules::current_status(&m.container, false),
            rules::ContainerStatus::OnShip
        );
        // the line withdraws the feeder's departure: the shipment's departure goes with it
        let w = merge(&m.container, &m.shipment, &[retraction(6, "dep")], ALL);
        assert_eq!(w.shipment.pol_atd_us, None);
        assert!(!w.container.times.contains_key(&t::POL_VESSEL_DEPARTED));
    }

    #[test]
    fn a_box_first_reported_at_a_transshipment_port_is_on_a_ship() {
        let m = merge(
            &ContainerState::default(),
            &ShipmentState::default(),
            &[obs(
                1,
                DataSource::ShippingLine,
                ev(
                    Milestone::TransshipmentLoaded,
                    Place::Transshipment,
                    70 * H,
                    false,
                ),
            )],
            ALL,
        );
        assert_eq!(
            rules::current_status(&m.container, false),
            rules::ContainerStatus::OnShip
        );
        assert!(!m.container.times.contains_key(&t::POL_VESSEL_LOADED));
    }

    #[test]
    fn a_withdrawn_report_leaves_its_milestone_and_never_comes_back() {
        let loaded = ev(Milestone::VesselLoaded, Place::Origin, 100 * H, false);
        let departed = ev(Milestone::VesselDeparted, Place::Origin, 101 * H, false);
        let batch = vec![
            with_id(obs(1, DataSource::ShippingLine, loaded.clone()), "ev-load"),
            with_id(
                obs(2, DataSource::ShippingLine, departed.clone()),
                "ev-depa",
            ),
        ];
        let m = merge(
            &ContainerState::default(),
            &ShipmentState::default(),
            &batch,
            ALL,
        );
        assert_eq!(m.shipment.pol_atd_us, Some(101 * H));
        let key = |f: &Fact| match f {
            Fact::Event(e) => Book::actual_key(e),
            _ => unreachable!(),
        };

        // the carrier withdraws the departure: the event leaves, with its times
        let w = merge(&m.container, &m.shipment, &[retraction(9, "ev-depa")], ALL);
        assert_eq!(
            w.changes.first(),
            Some(&Change::TransportWithdrawn {
                key: key(&departed)
            })
        );
        assert!(!w.container.times.contains_key(&t::POL_VESSEL_DEPARTED));
        assert_eq!(w.shipment.pol_atd_us, None);
        assert!(
            w.container
                .milestones
                .latest(Milestone::VesselLoaded, Place::Origin)
                .is_some()
        );
        assert!(
            w.container
                .milestones
                .latest(Milestone::VesselDeparted, Place::Origin)
                .is_none()
        );
        assert!(
            w.changes
                .iter()
                .all(|c| !c.logged() || matches!(c, Change::ContainerUpdated { .. }))
        );

        // the same report delivered again (a redelivery, an answer read out of order) stays out
        let again = merge(&w.container, &w.shipment, &batch, ALL);
        assert!(again.changes.is_empty(), "{:?}", again.changes);
        assert_eq!(again.container, w.container);

        // withdrawn before it came: it never becomes an event
        let early = merge(
            &ContainerState::default(),
            &ShipmentState::default(),
            &[retraction(0, "ev-depa"), batch[1].clone()],
            ALL,
        );
        assert!(early.changes.is_empty(), "{:?}", early.changes);
        assert!(early.container.milestones.is_empty());

        // a withdrawal of what nobody applied changes nothing visible
        let none = merge(&m.container, &m.shipment, &[retraction(9, "ev-other")], ALL);
        assert!(none.changes.is_empty());
    }

    #[test]
    fn a_milestone_another_source_also_reported_stays_when_one_withdraws() {
        let at = 100 * H + 33_000_000;
        let dcsa = with_id(
            obs(
                1,
                DataSource::ShippingLine,
                ev(Milestone::VesselDischarged, Place::Pod, at, false),
            ),
            "ev-disc",
        );
        let x12 = Observation {
            precision: Precision::Minute,
            ..obs(
                2,
                DataSource::ShippingLine,
                ev(Milestone::VesselDischarged, Place::Pod, 100 * H, false),
            )
        };
        let m = merge(
            &ContainerState::default(),
            &ShipmentState::default(),
            &[dcsa, x12],
            ALL,
        );
        assert_eq!(m.container.times.get(&t::POD_DISCHARGED), Some(&at));
        let w = merge(&m.container, &m.shipment, &[retraction(9, "ev-disc")], ALL);
        // one event still, at the minute the 315 gave, revised in place
        assert_eq!(w.container.times.get(&t::POD_DISCHARGED), Some(&(100 * H)));
        assert!(
            matches!(w.changes.first(), Some(Change::TransportRevised(_))),
            "{:?}",
            w.changes
        );
        let Some(Change::ContainerUpdated { changeset }) = w.changes.last() else {
            panic!("{:?}", w.changes);
        };
        assert!(changeset.contains_key("pod_discharged_at"), "{changeset:?}");
    }

    #[test]
    fn holds_fees_and_lfd_make_one_changeset_and_lfd_events() {
        let c0 = ContainerState::default();
        let s0 = ShipmentState::default();
        let batch = vec![
            obs(
                5,
                DataSource::Terminal,
                Fact::Availability {
                    available: false,
                    at_us: None,
                },
            ),
            obs(
                5,
                DataSource::Terminal,
                Fact::Holds {
                    holds: vec![Hold {
                        name: "Customs".into(),
                        status: "hold".into(),
                        description: Some("CBP exam".into()),
                    }],
                },
            ),
            obs(
                5,
                DataSource::Terminal,
                Fact::Lfd {
                    which: LfdKind::Terminal,
                    at_us: Some(500 * H),
                },
            ),
        ];
        let m = merge(&c0, &s0, &batch, ALL);
        let n = names(&m.changes);
        assert!(
            n.contains(&"container.pickup_lfd_terminal.changed".to_string()),
            "{n:?}"
        );
        assert!(n.contains(&"container.pickup_lfd.changed".to_string()));
        let Some(Change::ContainerUpdated { changeset }) = m
            .changes
            .iter()
            .find(|c| matches!(c, Change::ContainerUpdated { .. }))
        else {
            panic!("no changeset: {n:?}")
        };
        // holds not reported before: an empty list, as the reference declares the attribute
        assert_eq!(changeset["holds_at_pod_terminal"][0], json!([]));
        assert_eq!(changeset["holds_at_pod_terminal"][1][0]["name"], "customs");
        assert!(
            !changeset.contains_key("available_for_pickup"),
            "the API showed false before the terminal said so: no change"
        );
        assert!(!rules::ready_for_pickup(&m.container, false));

        // the hold clears and the container is released: ready
        let release = vec![
            obs(6, DataSource::Terminal, Fact::Holds { holds: vec![] }),
            obs(
                6,
                DataSource::Terminal,
                Fact::Availability {
                    available: true,
                    at_us: None,
                },
            ),
        ];
        let m2 = merge(&m.container, &m.shipment, &release, ALL);
        assert!(rules::ready_for_pickup(&m2.container, false));
        assert!(names(&m2.changes).contains(&"container.transport.available".to_string()));
        // the line's LFD overrides the terminal's even though it is later
        let line = vec![obs(
            7,
            DataSource::ShippingLine,
            Fact::Lfd {
                which: LfdKind::Line,
                at_us: Some(520 * H),
            },
        )];
        let m3 = merge(&m2.container, &m2.shipment, &line, ALL);
        assert_eq!(rules::coalesced_lfd(&m3.container.lfd, true), Some(520 * H));
    }

    #[test]
    fn a_release_is_stamped_when_the_terminal_released_it() {
        let released = |at_us| {
            merge(
                &ContainerState::default(),
                &ShipmentState::default(),
                &[obs(
                    100 * H,
                    DataSource::Terminal,
                    Fact::Availability {
                        available: true,
                        at_us,
                    },
                )],
                ALL,
            )
            .changes
        };
        let at = |changes: Vec<Change>| match changes.first() {
            Some(Change::Transport(t)) => t.at_us,
            _ => None,
        };
        assert_eq!(at(released(Some(90 * H))), Some(90 * H));
        // without a time, or with one after the answer, the answer's time
        assert_eq!(at(released(None)), Some(100 * H));
        assert_eq!(at(released(Some(101 * H))), Some(100 * H));
    }

    #[test]
    fn a_stale_report_never_overwrites_a_newer_one() {
        let c0 = ContainerState::default();
        let s0 = ShipmentState::default();
        let fresh = merge(
            &c0,
            &s0,
            &[obs(
                10,
                DataSource::Terminal,
                Fact::Availability {
                    available: true,
                    at_us: None,
                },
            )],
            ALL,
        );
        let stale = merge(
            &fresh.container,
            &fresh.shipment,
            &[obs(
                9,
                DataSource::Terminal,
                Fact::Availability {
                    available: false,
                    at_us: None,
                },
            )],
            ALL,
        );
        assert_eq!(stale.container.available_for_pickup, Some(true));
        assert!(stale.changes.is_empty());
    }

    #[test]
    fn terminal_changes_are_reported() {
        let c0 = ContainerState::default();
        let s0 = ShipmentState::default();
        let a = merge(
            &c0,
            &s0,
            &[obs(
                1,
                DataSource::Terminal,
                Fact::PodTerminal {
                    code: Some("Y258".into()),
                },
            )],
            ALL,
        );
        assert!(
            a.changes
                .iter()
                .all(|c| !matches!(c, Change::PodTerminalChanged { .. }))
        );
        let b = merge(
            &a.container,
            &a.shipment,
            &[obs(
                2,
                DataSource::Terminal,
                Fact::PodTerminal {
                    code: Some("W185".into()),
                },
            )],
            ALL,
        );
        assert_eq!(names(&b.changes), vec!["container.pod_terminal_changed"]);
    }

    fn arb_fact() -> impl Strategy<Value = Fact> {
        let milestone = proptest::sample::select(Milestone::ALL.to_vec());
        let place = proptest::sample::select(vec![
            Place::Origin,
            Place::Transshipment,
            Place::Pod,
            Place::Inland,
        ]);
        prop_oneof![
            (milestone, place, 0i64..50, any::<bool>()).prop_map(|(m, p, at, est)| ev(
                m,
                p,
                at * H,
                est
            )),
            any::<bool>().prop_map(|available| Fact::Availability {
                available,
                at_us: None
            }),
            proptest::collection::vec((0usize..3, any::<bool>()), 0..3).prop_map(|hs| {
                Fact::Holds {
                    holds: hs
                        .into_iter()
                        .map(|(n, active)| Hold {
                            name: ["customs", "freight", "USDA"][n].into(),
                            status: if active {
                                "hold".into()
                            } else {
                                "pending".into()
                            },
                            description: None,
                        })
                        .collect(),
                }
            }),
            proptest::collection::vec(0i64..100_000, 0..3).prop_map(|amounts| Fact::Fees {
                fees: amounts
                    .into_iter()
                    .map(|a| Fee {
                        kind: "demurrage".into(),
                        amount_minor: a,
                        currency_code: "USD".into()
                    })
                    .collect()
            }),
            (0usize..3, proptest::option::of(0i64..50)).prop_map(|(k, at)| Fact::Lfd {
                which: [LfdKind::Line, LfdKind::Terminal, LfdKind::Rail][k],
                at_us: at.map(|a| a * H)
            }),
            proptest::option::of(0i64..50).prop_map(|at| Fact::Appointment {
                at_us: at.map(|a| a * H)
            }),
            proptest::option::of(proptest::sample::select(vec!["Y258", "W185"])).prop_map(|c| {
                Fact::PodTerminal {
                    code: c.map(String::from),
                }
            }),
        ]
    }

    fn arb_obs() -> impl Strategy<Value = Observation> {
        (
            0i64..20,
            proptest::sample::select(vec![
                DataSource::ShippingLine,
                DataSource::Terminal,
                DataSource::Rail,
            ]),
            arb_fact(),
        )
            .prop_map(|(t, s, f)| obs(t, s, f))
    }

    /// One physical milestone of a journey and the sources that report it.
    #[derive(Debug, Clone)]
    struct Physical {
        milestone: Milestone,
        place: Place,
        at: i64,
        /// reported by the line over DCSA (to the second), over X12 (to the minute, later),
        /// by the terminal (to the second)
        dcsa: bool,
        x12: bool,
        terminal: bool,
    }

    const S: i64 = 1_000_000;

    /// A journey's milestones, hours apart, at times with seconds, each reported by one to
    /// three sources.
    fn arb_journey() -> impl Strategy<Value = Vec<Physical>> {
        use Milestone::*;
        let steps = [
            (EmptyOut, Place::Origin),
            (FullIn, Place::Origin),
            (VesselLoaded, Place::Origin),
            (VesselDeparted, Place::Origin),
            (VesselArrived, Place::Pod),
            (VesselDischarged, Place::Pod),
            (FullOut, Place::Pod),
            (EmptyIn, Place::Pod),
        ];
        proptest::collection::vec((1i64..72, 0i64..3_600, 1u8..8), steps.len()..=steps.len())
            .prop_map(move |gaps| {
                let mut at = 1_000 * H;
                steps
                    .iter()
                    .zip(gaps)
                    .map(|(&(milestone, place), (hours, secs, who))| {
                        at += hours * H + secs * S;
                        Physical {
                            milestone,
                            place,
                            at,
                            dcsa: who & 1 != 0,
                            x12: who & 2 != 0,
                            terminal: who & 4 != 0,
                        }
                    })
                    .collect()
            })
    }

    /// Every report of a journey, with an estimate of the arrival from each of the line's
    /// channels before it happens.
    fn reports(journey: &[Physical]) -> Vec<Observation> {
        let mut out = Vec::new();
        let fact = |p: &Physical, at: i64, estimated: bool| {
            let mut f = ev(p.milestone, p.place, at, estimated);
            if let Fact::Event(e) = &mut f
                && !matches!(
                    p.milestone,
                    Milestone::VesselLoaded
                        | Milestone::VesselDeparted
                        | Milestone::VesselArrived
                        | Milestone::VesselDischarged
                )
            {
                e.vessel_name = None;
                e.vessel_imo = None;
                e.voyage = None;
            }
            f
        };
        for p in journey {
            let minute = p.at - p.at.rem_euclid(60 * S);
            if p.dcsa {
                out.push(obs(
                    p.at + 5 * S,
                    DataSource::ShippingLine,
                    fact(p, p.at, false),
                ));
            }
            if p.x12 {
                out.push(Observation {
                    precision: Precision::Minute,
                    ..obs(
                        p.at + 120 * S,
                        DataSource::ShippingLine,
                        fact(p, minute, false),
                    )
                });
            }
            if p.terminal {
                out.push(obs(
                    p.at + 30 * S,
                    DataSource::Terminal,
                    fact(p, p.at, false),
                ));
            }
            if p.milestone == Milestone::VesselArrived {
                let eta = p.at + 7 * S;
                let eta_minute = eta - eta.rem_euclid(60 * S);
                out.push(obs(
                    p.at - 48 * H,
                    DataSource::ShippingLine,
                    fact(p, eta, true),
                ));
                out.push(Observation {
                    precision: Precision::Minute,
                    ..obs(
                        p.at - 47 * H,
                        DataSource::ShippingLine,
                        fact(p, eta_minute, true),
                    )
                });
            }
        }
        out
    }

    fn shuffle<T>(v: &mut [T], seed: u64) {
        let mut x = seed | 1;
        for i in (1..v.len()).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.swap(i, (x % (i as u64 + 1)) as usize);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Merging the same observations twice emits nothing the second time.
        #[test]
        fn merging_twice_changes_nothing(batch in proptest::collection::vec(arb_obs(), 0..25)) {
            let m1 = merge(&ContainerState::default(), &ShipmentState::default(), &batch, ALL);
            let m2 = merge(&m1.container, &m1.shipment, &batch, ALL);
            prop_assert!(m2.changes.is_empty(), "{:?}", m2.changes);
            prop_assert_eq!(m2.container, m1.container);
            prop_assert_eq!(m2.shipment, m1.shipment);
        }

        /// The order of observations inside a batch does not change the result.
        #[test]
        fn order_inside_a_batch_does_not_matter(
            batch in proptest::collection::vec(arb_obs(), 0..25),
            seed in any::<u64>(),
        ) {
            let mut shuffled = batch.clone();
            // deterministic Fisher-Yates from the seed
            let mut x = seed | 1;
            for i in (1..shuffled.len()).rev() {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                shuffled.swap(i, (x % (i as u64 + 1)) as usize);
            }
            let a = merge(&ContainerState::default(), &ShipmentState::default(), &batch, ALL);
            let b = merge(&ContainerState::default(), &ShipmentState::default(), &shuffled, ALL);
            prop_assert_eq!(a, b);
        }

        /// Over whole journeys, fed in batches of any size, in any order, inland or not: a
        /// container that has left the pickup terminal, or is bound inland and not at the
        /// inland ramp yet, is never available or ready; `current_status` is `available`
        /// exactly when it is ready where it is picked up; and every
        /// `container.updated` changeset's old value is what the API showed before it (so
        /// replaying the changesets from the first view gives the last).
        #[test]
        fn left_means_not_ready_and_changesets_chain(
            batch in proptest::collection::vec(arb_obs(), 0..40),
            cuts in proptest::collection::vec(1usize..6, 0..12),
            seed in any::<u64>(),
            inland in any::<bool>(),
            rail_lfd in any::<bool>(),
        ) {
            let view = View { inland, rail_lfd };
            let mut order = batch.clone();
            let mut x = seed | 1;
            for i in (1..order.len()).rev() {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                order.swap(i, (x % (i as u64 + 1)) as usize);
            }
            let mut c = ContainerState::default();
            let mut s = ShipmentState::default();
            let mut shown = terminal_view(&c, view);
            let mut rest: &[Observation] = &order;
            let mut cut = cuts.iter().cycle();
            while !rest.is_empty() {
                let n = (*cut.next().unwrap_or(&1)).min(rest.len());
                let m = merge(&c, &s, &rest[..n], view);
                rest = &rest[n..];
                for change in &m.changes {
                    if let Change::ContainerUpdated { changeset } = change {
                        for (k, [old, new]) in changeset {
                            let key = crate::tracking::times::TimeKey::parse(k);
                            if let Some(was) = key.and_then(|key| c.times.get(&key)) {
                                // a milestone's corrected time: it was what the API showed
                                prop_assert_eq!(&ts(Some(*was)), old, "{}", k);
                                prop_assert_eq!(&ts(key.and_then(|key| m.container.times.get(&key)).copied()), new, "{}", k);
                                continue;
                            }
                            prop_assert_eq!(shown.get(k), Some(old), "{}", k);
                            shown.insert(k.clone(), new.clone());
                        }
                    }
                }
                c = m.container;
                s = m.shipment;
                let at_ramp = c.times.contains_key(&t::IND_RAIL_UNLOADED)
                    || c.times.contains_key(&t::IND_ATA);
                if rules::left_pickup_terminal(&c, inland) || (inland && !at_ramp) {
                    prop_assert!(!rules::available_for_pickup(&c, inland));
                    prop_assert!(!rules::ready_for_pickup(&c, inland));
                    prop_assert_eq!(shown.get("available_for_pickup"), Some(&json!(false)));
                }
                prop_assert_eq!(
                    rules::current_status(&c, inland) == rules::ContainerStatus::Available,
                    rules::ready_for_pickup(&c, inland)
                );
                prop_assert_eq!(&shown, &terminal_view(&c, view));
            }
        }

        /// A journey that ended on what some sources said takes from the rest only what
        /// happened before its end: no estimate changes, a new event only for a milestone
        /// before the end, and each milestone it has ends where the whole story would have
        /// put it.
        #[test]
        fn an_ended_journey_takes_only_what_happened_before_its_end(
            journey in arb_journey(),
            seed in any::<u64>(),
            split in 0usize..40,
        ) {
            let mut all = reports(&journey);
            shuffle(&mut all, seed);
            let split = split.min(all.len());
            let (first, rest) = all.split_at(split);
            let ended = merge(&ContainerState::default(), &ShipmentState::default(), first, ALL);
            let end = ended.container.milestones.latest(Milestone::EmptyIn, Place::Pod)
                .and_then(|d| d.fact.at_us);
            let taken = super::super::milestones::refinements(&ended.container, rest);
            let refined = merge(&ended.container, &ended.shipment, &taken, ALL);
            for c in &refined.changes {
                if let Change::Transport(t) = c {
                    prop_assert!(!t.is_estimate(), "{:?}", t);
                    prop_assert!(end.is_some() && t.at_us <= end, "{:?} after {:?}", t, end);
                }
            }
            prop_assert_eq!(&ended.container.estimates, &refined.container.estimates);
            let whole = merge(&ContainerState::default(), &ShipmentState::default(), &all, ALL);
            for r in &refined.container.milestones.0 {
                let d = r.decided().map(|d| (d.fact.milestone, d.fact.place, d.fact.at_us));
                let w = d.and_then(|(m, p, _)| whole.container.milestones.latest(m, p))
                    .map(|d| (d.fact.milestone, d.fact.place, d.fact.at_us));
                prop_assert_eq!(d, w);
            }
        }

        /// A report older than what an attribute already holds never overwrites it.
        #[test]
        fn older_reports_never_win(newer_fact in arb_fact(), older_fact in arb_fact(), t_new in 10i64..20, t_old in 0i64..10) {
            let first = merge(&ContainerState::default(), &ShipmentState::default(), &[obs(t_new, DataSource::Terminal, newer_fact.clone())], ALL);
            let same_kind = std::mem::discriminant(&newer_fact) == std::mem::discriminant(&older_fact);
            let second = merge(&first.container, &first.shipment, &[obs(t_old, DataSource::Terminal, older_fact)], ALL);
            if same_kind && !matches!(newer_fact, Fact::Event(_) | Fact::Lfd { .. }) {
                prop_assert_eq!(rules::ready_for_pickup(&second.container, false), rules::ready_for_pickup(&first.container, false));
                prop_assert_eq!(&second.container.holds, &first.container.holds);
                prop_assert_eq!(&second.container.fees, &first.container.fees);
                prop_assert_eq!(second.container.pickup_appointment_us, first.container.pickup_appointment_us);
                prop_assert_eq!(&second.container.pod_terminal, &first.container.pod_terminal);
            }
        }

        /// Many sources, one story: whatever the order and the batches in which a journey's
        /// reports arrive (DCSA to the second, X12 to the minute, the terminal), each physical
        /// milestone is one transport event, its time is the finest agreeing report's, an
        /// estimate of a milestone that happened is no event, and the state is the same.
        #[test]
        fn one_milestone_is_one_event_whatever_the_order(
            journey in arb_journey(),
            seed in any::<u64>(),
            cuts in proptest::collection::vec(1usize..6, 1..12),
        ) {
            let all = reports(&journey);
            let play = |order: &[Observation]| {
                let mut c = ContainerState::default();
                let mut s = ShipmentState::default();
                let mut actual = Vec::new();
                let mut rest: &[Observation] = order;
                let mut cut = cuts.iter().cycle();
                while !rest.is_empty() {
                    let n = (*cut.next().unwrap_or(&1)).min(rest.len());
                    let m = merge(&c, &s, &rest[..n], ALL);
                    rest = &rest[n..];
                    for ch in &m.changes {
                        if let Change::Transport(t) = ch && !t.is_estimate() {
                            actual.push(t.event.clone());
                        }
                        if let Change::Transport(t) = ch && t.is_estimate() {
                            let m = t.event.trim_start_matches("container.transport.estimated.");
                            prop_assert!(!m.is_empty());
                        }
                    }
                    c = m.container;
                    s = m.shipment;
                }
                Ok((c, s, actual))
            };
            let (c1, s1, mut events1) = play(&all)?;
            let mut shuffled = all.clone();
            shuffle(&mut shuffled, seed);
            let (c2, s2, mut events2) = play(&shuffled)?;
            let reported: Vec<&Physical> = journey.iter().filter(|p| p.dcsa || p.x12 || p.terminal).collect();
            prop_assert_eq!(events1.len(), reported.len(), "{:?}", events1);
            prop_assert_eq!(events2.len(), reported.len(), "{:?}", events2);
            events1.sort();
            events2.sort();
            prop_assert_eq!(events1, events2);
            let shown = |c: &ContainerState| -> Vec<(String, Option<i64>, DataSource)> {
                let mut v: Vec<_> = c.milestones.0.iter().filter_map(Record::decided)
                    .map(|d| (d.fact.milestone.name().to_string(), d.fact.at_us, d.source)).collect();
                v.sort();
                v
            };
            prop_assert_eq!(shown(&c1), shown(&c2));
            prop_assert_eq!(&c1.times, &c2.times);
            prop_assert_eq!(s1.pod_eta_us, s2.pod_eta_us);
            prop_assert_eq!(s1.pod_ata_us, s2.pod_ata_us);
            prop_assert_eq!(s1.pol_atd_us, s2.pol_atd_us);
            for p in reported {
                let d = c1.milestones.latest(p.milestone, p.place);
                let at = d.and_then(|d| d.fact.at_us);
                if p.dcsa || p.terminal {
                    // a report to the second agrees with the minute and wins over it
                    prop_assert_eq!(at, Some(p.at), "{:?}", p);
                } else {
                    prop_assert_eq!(at, Some(p.at - p.at.rem_euclid(60 * S)), "{:?}", p);
                }
            }
        }
    }
}
