//! A page or one of containers rendered: their resources with what the request includes,
//! related rows read once for the page.

use std::collections::HashMap;

use boxtrack_store::reads::{self, ContainerRow, ShipmentRow, ShownContainer};
#[cfg(debug_assertions)]
use serde_json::Value;

use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
#[cfg(debug_assertions)]
use crate::state::AppState;
use boxtrack_views::tracking as resources;

/// What the caller of [`render`] read already of the rows' shipments.
#[derive(Default)]
pub(super) struct Known<'a> {
    /// Their shipments.
    pub(super) shipments: Option<&'a HashMap<uuid::Uuid, ShipmentRow>>,
    /// What the shipments' resources show of their containers.
    pub(super) refs: Option<HashMap<uuid::Uuid, Vec<reads::ContainerRef>>>,
}

/// A container as [`render`] shows it: its whole row, or as read to be shown (its state as
/// the merge rendered it, where that is current).
pub(super) trait Showable {
    fn id(&self) -> uuid::Uuid;
    fn shipment_id(&self) -> uuid::Uuid;
    fn pod_terminal(&self) -> Option<&str>;
    /// Its resource, written out, with `events` as its transport events' ids where the
    /// request includes them.
    fn written(
        &self,
        shipment: Option<&ShipmentRow>,
        caller: &Caller,
        events: Option<&[reads::TransportEventRow]>,
    ) -> ApiResult<String>;
}

/// The transport events' relationship with their ids, where included.
fn with_events(
    relationships: &mut resources::ContainerRelationships,
    events: Option<&[reads::TransportEventRow]>,
) {
    if let Some(events) = events {
        let ids = events.iter().map(|e| e.id);
        relationships.transport_events.data =
            Some(boxtrack_views::jsonapi::ToMany::new("transport_event", ids).data);
    }
}

impl Showable for ContainerRow {
    fn id(&self) -> uuid::Uuid {
        self.id
    }
    fn shipment_id(&self) -> uuid::Uuid {
        self.shipment_id
    }
    fn pod_terminal(&self) -> Option<&str> {
        self.state.0.pod_terminal.as_deref()
    }
    fn written(
        &self,
        shipment: Option<&ShipmentRow>,
        caller: &Caller,
        events: Option<&[reads::TransportEventRow]>,
    ) -> ApiResult<String> {
        let mut resource = resources::container_resource(self, shipment, &caller.account);
        with_events(&mut resource.relationships, events);
        Ok(boxtrack_views::jsonapi::written(&resource))
    }
}

impl Showable for ShownContainer {
    fn id(&self) -> uuid::Uuid {
        ShownContainer::id(self)
    }
    fn shipment_id(&self) -> uuid::Uuid {
        ShownContainer::shipment_id(self)
    }
    fn pod_terminal(&self) -> Option<&str> {
        ShownContainer::pod_terminal(self)
    }
    fn written(
        &self,
        shipment: Option<&ShipmentRow>,
        caller: &Caller,
        events: Option<&[reads::TransportEventRow]>,
    ) -> ApiResult<String> {
        let v = match self {
            ShownContainer::Row(row) => return row.as_ref().written(shipment, caller, events),
            ShownContainer::View(v) => v,
        };
        let mut relationships =
            resources::container_relationships(v.id, v.shipment_id, v.pod_terminal.as_deref());
        with_events(&mut relationships, events);
        // the store reads a text as a view only when the installed renderer (this one) reads it
        resources::written_container_view(v, shipment, &caller.account, &relationships)
            .ok_or_else(ApiError::internal)
    }
}

/// The rows as resources with what `includes` asks for, their related rows read from `db`
/// unless `known` has them, each written out (a document of them never becomes a JSON tree).
pub(super) async fn render<C: Showable>(
    db: &boxtrack_store::Db,
    caller: &Caller,
    rows: &[C],
    known: Known<'_>,
    includes: &[String],
) -> ApiResult<(Vec<String>, Vec<String>)> {
    use boxtrack_views::jsonapi::Included;
    let related = Related::read(db, caller, rows, known, includes).await?;
    let mut data = Vec::with_capacity(rows.len());
    let mut included = Included::default();
    for c in rows {
        let shipment = related.shipments().get(&c.shipment_id());
        let events = related.events_of.get(&c.id()).map(Vec::as_slice);
        let shown_events = match related.asks("transport_events") {
            true => Some(events.unwrap_or_default()),
            false => None,
        };
        data.push(c.written(shipment, caller, shown_events)?);
        if related.asks("pod_terminal")
            && let Some(t) = c
                .pod_terminal()
                .and_then(boxtrack_core::reference::terminal)
        {
            included.value(&crate::routes::reference::terminal_resource(t));
        }
        if let Some(s) = shipment {
            related.include_shipment(&mut included, s, caller);
        }
        for e in events.unwrap_or_default() {
            included.typed(e.id, || resources::transport_event_resource(e));
        }
    }
    Ok((data, included.into_written()))
}

/// Whether `includes` asks for the containers' shipments (or something of them).
fn asks_shipment(includes: &[String]) -> bool {
    includes.iter().any(|i| i.starts_with("shipment"))
}

