//! Release gates and holds by source: what holds a box, and who said so.
//!
//! A box leaves the terminal when three parties let it go: **customs** (and the other
//! agencies: USDA, FDA, a VACIS scan), the **line** (freight paid, bill surrendered) and the
//! **terminal** (its own holds, its fees, the box being available). Each is a [`Gate`] whose
//! [`GateStatus`] goes `unknown` → `pending` → `held` → `released`.
//!
//! Every source says what it knows in its own words: a carrier's X12 315 `CT` (customs
//! released), a DCSA 3.0 `CUSI` (selected for inspection), a terminal's hold list. The merge
//! keeps each source's latest word on each gate ([`GateReport`]) and each source's latest hold
//! list ([`HoldList`]); [`decide`] turns them into the gate's status by the rule written in
//! `docs/precedence.md` ("Release gates"):
//!
//! 1. **Who may speak** ([`may_speak`]): customs may be held or released by the line (which
//!    relays the customs' word), the terminal and a rail ramp; the line's gate by the line and
//!    the terminal (which enforces the line's hold); the terminal's gate by the terminal and a
//!    rail ramp. The sandbox plays each party. A word from any other source is not kept.
//! 2. **A source's later word replaces its earlier one**; it never overrules another source:
//!    a gate is `held` while any source that may speak for it holds it, else `pending` while
//!    one says it is pending, else `released` when one released it, else `unknown`. So a
//!    freight hold the line lifts while the terminal still enforces it keeps the line's gate
//!    held, and both words are shown.
//! 3. **A journey that moved on releases what it proves**: once the box has left the terminal
//!    where it is picked up (gated out full there, delivered, or returned empty), no gate can
//!    still hold it: each gate not released shows `released`, `inferred`, at the time it left.

use serde::{Deserialize, Serialize};

use super::rules::{self, t};
use super::{ContainerState, DataSource, Hold};

/// A party that must let the box go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gate {
    /// Customs and the other agencies (USDA, FDA, a scan).
    Customs,
    /// The line: freight paid, documents (the original bill) surrendered.
    Line,
    /// The terminal: its own holds and fees, the box available.
    Terminal,
}

impl Gate {
    /// Every gate, in the order they are shown.
    pub const ALL: [Gate; 3] = [Gate::Customs, Gate::Line, Gate::Terminal];

    /// The wire name (`customs`, `line`, `terminal`).
    pub fn name(self) -> &'static str {
        match self {
            Gate::Customs => "customs",
            Gate::Line => "line",
            Gate::Terminal => "terminal",
        }
    }

    /// The gate of a wire name.
    pub fn parse(s: &str) -> Option<Gate> {
        Gate::ALL.into_iter().find(|g| g.name() == s)
    }

    /// Its bit in a set of gates ([`GateSet`]).
    pub fn bit(self) -> i64 {
        match self {
            Gate::Customs => 1,
            Gate::Line => 2,
            Gate::Terminal => 4,
        }
    }

    /// The gate a hold of the terminal's list belongs to, by its canonical name
    /// ([`rules::canonical_hold_name`]): an agency's to customs, `freight` to the line, the
    /// terminal's own (`TMF`) and any other to the terminal.
    pub fn of_hold(name: &str) -> Gate {
        match name {
            "customs" | "USDA" | "VACIS" => Gate::Customs,
            "freight" => Gate::Line,
            _ => Gate::Terminal,
        }
    }
}

/// A gate's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateStatus {
    /// No source has said anything.
    Unknown,
    /// Not released yet, and not held: waiting (a pending hold, a box not yet available).
    Pending,
    /// Held: the box may not go.
    Held,
    /// Released.
    Released,
}

impl GateStatus {
    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            GateStatus::Unknown => "unknown",
            GateStatus::Pending => "pending",
            GateStatus::Held => "held",
            GateStatus::Released => "released",
        }
    }

    /// How strongly it keeps the box: of two sources' words the stronger decides.
    fn weight(self) -> u8 {
        match self {
            GateStatus::Unknown => 0,
            GateStatus::Released => 1,
            GateStatus::Pending => 2,
            GateStatus::Held => 3,
        }
    }
}

/// A set of gates as the bits of [`Gate::bit`] (the stored `gates_held` / `gates_released`
/// columns the list filters read).
pub type GateSet = i64;

