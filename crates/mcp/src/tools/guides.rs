//! Each tool's standing guidance ([`Guide`]): what its answers are for, which fields carry
//! them, how to present them and where to go next. One place, so that the tools' advice
//! reads as one voice; each tool names its guide in its `impl Tool`.

use boxtrack_core::tracking::assess;

use super::contract::Guide;

/// `whoami`.
pub const WHOAMI: Guide = Guide {
    purpose: "Identify the account the tools read and what it may do.",
    can_answer: &[
        "Which account am I using?",
        "Which features does this account have?",
    ],
    requires_more_data: &[],
    relevant_fields: &["account", "entitlements", "plan"],
    presentation: "One or two sentences: the account's name, its plan and the features it lacks that the user may need.",
    follow_ups: &["What is on my worklist?", "Track a new container"],
    tools: &["list_containers", "track_container"],
};

/// `summarize_containers`.
pub const SUMMARIZE: Guide = Guide {
    purpose: "Count the account's containers by a grouping to see where work is.",
    can_answer: &[
        "How many containers are in each status?",
        "Where are my containers?",
    ],
    requires_more_data: &["Which containers exactly (list_containers with the group's filter)"],
    relevant_fields: &["groups", "total"],
    presentation: "A short table of the groups with their counts, largest first; the total once.",
    follow_ups: &["Show the containers of the largest group"],
    tools: &["list_containers"],
};

/// `search_docs`.
pub const SEARCH_DOCS: Guide = Guide {
    purpose: "Find boxtrack's own documentation on a question about the service.",
    can_answer: &["How does a feature of boxtrack work?"],
    requires_more_data: &[],
    relevant_fields: &["results"],
    presentation: "Answer from the passages found, naming the document each came from; say so when none answers the question.",
    follow_ups: &["Read the guide on MCP queries"],
    tools: &["search_container"],
};

/// `list_parties`.
pub const PARTIES: Guide = Guide {
    purpose: "List the parties (customers, consignees) the account's shipments name.",
    can_answer: &["Which customers do I ship for?"],
    requires_more_data: &["Their shipments (list_shipments with the party's filter)"],
    relevant_fields: &["items"],
    presentation: "A list of the parties' names.",
    follow_ups: &["Show one party's shipments"],
    tools: &["list_shipments"],
};

/// `search_container`.
pub const SEARCH: Guide = Guide {
    purpose: "Resolve a container number, bill of lading, booking or reference into boxtrack ids.",
    can_answer: &[
        "Is this number tracked?",
        "Which container or shipment has this number?",
    ],
    requires_more_data: &["The container's status and dates (get_container)"],
    relevant_fields: &["containers", "shipments", "total_results"],
    presentation: "Name what was found by its number and status; with nothing found, say the number is not tracked and offer to track it.",
    follow_ups: &["Show the container's details", "Track this number"],
    tools: &["get_container", "get_shipment_details", "track_container"],
};

/// `track_container`.
pub const TRACK: Guide = Guide {
    purpose: "Start tracking a number (or find that it is tracked already).",
    can_answer: &["Is this number being tracked now?"],
    requires_more_data: &["The container's data once the carrier answers (get_container)"],
    relevant_fields: &["tracking_request_created", "status", "id"],
    presentation: "Say whether tracking started or was already running, and when data can be expected.",
    follow_ups: &["Show the container when data arrives"],
    tools: &["get_container", "list_tracking_requests"],
};

/// `get_container`.
pub const CONTAINER: Guide = Guide {
    purpose: "A container's current state: where it is, whether it can be picked up, what it costs.",
    can_answer: &[
        "Where is my container?",
        "Can it be picked up?",
        "When is its last free day?",
        "Are there holds or fees?",
    ],
    requires_more_data: &["Its full history of moves (get_container_transport_events)"],
    relevant_fields: &["status", "location", "demurrage", "terminals", "_metadata"],
    presentation: "Lead with the status and what the user can do next (pick up, wait, clear a hold); give the last free day with its urgency; fees that are null are not reported yet, not zero.",
    follow_ups: &["Show its journey", "Is it ready for pickup?"],
    tools: &[
        "get_container_transport_events",
        "get_container_readiness",
        "get_shipment_details",
    ],
};

/// `get_demurrage_exposure`.
pub const EXPOSURE: Guide = Guide {
    purpose: "What the account's boxes owe in demurrage, storage and detention, and what is coming.",
    can_answer: &[
        "What is my demurrage exposure?",
        "Which containers are accruing charges?",
        "Whose free time ends tomorrow?",
    ],
    requires_more_data: &["One box's charges day by day (get_container)"],
    relevant_fields: &[
        "totals",
        "accruing",
        "free_time_ends_today",
        "free_time_ends_tomorrow",
    ],
    presentation: "The total accrued and what tomorrow adds per currency first, then the boxes accruing (most first) and the free times ending today and tomorrow; say how many boxes were not priced (no tariff).",
    follow_ups: &["Show the charges of the container accruing most"],
    tools: &["get_container", "list_containers"],
};

