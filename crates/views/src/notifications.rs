//! The `webhook_notification` resource and the envelope a notification is delivered in.
//! Notifications are written with the events they announce; the worker's deliverer sends
//! them, and `GET /v2/events` shows the same envelopes.

use boxtrack_core::time::format_micros;
use std::collections::HashMap;

use boxtrack_store::accounts::Account;
use boxtrack_store::events::EventRow;
use boxtrack_store::notifications::NotificationRow;
use boxtrack_store::reads::{ContainerRow, ShipmentRow, TransportEventRow};
use boxtrack_store::tracking::TrackingRequestRow;
use serde_json::{Value, json};
use uuid::Uuid;

use schemars::JsonSchema;
use serde::Serialize;

use crate::jsonapi::{At, Kind, Resource, ToMany, ToOne, to_one};

/// The `webhook_notification` type.
pub struct WebhookNotification;

impl Kind for WebhookNotification {
    const TYPE: &'static str = "webhook_notification";
    const COLLECTION: &'static str = "webhook_notifications";
    const NAME: &'static str = "WebhookNotification";
    type Attributes = WebhookNotificationAttributes;
    type Relationships = WebhookNotificationRelationships;
}

/// Attributes of a webhook notification: one event for one webhook, and its delivery.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WebhookNotificationAttributes {
    /// The notification's id (the `webhook-id` it is sent with).
    pub id: Uuid,
    /// The event (`container.transport.vessel_arrived`, …).
    pub event: String,
    /// The event's place in the account's event log.
    pub sequence: i64,
    /// Where its delivery is.
    #[schemars(extend("enum" = ["pending", "succeeded", "failed"]))]
    pub delivery_status: String,
    /// Attempts so far.
    pub attempts: i64,
    /// When the next attempt is due.
    pub next_attempt_at: Option<At>,
    /// The status the receiver last answered.
    pub last_status_code: Option<i64>,
    /// Why the last attempt failed.
    pub last_error: Option<String>,
    /// When it was written (with its event).
    pub created_at: At,
    /// When it last changed.
    pub updated_at: At,
    /// The notification this one replays.
    pub replay_of: Option<Uuid>,
    /// Every delivery attempt, oldest first (only when one notification is read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivery_attempts: Option<Vec<DeliveryAttempt>>,
}

/// One attempt to deliver a notification.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DeliveryAttempt {
    /// When it was made.
    pub attempted_at: At,
    /// The status the receiver answered.
    pub status_code: Option<i64>,
    /// How long it took.
    pub duration_ms: i64,
    /// Why it failed.
    pub error: Option<String>,
    /// The first KiB of what the receiver answered (text; none when it answered nothing).
    pub response_body: Option<String>,
}

impl From<&boxtrack_store::notifications::AttemptRow> for DeliveryAttempt {
    fn from(a: &boxtrack_store::notifications::AttemptRow) -> DeliveryAttempt {
        DeliveryAttempt {
            attempted_at: At(a.attempted_us),
            status_code: a.status_code,
            duration_ms: a.duration_ms,
            error: a.error.clone(),
            response_body: a.response_body.clone(),
        }
    }
}

/// Relationships of a webhook notification.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WebhookNotificationRelationships {
    /// The webhook (`webhook`).
    pub webhook: ToOne,
    /// What the event is about (a `tracking_request`, `transport_event`, `container`, …).
    pub reference_object: ToOne,
}

/// The `webhook_notification` resource.
pub fn notification(n: &NotificationRow) -> Resource<WebhookNotification> {
    Resource {
        id: n.id,
        attributes: WebhookNotificationAttributes {
            id: n.id,
            event: n.event.clone(),
            sequence: n.seq,
            delivery_status: n.delivery_status.clone(),
            attempts: n.attempts,
            next_attempt_at: At::opt(n.next_attempt_us),
            last_status_code: n.last_status_code,
            last_error: n.last_error.clone(),
            created_at: At(n.created_us),
            updated_at: At(n.updated_us),
            replay_of: n.replay_of,
            delivery_attempts: None,
        },
        relationships: WebhookNotificationRelationships {
            webhook: ToOne::new("webhook", Some(n.webhook_id)),
            reference_object: reference_of(n),
        },
    }
}

