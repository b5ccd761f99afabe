//! The `container` resource (with holds, fees and last free days as the account may see them).

use boxtrack_core::plan::Entitlement;
use boxtrack_core::tracking::ContainerState;
use boxtrack_core::tracking::rules::{ContainerStatus, coalesced_lfd, t};
use boxtrack_core::tracking::{Fee, Hold, LfdKind};
use boxtrack_store::accounts::Account;
use boxtrack_store::reads::{ContainerRow, ContainerView, ShipmentRow};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde_json::Value;

use super::rels::*;
use super::shipments::ShipmentFacts;
use super::stored;
use crate::jsonapi::{At, Kind, RelatedMany, Resource, ToOne, written};

/// The `container` type.
pub struct Container;

impl Kind for Container {
    const TYPE: &'static str = "container";
    const COLLECTION: &'static str = "containers";
    const NAME: &'static str = "Container";
    type Attributes = ContainerAttributes;
    type Relationships = ContainerRelationships;
}

fn container_status_schema(_: &mut SchemaGenerator) -> Schema {
    let all: Vec<&str> = ContainerStatus::ALL.iter().map(|s| s.as_str()).collect();
    json_schema!({"type": "string", "enum": all})
}

/// A hold at the terminal.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HoldView {
    /// Which hold.
    #[schemars(extend("enum" = ["freight", "customs", "USDA", "VACIS", "TMF", "other"]))]
    pub name: String,
    /// `hold` (the box cannot leave) or `pending`.
    #[schemars(extend("enum" = ["hold", "pending"]))]
    pub status: String,
    /// The terminal's words.
    pub description: Option<String>,
}

impl From<&Hold> for HoldView {
    fn from(h: &Hold) -> HoldView {
        HoldView {
            name: h.name.clone(),
            status: h.status.clone(),
            description: h.description.clone(),
        }
    }
}

/// An amount of money in major units (`120`, `87.5`), from minor units.
#[derive(Debug, Clone, Copy)]
pub struct Amount(pub i64);

impl Serialize for Amount {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        boxtrack_core::tracking::merge::major_units(self.0).serialize(s)
    }
}

impl JsonSchema for Amount {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Amount".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "number"})
    }
}

/// A fee at the terminal.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeeView {
    /// Which fee.
    #[serde(rename = "type")]
    #[schemars(extend("enum" = ["demurrage", "extended_dwell_time", "exam", "total", "other"]))]
    pub kind: String,
    /// How much, in major units.
    pub amount: Amount,
    /// ISO 4217 currency code.
    pub currency_code: String,
}

impl From<&Fee> for FeeView {
    fn from(f: &Fee) -> FeeView {
        FeeView {
            kind: f.kind.clone(),
            amount: Amount(f.amount_minor),
            currency_code: f.currency_code.clone(),
        }
    }
}

/// The last free days by who sets them.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ImportDeadlines {
    /// The POD terminal's last free day.
    pub pickup_lfd_terminal: Option<At>,
    /// The rail carrier's last free day at the inland ramp (needs the `rail_lfd` entitlement).
    pub pickup_lfd_rail: Option<At>,
    /// The shipping line's last free day.
    pub pickup_lfd_line: Option<At>,
}

/// Attributes of a container: what the row, its shipment and the reader decide, and what its
/// merged state alone decides (stored rendered beside the state, [`render_container`]).
#[derive(Debug, Serialize, JsonSchema)]
pub struct ContainerAttributes {
    /// What the row, its shipment and the reader decide.
    #[serde(flatten)]
    pub row: ContainerRowAttributes,
    /// What the merged state decides.
    #[serde(flatten)]
    pub state: ContainerStateAttributes,
}

