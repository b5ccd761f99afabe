//! The `shipment` resource.

use boxtrack_core::carriers;
use boxtrack_core::tracking::{Route, ShipmentState};
use boxtrack_store::reads::{ContainerOnShipment, RenderedShipment, ShipmentRow, ShipmentView};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::rels::*;
use super::stored;
use crate::jsonapi::{At, Kind, Resource, ToMany, ToOne, written};

/// The `shipment` type.
pub struct Shipment;

impl Kind for Shipment {
    const TYPE: &'static str = "shipment";
    const COLLECTION: &'static str = "shipments";
    const NAME: &'static str = "Shipment";
    type Attributes = ShipmentAttributes;
    type Relationships = ShipmentRelationships;
}

/// Attributes of a shipment (a bill of lading or booking): what its row decides, and what
/// its route and merged voyage state decide (stored rendered beside the state,
/// [`render_shipment`]).
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShipmentAttributes {
    /// What the row decides.
    #[serde(flatten)]
    pub row: ShipmentRowAttributes,
    /// What the route and the voyage state decide.
    #[serde(flatten)]
    pub voyage: ShipmentVoyageAttributes,
}

/// The attributes of a shipment its row decides.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShipmentRowAttributes {
    /// The bill of lading (or booking) number.
    pub bill_of_lading_number: String,
    /// The number as the carrier writes it.
    pub normalized_number: String,
    /// The client's reference numbers.
    pub ref_numbers: Vec<String>,
    /// The client's tags.
    pub tags: Vec<String>,
    /// When tracking began.
    pub created_at: At,
    /// When it last changed.
    pub updated_at: At,
    /// The carrier's SCAC.
    pub shipping_line_scac: String,
    /// The carrier's name.
    pub shipping_line_name: Option<String>,
    /// The carrier's short name.
    pub shipping_line_short_name: Option<String>,
    /// The customer's name (the `customer` party).
    pub customer_name: Option<String>,
    /// When the carrier was last asked.
    pub line_tracking_last_attempted_at: At,
    /// When the carrier last answered.
    pub line_tracking_last_succeeded_at: At,
    /// When tracking stopped.
    pub line_tracking_stopped_at: Option<At>,
    /// Why tracking stopped.
    #[schemars(extend("enum" = ["all_containers_terminated", "past_arrival_window", "past_full_out_window", "no_updates_at_line", "cancelled_by_user", "booking_cancelled", null]))]
    pub line_tracking_stopped_reason: Option<String>,
}

/// The attributes of a shipment its route and merged voyage state decide.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShipmentVoyageAttributes {
    /// Port of lading (UN/LOCODE).
    pub port_of_lading_locode: Option<String>,
    /// Port of lading name.
    pub port_of_lading_name: Option<String>,
    /// Port of discharge (UN/LOCODE).
    pub port_of_discharge_locode: Option<String>,
    /// Port of discharge name.
    pub port_of_discharge_name: Option<String>,
    /// Inland destination (UN/LOCODE), when the journey goes past the port of discharge.
    pub destination_locode: Option<String>,
    /// Inland destination name.
    pub destination_name: Option<String>,
    /// The vessel that brings the cargo to the port of discharge.
    pub pod_vessel_name: Option<String>,
    /// Its IMO number.
    pub pod_vessel_imo: Option<String>,
    /// Its voyage number.
    pub pod_voyage_number: Option<String>,
    /// Estimated departure from the port of lading.
    pub pol_etd_at: Option<At>,
    /// Actual departure from the port of lading.
    pub pol_atd_at: Option<At>,
    /// The first estimated departure.
    pub pol_original_etd_at: Option<At>,
    /// Estimated arrival at the port of discharge.
    pub pod_eta_at: Option<At>,
    /// The first estimated arrival at the port of discharge.
    pub pod_original_eta_at: Option<At>,
    /// Actual arrival at the port of discharge.
    pub pod_ata_at: Option<At>,
    /// Estimated arrival at the inland destination.
    pub destination_eta_at: Option<At>,
    /// The first estimated arrival at the inland destination.
    pub destination_original_eta_at: Option<At>,
    /// Actual arrival at the inland destination.
    pub destination_ata_at: Option<At>,
    /// Time zone of the port of lading (IANA).
    pub pol_timezone: Option<String>,
    /// Time zone of the port of discharge (IANA).
    pub pod_timezone: Option<String>,
    /// Time zone of the inland destination (IANA).
    pub destination_timezone: Option<String>,
}

