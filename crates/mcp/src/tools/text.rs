//! Short text renderings of the tools' answers, for clients that show text only (the answer's
//! JSON follows as a second text block, as MCP advises). Each reads the answer's JSON, so it
//! says what the structured answer says.

use serde_json::Value;

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or("?")
}

fn opt(v: &Value) -> Option<&str> {
    v.as_str().filter(|s| !s.is_empty())
}

fn yes_no(v: &Value) -> &'static str {
    match v.as_bool() {
        Some(true) => "yes",
        Some(false) => "no",
        None => "not reported",
    }
}

fn container(a: &Value) -> String {
    let d = &a["demurrage"];
    let lfd = match (
        opt(&d["pickup_lfd_local_date"]),
        d["days_until_lfd"].as_i64(),
    ) {
        (Some(day), Some(n)) => {
            format!("last free day {day} ({n} days from today, terminal's calendar)")
        }
        (Some(day), None) => format!("last free day {day}"),
        _ => "no last free day reported".to_string(),
    };
    let urgency = if d["urgency_suppressed"] == true {
        format!("urgency withheld: {}", text(&d["urgency_reason"]))
    } else {
        format!("urgency {}", text(&d["urgency"]))
    };
    let holds = d["holds_at_pod_terminal"]
        .as_array()
        .map(|h| h.iter().filter(|h| h["status"] == "hold").count())
        .unwrap_or(0);
    let fees = match (
        d["fees_total_amount"].as_f64(),
        opt(&d["fees_currency_code"]),
    ) {
        (Some(t), Some(c)) if t > 0.0 => format!("fees {t:.2} {c}"),
        _ => "no fees".to_string(),
    };
    format!(
        "Container {} ({}): {} ({}). Available for pickup: {}. {}; {}. Active holds: {}. {}.",
        text(&a["container_number"]),
        text(&a["id"]),
        text(&a["status"]),
        text(&a["status_source"]),
        yes_no(&a["location"]["available_for_pickup"]),
        lfd,
        urgency,
        holds,
        fees,
    )
}

fn list(a: &Value, kind: &str) -> String {
    let items = a["items"].as_array().map_or(0, Vec::len);
    let meta = &a["_metadata"];
    let more = match meta["next_page"].as_u64() {
        Some(n) => format!("; more on page {n}"),
        None => String::new(),
    };
    format!(
        "{items} of {} {kind} on page {}{more}.",
        a["meta"]["total"], meta["page"]
    )
}

/// The short rendering of `name`'s answer, when the tool has one.
pub fn summary(name: &str, a: &Value) -> Option<String> {
    Some(match name {
        "get_container" => container(a),
        "track_container" => tracked(a),
        "get_shipment_details" => shipment(a),
        "get_container_transport_events" => events(a),
        "search_container" => found(a),
        "list_containers" => list(a, "containers"),
        "list_shipments" => list(a, "shipments"),
        "list_tracking_requests" => list(a, "tracking requests"),
        "summarize_containers" => grouped(a),
        "whoami" => whoami(a),
        _ => return None,
    })
}

/// `track_container`: the container when it was tracked already, else the request made.
fn tracked(a: &Value) -> String {
    if a["tracking_request_created"] == false && a["id"].is_string() {
        return format!("Tracked already. {}", container(a));
    }
    let r = &a["tracking_request"];
    format!(
        "Tracking request {} for {} ({}, {}): {}. {}",
        text(&r["id"]),
        text(&r["request_number"]),
        text(&r["number_type"]),
        opt(&r["scac"]).unwrap_or("carrier to be detected"),
        text(&r["status"]),
        text(&a["message"]),
    )
}

