//! What the tracking widget answers (`GET /embed/v1/track`): the account's shipments and
//! containers whose bill of lading, container or reference number is exactly the number a
//! visitor typed, with what a visitor needs and nothing more (no ids of other records, no
//! raw data, no parties or custom fields).

use boxtrack_app::model::{ContainerRow, Db, ShipmentRow, TransportEventRow};
use boxtrack_app::{AppError, lookup};
use boxtrack_core::tracking::rules::ContainerStatus;
use boxtrack_core::{carriers, reference};
use boxtrack_views::jsonapi::At;
use schemars::JsonSchema;
use serde::Serialize;
use uuid::Uuid;

/// Checks what a visitor typed: 3 to 40 letters, digits, `-`, `/`, `.` or `_`, and returns
/// it in capitals (numbers are compared without regard to case).
pub fn valid_number(raw: &str) -> Result<String, &'static str> {
    let n = raw.trim();
    if n.len() < 3 || n.len() > 40 {
        return Err("Enter a bill of lading, container or reference number (3 to 40 characters).");
    }
    if !n
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '/' | '.' | '_'))
    {
        return Err(
            "A number has only letters, digits, '-', '/', '.' and '_'; check what was typed.",
        );
    }
    Ok(n.to_ascii_uppercase())
}

/// A port as the widget shows it: its UN/LOCODE, name and time zone.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Port {
    /// UN/LOCODE.
    pub locode: String,
    /// Its name.
    pub name: Option<String>,
    /// IANA zone of the place.
    pub time_zone: Option<String>,
}

fn port(locode: Option<&str>, zone: Option<&str>) -> Option<Port> {
    let l = locode?;
    let p = reference::port(l);
    Some(Port {
        locode: l.to_string(),
        name: p.and_then(|p| p.name.clone()),
        time_zone: zone
            .map(str::to_string)
            .or_else(|| p.map(|p| p.time_zone.clone())),
    })
}

/// What the widget answers: the shipments found, each with its containers (`data` is empty
/// when nothing was).
#[derive(Debug, Serialize, JsonSchema)]
pub struct Track {
    /// At most 10 shipments.
    pub data: Vec<Found>,
}

/// A shipment found, with the containers to show.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Found {
    /// The shipment.
    pub shipment: Shipment,
    /// Its containers (only those asked for, when a container's number was typed).
    pub containers: Vec<Container>,
}

/// A shipment as the widget shows it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Shipment {
    /// Its id.
    pub id: Uuid,
    /// Its bill of lading.
    pub bill_of_lading_number: String,
    /// The line's SCAC.
    pub shipping_line_scac: String,
    /// The line's name.
    pub shipping_line_name: Option<String>,
    /// Where it was loaded.
    pub port_of_lading: Option<Port>,
    /// Where it is discharged.
    pub port_of_discharge: Option<Port>,
    /// Estimated arrival at the port of discharge
    pub pod_eta_at: Option<At>,
    /// Actual arrival
    pub pod_ata_at: Option<At>,
    /// The account's reference numbers.
    pub ref_numbers: Vec<String>,
}

/// A container as the widget shows it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Container {
    /// Its id.
    pub id: Uuid,
    /// Its number.
    pub number: String,
    /// The container's `current_status`
    pub status: String,
    /// The status for people.
    pub status_label: String,
    /// The last free day (ISO 8601)
    pub pickup_lfd: Option<At>,
    /// Whether it can be picked up.
    pub ready_for_pickup: bool,
    /// Holds at the terminal.
    pub holds: Vec<Hold>,
    /// Its milestones, oldest first.
    pub milestones: Vec<Milestone>,
}

/// A hold at the terminal.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Hold {
    /// Its name.
    pub name: String,
    /// Its status.
    pub status: String,
}

/// A milestone of a container's journey.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Milestone {
    /// The milestone without `container.transport.` (`vessel_loaded`, …)
    pub event: String,
    /// Its name for people.
    pub label: String,
    /// ISO 8601, UTC
    pub at: Option<At>,
    /// Whether it is an estimate.
    pub estimated: bool,
    /// The place's name
    pub location: Option<String>,
    /// UN/LOCODE
    pub locode: Option<String>,
    /// IANA zone of the place
    pub time_zone: Option<String>,
}

