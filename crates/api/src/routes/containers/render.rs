//! A page or one of containers rendered: their resources with what the request includes,
//! related rows read once for the page.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::rendered::{
    self as reads, ContainerOnShipment, ContainerRow, Db, RenderedContainer, ShipmentRow,
};
use crate::routes::reference::{port_resource, terminal_resource};
use crate::routes::rendered_check::{Before, in_order, same, values};
use boxtrack_views::tracking::{ShipmentFacts, ShipmentToShow};

use boxtrack_core::reference;
use boxtrack_http::auth::Caller;
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_views::jsonapi::ToMany;
use boxtrack_views::{jsonapi, tracking as resources};

/// What the caller of [`render`] read already of the rows' shipments.
pub(super) struct Known<'a, S = ShipmentRow> {
    /// Their shipments.
    pub(super) shipments: Option<&'a HashMap<uuid::Uuid, S>>,
    /// What the shipments' resources show of their containers.
    pub(super) refs: Option<HashMap<uuid::Uuid, Vec<reads::ContainerRef>>>,
}

impl<S> Default for Known<'_, S> {
    fn default() -> Self {
        Known {
            shipments: None,
            refs: None,
        }
    }
}

/// A container as [`render`] shows it: its whole row, or as rendered (its state as the merge
/// rendered it, where that is current).
pub(super) trait Showable {
    fn id(&self) -> uuid::Uuid;
    fn shipment_id(&self) -> uuid::Uuid;
    fn pod_terminal(&self) -> Option<&str>;
    /// Its resource, written out, with `events` as its transport events' ids where the
    /// request includes them.
    fn written(
        &self,
        shipment: Option<&ShipmentFacts>,
        caller: &Caller,
        events: Option<&[reads::TransportEventRow]>,
    ) -> ApiResult<String>;
}

/// A shipment as [`render`] shows it beside its containers: its whole row, or as rendered
/// (its route and state as the merge rendered them, where that is current).
pub(super) trait ShowableShipment: Sized {
    fn id(&self) -> uuid::Uuid;
    /// What its containers' resources show of it.
    fn facts(&self) -> ShipmentFacts;
    /// Its ports of lading and discharge.
    fn ports(&self) -> [Option<&str>; 2];
    /// Its resource, written out, with `containers` in its relationship.
    fn written<C: ContainerOnShipment>(&self, containers: &[C]) -> String;
    /// The shipment of its whole row.
    fn from_row(row: ShipmentRow) -> Self;
}

impl ShowableShipment for ShipmentRow {
    fn id(&self) -> uuid::Uuid {
        self.id
    }
    fn facts(&self) -> ShipmentFacts {
        ShipmentFacts::of_row(self)
    }
    fn ports(&self) -> [Option<&str>; 2] {
        let route = &self.route;
        [route.pol_locode.as_deref(), route.pod_locode.as_deref()]
    }
    fn written<C: ContainerOnShipment>(&self, containers: &[C]) -> String {
        jsonapi::written(&resources::shipment_resource(self, containers))
    }
    fn from_row(row: ShipmentRow) -> Self {
        row
    }
}

impl ShowableShipment for ShipmentToShow<'_> {
    fn id(&self) -> uuid::Uuid {
        ShipmentToShow::id(self)
    }
    fn facts(&self) -> ShipmentFacts {
        ShipmentToShow::facts(self)
    }
    fn ports(&self) -> [Option<&str>; 2] {
        ShipmentToShow::ports(self)
    }
    fn written<C: ContainerOnShipment>(&self, containers: &[C]) -> String {
        ShipmentToShow::written(self, containers)
    }
    fn from_row(row: ShipmentRow) -> Self {
        ShipmentToShow::Row(Cow::Owned(Box::new(row)))
    }
}

/// The transport events' relationship with their ids, where included.
fn with_events(
    relationships: &mut resources::ContainerRelationships,
    events: Option<&[reads::TransportEventRow]>,
) {
    if let Some(events) = events {
        let ids = events.iter().map(|e| e.id);
        relationships.transport_events.data = Some(ToMany::new("transport_event", ids).data);
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
        self.state.pod_terminal.as_deref()
    }
    fn written(
        &self,
        shipment: Option<&ShipmentFacts>,
        caller: &Caller,
        events: Option<&[reads::TransportEventRow]>,
    ) -> ApiResult<String> {
        let mut resource = resources::container_resource_with(self, shipment, &caller.account);
        with_events(&mut resource.relationships, events);
        Ok(jsonapi::written(&resource))
    }
}