/// `get_container_readiness`.
pub const READINESS: Guide = Guide {
    purpose: "Whether a container can be picked up now, and what stands in the way.",
    can_answer: &["Can I pick it up?", "What blocks pickup?"],
    requires_more_data: &[],
    relevant_fields: &["ready", "blockers", "last_free_day"],
    presentation: "Yes or no first, then each blocker with what clears it, then the last free day.",
    follow_ups: &["Show the container's fees and holds"],
    tools: &["get_container"],
};

/// `get_shipment_details`.
pub const SHIPMENT: Guide = Guide {
    purpose: "A shipment's route, vessel, dates and containers.",
    can_answer: &[
        "When does my shipment arrive?",
        "Which containers are on it?",
    ],
    requires_more_data: &["A container's own state (get_container)"],
    relevant_fields: &["status", "routing", "containers"],
    presentation: "The route as ports of lading and discharge with estimated and actual times, the vessel, then its containers in a short list.",
    follow_ups: &["Show one of its containers"],
    tools: &["get_container", "get_container_transport_events"],
};

/// `get_container_transport_events`.
pub const EVENTS: Guide = Guide {
    purpose: "A container's journey, move by move.",
    can_answer: &[
        "What happened to my container?",
        "When did it arrive, discharge, leave?",
    ],
    requires_more_data: &["Its current holds and fees (get_container)"],
    relevant_fields: &["timeline", "milestones", "latest_event"],
    presentation: "A chronological list of what happened, each with its place and local time; estimates apart from what happened, only the current one of each.",
    follow_ups: &["Where is it now?", "Show its route"],
    tools: &["get_container", "get_container_route"],
};

/// `get_supported_shipping_lines`.
pub const LINES: Guide = Guide {
    purpose: "The shipping lines boxtrack can track, with their SCAC codes.",
    can_answer: &["Is this carrier supported?", "What is this carrier's SCAC?"],
    requires_more_data: &[],
    relevant_fields: &["shipping_lines", "total_lines"],
    presentation: "Name the matching lines with their SCAC; for a long list, only those the user asked about.",
    follow_ups: &["Track a number with this carrier"],
    tools: &["track_container"],
};

/// `get_container_route`.
pub const ROUTE: Guide = Guide {
    purpose: "A container's route port by port, with each leg's vessel and times.",
    can_answer: &[
        "Which ports does it call at?",
        "Where does it change vessel?",
    ],
    requires_more_data: &[],
    relevant_fields: &["route_locations", "total_legs"],
    presentation: "The journey as origin, transshipments and destination, each leg with its vessel and departure and arrival times. When the route is not available, say why and use the alternative given.",
    follow_ups: &["Show its moves"],
    tools: &["get_container_transport_events", "get_shipment_details"],
};

/// `list_shipments`.
pub const SHIPMENTS: Guide = Guide {
    purpose: "A worklist of the account's shipments.",
    can_answer: &[
        "Which shipments arrive this week?",
        "Which shipments are on this vessel?",
    ],
    requires_more_data: &["A shipment's containers in detail (get_shipment_details)"],
    relevant_fields: &["items", "meta", "_metadata"],
    presentation: "Present the rows as the display hints say.",
    follow_ups: &["Show one shipment", "Narrow the list"],
    tools: &["get_shipment_details", "list_containers"],
};

/// `list_containers`.
pub const CONTAINERS: Guide = Guide {
    purpose: "A worklist of the account's containers.",
    can_answer: &[
        "Which containers are ready for pickup?",
        "Which have a last free day soon?",
    ],
    requires_more_data: &["One container's full state (get_container)"],
    relevant_fields: &["items", "meta", "_metadata"],
    presentation: "Present the rows as the display hints say.",
    follow_ups: &["Show one container", "Narrow the list"],
    tools: &["get_container", "list_tracking_requests"],
};

/// `list_tracking_requests`.
pub const REQUESTS: Guide = Guide {
    purpose: "The account's tracking requests and how each went.",
    can_answer: &["Which numbers failed to track?", "What is pending?"],
    requires_more_data: &["The shipment a request created (get_shipment_details)"],
    relevant_fields: &["items", "meta"],
    presentation: "Present the rows as the display hints say; for failed requests, give the reason.",
    follow_ups: &["Track a failed number again"],
    tools: &["track_container", "get_shipment_details"],
};

/// `stop_tracking`.
pub const STOP: Guide = Guide {
    purpose: "Stop tracking a shipment (no more updates or webhooks for it).",
    can_answer: &["Is tracking stopped?"],
    requires_more_data: &[],
    relevant_fields: &["shipment_id", "tracking_stopped"],
    presentation: "Confirm in one sentence; tracking can be resumed.",
    follow_ups: &["Resume tracking"],
    tools: &["resume_tracking"],
};

/// `resume_tracking`.
pub const RESUME: Guide = Guide {
    purpose: "Resume tracking a stopped shipment.",
    can_answer: &["Is tracking running again?"],
    requires_more_data: &[],
    relevant_fields: &["shipment_id", "tracking_stopped"],
    presentation: "Confirm in one sentence.",
    follow_ups: &["Show the shipment"],
    tools: &["get_shipment_details"],
};

