//! Listing containers: `GET /v2/containers`, the console's containers table and MCP's
//! `list_containers` ask the same question ([`ListContainers`]) and get the same answer
//! ([`ContainerPage`]).

use std::collections::HashMap;

use boxtrack_core::paging::Page;
use boxtrack_core::tracking::provenance::{self, FieldSource};
use boxtrack_core::tracking::release::Gate;
use boxtrack_core::tracking::rules::ContainerStatus;
use boxtrack_core::{carriers, ident};
use boxtrack_store::reads::{
    self, ContainerRow, EventOrder, Filter, ListSort, RawEventRow, ShipmentRow, TransportEventRow,
};
use boxtrack_store::{Db, list::Listed, tracking};
use schemars::JsonSchema;
use serde::Deserialize;
use uuid::Uuid;

use crate::AppError;
use crate::ctx::Ctx;
use crate::custom_fields::{self, FieldUsed};
use crate::fields::{AnyOf, Flag, One, Range, Text, Word, given};

/// Which of the account's containers, in which order.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ListContainers {
    /// Container number, the container's or its shipment's ref number (a PO), or bill of
    /// lading
    pub q: Option<Text>,
    /// The filters; all of them hold.
    #[serde(default)]
    pub filter: ContainerFilter,
    /// The order (default -updated_at, most recently updated first); pickup_lfd puts the
    /// soonest last free day first and those without one last, pod_eta_at the soonest
    /// estimated arrival of its shipment (boxtrack's). Orders other than the default page by
    /// page[number], not by cursor.
    pub sort: Option<One<ContainerSort>>,
}

crate::list_filter! {
    /// The filters of the container list.
    pub struct ContainerFilter {
        /// Exact container number
        pub number: Option<Text>,
        /// A current_status value, or several separated by commas (any of them)
        pub current_status: Option<AnyOf<ContainerStatus>>,
        /// Whether the container is ready for pickup
        pub ready_for_pickup: Option<Flag>,
        /// Coalesced last free day
        #[serde(default)]
        pub pickup_lfd: Range,
        /// With an active terminal hold, or without one
        pub on_hold: Option<Flag>,
        /// boxtrack's: a release gate held (customs, line or terminal; several separated by
        /// commas: any of them held)
        pub held: Option<AnyOf<Gate>>,
        /// boxtrack's: a release gate released (customs, line or terminal; several separated
        /// by commas: all of them released)
        pub released: Option<AnyOf<Gate>>,
    }
}

/// The set ([`boxtrack_core::tracking::release::GateSet`]) of the gates named.
fn gate_set(gates: &Option<AnyOf<Gate>>) -> Option<i64> {
    gates
        .as_ref()
        .map(|g| g.0.iter().fold(0, |set, g| set | g.bit()))
        .filter(|set| *set != 0)
}

/// The orders of the container list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContainerSort(pub ListSort);

impl Word for ContainerSort {
    const ALL: &'static [Self] = &[
        ContainerSort(ListSort::UpdatedDesc),
        ContainerSort(ListSort::UpdatedAsc),
        ContainerSort(ListSort::CreatedDesc),
        ContainerSort(ListSort::CreatedAsc),
        ContainerSort(ListSort::LfdAsc),
        ContainerSort(ListSort::LfdDesc),
        ContainerSort(ListSort::EtaAsc),
        ContainerSort(ListSort::EtaDesc),
    ];
    fn word(self) -> &'static str {
        self.0.as_str()
    }
}

impl ListContainers {
    /// The store's filter for this question on the account, with the custom fields it names
    /// looked up (an unknown one is refused naming those that filter) and what it understood
    /// of them.
    pub(crate) async fn filter_in(
        &self,
        db: &Db,
        account_id: Uuid,
    ) -> Result<(Filter, Vec<FieldUsed>), AppError> {
        let mut filter = self.filter();
        let (custom, fields_used) =
            custom_fields::conditions(db, account_id, &self.filter.further.custom_fields).await?;
        filter.custom = custom;
        Ok((filter, fields_used))
    }