/// `get_shipment_details`: the bill, its line and status, its route and arrival, its boxes.
fn shipment(a: &Value) -> String {
    let r = &a["routing"];
    let pod = &r["port_of_discharge"];
    let arrival = match (opt(&pod["ata"]), opt(&pod["eta"])) {
        (Some(t), _) => format!("arrived {t}"),
        (None, Some(t)) => format!("ETA {t}"),
        _ => "no arrival time reported".to_string(),
    };
    format!(
        "Shipment {} ({}) with {}: {}. {} → {}, {}. Containers: {}.",
        text(&a["bill_of_lading"]),
        text(&a["id"]),
        text(&a["shipping_line"]["scac"]),
        text(&a["status"]),
        opt(&r["port_of_lading"]["name"]).unwrap_or("?"),
        opt(&pod["name"]).unwrap_or("?"),
        arrival,
        a["containers"]["count"]
            .as_u64()
            .map_or_else(|| "not loaded".to_string(), |n| n.to_string()),
    )
}

/// `get_container_transport_events`: how many, and the latest.
fn events(a: &Value) -> String {
    match a["timeline"].as_array().and_then(|t| t.last()) {
        Some(e) => format!(
            "{} events; the latest: {} at {}{}.",
            a["total_events"],
            text(&e["event"]),
            text(&e["timestamp"]),
            opt(&e["location"]["name"]).map_or(String::new(), |p| format!(" ({p})")),
        ),
        None => "No transport events yet.".to_string(),
    }
}

/// `search_container`: each container and shipment found.
fn found(a: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in a["containers"].as_array().into_iter().flatten() {
        parts.push(format!(
            "container {} ({}, {})",
            text(&c["container_number"]),
            text(&c["status"]),
            text(&c["id"])
        ));
    }
    for s in a["shipments"].as_array().into_iter().flatten() {
        parts.push(format!(
            "shipment {} ({} containers, {})",
            text(&s["bill_of_lading"]),
            s["container_count"],
            text(&s["id"])
        ));
    }
    if parts.is_empty() {
        "Nothing matches.".to_string()
    } else {
        format!("{} results: {}.", parts.len(), parts.join("; "))
    }
}

/// `summarize_containers`: the count of each group.
fn grouped(a: &Value) -> String {
    let groups: Vec<String> = a["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|g| format!("{} {}", text(&g["label"]), g["count"]))
        .collect();
    format!(
        "{} containers by {}{}: {}.",
        a["total"],
        text(&a["group_by"]),
        if a["truncated"] == true {
            " (counted in part)"
        } else {
            ""
        },
        groups.join(", ")
    )
}

/// `whoami`: the account, its plan, and the credential.
fn whoami(a: &Value) -> String {
    format!(
        "{} (plan {}), with {}.",
        text(&a["account"]["company_name"]),
        text(&a["account"]["plan"]),
        match text(&a["kind"]) {
            "user" => "a signed-in user",
            "api_key" => "an API key",
            _ => "no credential",
        }
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::summary;

    #[test]
    fn a_container_reads_in_a_sentence() {
        let a = json!({
            "id": "c1", "container_number": "MSCU1234566", "status": "available", "status_source": "current_status",
            "location": {"available_for_pickup": true},
            "demurrage": {"pickup_lfd_local_date": "2026-09-20", "days_until_lfd": 2, "urgency": "imminent",
                "urgency_suppressed": false, "holds_at_pod_terminal": [{"name": "customs", "status": "hold"}, {"name": "USDA", "status": "pending"}],
                "fees_total_amount": 395.0, "fees_currency_code": "USD"}
        });
        assert_eq!(
            summary("get_container", &a).unwrap(),
            "Container MSCU1234566 (c1): available (current_status). Available for pickup: yes. last free day 2026-09-20 (2 days from today, terminal's calendar); urgency imminent. Active holds: 1. fees 395.00 USD."
        );
        let withheld = json!({"demurrage": {"urgency_suppressed": true, "urgency_reason": "tracking is stopped"}});
        assert!(
            summary("get_container", &withheld)
                .unwrap()
                .contains("urgency withheld: tracking is stopped")
        );
        assert!(summary("list_webhooks", &a).is_none());
        let page = json!({"items": [1, 2], "meta": {"total": 30}, "_metadata": {"page": 1, "next_page": 2}});
        assert_eq!(
            summary("list_containers", &page).unwrap(),
            "2 of 30 containers on page 1; more on page 2."
        );
    }
}
