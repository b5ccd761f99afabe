//! The list tools on the read layer: one requested page (at most 25 rows) of the account's
//! containers, shipments or tracking requests, with the filters the reference MCP server
//! offers that boxtrack's data answers, compact snake_case rows, and `_metadata` that says
//! which filters applied and whether more pages follow. Like the reference's, the container
//! and shipment lists show actively tracked records unless asked otherwise.

use std::collections::BTreeMap;

use boxtrack_core::paging::Page;
use boxtrack_core::tracking::rules::{ContainerStatus, active_holds};
use boxtrack_store::accounts::Account;
use boxtrack_store::reads::{self, DateCond, DateField, Filter, ListSort, TextCond, TextField};
use boxtrack_views::jsonapi::At;
use boxtrack_views::tracking::container_resource;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value, json};
use uuid::Uuid;

use boxtrack_api::state::AppState;

/// The most rows one call returns.
pub const MAX_PAGE_SIZE: u32 = 25;

/// The orders `list_containers` offers.
pub const CONTAINER_SORTS: [&str; 6] = [
    "-updated_at",
    "updated_at",
    "-created_at",
    "created_at",
    "pickup_lfd",
    "-pickup_lfd",
];

/// The orders `list_shipments` offers.
pub const SHIPMENT_SORTS: [&str; 4] = ["-updated_at", "updated_at", "-created_at", "created_at"];

/// What a list answer says of itself.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ListMetadata {
    /// The filters that applied, with the defaults added (`actively_tracked`).
    pub applied_filters: BTreeMap<String, Value>,
    /// The order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sort: Option<String>,
    /// This page (1-based).
    pub page: u32,
    /// Rows asked for.
    pub page_size: u32,
    /// Whether another page follows.
    pub has_more: bool,
    /// The next page, when one follows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page: Option<u32>,
    /// How each custom field named in `custom_fields` resolved.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub custom_fields: Vec<CustomFieldUsed>,
}

/// A custom field a list filtered on, as its name resolved.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CustomFieldUsed {
    /// The name the call gave.
    pub field: String,
    /// The field's key.
    pub api_slug: String,
    /// Its type (`short_text`, `enum`, `enum_multi`).
    pub data_type: String,
    /// The value asked for.
    pub value: String,
}

/// How many match.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ListMeta {
    /// Rows matching the filters in all (a lower bound past 10,000 when not exact).
    pub total: u64,
    /// Whether `total` is exact.
    pub total_is_exact: bool,
}

/// A list answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ListAnswer<T> {
    /// The rows of this page.
    pub items: Vec<T>,
    /// How many match.
    pub meta: ListMeta,
    /// Filters the call named that this list does not have (always empty: unknown
    /// arguments are refused).
    #[serde(rename = "unsupportedFilters")]
    pub unsupported_filters: Vec<String>,
    /// What the answer says of itself.
    #[serde(rename = "_metadata")]
    pub metadata: ListMetadata,
}

/// An active hold, briefly.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HoldBrief {
    /// Which hold.
    pub name: String,
    /// The terminal's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A fee, briefly.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeeBrief {
    /// Which fee.
    #[serde(rename = "type")]
    pub kind: String,
    /// How much, in major units.
    pub amount: f64,
    /// ISO 4217 code.
    pub currency: String,
}

/// A container's shipment, in a row.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RowShipment {
    /// Shipment id.
    pub id: Uuid,
    /// Bill of lading.
    pub bill_of_lading: String,
    /// The line's SCAC.
    pub shipping_line_scac: String,
    /// Port of discharge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port_of_discharge: Option<String>,
    /// Vessel at the port of discharge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_vessel: Option<String>,
    /// Estimated arrival there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_eta_at: Option<At>,
    /// Arrival there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_ata_at: Option<At>,
}

/// A container, as a list shows it; absent keys are unknown.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ContainerRow {
    /// Container id (for get_container).
    pub id: Uuid,
    /// ISO 6346 number.
    pub number: String,
    /// Its `current_status`.
    pub status: String,
    /// Released for pickup (absent when the terminal has not said).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub available_for_pickup: Option<bool>,
    /// The POD terminal's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_terminal: Option<String>,
    /// Arrived at the port of discharge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_arrived_at: Option<At>,
    /// Discharged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_discharged_at: Option<At>,
    /// Picked up full.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_full_out_at: Option<At>,
    /// The last free day.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pickup_lfd: Option<At>,
    /// The pickup appointment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pickup_appointment_at: Option<At>,
    /// Active holds (`[]`: none reported).
    pub holds: Vec<HoldBrief>,
    /// Fees (`[]`: none reported).
    pub fees: Vec<FeeBrief>,
    /// Its shipment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shipment: Option<RowShipment>,
    /// When the terminal was last heard from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal_checked_at: Option<At>,
    /// The port's IANA zone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_timezone: Option<String>,
}