    /// The order asked for (the default when none is).
    pub fn sort(&self) -> ListSort {
        self.sort.map(|s| s.0.0).unwrap_or_default()
    }

    /// The store's filter for this question.
    pub fn filter(&self) -> Filter {
        let f = &self.filter;
        let statuses: Vec<String> = f
            .current_status
            .as_ref()
            .map(|s| s.0.iter().map(|c| c.as_str().to_string()).collect())
            .unwrap_or_default();
        let mut out = Filter {
            q: given(&self.q),
            container_number: given(&f.number).map(|n| ident::normalize(&n)),
            statuses,
            ready_for_pickup: f.ready_for_pickup.map(|b| b.0),
            lfd_start_us: f.pickup_lfd.start_us(),
            lfd_end_us: f.pickup_lfd.end_us(),
            on_hold: f.on_hold.map(|b| b.0),
            held_any: gate_set(&f.held),
            released_all: gate_set(&f.released),
            sort: self.sort(),
            ..f.common()
        };
        f.further.add_to(&mut out);
        out
    }
}

/// A page of containers with the shipment of each: whole rows here; the REST fast path reads
/// the same page as the store keeps it prerendered ([`crate::prerendered::containers`]).
#[derive(Debug)]
pub struct ContainerPage<C = ContainerRow, S = ShipmentRow> {
    /// The page's rows and counts.
    pub listed: Listed<C>,
    /// The shipment of each row, by id.
    pub shipments: HashMap<Uuid, S>,
    /// The custom fields the list filtered on, as it understood them.
    pub fields_used: Vec<FieldUsed>,
}

impl ContainerPage {
    /// The shipment of a row, if it is still there.
    pub fn shipment_of(&self, c: &ContainerRow) -> Option<&ShipmentRow> {
        self.shipments.get(&c.shipment_id)
    }
}

/// Lists the account's containers as asked (custom fields asked by name are looked up first;
/// an unknown one is refused naming those that filter).
pub async fn list(
    db: &Db,
    account_id: Uuid,
    asked: &ListContainers,
    page: &Page,
) -> Result<ContainerPage, AppError> {
    let (filter, fields_used) = asked.filter_in(db, account_id).await?;
    let listed = reads::containers_as::<ContainerRow>(db, account_id, &filter, page).await?;
    let ids: Vec<Uuid> = listed.rows.iter().map(|c| c.shipment_id).collect();
    let shipments = reads::shipments_by_id(db, account_id, &ids).await?;
    Ok(ContainerPage {
        listed,
        shipments,
        fields_used,
    })
}

/// One container with its shipment: what every front end shows of it first (whole rows here;
/// the REST fast path reads it as prerendered, [`crate::prerendered::container`]).
#[derive(Debug)]
pub struct Shown<C = ContainerRow, S = ShipmentRow> {
    /// The container.
    pub container: C,
    /// Its shipment (none only if it went away since the container was read).
    pub shipment: Option<S>,
    /// What the shipment's resource shows of its containers (ids and POD terminals, oldest
    /// first), when [`show`] was asked for them.
    pub siblings: Option<Vec<reads::ContainerRef>>,
}

/// One of the account's containers with its shipment (and, with `siblings`, what the
/// shipment's resource shows of its containers, read with them), or `None` when the account
/// has no such container: the console's container page and MCP's `get_container` read it so.
pub async fn show(
    db: &Db,
    account_id: Uuid,
    id: Uuid,
    siblings: bool,
) -> Result<Option<Shown>, AppError> {
    let read = reads::container_and_shipment::<ContainerRow>(db, account_id, id, siblings).await?;
    Ok(read.map(|read| Shown {
        container: read.container,
        shipment: read.shipment,
        siblings: read.siblings,
    }))
}

