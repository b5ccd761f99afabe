//! One physical event, one record, whoever reports it.
//!
//! A [`Book`] keeps the milestones of a container (or of a shipment): each [`Record`] is one
//! physical event — this milestone, at this place and location, on this leg — with the
//! latest report of every source at every precision behind it. What the record shows is
//! decided by [`decide`] from those reports alone ([`super::precedence`]), so it does not
//! depend on the order in which they arrived.
//!
//! Identity ([`Book::find`]): an actual report is the same event as a record when it names
//! the same milestone, place and UN/LOCODE, its leg does not contradict the record's (a vessel
//! IMO or name, or a voyage, that both name and that differ), and its time is within
//! [`SAME_EVENT_WINDOW_US`] of the record's reports. Availability, which comes and goes, is
//! the same event only when the times [`agree`](super::precedence::agree). A second loading
//! after a roll-over (another vessel or voyage) or a second call days later is another event.
//! An estimate's identity is its milestone and place: every estimate of the arrival at the
//! POD is one record whose value is the current estimate.

use std::cmp::Reverse;

use serde::{Deserialize, Serialize};

use super::precedence::{Precision, agree, rank};
use super::{DataSource, EventFact, Milestone, Place};

/// Two reports of a one-time milestone more than this far apart (48 hours) are two events
/// unless nothing else tells them apart; closer ones are one event whose time the precedence
/// decides.
pub const SAME_EVENT_WINDOW_US: i64 = 48 * 3_600 * 1_000_000;

/// What one source said of a milestone.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Report {
    /// Who said it.
    pub source: DataSource,
    /// How finely it states the time.
    #[serde(default, skip_serializing_if = "Precision::is_second")]
    pub precision: Precision,
    /// When the source produced it.
    pub observed_us: i64,
    /// What it said.
    pub fact: EventFact,
    /// The source's own id of it (a DCSA `eventID`), by which the source may withdraw it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_id: Option<String>,
}

/// One physical event (or, in an estimates book, the current estimate of one milestone).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The identity of its transport event: `milestone|place|locode|time of the first report`
    /// (for estimates `estimated|milestone|place`). Fixed when the record is made.
    pub key: String,
    /// The latest report of each source at each precision, in a canonical order.
    pub reports: Vec<Report>,
}

/// What a record shows, decided from its reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decided {
    /// The fact shown: the deciding report's, with its time refined and missing details
    /// filled from the other reports in order of precedence.
    pub fact: EventFact,
    /// Whose word decided it.
    pub source: DataSource,
    /// Who stated the time shown (the deciding source, or one that agrees more finely).
    pub time_source: DataSource,
    /// The precision of the time shown.
    pub precision: Precision,
    /// When the report that stated the time was produced.
    pub observed_us: i64,
}

/// Decides what reports of one milestone show (see [`super::precedence`]). `None` for no
/// reports.
pub fn decide(reports: &[Report]) -> Option<Decided> {
    let first = reports.first()?;
    let m = first.fact.milestone;
    let winner = reports.iter().min_by_key(|r| {
        (
            rank(m, r.source),
            Reverse(r.observed_us),
            r.precision,
            r.fact.at_us,
            &r.fact,
        )
    })?;
    let timed = match (winner.fact.at_us, winner.precision) {
        (Some(at), p) => reports
            .iter()
            .filter(|r| {
                r.precision < p && r.fact.at_us.is_some_and(|b| agree(at, p, b, r.precision))
            })
            .min_by_key(|r| {
                (
                    r.precision,
                    rank(m, r.source),
                    Reverse(r.observed_us),
                    r.fact.at_us,
                )
            })
            .unwrap_or(winner),
        (None, _) => winner,
    };
    let mut fact = winner.fact.clone();
    fact.at_us = timed.fact.at_us;
    let mut by_rank: Vec<&Report> = reports.iter().collect();
    by_rank.sort_by_key(|r| (rank(m, r.source), Reverse(r.observed_us), r.precision));
    for r in by_rank {
        let f = &r.fact;
        fill(&mut fact.timezone, &f.timezone);
        fill(&mut fact.terminal, &f.terminal);
        fill(&mut fact.vessel_name, &f.vessel_name);
        fill(&mut fact.vessel_imo, &f.vessel_imo);
        fill(&mut fact.voyage, &f.voyage);
    }
    Some(Decided {
        fact,
        source: winner.source,
        time_source: timed.source,
        precision: timed.precision,
        observed_us: timed.observed_us,
    })
}

