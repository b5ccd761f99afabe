//! How a stored observation reads as a `raw_event`: the reference API's normalized event name,
//! a one-line wording of what the source said, and the dates of the event at its place.

use super::{Fact, LfdKind, Milestone, Observation, source_name};
use crate::time::format_micros;

/// The reference API's normalized raw-event names (`raw_event.attributes.event`).
pub const REFERENCE_EVENTS: [&str; 28] = [
    "empty_out",
    "full_in",
    "positioned_in",
    "positioned_out",
    "vessel_loaded",
    "vessel_departed",
    "transshipment_arrived",
    "transshipment_discharged",
    "transshipment_loaded",
    "transshipment_departed",
    "feeder_arrived",
    "feeder_discharged",
    "feeder_loaded",
    "feeder_departed",
    "rail_loaded",
    "rail_departed",
    "rail_arrived",
    "rail_unloaded",
    "vessel_arrived",
    "vessel_discharged",
    "arrived_at_destination",
    "delivered",
    "full_out",
    "empty_in",
    "vgm_received",
    "carrier_release",
    "customs_release",
    "available",
];

/// The reference's normalized name for an observation, or `None` where the record is not one
/// of its events (terminal facts such as holds or fees, berthing, a withdrawn availability).
pub fn reference_event(fact: &Fact) -> Option<&'static str> {
    match fact {
        Fact::Event(e) => match e.milestone {
            Milestone::ArrivedAtInlandDestination => Some("arrived_at_destination"),
            m => REFERENCE_EVENTS.iter().copied().find(|n| *n == m.name()),
        },
        Fact::Availability {
            available: true, ..
        } => Some("available"),
        _ => None,
    }
}

/// A milestone name as words: `vessel_discharged` → `Vessel discharged`.
fn words(name: &str) -> String {
    let mut s = name.replace('_', " ");
    if let Some(first) = s.get(..1) {
        let upper = first.to_uppercase();
        s.replace_range(..1, &upper);
    }
    s
}

fn amount(minor: i64) -> String {
    let sign = if minor < 0 { "-" } else { "" };
    let m = minor.unsigned_abs();
    format!("{sign}{}.{:02}", m / 100, m % 100)
}

fn when(at: Option<i64>) -> String {
    at.map_or_else(|| "none".to_string(), format_micros)
}

/// One line that says what the source reported, e.g. `Vessel discharged`,
/// `Holds: customs (hold)`, `Last free day (terminal): 2024-07-07T04:00:00Z`.
pub fn describe(fact: &Fact) -> String {
    match fact {
        Fact::Event(e) => {
            let what = words(e.milestone.name());
            if e.estimated {
                format!("{what} (estimated)")
            } else {
                what
            }
        }
        Fact::Availability {
            available: true, ..
        } => "Available for pickup".into(),
        Fact::Availability {
            available: false, ..
        } => "Not available for pickup".into(),
        Fact::Holds { holds } if holds.is_empty() => "No holds".into(),
        Fact::Holds { holds } => {
            let list: Vec<String> = holds
                .iter()
                .map(|h| format!("{} ({})", h.name, h.status))
                .collect();
            format!("Holds: {}", list.join(", "))
        }
        Fact::Fees { fees } if fees.is_empty() => "No fees".into(),
        Fact::Fees { fees } => {
            let list: Vec<String> = fees
                .iter()
                .map(|f| format!("{} {} {}", f.kind, amount(f.amount_minor), f.currency_code))
                .collect();
            format!("Fees: {}", list.join(", "))
        }
        Fact::Lfd { which, at_us } => {
            let whose = match which {
                LfdKind::Line => "shipping line",
                LfdKind::Terminal => "terminal",
                LfdKind::Rail => "rail",
                LfdKind::User => "entered by a person",
            };
            format!("Last free day ({whose}): {}", when(*at_us))
        }
        Fact::Appointment { at_us } => format!("Pickup appointment: {}", when(*at_us)),
        Fact::YardLocation { location } => {
            format!("Yard location: {}", location.as_deref().unwrap_or("none"))
        }
        Fact::PodTerminal { code } => {
            format!("Terminal: {}", code.as_deref().unwrap_or("none"))
        }
        Fact::Equipment(q) => {
            let mut parts: Vec<String> = Vec::new();
            let size: Vec<String> = [
                q.equipment_length.map(|l| format!("{l} ft")),
                q.equipment_height.as_ref().map(|h| h.replace('_', " ")),
                q.equipment_type.clone(),
            ]
            .into_iter()
            .flatten()
            .collect();
            if !size.is_empty() {
                parts.push(size.join(" "));
            }
            if let Some(seal) = &q.seal_number {
                parts.push(format!("seal {seal}"));
            }
            if let Some(w) = q.weight_in_lbs {
                parts.push(format!("{w} lbs"));
            }
            if parts.is_empty() {
                "Equipment".into()
            } else {
                format!("Equipment: {}", parts.join(", "))
            }
        }
        Fact::RailCarriers { pod, ind } => format!(
            "Rail carriers: {} from the port, {} to the destination",
            pod.as_deref().unwrap_or("none"),
            ind.as_deref().unwrap_or("none")
        ),
        Fact::Chassis { number } => {
            format!("Chassis: {}", number.as_deref().unwrap_or("none"))
        }
        Fact::Retracted { upstream_id } => format!("Withdrawn by its source: event {upstream_id}"),
        Fact::Release {
            gate,
            status,
            wording,
            ..
        } => {
            let what = format!("Release gate {}: {}", gate.name(), status.name());
            match wording {
                Some(w) => format!("{what} ({w})"),
                None => what,
            }
        }
    }
}