/// The attributes of a container that its row, its shipment's route and the reader's
/// entitlements decide.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ContainerRowAttributes {
    /// The container number (ISO 6346).
    pub number: String,
    /// When tracking began.
    pub created_at: At,
    /// When it last changed.
    pub updated_at: At,
    /// The client's reference numbers.
    pub ref_numbers: Vec<String>,
    /// When the shipping line was last asked.
    pub shipment_last_tracking_request_at: Option<At>,
    /// The terminal says it can be picked up, and it has not left the pickup terminal.
    pub available_for_pickup: bool,
    /// The last free day that applies (terminal, rail where entitled, then line).
    pub pickup_lfd: Option<At>,
    /// The last free days by who sets them.
    pub import_deadlines: ImportDeadlines,
    /// Time zone of the port of discharge (IANA).
    pub pod_timezone: Option<String>,
    /// Time zone of the final destination (IANA).
    pub final_destination_timezone: Option<String>,
    /// Time zone of the empty return (IANA).
    pub empty_terminated_timezone: Option<String>,
    /// The last free day at the inland facility (needs the `rail_lfd` entitlement).
    pub ind_facility_lfd_on: Option<At>,
}

/// The attributes of a container that its merged state alone decides.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ContainerStateAttributes {
    /// The seal number.
    pub seal_number: Option<String>,
    /// Equipment type.
    #[schemars(extend("enum" = ["dry", "reefer", "open top", "flat rack", "bulk", "tank", null]))]
    pub equipment_type: Option<String>,
    /// Length in feet.
    #[schemars(extend("enum" = [10, 20, 40, 45, null]))]
    pub equipment_length: Option<i64>,
    /// `standard` or `high_cube`.
    pub equipment_height: Option<String>,
    /// Gross weight in pounds.
    pub weight_in_lbs: Option<i64>,
    /// Arrived at the port of discharge.
    pub pod_arrived_at: Option<At>,
    /// Discharged from the vessel.
    pub pod_discharged_at: Option<At>,
    /// Left the POD terminal full.
    pub pod_full_out_at: Option<At>,
    /// Left the final destination full.
    pub final_destination_full_out_at: Option<At>,
    /// Returned empty.
    pub empty_terminated_at: Option<At>,
    /// Delivered.
    pub delivered_at: Option<At>,
    /// Empty picked up for export.
    pub empty_out_at: Option<At>,
    /// Full in at the port of lading.
    pub pol_full_in_at: Option<At>,
    /// Loaded on the vessel at the port of lading.
    pub pol_vessel_loaded_at: Option<At>,
    /// The vessel left the port of lading.
    pub pol_vessel_departed_at: Option<At>,
    /// When the terminal was last read for this box.
    pub terminal_checked_at: Option<At>,
    /// When the POD terminal was last asked.
    pub pod_last_tracking_request_at: Option<At>,
    /// When the rail carrier was last asked.
    pub rail_last_tracking_request_at: Option<At>,
    /// The terminal has said whether it is available.
    pub availability_known: bool,
    /// available_for_pickup and no hold with status hold.
    pub ready_for_pickup: bool,
    /// Holds at the POD terminal (at the inland ramp for a box bound there): an array, as
    /// the reference declares it, empty both when the terminal reports none and while no
    /// source has reported holds yet (`terminal_checked_at` null and `availability_known`
    /// false say the terminal has not been read).
    pub holds_at_pod_terminal: Vec<HoldView>,
    /// Fees at the POD terminal: an array, as the reference declares it, empty both when the
    /// terminal reports none and while no source has reported fees yet.
    pub fees_at_pod_terminal: Vec<FeeView>,
    /// The shipping line's last free day.
    pub ssl_lfd: Option<At>,
    /// The pickup appointment.
    pub pickup_appointment_at: Option<At>,
    /// The chassis it left the POD terminal on.
    pub pod_full_out_chassis_number: Option<String>,
    /// Where it is in the POD terminal (yard position).
    pub location_at_pod_terminal: Option<String>,
    /// The rail carrier from the port of discharge.
    pub pod_rail_carrier_scac: Option<String>,
    /// The rail carrier into the inland destination.
    pub ind_rail_carrier_scac: Option<String>,
    /// Loaded on rail at the port of discharge.
    pub pod_rail_loaded_at: Option<At>,
    /// The train left the port of discharge.
    pub pod_rail_departed_at: Option<At>,
    /// Estimated arrival at the inland destination.
    pub ind_eta_at: Option<At>,
    /// Actual arrival at the inland destination.
    pub ind_ata_at: Option<At>,
    /// Unloaded from rail at the inland destination.
    pub ind_rail_unloaded_at: Option<At>,
    /// Holds at the inland facility (not reported by any source yet: always null).
    pub ind_facility_holds: Option<Vec<HoldView>>,
    /// Fees at the inland facility (not reported by any source yet: always null).
    pub ind_facility_fees: Option<Vec<FeeView>>,
    /// Where the container is in its journey.
    #[schemars(schema_with = "container_status_schema")]
    pub current_status: String,
    /// boxtrack's extension: the three release gates (customs, the line, the terminal), each
    /// `unknown`, `pending`, `held` or `released`, with the source and wording that decide it
    /// and every source's latest word (`docs/precedence.md`, "Release gates").
    pub release_gates: super::release::ReleaseGates,
    /// boxtrack's extension: each hold in force with every source that reports it, in its
    /// own words (`holds_at_pod_terminal` keeps the reference's shape).
    pub holds_by_source: Vec<super::release::HoldBySourceJson>,
}