/// One source's latest word on one gate.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct GateReport {
    /// The gate.
    pub gate: Gate,
    /// Who said it.
    pub source: DataSource,
    /// What it said.
    pub status: GateStatus,
    /// The source's own wording (a disposition: "exam", "in bond", "freight unpaid").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wording: Option<String>,
    /// When it happened, where the source says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_us: Option<i64>,
    /// When the source said it.
    pub observed_us: i64,
}

/// One source's latest complete list of holds.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct HoldList {
    /// Who sent it.
    pub source: DataSource,
    /// When.
    pub observed_us: i64,
    /// Its holds, as [`rules::normalize_holds`] leaves them.
    pub holds: Vec<Hold>,
    /// The observation key of the report that sent it (its raw event's; 0 for a list kept
    /// before the keys were).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub key: i64,
}

fn is_zero(k: &i64) -> bool {
    *k == 0
}

/// Whether `source` may hold or release `gate` (rule 1).
pub fn may_speak(gate: Gate, source: DataSource) -> bool {
    use DataSource::*;
    match gate {
        Gate::Customs => matches!(source, ShippingLine | Terminal | Rail | Sandbox),
        Gate::Line => matches!(source, ShippingLine | Terminal | Sandbox),
        Gate::Terminal => matches!(source, Terminal | Rail | Sandbox),
    }
}

/// Keeps `report` as its source's latest word on its gate, unless the source said something
/// at least as new already or may not speak for the gate. Whether it was kept.
pub fn note_report(reports: &mut Vec<GateReport>, report: GateReport) -> bool {
    if !may_speak(report.gate, report.source) || report.status == GateStatus::Unknown {
        return false;
    }
    match reports
        .iter_mut()
        .find(|r| r.gate == report.gate && r.source == report.source)
    {
        Some(r) if r.observed_us >= report.observed_us => false,
        Some(r) => {
            *r = report;
            true
        }
        None => {
            reports.push(report);
            reports.sort();
            true
        }
    }
}

/// Keeps `list` as its source's latest hold list, unless that source sent one at least as
/// new. Whether it was kept.
pub fn note_hold_list(lists: &mut Vec<HoldList>, list: HoldList) -> bool {
    match lists.iter_mut().find(|l| l.source == list.source) {
        Some(l) if l.observed_us >= list.observed_us => false,
        Some(l) => {
            *l = list;
            true
        }
        None => {
            lists.push(list);
            lists.sort();
            true
        }
    }
}

/// The holds in force from every source's latest list: a hold stays while any source still
/// reports it (`hold` where one says so, else `pending`), with the description of the newest
/// list naming it.
pub fn union_of(lists: &[HoldList]) -> Vec<Hold> {
    let mut by_name: std::collections::BTreeMap<&str, (Hold, i64)> = Default::default();
    for l in lists {
        for h in &l.holds {
            let entry = by_name
                .entry(h.name.as_str())
                .or_insert_with(|| (h.clone(), l.observed_us));
            if h.status == "hold" {
                entry.0.status = "hold".into();
            }
            if l.observed_us > entry.1 && h.description.is_some() {
                entry.0.description.clone_from(&h.description);
                entry.1 = l.observed_us;
            }
        }
    }
    by_name.into_values().map(|(h, _)| h).collect()
}

/// The hold lists of a state: as kept per source, or, for a state written before they were,
/// its one list as the source that last wrote it sent it.
pub fn hold_lists(c: &ContainerState) -> Vec<HoldList> {
    if !c.hold_lists.is_empty() {
        return c.hold_lists.clone();
    }
    let key = super::versions::VersionKey::Holds;
    match c.versions.get(&key) {
        Some(&observed_us) => vec![HoldList {
            source: c
                .provenance
                .get(&key)
                .map_or(DataSource::Terminal, |p| p.source),
            observed_us,
            holds: c.holds.clone(),
            key: c.provenance.get(&key).map_or(0, |p| p.key),
        }],
        None => vec![],
    }
}

