//! Whose word decides a milestone: the precision of a report and the written precedence of
//! sources. `docs/precedence.md` is this module in prose.
//!
//! Several sources report the same physical event (the carrier over DCSA and over X12, the
//! terminal, the rail carrier). For one milestone the reports are decided in two steps, each a
//! pure function of the set of reports, so the order in which they arrive never matters:
//!
//! 1. **Whose word.** The report of the source first in [`order`] for that milestone wins; of
//!    two reports of that source the later one (`observed_us`) wins, since a source corrects
//!    itself; then the finer precision; then the earlier time.
//! 2. **How precisely.** Any report that *agrees* with the winner (its time lies within the
//!    coarser precision of the two, see [`agree`]) and states the time more finely refines it:
//!    the carrier's X12 `0824` and its DCSA `08:24:33` are one departure at `08:24:33`.

use serde::{Deserialize, Serialize};

use super::{DataSource, Milestone};

const SECOND: i64 = 1_000_000;

/// How finely a source states a time.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    /// To the second (DCSA, the terminal feed, the sandbox).
    #[default]
    Second,
    /// To the minute (X12 `HHMM`, EDIFACT `203` dates).
    Minute,
    /// To the hour.
    Hour,
    /// A date only (X12 without a time, a terminal's last free day).
    Day,
}

impl Precision {
    /// The length of one unit, in microseconds.
    pub fn micros(self) -> i64 {
        match self {
            Precision::Second => SECOND,
            Precision::Minute => 60 * SECOND,
            Precision::Hour => 3_600 * SECOND,
            Precision::Day => 86_400 * SECOND,
        }
    }

    /// The wire name (`second`, `minute`, `hour`, `day`).
    pub fn name(self) -> &'static str {
        match self {
            Precision::Second => "second",
            Precision::Minute => "minute",
            Precision::Hour => "hour",
            Precision::Day => "day",
        }
    }

    /// Whether this is the default precision (left out of stored observations).
    pub fn is_second(&self) -> bool {
        *self == Precision::Second
    }

    /// The precision of a time of day written `HH`, `HHMM` or `HHMMSS` (none: a date only).
    pub fn of_clock(time: Option<&str>) -> Precision {
        match time.map(|t| t.trim().len()) {
            None | Some(0) => Precision::Day,
            Some(1..=2) => Precision::Hour,
            Some(3..=4) => Precision::Minute,
            Some(_) => Precision::Second,
        }
    }
}

/// Whether two reported times of one milestone agree: they differ by less than the coarser
/// of the two precisions (a time to the minute covers the sixty seconds after it, and a
/// finer time is truncated, not rounded, by the sources that send minutes).
pub fn agree(a_us: i64, a: Precision, b_us: i64, b: Precision) -> bool {
    a_us.abs_diff(b_us) < a.max(b).micros().unsigned_abs()
}

/// The kinds of milestone that share one order of sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decides {
    /// A vessel's call: arrival, berthing, departure (at any port).
    VesselCall,
    /// A lift on or off a vessel: loaded, discharged (at any port).
    VesselLift,
    /// A move through a terminal's gate or yard: empty out, full in, full out, empty in,
    /// available, not available.
    Gate,
    /// A rail move: loaded, departed, arrived, unloaded.
    Rail,
    /// The arrival at the inland destination and the delivery.
    Inland,
}

impl Decides {
    /// Every kind, in the order of the table.
    pub const ALL: [Decides; 5] = [
        Decides::VesselCall,
        Decides::VesselLift,
        Decides::Gate,
        Decides::Rail,
        Decides::Inland,
    ];

    /// The kind of a milestone.
    pub fn of(m: Milestone) -> Decides {
        use Milestone::*;
        match m {
            VesselArrived
            | VesselBerthed
            | VesselDeparted
            | TransshipmentArrived
            | TransshipmentDeparted
            | FeederArrived
            | FeederDeparted => Decides::VesselCall,
            VesselLoaded
            | VesselDischarged
            | TransshipmentDischarged
            | TransshipmentLoaded
            | FeederDischarged
            | FeederLoaded => Decides::VesselLift,
            EmptyOut | FullIn | FullOut | EmptyIn | Available | NotAvailable => Decides::Gate,
            RailLoaded | RailDeparted | RailArrived | RailUnloaded => Decides::Rail,
            ArrivedAtInlandDestination | Delivered => Decides::Inland,
        }
    }

    /// The sources in the order their word decides, first first. A person's entry comes
    /// first everywhere (it wins until a person clears it); the sandbox plays one source at a
    /// time and comes next.
    pub fn order(self) -> [DataSource; 6] {
        use DataSource::*;
        match self {
            // the line runs the vessel and publishes its schedule; a terminal sees the call;
            // AIS positions only infer it
            Decides::VesselCall => [UserInput, Sandbox, ShippingLine, Terminal, Ais, Rail],
            // the terminal's crane makes the lift and records it first-hand
            Decides::VesselLift => [UserInput, Sandbox, Terminal, ShippingLine, Ais, Rail],
            // the gate is the terminal's (at a ramp, the ramp's operator reports as rail)
            Decides::Gate => [UserInput, Sandbox, Terminal, Rail, ShippingLine, Ais],
            Decides::Rail => [UserInput, Sandbox, Rail, Terminal, ShippingLine, Ais],
            // the line's through bill of lading ends there; the railroad fills it when the
            // line says nothing (`destination_ata_at` too)
            Decides::Inland => [UserInput, Sandbox, ShippingLine, Rail, Terminal, Ais],
        }
    }
}

/// The sources in the order their word decides milestone `m`.
pub fn order(m: Milestone) -> [DataSource; 6] {
    Decides::of(m).order()
}

/// The place of `source` in [`order`] for `m`: 0 decides first.
pub fn rank(m: Milestone, source: DataSource) -> usize {
    order(m)
        .iter()
        .position(|s| *s == source)
        .unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_has_a_place_for_every_milestone() {
        for m in Milestone::ALL {
            for s in [
                DataSource::ShippingLine,
                DataSource::Terminal,
                DataSource::Rail,
                DataSource::Ais,
                DataSource::Sandbox,
                DataSource::UserInput,
            ] {
                assert!(rank(m, s) < 6, "{m:?} {s:?}");
            }
        }
    }

    #[test]
    fn times_agree_within_the_coarser_precision() {
        let m = 60 * SECOND;
        assert!(agree(0, Precision::Minute, 33 * SECOND, Precision::Second));
        assert!(!agree(0, Precision::Minute, m, Precision::Second));
        assert!(!agree(0, Precision::Second, 2 * SECOND, Precision::Second));
        assert!(agree(0, Precision::Day, 23 * 60 * m, Precision::Minute));
        assert_eq!(Precision::of_clock(Some("0824")), Precision::Minute);
        assert_eq!(Precision::of_clock(Some("082433")), Precision::Second);
        assert_eq!(Precision::of_clock(None), Precision::Day);
    }
}