/// Relationships of a container.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ContainerRelationships {
    /// The shipment it travels on (`shipment`).
    pub shipment: ToOne,
    /// The terminal at the port of discharge (`terminal`).
    pub pod_terminal: ToOne,
    /// Where it is picked up, when not at the POD terminal.
    pub pickup_facility: ToOne,
    /// Its transport events (`transport_event`): the link to them, and their ids with
    /// `include=transport_events`.
    pub transport_events: RelatedMany,
    /// What its sources reported (`raw_event`): the link to them.
    pub raw_events: RelatedMany,
}

/// The `container` resource as `account` may see it (rail LFD needs its entitlement).
pub fn container_resource(
    c: &ContainerRow,
    shipment: Option<&ShipmentRow>,
    account: &Account,
) -> Resource<Container> {
    let facts = shipment.map(ShipmentFacts::of_row);
    container_resource_with(c, facts.as_ref(), account)
}

/// The `container` resource as `account` may see it, with what it shows of its shipment.
pub fn container_resource_with(
    c: &ContainerRow,
    shipment: Option<&ShipmentFacts>,
    account: &Account,
) -> Resource<Container> {
    let st = &c.state;
    let facts = StateFacts::of(st);
    Resource {
        id: c.id,
        attributes: ContainerAttributes {
            row: row_attributes(&RowFields::of(c), shipment, account, &facts),
            state: state_attributes(st, &c.current_status, c.ready_for_pickup),
        },
        relationships: container_relationships(c.id, c.shipment_id, st.pod_terminal.as_deref()),
    }
}

/// The relationships of a container: its shipment and POD terminal, and the links to its
/// events.
pub fn container_relationships(
    id: uuid::Uuid,
    shipment_id: uuid::Uuid,
    pod_terminal: Option<&str>,
) -> ContainerRelationships {
    ContainerRelationships {
        shipment: ToOne::new("shipment", Some(shipment_id)),
        pod_terminal: terminal_rel(pod_terminal),
        pickup_facility: ToOne::none(),
        transport_events: RelatedMany::at(format!("/v2/containers/{id}/transport_events")),
        raw_events: RelatedMany::at(format!("/v2/containers/{id}/raw_events")),
    }
}

/// The columns of a container's row its attributes show beside the state.
struct RowFields<'a> {
    number: &'a str,
    ref_numbers: &'a [String],
    created_us: i64,
    updated_us: i64,
}

impl RowFields<'_> {
    fn of(c: &ContainerRow) -> RowFields<'_> {
        RowFields {
            number: &c.number,
            ref_numbers: &c.ref_numbers,
            created_us: c.created_us,
            updated_us: c.updated_us,
        }
    }
}

/// What the attributes a reader or the route decide need of the state: whether it is
/// available for pickup (at the port, and inland), and its last free days.
#[derive(Debug, Clone, PartialEq, Eq)]
struct StateFacts {
    /// `available_for_pickup` for a box picked up at the port, and for one bound inland.
    available: [bool; 2],
    /// The last free days by who sets them.
    lfd: std::collections::BTreeMap<LfdKind, i64>,
}

impl StateFacts {
    fn of(st: &ContainerState) -> StateFacts {
        use boxtrack_core::tracking::rules::available_for_pickup;
        StateFacts {
            available: [
                available_for_pickup(st, false),
                available_for_pickup(st, true),
            ],
            lfd: st.lfd.clone(),
        }
    }
}

