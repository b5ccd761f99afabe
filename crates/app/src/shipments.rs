//! Listing shipments: `GET /v2/shipments`, the console's shipments table and MCP's
//! `list_shipments` ask the same question ([`ListShipments`]); and the filters the shipment
//! and container lists share ([`list_filter!`]).

use std::collections::HashMap;

use boxtrack_core::paging::Page;
use boxtrack_store::accounts::Account;
use boxtrack_store::reads::{self, ContainerRef, ContainerRow, Filter, ListSort, ShipmentRow};
use boxtrack_store::tracking;
use boxtrack_store::{Db, StoreError, list::Listed};
use schemars::JsonSchema;
use serde::Deserialize;
use uuid::Uuid;

use crate::AppError;
use crate::ctx::Ctx;
use crate::fields::{One, Text, Word, given};

/// Declares a list's filter struct with the filters the shipment and container lists share
/// added to its own fields, and `common()`, the store's filter for the shared ones. (A macro,
/// not `#[serde(flatten)]`: a flattened field's error would not name its parameter.)
#[macro_export]
macro_rules! list_filter {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$fmeta:meta])* pub $field:ident: $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
        pub struct $name {
            $($(#[$fmeta])* pub $field: $ty,)*
            /// Whether tracking was stopped
            pub tracking_stopped: Option<$crate::fields::Flag>,
            /// Carrier SCAC
            pub carrier: Option<$crate::fields::Text>,
            /// Port of discharge UN/LOCODE
            pub port: Option<$crate::fields::Text>,
            /// The customer (party) named on the tracking request
            pub customer_id: Option<$crate::fields::Id>,
            /// Part of the customer's company name
            pub customer_name: Option<$crate::fields::Text>,
            /// Last updated
            #[serde(default)]
            pub updated_at: $crate::fields::Range,
            /// The shipment's estimated arrival at the port of discharge ("what lands this
            /// week?"; boxtrack's, the reference has no such filter)
            #[serde(default)]
            pub pod_eta_at: $crate::fields::Range,
            /// Conditions no query parameter names (MCP's further filters): never read from a
            /// query string, not in the API's document.
            #[serde(skip)]
            #[schemars(skip)]
            pub further: $crate::fields::Further,
        }

        impl $name {
            /// The store's filter for the query parameters the shipment and container lists
            /// share (the list's own filters, then its `further` conditions, are added by its
            /// `filter`).
            pub fn common(&self) -> boxtrack_store::reads::Filter {
                use $crate::fields::given;
                boxtrack_store::reads::Filter {
                    tracking_stopped: self.tracking_stopped.map(|b| b.0),
                    carrier: given(&self.carrier).map(|s| s.to_ascii_uppercase()),
                    port: given(&self.port).map(|s| s.to_ascii_uppercase()),
                    customer_id: self.customer_id.map(|i| i.0),
                    customer_name: given(&self.customer_name),
                    updated_start_us: self.updated_at.start_us(),
                    updated_end_us: self.updated_at.end_us(),
                    dates: (self.pod_eta_at.start_us().is_some()
                        || self.pod_eta_at.end_us().is_some())
                    .then(|| boxtrack_store::reads::DateCond {
                        field: boxtrack_store::reads::DateField::PodEta,
                        start_us: self.pod_eta_at.start_us(),
                        end_us: self.pod_eta_at.end_us(),
                        known: None,
                    })
                    .into_iter()
                    .collect(),
                    ..boxtrack_store::reads::Filter::default()
                }
            }
        }
    };
}

/// Which of the account's shipments, in which order.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ListShipments {
    /// Bill of lading, booking, ref number or container number
    pub q: Option<Text>,
    /// Exact bill of lading or booking number (as filter[number])
    pub number: Option<Text>,
    /// The filters; all of them hold.
    #[serde(default)]
    pub filter: ShipmentFilter,
    /// The order (default -updated_at, most recently updated first); pod_eta_at puts the
    /// soonest estimated arrival first and those without one last (boxtrack's). Orders other
    /// than the default page by page[number], not by cursor.
    pub sort: Option<One<ShipmentSort>>,
}

