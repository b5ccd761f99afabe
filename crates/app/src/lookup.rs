//! A number looked up for an embed (the tracking widget on a customer's site): the shipments
//! whose bill of lading or reference number it is (with all their containers), and those of
//! the containers whose number or reference number it is (with only those containers), each
//! container with its transport events.

use std::collections::BTreeMap;

use boxtrack_store::Db;
use boxtrack_store::reads::{self, ContainerRow, ShipmentRow, TransportEventRow};
use uuid::Uuid;

use crate::AppError;

/// The shipments a lookup shows at most.
pub const MAX_SHIPMENTS: usize = 10;

/// The events a lookup shows of each container at most.
const EVENTS_EACH: i64 = 200;

/// A shipment a number names, with the containers shown (by number).
#[derive(Debug)]
pub struct Looked {
    /// The shipment.
    pub shipment: ShipmentRow,
    /// Its containers the number names (all of them when it names the shipment), each with
    /// its transport events, by container number.
    pub containers: Vec<(ContainerRow, Vec<TransportEventRow>)>,
}

/// Whether `refs` (a JSON array of strings) holds `number`, ignoring case.
fn refs_hold(refs: &str, number: &str) -> bool {
    serde_json::from_str::<Vec<String>>(refs)
        .unwrap_or_default()
        .iter()
        .any(|r| r.trim().eq_ignore_ascii_case(number))
}

/// What `number` names exactly among the account's records, at most [`MAX_SHIPMENTS`]
/// shipments.
pub async fn lookup(db: &Db, account_id: Uuid, number: &str) -> Result<Vec<Looked>, AppError> {
    let wanted = wanted(db, account_id, number).await?;
    let ids: Vec<Uuid> = wanted.keys().copied().take(MAX_SHIPMENTS).collect();
    let shipments = reads::shipments_by_id(db, account_id, &ids).await?;
    let mut containers = reads::containers_of_many(db, account_id, &ids).await?;
    let all_ids: Vec<Uuid> = containers.values().flatten().map(|c| c.id).collect();
    let mut events = reads::transport_events_of_many(db, account_id, &all_ids, EVENTS_EACH).await?;
    let mut out = Vec::new();
    for id in ids {
        let Some(shipment) = shipments.get(&id).cloned() else {
            continue;
        };
        let only = wanted.get(&id).cloned().flatten();
        let mut boxes: Vec<ContainerRow> = containers
            .remove(&id)
            .unwrap_or_default()
            .into_iter()
            .filter(|c| only.as_ref().is_none_or(|o| o.contains(&c.id)))
            .collect();
        boxes.sort_by(|a, b| a.number.cmp(&b.number));
        let containers = boxes
            .into_iter()
            .map(|c| {
                let evs = events.remove(&c.id).unwrap_or_default();
                (c, evs)
            })
            .collect();
        out.push(Looked {
            shipment,
            containers,
        });
    }
    Ok(out)
}

/// The shipments whose bill of lading or reference number is `number` (all their
/// containers: `None`), and those of the containers whose number or reference number is
/// (only those containers).
async fn wanted(
    db: &Db,
    account_id: Uuid,
    number: &str,
) -> Result<BTreeMap<Uuid, Option<Vec<Uuid>>>, AppError> {
    let hits = reads::search(db, account_id, number, 50).await?;
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
    Ok(wanted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_number_is_held_whatever_its_case_and_spaces() {
        assert!(refs_hold(r#"["po-7 ", "X"]"#, "PO-7"));
        assert!(refs_hold(r#"["PO-1","po-22"]"#, "PO-22"));
        assert!(!refs_hold(r#"["PO-123"]"#, "PO-12"));
        assert!(!refs_hold("not json", "PO-7"));
    }
}