/// The attributes the row, the shipment's route and the reader's entitlements decide.
fn row_attributes(
    c: &RowFields<'_>,
    shipment: Option<&ShipmentFacts>,
    account: &Account,
    facts: &StateFacts,
) -> ContainerRowAttributes {
    let rail = account.has(Entitlement::RailLfd);
    let lfd = |k: LfdKind| At::opt(facts.lfd.get(&k).copied());
    let rail_lfd = if rail { lfd(LfdKind::Rail) } else { None };
    let inland = shipment.is_some_and(|s| s.inland);
    let pod_timezone = shipment.and_then(|s| s.pod_timezone.clone());
    let final_tz = match shipment {
        Some(s) if s.inland => s.destination_timezone.clone(),
        _ => pod_timezone.clone(),
    };
    ContainerRowAttributes {
        number: c.number.to_owned(),
        created_at: At(c.created_us),
        updated_at: At(c.updated_us),
        ref_numbers: c.ref_numbers.to_vec(),
        shipment_last_tracking_request_at: shipment.map(|s| At(s.updated_us)),
        available_for_pickup: facts.available[usize::from(inland)],
        pickup_lfd: At::opt(coalesced_lfd(&facts.lfd, rail)),
        import_deadlines: ImportDeadlines {
            pickup_lfd_terminal: lfd(LfdKind::Terminal),
            pickup_lfd_rail: rail_lfd,
            pickup_lfd_line: lfd(LfdKind::Line),
        },
        empty_terminated_timezone: pod_timezone.clone(),
        pod_timezone,
        final_destination_timezone: final_tz,
        ind_facility_lfd_on: rail_lfd,
    }
}

/// The attributes the merged state alone decides (with the status and readiness derived
/// from it).
fn state_attributes(st: &ContainerState, status: &str, ready: bool) -> ContainerStateAttributes {
    use boxtrack_core::tracking::versions::VersionKey;
    let time = |k: boxtrack_core::tracking::times::TimeKey| At::opt(st.times.get(&k).copied());
    ContainerStateAttributes {
        seal_number: st.equipment.seal_number.clone(),
        equipment_type: st.equipment.equipment_type.clone(),
        equipment_length: st.equipment.equipment_length,
        equipment_height: st.equipment.equipment_height.clone(),
        weight_in_lbs: st.equipment.weight_in_lbs,
        pod_arrived_at: time(t::POD_ARRIVED),
        pod_discharged_at: time(t::POD_DISCHARGED),
        pod_full_out_at: time(t::POD_FULL_OUT),
        final_destination_full_out_at: time(t::FINAL_FULL_OUT),
        empty_terminated_at: time(t::EMPTY_TERMINATED),
        delivered_at: time(t::DELIVERED),
        empty_out_at: time(t::EMPTY_OUT),
        pol_full_in_at: time(t::POL_FULL_IN),
        pol_vessel_loaded_at: time(t::POL_VESSEL_LOADED),
        pol_vessel_departed_at: time(t::POL_VESSEL_DEPARTED),
        terminal_checked_at: At::opt(
            st.versions
                .get(&VersionKey::Availability)
                .or(st.versions.get(&VersionKey::Holds))
                .copied(),
        ),
        pod_last_tracking_request_at: None,
        rail_last_tracking_request_at: None,
        availability_known: st.availability_known,
        ready_for_pickup: ready,
        holds_at_pod_terminal: boxtrack_core::tracking::rules::reported_holds(st)
            .unwrap_or_default()
            .iter()
            .map(HoldView::from)
            .collect(),
        fees_at_pod_terminal: boxtrack_core::tracking::rules::reported_fees(st)
            .unwrap_or_default()
            .iter()
            .map(FeeView::from)
            .collect(),
        ssl_lfd: At::opt(st.lfd.get(&LfdKind::Line).copied()),
        pickup_appointment_at: At::opt(boxtrack_core::tracking::rules::appointment(st)),
        pod_full_out_chassis_number: st.pod_full_out_chassis_number.clone(),
        location_at_pod_terminal: st.location_at_pod_terminal.clone(),
        pod_rail_carrier_scac: st.pod_rail_carrier_scac.clone(),
        ind_rail_carrier_scac: st.ind_rail_carrier_scac.clone(),
        pod_rail_loaded_at: time(t::POD_RAIL_LOADED),
        pod_rail_departed_at: time(t::POD_RAIL_DEPARTED),
        ind_eta_at: time(t::IND_ETA),
        ind_ata_at: time(t::IND_ATA),
        ind_rail_unloaded_at: time(t::IND_RAIL_UNLOADED),
        ind_facility_holds: None,
        ind_facility_fees: None,
        current_status: status.to_owned(),
        release_gates: super::release::release_gates(st, status),
        holds_by_source: super::release::holds_by_source(st),
    }
}