impl Showable for RenderedContainer {
    fn id(&self) -> uuid::Uuid {
        RenderedContainer::id(self)
    }
    fn shipment_id(&self) -> uuid::Uuid {
        RenderedContainer::shipment_id(self)
    }
    fn pod_terminal(&self) -> Option<&str> {
        RenderedContainer::pod_terminal(self)
    }
    fn written(
        &self,
        shipment: Option<&ShipmentFacts>,
        caller: &Caller,
        events: Option<&[reads::TransportEventRow]>,
    ) -> ApiResult<String> {
        let v = match self {
            RenderedContainer::Row(row) => return row.as_ref().written(shipment, caller, events),
            RenderedContainer::View(v) => v,
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
pub(super) async fn render<C: Showable, S: ShowableShipment>(
    db: &Db,
    caller: &Caller,
    rows: &[C],
    known: Known<'_, S>,
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
        let facts = shipment.map(ShowableShipment::facts);
        data.push(c.written(facts.as_ref(), caller, shown_events)?);
        if related.asks("pod_terminal")
            && let Some(t) = c.pod_terminal().and_then(reference::terminal)
        {
            included.value(&terminal_resource(t));
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
struct Related<'a, S> {
    includes: &'a [String],
    /// Their shipments, as the caller knew them or as read.
    known: Option<&'a HashMap<uuid::Uuid, S>>,
    read: HashMap<uuid::Uuid, S>,
    /// The shipments' containers as whole rows, where they are included themselves.
    siblings_of: HashMap<uuid::Uuid, Vec<ContainerRow>>,
    /// Else what a shipment's resource shows of its containers (ids and POD terminal).
    refs_of: HashMap<uuid::Uuid, Vec<reads::ContainerRef>>,
    /// The containers' transport events, where included.
    events_of: HashMap<uuid::Uuid, Vec<reads::TransportEventRow>>,
}

impl<'a, S: ShowableShipment> Related<'a, S> {
    async fn read<C: Showable>(
        db: &Db,
        caller: &Caller,
        rows: &[C],
        known: Known<'a, S>,
        includes: &'a [String],
    ) -> ApiResult<Related<'a, S>> {
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
            related.read = reads::shipments_by_id(db, account, &shipment_ids)
                .await?
                .into_iter()
                .map(|(id, s)| (id, S::from_row(s)))
                .collect();
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

    fn shipments(&self) -> &HashMap<uuid::Uuid, S> {
        self.known.unwrap_or(&self.read)
    }

    /// Includes what was asked of a container's shipment `s`: its ports, itself, its
    /// containers.
    fn include_shipment(&self, included: &mut jsonapi::Included, s: &S, caller: &Caller) {
        let names = ["shipment.port_of_lading", "shipment.port_of_discharge"];
        if names.iter().any(|n| self.asks(n)) {
            for (name, locode) in names.into_iter().zip(s.ports()) {
                if self.asks(name)
                    && let Some(p) = locode.and_then(reference::port)
                {
                    included.value(&port_resource(p));
                }
            }
        }
        if !self.asks_shipment() {
            return;
        }
        let id = s.id();
        match self.siblings_of.get(&id) {
            Some(siblings) => {
                included.written("shipment", id, || s.written(siblings));
                let facts = s.facts();
                for sib in siblings {
                    included.typed(sib.id, || {
                        resources::container_resource_with(sib, Some(&facts), &caller.account)
                    });
                }
            }
            None if self.asks("shipment.containers") => {
                included.written("shipment", id, || s.written::<ContainerRow>(&[]));
            }
            None => {
                let refs = self.refs_of.get(&id).map(Vec::as_slice).unwrap_or_default();
                included.written("shipment", id, || s.written(refs));
            }
        }
    }
}

/// The shipments read to be shown, by id, as [`render`] shows them; an error where a text is
/// not current (the store reads a text as a view only when the installed renderer, this one,
/// reads it).
pub(super) fn to_show<'a>(
    shipments: impl IntoIterator<Item = &'a reads::RenderedShipment>,
) -> ApiResult<HashMap<uuid::Uuid, ShipmentToShow<'a>>> {
    shipments
        .into_iter()
        .map(|s| {
            let s = ShipmentToShow::of(s).ok_or_else(ApiError::internal)?;
            Ok((s.id(), s))
        })
        .collect()
}

/// Checks, in debug builds (every test), that containers or their shipments shown from their
/// rendered states read as the ones rendered from their parsed states: the texts the merge
/// wrote are current. `rendered` is the document's `data` and `included` as written from them;
/// `before`, the account's fingerprint before they were read.
pub(super) async fn rendered_as_parsed(
    db: &Db,
    caller: &Caller,
    before: Before,
    cs: &[RenderedContainer],
    shipments: &[&reads::RenderedShipment],
    includes: &[String],
    rendered: (&[String], &[String]),
) -> ApiResult<()> {
    let views = cs.iter().any(|c| matches!(c, RenderedContainer::View(_)))
        || shipments
            .iter()
            .any(|s| matches!(s, reads::RenderedShipment::View(_)));
    if !views {
        return Ok(());
    }
    let account = caller.account.id;
    let ids: Vec<uuid::Uuid> = cs.iter().map(|c| c.id()).collect();
    let whole = reads::containers_by_id(db, account, &ids).await?;
    let rows = in_order(whole, &ids, "container")?;
    let ids: Vec<uuid::Uuid> = shipments.iter().map(|s| s.id()).collect();
    let shipments: HashMap<uuid::Uuid, ShipmentRow> =
        reads::shipments_by_id(db, account, &ids).await?;
    // what the shipments show of their containers is read again too
    let known = Known {
        shipments: Some(&shipments),
        refs: None,
    };
    let (data, included) = render(db, caller, &rows, known, includes).await?;
    let parsed = (values(&data), values(&included));
    same(db, account, &before, rendered, parsed, "containers").await
}