fn fill(slot: &mut Option<String>, from: &Option<String>) {
    if slot.is_none() {
        slot.clone_from(from);
    }
}

fn norm(s: &Option<String>) -> Option<String> {
    s.as_deref()
        .map(|v| v.trim().to_ascii_uppercase())
        .filter(|v| !v.is_empty())
}

/// Whether two reports' legs contradict each other: both name a vessel (by IMO, or else by
/// name) or a voyage, and they differ.
fn legs_differ(a: &EventFact, b: &EventFact) -> bool {
    let differ =
        |x: Option<String>, y: Option<String>| matches!((x, y), (Some(x), Some(y)) if x != y);
    let vessel = match (norm(&a.vessel_imo), norm(&b.vessel_imo)) {
        (Some(x), Some(y)) => x != y,
        _ => differ(norm(&a.vessel_name), norm(&b.vessel_name)),
    };
    vessel || differ(norm(&a.voyage), norm(&b.voyage))
}

/// Milestones that come and go (a box is released, held, released again): one event only
/// where the reports agree on the time.
fn toggles(m: Milestone) -> bool {
    matches!(m, Milestone::Available | Milestone::NotAvailable)
}

impl Record {
    /// What the record shows.
    pub fn decided(&self) -> Option<Decided> {
        decide(&self.reports)
    }

    /// Adds a report: it replaces the report of the same source and precision when it is
    /// newer (of two equally new ones, the greater in the canonical order stays). Whether the
    /// reports changed.
    fn add(&mut self, report: Report) -> bool {
        let same = self
            .reports
            .iter_mut()
            .find(|r| r.source == report.source && r.precision == report.precision);
        match same {
            Some(r) if (r.observed_us, &r.fact) >= (report.observed_us, &report.fact) => {
                // the same report, now with the source's id of it (kept before ids were)
                if (r.observed_us, &r.fact) == (report.observed_us, &report.fact)
                    && r.upstream_id.is_none()
                {
                    r.upstream_id = report.upstream_id;
                }
                return false;
            }
            Some(r) => *r = report,
            None => self.reports.push(report),
        }
        self.reports.sort();
        true
    }
}

/// What adding a report did to a book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Added {
    /// A new record (a new event), at this index.
    New(usize),
    /// An existing record's shown fact changed, from `before`.
    Revised(usize, Box<Decided>),
    /// Nothing shown changed (the same report again, or a report that loses).
    Unchanged(usize),
}

/// A record that lost reports because their source withdrew them ([`Book::withdraw`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Withdrawn {
    /// The record's key.
    pub key: String,
    /// Its milestone.
    pub milestone: Milestone,
    /// Its place.
    pub place: Place,
    /// What it showed before.
    pub before: Box<Decided>,
    /// No report is left: the record is gone.
    pub gone: bool,
}

/// The milestone records of a container or a shipment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Book(pub Vec<Record>);

impl Book {
    /// Whether the book is empty (left out of stored states).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The key of a new actual event.
    pub fn actual_key(f: &EventFact) -> String {
        format!(
            "{}|{:?}|{}|{}",
            f.milestone.name(),
            f.place,
            f.locode.as_deref().unwrap_or_default(),
            f.at_us.map_or_else(String::new, |v| v.to_string())
        )
    }

