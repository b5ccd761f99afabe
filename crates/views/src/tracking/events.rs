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

/// The place an event at `locode` happened at, as a resource: a `port`, or a `metro_area`
/// for inland events (what the `location` relationship names).
pub fn place_resource(event: &str, locode: Option<&str>) -> Option<Value> {
    let p = locode.and_then(boxtrack_core::reference::port)?;
    Some(if inland_event(event) {
        crate::reference::metro_resource(p)
    } else {
        crate::reference::port_resource(p)
    })
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
    #[schemars(extend("enum" = ["shipping_line", "terminal", "rail", "ais", "sandbox", "user_input"]))]
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
    /// The raw event it was made from (`raw_event`), as the reference names it: null, since
    /// one transport event may be told by several sources (see `field_sources` and the
    /// container's raw events for who said what).
    pub source_event: ToOne,
    /// The invalidated transport event this one replaces (`transport_event`): null, since
    /// boxtrack keeps one transport event per milestone and moves its time.
    pub previous_version: ToOne,
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
            location: place(&e.event, e.locode.as_deref()),
            vessel: ToOne::new(
                "vessel",
                e.vessel_imo.as_deref().map(crate::reference::vessel_id),
            ),
            terminal: terminal_rel(e.terminal.as_deref()),
            source_event: ToOne::none(),
            previous_version: ToOne::none(),
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
    /// The reference API's normalized event, or null where the record is not one of its
    /// events (a terminal fact such as holds or fees; see `fact`).
    #[schemars(extend("enum" = boxtrack_core::tracking::raw::REFERENCE_EVENTS.iter().map(|e| Value::from(*e)).chain([Value::Null]).collect::<Vec<_>>()))]
    pub event: Option<&'static str>,
    /// What kind of record boxtrack read: a milestone (`vessel_arrived`, `vessel_berthed`, …)
    /// or a terminal fact (`holds`, `fees`, `pickup_lfd_terminal`, `equipment`, …).
    pub fact: String,
    /// What the source reported, in one line (`Vessel discharged`, `Holds: customs (hold)`).
    pub original_event: String,
    /// The observation as boxtrack parsed it from the source, verbatim.
    pub observation: Value,
    /// When the event happened or is expected, in UTC; for a record without a time of its own
    /// (a terminal fact), when the source reported it.
    pub timestamp: At,
    /// The time is an estimate.
    pub estimated: bool,
    /// The date of the event at its place, when it happened (deprecated in the reference).
    pub actual_on: Option<String>,
    /// The date of the event at its place, when it is an estimate (deprecated in the reference).
    pub estimated_on: Option<String>,
    /// The time, when it is actual (deprecated in the reference).
    pub actual_at: Option<At>,
    /// The time, when it is an estimate (deprecated in the reference).
    pub estimated_at: Option<At>,
    /// The place's time zone (IANA).
    pub timezone: Option<String>,
    /// The place's name, when known.
    pub location_name: Option<String>,
    /// Where (UN/LOCODE).
    pub location_locode: Option<String>,
    /// The vessel's name.
    pub vessel_name: Option<String>,
    /// The vessel's IMO number.
    pub vessel_imo: Option<String>,
    /// The voyage number.
    pub voyage_number: Option<String>,
    /// The record's place among the container's raw events, oldest first from 0.
    pub index: i64,
    /// Who reported it.
    #[schemars(extend("enum" = ["shipping_line", "terminal", "rail", "ais", "sandbox", "user_input"]))]
    pub data_source: String,
    /// The name of who reported it: the shipping line (`Maersk`), the terminal, the railroad;
    /// null for vessel positions.
    pub data_provider_name: Option<String>,
    /// Their code: the carrier's SCAC, the terminal's FIRMS code, the railroad's SCAC.
    pub data_provider_code: Option<String>,
    /// When a future event is due, as the reference names it: always null (an estimate's
    /// time is `estimated_at` and `timestamp`).
    pub will_occur_at: Option<At>,
    /// When the record was withdrawn: null (a source's withdrawal is a record of its own,
    /// fact `retracted`, and the transport event it withdrew has `invalidated_at`).
    pub invalidated_at: Option<At>,
    /// When boxtrack read it from the source.
    pub observed_at: At,
    /// When boxtrack recorded it.
    pub created_at: At,
}

/// Relationships of a raw event.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RawEventRelationships {
    /// Where it happened: a `port`, or a `metro_area` for inland events.
    pub location: ToOne,
    /// The vessel (`vessel`).
    pub vessel: ToOne,
    /// The container (`container`).
    pub container: ToOne,
    /// The shipment (`shipment`).
    pub shipment: ToOne,
    /// The terminal it happened at (`terminal`): the one the source named, or for a
    /// terminal's own report (holds, fees, availability) the container's POD terminal.
    pub terminal: ToOne,
}

/// Who reports a container's raw events, by kind of source: what fills a raw event's
/// `data_provider_name` and `data_provider_code`, and the terminal of a terminal's reports.
#[derive(Debug, Clone, Default)]
pub struct Providers {
    /// The shipping line: name and SCAC.
    pub shipping_line: Option<(String, String)>,
    /// The POD terminal: name and FIRMS code.
    pub terminal: Option<(String, String)>,
    /// The railroad at the port of discharge: name and SCAC.
    pub rail: Option<(String, String)>,
}