/// Relationships of a shipment.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShipmentRelationships {
    /// The port of lading (`port`).
    pub port_of_lading: ToOne,
    /// The port of discharge (`port`).
    pub port_of_discharge: ToOne,
    /// The inland destination (`port`).
    pub destination: ToOne,
    /// The terminal at the port of discharge (`terminal`).
    pub pod_terminal: ToOne,
    /// The terminal at the inland destination (`terminal`; boxtrack does not learn it: null).
    pub destination_terminal: ToOne,
    /// The shipment's containers (`container`).
    pub containers: ToMany,
    /// The customer (`party`).
    pub customer: ToOne,
    /// The person who stopped its tracking (`user`): boxtrack has API keys, not users, so
    /// always null.
    pub line_tracking_stopped_by_user: ToOne,
}

/// The `shipment` resource; `containers` fills the `containers` relationship.
pub fn shipment_resource<C: ContainerOnShipment>(
    s: &ShipmentRow,
    containers: &[C],
) -> Resource<Shipment> {
    let route = &s.route;
    Resource {
        id: s.id,
        attributes: ShipmentAttributes {
            row: row_attributes(&RowFields::of(s)),
            voyage: voyage_attributes(route, &s.state),
        },
        relationships: relationships(
            &RowFields::of(s),
            [
                &route.pol_locode,
                &route.pod_locode,
                &route.destination_locode,
            ],
            containers,
        ),
    }
}

/// The columns of a shipment's row its resource shows beside the route and the state.
struct RowFields<'a> {
    bill_of_lading_number: &'a str,
    scac: &'a str,
    ref_numbers: &'a [String],
    tags: &'a [String],
    created_us: i64,
    updated_us: i64,
    tracking_stopped_us: Option<i64>,
    stopped_reason: Option<&'a str>,
    customer_name: Option<&'a str>,
    customer_id: Option<uuid::Uuid>,
}

impl RowFields<'_> {
    fn of(s: &ShipmentRow) -> RowFields<'_> {
        RowFields {
            bill_of_lading_number: &s.bill_of_lading_number,
            scac: &s.scac,
            ref_numbers: &s.ref_numbers,
            tags: &s.tags,
            created_us: s.created_us,
            updated_us: s.updated_us,
            tracking_stopped_us: s.tracking_stopped_us,
            stopped_reason: s.stopped_reason.as_deref(),
            customer_name: s.customer_name.as_deref(),
            customer_id: s.customer_id,
        }
    }

    fn of_view(v: &ShipmentView) -> RowFields<'_> {
        RowFields {
            bill_of_lading_number: &v.bill_of_lading_number,
            scac: &v.scac,
            ref_numbers: &v.ref_numbers,
            tags: &v.tags,
            created_us: v.created_us,
            updated_us: v.updated_us,
            tracking_stopped_us: v.tracking_stopped_us,
            stopped_reason: v.stopped_reason.as_deref(),
            customer_name: v.customer_name.as_deref(),
            customer_id: v.customer_id,
        }
    }
}

/// The attributes the row decides.
fn row_attributes(s: &RowFields<'_>) -> ShipmentRowAttributes {
    let line = carriers::by_scac(s.scac);
    ShipmentRowAttributes {
        bill_of_lading_number: s.bill_of_lading_number.to_owned(),
        normalized_number: s.bill_of_lading_number.to_owned(),
        ref_numbers: s.ref_numbers.to_vec(),
        tags: s.tags.to_vec(),
        created_at: At(s.created_us),
        updated_at: At(s.updated_us),
        shipping_line_scac: s.scac.to_owned(),
        shipping_line_name: line.map(|l| l.name.clone()),
        shipping_line_short_name: line.map(|l| l.short_name.clone()),
        customer_name: s.customer_name.map(str::to_owned),
        line_tracking_last_attempted_at: At(s.updated_us),
        line_tracking_last_succeeded_at: At(s.updated_us),
        line_tracking_stopped_at: At::opt(s.tracking_stopped_us),
        line_tracking_stopped_reason: s.stopped_reason.map(str::to_owned),
    }
}