/// The time a raw event is about: the milestone's own time, or, for a record without one
/// (terminal facts, a milestone reported without a time), when the source reported it.
pub fn event_time(o: &Observation) -> i64 {
    match &o.fact {
        Fact::Event(e) => e.at_us.unwrap_or(o.observed_us),
        _ => o.observed_us,
    }
}

/// The calendar date (`YYYY-MM-DD`) of an instant at a place: in its IANA zone, or in UTC when
/// the zone is unknown (the sources then report local time as UTC).
pub fn local_date(at_us: i64, zone: Option<&str>) -> Option<String> {
    let tz = zone
        .and_then(|z| jiff::tz::TimeZone::get(z).ok())
        .unwrap_or(jiff::tz::TimeZone::UTC);
    let ts = jiff::Timestamp::from_microsecond(at_us).ok()?;
    Some(ts.to_zoned(tz).date().to_string())
}

/// The columns of a raw event: what one observation says, flattened for listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawView {
    /// `shipping_line`, `terminal`, `rail`, `ais` or `sandbox`.
    pub data_source: &'static str,
    /// Milestone name (`vessel_loaded`) or the kind of terminal fact (`holds`, `fees`, ...).
    pub event: String,
    /// Whether it is an estimate.
    pub estimated: bool,
    /// When (the event time, the LFD or the appointment).
    pub at_us: Option<i64>,
    /// UN/LOCODE.
    pub locode: Option<String>,
    /// IANA zone.
    pub timezone: Option<String>,
    /// Vessel name.
    pub vessel_name: Option<String>,
    /// Vessel IMO.
    pub vessel_imo: Option<String>,
    /// Voyage.
    pub voyage: Option<String>,
}