/// Replaces the ref numbers of some of the account's containers, all or none (a container
/// the account does not have refuses the whole change).
pub async fn update_refs(
    ctx: &Ctx,
    account_id: Uuid,
    changes: &[(Uuid, Vec<String>)],
) -> Result<(), AppError> {
    Ok(tracking::update_containers(&ctx.db, account_id, changes).await?)
}

/// The account's containers with these ids, in the order of `ids` (ids it does not have are
/// left out).
pub async fn by_ids(
    db: &Db,
    account_id: Uuid,
    ids: &[Uuid],
) -> Result<Vec<ContainerRow>, AppError> {
    let found = reads::containers_by_id(db, account_id, ids).await?;
    Ok(ids.iter().filter_map(|id| found.get(id).cloned()).collect())
}

/// The account's containers with these ids and the shipment of each (read from `db`), both
/// by id.
pub async fn with_shipments(
    db: &Db,
    account_id: Uuid,
    ids: &[Uuid],
) -> Result<(HashMap<Uuid, ContainerRow>, HashMap<Uuid, ShipmentRow>), AppError> {
    let containers = reads::containers_by_id(db, account_id, ids).await?;
    let shipment_ids: Vec<Uuid> = containers.values().map(|c| c.shipment_id).collect();
    let shipments = reads::shipments_by_id(db, account_id, &shipment_ids).await?;
    Ok((containers, shipments))
}

/// A page of one container's transport events in `order`.
pub async fn events_page(
    db: &Db,
    account_id: Uuid,
    id: Uuid,
    page: &Page,
    order: EventOrder,
) -> Result<Listed<TransportEventRow>, AppError> {
    Ok(reads::transport_events(db, account_id, id, page, order).await?)
}

/// A page of the upstream records behind one container (newest first), the rail ones only
/// with `rail`.
pub async fn raw_page(
    db: &Db,
    account_id: Uuid,
    id: Uuid,
    page: &Page,
    rail: bool,
) -> Result<Listed<RawEventRow>, AppError> {
    Ok(reads::raw_events(db, account_id, id, page, rail).await?)
}

/// Whose word decided each value of a container.
#[derive(Debug)]
pub struct Provenance {
    /// Each value's source and the report that set it.
    pub fields: Vec<FieldSource>,
    /// The upstream record of each report, by the report's key.
    pub raw_ids: HashMap<i64, Uuid>,
    /// The container is on a sandbox journey (its reports are the sandbox's, whatever party
    /// its script plays).
    pub sandbox: bool,
}

/// Whose word decided each value of one of the account's containers (rail values only with
/// `rail`), or `None` when the account has no such container.
pub async fn provenance(
    db: &Db,
    account_id: Uuid,
    id: Uuid,
    rail: bool,
) -> Result<Option<Provenance>, AppError> {
    let Some(row) = reads::container_whole(db, account_id, id).await? else {
        return Ok(None);
    };
    let raw_ids = reads::raw_event_ids_by_key(db, account_id, id).await?;
    let sandbox = reads::shipment(db, account_id, row.shipment_id)
        .await?
        .is_some_and(|s| s.scac == carriers::SANDBOX_SCAC);
    Ok(Some(Provenance {
        fields: provenance::field_sources(&row.state, rail),
        raw_ids,
        sandbox,
    }))
}

/// One container with its shipment and every transport event it has (newest first): what its
/// route and its event history are drawn from.
#[derive(Debug)]
pub struct WithEvents {
    /// The container.
    pub container: ContainerRow,
    /// Its shipment (none only if it went away since the container was read).
    pub shipment: Option<ShipmentRow>,
    /// Its transport events, newest first.
    pub events: Vec<TransportEventRow>,
}

