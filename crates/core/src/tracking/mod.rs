//! The tracking model: observations from sources, container and shipment state, the merge
//! that is the only thing allowed to change that state, and the business rules on it.
//!
//! Every source (carrier APIs, EDI, terminal feeds, AIS, the sandbox) turns what it read into
//! [`Observation`]s. [`merge::merge`] applies a batch to the current state and returns the new
//! state and the [`Change`]s it caused; it is pure and deterministic, so applying the same batch
//! twice changes nothing the second time and the order of observations inside a batch does not
//! matter.

pub mod assess;
pub mod entries;
pub mod merge;
pub mod milestones;
pub mod precedence;
pub mod provenance;
pub mod raw;
mod records;
pub mod release;
pub mod rules;
pub mod times;
pub mod versions;
mod withdraw;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

pub use milestones::Book;
pub use precedence::Precision;
pub use raw::{RawView, raw_view};
pub use records::{MergeRecords, VoyageRecords};

/// Who reported an observation (the `data_source` of transport events).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DataSource {
    /// The ocean carrier.
    ShippingLine,
    /// A port or inland terminal.
    Terminal,
    /// A rail carrier.
    Rail,
    /// Vessel position reports.
    Ais,
    /// The built-in sandbox.
    Sandbox,
    /// A person of the account (`docs/precedence.md`, "What a person enters").
    UserInput,
}

/// A container milestone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Milestone {
    /// Empty picked up at origin.
    EmptyOut,
    /// Gated in full at the port of lading.
    FullIn,
    /// Loaded on the vessel at the port of lading.
    VesselLoaded,
    /// Vessel departed the port of lading.
    VesselDeparted,
    /// Arrived at a transshipment port.
    TransshipmentArrived,
    /// Discharged at a transshipment port.
    TransshipmentDischarged,
    /// Loaded at a transshipment port.
    TransshipmentLoaded,
    /// Departed a transshipment port.
    TransshipmentDeparted,
    /// Feeder or barge arrived.
    FeederArrived,
    /// Discharged from a feeder or barge.
    FeederDischarged,
    /// Loaded on a feeder or barge.
    FeederLoaded,
    /// Feeder or barge departed.
    FeederDeparted,
    /// Vessel arrived at the port of discharge.
    VesselArrived,
    /// Vessel berthed at the port of discharge.
    VesselBerthed,
    /// Discharged at the port of discharge.
    VesselDischarged,
    /// Available for pickup.
    Available,
    /// No longer available for pickup.
    NotAvailable,
    /// Gated out full.
    FullOut,
    /// Marked delivered.
    Delivered,
    /// Empty returned.
    EmptyIn,
    /// Loaded on a railcar.
    RailLoaded,
    /// Departed on a railcar.
    RailDeparted,
    /// Arrived at a rail terminal.
    RailArrived,
    /// Unloaded from a railcar.
    RailUnloaded,
    /// Arrived at the inland destination.
    ArrivedAtInlandDestination,
}

impl Milestone {
    /// Every milestone.
    pub const ALL: [Milestone; 25] = [
        Milestone::EmptyOut,
        Milestone::FullIn,
        Milestone::VesselLoaded,
        Milestone::VesselDeparted,
        Milestone::TransshipmentArrived,
        Milestone::TransshipmentDischarged,
        Milestone::TransshipmentLoaded,
        Milestone::TransshipmentDeparted,
        Milestone::FeederArrived,
        Milestone::FeederDischarged,
        Milestone::FeederLoaded,
        Milestone::FeederDeparted,
        Milestone::VesselArrived,
        Milestone::VesselBerthed,
        Milestone::VesselDischarged,
        Milestone::Available,
        Milestone::NotAvailable,
        Milestone::FullOut,
        Milestone::Delivered,
        Milestone::EmptyIn,
        Milestone::RailLoaded,
        Milestone::RailDeparted,
        Milestone::RailArrived,
        Milestone::RailUnloaded,
        Milestone::ArrivedAtInlandDestination,
    ];

