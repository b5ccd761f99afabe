//! Searching the account's records by number: `GET /v2/search` and MCP's `search_container`
//! ask the same question and get the same hits, with what each hit shows of its entity read
//! once per kind for all of them.

use std::collections::HashMap;

use boxtrack_store::reads::{self, ContainerRow, SearchHit, ShipmentRow};
use boxtrack_store::tracking::{self, TrackingRequestRow};
use uuid::Uuid;

use crate::AppError;
use crate::ctx::Ctx;

/// The hits of a search, best first, with their entities.
#[derive(Debug, Default)]
pub struct Found {
    /// Each hit with its score (higher is better), best first.
    pub ranked: Vec<(u8, SearchHit)>,
    /// The containers hit, by id.
    pub containers: HashMap<Uuid, ContainerRow>,
    /// The tracking requests hit, by id.
    pub requests: HashMap<Uuid, TrackingRequestRow>,
    /// The shipments hit and those of the containers hit, by id.
    pub shipments: HashMap<Uuid, ShipmentRow>,
    /// The containers of each shipment hit, by shipment id.
    pub boxes: HashMap<Uuid, Vec<ContainerRow>>,
}

impl Found {
    /// The ids of the hits of one kind (`container`, `shipment`, `tracking_request`).
    fn ids(&self, kind: &str) -> Vec<Uuid> {
        self.ranked
            .iter()
            .filter(|(_, h)| h.entity_type == kind)
            .map(|(_, h)| h.id)
            .collect()
    }
}

/// The account's records whose numbers match `query`, at most `limit` (read where the
/// account's lists are read: a replica once it has the account's writes).
pub async fn search(
    ctx: &Ctx,
    account_id: Uuid,
    query: &str,
    limit: usize,
) -> Result<Found, AppError> {
    let db = ctx.read_db(account_id);
    let mut found = Found {
        ranked: reads::search_ranked(db, account_id, query, limit).await?,
        ..Found::default()
    };
    found.containers = reads::containers_by_id(db, account_id, &found.ids("container")).await?;
    found.requests = tracking::get_requests(db, account_id, &found.ids("tracking_request")).await?;
    let mut shipment_ids = found.ids("shipment");
    shipment_ids.extend(found.containers.values().map(|c| c.shipment_id));
    found.shipments = reads::shipments_by_id(db, account_id, &shipment_ids).await?;
    found.boxes = reads::containers_of_many(db, account_id, &found.ids("shipment")).await?;
    Ok(found)
}