/// The version and shape of the text [`render_container`] writes: a change to what
/// [`ContainerStateAttributes`] shows, or to how, changes it, so that a text written before is
/// not shown (the test `a_rendered_container_reads_as_written` fails until it does). Every
/// text begins with it, separator included: it is also the renderer's tag (`Renderer::tag`).
const CONTAINER_TAG: &str = "c4|";

/// The names of [`ContainerStateAttributes`]' members, in the order they are written.
static STATE_KEYS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
    stored::names_of(&written(&state_attributes(
        &ContainerState::default(),
        "",
        false,
    )))
});

/// The text stored beside a container's merged state (`boxtrack_store::rendered`): the
/// version, what the route and the reader decide with (available at the port and inland,
/// the last free days by who sets them), and the values of the state's attributes as a JSON
/// array in the order of their names (the names are this build's, not stored):
/// `c4|10|<line>|<terminal>|<rail>|<entered>|[…]`.
pub fn render_container(st: &ContainerState, status: &str, ready: bool) -> String {
    let facts = StateFacts::of(st);
    let attributes = written(&state_attributes(st, status, ready));
    let mut out = String::with_capacity(attributes.len() / 2 + 80);
    out.push_str(CONTAINER_TAG);
    for a in facts.available {
        out.push(if a { '1' } else { '0' });
    }
    for k in LFD_KINDS {
        out.push('|');
        if let Some(us) = facts.lfd.get(&k) {
            out.push_str(itoa::Buffer::new().format(*us));
        }
    }
    out.push('|');
    stored::push_values(&mut out, &attributes);
    out
}

/// The last free days a rendered text carries, in its order: the sources' and a person's.
const LFD_KINDS: [LfdKind; 4] = [
    LfdKind::Line,
    LfdKind::Terminal,
    LfdKind::Rail,
    LfdKind::User,
];

/// A text [`render_container`] wrote, read back.
struct RenderedState<'a> {
    facts: StateFacts,
    /// The state's attributes' values, in the order of [`STATE_KEYS`].
    values: Vec<&'a str>,
}

impl RenderedState<'_> {
    /// Reads `text`'s header (its version, facts, and where the values are), or `None` when
    /// another version (or nothing readable) wrote it.
    fn header(text: &str) -> Option<(StateFacts, &str)> {
        let mut parts = text.strip_prefix(CONTAINER_TAG)?.splitn(6, '|');
        let available = match parts.next()?.as_bytes() {
            [a, b] => [*a == b'1', *b == b'1'],
            _ => return None,
        };
        let mut lfd = std::collections::BTreeMap::new();
        for k in LFD_KINDS {
            let part = parts.next()?;
            if !part.is_empty() {
                lfd.insert(k, part.parse().ok()?);
            }
        }
        let values = parts
            .next()
            .filter(|v| v.starts_with('[') && v.ends_with(']'))?;
        Some((StateFacts { available, lfd }, values))
    }

    /// Reads `text`, or `None` when another version (or nothing readable) wrote it.
    fn read(text: &str) -> Option<RenderedState<'_>> {
        let (facts, values) = RenderedState::header(text)?;
        let values = stored::values_of(values, &STATE_KEYS)?;
        Some(RenderedState { facts, values })
    }

    /// The members the values stand for, without braces (`"seal_number":null,…`).
    fn write_members(&self, out: &mut String) {
        stored::push_members(out, &STATE_KEYS, &self.values);
    }
}

/// Whether `text` was written by this version's [`render_container`], which
/// [`written_container_view`] shows (read whole: one whose values do not match this build's
/// names is passed over, and the state parsed instead).
pub fn rendered_is_current(text: &str) -> bool {
    RenderedState::read(text).is_some()
}