    /// The snake-case name, e.g. `vessel_discharged`.
    pub fn name(self) -> &'static str {
        match self {
            Milestone::EmptyOut => "empty_out",
            Milestone::FullIn => "full_in",
            Milestone::VesselLoaded => "vessel_loaded",
            Milestone::VesselDeparted => "vessel_departed",
            Milestone::TransshipmentArrived => "transshipment_arrived",
            Milestone::TransshipmentDischarged => "transshipment_discharged",
            Milestone::TransshipmentLoaded => "transshipment_loaded",
            Milestone::TransshipmentDeparted => "transshipment_departed",
            Milestone::FeederArrived => "feeder_arrived",
            Milestone::FeederDischarged => "feeder_discharged",
            Milestone::FeederLoaded => "feeder_loaded",
            Milestone::FeederDeparted => "feeder_departed",
            Milestone::VesselArrived => "vessel_arrived",
            Milestone::VesselBerthed => "vessel_berthed",
            Milestone::VesselDischarged => "vessel_discharged",
            Milestone::Available => "available",
            Milestone::NotAvailable => "not_available",
            Milestone::FullOut => "full_out",
            Milestone::Delivered => "delivered",
            Milestone::EmptyIn => "empty_in",
            Milestone::RailLoaded => "rail_loaded",
            Milestone::RailDeparted => "rail_departed",
            Milestone::RailArrived => "rail_arrived",
            Milestone::RailUnloaded => "rail_unloaded",
            Milestone::ArrivedAtInlandDestination => "arrived_at_inland_destination",
        }
    }

    /// The vessel move that a feeder or barge move is (`feeder_loaded` is `vessel_loaded`):
    /// a box on a feeder is on a vessel, so a feeder leg from the port of lading sets
    /// `pol_vessel_loaded_at` and `pol_vessel_departed_at`, and one into the port of discharge
    /// `pod_arrived_at` and `pod_discharged_at`. Other milestones are unchanged.
    pub fn as_vessel_move(self) -> Milestone {
        match self {
            Milestone::FeederArrived => Milestone::VesselArrived,
            Milestone::FeederDischarged => Milestone::VesselDischarged,
            Milestone::FeederLoaded => Milestone::VesselLoaded,
            Milestone::FeederDeparted => Milestone::VesselDeparted,
            other => other,
        }
    }

    /// Whether the milestone is a vessel's (or feeder's) move with the box: loaded,
    /// departed, arrived, berthed or discharged, at any port.
    pub fn is_vessel_move(self) -> bool {
        matches!(
            self.as_vessel_move(),
            Milestone::VesselLoaded
                | Milestone::VesselDeparted
                | Milestone::VesselArrived
                | Milestone::VesselBerthed
                | Milestone::VesselDischarged
                | Milestone::TransshipmentArrived
                | Milestone::TransshipmentDischarged
                | Milestone::TransshipmentLoaded
                | Milestone::TransshipmentDeparted
        )
    }

    /// The milestone as it is called at a transshipment port (vessel moves there are
    /// `transshipment_*`); other milestones are unchanged.
    pub fn at_transshipment(self) -> Milestone {
        match self {
            Milestone::VesselArrived => Milestone::TransshipmentArrived,
            Milestone::VesselDischarged => Milestone::TransshipmentDischarged,
            Milestone::VesselLoaded => Milestone::TransshipmentLoaded,
            Milestone::VesselDeparted => Milestone::TransshipmentDeparted,
            other => other,
        }
    }

    /// Whether an estimate of this milestone is an event of its own
    /// (`container.transport.estimated.*`).
    pub fn has_estimate_event(self) -> bool {
        matches!(
            self,
            Milestone::VesselDeparted
                | Milestone::VesselArrived
                | Milestone::ArrivedAtInlandDestination
        )
    }

    /// The transport event name, e.g. `container.transport.vessel_arrived` or
    /// `container.transport.estimated.vessel_arrived`.
    pub fn event_name(self, estimated: bool) -> String {
        if estimated {
            format!("container.transport.estimated.{}", self.name())
        } else {
            format!("container.transport.{}", self.name())
        }
    }
}

/// Where on the journey an event happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// Port of lading (and the origin empty depot).
    Origin,
    /// A transshipment port.
    Transshipment,
    /// Port of discharge.
    Pod,
    /// Inland (rail ramps, the inland destination).
    Inland,
}