crate::list_filter! {
    /// The filters of the shipment list.
    pub struct ShipmentFilter {
        /// Exact bill of lading or booking number
        pub number: Option<Text>,
        /// tracking (tracking goes on; as active) or tracking_stopped
        pub status: Option<One<ShipmentStatus>>,
    }
}

/// A shipment's lifecycle as the list filters it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShipmentStatus {
    /// Tracking goes on.
    Tracking,
    /// Tracking was stopped.
    TrackingStopped,
    /// Tracking goes on (the reference's word).
    Active,
}

impl Word for ShipmentStatus {
    const ALL: &'static [Self] = &[
        ShipmentStatus::Tracking,
        ShipmentStatus::TrackingStopped,
        ShipmentStatus::Active,
    ];
    fn word(self) -> &'static str {
        match self {
            ShipmentStatus::Tracking => "tracking",
            ShipmentStatus::TrackingStopped => "tracking_stopped",
            ShipmentStatus::Active => "active",
        }
    }
}

/// The orders of the shipment list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShipmentSort(pub ListSort);

impl Word for ShipmentSort {
    const ALL: &'static [Self] = &[
        ShipmentSort(ListSort::UpdatedDesc),
        ShipmentSort(ListSort::UpdatedAsc),
        ShipmentSort(ListSort::CreatedDesc),
        ShipmentSort(ListSort::CreatedAsc),
        ShipmentSort(ListSort::EtaAsc),
        ShipmentSort(ListSort::EtaDesc),
    ];
    fn word(self) -> &'static str {
        self.0.as_str()
    }
}

impl ListShipments {
    /// The order asked for (the default when none is).
    pub fn sort(&self) -> ListSort {
        self.sort.map(|s| s.0.0).unwrap_or_default()
    }

    /// The store's filter for this question.
    pub fn filter(&self) -> Filter {
        let f = &self.filter;
        let mut out = Filter {
            q: given(&self.q),
            number: given(&self.number)
                .or_else(|| given(&f.number))
                .map(|n| n.to_ascii_uppercase()),
            sort: self.sort(),
            ..f.common()
        };
        f.further.add_to(&mut out);
        match f.status.map(|s| s.0) {
            Some(ShipmentStatus::TrackingStopped) => out.tracking_stopped = Some(true),
            Some(_) => out.tracking_stopped = Some(false),
            None => {}
        }
        out
    }
}

/// A page of shipments with the containers of each: whole shipment rows with their containers'
/// rows ([`list`]) or only what a shipment's resource names of them ([`list_with_refs`]); the
/// REST fast path reads the shipments as prerendered ([`crate::prerendered::shipments`]).
#[derive(Debug)]
pub struct ShipmentPage<S = ShipmentRow, C = ContainerRow> {
    /// The page's rows and counts.
    pub listed: Listed<S>,
    /// The containers of each row, by shipment id.
    pub containers: HashMap<Uuid, Vec<C>>,
}

/// Lists the account's shipments as asked, with their containers.
pub async fn list(
    db: &Db,
    account_id: Uuid,
    asked: &ListShipments,
    page: &Page,
) -> Result<ShipmentPage, AppError> {
    let (listed, ids) = page_of(db, account_id, asked, page).await?;
    let containers = reads::containers_of_many(db, account_id, &ids).await?;
    Ok(ShipmentPage { listed, containers })
}

/// Lists the account's shipments as asked, with what each one's resource names of its
/// containers (ids and POD terminals): a table of shipments, where the containers are counted.
pub async fn list_with_refs(
    db: &Db,
    account_id: Uuid,
    asked: &ListShipments,
    page: &Page,
) -> Result<ShipmentPage<ShipmentRow, ContainerRef>, AppError> {
    let (listed, ids) = page_of(db, account_id, asked, page).await?;
    let containers = reads::container_refs_of_many(db, account_id, &ids).await?;
    Ok(ShipmentPage { listed, containers })
}

