//! `get_container_transport_events` on the read layer: a container's transport events,
//! oldest first, with where each happened, counted by kind, and the milestones they mark, in
//! the reference MCP server's shape. The categories and milestones are read from the event
//! names by [`category`] and [`milestone`].

use super::error::ToolError;
use boxtrack_app::containers;
use boxtrack_app::model::Account;
use boxtrack_app::model::TransportEventRow;
use schemars::JsonSchema;
use serde::Serialize;
use uuid::Uuid;

use boxtrack_core::{reference, time};
use boxtrack_http::Front;

use super::container::ContainerId;
use super::tool::{Cx, Tool};

/// `get_container_transport_events`.
pub struct GetTransportEvents;

impl Tool for GetTransportEvents {
    const GUIDE: super::contract::Guide = super::guides::EVENTS;
    type Input = ContainerId;
    type Output = EventsAnswer;
    const NAME: &'static str = "get_container_transport_events";
    const TITLE: &'static str = "Get Container Transport Events";
    const DESCRIPTION: &'static str = "Get the transport event timeline of a container: every milestone and move (vessel loaded, departed, arrived, discharged, rail moves, pickup), oldest first, with where each happened, counts by kind and the milestones reached, without loading the whole container.";

    async fn call(cx: &Cx<'_>, input: ContainerId) -> Result<EventsAnswer, ToolError> {
        get(cx.state, cx.account, input.id).await
    }
}

/// Where an event happened.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Place {
    /// Name.
    pub name: Option<String>,
    /// UN/LOCODE of a port, FIRMS code of a terminal.
    pub code: Option<String>,
    /// `terminal` or `port`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
}

/// One event of the timeline.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TimelineEvent {
    /// The event (`container.transport.vessel_loaded`, ...).
    pub event: String,
    /// When (RFC 3339, UTC; empty when not reported).
    pub timestamp: String,
    /// The place's IANA zone.
    pub timezone: Option<String>,
    /// The voyage.
    pub voyage_number: Option<String>,
    /// Where.
    pub location: Option<Place>,
}

/// Events counted by kind.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct Categories {
    /// Vessel moves.
    pub vessel_events: usize,
    /// Rail moves.
    pub rail_events: usize,
    /// Truck moves.
    pub truck_events: usize,
    /// Gate moves and discharges at terminals.
    pub terminal_events: usize,
    /// The rest.
    pub other_events: usize,
}

/// The milestones the events mark (the latest of each).
#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct EventMilestones {
    /// Loaded on the vessel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vessel_loaded_at: Option<String>,
    /// The vessel departed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vessel_departed_at: Option<String>,
    /// The vessel arrived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vessel_arrived_at: Option<String>,
    /// Discharged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discharged_at: Option<String>,
    /// Loaded on rail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rail_loaded_at: Option<String>,
    /// The train departed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rail_departed_at: Option<String>,
    /// The train arrived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rail_arrived_at: Option<String>,
    /// Out full (picked up).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivered_at: Option<String>,
}

/// Facts about the answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EventsMetadata {
    /// Where the events were read.
    pub source: String,
    /// Whether the container exists (always, in an answer).
    pub container_found: bool,
}

/// `get_container_transport_events`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EventsAnswer {
    /// How many events.
    pub total_events: usize,
    /// Counted by kind.
    pub event_categories: Categories,
    /// Each, oldest first.
    pub timeline: Vec<TimelineEvent>,
    /// The milestones they mark.
    pub milestones: EventMilestones,
    /// Facts about the answer.
    #[serde(rename = "_metadata")]
    pub metadata: EventsMetadata,
}

/// The kind of a move, from its name: vessel, rail, truck, terminal or other.
pub fn category(event: &str) -> &'static str {
    let e = event.to_ascii_lowercase();
    if e.contains("vessel") || e.contains("ship") {
        "vessel"
    } else if e.contains("rail") {
        "rail"
    } else if e.contains("truck") {
        "truck"
    } else if e.contains("gate") || e.contains("terminal") || e.contains("discharged") {
        "terminal"
    } else {
        "other"
    }
}

/// The milestone an event marks, if any.
pub fn milestone(event: &str) -> Option<&'static str> {
    let e = event.to_ascii_lowercase();
    let any = |names: &[&str]| names.iter().any(|n| e.contains(n));
    if any(&["vessel.loaded", "vessel_loaded"]) {
        Some("vessel_loaded_at")
    } else if any(&["vessel.departed", "vessel_departed"]) {
        Some("vessel_departed_at")
    } else if any(&["vessel.arrived", "vessel_arrived"]) {
        Some("vessel_arrived_at")
    } else if e.contains("discharged") {
        Some("discharged_at")
    } else if any(&["rail.loaded", "rail_loaded"]) {
        Some("rail_loaded_at")
    } else if any(&["rail.departed", "rail_departed"]) {
        Some("rail_departed_at")
    } else if any(&["rail.arrived", "rail_arrived"]) {
        Some("rail_arrived_at")
    } else if e.contains("full_out") {
        Some("delivered_at")
    } else {
        None
    }
}