/// A container of a shipment row.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShipmentContainer {
    /// Container id.
    pub id: Uuid,
    /// ISO 6346 number.
    pub number: String,
    /// Its `current_status`.
    pub status: String,
}

/// A shipment, as a list shows it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShipmentRow {
    /// Shipment id (for get_shipment_details).
    pub id: Uuid,
    /// Bill of lading (or booking) number.
    pub bill_of_lading: String,
    /// The line's SCAC.
    pub shipping_line_scac: String,
    /// The line's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shipping_line_name: Option<String>,
    /// Vessel at the port of discharge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_vessel_name: Option<String>,
    /// Its voyage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_voyage_number: Option<String>,
    /// Port of discharge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port_of_discharge_name: Option<String>,
    /// Estimated arrival there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_eta_at: Option<At>,
    /// Arrival there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_ata_at: Option<At>,
    /// Inland destination.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_name: Option<String>,
    /// Estimated arrival there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_eta_at: Option<At>,
    /// The client's reference numbers.
    pub ref_numbers: Vec<String>,
    /// Whether tracking stopped.
    pub tracking_stopped: bool,
    /// Its containers (with `include_containers`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub containers: Option<Vec<ShipmentContainer>>,
}

/// The arguments as the list tools read them, and the filters they applied.
pub(super) struct Args<'a> {
    args: &'a Map<String, Value>,
    pub(super) applied: BTreeMap<String, Value>,
}

/// The filters `list_containers` and `summarize_containers` take (at the top level or in
/// `advanced_filters`).
pub const CONTAINER_FILTERS: [&str; 27] = [
    "pol_code",
    "destination_code",
    "vessel_name",
    "has_fees",
    "has_fees_or_holds",
    "pickup_lfd",
    "last_free_day_on",
    "updated_at",
    "number",
    "current_status",
    "status",
    "pod_code",
    "port",
    "shipping_line_scac",
    "carrier",
    "has_holds",
    "ready_for_pickup",
    "updated_after",
    "customer_id",
    "actively_tracked",
    "tracking_stopped",
    "parties",
    "tags",
    "tag",
    "tags_and",
    "include_stopped_tracking",
    "custom_fields",
];

/// The date filters of the container lists, by the reference's names: bounds as `pickup_lfd`
/// takes them, or `@exists` / `@not_exists`.
pub const CONTAINER_DATE_FILTERS: [(&str, DateField, &str); 19] = [
    (
        "arrival",
        DateField::Arrival,
        "The voyage's arrival at the port of discharge: actual, else estimated",
    ),
    (
        "pod_arrived_at",
        DateField::PodArrived,
        "The container's arrival at the port of discharge",
    ),
    (
        "pod_discharged_at",
        DateField::PodDischarged,
        "Discharged at the port of discharge",
    ),
    (
        "picked_up_at",
        DateField::PickedUp,
        "Picked up (full out at the final destination, else at the port of discharge)",
    ),
    (
        "empty_returned_at",
        DateField::EmptyReturned,
        "Empty returned",
    ),
    ("delivered_at", DateField::Delivered, "Marked delivered"),
    (
        "empty_out_at",
        DateField::EmptyOut,
        "Empty picked up at origin",
    ),
    (
        "pol_full_in_at",
        DateField::PolFullIn,
        "Full in at the port of lading",
    ),
    (
        "pol_vessel_loaded_at",
        DateField::PolVesselLoaded,
        "Loaded at the port of lading",
    ),
    (
        "pol_vessel_departed_at",
        DateField::PolVesselDeparted,
        "Departed the port of lading",
    ),
    (
        "pol_etd_at",
        DateField::PolEtd,
        "The voyage's estimated departure from the port of lading",
    ),
    (
        "pol_atd_at",
        DateField::PolAtd,
        "The voyage's actual departure from the port of lading",
    ),
    (
        "pod_rail_departed_at",
        DateField::PodRailDeparted,
        "Rail departed from the port of discharge",
    ),
    (
        "inland_destination_eta_at",
        DateField::IndEta,
        "Estimated arrival at the inland destination",
    ),
    (
        "inland_destination_ata_at",
        DateField::IndAta,
        "Actual arrival at the inland destination",
    ),
    (
        "inland_destination_rail_unloaded_at",
        DateField::IndRailUnloaded,
        "Unloaded from rail at the inland destination",
    ),
    (
        "final_destination_full_out_at",
        DateField::FinalFullOut,
        "Full out at the final destination",
    ),
    ("created_at", DateField::Created, "Created in boxtrack"),
    (
        "pod_ata_at",
        DateField::PodAta,
        "The voyage's actual arrival at the port of discharge",
    ),
];