/// The attributes the route and the merged voyage state decide.
fn voyage_attributes(route: &Route, st: &ShipmentState) -> ShipmentVoyageAttributes {
    ShipmentVoyageAttributes {
        port_of_lading_locode: route.pol_locode.clone(),
        port_of_lading_name: route.pol_name.clone(),
        port_of_discharge_locode: route.pod_locode.clone(),
        port_of_discharge_name: route.pod_name.clone(),
        destination_locode: route.destination_locode.clone(),
        destination_name: route.destination_name.clone(),
        pod_vessel_name: st.pod_vessel_name.clone(),
        pod_vessel_imo: st.pod_vessel_imo.clone(),
        pod_voyage_number: st.pod_voyage_number.clone(),
        pol_etd_at: At::opt(st.pol_etd_us),
        pol_atd_at: At::opt(st.pol_atd_us),
        pol_original_etd_at: At::opt(st.pol_original_etd_us),
        pod_eta_at: At::opt(st.pod_eta_us),
        pod_original_eta_at: At::opt(st.pod_original_eta_us),
        pod_ata_at: At::opt(st.pod_ata_us),
        destination_eta_at: At::opt(st.destination_eta_us),
        destination_original_eta_at: At::opt(st.destination_original_eta_us),
        destination_ata_at: At::opt(st.destination_ata_us),
        pol_timezone: route.pol_timezone.clone(),
        pod_timezone: route.pod_timezone.clone(),
        destination_timezone: route.destination_timezone.clone(),
    }
}

/// The relationships of a shipment with these ports (lading, discharge, destination) and
/// containers.
fn relationships<C: ContainerOnShipment>(
    s: &RowFields<'_>,
    [pol, pod, destination]: [&Option<String>; 3],
    containers: &[C],
) -> ShipmentRelationships {
    // the POD terminal the containers report (they share one port of discharge)
    let pod_terminal = containers
        .iter()
        .find_map(ContainerOnShipment::pod_terminal);
    ShipmentRelationships {
        port_of_lading: port_rel(pol.as_deref()),
        port_of_discharge: port_rel(pod.as_deref()),
        destination: port_rel(destination.as_deref()),
        pod_terminal: terminal_rel(pod_terminal),
        destination_terminal: ToOne::none(),
        containers: ToMany::new("container", containers.iter().map(ContainerOnShipment::id)),
        customer: ToOne::new("party", s.customer_id),
        line_tracking_stopped_by_user: ToOne::none(),
    }
}

/// The version and shape of the text [`render_shipment`] writes: a change to what
/// [`ShipmentVoyageAttributes`] shows, or to how, changes it, so that a text written before
/// is not shown (the test `a_rendered_shipment_reads_as_written` fails until it does). Every
/// text begins with it, separator included: it is also the renderer's tag
/// (`Renderer::shipment_tag`).
pub(super) const SHIPMENT_TAG: &str = "s1|";

/// The names of [`ShipmentVoyageAttributes`]' members, in the order they are written.
static VOYAGE_KEYS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
    stored::names_of(&written(&voyage_attributes(
        &Route::default(),
        &ShipmentState::default(),
    )))
});

/// Where the values the containers and the relationships need are among [`VOYAGE_KEYS`].
static VOYAGE_AT: std::sync::LazyLock<[usize; 5]> = std::sync::LazyLock::new(|| {
    let at = |name: &str| VOYAGE_KEYS.iter().position(|k| k == name).unwrap_or(0);
    [
        at("port_of_lading_locode"),
        at("port_of_discharge_locode"),
        at("destination_locode"),
        at("pod_timezone"),
        at("destination_timezone"),
    ]
});

/// The text stored beside a shipment's merged state (`boxtrack_store::rendered`): the
/// version, then the values of the route's and the state's attributes as a JSON array in the
/// order of their names (the names are this build's, not stored): `s1|[…]`.
pub fn render_shipment(route: &Route, st: &ShipmentState) -> String {
    let attributes = written(&voyage_attributes(route, st));
    let mut out = String::with_capacity(attributes.len() / 2 + 8);
    out.push_str(SHIPMENT_TAG);
    stored::push_values(&mut out, &attributes);
    out
}

/// A text [`render_shipment`] wrote, read back.
#[derive(Debug)]
pub struct RenderedVoyage<'a> {
    /// The attributes' values, in the order of [`VOYAGE_KEYS`].
    values: Vec<&'a str>,
    /// The ports (lading, discharge, destination) and time zones (discharge, destination).
    route: [Option<String>; 5],
}