    /// The key of an estimate's record.
    pub fn estimate_key(m: Milestone, place: Place) -> String {
        format!("estimated|{}|{:?}", m.name(), place)
    }

    /// The record an actual report belongs to, if any (the closest in time of those it may
    /// be; see the module's rules).
    pub fn find(&self, f: &EventFact, precision: Precision) -> Option<usize> {
        let at = f.at_us;
        self.0
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                r.reports.iter().all(|x| {
                    x.fact.milestone == f.milestone
                        && x.fact.place == f.place
                        && x.fact.locode == f.locode
                        && !legs_differ(&x.fact, f)
                }) && r.reports.iter().any(|x| match (x.fact.at_us, at) {
                    (Some(a), Some(b)) if toggles(f.milestone) => {
                        agree(a, x.precision, b, precision)
                    }
                    (Some(a), Some(b)) => a.abs_diff(b) <= SAME_EVENT_WINDOW_US.unsigned_abs(),
                    (None, None) => true,
                    _ => !toggles(f.milestone),
                })
            })
            .min_by_key(|(_, r)| {
                let d = r
                    .decided()
                    .and_then(|d| d.fact.at_us)
                    .zip(at)
                    .map_or(u64::MAX, |(a, b)| a.abs_diff(b));
                (d, r.key.clone())
            })
            .map(|(i, _)| i)
    }

    /// Adds an actual report: to the record of its event, or as a new record.
    pub fn add_actual(&mut self, report: Report) -> Added {
        match self.find(&report.fact, report.precision) {
            Some(i) => self.add_to(i, report),
            None => {
                let key = Self::actual_key(&report.fact);
                self.0.push(Record {
                    key,
                    reports: vec![report],
                });
                Added::New(self.0.len() - 1)
            }
        }
    }

    /// Adds an estimate: to the record of its milestone and place, or as a new record.
    pub fn add_estimate(&mut self, report: Report) -> Added {
        let key = Self::estimate_key(report.fact.milestone, report.fact.place);
        match self.0.iter().position(|r| r.key == key) {
            Some(i) => self.add_to(i, report),
            None => {
                self.0.push(Record {
                    key,
                    reports: vec![report],
                });
                Added::New(self.0.len() - 1)
            }
        }
    }

    fn add_to(&mut self, i: usize, report: Report) -> Added {
        let Some(record) = self.0.get_mut(i) else {
            return Added::Unchanged(i);
        };
        let before = record.decided();
        if !record.add(report) {
            return Added::Unchanged(i);
        }
        match before {
            Some(b) if record.decided().as_ref() != Some(&b) => Added::Revised(i, Box::new(b)),
            Some(_) => Added::Unchanged(i),
            None => Added::New(i),
        }
    }

    /// Takes out every report with this upstream id (the source withdrew it). For each
    /// record it touched: `None` when no report is left (the record is gone), or what it
    /// showed before. The reports' milestones and places are returned too.
    pub fn withdraw(&mut self, upstream_id: &str) -> Vec<Withdrawn> {
        let mut out = Vec::new();
        for record in &mut self.0 {
            if !record
                .reports
                .iter()
                .any(|r| r.upstream_id.as_deref() == Some(upstream_id))
            {
                continue;
            }
            let before = record.decided();
            let of = record
                .reports
                .first()
                .map(|r| (r.fact.milestone, r.fact.place));
            record
                .reports
                .retain(|r| r.upstream_id.as_deref() != Some(upstream_id));
            if let (Some(before), Some((milestone, place))) = (before, of) {
                out.push(Withdrawn {
                    key: record.key.clone(),
                    milestone,
                    place,
                    before: Box::new(before),
                    gone: record.reports.is_empty(),
                });
            }
        }
        self.0.retain(|r| !r.reports.is_empty());
        out
    }

    /// The record with this key.
    pub fn get(&self, key: &str) -> Option<&Record> {
        self.0.iter().find(|r| r.key == key)
    }

    /// The decided facts of every record of milestone `m` at `place`.
    pub fn decided_of(&self, m: Milestone, place: Place) -> impl Iterator<Item = Decided> + '_ {
        self.0
            .iter()
            .filter_map(Record::decided)
            .filter(move |d| d.fact.milestone == m && d.fact.place == place)
    }

    /// The latest occurrence of milestone `m` at `place` (the greatest decided time).
    pub fn latest(&self, m: Milestone, place: Place) -> Option<Decided> {
        self.decided_of(m, place).max_by_key(|d| d.fact.at_us)
    }

    /// The latest decided time at `place` of vessel move `m`, made by a vessel or by a
    /// feeder (see [`Milestone::as_vessel_move`]).
    pub fn latest_move(&self, m: Milestone, place: Place) -> Option<i64> {
        Milestone::ALL
            .into_iter()
            .filter(|x| x.as_vessel_move() == m)
            .filter_map(|x| self.latest(x, place).and_then(|d| d.fact.at_us))
            .max()
    }

    /// Whether milestone `m` has happened at `place`.
    pub fn happened(&self, m: Milestone, place: Place) -> bool {
        self.0.iter().any(|r| {
            r.reports
                .first()
                .is_some_and(|x| x.fact.milestone == m && x.fact.place == place)
        })
    }
}