/// The page of shipments asked for, with their ids (to read their containers by).
async fn page_of(
    db: &Db,
    account_id: Uuid,
    asked: &ListShipments,
    page: &Page,
) -> Result<(Listed<ShipmentRow>, Vec<Uuid>), AppError> {
    let listed =
        reads::shipments_listed::<ShipmentRow>(db, account_id, &asked.filter(), page).await?;
    let ids = listed.rows.iter().map(|s| s.id).collect();
    Ok((listed, ids))
}

/// The account's shipments with these ids and the containers of each (read from `db`: a
/// replica, or the primary), both by shipment id.
pub async fn with_containers(
    db: &Db,
    account_id: Uuid,
    ids: &[Uuid],
) -> Result<(HashMap<Uuid, ShipmentRow>, HashMap<Uuid, Vec<ContainerRow>>), AppError> {
    let shipments = reads::shipments_by_id(db, account_id, ids).await?;
    let containers = reads::containers_of_many(db, account_id, ids).await?;
    Ok((shipments, containers))
}

/// One shipment with its containers (oldest first): what every front end shows of it first.
#[derive(Debug)]
pub struct Shown {
    /// The shipment.
    pub shipment: ShipmentRow,
    /// Its containers, in the order they were added.
    pub containers: Vec<ContainerRow>,
}

/// One of the account's shipments with its containers, or `None` when the account has no
/// such shipment: `GET /v2/shipments/{id}` and MCP's `get_shipment_details` read it so.
pub async fn show(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<Shown>, AppError> {
    let Some(shipment) = reads::shipment(db, account_id, id).await? else {
        return Ok(None);
    };
    let containers = reads::containers_of(db, account_id, id).await?;
    Ok(Some(Shown {
        shipment,
        containers,
    }))
}

/// Stops tracking one of the account's shipments (a client's stop: `cancelled_by_user`).
pub async fn stop(ctx: &Ctx, account_id: Uuid, id: Uuid) -> Result<(), AppError> {
    match tracking::stop_shipment(&ctx.db, account_id, id, "cancelled_by_user").await {
        Ok(_) => Ok(()),
        Err(StoreError::NotFound(what)) => Err(AppError::NotFound(what)),
        Err(e) => Err(e.into()),
    }
}

/// Tracks one of the account's stopped shipments again, within the plan's limit.
pub async fn resume(ctx: &Ctx, account: &Account, id: Uuid) -> Result<(), AppError> {
    match tracking::resume_shipment(&ctx.db, account.id, account.plan, id).await {
        Ok(_) => Ok(()),
        Err(StoreError::NotFound(what)) => Err(AppError::NotFound(what)),
        Err(StoreError::PlanLimit { limit }) => Err(AppError::PlanLimit(limit)),
        Err(e) => Err(e.into()),
    }
}

/// Replaces what is given of a shipment's reference numbers and tags (checked already).
pub async fn update(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
    refs: Option<Vec<String>>,
    tags: Option<Vec<String>>,
) -> Result<(), AppError> {
    match tracking::update_shipment(&ctx.db, account_id, id, refs, tags).await {
        Err(StoreError::NotFound(what)) => Err(AppError::NotFound(what)),
        other => Ok(other?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::{from_pairs, parse};

    #[test]
    fn number_and_status_read_as_the_api_always_did() {
        let asked: ListShipments = parse(from_pairs([
            ("filter[number]", "maeu123"),
            ("filter[status]", "tracking_stopped"),
            ("filter[port]", "uslax"),
        ]))
        .unwrap_or_default();
        let f = asked.filter();
        assert_eq!(f.number.as_deref(), Some("MAEU123"));
        assert_eq!(f.tracking_stopped, Some(true));
        assert_eq!(f.port.as_deref(), Some("USLAX"));
        // the top-level number wins, as it did
        let asked: ListShipments =
            parse(from_pairs([("number", "a1"), ("filter[number]", "b2")])).unwrap_or_default();
        assert_eq!(asked.filter().number.as_deref(), Some("A1"));
        assert!(matches!(
            parse::<ListShipments>(from_pairs([("filter[status]", "done")])),
            Err(AppError::Invalid { param, .. }) if param == "filter[status]"
        ));
    }
}