impl Providers {
    /// The providers of a container on a shipment of carrier `scac`.
    pub fn of(state: &boxtrack_core::tracking::ContainerState, scac: &str) -> Providers {
        let line = boxtrack_core::carriers::by_scac(scac).map_or_else(
            || (scac.to_string(), scac.to_string()),
            |l| (l.name.clone(), l.scac.clone()),
        );
        Providers {
            shipping_line: (!scac.is_empty()).then_some(line),
            terminal: state
                .pod_terminal
                .as_deref()
                .and_then(boxtrack_core::reference::terminal)
                .map(|t| (t.name.clone(), t.firms_code.clone())),
            rail: state
                .pod_rail_carrier_scac
                .as_ref()
                .map(|r| (r.clone(), r.clone())),
        }
    }

    /// The name and code of who reported through `data_source`.
    fn for_source(&self, data_source: &str) -> Option<&(String, String)> {
        match data_source {
            "shipping_line" | "sandbox" => self.shipping_line.as_ref(),
            "terminal" => self.terminal.as_ref(),
            "rail" => self.rail.as_ref(),
            _ => None,
        }
    }
}

fn place(event: &str, locode: Option<&str>) -> ToOne {
    match locode.and_then(boxtrack_core::reference::port) {
        Some(p) if inland_event(event) => {
            ToOne::new("metro_area", Some(crate::reference::metro_id(&p.locode)))
        }
        Some(p) => ToOne::new("port", Some(crate::reference::port_id(&p.locode))),
        None => ToOne::none(),
    }
}

/// The FIRMS code of the terminal a raw event happened at: the one its source named, or for
/// a terminal's own report the container's POD terminal (`providers`).
fn raw_event_terminal(
    e: &RawEventRow,
    observation: Option<&boxtrack_core::tracking::Observation>,
    providers: &Providers,
) -> Option<String> {
    match observation.map(|o| &o.fact) {
        Some(boxtrack_core::tracking::Fact::Event(ev)) => ev.terminal.clone(),
        _ if e.data_source == "terminal" => providers.terminal.as_ref().map(|t| t.1.clone()),
        _ => None,
    }
}

/// The terminal (FIRMS code) a raw event's `terminal` relationship names.
pub fn raw_event_terminal_code(e: &RawEventRow, providers: &Providers) -> Option<String> {
    let observation = serde_json::from_value(e.original.clone()).ok();
    raw_event_terminal(e, observation.as_ref(), providers)
}

/// The `raw_event` resource of a container whose sources are `providers`.
pub fn raw_event_resource(e: &RawEventRow, providers: &Providers) -> Resource<RawEvent> {
    use boxtrack_core::tracking::{Fact, Observation, raw};
    let observation: Option<Observation> = serde_json::from_value(e.original.clone()).ok();
    let fact = observation.as_ref().map(|o| &o.fact);
    let at = observation
        .as_ref()
        .map_or(e.at_us.unwrap_or(e.observed_us), raw::event_time);
    let milestone_at = match fact {
        Some(Fact::Event(_)) => e.at_us,
        _ => None,
    };
    let date = milestone_at.and_then(|us| raw::local_date(us, e.timezone.as_deref()));
    let provider = providers.for_source(&e.data_source);
    let terminal = raw_event_terminal(e, observation.as_ref(), providers);
    Resource {
        id: e.id,
        attributes: RawEventAttributes {
            event: fact.and_then(raw::reference_event),
            fact: e.event.clone(),
            original_event: fact.map_or_else(|| e.event.replace('_', " "), raw::describe),
            observation: e.original.clone(),
            timestamp: At(at),
            estimated: e.estimated,
            actual_on: if e.estimated { None } else { date.clone() },
            estimated_on: if e.estimated { date } else { None },
            actual_at: if e.estimated {
                None
            } else {
                At::opt(milestone_at)
            },
            estimated_at: if e.estimated {
                At::opt(milestone_at)
            } else {
                None
            },
            timezone: e.timezone.clone(),
            location_name: e
                .locode
                .as_deref()
                .and_then(boxtrack_core::reference::port)
                .and_then(|p| p.name.clone()),
            location_locode: e.locode.clone(),
            vessel_name: e.vessel_name.clone(),
            vessel_imo: e.vessel_imo.clone(),
            voyage_number: e.voyage.clone(),
            index: e.index,
            data_source: e.data_source.clone(),
            data_provider_name: provider.map(|p| p.0.clone()),
            data_provider_code: provider.map(|p| p.1.clone()),
            will_occur_at: None,
            invalidated_at: None,
            observed_at: At(e.observed_us),
            created_at: At(e.created_us),
        },
        relationships: RawEventRelationships {
            location: place(&e.event, e.locode.as_deref()),
            vessel: ToOne::new(
                "vessel",
                e.vessel_imo.as_deref().map(crate::reference::vessel_id),
            ),
            container: ToOne::new("container", Some(e.container_id)),
            shipment: ToOne::new("shipment", Some(e.shipment_id)),
            terminal: super::rels::terminal_rel(terminal.as_deref()),
        },
    }
}

/// The `raw_event` resource as a JSON value.
pub fn raw_event(e: &RawEventRow, providers: &Providers) -> Value {
    raw_event_resource(e, providers).to_value()
}