/// The `webhook_notification` resource as a JSON value.
pub fn to_resource(n: &NotificationRow) -> Value {
    notification(n).to_value()
}

/// What the envelopes of some notifications are made from, read with one query per relation
/// for all of them (not one per notification).
#[derive(Default)]
pub struct Loaded {
    accounts: HashMap<Uuid, Account>,
    events: HashMap<Uuid, EventRow>,
    requests: HashMap<Uuid, TrackingRequestRow>,
    transport: HashMap<Uuid, TransportEventRow>,
    containers: HashMap<Uuid, ContainerRow>,
    shipments: HashMap<Uuid, ShipmentRow>,
    siblings: HashMap<Uuid, Vec<ContainerRow>>,
    /// The transport events of the containers of shipments whose tracking request succeeded.
    events_of: HashMap<Uuid, Vec<TransportEventRow>>,
}

/// How many transport events per container a `tracking_request.succeeded` includes.
const SUCCEEDED_EVENTS_PER_CONTAINER: i64 = 200;

/// The shipment and container ids an event's payload names.
fn payload_ids(payload: &Value) -> (Option<Uuid>, Option<Uuid>) {
    let at = |k: &str| {
        payload
            .get(k)
            .and_then(Value::as_str)
            .and_then(|s| Uuid::parse_str(s).ok())
    };
    (at("shipment_id"), at("container_id"))
}

impl Loaded {
    /// Reads what the envelopes of `ns` need; `events` already read are not read again.
    pub async fn read(
        db: &boxtrack_store::Db,
        ns: &[NotificationRow],
        events: Vec<EventRow>,
    ) -> Result<Loaded, boxtrack_store::StoreError> {
        use boxtrack_store::{accounts, events as log, reads, tracking};
        let mut l = Loaded {
            events: events.into_iter().map(|e| (e.id, e)).collect(),
            ..Loaded::default()
        };
        let mut by_account: HashMap<Uuid, Vec<&NotificationRow>> = HashMap::new();
        for n in ns {
            by_account.entry(n.account_id).or_default().push(n);
        }
        for (account_id, ns) in by_account {
            if let Some(a) = accounts::get(db, account_id).await? {
                l.accounts.insert(account_id, a);
            }
            let ids_of = |kind: &str| -> Vec<Uuid> {
                ns.iter()
                    .filter(|n| n.reference_type == kind)
                    .map(|n| n.reference_id)
                    .collect()
            };
            let missing: Vec<Uuid> = ns
                .iter()
                .map(|n| n.event_id)
                .filter(|id| !l.events.contains_key(id))
                .collect();
            l.events
                .extend(log::get_many(db, account_id, &missing).await?);
            l.requests
                .extend(tracking::get_requests(db, account_id, &ids_of("tracking_request")).await?);
            l.transport.extend(
                reads::transport_events_by_id(db, account_id, &ids_of("transport_event")).await?,
            );
            // the containers and shipments the notifications are about
            let (mut shipment_ids, mut container_ids) = (Vec::new(), Vec::new());
            for n in &ns {
                let (s, c) = l
                    .events
                    .get(&n.event_id)
                    .map_or((None, None), |e| payload_ids(&e.payload.0));
                shipment_ids.extend(s);
                container_ids.extend(c);
                shipment_ids.extend(l.requests.get(&n.reference_id).and_then(|r| r.shipment_id));
                if let Some(e) = l.transport.get(&n.reference_id) {
                    shipment_ids.push(e.shipment_id);
                    container_ids.push(e.container_id);
                }
            }
            let containers = reads::containers_by_id(db, account_id, &container_ids).await?;
            shipment_ids.extend(containers.values().map(|c| c.shipment_id));
            l.containers.extend(containers);
            l.shipments
                .extend(reads::shipments_by_id(db, account_id, &shipment_ids).await?);
            let siblings = reads::containers_of_many(db, account_id, &shipment_ids).await?;
            // a succeeded request includes its shipment's containers with their events
            let succeeded: Vec<Uuid> = ns
                .iter()
                .filter(|n| n.event == "tracking_request.succeeded")
                .filter_map(|n| l.requests.get(&n.reference_id).and_then(|r| r.shipment_id))
                .flat_map(|s| siblings.get(&s).into_iter().flatten().map(|c| c.id))
                .collect();
            l.events_of.extend(
                reads::transport_events_of_many(
                    db,
                    account_id,
                    &succeeded,
                    SUCCEEDED_EVENTS_PER_CONTAINER,
                )
                .await?,
            );
            l.siblings.extend(siblings);
        }
        Ok(l)
    }