impl RenderedVoyage<'_> {
    /// Reads `text`, or `None` when another version (or nothing readable) wrote it.
    fn read(text: &str) -> Option<RenderedVoyage<'_>> {
        let values = text.strip_prefix(SHIPMENT_TAG)?;
        let values = stored::values_of(values, &VOYAGE_KEYS)?;
        let mut route: [Option<String>; 5] = Default::default();
        for (r, at) in route.iter_mut().zip(VOYAGE_AT.iter()) {
            let value = values.get(*at)?;
            *r = match stored::plain_string(value) {
                Some(text) => text,
                None => serde_json::from_str(value).ok()?,
            };
        }
        Some(RenderedVoyage { values, route })
    }
}

/// Whether `text` was written by this version's [`render_shipment`], which [`ShipmentToShow`]
/// shows (read whole: one whose values do not match this build's names is passed over, and
/// the state parsed instead).
pub fn rendered_shipment_is_current(text: &str) -> bool {
    RenderedVoyage::read(text).is_some()
}

/// What a container's resource shows of its shipment: when it last changed, the time zones
/// of its port of discharge and destination, and whether it goes on inland.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShipmentFacts {
    /// When the shipment last changed.
    pub updated_us: i64,
    /// The port of discharge's time zone.
    pub pod_timezone: Option<String>,
    /// The inland destination's time zone.
    pub destination_timezone: Option<String>,
    /// Whether the journey goes on past the port of discharge.
    pub inland: bool,
}

impl ShipmentFacts {
    /// The facts of a shipment's whole row.
    pub fn of_row(s: &ShipmentRow) -> ShipmentFacts {
        let route = &s.route;
        ShipmentFacts {
            updated_us: s.updated_us,
            pod_timezone: route.pod_timezone.clone(),
            destination_timezone: route.destination_timezone.clone(),
            inland: route.inland(),
        }
    }
}

/// A shipment about to be shown, its rendered text (where it is shown from one) read once
/// for everything a request takes of it: the facts its containers show, its ports, its
/// resource.
#[derive(Debug)]
pub enum ShipmentToShow<'a> {
    /// Its whole row, route and state parsed.
    Row(std::borrow::Cow<'a, Box<ShipmentRow>>),
    /// Its row's columns and its text's values.
    View(&'a ShipmentView, RenderedVoyage<'a>),
}

impl<'a> ShipmentToShow<'a> {
    /// `s` read to be shown; `None` for a text that is not current (the store reads a text
    /// as a view only when the installed renderer, this one, reads it).
    pub fn of(s: &'a RenderedShipment) -> Option<ShipmentToShow<'a>> {
        match s {
            RenderedShipment::Row(row) => {
                Some(ShipmentToShow::Row(std::borrow::Cow::Borrowed(row)))
            }
            RenderedShipment::View(v) => {
                Some(ShipmentToShow::View(v, RenderedVoyage::read(&v.view)?))
            }
        }
    }

    /// Its id.
    pub fn id(&self) -> uuid::Uuid {
        match self {
            ShipmentToShow::Row(row) => row.id,
            ShipmentToShow::View(v, _) => v.id,
        }
    }

    /// What its containers' resources show of it.
    pub fn facts(&self) -> ShipmentFacts {
        let (v, view) = match self {
            ShipmentToShow::Row(row) => return ShipmentFacts::of_row(row),
            ShipmentToShow::View(v, view) => (v, view),
        };
        let [_, pod, destination, pod_tz, destination_tz] = &view.route;
        ShipmentFacts {
            updated_us: v.updated_us,
            pod_timezone: pod_tz.clone(),
            destination_timezone: destination_tz.clone(),
            inland: destination.is_some() && destination != pod,
        }
    }

    /// The UN/LOCODEs of its ports of lading and discharge.
    pub fn ports(&self) -> [Option<&str>; 2] {
        match self {
            ShipmentToShow::Row(row) => [
                row.route.pol_locode.as_deref(),
                row.route.pod_locode.as_deref(),
            ],
            ShipmentToShow::View(_, view) => [view.route[0].as_deref(), view.route[1].as_deref()],
        }
    }

    /// The UN/LOCODE of its inland destination.
    pub fn destination(&self) -> Option<&str> {
        match self {
            ShipmentToShow::Row(row) => row.route.destination_locode.as_deref(),
            ShipmentToShow::View(_, view) => view.route[2].as_deref(),
        }
    }

    /// Its `shipment` resource written out, with `containers` in its relationship (as
    /// [`shipment_resource`] writes it).
    pub fn written<C: ContainerOnShipment>(&self, containers: &[C]) -> String {
        let (v, view) = match self {
            ShipmentToShow::Row(row) => return written(&shipment_resource(row, containers)),
            ShipmentToShow::View(v, view) => (v, view),
        };
        let fields = RowFields::of_view(v);
        let row = written(&row_attributes(&fields));
        let [pol, pod, destination, ..] = &view.route;
        let relationships = written(&relationships(&fields, [pol, pod, destination], containers));
        let id = v.id.hyphenated();
        let mut buf = uuid::Uuid::encode_buffer();
        let id = id.encode_lower(&mut buf);
        // the resource as `Resource<Shipment>` writes it, its attributes the two objects as one
        let mut out = String::with_capacity(row.len() + relationships.len() + 1200);
        out.push_str("{\"id\":\"");
        out.push_str(id);
        out.push_str("\",\"type\":\"shipment\",\"attributes\":");
        out.push_str(row.strip_suffix('}').unwrap_or(&row));
        out.push(',');
        stored::push_members(&mut out, &VOYAGE_KEYS, &view.values);
        out.push_str("},\"relationships\":");
        out.push_str(&relationships);
        out.push_str(",\"links\":{\"self\":\"/v2/shipments/");
        out.push_str(id);
        out.push_str("\"}}");
        out
    }
}

/// The `shipment` resource as a JSON value.
pub fn shipment<C: ContainerOnShipment>(s: &ShipmentRow, containers: &[C]) -> Value {
    shipment_resource(s, containers).to_value()
}

#[cfg(test)]
mod tests {
    use super::*;
    use boxtrack_store::reads::ContainerRef;
    use proptest::prelude::*;