/// `refresh_container`.
pub const REFRESH: Guide = Guide {
    purpose: "Ask the container's sources again now and report what changed.",
    can_answer: &["Is there anything new on this container?"],
    requires_more_data: &[],
    relevant_fields: &["changes", "message"],
    presentation: "Say what changed, or that nothing did.",
    follow_ups: &["Show the container"],
    tools: &["get_container"],
};

/// `enter_container_facts`.
pub const ENTER: Guide = Guide {
    purpose: "Record what a person knows first-hand about a container, or clear it.",
    can_answer: &[
        "The line told me the last free day is Friday",
        "We picked the box up this morning",
    ],
    requires_more_data: &[],
    relevant_fields: &[
        "ready_for_pickup",
        "pickup_lfd",
        "pickup_appointment_at",
        "release_gates",
    ],
    presentation: "Say what was recorded and what the container shows now.",
    follow_ups: &["Show the container"],
    tools: &["get_container"],
};

/// `list_webhooks`.
pub const WEBHOOKS: Guide = Guide {
    purpose: "The account's webhooks and what each subscribes to.",
    can_answer: &["Where are updates sent?"],
    requires_more_data: &[],
    relevant_fields: &["items"],
    presentation: "A list of the webhooks' addresses with their events and whether each is active.",
    follow_ups: &["Add a webhook"],
    tools: &["create_webhook"],
};

/// `create_webhook`.
pub const CREATE_WEBHOOK: Guide = Guide {
    purpose: "Subscribe an address to the account's events.",
    can_answer: &["Is the webhook set up?"],
    requires_more_data: &[],
    relevant_fields: &["id", "url", "events", "secret"],
    presentation: "Confirm the address and events; tell the user to keep the signing secret, which is shown once.",
    follow_ups: &["List the webhooks"],
    tools: &["list_webhooks"],
};

/// What `get_container`'s answer can settle, what it needs more for, and how to present it,
/// from the stage of the journey, what was loaded and the urgency of the last free day.
pub fn container_guidance(
    lifecycle: assess::Lifecycle,
    includes: &[String],
    urgency: &str,
) -> (Vec<String>, Vec<String>, String) {
    use assess::Lifecycle as L;
    let has = |i: &str| includes.iter().any(|x| x == i);
    let mut can = vec![
        "where the container is and its status",
        "its equipment",
        "its last free day, holds and fees at the port of discharge",
    ];
    let mut more = Vec::new();
    if has("shipment") {
        can.push("its bill of lading, carrier and ports");
    } else {
        more.push("the shipment's route and carrier: include shipment, or get_shipment_details");
    }
    if has("transport_events") {
        can.push("its latest move and how many moves it made");
    } else {
        more.push("its journey move by move: get_container_transport_events");
    }
    let stage = match lifecycle {
        L::InTransit => {
            "It is still at sea or before loading: lead with the expected arrival (get_shipment_details has the ETA); last free day and fees do not apply yet."
        }
        L::Arrived => {
            "The vessel is at the port of discharge: say it arrived and is not discharged yet; availability comes after discharge."
        }
        L::Discharged | L::AtTerminal => {
            "It is at the terminal: lead with whether it can be picked up, then holds blocking it, then the last free day and its urgency."
        }
        L::AvailableForPickup => {
            "It can be picked up: lead with that and the last free day; name any fees to pay first."
        }
        L::OnRail => {
            "It is on rail to its inland destination: lead with the rail leg and its expected arrival; the port's last free day no longer applies."
        }
        L::Delivered => {
            "It has left the terminal: say when it was picked up or delivered; last free day and holds no longer matter."
        }
    };
    let mut guide = stage.to_string();
    if matches!(urgency, "overdue" | "imminent") {
        guide.push_str(" The last free day is ");
        guide.push_str(if urgency == "overdue" {
            "past: demurrage is accruing; say so first."
        } else {
            "within three days: say so first."
        });
    }
    guide.push_str(" Fees that are null are not reported yet, not zero.");
    (
        can.into_iter().map(str::to_string).collect(),
        more.into_iter().map(str::to_string).collect(),
        guide,
    )
}

#[cfg(test)]
mod guidance_tests {
    use super::*;

    #[test]
    fn the_guidance_follows_the_stage_and_what_was_loaded() {
        let (can, more, guide) = container_guidance(assess::Lifecycle::InTransit, &[], "unknown");
        assert!(
            more.iter()
                .any(|m| m.contains("get_container_transport_events"))
        );
        assert!(more.iter().any(|m| m.contains("get_shipment_details")));
        assert!(!can.is_empty() && guide.contains("expected arrival"));
        let loaded = vec!["shipment".to_string(), "transport_events".to_string()];
        let (can, more, guide) =
            container_guidance(assess::Lifecycle::Discharged, &loaded, "overdue");
        assert!(more.is_empty() && can.len() == 5, "{can:?} {more:?}");
        assert!(guide.contains("demurrage is accruing") && guide.contains("not reported yet"));
    }
}