/// One of the account's containers with its shipment and every transport event, or `None`
/// when the account has no such container: the journey map, MCP's route and its events.
pub async fn with_events(
    db: &Db,
    account_id: Uuid,
    id: Uuid,
) -> Result<Option<WithEvents>, AppError> {
    let Some(container) = reads::container(db, account_id, id).await? else {
        return Ok(None);
    };
    let shipment = reads::shipment(db, account_id, container.shipment_id).await?;
    let events = reads::all_transport_events(db, account_id, id).await?;
    Ok(Some(WithEvents {
        container,
        shipment,
        events,
    }))
}

/// The newest `limit` transport events of one of the account's containers (none when it has
/// no such container).
pub async fn events(
    db: &Db,
    account_id: Uuid,
    id: Uuid,
    limit: i64,
) -> Result<Vec<TransportEventRow>, AppError> {
    Ok(
        reads::transport_events_of_many(db, account_id, &[id], limit)
            .await?
            .remove(&id)
            .unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use boxtrack_core::datebounds::Range;

    use super::*;
    use crate::fields::Further;
    use crate::query::{from_pairs, parse};

    #[test]
    fn the_query_names_fill_the_question() {
        let asked: ListContainers = parse(from_pairs([
            ("q", " MSKU "),
            ("filter[number]", "msku1234565"),
            ("filter[current_status]", "available,on_ship"),
            ("filter[ready_for_pickup]", "true"),
            ("filter[pickup_lfd][end]", "2026-01-31T00:00:00Z"),
            ("filter[carrier]", "maeu"),
            ("filter[updated_at][start]", "2026-01-01T00:00:00Z"),
            ("sort", "pickup_lfd"),
            ("page[size]", "3"),
            ("include", "shipment"),
        ]))
        .unwrap_or_default();
        let f = asked.filter();
        assert_eq!(f.q.as_deref(), Some("MSKU"));
        assert_eq!(f.container_number.as_deref(), Some("MSKU1234565"));
        assert_eq!(f.statuses, ["available", "on_ship"]);
        assert_eq!(f.ready_for_pickup, Some(true));
        assert_eq!(f.lfd_end_us.map(|e| e % 1_000_000), Some(999_999));
        assert_eq!(f.carrier.as_deref(), Some("MAEU"));
        assert!(f.updated_start_us.is_some());
        assert_eq!(f.sort, ListSort::LfdAsc);
    }

    #[test]
    fn further_conditions_hold_beside_the_query_parameters() {
        let mut asked: ListContainers = parse(from_pairs([
            ("filter[pickup_lfd][start]", "2026-01-01T00:00:00Z"),
            ("filter[carrier]", "maeu"),
        ]))
        .unwrap_or_default();
        asked.filter.further = Further {
            lfd: Range {
                start_us: Some(1),
                end_us: Some(2_000_000_000_000_000),
            },
            lfd_known: Some(true),
            tags: vec!["hot".into()],
            ..Default::default()
        };
        let f = asked.filter();
        // both starts hold: the later one; the one end
        assert!(f.lfd_start_us.is_some_and(|s| s > 1));
        assert_eq!(f.lfd_end_us, Some(2_000_000_000_000_000));
        assert_eq!(f.lfd_known, Some(true));
        assert_eq!(f.tags, ["hot"]);
        assert_eq!(f.carrier.as_deref(), Some("MAEU"));
    }

    #[test]
    fn a_value_that_means_nothing_is_refused_naming_its_parameter() {
        for (name, value) in [
            ("filter[current_status]", "lost"),
            ("filter[ready_for_pickup]", "yes"),
            ("filter[pickup_lfd][start]", "tomorrow"),
            ("filter[customer_id]", "7"),
            ("filter[tracking_stopped]", " true"),
            ("sort", "number"),
        ] {
            match parse::<ListContainers>(from_pairs([(name, value)])) {
                Err(AppError::Invalid { param, .. }) => assert_eq!(param, name),
                other => panic!("{name}={value}: {other:?}"),
            }
        }
    }
}