/// Whether the shipments' resources show their containers as references (ids and POD
/// terminals) only: a shipment is included, its whole containers are not.
pub(super) fn asks_refs(includes: &[String]) -> bool {
    asks_shipment(includes) && !includes.iter().any(|i| i == "shipment.containers")
}

/// The rows a page of containers shows or includes beside them, read once for the page (one
/// query per relation, not one per row).
struct Related<'a> {
    includes: &'a [String],
    /// Their shipments, as the caller knew them or as read.
    known: Option<&'a HashMap<uuid::Uuid, ShipmentRow>>,
    read: HashMap<uuid::Uuid, ShipmentRow>,
    /// The shipments' containers as whole rows, where they are included themselves.
    siblings_of: HashMap<uuid::Uuid, Vec<ContainerRow>>,
    /// Else what a shipment's resource shows of its containers (ids and POD terminal).
    refs_of: HashMap<uuid::Uuid, Vec<reads::ContainerRef>>,
    /// The containers' transport events, where included.
    events_of: HashMap<uuid::Uuid, Vec<reads::TransportEventRow>>,
}

impl<'a> Related<'a> {
    async fn read<C: Showable>(
        db: &boxtrack_store::Db,
        caller: &Caller,
        rows: &[C],
        known: Known<'a>,
        includes: &'a [String],
    ) -> ApiResult<Related<'a>> {
        let account = caller.account.id;
        let mut related = Related {
            includes,
            known: known.shipments,
            read: HashMap::new(),
            siblings_of: HashMap::new(),
            refs_of: HashMap::new(),
            events_of: HashMap::new(),
        };
        let shipment_ids: Vec<uuid::Uuid> = rows.iter().map(|c| c.shipment_id()).collect();
        if known.shipments.is_none() {
            related.read = reads::shipments_by_id(db, account, &shipment_ids).await?;
        }
        if related.asks("shipment.containers") {
            related.siblings_of = reads::containers_of_many(db, account, &shipment_ids).await?;
        } else if asks_refs(includes) {
            related.refs_of = match known.refs {
                Some(refs) => refs,
                None => reads::container_refs_of_many(db, account, &shipment_ids).await?,
            };
        }
        if related.asks("transport_events") {
            let ids: Vec<uuid::Uuid> = rows.iter().map(|c| c.id()).collect();
            related.events_of = reads::transport_events_of_many(db, account, &ids, 100).await?;
        }
        Ok(related)
    }

    fn asks(&self, name: &str) -> bool {
        self.includes.iter().any(|i| i == name)
    }

    fn asks_shipment(&self) -> bool {
        asks_shipment(self.includes)
    }

    fn shipments(&self) -> &HashMap<uuid::Uuid, ShipmentRow> {
        self.known.unwrap_or(&self.read)
    }

    /// Includes what was asked of a container's shipment `s`: its ports, itself, its
    /// containers.
    fn include_shipment(
        &self,
        included: &mut boxtrack_views::jsonapi::Included,
        s: &ShipmentRow,
        caller: &Caller,
    ) {
        let route = &s.route.0;
        for (name, locode) in [
            ("shipment.port_of_lading", &route.pol_locode),
            ("shipment.port_of_discharge", &route.pod_locode),
        ] {
            if self.asks(name)
                && let Some(p) = locode.as_deref().and_then(boxtrack_core::reference::port)
            {
                included.value(&crate::routes::reference::port_resource(p));
            }
        }
        if !self.asks_shipment() {
            return;
        }
        match self.siblings_of.get(&s.id) {
            Some(siblings) => {
                included.typed(s.id, || resources::shipment_resource(s, siblings));
                for sib in siblings {
                    included.typed(sib.id, || {
                        resources::container_resource(sib, Some(s), &caller.account)
                    });
                }
            }
            None if self.asks("shipment.containers") => {
                included.typed(s.id, || {
                    resources::shipment_resource::<ContainerRow>(s, &[])
                });
            }
            None => {
                let refs = self
                    .refs_of
                    .get(&s.id)
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                included.typed(s.id, || resources::shipment_resource(s, refs));
            }
        }
    }
}

/// Checks, in debug builds (every test), that a container shown from its rendered state reads
/// as the one rendered from its parsed state: the text the merge wrote is current.
#[cfg(debug_assertions)]
pub(super) async fn shown_as_parsed(
    state: &AppState,
    caller: &Caller,
    c: &ShownContainer,
    shipment: Option<&ShipmentRow>,
    data: &[String],
) -> ApiResult<()> {
    if !matches!(c, ShownContainer::View(_)) {
        return Ok(());
    }
    let row = reads::container(&state.db, caller.account.id, c.id())
        .await?
        .ok_or_else(|| ApiError::not_found("container"))?;
    let parsed = resources::container_resource(&row, shipment, &caller.account).to_value();
    let mut shown: Value = data
        .first()
        .and_then(|d| serde_json::from_str(d).ok())
        .unwrap_or_default();
    // the transport events' ids are the request's, not the state's
    if let Some(events) = shown.pointer_mut("/relationships/transport_events") {
        events.as_object_mut().map(|e| e.remove("data"));
    }
    assert_eq!(shown, parsed, "a container shown from its rendered state");
    Ok(())
}