/// Installs [`render_container`] (and [`super::shipments::render_shipment`] for shipments)
/// as this process's renderer of stored states: every process that merges or shows containers
/// calls it once at its start.
pub fn install_renderer() {
    boxtrack_store::rendered::install(boxtrack_store::rendered::Renderer {
        render: render_container,
        current: rendered_is_current,
        render_shipment: super::shipments::render_shipment,
        shipment_current: super::shipments::rendered_shipment_is_current,
        tag: CONTAINER_TAG,
        shipment_tag: super::shipments::SHIPMENT_TAG,
    });
}

/// The `container` resource of a container read with its state rendered (as
/// [`container_resource`] writes it, with `relationships` as given), written out; `None` when
/// its text is not current ([`rendered_is_current`]).
pub fn written_container_view(
    v: &ContainerView,
    shipment: Option<&ShipmentFacts>,
    account: &Account,
    relationships: &ContainerRelationships,
) -> Option<String> {
    let view = RenderedState::read(&v.view)?;
    let fields = RowFields {
        number: &v.number,
        ref_numbers: &v.ref_numbers,
        created_us: v.created_us,
        updated_us: v.updated_us,
    };
    let row = written(&row_attributes(&fields, shipment, account, &view.facts));
    let relationships = written(relationships);
    let id = v.id.hyphenated();
    // the resource as `Resource<Container>` writes it, its attributes the two objects as one
    let mut out = String::with_capacity(row.len() + relationships.len() + 1800);
    out.push_str("{\"id\":\"");
    out.push_str(id.encode_lower(&mut uuid::Uuid::encode_buffer()));
    out.push_str("\",\"type\":\"container\",\"attributes\":");
    out.push_str(row.strip_suffix('}').unwrap_or(&row));
    out.push(',');
    view.write_members(&mut out);
    out.push_str("},\"relationships\":");
    out.push_str(&relationships);
    out.push_str(",\"links\":{\"self\":\"/v2/containers/");
    out.push_str(id.encode_lower(&mut uuid::Uuid::encode_buffer()));
    out.push_str("\"}}");
    Some(out)
}

/// The `container` resource as a JSON value.
pub fn container(c: &ContainerRow, shipment: Option<&ShipmentRow>, account: &Account) -> Value {
    container_resource(c, shipment, account).to_value()
}

#[cfg(test)]
mod tests {
    use super::*;
    use boxtrack_core::tracking::versions::VersionKey;
    use boxtrack_core::tracking::{Route, ShipmentState};
    use proptest::prelude::*;

    fn account(rail: bool) -> Account {
        Account {
            id: uuid::Uuid::nil(),
            name: "a".into(),
            plan: boxtrack_core::plan::Plan::Standard,
            entitlements: if rail {
                vec![Entitlement::RailLfd]
            } else {
                vec![]
            },
            rate_limits: Default::default(),
            operator: false,
            created_us: 1,
            updated_us: 2,
        }
    }

    fn shipment(route: Route) -> ShipmentRow {
        ShipmentRow {
            id: uuid::Uuid::from_u128(7),
            account_id: uuid::Uuid::nil(),
            tracking_request_id: None,
            bill_of_lading_number: "BL".into(),
            scac: "MAEU".into(),
            ref_numbers: vec![],
            tags: vec![],
            route,
            state: ShipmentState::default(),
            tracking_stopped_us: None,
            stopped_reason: None,
            created_us: 3,
            updated_us: 1_790_000_000_123_456,
            customer_name: None,
            customer_id: None,
        }
    }

    fn row(st: ContainerState, status: &str, ready: bool) -> ContainerRow {
        ContainerRow {
            id: uuid::Uuid::from_u128(5),
            account_id: uuid::Uuid::nil(),
            shipment_id: uuid::Uuid::from_u128(7),
            number: "MSKU1234565".into(),
            ref_numbers: vec!["PO \"7\"".into()],
            current_status: status.into(),
            ready_for_pickup: ready,
            pickup_lfd_us: None,
            active: true,
            created_us: 1_780_000_000_000_000,
            updated_us: 1_790_000_000_000_001,
            state: st,
        }
    }

