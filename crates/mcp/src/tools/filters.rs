//! The typed arguments of the list tools (`list_containers`, `summarize_containers`,
//! `list_shipments`) and how they become the store's [`Filter`]: each filter is one field
//! here, with its description, read in one place. The reference's clients send a filter at
//! the top level or inside `advanced_filters`; [`merged`] makes one set of the two.

use super::error::ToolError;
use std::collections::BTreeMap;

use boxtrack_app::containers::ContainerFilter;
use boxtrack_app::fields::{AnyOf, Flag, Further, Id, Text, earliest, latest};
use boxtrack_app::model::{DateCond, DateField, ListSort, TextCond, TextField};
use boxtrack_app::shipments::{ListShipments, ShipmentFilter};
use boxtrack_core::datebounds::{self, Range};
use boxtrack_core::paging::Page;
use boxtrack_core::time;
use boxtrack_core::tracking::release::Gate;
use boxtrack_core::tracking::rules::ContainerStatus;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

/// The most rows one call of a list tool returns.
pub const MAX_PAGE_SIZE: u32 = 25;

/// A text, or a list of texts (the reference's clients send either).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Texts {
    /// One text.
    One(String),
    /// Several.
    Many(Vec<String>),
}

impl Texts {
    /// Each text as given (one, or each of the list).
    fn each(&self) -> Vec<&str> {
        match self {
            Texts::One(s) => vec![s.as_str()],
            Texts::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }

    /// Each value: a text's parts between commas, or each of the list.
    fn values(&self) -> Vec<&str> {
        match self {
            Texts::One(s) => s.split(',').collect(),
            Texts::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

/// Declares a set of date filters: a field each (bounds as `updated_at` writes them, or
/// `@exists` / `@not_exists`) and [`each`](ContainerDates::each), the fields with the
/// store's date they filter.
macro_rules! date_filters {
    ($(#[doc = $sdoc:literal])* $name:ident { $( $field:ident => $date:ident, $doc:literal; )* }) => {
        $(#[doc = $sdoc])*
        #[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
        pub struct $name {
            $(
                #[doc = concat!($doc, ": date bounds as updated_at writes them (UTC days), or @exists / @not_exists")]
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $field: Option<Texts>,
            )*
        }

        impl $name {
            /// Each date filter: its name, the date it filters, what the call gave.
            pub fn each(&self) -> Vec<(&'static str, DateField, Option<&Texts>)> {
                vec![$((stringify!($field), DateField::$date, self.$field.as_ref()),)*]
            }
        }
    };
}

date_filters! {
    /// The date filters of the container lists, by the reference's names.
    ContainerDates {
        arrival => Arrival, "The voyage's arrival at the port of discharge: actual, else estimated";
        pod_arrived_at => PodArrived, "The container's arrival at the port of discharge";
        pod_discharged_at => PodDischarged, "Discharged at the port of discharge";
        picked_up_at => PickedUp, "Picked up (full out at the final destination, else at the port of discharge)";
        empty_returned_at => EmptyReturned, "Empty returned";
        delivered_at => Delivered, "Marked delivered";
        empty_out_at => EmptyOut, "Empty picked up at origin";
        pol_full_in_at => PolFullIn, "Full in at the port of lading";
        pol_vessel_loaded_at => PolVesselLoaded, "Loaded at the port of lading";
        pol_vessel_departed_at => PolVesselDeparted, "Departed the port of lading";
        pol_etd_at => PolEtd, "The voyage's estimated departure from the port of lading";
        pol_atd_at => PolAtd, "The voyage's actual departure from the port of lading";
        pod_rail_departed_at => PodRailDeparted, "Rail departed from the port of discharge";
        inland_destination_eta_at => IndEta, "Estimated arrival at the inland destination";
        inland_destination_ata_at => IndAta, "Actual arrival at the inland destination";
        inland_destination_rail_unloaded_at => IndRailUnloaded, "Unloaded from rail at the inland destination";
        final_destination_full_out_at => FinalFullOut, "Full out at the final destination";
        created_at => Created, "Created in boxtrack";
        pod_ata_at => PodAta, "The voyage's actual arrival at the port of discharge";
    }
}

date_filters! {
    /// The date filters of `list_shipments`.
    ShipmentDates {
        pod_arrival => Arrival, "Arrival at the port of discharge: actual, else estimated";
        pod_ata_at => PodAta, "Actual arrival at the port of discharge";
        created_at => Created, "Created in boxtrack";
    }
}

/// The filters every list of containers or shipments takes.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
pub struct Common {
    /// One container number (a container list), or one bill of lading or booking number (a shipment list)
    #[schemars(length(max = 64))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<String>,
    /// Port of discharge (UN/LOCODE)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_code: Option<String>,
    /// The same as pod_code
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    /// The shipping line's SCAC
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shipping_line_scac: Option<String>,
    /// The same as shipping_line_scac
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carrier: Option<String>,
    /// Port of lading (UN/LOCODE): exact, several separated by commas or a list (any of them); or @exists / @not_exists
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pol_code: Option<Texts>,
    /// Only actively tracked records (true) or only stopped ones (false)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actively_tracked: Option<bool>,
    /// Only stopped records (true) or only tracked ones (false)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracking_stopped: Option<bool>,
    /// Default false: only actively tracked records, as the dashboard shows. True: tracked and stopped ones, for history questions
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_stopped_tracking: Option<bool>,
    /// Changed at or after this date (YYYY-MM-DD) or time (RFC 3339)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_after: Option<String>,
    /// Changed on a day: YYYY-MM-DD, today, N.days.ago or N.days.from_now, optionally after =, <, <=, > or >=; a list of bounds that all hold, e.g. [">=7.days.ago", "<today"]. UTC days
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<Texts>,
    /// Only those of this party (the customer on the tracking request); list_parties finds its id by name
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub customer_id: Option<Uuid>,
    /// Shipment tags: names separated by commas or a list; any of them unless tags_and
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Texts>,
    /// The same as tags
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<Texts>,
    /// With tags: every tag, not any
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags_and: Option<bool>,
}

/// The filters `list_containers` and `summarize_containers` take.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
pub struct ContainerFilters {
    /// What every list takes.
    #[serde(flatten)]
    pub common: Common,
    /// The container's status, or several separated by commas (any of them)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_status: Option<String>,
    /// The same as current_status
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// With an active terminal hold (true) or without one (false)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_holds: Option<bool>,
    /// With a release gate held: customs, line or terminal (several separated by commas: any)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held: Option<String>,
    /// With release gates released: customs, line or terminal (several: all of them)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub released: Option<String>,
    /// Available and without active holds
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_for_pickup: Option<bool>,
    /// With terminal fees (true) or with none reported (false)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_fees: Option<bool>,
    /// With terminal fees or an active hold (true), or with neither (false)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_fees_or_holds: Option<bool>,
    /// Last free day bounds, as updated_at writes them, e.g. [">=today", "<=3.days.from_now"] for those due within three days (UTC days); or @exists / @not_exists
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pickup_lfd: Option<Texts>,
    /// Last free day from FROM to TO, both included: ["YYYY-MM-DD", "YYYY-MM-DD"]; pickup_lfd takes other bounds
    #[schemars(length(min = 2, max = 2))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_free_day_on: Option<Vec<String>>,
    /// Inland destination (UN/LOCODE): exact, several separated by commas or a list (any of them); or @exists / @not_exists
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination_code: Option<Texts>,
    /// The vessel at the port of discharge, as the line names it: exact, several separated by commas or a list (any of them); or @exists / @not_exists
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vessel_name: Option<Texts>,
    /// Parties keyed by role (customer, shipper, consignee, notify_party, customs_broker, freight_forwarder, dray_carrier): the party's id, @exists or @not_exists. boxtrack records one party per tracking request, its customer; other roles are refused with a message
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parties: Option<BTreeMap<String, String>>,
    /// Custom fields by display name or key, e.g. {"Sales Rep": "Ann"}: text fields match containers whose own or shipment value contains the text, option fields an option's value (case-insensitive); values separated by commas mean any of them; @exists / @not_exists test presence; different fields all hold. Only text and option fields filter
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_fields: Option<BTreeMap<String, String>>,
    /// The date filters.
    #[serde(flatten)]
    pub dates: ContainerDates,
}

/// The filters `list_shipments` takes.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
pub struct ShipmentFilters {
    /// What every list takes.
    #[serde(flatten)]
    pub common: Common,
    /// Tracked or stopped
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// arrived: the vessel has arrived at the port of discharge; on_ship: departed from the port of lading and not yet arrived
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voyage_status: Option<VoyageStatus>,
    /// The customer's party id, @exists or @not_exists (the same as customer_id)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub party_id: Option<String>,
    /// The date filters.
    #[serde(flatten)]
    pub dates: ShipmentDates,
}

/// Where a shipment's voyage is.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VoyageStatus {
    /// The vessel has arrived at the port of discharge.
    Arrived,
    /// Departed from the port of lading and not yet arrived.
    OnShip,
}

/// A page of a list tool.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct Paging {
    /// 1-based page
    #[schemars(range(min = 1))]
    #[serde(default)]
    pub page: Option<u64>,
    /// Rows per page (default 25, at most 25)
    #[schemars(range(min = 1))]
    #[serde(default)]
    pub page_size: Option<u64>,
}

impl Paging {
    /// The store's page.
    pub fn page(&self) -> Result<Page, ToolError> {
        let number = self.page.unwrap_or(1);
        let size = self.page_size.unwrap_or(u64::from(MAX_PAGE_SIZE));
        if number == 0 || size == 0 {
            return Err("page and page_size start at 1.".into());
        }
        Ok(Page {
            number: u32::try_from(number).unwrap_or(u32::MAX),
            size: u32::try_from(size.min(u64::from(MAX_PAGE_SIZE))).unwrap_or(MAX_PAGE_SIZE),
            cursor: None,
        })
    }
}

/// The filters given at the top level and in `advanced_filters`, as one set: a filter named in
/// both places is refused.
pub fn merged<F>(top: &F, advanced: Option<&F>) -> Result<F, ToolError>
where
    F: Serialize + DeserializeOwned + Clone,
{
    let Some(advanced) = advanced else {
        return Ok(top.clone());
    };
    let as_map = |f: &F| match serde_json::to_value(f) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err("advanced_filters must be an object of filters.".to_string()),
    };
    let (mut all, more) = (as_map(top)?, as_map(advanced)?);
    for (k, v) in more {
        if all.contains_key(&k) {
            return Err(format!(
                "Invalid list filter \"{k}\": duplicate filter; use the top level or advanced_filters, not both."
            ).into());
        }
        all.insert(k, v);
    }
    serde_json::from_value(Value::Object(all))
        .map_err(|e| ToolError::from(format!("Invalid list filter: {e}.")))
}

/// The filters that applied, as the answer's `_metadata` reports them.
#[derive(Debug, Default)]
pub struct Applied(pub BTreeMap<String, Value>);

impl Applied {
    /// Notes a filter as applied, with the value it took.
    pub fn note<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) {
        self.0.insert(
            name.to_string(),
            serde_json::to_value(value).unwrap_or(Value::Null),
        );
    }

    /// The first of these texts that is not blank, trimmed, noted under `name`.
    pub fn text(&mut self, name: &str, choices: &[&Option<String>]) -> Option<String> {
        let v = choices.iter().find_map(|c| {
            c.as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        })?;
        self.note(name, &v);
        Some(v)
    }

    /// A yes-or-no filter, noted when given.
    pub fn flag(&mut self, name: &str, v: Option<bool>) -> Option<bool> {
        let v = v?;
        self.note(name, &v);
        Some(v)
    }

    /// A date filter (one bound or a list of bounds that all hold, as `datebounds` reads
    /// them) as a range at `now_us`.
    pub fn dates(
        &mut self,
        name: &str,
        v: Option<&Texts>,
        now_us: i64,
    ) -> Result<Range, ToolError> {
        let Some(v) = v else {
            return Ok(Range::default());
        };
        let bounds = v.each();
        if bounds.is_empty() {
            return Err(
                format!("Invalid list filter \"{name}\": a date bound or a list of them.").into(),
            );
        }
        self.note(name, v);
        datebounds::range(bounds, now_us)
            .map_err(|e| ToolError::from(format!("Invalid list filter \"{name}\": {e}.")))
    }

    /// The date filters of a list: bounds, or `@exists` / `@not_exists`.
    pub fn date_conds(
        &mut self,
        filters: Vec<(&'static str, DateField, Option<&Texts>)>,
        now_us: i64,
    ) -> Result<Vec<DateCond>, ToolError> {
        let mut out = Vec::new();
        for (name, field, v) in filters {
            let Some(v) = v else { continue };
            let known = known(v);
            if known.is_some() {
                self.note(name, v);
                out.push(DateCond {
                    field,
                    start_us: None,
                    end_us: None,
                    known,
                });
                continue;
            }
            let r = self.dates(name, Some(v), now_us)?;
            out.push(DateCond {
                field,
                start_us: r.start_us,
                end_us: r.end_us,
                known: None,
            });
        }
        Ok(out)
    }

    /// Exact texts of the voyage (`pol_code`, ...): one value, several separated by commas
    /// or a list (any of them), or `@exists` / `@not_exists`.
    pub fn text_conds(
        &mut self,
        filters: &[(&str, TextField, Option<&Texts>)],
    ) -> Result<Vec<TextCond>, ToolError> {
        let mut out = Vec::new();
        for (name, field, v) in filters {
            let Some(v) = v else { continue };
            let values: Vec<String> = v
                .values()
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
                ).into());
            }
            self.note(name, v);
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
    pub fn tags(&mut self, c: &Common) -> Result<(Vec<String>, bool), ToolError> {
        let Some((name, v)) = [("tags", &c.tags), ("tag", &c.tag)]
            .into_iter()
            .find_map(|(n, v)| v.as_ref().map(|v| (n, v)))
        else {
            if c.tags_and.is_some() {
                return Err("tags_and needs tags: name the tags to match.".into());
            }
            return Ok((Vec::new(), false));
        };
        let tags: Vec<String> = v
            .values()
            .iter()
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect();
        if tags.is_empty() {
            return Err(format!(
                "Invalid list filter \"{name}\": a tag name, several separated by commas, or a list of them."
            ).into());
        }
        self.note("tags", &tags);
        let all = self.flag("tags_and", c.tags_and).unwrap_or(false);
        Ok((tags, all))
    }

    /// The customer by `parties` (keyed by role; `customer` is the role boxtrack records)
    /// or `party_id`: its id, or whether there is one.
    pub fn parties(
        &mut self,
        parties: Option<&BTreeMap<String, String>>,
        party_id: Option<&String>,
    ) -> Result<(Option<Uuid>, Option<bool>), ToolError> {
        let (label, value) = match (parties, party_id) {
            (None, None) => return Ok((None, None)),
            (Some(_), Some(_)) => {
                return Err("parties and party_id name the same party; give one.".into());
            }
            (None, Some(id)) => ("party_id", id.clone()),
            (Some(roles), None) => {
                if let Some(role) = roles.keys().find(|r| !PARTY_ROLES.contains(&r.as_str())) {
                    return Err(format!(
                        "Invalid list filter \"parties\": {role:?} is not a role; roles are {}.",
                        PARTY_ROLES.join(", ")
                    )
                    .into());
                }
                if let Some(role) = roles.keys().find(|r| r.as_str() != "customer") {
                    return Err(format!(
                        "Invalid list filter \"parties\": boxtrack records one party per tracking request, its customer, so no {role} is known. Filter by parties.customer (or customer_id) instead."
                    ).into());
                }
                match roles.get("customer") {
                    Some(c) => ("parties.customer", c.clone()),
                    None => return Ok((None, None)),
                }
            }
        };
        let mut customer = BTreeMap::new();
        customer.insert("customer", value.clone());
        self.note("parties", &customer);
        match value.trim() {
            "@exists" => Ok((None, Some(true))),
            "@not_exists" => Ok((None, Some(false))),
            id => id.parse::<Uuid>().map(|u| (Some(u), None)).map_err(|_| {
                ToolError::from(format!("{label} must be a party's id (UUID), @exists or @not_exists; list_parties finds the id by name."))
            }),
        }
    }

    /// `actively_tracked: true` unless the call names tracking or asks for stopped ones too.
    pub fn tracking(&mut self, c: &Common) -> Option<bool> {
        let stopped = self.flag("tracking_stopped", c.tracking_stopped);
        let active = self.flag("actively_tracked", c.actively_tracked);
        let include_stopped = self
            .flag("include_stopped_tracking", c.include_stopped_tracking)
            .unwrap_or(false);
        match (stopped, active) {
            (Some(s), _) => Some(s),
            (None, Some(a)) => Some(!a),
            (None, None) if include_stopped => None,
            (None, None) => {
                self.note("actively_tracked", &true);
                Some(false)
            }
        }
    }

    /// The customer named by `customer_id` or by a party filter, never both.
    pub fn customer(
        &mut self,
        c: &Common,
        party: Option<Uuid>,
        other: &str,
    ) -> Result<Option<Uuid>, ToolError> {
        if let Some(id) = c.customer_id {
            self.note("customer_id", &id);
        }
        match (c.customer_id, party) {
            (Some(_), Some(_)) => {
                Err(format!("customer_id and {other} name the same party; give one.").into())
            }
            (c, p) => Ok(c.or(p)),
        }
    }

    /// `updated_after` and `updated_at` together: the range of the last change.
    pub fn updated(&mut self, c: &Common, now_us: i64) -> Result<Range, ToolError> {
        let after = match self.text("updated_after", &[&c.updated_after]) {
            None => None,
            Some(raw) => Some(time::parse_instant_or_date(&raw).ok_or_else(|| {
                format!(
                    "updated_after must be a date (YYYY-MM-DD) or an RFC 3339 time, not {raw:?}."
                )
            })?),
        };
        let on = self.dates("updated_at", c.updated_at.as_ref(), now_us)?;
        Ok(Range {
            start_us: latest(after, on.start_us),
            end_us: on.end_us,
        })
    }

    /// The voyage's number, port and carrier filters.
    fn voyage(&mut self, c: &Common) -> (Option<String>, Option<String>, Option<String>) {
        (
            self.text("number", &[&c.number])
                .map(|n| n.to_ascii_uppercase()),
            self.text("pod_code", &[&c.pod_code, &c.port])
                .map(|p| p.to_ascii_uppercase()),
            self.text("shipping_line_scac", &[&c.shipping_line_scac, &c.carrier])
                .map(|c| c.to_ascii_uppercase()),
        )
    }
}

/// `@exists` / `@not_exists`: whether the value must be known.
fn known(v: &Texts) -> Option<bool> {
    match v {
        Texts::One(s) => match s.trim() {
            "@exists" => Some(true),
            "@not_exists" => Some(false),
            _ => None,
        },
        Texts::Many(_) => None,
    }
}

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

/// An order a list offers, checked against its words.
pub fn sort(raw: Option<&str>, offered: &[&str]) -> Result<(ListSort, Option<String>), ToolError> {
    let Some(raw) = raw.map(str::trim) else {
        return Ok((ListSort::default(), None));
    };
    let parsed = offered
        .contains(&raw)
        .then(|| ListSort::parse(raw))
        .flatten()
        .ok_or_else(|| format!("sort must be one of {}.", offered.join(", ")))?;
    Ok((parsed, Some(raw.to_string())))
}

/// The container filters `list_containers` and `summarize_containers` share, as the use
/// case's filter: the REST list's fields, and the rest as its [`Further`] conditions (the
/// custom fields by name, which the use case looks up).
pub fn container_filter(
    f: &ContainerFilters,
    a: &mut Applied,
    now_us: i64,
) -> Result<ContainerFilter, ToolError> {
    let c = &f.common;
    let dates = a.date_conds(f.dates.each(), now_us)?;
    let texts = a.text_conds(&[
        ("pol_code", TextField::PolCode, c.pol_code.as_ref()),
        (
            "destination_code",
            TextField::DestinationCode,
            f.destination_code.as_ref(),
        ),
        ("vessel_name", TextField::VesselName, f.vessel_name.as_ref()),
    ])?;
    let (tags, tags_all) = a.tags(c)?;
    let (party, customer_known) = a.parties(f.parties.as_ref(), None)?;
    let (lfd_known, lfd) = last_free_day(f, a, now_us)?;
    let updated = a.updated(c, now_us)?;
    let statuses = statuses(f, a)?;
    let (number, port, carrier) = a.voyage(c);
    let custom_fields = match &f.custom_fields {
        Some(asked) if asked.is_empty() => {
            return Err("Invalid list filter \"custom_fields\": an object of field names (or keys) and values, e.g. {\"Sales Rep\": \"Ann\"}.".into());
        }
        Some(asked) => {
            a.note("custom_fields", asked);
            asked.clone()
        }
        None => BTreeMap::new(),
    };
    let flag = |b: Option<bool>| b.map(Flag);
    Ok(ContainerFilter {
        number: number.map(Text),
        current_status: (!statuses.is_empty()).then(|| AnyOf::of(statuses)),
        on_hold: flag(a.flag("has_holds", f.has_holds)),
        held: gates(a, "held", &f.held)?,
        released: gates(a, "released", &f.released)?,
        ready_for_pickup: flag(a.flag("ready_for_pickup", f.ready_for_pickup)),
        port: port.map(Text),
        carrier: carrier.map(Text),
        customer_id: a.customer(c, party, "parties.customer")?.map(Id),
        tracking_stopped: flag(a.tracking(c)),
        further: Further {
            lfd_known,
            lfd,
            updated,
            customer_known,
            dates,
            texts,
            tags,
            tags_all,
            has_fees: a.flag("has_fees", f.has_fees),
            has_fees_or_holds: a.flag("has_fees_or_holds", f.has_fees_or_holds),
            custom_fields,
            ids: None,
        },
        ..ContainerFilter::default()
    })
}

/// `pickup_lfd` (bounds, or `@exists` / `@not_exists`) and `last_free_day_on` (the
/// reference's two-date inclusive range), as one range.
fn last_free_day(
    f: &ContainerFilters,
    a: &mut Applied,
    now_us: i64,
) -> Result<(Option<bool>, Range), ToolError> {
    let lfd_known = f.pickup_lfd.as_ref().and_then(known);
    let lfd = match (&f.pickup_lfd, lfd_known) {
        (Some(v), Some(_)) => {
            a.note("pickup_lfd", v);
            Range::default()
        }
        (v, _) => a.dates("pickup_lfd", v.as_ref(), now_us)?,
    };
    let Some(pair) = &f.last_free_day_on else {
        return Ok((lfd_known, lfd));
    };
    let [from, to] = pair.as_slice() else {
        return Err("Invalid list filter \"last_free_day_on\": two dates, [FROM, TO] (YYYY-MM-DD), both included; pickup_lfd takes other bounds.".into());
    };
    a.note("last_free_day_on", pair);
    let r = datebounds::range(
        [format!(">={from}").as_str(), format!("<={to}").as_str()],
        now_us,
    )
    .map_err(|e| ToolError::from(format!("Invalid list filter \"last_free_day_on\": {e}.")))?;
    Ok((
        lfd_known,
        Range {
            start_us: latest(lfd.start_us, r.start_us),
            end_us: earliest(lfd.end_us, r.end_us),
        },
    ))
}

/// A status, or several separated by commas (any of them).
/// The release gates a filter names (`customs,line`).
fn gates(
    a: &mut Applied,
    name: &str,
    asked: &Option<String>,
) -> Result<Option<AnyOf<Gate>>, ToolError> {
    let Some(text) = a.text(name, &[asked]) else {
        return Ok(None);
    };
    serde_json::from_value(Value::String(text.replace(' ', "")))
        .map(Some)
        .map_err(|e| format!("Invalid list filter \"{name}\": {e}.").into())
}

fn statuses(f: &ContainerFilters, a: &mut Applied) -> Result<Vec<ContainerStatus>, ToolError> {
    let Some(asked) = a.text("current_status", &[&f.current_status, &f.status]) else {
        return Ok(Vec::new());
    };
    asked
        .split(',')
        .map(|x| x.trim().trim_start_matches('='))
        .filter(|x| !x.is_empty())
        .map(|x| {
            ContainerStatus::parse(x).ok_or_else(|| {
                let all: Vec<&str> = ContainerStatus::ALL.iter().map(|c| c.as_str()).collect();
                ToolError::from(format!(
                    "Invalid list filter \"current_status\": {x:?} is not a status; current_status must be one of {} (several separated by commas).",
                    all.join(", ")
                ))
            })
        })
        .collect()
}

/// The shipment filters of `list_shipments`, as the use case's question (the REST list's
/// fields, and the rest as its [`Further`] conditions).
pub fn shipment_filter(
    f: &ShipmentFilters,
    a: &mut Applied,
    now_us: i64,
) -> Result<ListShipments, ToolError> {
    let c = &f.common;
    let mut dates = a.date_conds(f.dates.each(), now_us)?;
    if let Some(v) = f.voyage_status {
        a.note("voyage_status", &v);
        let reached: &[(DateField, bool)] = match v {
            VoyageStatus::Arrived => &[(DateField::PodAta, true)],
            VoyageStatus::OnShip => &[(DateField::PolAtd, true), (DateField::PodAta, false)],
        };
        dates.extend(reached.iter().map(|(field, known)| DateCond {
            field: *field,
            start_us: None,
            end_us: None,
            known: Some(*known),
        }));
    }
    let texts = a.text_conds(&[("pol_code", TextField::PolCode, c.pol_code.as_ref())])?;
    let (tags, tags_all) = a.tags(c)?;
    let (party, customer_known) = a.parties(None, f.party_id.as_ref())?;
    // the contract's `status`: tracked or stopped
    let status_stopped = match a.text("status", &[&f.status]).as_deref() {
        None => None,
        Some("tracked" | "active" | "actively_tracked") => Some(false),
        Some("stopped" | "tracking_stopped") => Some(true),
        Some(other) => {
            return Err(format!(
                "status must be tracked or stopped, not {other:?}; for where a shipment is, read get_shipment_details."
            ).into());
        }
    };
    let updated = a.updated(c, now_us)?;
    let (number, port, carrier) = a.voyage(c);
    Ok(ListShipments {
        number: number.map(Text),
        filter: ShipmentFilter {
            port: port.map(Text),
            carrier: carrier.map(Text),
            customer_id: a.customer(c, party, "party_id")?.map(Id),
            tracking_stopped: status_stopped.or_else(|| a.tracking(c)).map(Flag),
            further: Further {
                updated,
                customer_known,
                dates,
                texts,
                tags,
                tags_all,
                ..Further::default()
            },
            ..ShipmentFilter::default()
        },
        ..ListShipments::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_given_at_the_top_and_in_advanced_filters_is_refused_and_others_join() {
        let top: ContainerFilters =
            serde_json::from_value(serde_json::json!({"pod_code": "USLAX"})).unwrap();
        let adv: ContainerFilters =
            serde_json::from_value(serde_json::json!({"has_holds": true, "arrival": ">=today"}))
                .unwrap();
        let both = merged(&top, Some(&adv)).unwrap();
        assert_eq!(both.common.pod_code.as_deref(), Some("USLAX"));
        assert_eq!(both.has_holds, Some(true));
        assert!(both.dates.arrival.is_some());
        let twice: ContainerFilters =
            serde_json::from_value(serde_json::json!({"pod_code": "USNYC"})).unwrap();
        let e = merged(&top, Some(&twice)).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("Invalid list filter \"pod_code\": duplicate"),
            "{e}"
        );
    }

    #[test]
    fn texts_are_one_or_a_list_and_values_split_at_commas() {
        let one: Texts = serde_json::from_value(serde_json::json!("a, b")).unwrap();
        assert_eq!(one.values(), vec!["a", " b"]);
        assert_eq!(one.each(), vec!["a, b"]);
        let many: Texts = serde_json::from_value(serde_json::json!(["a", "b,c"])).unwrap();
        assert_eq!(many.values(), vec!["a", "b,c"]);
    }

    #[test]
    fn release_gates_filter_by_name_and_a_wrong_one_is_refused() {
        let mut a = Applied::default();
        let asked: ContainerFilters = serde_json::from_value(
            serde_json::json!({"held": "customs, line", "released": "terminal"}),
        )
        .unwrap();
        let f = container_filter(&asked, &mut a, 0).unwrap();
        assert_eq!(f.held.map(|g| g.0), Some(vec![Gate::Customs, Gate::Line]));
        assert_eq!(f.released.map(|g| g.0), Some(vec![Gate::Terminal]));
        let wrong: ContainerFilters =
            serde_json::from_value(serde_json::json!({"held": "freight"})).unwrap();
        let e = container_filter(&wrong, &mut Applied::default(), 0).unwrap_err();
        assert!(e.to_string().contains("customs, line or terminal"), "{e}");
    }

    #[test]
    fn the_default_is_actively_tracked_and_noted() {
        let mut a = Applied::default();
        let f = container_filter(&ContainerFilters::default(), &mut a, 0).unwrap();
        assert_eq!(f.tracking_stopped, Some(Flag(false)));
        assert_eq!(a.0.get("actively_tracked"), Some(&Value::Bool(true)));
    }
}
