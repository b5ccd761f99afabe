//! The REST fast path for prerendered reads: the container and shipment lists and the
//! container show, read as the store keeps them prerendered beside their rows
//! ([`RenderedContainer`], [`RenderedShipment`]), so that `GET /v2/containers` and `GET
//! /v2/shipments` answer by splicing stored text (docs/scaling.md, "Inside the request path").
//!
//! The use cases are the ones of [`crate::containers`] and [`crate::shipments`]: the same
//! question, the same filters, the same page. Only the shape the rows are read in differs, and
//! that shape is the store's, so it is named here and nowhere else in `app`: the other use
//! cases answer whole rows, and only REST's own fast-path module (`api/src/rendered.rs`) calls
//! this one (the architecture test holds both).

use boxtrack_core::paging::Page;
use boxtrack_store::Db;
use boxtrack_store::reads::{self, OfShipments, RenderedContainer, RenderedShipment, ShipmentRead};
use uuid::Uuid;

use crate::AppError;
use crate::containers::{ContainerPage, ListContainers, Shown};
use crate::shipments::{ListShipments, ShipmentPage};

/// [`crate::containers::list`], each container and shipment shown from its rendered text
/// where that is current.
pub async fn containers(
    db: &Db,
    account_id: Uuid,
    asked: &ListContainers,
    page: &Page,
) -> Result<ContainerPage<RenderedContainer, RenderedShipment>, AppError> {
    let (filter, fields_used) = asked.filter_in(db, account_id).await?;
    let listed = reads::containers_as::<RenderedContainer>(db, account_id, &filter, page).await?;
    let ids: Vec<Uuid> = listed.rows.iter().map(|c| c.shipment_id()).collect();
    let shipments = reads::shipments_as(db, account_id, &ids).await?;
    Ok(ContainerPage {
        listed,
        shipments,
        fields_used,
    })
}

/// [`crate::containers::show`], the container and its shipment shown from their rendered
/// texts where those are current.
pub async fn container(
    db: &Db,
    account_id: Uuid,
    id: Uuid,
    siblings: bool,
) -> Result<Option<Shown<RenderedContainer, RenderedShipment>>, AppError> {
    let read =
        reads::container_and_shipment::<RenderedContainer>(db, account_id, id, siblings).await?;
    Ok(read.map(|read| Shown {
        container: read.container,
        shipment: read.shipment,
        siblings: read.siblings,
    }))
}

/// [`crate::shipments::list`], each shipment shown from its rendered text where that is
/// current, its containers read as `C` (whole rows, or what the shipment's resource names of
/// them).
pub async fn shipments<C: OfShipments>(
    db: &Db,
    account_id: Uuid,
    asked: &ListShipments,
    page: &Page,
) -> Result<ShipmentPage<RenderedShipment, C>, AppError> {
    let listed =
        reads::shipments_listed::<RenderedShipment>(db, account_id, &asked.filter(), page).await?;
    let ids: Vec<Uuid> = listed.rows.iter().map(RenderedShipment::id_of).collect();
    let containers = C::of_many(db, account_id, &ids).await?;
    Ok(ShipmentPage { listed, containers })
}