/// A terminal hold.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Hold {
    /// `freight`, `customs`, `USDA`, `VACIS`, `TMF` or `other`.
    pub name: String,
    /// `hold` (active) or `pending`.
    pub status: String,
    /// Raw terminal text.
    pub description: Option<String>,
}

/// A terminal fee, with the amount in minor units (cents) so sums are exact.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Fee {
    /// `demurrage`, `extended_dwell_time`, `exam`, `total` or `other`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Amount in minor units of the currency.
    pub amount_minor: i64,
    /// ISO 4217 code.
    pub currency_code: String,
}

/// Which last-free-day source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LfdKind {
    /// The shipping line's LFD.
    Line,
    /// The POD terminal's LFD.
    Terminal,
    /// The rail carrier's LFD at the inland ramp.
    Rail,
    /// The one a person entered (a last free day the line told them by phone): it wins over
    /// every source's until a person clears it.
    User,
}

/// Equipment details.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Equipment {
    /// `dry`, `reefer`, `open top`, `flat rack`, `bulk`, `tank`.
    pub equipment_type: Option<String>,
    /// 10, 20, 40 or 45.
    pub equipment_length: Option<i64>,
    /// `standard` or `high_cube`.
    pub equipment_height: Option<String>,
    /// Gross weight in pounds.
    pub weight_in_lbs: Option<i64>,
    /// Seal number.
    pub seal_number: Option<String>,
}

/// A milestone report (actual, or an estimate).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct EventFact {
    /// What happened.
    pub milestone: Milestone,
    /// Whether this is an estimate.
    pub estimated: bool,
    /// When, Unix microseconds UTC (local time as UTC when `timezone` is unknown).
    pub at_us: Option<i64>,
    /// Where on the journey.
    pub place: Place,
    /// UN/LOCODE of the place.
    pub locode: Option<String>,
    /// IANA zone of the place.
    pub timezone: Option<String>,
    /// Terminal (FIRMS or SMDG code).
    pub terminal: Option<String>,
    /// Vessel name.
    pub vessel_name: Option<String>,
    /// Vessel IMO number.
    pub vessel_imo: Option<String>,
    /// Voyage number.
    pub voyage: Option<String>,
}

/// One fact a source reported.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fact {
    /// A milestone.
    Event(EventFact),
    /// Terminal availability.
    Availability {
        /// Released for pickup.
        available: bool,
        /// When the terminal released it (or withdrew the release), if it says; the
        /// `container.transport.available` event is stamped with it rather than with the
        /// time of the report.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at_us: Option<i64>,
    },
    /// The complete current hold list (cleared holds are absent).
    Holds {
        /// Holds.
        holds: Vec<Hold>,
    },
    /// The complete current fee list.
    Fees {
        /// Fees.
        fees: Vec<Fee>,
    },
    /// A last free day.
    Lfd {
        /// Whose.
        which: LfdKind,
        /// The deadline, or none.
        at_us: Option<i64>,
    },
    /// Pickup appointment.
    Appointment {
        /// When, or none.
        at_us: Option<i64>,
    },
    /// Yard location text.
    YardLocation {
        /// Location, or none.
        location: Option<String>,
    },
    /// The POD terminal (FIRMS / SMDG code).
    PodTerminal {
        /// Code.
        code: Option<String>,
    },
    /// Equipment details.
    Equipment(Equipment),
    /// Rail carriers of the two rail legs.
    RailCarriers {
        /// From the POD.
        pod: Option<String>,
        /// To the inland destination.
        ind: Option<String>,
    },
    /// Chassis at full-out.
    Chassis {
        /// Chassis number.
        number: Option<String>,
    },
    /// A source's word on a release gate: customs, the line or the terminal released or held
    /// the box, or it waits (`docs/precedence.md`, "Release gates").
    Release {
        /// Which gate.
        gate: release::Gate,
        /// What the source says of it.
        status: release::GateStatus,
        /// The source's own wording (its code's name, a disposition).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wording: Option<String>,
        /// When it happened, where the source says.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at_us: Option<i64>,
    },
    /// The source withdrew an event it reported earlier (a DCSA 3.0 event marked
    /// `isRetracted`): every milestone report with this [`Observation::upstream_id`] goes.
    Retracted {
        /// The source's id of the withdrawn report.
        upstream_id: String,
    },
}