    /// The containers of a shipment that was read.
    fn siblings_of(&self, shipment_id: Uuid) -> &[ContainerRow] {
        self.siblings
            .get(&shipment_id)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// The envelope of `n` from what was read.
    pub fn envelope(&self, n: &NotificationRow) -> Result<Value, boxtrack_store::StoreError> {
        let account = self
            .accounts
            .get(&n.account_id)
            .ok_or(boxtrack_store::StoreError::NotFound("account"))?;
        let payload = self
            .events
            .get(&n.event_id)
            .map(|e| e.payload.0.clone())
            .unwrap_or(Value::Null);
        let mut included: Vec<Value> = Vec::new();
        let push = |v: Value, included: &mut Vec<Value>| crate::jsonapi::include_once(included, v);
        let (mut shipment_id, mut container_id) = payload_ids(&payload);
        let reference = reference_of(n);
        match n.reference_type.as_str() {
            "tracking_request" => {
                if let Some(r) = self.requests.get(&n.reference_id) {
                    shipment_id = r.shipment_id;
                    push(crate::tracking::tracking_request(r), &mut included);
                }
                // as the reference does: a succeeded request comes with its shipment, the
                // shipment's containers and their transport events
                if let Some(s) = shipment_id.and_then(|id| self.shipments.get(&id))
                    && n.event == "tracking_request.succeeded"
                {
                    let siblings = self.siblings_of(s.id);
                    push(crate::tracking::shipment(s, siblings), &mut included);
                    for c in siblings {
                        push(
                            crate::tracking::container(c, Some(s), account),
                            &mut included,
                        );
                    }
                    for c in siblings {
                        for e in self.events_of.get(&c.id).into_iter().flatten() {
                            push(crate::tracking::transport_event(e), &mut included);
                        }
                    }
                }
            }
            "transport_event" => {
                if let Some(e) = self.transport.get(&n.reference_id) {
                    shipment_id = Some(e.shipment_id);
                    container_id = Some(e.container_id);
                    push(crate::tracking::transport_event(e), &mut included);
                    // the place it happened at, as the reference includes it
                    if let Some(place) =
                        crate::tracking::place_resource(&e.event, e.locode.as_deref())
                    {
                        push(place, &mut included);
                    }
                }
            }
            _ => {
                let container = container_id.and_then(|id| self.containers.get(&id));
                let shipment = shipment_id
                    .or(container.map(|c| c.shipment_id))
                    .and_then(|id| self.shipments.get(&id));
                if let Some((_, obj, related)) = change_event(n, &payload, container, shipment) {
                    push(obj, &mut included);
                    if let Some(r) = related {
                        push(r, &mut included);
                    }
                }
            }
        }
        if let Some(c) = container_id.and_then(|id| self.containers.get(&id)) {
            let s = self.shipments.get(&c.shipment_id);
            push(crate::tracking::container(c, s, account), &mut included);
        }
        if let Some(s) = shipment_id.and_then(|id| self.shipments.get(&id)) {
            push(
                crate::tracking::shipment(s, self.siblings_of(s.id)),
                &mut included,
            );
        }
        Ok(json!({
            "data": serde_json::to_value(envelope_data(n, reference)).unwrap_or(Value::Null),
            "included": included,
            "links": envelope_links(n),
        }))
    }
}

/// The type of the change event that a notification of `event` is about, for the events
/// that carry one (the others are about a tracking request, a transport event or a document).
pub fn change_kind(event: &str) -> Option<&'static str> {
    Some(match event {
        "container.updated" => "container_updated_event",
        "container.pod_terminal_changed" => "container_pod_terminal_changed_event",
        "container.created" => "container_created_event",
        "shipment.estimated.arrival" => "estimated_event",
        "container.charges.free_time_ending" | "container.charges.accruing" => {
            "container_charges_event"
        }
        "container.release.changed" => "container_release_event",
        _ => return None,
    })
}