/// What a hold list says of a gate: `held` with the wording of its active holds of that
/// gate, `pending` with its pending ones, else `released` (a list is complete: a gate it
/// names no hold for is not held there).
fn list_word(list: &HoldList, gate: Gate) -> GateReport {
    let of_gate: Vec<&Hold> = list
        .holds
        .iter()
        .filter(|h| Gate::of_hold(&h.name) == gate)
        .collect();
    let status = if of_gate.iter().any(|h| h.status == "hold") {
        GateStatus::Held
    } else if of_gate.is_empty() {
        GateStatus::Released
    } else {
        GateStatus::Pending
    };
    let words: Vec<String> = of_gate
        .iter()
        .map(|h| {
            h.description
                .clone()
                .unwrap_or_else(|| format!("{} {}", h.name, h.status))
        })
        .collect();
    GateReport {
        gate,
        source: list.source,
        status,
        wording: (!words.is_empty()).then(|| words.join("; ")),
        at_us: None,
        observed_us: list.observed_us,
    }
}

/// What the terminal's availability says of its gate: available is released, not available
/// is pending.
fn availability_word(c: &ContainerState) -> Option<GateReport> {
    let key = super::versions::VersionKey::Availability;
    let observed_us = *c.versions.get(&key)?;
    let source = c
        .provenance
        .get(&key)
        .map_or(DataSource::Terminal, |p| p.source);
    let available = c.available_for_pickup?;
    Some(GateReport {
        gate: Gate::Terminal,
        source,
        status: if available {
            GateStatus::Released
        } else {
            GateStatus::Pending
        },
        wording: Some(if available {
            "available for pickup".into()
        } else {
            "not available for pickup".into()
        }),
        at_us: None,
        observed_us,
    })
}

/// Every word on `gate` that counts, one per source: of a source's release report, what its
/// hold list says of the gate and (for the terminal's gate) its availability, the newest, and
/// of two as new the stronger; a source that may not speak for the gate is left out. Newest
/// first.
pub fn words(c: &ContainerState, gate: Gate) -> Vec<GateReport> {
    let mut out: Vec<GateReport> = c
        .release_reports
        .iter()
        .filter(|r| r.gate == gate)
        .cloned()
        .collect();
    let mut lists: Vec<GateReport> = hold_lists(c).iter().map(|l| list_word(l, gate)).collect();
    if gate == Gate::Terminal
        && let Some(avail) = availability_word(c)
    {
        // both are the terminal's current state, neither replaces the other: a box its list
        // holds nothing of waits while it says the box is not available
        match lists.iter_mut().find(|l| l.source == avail.source) {
            Some(l) if l.status == GateStatus::Released => {
                if avail.status != GateStatus::Released || l.wording.is_none() {
                    l.status = avail.status;
                    l.wording = avail.wording;
                }
                l.observed_us = l.observed_us.max(avail.observed_us);
            }
            Some(_) => {}
            None => lists.push(avail),
        }
    }
    out.extend(lists);
    out.retain(|r| may_speak(gate, r.source) && r.status != GateStatus::Unknown);
    out.sort_by(|a, b| {
        b.observed_us
            .cmp(&a.observed_us)
            .then(b.status.weight().cmp(&a.status.weight()))
            .then(a.source.cmp(&b.source))
    });
    let mut seen = vec![];
    out.retain(|r| {
        let first = !seen.contains(&r.source);
        seen.push(r.source);
        first
    });
    out
}

/// A gate as decided: its status, the word that decides it, and every word behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateView {
    /// The gate.
    pub gate: Gate,
    /// Its status.
    pub status: GateStatus,
    /// The source whose word decides (none when unknown or inferred).
    pub source: Option<DataSource>,
    /// When: the deciding word's time where it says, else when it was said; for an inferred
    /// release, when the box left.
    pub at_us: Option<i64>,
    /// The deciding source's own wording.
    pub wording: Option<String>,
    /// Whether the status is inferred from the journey (rule 3), not said by a source.
    pub inferred: bool,
    /// Every source's word on the gate, newest first.
    pub words: Vec<GateReport>,
}

/// When the box left the terminal where it is picked up, given that it has (rule 3): its
/// full out-gate (at the inland ramp where it has one), its delivery or its empty return,
/// whichever came first.
fn left_at(c: &ContainerState) -> Option<i64> {
    let out = c
        .times
        .get(&t::FINAL_FULL_OUT)
        .or_else(|| c.times.get(&t::POD_FULL_OUT));
    [
        out,
        c.times.get(&t::DELIVERED),
        c.times.get(&t::EMPTY_TERMINATED),
    ]
    .into_iter()
    .flatten()
    .min()
    .copied()
}

