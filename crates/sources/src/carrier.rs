//! Carriers over DCSA Track & Trace 2.2: what one answer says about a subject (route,
//! containers, observations), and the [`Source`](crate::Source) that answers tracking requests
//! from it.

use std::collections::BTreeMap;
use std::sync::Arc;

use boxtrack_core::carriers::SANDBOX_SCAC;
use boxtrack_core::reference;
use boxtrack_core::requests::RequestType;
use boxtrack_core::time::parse_micros;
use boxtrack_core::tracking::{Observation, Route};
use boxtrack_store::tracking::NewContainer;

use crate::dcsa::{self, Event};
use crate::upstream::{UpstreamError, Upstreams};
use crate::{BoxFuture, Lookup, LookupResult, Source, SourceError};

/// What a carrier's events say about one subject.
#[derive(Debug, Clone, Default)]
pub struct Digest {
    /// Ports (from the events, or as already known).
    pub route: Route,
    /// The transport document (bill of lading) the events name.
    pub bill_of_lading: Option<String>,
    /// Observations per container number.
    pub per_container: BTreeMap<String, Vec<Observation>>,
    /// Observations about every container of the subject (vessel arrivals, departures).
    pub shipment_wide: Vec<Observation>,
    /// The terminal each container was discharged at.
    pub terminals: BTreeMap<String, String>,
    /// Mapping notes.
    pub notes: Vec<String>,
}

impl Digest {
    /// Everything known for one container: its own observations and the shipment-wide ones,
    /// in the order their milestones happened (so that events new in one answer are recorded
    /// in that order: the vessel's arrival before the box's discharge).
    pub fn for_container(&self, number: &str) -> Vec<Observation> {
        let mut v = self.per_container.get(number).cloned().unwrap_or_default();
        v.extend(self.shipment_wide.iter().cloned());
        v.sort_by_key(|o| match &o.fact {
            boxtrack_core::tracking::Fact::Event(e) => e.at_us.unwrap_or(o.observed_us),
            _ => o.observed_us,
        });
        v
    }
}

fn with_port(code: Option<String>) -> (Option<String>, Option<String>, Option<String>) {
    let port = code.as_deref().and_then(reference::port);
    (
        code.clone(),
        port.and_then(|p| p.name.clone()),
        port.map(|p| p.time_zone.clone()),
    )
}

