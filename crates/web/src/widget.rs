//! What the tracking widget answers (`GET /embed/v1/track`): the account's shipments and
//! containers whose bill of lading, container or reference number is exactly the number a
//! visitor typed, with what a visitor needs and nothing more (no ids of other records, no
//! raw data, no parties or custom fields).

use std::collections::BTreeMap;

use boxtrack_core::reference;
use boxtrack_core::time::format_micros;
use boxtrack_core::tracking::rules::ContainerStatus;
use boxtrack_store::{Db, reads};
use serde_json::{Value, json};
use uuid::Uuid;

/// The most shipments one answer lists.
const MAX_SHIPMENTS: usize = 10;

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

/// Whether `refs` (a JSON array of strings) holds `number`, ignoring case.
fn refs_hold(refs: &str, number: &str) -> bool {
    serde_json::from_str::<Vec<String>>(refs)
        .unwrap_or_default()
        .iter()
        .any(|r| r.trim().eq_ignore_ascii_case(number))
}

fn at(us: Option<i64>) -> Value {
    us.map_or(Value::Null, |t| json!(format_micros(t)))
}

fn port(locode: Option<&str>, zone: Option<&str>) -> Value {
    let Some(l) = locode else {
        return Value::Null;
    };
    let p = reference::port(l);
    json!({
        "locode": l,
        "name": p.and_then(|p| p.name.clone()),
        "time_zone": zone.map(str::to_string).or_else(|| p.map(|p| p.time_zone.clone())),
    })
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
pub async fn lookup(db: &Db, account_id: Uuid, number: &str) -> boxtrack_store::Result<Value> {
    let hits = reads::search(db, account_id, number, 50).await?;
    // shipment id → the containers to show (None: all of the shipment's)
    let mut wanted: BTreeMap<Uuid, Option<Vec<Uuid>>> = BTreeMap::new();
    let mut container_hits = Vec::new();
    for h in &hits {
        let exact = h.number.eq_ignore_ascii_case(number) || refs_hold(&h.refs, number);
        match (h.entity_type.as_str(), exact) {
            ("shipment", true) => {
                wanted.insert(h.id, None);
            }
            ("container", true) => container_hits.push(h.id),
            _ => {}
        }
    }
    let found = reads::containers_by_id(db, account_id, &container_hits).await?;
    for c in found.values() {
        if let Some(list) = wanted.entry(c.shipment_id).or_insert_with(|| Some(vec![])) {
            list.push(c.id);
        }
    }
    let ids: Vec<Uuid> = wanted.keys().copied().take(MAX_SHIPMENTS).collect();
    let shipments = reads::shipments_by_id(db, account_id, &ids).await?;
    let mut containers = reads::containers_of_many(db, account_id, &ids).await?;
    let all_ids: Vec<Uuid> = containers.values().flatten().map(|c| c.id).collect();
    let mut events = reads::transport_events_of_many(db, account_id, &all_ids, 200).await?;
    let mut data = Vec::new();
    for id in ids {
        let Some(s) = shipments.get(&id) else {
            continue;
        };
        let only = wanted.get(&id).cloned().flatten();
        let mut boxes: Vec<_> = containers
            .remove(&id)
            .unwrap_or_default()
            .into_iter()
            .filter(|c| only.as_ref().is_none_or(|o| o.contains(&c.id)))
            .collect();
        boxes.sort_by(|a, b| a.number.cmp(&b.number));
        let (route, st) = (&s.route.0, &s.state.0);
        let line = boxtrack_core::carriers::by_scac(&s.scac);
        data.push(json!({
            "shipment": {
                "id": s.id,
                "bill_of_lading_number": s.bill_of_lading_number,
                "shipping_line_scac": s.scac,
                "shipping_line_name": line.map(|l| l.name.clone()),
                "port_of_lading": port(route.pol_locode.as_deref(), route.pol_timezone.as_deref()),
                "port_of_discharge": port(route.pod_locode.as_deref(), route.pod_timezone.as_deref()),
                "pod_eta_at": at(st.pod_eta_us),
                "pod_ata_at": at(st.pod_ata_us),
                "ref_numbers": s.ref_numbers.0,
            },
            "containers": boxes.iter().map(|c| {
                let status = ContainerStatus::parse(&c.current_status);
                let mut milestones: Vec<Value> = events.remove(&c.id).unwrap_or_default().iter()
                    .filter(|e| e.event.starts_with("container.transport."))
                    .map(|e| {
                        let estimated = e.event.contains(".estimated.");
                        let place = e.locode.as_deref().and_then(reference::port);
                        json!({
                            "event": e.event.strip_prefix("container.transport.").unwrap_or(&e.event),
                            "label": milestone_label(&e.event),
                            "at": at(e.at_us),
                            "estimated": estimated,
                            "location": place.and_then(|p| p.name.clone()).or_else(|| e.locode.clone()),
                            "locode": e.locode,
                            "time_zone": e.timezone.clone().or_else(|| place.map(|p| p.time_zone.clone())),
                        })
                    })
                    .collect();
                milestones.sort_by(|a, b| a["at"].as_str().cmp(&b["at"].as_str()));
                json!({
                    "id": c.id,
                    "number": c.number,
                    "status": c.current_status,
                    "status_label": status.map_or(c.current_status.replace('_', " "), |s| s.label().to_string()),
                    "pickup_lfd": at(c.pickup_lfd_us),
                    "ready_for_pickup": c.ready_for_pickup,
                    "holds": c.state.0.holds.iter().map(|h| json!({"name": h.name, "status": h.status})).collect::<Vec<_>>(),
                    "milestones": milestones,
                })
            }).collect::<Vec<_>>(),
        }));
    }
    Ok(json!({ "data": data }))
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
    fn refs_match_exactly_not_in_part() {
        assert!(refs_hold(r#"["PO-1","po-22"]"#, "PO-22"));
        assert!(!refs_hold(r#"["PO-123"]"#, "PO-12"));
        assert!(!refs_hold("not json", "PO-1"));
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