/// Flattens an observation for the raw-event list.
pub fn raw_view(o: &Observation) -> RawView {
    let data_source = source_name(o.source);
    let mut v = RawView {
        data_source,
        event: String::new(),
        estimated: false,
        at_us: None,
        locode: None,
        timezone: None,
        vessel_name: None,
        vessel_imo: None,
        voyage: None,
    };
    match &o.fact {
        Fact::Event(e) => {
            v.event = e.milestone.name().to_string();
            v.estimated = e.estimated;
            v.at_us = e.at_us;
            v.locode.clone_from(&e.locode);
            v.timezone.clone_from(&e.timezone);
            v.vessel_name.clone_from(&e.vessel_name);
            v.vessel_imo.clone_from(&e.vessel_imo);
            v.voyage.clone_from(&e.voyage);
        }
        Fact::Availability { available, .. } => {
            v.event = if *available {
                "available".into()
            } else {
                "not_available".into()
            }
        }
        Fact::Holds { .. } => v.event = "holds".into(),
        Fact::Fees { .. } => v.event = "fees".into(),
        Fact::Lfd { which, at_us } => {
            v.event = match which {
                LfdKind::Line => "pickup_lfd_line".into(),
                LfdKind::Terminal => "pickup_lfd_terminal".into(),
                LfdKind::Rail => "pickup_lfd_rail".into(),
                LfdKind::User => "pickup_lfd_entered".into(),
            };
            v.at_us = *at_us;
        }
        Fact::Appointment { at_us } => {
            v.event = "pickup_appointment".into();
            v.at_us = *at_us;
        }
        Fact::YardLocation { .. } => v.event = "yard_location".into(),
        Fact::PodTerminal { .. } => v.event = "pod_terminal".into(),
        Fact::Equipment(_) => v.event = "equipment".into(),
        Fact::RailCarriers { .. } => v.event = "rail_carriers".into(),
        Fact::Chassis { .. } => v.event = "chassis".into(),
        Fact::Retracted { .. } => v.event = "retracted".into(),
        Fact::Release {
            gate,
            status,
            at_us,
            ..
        } => {
            v.event = format!("{}_{}", gate.name(), status.name());
            v.at_us = *at_us;
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tracking::{DataSource, Equipment, EventFact, Fee, Hold, Place};

    fn event(m: Milestone, estimated: bool, at: Option<i64>) -> Fact {
        Fact::Event(EventFact {
            milestone: m,
            estimated,
            at_us: at,
            place: Place::Pod,
            locode: None,
            timezone: None,
            terminal: None,
            vessel_name: None,
            vessel_imo: None,
            voyage: None,
        })
    }

    #[test]
    fn every_milestone_maps_into_the_reference_names_or_none() {
        for m in Milestone::ALL {
            if let Some(n) = reference_event(&event(m, false, None)) {
                assert!(REFERENCE_EVENTS.contains(&n), "{n}");
            }
        }
        assert_eq!(
            reference_event(&event(Milestone::ArrivedAtInlandDestination, false, None)),
            Some("arrived_at_destination")
        );
        assert_eq!(
            reference_event(&event(Milestone::VesselBerthed, false, None)),
            None
        );
        assert_eq!(
            reference_event(&Fact::Availability {
                available: true,
                at_us: None
            }),
            Some("available")
        );
        assert_eq!(
            reference_event(&Fact::Availability {
                available: false,
                at_us: None
            }),
            None
        );
        assert_eq!(reference_event(&Fact::Holds { holds: vec![] }), None);
    }

    #[test]
    fn descriptions_say_what_was_reported() {
        assert_eq!(
            describe(&event(Milestone::VesselDischarged, false, None)),
            "Vessel discharged"
        );
        assert_eq!(
            describe(&event(Milestone::VesselArrived, true, None)),
            "Vessel arrived (estimated)"
        );
        let holds = Fact::Holds {
            holds: vec![Hold {
                name: "customs".into(),
                status: "hold".into(),
                description: None,
            }],
        };
        assert_eq!(describe(&holds), "Holds: customs (hold)");
        let fees = Fact::Fees {
            fees: vec![Fee {
                kind: "demurrage".into(),
                amount_minor: 15_005,
                currency_code: "USD".into(),
            }],
        };
        assert_eq!(describe(&fees), "Fees: demurrage 150.05 USD");
        assert_eq!(
            describe(&Fact::Lfd {
                which: LfdKind::Terminal,
                at_us: Some(0)
            }),
            "Last free day (terminal): 1970-01-01T00:00:00Z"
        );
        let eq = Fact::Equipment(Equipment {
            equipment_type: Some("dry".into()),
            equipment_length: Some(40),
            equipment_height: Some("high_cube".into()),
            weight_in_lbs: None,
            seal_number: Some("SB1".into()),
        });
        assert_eq!(describe(&eq), "Equipment: 40 ft high cube dry, seal SB1");
        assert_eq!(
            describe(&Fact::Equipment(Equipment::default())),
            "Equipment"
        );
        assert_eq!(amount(-5), "-0.05");
    }

    #[test]
    fn a_record_without_a_time_is_dated_when_reported() {
        let o = Observation {
            observed_us: 42,
            source: DataSource::Terminal,
            fact: Fact::Holds { holds: vec![] },
            precision: Default::default(),
            upstream_id: None,
        };
        assert_eq!(event_time(&o), 42);
        let o = Observation {
            observed_us: 42,
            source: DataSource::ShippingLine,
            fact: event(Milestone::FullOut, false, Some(7)),
            precision: Default::default(),
            upstream_id: None,
        };
        assert_eq!(event_time(&o), 7);
    }

    #[test]
    fn local_dates_fall_on_the_places_calendar() {
        // 2024-07-07T03:30Z is still July 6th in New York and already the 7th in UTC
        let us = 1_720_323_000_000_000;
        assert_eq!(
            local_date(us, Some("America/New_York")).as_deref(),
            Some("2024-07-06")
        );
        assert_eq!(local_date(us, None).as_deref(), Some("2024-07-07"));
        assert_eq!(
            local_date(us, Some("Not/AZone")).as_deref(),
            Some("2024-07-07")
        );
    }
}
