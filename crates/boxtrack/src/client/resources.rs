//! The JSON:API answers the client reads, typed for exactly the fields it prints (the API's
//! own resource types in `boxtrack-views` are written, never read, and keep times as
//! microseconds; the client keeps the strings as the server wrote them). A field the server
//! leaves out or sends as null is `None`; an answer of another shape is an error that says
//! what was expected.

use anyhow::Context;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Reads `doc` as a `T`; an answer of another shape is an error naming `what` was expected.
pub(super) fn decode<T: DeserializeOwned>(doc: &Value, what: &str) -> anyhow::Result<T> {
    T::deserialize(doc).with_context(|| format!("the server's answer is not {what}"))
}

/// A document whose `data` is one resource.
#[derive(Debug, Deserialize)]
pub(super) struct One<R> {
    /// The resource.
    pub(super) data: R,
}

/// A document whose `data` is a list of resources, with the resources they include.
#[derive(Debug, Deserialize)]
pub(super) struct List<R> {
    /// The resources.
    pub(super) data: Vec<R>,
    /// What the request asked to include (`include=`), of any type.
    #[serde(default)]
    pub(super) included: Vec<Included>,
}

/// A resource object: its id, attributes and relationships (links and type are not read).
#[derive(Debug, Deserialize)]
pub(super) struct Resource<A, R = NotRead> {
    /// The resource's id.
    #[serde(default)]
    pub(super) id: String,
    /// Its attributes.
    #[serde(default)]
    pub(super) attributes: A,
    /// Its relationships.
    #[serde(default)]
    pub(super) relationships: R,
}

/// A member the client does not read (whatever it holds).
#[derive(Debug, Default, Deserialize)]
pub(super) struct NotRead {}

/// A resource of an `included` list, by its type; types the client does not print are
/// [`Included::Other`].
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum Included {
    /// A `shipment`.
    Shipment(Resource<ShipmentAttributes>),
    /// A `container`.
    Container(Resource<ContainerAttributes>),
    /// A `terminal`.
    Terminal(Resource<TerminalAttributes>),
    /// A `transport_event`.
    TransportEvent(Resource<TransportEventAttributes>),
    /// Any other type.
    #[serde(other)]
    Other,
}

impl<R> List<R> {
    /// The included shipment with this id.
    pub(super) fn shipment(&self, id: Option<&str>) -> Option<&ShipmentAttributes> {
        self.included.iter().find_map(|i| match i {
            Included::Shipment(s) if Some(s.id.as_str()) == id => Some(&s.attributes),
            _ => None,
        })
    }

    /// The included container with this id.
    pub(super) fn container(&self, id: &str) -> Option<&ContainerAttributes> {
        self.included.iter().find_map(|i| match i {
            Included::Container(c) if c.id == id => Some(&c.attributes),
            _ => None,
        })
    }

    /// The included terminal with this id.
    pub(super) fn terminal(&self, id: Option<&str>) -> Option<&TerminalAttributes> {
        self.included.iter().find_map(|i| match i {
            Included::Terminal(t) if Some(t.id.as_str()) == id => Some(&t.attributes),
            _ => None,
        })
    }

    /// The included transport events, in the order of the document.
    pub(super) fn transport_events(&self) -> Vec<&TransportEventAttributes> {
        self.included
            .iter()
            .filter_map(|i| match i {
                Included::TransportEvent(e) => Some(&e.attributes),
                _ => None,
            })
            .collect()
    }
}

/// A resource identifier: `{id, type}`.
#[derive(Debug, Deserialize)]
pub(super) struct Identifier {
    /// The related resource's id.
    pub(super) id: String,
}

/// A to-one relationship: `{data: {id, type}}` or `{data: null}`.
#[derive(Debug, Default, Deserialize)]
pub(super) struct ToOne {
    /// The related resource, if any.
    #[serde(default)]
    pub(super) data: Option<Identifier>,
}

impl ToOne {
    /// The related resource's id, if any.
    pub(super) fn id(&self) -> Option<&str> {
        self.data.as_ref().map(|d| d.id.as_str())
    }
}

/// A to-many relationship: `{data: [{id, type}, …]}`.
#[derive(Debug, Default, Deserialize)]
pub(super) struct ToMany {
    /// The related resources.
    #[serde(default)]
    pub(super) data: Vec<Identifier>,
}

/// A `container` resource as the client reads it.
pub(super) type Container = Resource<ContainerAttributes, ContainerRelationships>;

/// A `shipment` resource as the client reads it.
pub(super) type Shipment = Resource<ShipmentAttributes, ShipmentRelationships>;

/// A `tracking_request` resource as the client reads it.
pub(super) type TrackingRequest = Resource<TrackingRequestAttributes>;