/// Whether a box of status `status` (`current_status`) has left the terminal where it is
/// picked up, for good: picked up there, delivered, or returned empty.
pub fn left_by_status(status: &str) -> bool {
    matches!(status, "picked_up" | "delivered" | "empty_returned")
}

/// Whether the box has left the terminal where it is picked up, for good, on a journey that
/// continues inland when `inland`.
pub fn left(c: &ContainerState, inland: bool) -> bool {
    rules::left_pickup_terminal(c, inland)
}

/// Decides `gate` for a box that has `left` the terminal where it is picked up, or not
/// ([`left`], [`left_by_status`]) (rules 1–3).
pub fn decide(c: &ContainerState, gate: Gate, left: bool) -> GateView {
    let words = words(c, gate);
    let decider = words.iter().max_by(|a, b| {
        a.status
            .weight()
            .cmp(&b.status.weight())
            .then(a.observed_us.cmp(&b.observed_us))
            .then(b.source.cmp(&a.source))
    });
    let mut view = GateView {
        gate,
        status: decider.map_or(GateStatus::Unknown, |d| d.status),
        source: decider.map(|d| d.source),
        at_us: decider.map(|d| d.at_us.unwrap_or(d.observed_us)),
        wording: decider.and_then(|d| d.wording.clone()),
        inferred: false,
        words: words.clone(),
    };
    if view.status != GateStatus::Released && left {
        view.status = GateStatus::Released;
        view.source = None;
        view.at_us = left_at(c);
        view.wording = Some("the box left the terminal".into());
        view.inferred = true;
    }
    view
}

/// The three gates, decided, for a box that has `left` or not.
pub fn gates(c: &ContainerState, left: bool) -> [GateView; 3] {
    Gate::ALL.map(|g| decide(c, g, left))
}

/// The gates held and the gates released, as sets ([`GateSet`]).
pub fn gate_sets(gates: &[GateView]) -> (GateSet, GateSet) {
    let mut held = 0;
    let mut released = 0;
    for v in gates {
        match v.status {
            GateStatus::Held => held |= v.gate.bit(),
            GateStatus::Released => released |= v.gate.bit(),
            _ => {}
        }
    }
    (held, released)
}

/// The first gate that keeps the box, for "Next step": a held one before a pending one, in
/// the order customs, line, terminal.
pub fn holding(gates: &[GateView]) -> Option<&GateView> {
    gates
        .iter()
        .find(|g| g.status == GateStatus::Held)
        .or_else(|| gates.iter().find(|g| g.status == GateStatus::Pending))
}

/// Applies a source's complete hold list observed in `o`: kept as that source's latest
/// (unless it sent a newer one), the holds in force become the union of every source's list,
/// and the spans of holds in force follow them (the charge rule's excused days).
pub fn apply_hold_list(c: &mut ContainerState, holds: &[Hold], o: &super::Observation) {
    if c.hold_lists.is_empty() {
        // a state from before the lists were kept: its one list is its first source's
        c.hold_lists = hold_lists(c);
    }
    let list = HoldList {
        source: o.source,
        observed_us: o.observed_us,
        holds: rules::normalize_holds(holds),
        key: super::observation_key(o),
    };
    if !note_hold_list(&mut c.hold_lists, list) {
        return;
    }
    let key = super::versions::VersionKey::Holds;
    if c.versions.get(&key).is_none_or(|&v| v < o.observed_us) {
        c.versions.insert(key, o.observed_us);
    }
    c.holds = union_of(&c.hold_lists);
    rules::follow_hold_spans(&mut c.hold_spans, &c.holds, o.observed_us);
}

/// Keeps a source's word on a gate ([`super::Fact::Release`] in `o`) as its latest on that
/// gate, where it may speak for it and said nothing newer.
pub fn apply_release(c: &mut ContainerState, o: &super::Observation) {
    if let super::Fact::Release {
        gate,
        status,
        wording,
        at_us,
    } = &o.fact
    {
        note_report(
            &mut c.release_reports,
            GateReport {
                gate: *gate,
                source: o.source,
                status: *status,
                wording: wording.clone(),
                at_us: *at_us,
                observed_us: o.observed_us,
            },
        );
    }
}

