//! An event the carrier withdrew (DCSA 3.0 `isRetracted`), and the observation that withdraws
//! what boxtrack applied from it.

use boxtrack_core::tracking::{DataSource, Fact, Observation};
use serde::Serialize;

/// An event the carrier withdrew: what boxtrack applied from it earlier goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Retraction {
    /// The withdrawn event's `eventID`.
    pub event_id: String,
    /// The container it was about, when the retraction says (normalized).
    pub equipment_reference: Option<String>,
    /// The bills and bookings it names, when it says.
    pub document_references: Vec<String>,
    /// When the carrier withdrew it (`eventUpdatedDateTime`), if it says.
    pub observed_us: Option<i64>,
}

impl Retraction {
    /// Whether it may concern container `number` of a subject whose answer it came in: it
    /// names that container, or none.
    pub fn about(&self, number: &str) -> bool {
        self.equipment_reference
            .as_deref()
            .is_none_or(|c| c == number)
    }

    /// Whether it may concern container `number` tracked through `references` (a retraction
    /// that names neither a container nor a document may concern any container holding a
    /// report of the event).
    pub fn concerns(&self, number: &str, references: &[&str]) -> bool {
        match &self.equipment_reference {
            Some(c) => c == number,
            None => {
                self.document_references.is_empty()
                    || self
                        .document_references
                        .iter()
                        .any(|d| references.contains(&d.as_str()))
            }
        }
    }

    /// The observation that withdraws the event's reports.
    pub fn observation(&self) -> Observation {
        Observation {
            observed_us: self.observed_us.unwrap_or(0),
            source: DataSource::ShippingLine,
            fact: Fact::Retracted {
                upstream_id: self.event_id.clone(),
            },
            precision: Default::default(),
            upstream_id: Some(self.event_id.clone()),
        }
    }
}