/// What a notification is about (its `reference_object`): the change event for events that
/// carry one (identified by the event's id), else the tracking request, transport event or
/// document the event names.
pub fn reference_of(n: &NotificationRow) -> ToOne {
    match change_kind(&n.event) {
        Some(kind)
            if !matches!(
                n.reference_type.as_str(),
                "tracking_request" | "transport_event"
            ) =>
        {
            ToOne::new(kind, Some(n.event_id))
        }
        _ => ToOne::new(&n.reference_type, Some(n.reference_id)),
    }
}

/// The change event a notification about a container or shipment change includes (its type
/// and object), for the events that carry one.
/// Also returns the place or terminal resource the change event relates to, for `included`:
/// the container's POD terminal for container changes, the port of discharge for an ETA.
fn change_event(
    n: &NotificationRow,
    payload: &Value,
    container: Option<&ContainerRow>,
    shipment: Option<&ShipmentRow>,
) -> Option<(&'static str, Value, Option<Value>)> {
    let kind = change_kind(&n.event)?;
    let change = payload.get("change").cloned().unwrap_or(Value::Null);
    let attributes = match kind {
        "container_updated_event" => {
            json!({"changeset": change.get("changeset").cloned().unwrap_or(Value::Null), "timestamp": format_micros(n.created_us)})
        }
        "estimated_event" => json!({
            "event": "shipment.estimated.arrival",
            "estimated_timestamp": change.get("new_us").and_then(Value::as_i64).map(format_micros),
            "previous_estimated_timestamp": change.get("old_us").and_then(Value::as_i64).map(format_micros),
            "created_at": format_micros(n.created_us),
        }),
        "container_release_event" => release_attributes(&change, n.created_us),
        _ => json!({"change": change, "timestamp": format_micros(n.created_us)}),
    };
    let mut rels = serde_json::Map::new();
    if let Some(c) = container {
        rels.insert("container".into(), to_one("container", Some(c.id)));
    }
    if let Some(s) = shipment {
        rels.insert("shipment".into(), to_one("shipment", Some(s.id)));
    }
    let mut attributes = attributes;
    let related;
    if kind == "estimated_event" {
        // the ETA is the port of discharge's, on the vessel bound there
        let route = shipment.map(|s| &s.route);
        let pod = route.and_then(|r| r.pod_locode.as_deref());
        let imo = shipment.and_then(|s| s.state.pod_vessel_imo.as_deref());
        rels.insert("port".into(), to_value(crate::tracking::port_rel(pod)));
        rels.insert(
            "vessel".into(),
            to_value(ToOne::new("vessel", imo.map(crate::reference::vessel_id))),
        );
        attributes["timezone"] = json!(route.and_then(|r| r.pod_timezone.clone()));
        attributes["location_locode"] = json!(pod);
        // the shipment's ETA is the carrier's (the merge takes it from its estimates)
        attributes["data_source"] = json!("shipping_line");
        attributes["voyage_number"] =
            json!(shipment.and_then(|s| s.state.pod_voyage_number.clone()));
        related = crate::tracking::place_resource("", pod);
    } else {
        // a container's change happens at its POD terminal, in the port's zone
        let terminal = container.and_then(|c| c.state.pod_terminal.as_deref());
        rels.insert(
            "terminal".into(),
            to_value(crate::tracking::terminal_rel(terminal)),
        );
        attributes["timezone"] = json!(shipment.and_then(|s| s.route.pod_timezone.clone()));
        // the attributes a container change is about are the terminal's (availability, holds,
        // fees, last free days, appointment, the terminal itself), as the reference defines it
        if kind != "container_release_event" {
            attributes["data_source"] = json!("terminal");
        }
        related = terminal
            .and_then(boxtrack_core::reference::terminal)
            .map(crate::reference::terminal_resource);
    }
    Some((
        kind,
        json!({"id": n.event_id, "type": kind, "attributes": attributes, "relationships": rels}),
        related,
    ))
}