    fn shipment(route: Route, state: ShipmentState) -> ShipmentRow {
        ShipmentRow {
            id: uuid::Uuid::from_u128(7),
            account_id: uuid::Uuid::nil(),
            tracking_request_id: None,
            bill_of_lading_number: "MAEU\"1\"".into(),
            scac: "MAEU".into(),
            ref_numbers: vec!["PO 1".into()],
            tags: vec!["hot\n".into()],
            route,
            state,
            tracking_stopped_us: Some(1_790_000_000_000_000),
            stopped_reason: Some("cancelled_by_user".into()),
            created_us: 3,
            updated_us: 1_790_000_000_123_456,
            customer_name: Some("Acme".into()),
            customer_id: Some(uuid::Uuid::from_u128(9)),
        }
    }

    /// The shipment as read with its rendered text.
    fn rendered(s: &ShipmentRow) -> RenderedShipment {
        let view = render_shipment(&s.route, &s.state);
        assert!(rendered_shipment_is_current(&view));
        RenderedShipment::View(Box::new(ShipmentView {
            id: s.id,
            account_id: s.account_id,
            tracking_request_id: s.tracking_request_id,
            bill_of_lading_number: s.bill_of_lading_number.clone(),
            scac: s.scac.clone(),
            ref_numbers: s.ref_numbers.clone(),
            tags: s.tags.clone(),
            tracking_stopped_us: s.tracking_stopped_us,
            stopped_reason: s.stopped_reason.clone(),
            created_us: s.created_us,
            updated_us: s.updated_us,
            customer_name: s.customer_name.clone(),
            customer_id: s.customer_id,
            view,
        }))
    }

    fn a_route() -> Route {
        Route {
            pol_locode: Some("CNSHA".into()),
            pol_name: Some("Shanghai".into()),
            pol_timezone: Some("Asia/Shanghai".into()),
            pod_locode: Some("USLAX".into()),
            pod_name: Some("Los \"Angeles\"".into()),
            pod_timezone: Some("America/Los_Angeles".into()),
            destination_locode: Some("USCHI".into()),
            destination_name: Some("Chicago".into()),
            destination_timezone: Some("America/Chicago".into()),
        }
    }

    fn a_state() -> ShipmentState {
        ShipmentState {
            pol_etd_us: Some(1_785_000_000_000_000),
            pod_eta_us: Some(-1),
            pod_vessel_name: Some("EVER\\GIVEN".into()),
            pod_voyage_number: Some("0412E".into()),
            ..ShipmentState::default()
        }
    }

    /// Both ways of writing `s` with `refs`, as JSON values.
    fn both(s: &ShipmentRow, refs: &[ContainerRef]) -> (Value, Value) {
        let view = rendered(s);
        let text = ShipmentToShow::of(&view).unwrap().written(refs);
        let from_text: Value = serde_json::from_str(&text).unwrap();
        (from_text, super::shipment(s, refs))
    }