fn place(e: &TransportEventRow) -> Option<Place> {
    if let Some(firms) = e.terminal.as_deref() {
        return Some(Place {
            name: reference::terminal(firms).map(|t| t.name.clone()),
            code: Some(firms.to_string()),
            kind: Some("terminal".into()),
        });
    }
    let locode = e.locode.as_deref()?;
    Some(Place {
        name: reference::port(locode).and_then(|p| p.name.clone()),
        code: Some(locode.to_string()),
        kind: Some("port".into()),
    })
}

/// The answer for a container's events (oldest first, as the store reads them).
pub fn answer(mut rows: Vec<TransportEventRow>) -> EventsAnswer {
    rows.sort_by_key(|e| (e.at_us.unwrap_or(i64::MIN), e.created_us));
    let mut categories = Categories::default();
    let mut milestones = EventMilestones::default();
    let timeline: Vec<TimelineEvent> = rows
        .iter()
        .map(|e| {
            match category(&e.event) {
                "vessel" => categories.vessel_events += 1,
                "rail" => categories.rail_events += 1,
                "truck" => categories.truck_events += 1,
                "terminal" => categories.terminal_events += 1,
                _ => categories.other_events += 1,
            }
            let timestamp = e.at_us.map(time::format_micros).unwrap_or_default();
            let slot = match milestone(&e.event) {
                Some("vessel_loaded_at") => Some(&mut milestones.vessel_loaded_at),
                Some("vessel_departed_at") => Some(&mut milestones.vessel_departed_at),
                Some("vessel_arrived_at") => Some(&mut milestones.vessel_arrived_at),
                Some("discharged_at") => Some(&mut milestones.discharged_at),
                Some("rail_loaded_at") => Some(&mut milestones.rail_loaded_at),
                Some("rail_departed_at") => Some(&mut milestones.rail_departed_at),
                Some("rail_arrived_at") => Some(&mut milestones.rail_arrived_at),
                Some("delivered_at") => Some(&mut milestones.delivered_at),
                _ => None,
            };
            // the latest of each wins (the timeline is oldest first)
            if let Some(slot) = slot
                && !timestamp.is_empty()
            {
                *slot = Some(timestamp.clone());
            }
            TimelineEvent {
                event: e.event.clone(),
                timestamp,
                timezone: e.timezone.clone(),
                voyage_number: e.voyage.clone(),
                location: place(e),
            }
        })
        .collect();
    EventsAnswer {
        total_events: timeline.len(),
        event_categories: categories,
        timeline,
        milestones,
        metadata: EventsMetadata {
            source: "transport_events_subresource".into(),
            container_found: true,
        },
    }
}

/// `get_container_transport_events`.
pub(super) async fn get(
    state: &Front,
    account: &Account,
    id: Uuid,
) -> Result<EventsAnswer, ToolError> {
    let unavailable = ToolError::from_app("events");
    containers::show(&state.ctx.db, account.id, id, false)
        .await
        .map_err(unavailable)?
        .ok_or_else(|| format!("No container found with id {id}. Use search_container to find a container's id by its number."))?;
    let rows = containers::events(&state.ctx.db, account.id, id, 10_000)
        .await
        .map_err(unavailable)?;
    Ok(answer(rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_sorted_into_kinds_and_milestones() {
        assert_eq!(category("container.transport.vessel_loaded"), "vessel");
        assert_eq!(category("container.transport.rail_departed"), "rail");
        assert_eq!(category("container.transport.full_out"), "other");
        assert_eq!(category("container.transport.vessel_discharged"), "vessel");
        assert_eq!(category("container.transport.empty_in"), "other");
        assert_eq!(
            milestone("container.transport.vessel_departed"),
            Some("vessel_departed_at")
        );
        assert_eq!(
            milestone("container.transport.vessel_discharged"),
            Some("discharged_at")
        );
        assert_eq!(
            milestone("container.transport.rail_arrived"),
            Some("rail_arrived_at")
        );
        assert_eq!(
            milestone("container.transport.full_out"),
            Some("delivered_at")
        );
        assert_eq!(milestone("container.transport.empty_out"), None);
    }
}