/// A `container.release.changed` event's attributes: the gate, its status before and now,
/// and the word that decides it now (`data_source` its source; null when inferred).
fn release_attributes(change: &Value, created_us: i64) -> Value {
    use boxtrack_core::tracking::release::GateView;
    let view = |k: &str| {
        change
            .get(k)
            .and_then(|v| serde_json::from_value::<GateView>(v.clone()).ok())
    };
    let (old, new) = (view("old"), view("new"));
    let gate = new.as_ref().map(crate::tracking::release::gate_json);
    json!({
        "gate": new.as_ref().map(|g| g.gate.name()),
        "status": new.as_ref().map(|g| g.status.name()),
        "previous_status": old.as_ref().map(|g| g.status.name()),
        "data_source": new.as_ref().and_then(|g| g.source).map(boxtrack_core::tracking::source_name),
        "release_gate": gate,
        "timestamp": format_micros(created_us),
    })
}

fn to_value(rel: ToOne) -> Value {
    serde_json::to_value(rel).unwrap_or(Value::Null)
}

/// The delivered body: `data` is the notification, `included` the resources it is about (for
/// `container.updated` and the other change events, an object carrying the change itself).
pub async fn envelope(
    db: &boxtrack_store::Db,
    n: &NotificationRow,
) -> Result<Value, boxtrack_store::StoreError> {
    Loaded::read(db, std::slice::from_ref(n), Vec::new())
        .await?
        .envelope(n)
}

/// The envelopes of many notifications, reading what they need once for all of them.
pub async fn envelopes(
    db: &boxtrack_store::Db,
    ns: &[NotificationRow],
    events: Vec<EventRow>,
) -> Result<Vec<Value>, boxtrack_store::StoreError> {
    let loaded = Loaded::read(db, ns, events).await?;
    ns.iter().map(|n| loaded.envelope(n)).collect()
}

/// The envelope's `data`: the notification as it is sent (always `pending`). Its members are
/// in alphabetical order, as a JSON tree writes them, so the spliced body of
/// [`bodies`] and the tree of [`envelope`] are the same bytes.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EnvelopeData {
    /// What happened.
    pub attributes: EnvelopeAttributes,
    /// The notification's id (`webhook-id`).
    pub id: Uuid,
    /// What it is about and for which webhook.
    pub relationships: EnvelopeRelationships,
    /// `webhook_notification` (`event` in `GET /v2/events`).
    #[serde(rename = "type")]
    #[schemars(extend("enum" = ["webhook_notification", "event"]))]
    pub kind: &'static str,
}

/// The attributes of a delivered notification.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EnvelopeAttributes {
    /// When the event happened.
    pub created_at: At,
    /// `pending` as sent.
    #[schemars(extend("const" = "pending"))]
    pub delivery_status: &'static str,
    /// The event.
    pub event: String,
    /// The notification's id.
    pub id: Uuid,
    /// The event's place in the account's event log.
    pub sequence: i64,
}

/// An entry of `GET /v2/events` (its schema): the `data` a webhook delivery of the event
/// carries, typed `event`, without the delivery's status, since an entry of the account's log
/// is no delivery. The feed writes it from the envelope ([`envelope_data`]).
#[derive(Debug, Serialize, JsonSchema)]
pub struct EventData {
    /// What happened.
    pub attributes: EventAttributes,
    /// The event's notification id.
    pub id: Uuid,
    /// What it is about (the webhook is null).
    pub relationships: EnvelopeRelationships,
    /// `event`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "event"))]
    pub kind: &'static str,
}

/// The attributes of an entry of `GET /v2/events`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EventAttributes {
    /// When the event happened.
    pub created_at: At,
    /// The event.
    pub event: String,
    /// The notification's id.
    pub id: Uuid,
    /// The event's place in the account's event log.
    pub sequence: i64,
}