/// Reads a subject's events. `known` is the route already stored (it wins over what the
/// events suggest).
pub fn digest(events: &[Event], known: Option<&Route>) -> Digest {
    let vessel_call = |code: &str| {
        let mut v: Vec<(i64, String)> = events
            .iter()
            .filter(|e| e.transport_event_type_code.as_deref() == Some(code))
            .filter_map(|e| {
                let tc = e.transport_call.as_ref()?;
                (tc.mode_of_transport == "VESSEL").then_some(())?;
                Some((
                    parse_micros(&e.event_date_time)?,
                    tc.un_location_code.clone()?,
                ))
            })
            .collect();
        v.sort();
        v
    };
    let pol = known
        .and_then(|r| r.pol_locode.clone())
        .or_else(|| vessel_call("DEPA").first().map(|(_, l)| l.clone()));
    let pod = known
        .and_then(|r| r.pod_locode.clone())
        .or_else(|| vessel_call("ARRI").last().map(|(_, l)| l.clone()));
    let inland = events
        .iter()
        .filter(|e| e.transport_event_type_code.as_deref() == Some("ARRI"))
        .filter_map(|e| {
            let tc = e.transport_call.as_ref()?;
            matches!(tc.mode_of_transport.as_str(), "RAIL" | "TRUCK").then_some(())?;
            Some((
                parse_micros(&e.event_date_time)?,
                tc.un_location_code.clone()?,
            ))
        })
        .max()
        .map(|(_, l)| l)
        .filter(|l| Some(l) != pod.as_ref());
    let destination = known.and_then(|r| r.destination_locode.clone()).or(inland);
    let (destination_locode, destination_name, destination_timezone) = with_port(destination);
    let (pol_locode, pol_name, pol_timezone) = with_port(pol);
    let (pod_locode, pod_name, pod_timezone) = with_port(pod);
    let route = Route {
        pol_locode,
        pol_name,
        pol_timezone,
        pod_locode,
        pod_name,
        pod_timezone,
        destination_locode,
        destination_name,
        destination_timezone,
    };
    let (targeted, notes) = dcsa::map(
        events,
        &dcsa::Route {
            pol: route.pol_locode.clone(),
            pod: route.pod_locode.clone(),
            destination: route.destination_locode.clone(),
        },
    );
    let mut d = Digest {
        route,
        notes,
        ..Digest::default()
    };
    for (container, obs) in targeted {
        match container {
            Some(c) => d.per_container.entry(c).or_default().push(obs),
            None => d.shipment_wide.push(obs),
        }
    }
    for e in events {
        if let (Some(c), Some("DISC")) = (
            &e.equipment_reference,
            e.equipment_event_type_code.as_deref(),
        ) && let Some(f) = e
            .event_location
            .as_ref()
            .and_then(|l| l.facility_code.clone())
            .or_else(|| {
                e.transport_call
                    .as_ref()
                    .and_then(|t| t.facility_code.clone())
            })
        {
            d.terminals.insert(boxtrack_core::ident::normalize(c), f);
        }
        if d.bill_of_lading.is_none() {
            d.bill_of_lading = e
                .document_references
                .iter()
                .find(|r| r.document_reference_type == "TRD")
                .map(|r| r.document_reference_value.clone());
        }
    }
    // containers named only in references of shipment events still exist
    for e in events {
        if let Some(c) = &e.equipment_reference {
            d.per_container
                .entry(boxtrack_core::ident::normalize(c))
                .or_default();
        }
    }
    d
}

/// Answers tracking requests from each carrier's DCSA endpoint.
pub struct CarrierSource {
    upstreams: Arc<Upstreams>,
}

impl CarrierSource {
    /// A source over these upstreams.
    pub fn new(upstreams: Arc<Upstreams>) -> CarrierSource {
        CarrierSource { upstreams }
    }
}

impl From<UpstreamError> for SourceError {
    fn from(e: UpstreamError) -> SourceError {
        match e {
            UpstreamError::Malformed { .. } => SourceError::Unrecognized(e.to_string()),
            UpstreamError::NotConfigured(scac) => SourceError::NotConfigured(scac),
            other => SourceError::Unreachable(other.to_string()),
        }
    }
}

impl Source for CarrierSource {
    fn serves(&self, scac: &str) -> bool {
        scac != SANDBOX_SCAC && self.upstreams.carrier(scac).is_some()
    }

    fn lookup<'a>(&'a self, q: &'a Lookup) -> BoxFuture<'a, Result<LookupResult, SourceError>> {
        Box::pin(async move {
            let answer = self
                .upstreams
                .dcsa_events(&q.scac, q.request_type, &q.number)
                .await?;
            if answer.is_empty() {
                return Ok(LookupResult::NotFound);
            }
            let d = answer.digest(None);
            let numbers: Vec<String> = match q.request_type {
                RequestType::Container => vec![q.number.clone()],
                _ => d.per_container.keys().cloned().collect(),
            };
            if numbers.is_empty() {
                return Ok(LookupResult::NotManifested);
            }
            let containers = numbers
                .iter()
                .map(|n| NewContainer {
                    number: n.clone(),
                    observations: d.for_container(n),
                })
                .collect();
            Ok(LookupResult::Found {
                bill_of_lading_number: d.bill_of_lading.clone().unwrap_or_else(|| q.number.clone()),
                route: Box::new(d.route),
                containers,
                scenario: None,
            })
        })
    }
}
