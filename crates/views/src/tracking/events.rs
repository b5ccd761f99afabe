//! The `transport_event` and `raw_event` resources.

use boxtrack_store::reads::{RawEventRow, TransportEventRow};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::rels::*;
use crate::jsonapi::{At, Kind, Resource, ToOne};

/// Whether an event happened inland (its location is then a metro area rather than a port).
pub fn inland_event(event: &str) -> bool {
    ["rail_", "arrived_at_inland_destination"]
        .iter()
        .any(|p| event.contains(p))
}

fn event_location(e: &TransportEventRow) -> ToOne {
    let place = e.locode.as_deref().and_then(boxtrack_core::reference::port);
    match place {
        Some(p) if inland_event(&e.event) => {
            ToOne::new("metro_area", Some(crate::reference::metro_id(&p.locode)))
        }
        Some(p) => ToOne::new("port", Some(crate::reference::port_id(&p.locode))),
        None => ToOne::none(),
    }
}

/// The `transport_event` type.
pub struct TransportEvent;

impl Kind for TransportEvent {
    const TYPE: &'static str = "transport_event";
    const COLLECTION: &'static str = "transport_events";
    const NAME: &'static str = "TransportEvent";
    type Attributes = TransportEventAttributes;
    type Relationships = TransportEventRelationships;
}

/// Attributes of a transport event (a milestone of the container's journey).
#[derive(Debug, Serialize, JsonSchema)]
pub struct TransportEventAttributes {
    /// What happened (`container.transport.vessel_arrived`, …).
    pub event: String,
    /// When (null for a planned milestone without a time).
    pub timestamp: Option<At>,
    /// The place's time zone (IANA).
    pub timezone: Option<String>,
    /// Where (UN/LOCODE).
    pub location_locode: Option<String>,
    /// The voyage number.
    pub voyage_number: Option<String>,
    /// The vessel's name.
    pub vessel_name: Option<String>,
    /// The vessel's IMO number.
    pub vessel_imo: Option<String>,
    /// The terminal's FIRMS code.
    pub terminal_code: Option<String>,
    /// Who reported it.
    #[schemars(extend("enum" = ["shipping_line", "terminal", "rail", "ais", "sandbox"]))]
    pub data_source: String,
    /// For `container.pickup_*` events, the time the event is about.
    pub value: Option<At>,
    /// When the source withdrew it (never yet: always null).
    pub invalidated_at: Option<At>,
    /// When boxtrack recorded it.
    pub created_at: At,
}

/// Relationships of a transport event.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TransportEventRelationships {
    /// The shipment (`shipment`).
    pub shipment: ToOne,
    /// The container (`container`).
    pub container: ToOne,
    /// Where it happened: a `port`, or a `metro_area` for inland events.
    pub location: ToOne,
    /// The vessel (`vessel`).
    pub vessel: ToOne,
    /// The terminal (`terminal`).
    pub terminal: ToOne,
}

/// The `transport_event` resource.
pub fn transport_event_resource(e: &TransportEventRow) -> Resource<TransportEvent> {
    let value = if e.event.starts_with("container.pickup_") {
        At::opt(e.at_us)
    } else {
        None
    };
    Resource {
        id: e.id,
        attributes: TransportEventAttributes {
            event: e.event.clone(),
            timestamp: At::opt(e.at_us),
            timezone: e.timezone.clone(),
            location_locode: e.locode.clone(),
            voyage_number: e.voyage.clone(),
            vessel_name: e.vessel_name.clone(),
            vessel_imo: e.vessel_imo.clone(),
            terminal_code: e.terminal.clone(),
            data_source: e.data_source.clone(),
            value,
            invalidated_at: None,
            created_at: At(e.created_us),
        },
        relationships: TransportEventRelationships {
            shipment: ToOne::new("shipment", Some(e.shipment_id)),
            container: ToOne::new("container", Some(e.container_id)),
            location: event_location(e),
            vessel: ToOne::new(
                "vessel",
                e.vessel_imo.as_deref().map(crate::reference::vessel_id),
            ),
            terminal: terminal_rel(e.terminal.as_deref()),
        },
    }
}

/// The `transport_event` resource as a JSON value.
pub fn transport_event(e: &TransportEventRow) -> Value {
    transport_event_resource(e).to_value()
}

/// The `raw_event` type.
pub struct RawEvent;

impl Kind for RawEvent {
    const TYPE: &'static str = "raw_event";
    const COLLECTION: &'static str = "raw_events";
    const NAME: &'static str = "RawEvent";
    type Attributes = RawEventAttributes;
    type Relationships = RawEventRelationships;
}

/// Attributes of a raw event: one observation as its source reported it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RawEventAttributes {
    /// The normalized event.
    pub event: String,
    /// The source's record, as received.
    pub original_event: Value,
    /// When (actual or estimated).
    pub timestamp: Option<At>,
    /// The time is an estimate.
    pub estimated: bool,
    /// The time, when it is actual.
    pub actual_at: Option<At>,
    /// The time, when it is an estimate.
    pub estimated_at: Option<At>,
    /// The place's time zone (IANA).
    pub timezone: Option<String>,
    /// Where (UN/LOCODE).
    pub location_locode: Option<String>,
    /// The vessel's name.
    pub vessel_name: Option<String>,
    /// The vessel's IMO number.
    pub vessel_imo: Option<String>,
    /// The voyage number.
    pub voyage_number: Option<String>,
    /// Who reported it.
    pub data_source: String,
    /// When boxtrack read it from the source.
    pub observed_at: At,
    /// When boxtrack recorded it.
    pub created_at: At,
}

/// Relationships of a raw event.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RawEventRelationships {
    /// The container (`container`).
    pub container: ToOne,
    /// The shipment (`shipment`).
    pub shipment: ToOne,
}

/// The `raw_event` resource.
pub fn raw_event_resource(e: &RawEventRow) -> Resource<RawEvent> {
    let at = At::opt(e.at_us);
    Resource {
        id: e.id,
        attributes: RawEventAttributes {
            event: e.event.clone(),
            original_event: e.original.0.clone(),
            timestamp: at,
            estimated: e.estimated,
            actual_at: if e.estimated { None } else { at },
            estimated_at: if e.estimated { at } else { None },
            timezone: e.timezone.clone(),
            location_locode: e.locode.clone(),
            vessel_name: e.vessel_name.clone(),
            vessel_imo: e.vessel_imo.clone(),
            voyage_number: e.voyage.clone(),
            data_source: e.data_source.clone(),
            observed_at: At(e.observed_us),
            created_at: At(e.created_us),
        },
        relationships: RawEventRelationships {
            container: ToOne::new("container", Some(e.container_id)),
            shipment: ToOne::new("shipment", Some(e.shipment_id)),
        },
    }
}

/// The `raw_event` resource as a JSON value.
pub fn raw_event(e: &RawEventRow) -> Value {
    raw_event_resource(e).to_value()
}