/// The relationships of a delivered notification.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EnvelopeRelationships {
    /// What the event is about (in `included`).
    pub reference_object: ToOne,
    /// The webhook (null in `GET /v2/events`).
    pub webhook: ToOne,
    /// Delivery logs (never sent: empty).
    pub webhook_notification_logs: ToMany,
}

/// The envelope's `data` for a notification whose event concerns `reference`.
pub fn envelope_data(n: &NotificationRow, reference: ToOne) -> EnvelopeData {
    EnvelopeData {
        attributes: EnvelopeAttributes {
            created_at: At(n.created_us),
            delivery_status: "pending",
            event: n.event.clone(),
            id: n.id,
            sequence: n.seq,
        },
        id: n.id,
        relationships: EnvelopeRelationships {
            reference_object: reference,
            webhook: ToOne::new("webhook", Some(n.webhook_id)),
            webhook_notification_logs: ToMany { data: Vec::new() },
        },
        kind: "webhook_notification",
    }
}

/// `links.self` of an envelope.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EnvelopeLinks {
    /// `/v2/webhook_notifications/<id>`.
    #[serde(rename = "self")]
    pub this: String,
}

/// The envelope's `links`.
fn envelope_links(n: &NotificationRow) -> Value {
    json!({"self": format!("/v2/webhook_notifications/{}", n.id)})
}

/// The body of a webhook delivery (and of each item of `GET /v2/events`): the notification,
/// the resources it is about, and its link.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "WebhookEnvelope")]
pub struct Envelope {
    /// The notification.
    pub data: EnvelopeData,
    /// What it is about: a tracking request (with, when it succeeded, its shipment, containers
    /// and their transport events), a transport event (with its place), a container, a
    /// shipment, or a change event (`container_updated_event`, `estimated_event`, …) carrying
    /// the change (with the POD terminal or port it relates to).
    #[schemars(schema_with = "included_schema")]
    pub included: Vec<Value>,
    /// Its link.
    pub links: EnvelopeLinks,
}

/// The resources a delivery may include: the typed resources, or a change event.
pub fn included_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use crate::tracking::{Container, Shipment, TrackingRequest, TransportEvent};
    let kinds = [
        generator.subschema_for::<Resource<TrackingRequest>>(),
        generator.subschema_for::<Resource<TransportEvent>>(),
        generator.subschema_for::<Resource<Container>>(),
        generator.subschema_for::<Resource<Shipment>>(),
        generator.subschema_for::<Resource<crate::reference::Port>>(),
        generator.subschema_for::<Resource<crate::reference::MetroArea>>(),
        generator.subschema_for::<Resource<crate::reference::Terminal>>(),
    ];
    let change = json!({
        "type": "object", "required": ["id", "type", "attributes"],
        "additionalProperties": true,
        "description": "A change event: `container_updated_event` (attributes.changeset, timestamp, timezone, data_source), `container_pod_terminal_changed_event` and `container_created_event` (attributes.change, timestamp, timezone, data_source), `estimated_event` (event, estimated_timestamp, previous_estimated_timestamp, created_at, timezone, location_locode, voyage_number, data_source); boxtrack's own `container_charges_event` (attributes.change) and `container_release_event` (gate, status, previous_status, data_source, release_gate); relationships name the container, the shipment and the POD terminal, or for an estimate the shipment, its port of discharge and vessel",
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "type": {"enum": ["container_updated_event", "container_pod_terminal_changed_event", "container_created_event", "estimated_event", "container_charges_event", "container_release_event"]},
            "attributes": {"type": "object", "additionalProperties": true},
            "relationships": {"type": "object", "additionalProperties": true}
        }
    });
    let mut any: Vec<Value> = kinds.into_iter().map(|k| k.to_value()).collect();
    any.push(change);
    schemars::json_schema!({"type": "array", "items": {"anyOf": any}})
}

/// Whether notifications about the same object share their `included` resources (those
/// about a tracking request or a transport event; change events carry their own change).
fn shares_included(n: &NotificationRow) -> bool {
    matches!(
        n.reference_type.as_str(),
        "tracking_request" | "transport_event"
    )
}

