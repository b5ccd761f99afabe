//! The REST fast path for prerendered reads: the one place a front end names the store.
//!
//! A container or shipment resource is kept prerendered beside its row (the store's
//! `container_views`, read as [`RenderedContainer`] / [`RenderedShipment`]), so `GET
//! /v2/containers` and `GET /v2/shipments` answer by splicing stored text instead of
//! rendering each row (docs/scaling.md, "Inside the request path"). The list and show use
//! cases read in these shapes are `app`'s `prerendered` module, called from here only; the reads a page's `include` adds, the
//! change fingerprint a debug build checks a rendered read against, and the change feed the
//! read cache listens to are named here, so that every other module of this crate reaches the
//! store through `app` only (the architecture test holds it so).

pub(crate) use boxtrack_app::prerendered::{
    container as prerendered_container, containers as prerendered_containers,
    shipments as prerendered_shipments,
};
pub(crate) use boxtrack_store::Db;
pub(crate) use boxtrack_store::changes::{Changes, Version};
pub(crate) use boxtrack_store::list::Listed;
pub(crate) use boxtrack_store::reads::{
    ContainerOnShipment, ContainerRef, ContainerRow, OfShipments, RenderedContainer,
    RenderedShipment, ShipmentRow, TransportEventRow, container_refs_of_many, containers_by_id,
    containers_of_many, fingerprint, shipments_by_id, transport_events_of_many,
};