/// Whether a batch may move a gate: a source's word on one, a hold list, an availability, or
/// the box leaving its terminal (rule 3).
pub fn moves_gates(batch: &[super::Observation]) -> bool {
    use super::{Fact, Milestone};
    batch.iter().any(|o| match &o.fact {
        Fact::Release { .. } | Fact::Holds { .. } | Fact::Availability { .. } => true,
        Fact::Retracted { .. } => true,
        Fact::Event(e) => {
            !e.estimated
                && matches!(
                    e.milestone,
                    Milestone::FullOut | Milestone::Delivered | Milestone::EmptyIn
                )
        }
        _ => false,
    })
}

/// The gates before a merge of `batch`, decided only when the batch may move one (most
/// batches are milestones that cannot): [`after`] compares them with the merged state's.
pub fn before(
    batch: &[super::Observation],
    c: &ContainerState,
    inland: bool,
) -> Option<[GateView; 3]> {
    moves_gates(batch).then(|| gates(c, left(c, inland)))
}

/// The `container.release.changed` changes from the gates [`before`] a merge to those of the
/// merged state `c` (none when the batch could not move a gate).
pub fn after(
    before: Option<[GateView; 3]>,
    c: &ContainerState,
    inland: bool,
) -> Vec<super::Change> {
    before.map_or_else(Vec::new, |b| changed(b, gates(c, left(c, inland))))
}

/// The `container.release.changed` changes from the gates `before` a merge to the gates
/// `after` it: one per gate whose status moved.
pub fn changed(before: [GateView; 3], after: [GateView; 3]) -> Vec<super::Change> {
    before
        .into_iter()
        .zip(after)
        .filter(|(b, a)| b.status != a.status)
        .map(|(b, a)| super::Change::ReleaseChanged {
            old: Box::new(b),
            new: Box::new(a),
        })
        .collect()
}

/// One active hold and every source whose latest list names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HoldBySource {
    /// The canonical name.
    pub name: String,
    /// `hold` where one source says so, else `pending`.
    pub status: String,
    /// Each source naming it: who, its status there, its own words, when.
    pub sources: Vec<HoldSource>,
}

/// One source's word on a hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HoldSource {
    /// Who.
    pub source: DataSource,
    /// `hold` or `pending`.
    pub status: String,
    /// Its own words.
    pub description: Option<String>,
    /// When it sent the list.
    pub observed_us: i64,
}