/// What the client prints of a container.
#[derive(Debug, Default, Deserialize)]
pub(super) struct ContainerAttributes {
    /// The ISO 6346 number.
    pub(super) number: Option<String>,
    /// Where the container is (`on_ship`, `available`, …).
    pub(super) current_status: Option<String>,
    /// `22G1`, `45R1`, …
    pub(super) equipment_type: Option<String>,
    /// 20, 40 or 45 (feet).
    pub(super) equipment_length: Option<i64>,
    /// The last free day, as the server wrote it.
    pub(super) pickup_lfd: Option<String>,
    /// Whether it may be picked up now.
    pub(super) ready_for_pickup: Option<bool>,
    /// Whether the terminal told whether it is available.
    pub(super) availability_known: Option<bool>,
    /// When the terminal was last read for this box; null while it has not been.
    pub(super) terminal_checked_at: Option<String>,
    /// The holds at the terminal of discharge: empty when it reported none, and while it has
    /// not been read (null from servers before the reference's array was kept).
    pub(super) holds_at_pod_terminal: Option<Vec<Hold>>,
    /// The fees at the terminal of discharge, likewise.
    pub(super) fees_at_pod_terminal: Option<Vec<Fee>>,
    /// Who must let the box go (boxtrack's extension; absent from other servers).
    pub(super) release_gates: Option<ReleaseGates>,
}

/// The release gates as the client reads them.
#[derive(Debug, Default, Deserialize)]
pub(super) struct ReleaseGates {
    /// Customs and the other agencies.
    #[serde(default)]
    pub(super) customs: Gate,
    /// The line.
    #[serde(default)]
    pub(super) line: Gate,
    /// The terminal.
    #[serde(default)]
    pub(super) terminal: Gate,
}

/// One release gate.
#[derive(Debug, Default, Deserialize)]
pub(super) struct Gate {
    /// `unknown`, `pending`, `held` or `released`.
    pub(super) status: Option<String>,
    /// Who decides it.
    pub(super) source: Option<String>,
    /// In their words.
    pub(super) wording: Option<String>,
}

/// A container's relationships the client follows.
#[derive(Debug, Default, Deserialize)]
pub(super) struct ContainerRelationships {
    /// Its shipment.
    #[serde(default)]
    pub(super) shipment: ToOne,
    /// The terminal of discharge.
    #[serde(default)]
    pub(super) pod_terminal: ToOne,
}

/// A hold at the terminal.
#[derive(Debug, Default, Deserialize)]
pub(super) struct Hold {
    /// Which hold (`customs`, `freight`, …).
    pub(super) name: Option<String>,
    /// `hold` or `pending`.
    pub(super) status: Option<String>,
}

/// A fee at the terminal.
#[derive(Debug, Default, Deserialize)]
pub(super) struct Fee {
    /// Which fee (`demurrage`, …).
    #[serde(rename = "type")]
    pub(super) kind: Option<String>,
    /// How much, in major units.
    pub(super) amount: Option<serde_json::Number>,
    /// ISO 4217.
    pub(super) currency_code: Option<String>,
}

/// What the client prints of a shipment.
#[derive(Debug, Default, Deserialize)]
pub(super) struct ShipmentAttributes {
    /// The bill of lading (or booking) number.
    pub(super) bill_of_lading_number: Option<String>,
    /// The shipping line.
    pub(super) shipping_line_scac: Option<String>,
    /// The port of lading's UN/LOCODE.
    pub(super) port_of_lading_locode: Option<String>,
    /// The port of discharge's UN/LOCODE.
    pub(super) port_of_discharge_locode: Option<String>,
    /// The port of lading's name.
    pub(super) port_of_lading_name: Option<String>,
    /// The port of discharge's name.
    pub(super) port_of_discharge_name: Option<String>,
    /// The vessel that calls at the port of discharge.
    pub(super) pod_vessel_name: Option<String>,
    /// When it is expected at the port of discharge.
    pub(super) pod_eta_at: Option<String>,
    /// When it arrived at the port of discharge.
    pub(super) pod_ata_at: Option<String>,
    /// When the line stopped tracking it; none while it goes on.
    pub(super) line_tracking_stopped_at: Option<String>,
}

/// A shipment's relationships the client follows.
#[derive(Debug, Default, Deserialize)]
pub(super) struct ShipmentRelationships {
    /// Its containers.
    #[serde(default)]
    pub(super) containers: ToMany,
}

/// What the client prints of a tracking request.
#[derive(Debug, Default, Deserialize)]
pub(super) struct TrackingRequestAttributes {
    /// The number tracked.
    pub(super) request_number: Option<String>,
    /// container, bill_of_lading or booking_number.
    pub(super) request_type: Option<String>,
    /// The shipping line.
    pub(super) scac: Option<String>,
    /// pending, created, failed, …
    pub(super) status: Option<String>,
    /// Why it failed, when it did.
    pub(super) failed_reason: Option<String>,
}

/// What the client prints of a terminal.
#[derive(Debug, Default, Deserialize)]
pub(super) struct TerminalAttributes {
    /// Its name.
    pub(super) name: Option<String>,
}

/// What the client prints of a transport event.
#[derive(Debug, Default, Deserialize)]
pub(super) struct TransportEventAttributes {
    /// `container.transport.vessel_arrived`, …
    pub(super) event: Option<String>,
    /// When it happened, as the server wrote it.
    pub(super) timestamp: Option<String>,
    /// Where (UN/LOCODE).
    pub(super) location_locode: Option<String>,
}