/// How long after a journey ended (every container of its shipment back empty) its
/// containers still take reports of what happened before the end: 7 days, on the wall clock.
/// A terminal's CODECO may end a journey to the minute before the carrier's DCSA event of the
/// same empty return, to the second, comes in; a railroad's 322s of the rail leg may come after
/// the carrier's report of the empty return.
pub const REFINE_AFTER_END_US: i64 = 7 * 24 * 3_600 * 1_000_000;

/// What a container whose journey has ended still takes from `batch`: reports of actual
/// milestones that happened before it ended — a later, finer or more trusted word on one it
/// has (found as [`Book::find`] finds it), or one it missed. Never a milestone after its end (a
/// next journey of the box), an estimate, or terminal state (availability, holds, fees, LFDs):
/// an ended journey gets no new story, only a truer one.
pub fn refinements(
    c: &super::ContainerState,
    batch: &[super::Observation],
) -> Vec<super::Observation> {
    let ended_at = c
        .milestones
        .0
        .iter()
        .filter_map(Record::decided)
        .filter(|d| d.fact.milestone == Milestone::EmptyIn)
        .filter_map(|d| d.fact.at_us)
        .max();
    batch
        .iter()
        .filter(|o| match &o.fact {
            super::Fact::Event(f) if !f.estimated => {
                c.milestones.find(f, o.precision).is_some()
                    || matches!((f.at_us, ended_at), (Some(at), Some(end)) if at <= end)
            }
            _ => false,
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1_000_000;
    const H: i64 = 3_600 * S;

    fn fact(m: Milestone, at: i64, voyage: Option<&str>) -> EventFact {
        EventFact {
            milestone: m,
            estimated: false,
            at_us: Some(at),
            place: Place::Origin,
            locode: Some("TWKHH".into()),
            timezone: None,
            terminal: None,
            vessel_name: Some("APL TEMASEK".into()),
            vessel_imo: None,
            voyage: voyage.map(str::to_string),
        }
    }

    fn report(source: DataSource, precision: Precision, observed: i64, f: EventFact) -> Report {
        Report {
            source,
            precision,
            observed_us: observed,
            fact: f,
            upstream_id: None,
        }
    }

    #[test]
    fn dcsa_and_x12_of_one_departure_are_one_event_at_the_finer_time() {
        let mut b = Book::default();
        let dcsa = report(
            DataSource::ShippingLine,
            Precision::Second,
            10,
            fact(Milestone::VesselDeparted, 1_000 * H + 33 * S, Some("175E")),
        );
        let x12 = report(
            DataSource::ShippingLine,
            Precision::Minute,
            20,
            fact(Milestone::VesselDeparted, 1_000 * H, Some("175E")),
        );
        assert_eq!(b.add_actual(x12), Added::New(0));
        assert!(matches!(b.add_actual(dcsa), Added::Revised(0, _)));
        assert_eq!(b.0.len(), 1);
        let d = b.0[0].decided().unwrap();
        assert_eq!(d.fact.at_us, Some(1_000 * H + 33 * S));
        assert_eq!(d.precision, Precision::Second);
    }

    #[test]
    fn an_ended_journey_takes_what_happened_before_its_end_and_nothing_else() {
        use super::super::{ContainerState, Fact, Observation};
        let mut empty_in = fact(Milestone::EmptyIn, 1_000 * H, None);
        empty_in.place = Place::Pod;
        let mut c = ContainerState::default();
        // the terminal's CODECO, to the minute, ended the journey
        c.milestones.add_actual(report(
            DataSource::Terminal,
            Precision::Minute,
            5,
            empty_in.clone(),
        ));
        let said = |f: Fact, precision: Precision| Observation {
            observed_us: 9,
            source: DataSource::ShippingLine,
            fact: f,
            precision,
            upstream_id: None,
        };
        let finer = EventFact {
            at_us: Some(1_000 * H + 33 * S),
            ..empty_in.clone()
        };
        let estimate = EventFact {
            estimated: true,
            ..finer.clone()
        };
        // a move it missed, before the end, and the box's next journey, after it
        let missed = fact(Milestone::FullOut, 990 * H, None);
        let next = fact(Milestone::EmptyOut, 1_010 * H, None);
        let batch = [
            said(Fact::Event(finer.clone()), Precision::Second),
            said(Fact::Event(estimate), Precision::Second),
            said(Fact::Event(missed.clone()), Precision::Second),
            said(Fact::Event(next), Precision::Second),
            said(
                Fact::Availability {
                    available: true,
                    at_us: None,
                },
                Precision::Second,
            ),
        ];
        let taken = refinements(&c, &batch);
        assert_eq!(
            taken,
            vec![
                said(Fact::Event(finer), Precision::Second),
                said(Fact::Event(missed), Precision::Second)
            ]
        );
    }

    #[test]
    fn a_second_loading_on_another_voyage_is_another_event() {
        let mut b = Book::default();
        b.add_actual(report(
            DataSource::ShippingLine,
            Precision::Second,
            1,
            fact(Milestone::VesselLoaded, 1_000 * H, Some("175E")),
        ));
        let again = b.add_actual(report(
            DataSource::ShippingLine,
            Precision::Second,
            2,
            fact(Milestone::VesselLoaded, 1_010 * H, Some("180E")),
        ));
        assert_eq!(again, Added::New(1));
        // days later with nothing to tell it apart: another call too
        let later = b.add_actual(report(
            DataSource::Terminal,
            Precision::Second,
            3,
            fact(Milestone::VesselLoaded, 1_200 * H, None),
        ));
        assert_eq!(later, Added::New(2));
    }

    #[test]
    fn a_disagreeing_report_is_decided_by_precedence_not_arrival() {
        // the terminal's discharge time beats the line's, whichever came last
        let line = report(
            DataSource::ShippingLine,
            Precision::Second,
            50,
            fact(Milestone::VesselDischarged, 1_000 * H, None),
        );
        let terminal = report(
            DataSource::Terminal,
            Precision::Second,
            40,
            fact(Milestone::VesselDischarged, 1_003 * H, None),
        );
        for order in [[&line, &terminal], [&terminal, &line]] {
            let mut b = Book::default();
            for r in order {
                b.add_actual(r.clone());
            }
            assert_eq!(b.0.len(), 1);
            let d = b.0[0].decided().unwrap();
            assert_eq!(d.source, DataSource::Terminal);
            assert_eq!(d.fact.at_us, Some(1_003 * H));
        }
    }
}