/// The holds in force with every source that reports each (the `holds_by_source` extension).
pub fn holds_by_source(c: &ContainerState) -> Vec<HoldBySource> {
    let lists = hold_lists(c);
    union_of(&lists)
        .into_iter()
        .map(|h| HoldBySource {
            sources: lists
                .iter()
                .filter_map(|l| {
                    let mine = l.holds.iter().find(|x| x.name == h.name)?;
                    Some(HoldSource {
                        source: l.source,
                        status: mine.status.clone(),
                        description: mine.description.clone(),
                        observed_us: l.observed_us,
                    })
                })
                .collect(),
            name: h.name,
            status: h.status,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hold(name: &str, status: &str, words: &str) -> Hold {
        Hold {
            name: name.into(),
            status: status.into(),
            description: Some(words.into()),
        }
    }

    fn report(gate: Gate, source: DataSource, status: GateStatus, at: i64) -> GateReport {
        GateReport {
            gate,
            source,
            status,
            wording: None,
            at_us: None,
            observed_us: at,
        }
    }

    fn state(reports: Vec<GateReport>, lists: Vec<HoldList>) -> ContainerState {
        ContainerState {
            release_reports: reports,
            hold_lists: lists,
            ..Default::default()
        }
    }

    fn said(at: i64, source: DataSource, fact: super::super::Fact) -> super::super::Observation {
        super::super::Observation {
            observed_us: at,
            source,
            fact,
            precision: Default::default(),
            upstream_id: None,
        }
    }

    #[test]
    fn a_merge_keeps_each_source_s_word_and_tells_each_gate_that_moved_once() {
        use super::super::merge::{View, merge};
        use super::super::{Change, Fact, ShipmentState};
        let exam = said(
            10,
            DataSource::Terminal,
            Fact::Holds {
                holds: vec![hold("customs", "hold", "CBP EXAM")],
            },
        );
        let released = said(
            20,
            DataSource::ShippingLine,
            Fact::Release {
                gate: Gate::Customs,
                status: GateStatus::Released,
                wording: Some("CT Customs Released".into()),
                at_us: Some(19),
            },
        );
        let cleared = said(30, DataSource::Terminal, Fact::Holds { holds: vec![] });
        let empty = (ContainerState::default(), ShipmentState::default());
        let m1 = merge(
            &empty.0,
            &empty.1,
            &[exam.clone(), released.clone()],
            View::default(),
        );
        let [customs, line, terminal] = gates(&m1.container, false);
        assert_eq!(
            customs.status,
            GateStatus::Held,
            "the terminal still holds it"
        );
        assert_eq!(customs.words.len(), 2);
        assert_eq!(line.status, GateStatus::Released);
        assert_eq!(terminal.status, GateStatus::Released);
        let moved: Vec<_> = m1
            .changes
            .iter()
            .filter_map(|c| match c {
                Change::ReleaseChanged { new, .. } => Some(new.gate),
                _ => None,
            })
            .collect();
        assert_eq!(moved, vec![Gate::Customs, Gate::Line, Gate::Terminal]);
        // the same batch again changes nothing
        let again = merge(
            &m1.container,
            &m1.shipment,
            &[released, exam],
            View::default(),
        );
        assert!(again.changes.is_empty());
        assert_eq!(again.container, m1.container);
        let m2 = merge(&m1.container, &m1.shipment, &[cleared], View::default());
        assert_eq!(m2.container.holds, vec![]);
        let [customs, ..] = gates(&m2.container, false);
        assert_eq!(customs.status, GateStatus::Released);
        assert_eq!(
            m2.changes
                .iter()
                .filter(|c| c.event_name() == "container.release.changed")
                .count(),
            1
        );
    }

    #[test]
    fn nothing_said_is_unknown() {
        for g in gates(&ContainerState::default(), false) {
            assert_eq!(g.status, GateStatus::Unknown);
            assert!(g.source.is_none() && g.words.is_empty());
        }
    }

    #[test]
    fn a_source_may_speak_only_for_its_gates() {
        let mut rs = vec![];
        assert!(!note_report(
            &mut rs,
            report(Gate::Line, DataSource::Rail, GateStatus::Released, 1)
        ));
        assert!(!note_report(
            &mut rs,
            report(
                Gate::Terminal,
                DataSource::ShippingLine,
                GateStatus::Held,
                1
            )
        ));
        assert!(!note_report(
            &mut rs,
            report(Gate::Customs, DataSource::Ais, GateStatus::Held, 1)
        ));
        assert!(note_report(
            &mut rs,
            report(Gate::Customs, DataSource::ShippingLine, GateStatus::Held, 1)
        ));
        assert_eq!(rs.len(), 1);
    }

    #[test]
    fn a_source_s_later_word_replaces_its_earlier_one_and_an_older_one_does_nothing() {
        let mut rs = vec![];
        let held = report(
            Gate::Customs,
            DataSource::ShippingLine,
            GateStatus::Held,
            10,
        );
        let released = report(
            Gate::Customs,
            DataSource::ShippingLine,
            GateStatus::Released,
            20,
        );
        assert!(note_report(&mut rs, held.clone()));
        assert!(note_report(&mut rs, released.clone()));
        assert!(!note_report(&mut rs, held));
        assert_eq!(rs, vec![released]);
        let c = state(rs, vec![]);
        let v = decide(&c, Gate::Customs, false);
        assert_eq!(v.status, GateStatus::Released);
        assert_eq!(v.source, Some(DataSource::ShippingLine));
        assert_eq!(v.at_us, Some(20));
    }

    #[test]
    fn a_hold_one_source_keeps_stays_when_another_releases_later() {
        // the terminal still enforces the freight hold the line has lifted
        let terminal = HoldList {
            source: DataSource::Terminal,
            observed_us: 10,
            holds: vec![hold("freight", "hold", "LINE HOLD - FREIGHT")],
            key: 0,
        };
        let line = report(
            Gate::Line,
            DataSource::ShippingLine,
            GateStatus::Released,
            20,
        );
        let c = state(vec![line], vec![terminal]);
        let v = decide(&c, Gate::Line, false);
        assert_eq!(v.status, GateStatus::Held);
        assert_eq!(v.source, Some(DataSource::Terminal));
        assert_eq!(v.wording.as_deref(), Some("LINE HOLD - FREIGHT"));
        assert_eq!(v.words.len(), 2, "both words shown: {:?}", v.words);
        assert_eq!(v.words[0].status, GateStatus::Released, "newest first");
        // a list without it releases the gate at the terminal too
        let mut c = c;
        note_hold_list(
            &mut c.hold_lists,
            HoldList {
                source: DataSource::Terminal,
                observed_us: 30,
                holds: vec![],
                key: 0,
            },
        );
        assert_eq!(decide(&c, Gate::Line, false).status, GateStatus::Released);
    }

    #[test]
    fn a_hold_list_speaks_for_each_gate_by_its_holds() {
        let c = state(
            vec![],
            vec![HoldList {
                source: DataSource::Terminal,
                observed_us: 5,
                holds: vec![
                    hold("customs", "pending", "CBP pending"),
                    hold("TMF", "hold", "TMF unpaid"),
                ],
                key: 0,
            }],
        );
        let [customs, line, terminal] = gates(&c, false);
        assert_eq!(customs.status, GateStatus::Pending);
        assert_eq!(customs.wording.as_deref(), Some("CBP pending"));
        assert_eq!(line.status, GateStatus::Released);
        assert_eq!(terminal.status, GateStatus::Held);
        assert_eq!(
            gate_sets(&gates(&c, false)),
            (Gate::Terminal.bit(), Gate::Line.bit())
        );
        assert_eq!(
            holding(&gates(&c, false)).map(|g| g.gate),
            Some(Gate::Terminal)
        );
    }

    #[test]
    fn a_box_that_left_has_every_gate_released_inferred() {
        let mut c = state(
            vec![report(
                Gate::Customs,
                DataSource::ShippingLine,
                GateStatus::Held,
                1,
            )],
            vec![],
        );
        c.times.insert(t::POD_FULL_OUT, 99);
        assert!(left(&c, false) && left_by_status("picked_up"));
        let v = decide(&c, Gate::Customs, left(&c, false));
        assert_eq!(v.status, GateStatus::Released);
        assert!(v.inferred && v.source.is_none());
        assert_eq!(v.at_us, Some(99));
        // bound inland, leaving the port proves nothing of the ramp
        assert!(!left(&c, true) && !left_by_status("on_rail"));
        let v = decide(&c, Gate::Customs, left(&c, true));
        assert_eq!(v.status, GateStatus::Held);
    }

    #[test]
    fn holds_stay_while_any_source_reports_them() {
        let lists = vec![
            HoldList {
                source: DataSource::Terminal,
                observed_us: 20,
                holds: vec![],
                key: 0,
            },
            HoldList {
                source: DataSource::Rail,
                observed_us: 10,
                holds: vec![hold("customs", "hold", "IN BOND")],
                key: 0,
            },
        ];
        let c = state(vec![], lists.clone());
        assert_eq!(union_of(&lists), vec![hold("customs", "hold", "IN BOND")]);
        let by = holds_by_source(&c);
        assert_eq!(by.len(), 1);
        assert_eq!(by[0].sources.len(), 1);
        assert_eq!(by[0].sources[0].source, DataSource::Rail);
    }

    #[test]
    fn a_state_from_before_hold_lists_reads_its_one_list() {
        let mut c = ContainerState {
            holds: vec![hold("customs", "hold", "x")],
            ..Default::default()
        };
        c.versions
            .insert(super::super::versions::VersionKey::Holds, 7);
        let lists = hold_lists(&c);
        assert_eq!(lists.len(), 1);
        assert_eq!(lists[0].source, DataSource::Terminal);
        assert_eq!(decide(&c, Gate::Customs, false).status, GateStatus::Held);
    }

    #[test]
    fn the_decision_does_not_depend_on_the_order_words_arrive() {
        let words = [
            report(Gate::Customs, DataSource::ShippingLine, GateStatus::Held, 1),
            report(Gate::Customs, DataSource::Terminal, GateStatus::Released, 2),
            report(
                Gate::Customs,
                DataSource::ShippingLine,
                GateStatus::Released,
                3,
            ),
            report(Gate::Customs, DataSource::Rail, GateStatus::Pending, 2),
        ];
        let mut seen = None;
        for perm in [[0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1], [1, 3, 0, 2]] {
            let mut rs = vec![];
            for i in perm {
                note_report(&mut rs, words[i].clone());
            }
            let v = decide(&state(rs, vec![]), Gate::Customs, false);
            assert_eq!(v.status, GateStatus::Pending);
            match &seen {
                None => seen = Some(v),
                Some(s) => assert_eq!(s, &v),
            }
        }
    }
}