    /// The container's resource as written from its rendered text, as a JSON value.
    fn from_rendered(c: &ContainerRow, shipment: Option<&ShipmentRow>, account: &Account) -> Value {
        let view = ContainerView {
            id: c.id,
            account_id: c.account_id,
            shipment_id: c.shipment_id,
            number: c.number.clone(),
            ref_numbers: c.ref_numbers.clone(),
            pod_terminal: c.state.pod_terminal.clone(),
            created_us: c.created_us,
            updated_us: c.updated_us,
            view: render_container(&c.state, &c.current_status, c.ready_for_pickup),
        };
        assert!(rendered_is_current(&view.view));
        let rels = container_relationships(c.id, c.shipment_id, view.pod_terminal.as_deref());
        let facts = shipment.map(ShipmentFacts::of_row);
        let text = written_container_view(&view, facts.as_ref(), account, &rels).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    fn a_state() -> ContainerState {
        let mut st = ContainerState::default();
        st.equipment.equipment_type = Some("dry".into());
        st.equipment.equipment_length = Some(40);
        st.equipment.seal_number = Some("S\\1".into());
        st.times.insert(t::POD_ARRIVED, 1_785_000_000_000_000);
        st.times.insert(t::IND_ETA, -5);
        st.availability_known = true;
        st.available_for_pickup = Some(true);
        st.holds.push(Hold {
            name: "customs".into(),
            status: "hold".into(),
            description: Some("line\n\"2\"".into()),
        });
        st.fees.push(Fee {
            kind: "demurrage".into(),
            amount_minor: 12_050,
            currency_code: "USD".into(),
        });
        st.versions.insert(VersionKey::Holds, 9);
        st.versions.insert(VersionKey::Fees, 9);
        st.versions.insert(VersionKey::Availability, 10);
        st.lfd.insert(LfdKind::Terminal, 1_786_000_000_000_000);
        st.lfd.insert(LfdKind::Rail, 1_787_000_000_000_000);
        st.pod_terminal = Some("Y258".into());
        st.location_at_pod_terminal = Some("B-12\t04".into());
        st
    }

    #[test]
    fn holds_and_fees_never_reported_are_empty_arrays_not_null() {
        // the reference declares both `{type: array}`: typed clients refuse null
        let a = state_attributes(&ContainerState::default(), "new", false);
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(v["holds_at_pod_terminal"], serde_json::json!([]));
        assert_eq!(v["fees_at_pod_terminal"], serde_json::json!([]));
        assert_eq!(v["terminal_checked_at"], serde_json::Value::Null);
        assert_eq!(v["availability_known"], false);
    }

    #[test]
    fn a_rendered_container_reads_as_written() {
        // a change here changes what texts stored by earlier builds show: bump CONTAINER_TAG
        let text = render_container(&a_state(), "available", true);
        assert_eq!(
            text,
            "c4|10||1786000000000000|1787000000000000||[\"S\\\\1\",\"dry\",40,null,null,\"2026-07-25T17:20:00Z\",null,null,null,null,null,null,null,null,null,\"1970-01-01T00:00:00Z\",null,null,true,true,[{\"name\":\"customs\",\"status\":\"hold\",\"description\":\"line\\n\\\"2\\\"\"}],[{\"type\":\"demurrage\",\"amount\":120.5,\"currency_code\":\"USD\"}],null,null,null,\"B-12\\t04\",null,null,null,null,\"1969-12-31T23:59:59Z\",null,null,null,null,\"available\",{\"customs\":{\"status\":\"held\",\"source\":\"terminal\",\"at\":\"1970-01-01T00:00:00Z\",\"wording\":\"line\\n\\\"2\\\"\",\"inferred\":false,\"words\":[{\"source\":\"terminal\",\"status\":\"held\",\"wording\":\"line\\n\\\"2\\\"\",\"at\":null,\"observed_at\":\"1970-01-01T00:00:00Z\"}]},\"line\":{\"status\":\"released\",\"source\":\"terminal\",\"at\":\"1970-01-01T00:00:00Z\",\"wording\":null,\"inferred\":false,\"words\":[{\"source\":\"terminal\",\"status\":\"released\",\"wording\":null,\"at\":null,\"observed_at\":\"1970-01-01T00:00:00Z\"}]},\"terminal\":{\"status\":\"released\",\"source\":\"terminal\",\"at\":\"1970-01-01T00:00:00Z\",\"wording\":\"available for pickup\",\"inferred\":false,\"words\":[{\"source\":\"terminal\",\"status\":\"released\",\"wording\":\"available for pickup\",\"at\":null,\"observed_at\":\"1970-01-01T00:00:00Z\"}]}},[{\"name\":\"customs\",\"status\":\"hold\",\"sources\":[{\"source\":\"terminal\",\"status\":\"hold\",\"description\":\"line\\n\\\"2\\\"\",\"observed_at\":\"1970-01-01T00:00:00Z\"}]}]]"
        );
        let read = RenderedState::read(&text).unwrap();
        assert_eq!(read.facts, StateFacts::of(&a_state()));
        // another version's text, or a damaged one, is not shown
        for other in [
            text.replacen("c4|", "c3|", 1),
            text.replacen("|10|", "|1|", 1),
            text.replacen("|1786000000000000|", "|17x|", 1),
            text[..text.len() - 1].to_string(),
            // a value short of this build's names
            text.replacen(",\"available\",", ",", 1),
            String::new(),
        ] {
            assert!(!rendered_is_current(&other), "{other}");
        }
    }

    #[test]
    fn a_container_written_from_its_rendered_text_equals_the_one_from_its_state() {
        let port = Route {
            pod_locode: Some("USLAX".into()),
            pod_timezone: Some("America/Los_Angeles".into()),
            ..Route::default()
        };
        let inland = Route {
            destination_locode: Some("USCHI".into()),
            destination_timezone: Some("America/Chicago".into()),
            ..port.clone()
        };
        for st in [ContainerState::default(), a_state()] {
            for s in [
                None,
                Some(shipment(port.clone())),
                Some(shipment(inland.clone())),
            ] {
                for rail in [false, true] {
                    let c = row(st.clone(), "available", rail);
                    let a = account(rail);
                    let typed = container_resource(&c, s.as_ref(), &a).to_value();
                    assert_eq!(from_rendered(&c, s.as_ref(), &a), typed);
                }
            }
        }
    }

    fn text() -> impl Strategy<Value = Option<String>> {
        proptest::option::of(any::<String>())
    }

    proptest! {
        #[test]
        fn any_state_shows_the_same_from_its_rendered_text(
            known in any::<bool>(),
            available in proptest::option::of(any::<bool>()),
            holds in proptest::collection::vec((any::<String>(), text()), 0..3),
            lfd in proptest::collection::vec((0..3usize, any::<i64>()), 0..4),
            times in proptest::collection::vec((0..6usize, any::<i64>()), 0..6),
            versions in proptest::collection::vec((0..3usize, any::<i64>()), 0..3),
            location in text(),
            status in "[a-z_]{1,12}",
            ready in any::<bool>(),
            route in 0..3usize,
            rail in any::<bool>(),
        ) {
            let mut st = ContainerState {
                availability_known: known,
                available_for_pickup: available,
                location_at_pod_terminal: location,
                ..ContainerState::default()
            };
            for (name, description) in holds {
                st.holds.push(Hold { name, status: "hold".into(), description });
            }
            let kinds = [LfdKind::Line, LfdKind::Terminal, LfdKind::Rail];
            for (k, us) in lfd {
                st.lfd.insert(kinds[k], us);
            }
            let keys = [t::POD_ARRIVED, t::POD_DISCHARGED, t::POD_FULL_OUT, t::FINAL_FULL_OUT, t::IND_ETA, t::EMPTY_TERMINATED];
            for (k, us) in times {
                st.times.insert(keys[k], us);
            }
            let vkeys = [VersionKey::Availability, VersionKey::Holds, VersionKey::Fees];
            for (k, us) in versions {
                st.versions.insert(vkeys[k], us);
            }
            let routes = [
                None,
                Some(Route { pod_locode: Some("USLAX".into()), ..Route::default() }),
                Some(Route { pod_locode: Some("USLAX".into()), destination_locode: Some("USCHI".into()), ..Route::default() }),
            ];
            let s = routes[route].clone().map(shipment);
            let c = row(st, &status, ready);
            let a = account(rail);
            prop_assert_eq!(from_rendered(&c, s.as_ref(), &a), container_resource(&c, s.as_ref(), &a).to_value());
        }
    }
}