/// What a source said about one container at one moment.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Observation {
    /// When the source produced it (Unix microseconds); a newer observation wins.
    pub observed_us: i64,
    /// Who said it.
    pub source: DataSource,
    /// What was said.
    pub fact: Fact,
    /// How finely its times are stated (left out when to the second, so observations
    /// stored before precision was kept keep their keys).
    #[serde(default, skip_serializing_if = "Precision::is_second")]
    pub precision: Precision,
    /// The source's own id of the report it came from (a DCSA `eventID`), so that the source
    /// can withdraw it later ([`Fact::Retracted`]); left out when it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_id: Option<String>,
}

/// Everything boxtrack knows about a container on one shipment. Stored as JSON; every field
/// has a default so states written by older versions still load.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ContainerState {
    /// Equipment details.
    pub equipment: Equipment,
    /// Named timestamps (`pod_arrived_at`, `pod_discharged_at`, ..., and the latest estimates
    /// of milestones), Unix microseconds.
    #[serde(deserialize_with = "times::lenient")]
    pub times: BTreeMap<times::TimeKey, i64>,
    /// Whether the terminal reports availability at all.
    pub availability_known: bool,
    /// Released for pickup (meaningful when `availability_known`).
    pub available_for_pickup: Option<bool>,
    /// The earliest time a source said the box was available for pickup (the charge rule's
    /// `available` start), kept when it later becomes unavailable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_available_us: Option<i64>,
    /// Current holds: every hold some source's latest list still names
    /// ([`release::union_of`]).
    pub holds: Vec<Hold>,
    /// Each source's latest hold list (empty in states written before they were kept: their
    /// one list is `holds`, see [`release::hold_lists`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hold_lists: Vec<release::HoldList>,
    /// Each source's latest word on each release gate.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub release_reports: Vec<release::GateReport>,
    /// Each hold in force as the reports followed it: from the first report naming it active
    /// to the first report without it (the charge rule's excused days read them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hold_spans: Vec<crate::charges::HoldSpan>,
    /// Current fees.
    pub fees: Vec<Fee>,
    /// Last free days by source.
    pub lfd: BTreeMap<LfdKind, i64>,
    /// Pickup appointment, as the sources report it.
    pub pickup_appointment_us: Option<i64>,
    /// The pickup appointment a person entered: it wins over the sources' until a person
    /// clears it ([`rules::appointment`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entered_appointment_us: Option<i64>,
    /// Yard location text.
    pub location_at_pod_terminal: Option<String>,
    /// Chassis at full-out.
    pub pod_full_out_chassis_number: Option<String>,
    /// POD terminal code.
    pub pod_terminal: Option<String>,
    /// Rail carrier from the POD.
    pub pod_rail_carrier_scac: Option<String>,
    /// Rail carrier to the inland destination.
    pub ind_rail_carrier_scac: Option<String>,
    /// When each attribute was last written (observed_us), so older reports never win.
    #[serde(deserialize_with = "versions::lenient")]
    pub versions: BTreeMap<versions::VersionKey, i64>,
    /// Keys of the actual transport events recorded before [`ContainerState::milestones`]
    /// was kept (read, never written).
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub seen_events: BTreeSet<String>,
    /// The physical events, one record each, with the reports behind them.
    #[serde(skip_serializing_if = "Book::is_empty")]
    pub milestones: Book,
    /// The current estimate of each milestone, with the reports behind it.
    #[serde(skip_serializing_if = "Book::is_empty")]
    pub estimates: Book,
    /// The report that last wrote each attribute, by the key of [`ContainerState::versions`]
    /// (milestone times have theirs in [`ContainerState::milestones`]).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    #[serde(deserialize_with = "versions::lenient")]
    pub provenance: BTreeMap<versions::VersionKey, provenance::Provenance>,
    /// The source ids of reports their sources withdrew: a copy of one that comes later (a
    /// redelivery, a body read out of order) is not applied.
    #[serde(skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    pub withdrawn: std::collections::BTreeSet<String>,
}

