//! The merge's working records, stored apart from the state a resource is shown from: a
//! container's [`MergeRecords`] and a shipment's [`VoyageRecords`].

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::{Book, ContainerState, ShipmentState, provenance, versions};

/// The merge's working records of a container: the milestone and estimate records with the
/// reports behind them, the provenance of each attribute, the ids of withdrawn reports and the
/// event keys of states from before records were kept. Four fifths of a container's state by
/// size and never shown by its resource, they are stored apart from the rest
/// ([`ContainerState::take_records`]) so that reading a container to show it does not decode
/// them; the merge and `field_sources` put them back ([`ContainerState::put_records`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct MergeRecords {
    /// [`ContainerState::seen_events`].
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub seen_events: BTreeSet<String>,
    /// [`ContainerState::milestones`].
    #[serde(skip_serializing_if = "Book::is_empty")]
    pub milestones: Book,
    /// [`ContainerState::estimates`].
    #[serde(skip_serializing_if = "Book::is_empty")]
    pub estimates: Book,
    /// [`ContainerState::provenance`].
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    #[serde(deserialize_with = "versions::lenient")]
    pub provenance: BTreeMap<versions::VersionKey, provenance::Provenance>,
    /// [`ContainerState::withdrawn`].
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub withdrawn: BTreeSet<String>,
}

impl ContainerState {
    /// Moves the merge's records out, leaving the state its resource is shown from.
    pub fn take_records(&mut self) -> MergeRecords {
        MergeRecords {
            seen_events: std::mem::take(&mut self.seen_events),
            milestones: std::mem::take(&mut self.milestones),
            estimates: std::mem::take(&mut self.estimates),
            provenance: std::mem::take(&mut self.provenance),
            withdrawn: std::mem::take(&mut self.withdrawn),
        }
    }

    /// Puts the merge's records back (read apart from the rest of the state).
    pub fn put_records(&mut self, r: MergeRecords) {
        let MergeRecords {
            seen_events,
            milestones,
            estimates,
            provenance,
            withdrawn,
        } = r;
        self.seen_events = seen_events;
        self.milestones = milestones;
        self.estimates = estimates;
        self.provenance = provenance;
        self.withdrawn = withdrawn;
    }
}

/// The merge's working records of a shipment: its voyage's milestone and estimate records
/// with the reports behind them, stored apart from the rest of its state as a container's
/// are ([`MergeRecords`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct VoyageRecords {
    /// [`ShipmentState::milestones`].
    #[serde(skip_serializing_if = "Book::is_empty")]
    pub milestones: Book,
    /// [`ShipmentState::estimates`].
    #[serde(skip_serializing_if = "Book::is_empty")]
    pub estimates: Book,
}

impl ShipmentState {
    /// Moves the merge's records out, leaving the state its resource is shown from.
    pub fn take_records(&mut self) -> VoyageRecords {
        VoyageRecords {
            milestones: std::mem::take(&mut self.milestones),
            estimates: std::mem::take(&mut self.estimates),
        }
    }

    /// Puts the merge's records back (read apart from the rest of the state).
    pub fn put_records(&mut self, r: VoyageRecords) {
        self.milestones = r.milestones;
        self.estimates = r.estimates;
    }
}