/// The serialized [`envelope`]s of notifications, for delivery, reading what they need once
/// for all of them. Notifications about the same tracking request or transport event share
/// their `included` resources, so those are serialized once and spliced into each body
/// between the notification's own `data` and `links`.
pub async fn bodies(
    db: &boxtrack_store::Db,
    ns: &[NotificationRow],
) -> Result<Vec<String>, boxtrack_store::StoreError> {
    // what is read: the notifications of their own, and the first about each object whose
    // notifications share their included resources (the others need only their own fields)
    let mut firsts = std::collections::HashSet::new();
    let need: Vec<NotificationRow> = ns
        .iter()
        .filter(|n| {
            !shares_included(n) || firsts.insert((n.reference_type.as_str(), n.reference_id))
        })
        .cloned()
        .collect();
    let loaded = Loaded::read(db, &need, Vec::new()).await?;
    let mut shared: HashMap<(&str, Uuid), String> = HashMap::new();
    let mut out = Vec::with_capacity(ns.len());
    for n in ns {
        if !shares_included(n) {
            out.push(loaded.envelope(n)?.to_string());
            continue;
        }
        let key = (n.reference_type.as_str(), n.reference_id);
        let included = match shared.get(&key) {
            Some(i) => i,
            None => {
                let env = loaded.envelope(n)?;
                shared.entry(key).or_insert(env["included"].to_string())
            }
        };
        out.push(spliced_body(n, included));
    }
    Ok(out)
}

/// A delivery body from the notification's own parts and the serialized `included` part:
/// the same bytes as serializing [`envelope`], written straight into one buffer instead of
/// building the notification's `data` as a JSON tree first (the typed parts below keep the
/// tree's alphabetical key order).
fn spliced_body(n: &NotificationRow, included: &str) -> String {
    let data = envelope_data(n, ToOne::new(&n.reference_type, Some(n.reference_id)));
    let mut out = Vec::with_capacity(included.len() + 600);
    out.extend_from_slice(br#"{"data":"#);
    // writing plain structs of strings and numbers into a Vec cannot fail
    let _ = serde_json::to_writer(&mut out, &data);
    out.extend_from_slice(br#","included":"#);
    out.extend_from_slice(included.as_bytes());
    out.extend_from_slice(br#","links":{"self":"/v2/webhook_notifications/"#);
    out.extend_from_slice(
        n.id.hyphenated()
            .encode_lower(&mut Uuid::encode_buffer())
            .as_bytes(),
    );
    out.extend_from_slice(br#""}}"#);
    // only UTF-8 went in
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(event: &str, reference_type: &str) -> NotificationRow {
        NotificationRow {
            id: Uuid::now_v7(),
            account_id: Uuid::new_v4(),
            webhook_id: Uuid::new_v4(),
            event_id: Uuid::new_v4(),
            seq: 42,
            event: event.into(),
            reference_type: reference_type.into(),
            reference_id: Uuid::new_v4(),
            delivery_status: "pending".into(),
            attempts: 0,
            next_attempt_us: Some(1),
            last_status_code: None,
            last_error: None,
            created_us: 1_795_400_000_123_456,
            updated_us: 1_795_400_000_123_456,
            replay_of: None,
        }
    }

    #[test]
    fn spliced_bodies_are_the_bytes_of_the_envelope_tree() {
        let included =
            r#"[{"attributes":{"note":"a \"quoted\" é"},"id":"x","type":"tracking_request"}]"#;
        for (event, kind) in [
            ("tracking_request.succeeded", "tracking_request"),
            ("container.transport.vessel_departed", "transport_event"),
            ("odd \"name\" \\ é \u{1}", "tracking_request"),
        ] {
            let n = row(event, kind);
            let tree = json!({
                "data": envelope_data(&n, ToOne::new(&n.reference_type, Some(n.reference_id))),
                "included": serde_json::from_str::<Value>(included).unwrap(),
                "links": envelope_links(&n),
            });
            assert_eq!(spliced_body(&n, included), tree.to_string());
        }
    }
}