/// The date filters of `list_shipments`.
pub const SHIPMENT_DATE_FILTERS: [(&str, DateField, &str); 3] = [
    (
        "pod_arrival",
        DateField::Arrival,
        "Arrival at the port of discharge: actual, else estimated",
    ),
    (
        "pod_ata_at",
        DateField::PodAta,
        "Actual arrival at the port of discharge",
    ),
    ("created_at", DateField::Created, "Created in boxtrack"),
];

/// The party roles the reference's `parties` filter names; boxtrack records the customer.
pub const PARTY_ROLES: [&str; 7] = [
    "customer",
    "shipper",
    "consignee",
    "notify_party",
    "customs_broker",
    "freight_forwarder",
    "dray_carrier",
];

/// The filters `list_shipments` takes.
pub const SHIPMENT_FILTERS: [&str; 18] = [
    "pol_code",
    "updated_at",
    "number",
    "status",
    "pod_code",
    "port",
    "shipping_line_scac",
    "carrier",
    "updated_after",
    "customer_id",
    "actively_tracked",
    "tracking_stopped",
    "include_stopped_tracking",
    "voyage_status",
    "tags",
    "tag",
    "tags_and",
    "party_id",
];

impl<'a> Args<'a> {
    /// An argument, at the top level or in `advanced_filters` (the reference's clients put
    /// filters there).
    fn value(&self, name: &str) -> Option<&'a Value> {
        let args: &'a Map<String, Value> = self.args;
        args.get(name).or_else(|| {
            args.get("advanced_filters")
                .and_then(Value::as_object)
                .and_then(|a| a.get(name))
        })
    }

    /// `advanced_filters` names only filters of this list, none also given at the top level.
    pub(super) fn check_advanced(
        &self,
        known: &[&str],
        dates: &[(&str, DateField, &str)],
    ) -> Result<(), String> {
        let Some(adv) = self.args.get("advanced_filters") else {
            return Ok(());
        };
        let Some(obj) = adv.as_object() else {
            return Err("advanced_filters must be an object of filters.".into());
        };
        for k in obj.keys() {
            if !known.contains(&k.as_str()) && !dates.iter().any(|(n, _, _)| n == k) {
                let all: Vec<&str> = known
                    .iter()
                    .copied()
                    .chain(dates.iter().map(|(n, _, _)| *n))
                    .collect();
                return Err(format!(
                    "Invalid list filter \"{k}\": this list has no such filter. Use {}.",
                    all.join(", ")
                ));
            }
            if self.args.contains_key(k) {
                return Err(format!(
                    "Invalid list filter \"{k}\": duplicate filter; use the top level or advanced_filters, not both."
                ));
            }
        }
        Ok(())
    }

    pub(super) fn text(&mut self, names: &[&str]) -> Option<String> {
        let (name, v) = names.iter().find_map(|n| {
            self.value(n)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|v| (*n, v.to_string()))
        })?;
        self.applied.insert(names[0].to_string(), json!(v));
        let _ = name;
        Some(v)
    }

    fn flag(&mut self, name: &str) -> Option<bool> {
        let v = self.value(name).and_then(Value::as_bool)?;
        self.applied.insert(name.to_string(), json!(v));
        Some(v)
    }

    fn uuid(&mut self, name: &str) -> Result<Option<Uuid>, String> {
        match self.text(&[name]) {
            None => Ok(None),
            Some(v) => v.parse::<Uuid>().map(Some).map_err(|_| {
                format!("{name} must be a party's id (UUID); list_parties finds it by name.")
            }),
        }
    }

    /// A date filter (one bound or a list of bounds that all hold, as `datebounds` reads
    /// them) as a range at `now_us`.
    fn dates(
        &mut self,
        name: &str,
        now_us: i64,
    ) -> Result<boxtrack_core::datebounds::Range, String> {
        let Some(v) = self.value(name) else {
            return Ok(Default::default());
        };
        let bounds: Vec<&str> = match v {
            Value::String(s) => vec![s.as_str()],
            Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if bounds.is_empty() {
            return Err(format!(
                "Invalid list filter \"{name}\": a date bound or a list of them."
            ));
        }
        self.applied.insert(name.to_string(), v.clone());
        boxtrack_core::datebounds::range(bounds, now_us)
            .map_err(|e| format!("Invalid list filter \"{name}\": {e}."))
    }

    /// The date filters of a list: bounds, or `@exists` / `@not_exists`.
    fn date_conds(
        &mut self,
        filters: &[(&str, DateField, &str)],
        now_us: i64,
    ) -> Result<Vec<DateCond>, String> {
        let mut out = Vec::new();
        for (name, field, _) in filters {
            let Some(v) = self.value(name) else { continue };
            let known = match v.as_str().map(str::trim) {
                Some("@exists") => Some(true),
                Some("@not_exists") => Some(false),
                _ => None,
            };
            if known.is_some() {
                self.applied.insert((*name).to_string(), v.clone());
                out.push(DateCond {
                    field: *field,
                    start_us: None,
                    end_us: None,
                    known,
                });
                continue;
            }
            let r = self.dates(name, now_us)?;
            out.push(DateCond {
                field: *field,
                start_us: r.start_us,
                end_us: r.end_us,
                known: None,
            });
        }
        Ok(out)
    }

    /// Exact texts of the voyage (`pol_code`, ...): one value, several separated by commas
    /// or a list (any of them), or `@exists` / `@not_exists`.
    fn text_conds(&mut self, names: &[(&str, TextField)]) -> Result<Vec<TextCond>, String> {
        let mut out = Vec::new();
        for (name, field) in names {
            let Some(v) = self.value(name) else { continue };
            let raw: Vec<&str> = match v {
                Value::String(s) => s.split(',').collect(),
                Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            let values: Vec<String> = raw
                .iter()
                .map(|x| x.trim().trim_start_matches('=').trim().to_string())
                .filter(|x| !x.is_empty())
                .collect();
            let known = match values.as_slice() {
                [one] if one == "@exists" => Some(true),
                [one] if one == "@not_exists" => Some(false),
                _ => None,
            };
            if values.is_empty() || (known.is_none() && values.iter().any(|x| x.starts_with('@'))) {
                return Err(format!(
                    "Invalid list filter \"{name}\": a value, several separated by commas (any of them), @exists or @not_exists."
                ));
            }
            self.applied.insert((*name).to_string(), v.clone());
            let upper = !matches!(field, TextField::VesselName);
            out.push(TextCond {
                field: *field,
                any_of: if known.is_some() {
                    Vec::new()
                } else if upper {
                    values.iter().map(|x| x.to_ascii_uppercase()).collect()
                } else {
                    values
                },
                known,
            });
        }
        Ok(out)
    }

    /// `tags` (or `tag`): names separated by commas or a list; `tags_and` asks for all.
    fn tags(&mut self) -> Result<(Vec<String>, bool), String> {
        let Some((name, v)) = ["tags", "tag"]
            .iter()
            .find_map(|n| self.value(n).map(|v| (*n, v)))
        else {
            if self.value("tags_and").is_some() {
                return Err("tags_and needs tags: name the tags to match.".into());
            }
            return Ok((Vec::new(), false));
        };
        let raw: Vec<&str> = match v {
            Value::String(s) => s.split(',').collect(),
            Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let tags: Vec<String> = raw
            .iter()
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect();
        if tags.is_empty() {
            return Err(format!(
                "Invalid list filter \"{name}\": a tag name, several separated by commas, or a list of them."
            ));
        }
        self.applied.insert("tags".into(), json!(tags));
        let all = self.flag("tags_and").unwrap_or(false);
        Ok((tags, all))
    }

    /// `parties` keyed by role (`customer` is the role boxtrack records) or `party_id`: the
    /// customer's id, or whether there is one.
    fn parties(&mut self) -> Result<(Option<Uuid>, Option<bool>), String> {
        let party_id = self.value("party_id").cloned();
        let Some(v) = self.value("parties").cloned().or(party_id.clone()) else {
            return Ok((None, None));
        };
        let (label, value) = match (&v, party_id.is_some()) {
            (Value::Object(roles), false) => {
                if let Some(role) = roles.keys().find(|r| !PARTY_ROLES.contains(&r.as_str())) {
                    return Err(format!(
                        "Invalid list filter \"parties\": {role:?} is not a role; roles are {}.",
                        PARTY_ROLES.join(", ")
                    ));
                }
                if let Some(role) = roles.keys().find(|r| r.as_str() != "customer") {
                    return Err(format!(
                        "Invalid list filter \"parties\": boxtrack records one party per tracking request, its customer, so no {role} is known. Filter by parties.customer (or customer_id) instead."
                    ));
                }
                match roles.get("customer") {
                    Some(c) => ("parties.customer", c.clone()),
                    None => return Ok((None, None)),
                }
            }
            (other, _) => ("party_id", other.clone()),
        };
        self.applied
            .insert("parties".into(), json!({"customer": value}));
        match value.as_str().map(str::trim) {
            Some("@exists") => Ok((None, Some(true))),
            Some("@not_exists") => Ok((None, Some(false))),
            Some(id) => id.parse::<Uuid>().map(|u| (Some(u), None)).map_err(|_| {
                format!("{label} must be a party's id (UUID), @exists or @not_exists; list_parties finds the id by name.")
            }),
            None => Err(format!(
                "{label} must be one party's id (UUID), @exists or @not_exists; list_parties finds the id by name."
            )),
        }
    }

    pub(super) fn page(&self) -> Result<Page, String> {
        let number = self.args.get("page").and_then(Value::as_u64).unwrap_or(1);
        let size = self
            .args
            .get("page_size")
            .and_then(Value::as_u64)
            .unwrap_or(u64::from(MAX_PAGE_SIZE));
        if number == 0 || size == 0 {
            return Err("page and page_size start at 1.".into());
        }
        Ok(Page {
            number: u32::try_from(number).unwrap_or(u32::MAX),
            size: u32::try_from(size.min(u64::from(MAX_PAGE_SIZE))).unwrap_or(MAX_PAGE_SIZE),
            cursor: None,
        })
    }

    /// `actively_tracked: true` unless the call names tracking or asks for stopped ones too.
    fn tracking(&mut self) -> Option<bool> {
        let stopped = self.flag("tracking_stopped");
        let active = self.flag("actively_tracked");
        let include_stopped = self.flag("include_stopped_tracking").unwrap_or(false);
        match (stopped, active) {
            (Some(s), _) => Some(s),
            (None, Some(a)) => Some(!a),
            (None, None) if include_stopped => None,
            (None, None) => {
                self.applied.insert("actively_tracked".into(), json!(true));
                Some(false)
            }
        }
    }

    fn updated_after(&mut self) -> Result<Option<i64>, String> {
        let Some(raw) = self.text(&["updated_after"]) else {
            return Ok(None);
        };
        boxtrack_core::time::parse_instant_or_date(&raw)
            .map(Some)
            .ok_or_else(|| {
                format!(
                    "updated_after must be a date (YYYY-MM-DD) or an RFC 3339 time, not {raw:?}."
                )
            })
    }

    fn sort(&mut self, offered: &[&str]) -> Result<(ListSort, Option<String>), String> {
        let Some(raw) = self.args.get("sort").and_then(Value::as_str).map(str::trim) else {
            return Ok((ListSort::default(), None));
        };
        let parsed = offered
            .contains(&raw)
            .then(|| ListSort::parse(raw))
            .flatten()
            .ok_or_else(|| format!("sort must be one of {}.", offered.join(", ")))?;
        Ok((parsed, Some(raw.to_string())))
    }
}

/// A list answer: the page's rows, how many match, the filters that applied, where the next
/// page is.
pub(super) fn answer<T, R>(
    items: Vec<T>,
    listed: &boxtrack_store::list::Listed<R>,
    applied: BTreeMap<String, Value>,
    sort: Option<String>,
    page: &Page,
) -> ListAnswer<T> {
    ListAnswer {
        items,
        meta: ListMeta {
            total: listed.total,
            total_is_exact: listed.total_exact,
        },
        unsupported_filters: Vec::new(),
        metadata: ListMetadata {
            applied_filters: applied,
            sort,
            page: page.number,
            page_size: page.size,
            has_more: listed.has_next,
            next_page: listed.has_next.then(|| page.number.saturating_add(1)),
            custom_fields: Vec::new(),
        },
    }
}

/// What a tool says when a use case did not answer.
pub(super) fn app_unavailable(e: boxtrack_app::AppError) -> String {
    match e {
        boxtrack_app::AppError::Store(e) => unavailable(e),
        boxtrack_app::AppError::Invalid { detail, .. }
        | boxtrack_app::AppError::Unprocessable { detail, .. } => detail,
    }
}

fn unavailable(e: boxtrack_store::StoreError) -> String {
    format!("The list could not be read ({e}); try again shortly.")
}

impl<'a> Args<'a> {
    /// The arguments of a call.
    pub(super) fn of(args: &'a Map<String, Value>) -> Args<'a> {
        Args {
            args,
            applied: BTreeMap::new(),
        }
    }
}

/// The container filters `list_containers` and `summarize_containers` share.
pub(super) fn container_filter(a: &mut Args<'_>, now_us: i64) -> Result<Filter, String> {
    a.check_advanced(&CONTAINER_FILTERS, &CONTAINER_DATE_FILTERS)?;
    let dates = a.date_conds(&CONTAINER_DATE_FILTERS, now_us)?;
    let texts = a.text_conds(&[
        ("pol_code", TextField::PolCode),
        ("destination_code", TextField::DestinationCode),
        ("vessel_name", TextField::VesselName),
    ])?;
    let (tags, tags_all) = a.tags()?;
    let (party, customer_known) = a.parties()?;
    // pickup_lfd: date bounds, or @exists / @not_exists
    let lfd_known = match a.value("pickup_lfd").and_then(Value::as_str).map(str::trim) {
        Some("@exists") => Some(true),
        Some("@not_exists") => Some(false),
        _ => None,
    };
    let lfd = if lfd_known.is_some() {
        a.applied.insert(
            "pickup_lfd".into(),
            a.value("pickup_lfd").cloned().unwrap_or(Value::Null),
        );
        Default::default()
    } else {
        a.dates("pickup_lfd", now_us)?
    };
    // last_free_day_on: the reference's two-date inclusive range
    let lfd = match a.value("last_free_day_on") {
        None => lfd,
        Some(v) => {
            let pair: Vec<&str> = v
                .as_array()
                .map(|x| x.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let [from, to] = pair.as_slice() else {
                return Err("Invalid list filter \"last_free_day_on\": two dates, [FROM, TO] (YYYY-MM-DD), both included; pickup_lfd takes other bounds.".into());
            };
            a.applied.insert("last_free_day_on".into(), v.clone());
            let r = boxtrack_core::datebounds::range(
                [format!(">={from}").as_str(), format!("<={to}").as_str()],
                now_us,
            )
            .map_err(|e| format!("Invalid list filter \"last_free_day_on\": {e}."))?;
            boxtrack_core::datebounds::Range {
                start_us: latest(lfd.start_us, r.start_us),
                end_us: earliest(lfd.end_us, r.end_us),
            }
        }
    };
    let updated = a.dates("updated_at", now_us)?;
    // a status, or several separated by commas (any of them)
    let statuses: Vec<String> = a
        .text(&["current_status", "status"])
        .map(|s| {
            s.split(',')
                .map(|x| x.trim().trim_start_matches('=').to_string())
                .filter(|x| !x.is_empty())
                .collect()
        })
        .unwrap_or_default();
    if let Some(bad) = statuses
        .iter()
        .find(|s| ContainerStatus::parse(s).is_none())
    {
        let all: Vec<&str> = ContainerStatus::ALL.iter().map(|c| c.as_str()).collect();
        return Err(format!(
            "Invalid list filter \"current_status\": {bad:?} is not a status; current_status must be one of {} (several separated by commas).",
            all.join(", ")
        ));
    }
    Ok(Filter {
        container_number: a.text(&["number"]).map(|n| n.to_ascii_uppercase()),
        statuses,
        lfd_known,
        port: a
            .text(&["pod_code", "port"])
            .map(|p| p.to_ascii_uppercase()),
        carrier: a
            .text(&["shipping_line_scac", "carrier"])
            .map(|c| c.to_ascii_uppercase()),
        on_hold: a.flag("has_holds"),
        customer_id: match (a.uuid("customer_id")?, party) {
            (Some(_), Some(_)) => {
                return Err(
                    "customer_id and parties.customer name the same party; give one.".into(),
                );
            }
            (c, p) => c.or(p),
        },
        customer_known,
        dates,
        texts,
        tags,
        tags_all,
        has_fees: a.flag("has_fees"),
        has_fees_or_holds: a.flag("has_fees_or_holds"),
        ready_for_pickup: a.flag("ready_for_pickup"),
        lfd_start_us: lfd.start_us,
        lfd_end_us: lfd.end_us,
        updated_start_us: latest(a.updated_after()?, updated.start_us),
        updated_end_us: updated.end_us,
        tracking_stopped: a.tracking(),
        ..Filter::default()
    })
}

/// The earlier of two optional instants.
fn earliest(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

/// The later of two optional instants.
fn latest(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    }
}

/// The custom-field filters (`custom_fields: {"Sales Rep": "Ann"}`, by display name or key):
/// text fields match containers whose own or shipment value contains the text, option fields
/// an option's value; values separated by commas mean any of them; `@exists` / `@not_exists`
/// test presence. Fields of other types are refused, as unknown names are, with the fields
/// that can filter.
pub(super) async fn custom_fields(
    a: &mut Args<'_>,
    state: &AppState,
    account: &Account,
) -> Result<(Vec<reads::CustomCond>, Vec<CustomFieldUsed>), String> {
    use boxtrack_core::custom_fields::{DataType, EntityType};
    let Some(v) = a.value("custom_fields") else {
        return Ok((Vec::new(), Vec::new()));
    };
    let Some(asked) = v.as_object().filter(|o| !o.is_empty()) else {
        return Err("Invalid list filter \"custom_fields\": an object of field names (or keys) and values, e.g. {\"Sales Rep\": \"Ann\"}.".into());
    };
    a.applied.insert("custom_fields".into(), v.clone());
    let defs = boxtrack_store::custom_fields::definitions(
        &state.db,
        account.id,
        &Default::default(),
        &Page::first(boxtrack_core::paging::MAX_SIZE),
    )
    .await
    .map_err(unavailable)?
    .rows;
    let filterable = |d: &boxtrack_store::custom_fields::DefinitionRow| {
        [EntityType::Container, EntityType::Shipment]
            .iter()
            .any(|e| e.as_str() == d.entity_type)
            && [DataType::ShortText, DataType::Enum, DataType::EnumMulti]
                .iter()
                .any(|t| t.as_str() == d.data_type)
    };
    let mut conds = Vec::new();
    let mut used = Vec::new();
    for (name, value) in asked {
        let named: Vec<&boxtrack_store::custom_fields::DefinitionRow> = defs
            .iter()
            .filter(|d| d.api_slug == *name || d.display_name.eq_ignore_ascii_case(name.trim()))
            .collect();
        let usable: Vec<&boxtrack_store::custom_fields::DefinitionRow> =
            named.iter().copied().filter(|d| filterable(d)).collect();
        let Some(first) = usable.first() else {
            let mut names: Vec<String> = defs
                .iter()
                .filter(|d| filterable(d))
                .map(|d| format!("{} ({})", d.display_name, d.api_slug))
                .collect();
            names.sort();
            names.dedup();
            let why = if named.is_empty() {
                "no such custom field"
            } else {
                "only text and option fields filter"
            };
            return Err(format!(
                "Invalid list filter \"custom_fields\": {name:?}: {why}. Fields that filter: {}.",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ));
        };
        let Some(text) = value.as_str().map(str::trim).filter(|t| !t.is_empty()) else {
            return Err(format!(
                "Invalid list filter \"custom_fields\": the value of {name:?} is text, several separated by commas, @exists or @not_exists."
            ));
        };
        let known = match text {
            "@exists" => Some(true),
            "@not_exists" => Some(false),
            _ => None,
        };
        conds.push(reads::CustomCond {
            definitions: usable.iter().map(|d| d.id).collect(),
            any_of: if known.is_some() {
                Vec::new()
            } else {
                text.split(',')
                    .map(|x| x.trim().to_string())
                    .filter(|x| !x.is_empty())
                    .collect()
            },
            options: first.data_type != DataType::ShortText.as_str(),
            known,
        });
        used.push(CustomFieldUsed {
            field: name.clone(),
            api_slug: first.api_slug.clone(),
            data_type: first.data_type.clone(),
            value: text.to_string(),
        });
    }
    Ok((conds, used))
}

/// `list_containers`.
pub(super) async fn containers(
    state: &AppState,
    account: &Account,
    args: &Map<String, Value>,
) -> Result<ListAnswer<ContainerRow>, String> {
    let mut a = Args::of(args);
    let page = a.page()?;
    let (sort, sort_text) = a.sort(&CONTAINER_SORTS)?;
    let (custom, custom_used) = custom_fields(&mut a, state, account).await?;
    let filter = Filter {
        sort,
        custom,
        ..container_filter(&mut a, state.now_us())?
    };
    // the use case the REST list and the console run, with the reference's further filters
    let found = boxtrack_app::containers::list_filtered(&state.db, account.id, &filter, &page)
        .await
        .map_err(app_unavailable)?;
    let (listed, shipments) = (found.listed, found.shipments);
    let items = listed
        .rows
        .iter()
        .map(|c| {
            let sh = shipments.get(&c.shipment_id);
            let at = container_resource(c, sh, account).attributes;
            let st = &c.state.0;
            ContainerRow {
                id: c.id,
                number: c.number.clone(),
                status: c.current_status.clone(),
                available_for_pickup: at.availability_known.then_some(at.available_for_pickup),
                pod_terminal: st.pod_terminal.as_deref().map(|f| {
                    boxtrack_core::reference::terminal(f)
                        .map_or_else(|| f.to_string(), |t| t.name.clone())
                }),
                pod_arrived_at: at.pod_arrived_at,
                pod_discharged_at: at.pod_discharged_at,
                pod_full_out_at: at.pod_full_out_at,
                pickup_lfd: at.pickup_lfd,
                pickup_appointment_at: at.pickup_appointment_at,
                holds: active_holds(&st.holds)
                    .map(|h| HoldBrief {
                        name: h.name.clone(),
                        description: h.description.clone(),
                    })
                    .collect(),
                fees: st
                    .fees
                    .iter()
                    .map(|f| FeeBrief {
                        kind: f.kind.clone(),
                        amount: f.amount_minor as f64 / 100.0,
                        currency: f.currency_code.clone(),
                    })
                    .collect(),
                shipment: sh.map(|s| RowShipment {
                    id: s.id,
                    bill_of_lading: s.bill_of_lading_number.clone(),
                    shipping_line_scac: s.scac.clone(),
                    port_of_discharge: s.route.0.pod_name.clone(),
                    pod_vessel: s.state.0.pod_vessel_name.clone(),
                    pod_eta_at: At::opt(s.state.0.pod_eta_us),
                    pod_ata_at: At::opt(s.state.0.pod_ata_us),
                }),
                terminal_checked_at: at.terminal_checked_at,
                pod_timezone: at.pod_timezone,
            }
        })
        .collect();
    let mut out = answer(items, &listed, a.applied, sort_text, &page);
    out.metadata.custom_fields = custom_used;
    Ok(out)
}

/// `list_shipments`.
pub(super) async fn shipments(
    state: &AppState,
    account: &Account,
    args: &Map<String, Value>,
) -> Result<ListAnswer<ShipmentRow>, String> {
    let mut a = Args::of(args);
    a.check_advanced(&SHIPMENT_FILTERS, &SHIPMENT_DATE_FILTERS)?;
    let page = a.page()?;
    let mut dates = a.date_conds(&SHIPMENT_DATE_FILTERS, state.now_us())?;
    match a.text(&["voyage_status"]).as_deref() {
        None => {}
        Some("arrived") => dates.push(DateCond {
            field: DateField::PodAta,
            start_us: None,
            end_us: None,
            known: Some(true),
        }),
        Some("on_ship") => {
            for (field, known) in [(DateField::PolAtd, true), (DateField::PodAta, false)] {
                dates.push(DateCond {
                    field,
                    start_us: None,
                    end_us: None,
                    known: Some(known),
                });
            }
        }
        Some(other) => {
            return Err(format!(
                "Invalid list filter \"voyage_status\": arrived or on_ship, not {other:?}."
            ));
        }
    }
    let texts = a.text_conds(&[("pol_code", TextField::PolCode)])?;
    let (tags, tags_all) = a.tags()?;
    let (party, customer_known) = a.parties()?;
    let (sort, sort_text) = a.sort(&SHIPMENT_SORTS)?;
    // the contract's `status`: tracked or stopped
    let status_stopped = match a.text(&["status"]).as_deref() {
        None => None,
        Some("tracked" | "active" | "actively_tracked") => Some(false),
        Some("stopped" | "tracking_stopped") => Some(true),
        Some(other) => {
            return Err(format!(
                "status must be tracked or stopped, not {other:?}; for where a shipment is, read get_shipment_details."
            ));
        }
    };
    let with_containers = a.flag("include_containers").unwrap_or(false);
    let updated = a.dates("updated_at", state.now_us())?;
    let filter = Filter {
        number: a.text(&["number"]).map(|n| n.to_ascii_uppercase()),
        port: a
            .text(&["pod_code", "port"])
            .map(|p| p.to_ascii_uppercase()),
        carrier: a
            .text(&["shipping_line_scac", "carrier"])
            .map(|c| c.to_ascii_uppercase()),
        updated_start_us: latest(a.updated_after()?, updated.start_us),
        updated_end_us: updated.end_us,
        customer_id: match (a.uuid("customer_id")?, party) {
            (Some(_), Some(_)) => {
                return Err("customer_id and party_id name the same party; give one.".into());
            }
            (c, p) => c.or(p),
        },
        customer_known,
        dates,
        texts,
        tags,
        tags_all,
        tracking_stopped: status_stopped.or_else(|| a.tracking()),
        sort,
        ..Filter::default()
    };
    // the use case the REST list and the console run, with the reference's further filters
    let found = boxtrack_app::shipments::list_filtered(&state.db, account.id, &filter, &page)
        .await
        .map_err(app_unavailable)?;
    let (listed, boxes) = (found.listed, found.containers);
    let items = listed
        .rows
        .iter()
        .map(|s| {
            let (route, st) = (&s.route.0, &s.state.0);
            ShipmentRow {
                id: s.id,
                bill_of_lading: s.bill_of_lading_number.clone(),
                shipping_line_scac: s.scac.clone(),
                shipping_line_name: boxtrack_core::carriers::by_scac(&s.scac)
                    .map(|l| l.name.clone()),
                pod_vessel_name: st.pod_vessel_name.clone(),
                pod_voyage_number: st.pod_voyage_number.clone(),
                port_of_discharge_name: route.pod_name.clone(),
                pod_eta_at: At::opt(st.pod_eta_us),
                pod_ata_at: At::opt(st.pod_ata_us),
                destination_name: route.destination_name.clone(),
                destination_eta_at: At::opt(st.destination_eta_us),
                ref_numbers: s.ref_numbers.0.clone(),
                tracking_stopped: s.tracking_stopped_us.is_some(),
                containers: with_containers.then(|| {
                    boxes
                        .get(&s.id)
                        .map(|cs| {
                            cs.iter()
                                .map(|c| ShipmentContainer {
                                    id: c.id,
                                    number: c.number.clone(),
                                    status: c.current_status.clone(),
                                })
                                .collect()
                        })
                        .unwrap_or_default()
                }),
            }
        })
        .collect();
    Ok(answer(items, &listed, a.applied, sort_text, &page))
}