/// Shipment-level state fed by the same observations (carrier view of the voyage).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ShipmentState {
    /// Estimated departure at the port of lading.
    pub pol_etd_us: Option<i64>,
    /// Actual departure at the port of lading.
    pub pol_atd_us: Option<i64>,
    /// Current ETA at the port of discharge.
    pub pod_eta_us: Option<i64>,
    /// The first ETA ever reported (the earliest-observed estimate).
    pub pod_original_eta_us: Option<i64>,
    /// The first ETD ever reported at the port of lading.
    pub pol_original_etd_us: Option<i64>,
    /// The first ETA ever reported at the inland destination by the shipping line.
    pub destination_original_eta_us: Option<i64>,
    /// Actual arrival at the port of discharge.
    pub pod_ata_us: Option<i64>,
    /// Carrier ETA at the inland destination.
    pub destination_eta_us: Option<i64>,
    /// Carrier ATA at the inland destination.
    pub destination_ata_us: Option<i64>,
    /// Vessel at the POD.
    pub pod_vessel_name: Option<String>,
    /// Its IMO number.
    pub pod_vessel_imo: Option<String>,
    /// Its voyage.
    pub pod_voyage_number: Option<String>,
    /// When each attribute was last written.
    #[serde(deserialize_with = "versions::lenient")]
    pub versions: BTreeMap<versions::VersionKey, i64>,
    /// The voyage's milestones (departure, arrivals), one record per physical event.
    #[serde(skip_serializing_if = "Book::is_empty")]
    pub milestones: Book,
    /// The voyage's estimates (ETD, ETA at the POD and inland), with the reports behind them.
    #[serde(skip_serializing_if = "Book::is_empty")]
    pub estimates: Book,
}

/// A transport event to record (and to notify).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransportEvent {
    /// Event name, e.g. `container.transport.vessel_discharged`.
    pub event: String,
    /// When (for estimates: the estimate; for LFD events: the new value).
    pub at_us: Option<i64>,
    /// UN/LOCODE.
    pub locode: Option<String>,
    /// IANA zone.
    pub timezone: Option<String>,
    /// Terminal code.
    pub terminal: Option<String>,
    /// Vessel name.
    pub vessel_name: Option<String>,
    /// Vessel IMO.
    pub vessel_imo: Option<String>,
    /// Voyage.
    pub voyage: Option<String>,
    /// Who reported it.
    pub source: DataSource,
    /// The identity of the milestone record it shows (none for LFD, appointment and
    /// availability changes); a revision of the record updates the event with this key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

impl TransportEvent {
    /// Whether the event is an estimate (`container.transport.estimated.*`).
    pub fn is_estimate(&self) -> bool {
        self.event.starts_with("container.transport.estimated.")
    }

    /// The event name whose earlier entries this event supersedes on the same container:
    /// a new estimate supersedes the earlier estimates of its milestone, and a milestone
    /// that happened supersedes every estimate of it. They leave the timeline; the event
    /// log keeps them.
    pub fn supersedes(&self) -> Option<String> {
        if self.is_estimate() {
            return Some(self.event.clone());
        }
        let name = self.event.strip_prefix("container.transport.")?;
        Milestone::ALL
            .iter()
            .find(|m| m.name() == name && m.has_estimate_event())
            .map(|m| m.event_name(true))
    }
}

/// Whether a transport event names something that happened: an actual milestone, not an
/// estimate and not a change of a date (`container.pickup_lfd.changed`, the appointment),
/// whose time is the new date rather than when it changed. "The latest event" anywhere is
/// the latest of these.
pub fn happened(event: &str) -> bool {
    event.starts_with("container.transport.")
        && !event.starts_with("container.transport.estimated.")
}