/// A milestone's name for people: `container.transport.vessel_loaded` → "Vessel loaded".
pub fn milestone_label(event: &str) -> String {
    let name = event
        .strip_prefix("container.transport.")
        .unwrap_or(event)
        .replace(['_', '.'], " ");
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The widget's answer for `number` (already checked by [`valid_number`]).
pub async fn lookup(db: &Db, account_id: Uuid, number: &str) -> Result<Track, AppError> {
    let data = lookup::lookup(db, account_id, number)
        .await?
        .into_iter()
        .map(|looked| Found {
            shipment: shipment(&looked.shipment),
            containers: looked
                .containers
                .iter()
                .map(|(c, events)| container(c, events))
                .collect(),
        })
        .collect();
    Ok(Track { data })
}

/// A shipment as the widget shows it.
fn shipment(s: &ShipmentRow) -> Shipment {
    let (route, st) = (&s.route, &s.state);
    Shipment {
        id: s.id,
        bill_of_lading_number: s.bill_of_lading_number.clone(),
        shipping_line_scac: s.scac.clone(),
        shipping_line_name: carriers::by_scac(&s.scac).map(|l| l.name.clone()),
        port_of_lading: port(route.pol_locode.as_deref(), route.pol_timezone.as_deref()),
        port_of_discharge: port(route.pod_locode.as_deref(), route.pod_timezone.as_deref()),
        pod_eta_at: At::opt(st.pod_eta_us),
        pod_ata_at: At::opt(st.pod_ata_us),
        ref_numbers: s.ref_numbers.clone(),
    }
}

/// A container as the widget shows it, with its milestones from `events`.
fn container(c: &ContainerRow, events: &[TransportEventRow]) -> Container {
    let mut moves: Vec<&TransportEventRow> = events
        .iter()
        .filter(|e| e.event.starts_with("container.transport."))
        .collect();
    moves.sort_by_key(|e| e.at_us);
    Container {
        id: c.id,
        number: c.number.clone(),
        status: c.current_status.clone(),
        status_label: ContainerStatus::parse(&c.current_status)
            .map_or(c.current_status.replace('_', " "), |s| {
                s.label().to_string()
            }),
        pickup_lfd: At::opt(c.pickup_lfd_us),
        ready_for_pickup: c.ready_for_pickup,
        holds: c
            .state
            .holds
            .iter()
            .map(|h| Hold {
                name: h.name.clone(),
                status: h.status.clone(),
            })
            .collect(),
        milestones: moves.into_iter().map(milestone).collect(),
    }
}

/// A transport event as a milestone.
fn milestone(e: &TransportEventRow) -> Milestone {
    let place = e.locode.as_deref().and_then(reference::port);
    Milestone {
        event: e
            .event
            .strip_prefix("container.transport.")
            .unwrap_or(&e.event)
            .to_string(),
        label: milestone_label(&e.event),
        at: At::opt(e.at_us),
        estimated: e.event.contains(".estimated."),
        location: place
            .and_then(|p| p.name.clone())
            .or_else(|| e.locode.clone()),
        locode: e.locode.clone(),
        time_zone: e
            .timezone
            .clone()
            .or_else(|| place.map(|p| p.time_zone.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_checked_and_capitalized() {
        assert_eq!(valid_number(" mscu1234566 ").unwrap(), "MSCU1234566");
        assert_eq!(valid_number("PO-2026/17").unwrap(), "PO-2026/17");
        assert!(valid_number("ab").is_err());
        assert!(valid_number(&"A".repeat(41)).is_err());
        assert!(valid_number("MSCU%").is_err());
        assert!(valid_number("a b c").is_err());
        assert!(valid_number("<script>").is_err());
    }

    #[test]
    fn milestone_labels_read_as_words() {
        assert_eq!(
            milestone_label("container.transport.vessel_loaded"),
            "Vessel loaded"
        );
        assert_eq!(
            milestone_label("container.transport.estimated.arrived_at_inland_destination"),
            "Estimated arrived at inland destination"
        );
        assert_eq!(milestone_label(""), "");
    }
}