    #[test]
    fn a_rendered_shipment_reads_as_written() {
        // a change here changes what texts stored by earlier builds show: bump SHIPMENT_TAG
        let text = render_shipment(&a_route(), &a_state());
        assert_eq!(
            text,
            "s1|[\"CNSHA\",\"Shanghai\",\"USLAX\",\"Los \\\"Angeles\\\"\",\"USCHI\",\"Chicago\",\"EVER\\\\GIVEN\",null,\"0412E\",\"2026-07-25T17:20:00Z\",null,null,\"1969-12-31T23:59:59Z\",null,null,null,null,null,\"Asia/Shanghai\",\"America/Los_Angeles\",\"America/Chicago\"]"
        );
        let read = RenderedVoyage::read(&text).unwrap();
        assert_eq!(read.route[1].as_deref(), Some("USLAX"));
        assert_eq!(read.route[4].as_deref(), Some("America/Chicago"));
        // another version's text, or a damaged one, is not shown
        for other in [
            text.replacen("s1|", "s0|", 1),
            text.replacen("s1|", "s1", 1),
            text[..text.len() - 1].to_string(),
            // a value short of this build's names
            text.replacen(",\"America/Chicago\"]", "]", 1),
            // a port that is not a string
            text.replacen("\"USLAX\"", "7", 1),
            String::new(),
        ] {
            assert!(!rendered_shipment_is_current(&other), "{other}");
        }
    }

    #[test]
    fn a_shipment_written_from_its_rendered_text_equals_the_one_from_its_state() {
        let refs = [ContainerRef {
            id: uuid::Uuid::from_u128(5),
            shipment_id: uuid::Uuid::from_u128(7),
            pod_terminal: Some("Y258".into()),
        }];
        let port = Route {
            destination_locode: None,
            destination_name: None,
            destination_timezone: None,
            ..a_route()
        };
        for route in [Route::default(), port, a_route()] {
            for state in [ShipmentState::default(), a_state()] {
                let s = shipment(route.clone(), state);
                for refs in [&refs[..], &[]] {
                    let (from_text, parsed) = both(&s, refs);
                    assert_eq!(from_text, parsed);
                }
                let view = rendered(&s);
                let view = ShipmentToShow::of(&view).unwrap();
                assert_eq!(view.facts(), ShipmentFacts::of_row(&s));
                let ports = [route.pol_locode.as_deref(), route.pod_locode.as_deref()];
                assert_eq!(view.ports(), ports);
            }
        }
    }

    fn text() -> impl Strategy<Value = Option<String>> {
        proptest::option::of(any::<String>())
    }

    fn at() -> impl Strategy<Value = Option<i64>> {
        proptest::option::of(any::<i64>())
    }

    proptest! {
        #[test]
        fn any_voyage_shows_the_same_from_its_rendered_text(
            ports in proptest::collection::vec(text(), 9),
            vessel in proptest::collection::vec(text(), 3),
            times in proptest::collection::vec(at(), 9),
        ) {
            let route = Route {
                pol_locode: ports[0].clone(),
                pol_name: ports[1].clone(),
                pol_timezone: ports[2].clone(),
                pod_locode: ports[3].clone(),
                pod_name: ports[4].clone(),
                pod_timezone: ports[5].clone(),
                destination_locode: ports[6].clone(),
                destination_name: ports[7].clone(),
                destination_timezone: ports[8].clone(),
            };
            let state = ShipmentState {
                pol_etd_us: times[0],
                pol_atd_us: times[1],
                pod_eta_us: times[2],
                pod_original_eta_us: times[3],
                pol_original_etd_us: times[4],
                destination_original_eta_us: times[5],
                pod_ata_us: times[6],
                destination_eta_us: times[7],
                destination_ata_us: times[8],
                pod_vessel_name: vessel[0].clone(),
                pod_vessel_imo: vessel[1].clone(),
                pod_voyage_number: vessel[2].clone(),
                ..ShipmentState::default()
            };
            let s = shipment(route, state);
            let (from_text, parsed) = both(&s, &[]);
            prop_assert_eq!(from_text, parsed);
            let view = rendered(&s);
            let facts = ShipmentToShow::of(&view).map(|v| v.facts());
            prop_assert_eq!(facts, Some(ShipmentFacts::of_row(&s)));
        }
    }
}