/// What a merge changed; each becomes an event-log entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum Change {
    /// A transport event (actual or estimated, including LFD and appointment changes).
    Transport(TransportEvent),
    /// A recorded transport event now shows other details: a finer or more authoritative
    /// report of the same milestone. The event is updated in place; no event of its own
    /// (a time that moved by more than its precision is also in the merge's
    /// `container.updated` changeset).
    TransportRevised(TransportEvent),
    /// Terminal-facing attributes changed: `{attribute: [old, new]}`.
    ContainerUpdated {
        /// The changeset.
        changeset: BTreeMap<String, [serde_json::Value; 2]>,
    },
    /// The POD terminal changed from one to another.
    PodTerminalChanged {
        /// Previous terminal.
        old: Option<String>,
        /// New terminal.
        new: Option<String>,
    },
    /// A recorded transport event whose every report its sources withdrew: it leaves every
    /// timeline (kept in the event log, as a superseded estimate is); no event of its own (the
    /// time attribute it set going away is in the merge's `container.updated` changeset).
    TransportWithdrawn {
        /// The event's milestone key.
        key: String,
    },
    /// A release gate's status changed (`container.release.changed`, boxtrack's extension
    /// event).
    ReleaseChanged {
        /// The gate as it was.
        old: Box<release::GateView>,
        /// The gate as it is.
        new: Box<release::GateView>,
    },
    /// The shipment's ETA at the POD changed.
    ShipmentEstimatedArrival {
        /// Previous ETA.
        old_us: Option<i64>,
        /// New ETA.
        new_us: Option<i64>,
    },
}

impl Change {
    /// Whether the change is an event-log entry (and so a webhook): all are but a
    /// [`Change::TransportRevised`], which updates its event in place, and a
    /// [`Change::TransportWithdrawn`], which takes it off the timelines.
    pub fn logged(&self) -> bool {
        !matches!(
            self,
            Change::TransportRevised(_) | Change::TransportWithdrawn { .. }
        )
    }

    /// The event-log / webhook event name of this change.
    pub fn event_name(&self) -> String {
        match self {
            Change::Transport(t) | Change::TransportRevised(t) => t.event.clone(),
            Change::ContainerUpdated { .. } => "container.updated".into(),
            Change::PodTerminalChanged { .. } => "container.pod_terminal_changed".into(),
            Change::ShipmentEstimatedArrival { .. } => "shipment.estimated.arrival".into(),
            Change::TransportWithdrawn { .. } => "container.transport.withdrawn".into(),
            Change::ReleaseChanged { .. } => "container.release.changed".into(),
        }
    }
}

/// Where a shipment goes: the ports (UN/LOCODE, name, IANA zone) and the POD terminal.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Route {
    /// Port of lading UN/LOCODE.
    pub pol_locode: Option<String>,
    /// Port of lading name.
    pub pol_name: Option<String>,
    /// Port of lading zone.
    pub pol_timezone: Option<String>,
    /// Port of discharge UN/LOCODE.
    pub pod_locode: Option<String>,
    /// Port of discharge name.
    pub pod_name: Option<String>,
    /// Port of discharge zone.
    pub pod_timezone: Option<String>,
    /// Inland destination UN/LOCODE (when the shipment continues inland).
    pub destination_locode: Option<String>,
    /// Inland destination name.
    pub destination_name: Option<String>,
    /// Inland destination zone.
    pub destination_timezone: Option<String>,
}

impl Route {
    /// Whether the shipment continues past the POD to an inland destination.
    pub fn inland(&self) -> bool {
        self.destination_locode.is_some() && self.destination_locode != self.pod_locode
    }
}

/// A stable key of what an observation says (the first 8 bytes of the SHA-256 of its JSON
/// form): the same report fetched again has the same key. Compact, so the index that keeps
/// each report once per container stays small; two different reports of one container share
/// a key with a chance of about n²/2⁶⁵ for n reports.
pub fn observation_key(o: &Observation) -> i64 {
    use sha2::Digest;
    let json = serde_json::to_vec(o).unwrap_or_default();
    let digest = sha2::Sha256::digest(&json);
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    i64::from_be_bytes(first)
}

/// The wire name of a source (`data_source`).
pub fn source_name(source: DataSource) -> &'static str {
    match source {
        DataSource::ShippingLine => "shipping_line",
        DataSource::Terminal => "terminal",
        DataSource::Rail => "rail",
        DataSource::Ais => "ais",
        DataSource::Sandbox => "sandbox",
        DataSource::UserInput => "user_input",
    }
}
