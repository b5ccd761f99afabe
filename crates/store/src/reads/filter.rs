//! The filters and orders of the shipment and container lists.

use super::*;

/// Filters shared by the shipment and container lists.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Bill of lading, ref number or container number (substring, case-insensitive).
    pub q: Option<String>,
    /// Exact bill of lading / booking number (shipments).
    pub number: Option<String>,
    /// Exact container number (containers).
    pub container_number: Option<String>,
    /// Stopped or not.
    pub tracking_stopped: Option<bool>,
    /// Carrier SCAC.
    pub carrier: Option<String>,
    /// POD UN/LOCODE.
    pub port: Option<String>,
    /// Container status.
    pub current_status: Option<String>,
    /// Ready for pickup.
    pub ready_for_pickup: Option<bool>,
    /// LFD range.
    pub lfd_start_us: Option<i64>,
    /// LFD range end.
    pub lfd_end_us: Option<i64>,
    /// Updated range.
    pub updated_start_us: Option<i64>,
    /// Updated range end.
    pub updated_end_us: Option<i64>,
    /// The customer (party) named on the tracking request.
    pub customer_id: Option<Uuid>,
    /// The customer's name (substring, case-insensitive).
    pub customer_name: Option<String>,
    /// With an active terminal hold, or without one (containers).
    pub on_hold: Option<bool>,
    /// With any of these release gates held (a set of gate bits; containers).
    pub held_any: Option<i64>,
    /// With all of these release gates released (a set of gate bits; containers).
    pub released_all: Option<i64>,
    /// Any of these container statuses (containers; with `current_status`, both hold).
    pub statuses: Vec<String>,
    /// With a last free day, or without one (containers).
    pub lfd_known: Option<bool>,
    /// The order of the list.
    pub sort: ListSort,
    /// Date bounds and presence tests on milestone and voyage dates (all hold).
    pub dates: Vec<DateCond>,
    /// Shipment tags: any of them (or all with `tags_all`), exact and case-sensitive.
    pub tags: Vec<String>,
    /// Every tag of `tags`, not any.
    pub tags_all: bool,
    /// Whether the tracking request names a customer, or names none.
    pub customer_known: Option<bool>,
    /// Exact values of the voyage's texts (any of each list), or whether they are known.
    pub texts: Vec<TextCond>,
    /// With terminal fees, or with none (containers).
    pub has_fees: Option<bool>,
    /// With terminal fees or an active hold, or with neither (containers).
    pub has_fees_or_holds: Option<bool>,
    /// Only these containers (none: any); an empty list selects nothing.
    pub ids: Option<Vec<Uuid>>,
    /// Custom field values on the container or its shipment (containers; all hold).
    pub custom: Vec<CustomCond>,
}

/// A custom field's value on a container or its shipment: any of some texts, or whether it is
/// set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomCond {
    /// The field's definitions (one per entity type the name matches).
    pub definitions: Vec<Uuid>,
    /// Any of these: a part of a text value, or an option's value (case-insensitive).
    pub any_of: Vec<String>,
    /// The values are options (matched whole), not text (matched in part).
    pub options: bool,
    /// Set (`Some(true)`) or not set (`Some(false)`).
    pub known: Option<bool>,
}

impl CustomCond {
    /// The condition on a container row: the value is on the container or on its shipment.
    pub(super) fn on_containers(&self, account_id: Uuid) -> Option<Cond> {
        if self.definitions.is_empty() {
            return None;
        }
        let defs = vec!["?"; self.definitions.len()].join(", ");
        let mut matched = String::new();
        let mut match_args = Vec::new();
        if self.known.is_none() && !self.any_of.is_empty() {
            let ors = vec!["UPPER(CAST(value AS TEXT)) LIKE ?"; self.any_of.len()].join(" OR ");
            matched = format!(" AND ({ors})");
            for v in &self.any_of {
                let clean = v.to_uppercase().replace(['%', '_'], "");
                // JSON text: an option is a whole quoted string, text a part of one
                match_args.push(Arg::Text(if self.options {
                    format!("%{}%", serde_json::Value::String(clean))
                } else {
                    format!("%{clean}%")
                }));
            }
        }
        let sub = format!(
            "SELECT entity_id FROM custom_fields WHERE account_id = ? AND definition_id IN ({defs}){matched}"
        );
        let one = || {
            let mut a = vec![Arg::Uuid(account_id)];
            a.extend(self.definitions.iter().map(|d| Arg::Uuid(*d)));
            a.extend(match_args.iter().cloned());
            a
        };
        let mut args = one();
        args.extend(one());
        let either = format!("(id IN ({sub}) OR shipment_id IN ({sub}))");
        Some(Cond::assembled(
            if self.known == Some(false) {
                format!("NOT {either}")
            } else {
                either
            },
            args,
        ))
    }
}

/// A text of the shipment's voyage the list filters match exactly. A closed set, as
/// [`DateField`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextField {
    /// The port of lading's UN/LOCODE.
    PolCode,
    /// The inland destination's UN/LOCODE.
    DestinationCode,
    /// The vessel at the port of discharge.
    VesselName,
}

impl TextField {
    fn expr(self) -> &'static str {
        match self {
            TextField::PolCode => "route->>'pol_locode'",
            TextField::DestinationCode => "route->>'destination_locode'",
            TextField::VesselName => "state->>'pod_vessel_name'",
        }
    }
}

/// One of several values of a text, or whether it is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextCond {
    /// Which text.
    pub field: TextField,
    /// Any of these values (exact); empty with `known`.
    pub any_of: Vec<String>,
    /// Known (`Some(true)`) or unknown (`Some(false)`).
    pub known: Option<bool>,
}

impl TextCond {
    /// The condition on a shipment row.
    pub(super) fn on_shipment(&self) -> Option<Cond> {
        let e = self.field.expr();
        match self.known {
            Some(true) => Some(Cond::assembled(format!("{e} IS NOT NULL"), vec![])),
            Some(false) => Some(Cond::assembled(format!("{e} IS NULL"), vec![])),
            None if self.any_of.is_empty() => None,
            None => Some(Cond::assembled(
                format!("{e} IN ({})", vec!["?"; self.any_of.len()].join(", ")),
                self.any_of.iter().map(|v| Arg::Text(v.clone())).collect(),
            )),
        }
    }
}

/// A date the list filters bound: a container milestone or a date of the shipment's voyage.
/// A closed set: each names its own SQL, so no input reaches a statement's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateField {
    /// Marked delivered.
    Delivered,
    /// Discharged at the POD.
    PodDischarged,
    /// The container arrived at the POD.
    PodArrived,
    /// Empty picked up at origin.
    EmptyOut,
    /// Full in at the port of lading.
    PolFullIn,
    /// Loaded at the port of lading.
    PolVesselLoaded,
    /// Departed the port of lading (the container's milestone).
    PolVesselDeparted,
    /// Picked up: full out at the final destination, else at the POD.
    PickedUp,
    /// Empty returned.
    EmptyReturned,
    /// Unloaded from rail inland.
    IndRailUnloaded,
    /// Full out at the inland destination.
    FinalFullOut,
    /// Rail ETA at the inland destination.
    IndEta,
    /// Rail ATA at the inland destination.
    IndAta,
    /// Rail departed from the POD.
    PodRailDeparted,
    /// The record's creation.
    Created,
    /// The voyage's estimated departure from the port of lading.
    PolEtd,
    /// The voyage's actual departure from the port of lading.
    PolAtd,
    /// The voyage's actual arrival at the POD.
    PodAta,
    /// The voyage's arrival at the POD: actual, else estimated.
    Arrival,
    /// The voyage's estimated arrival at the POD.
    PodEta,
}

/// Where a [`DateField`] lives.
pub(super) enum DateAt {
    /// An expression over the container row.
    Container(&'static str),
    /// An expression over the shipment row.
    Shipment(&'static str),
}

impl DateField {
    fn at(self) -> DateAt {
        use DateAt::{Container as C, Shipment as S};
        match self {
            DateField::Delivered => C("CAST(state->'times'->>'delivered_at' AS BIGINT)"),
            DateField::PodDischarged => C("CAST(state->'times'->>'pod_discharged_at' AS BIGINT)"),
            DateField::PodArrived => C("CAST(state->'times'->>'pod_arrived_at' AS BIGINT)"),
            DateField::EmptyOut => C("CAST(state->'times'->>'empty_out_at' AS BIGINT)"),
            DateField::PolFullIn => C("CAST(state->'times'->>'pol_full_in_at' AS BIGINT)"),
            DateField::PolVesselLoaded => {
                C("CAST(state->'times'->>'pol_vessel_loaded_at' AS BIGINT)")
            }
            DateField::PolVesselDeparted => {
                C("CAST(state->'times'->>'pol_vessel_departed_at' AS BIGINT)")
            }
            DateField::PickedUp => C(
                "CAST(COALESCE(state->'times'->>'final_destination_full_out_at', state->'times'->>'pod_full_out_at') AS BIGINT)",
            ),
            DateField::EmptyReturned => C("CAST(state->'times'->>'empty_terminated_at' AS BIGINT)"),
            DateField::IndRailUnloaded => {
                C("CAST(state->'times'->>'ind_rail_unloaded_at' AS BIGINT)")
            }
            DateField::FinalFullOut => {
                C("CAST(state->'times'->>'final_destination_full_out_at' AS BIGINT)")
            }
            DateField::IndEta => C("CAST(state->'times'->>'ind_eta_at' AS BIGINT)"),
            DateField::IndAta => C("CAST(state->'times'->>'ind_ata_at' AS BIGINT)"),
            DateField::PodRailDeparted => {
                C("CAST(state->'times'->>'pod_rail_departed_at' AS BIGINT)")
            }
            DateField::Created => C("created_us"),
            DateField::PolEtd => S("CAST(state->>'pol_etd_us' AS BIGINT)"),
            DateField::PolAtd => S("CAST(state->>'pol_atd_us' AS BIGINT)"),
            DateField::PodAta => S("CAST(state->>'pod_ata_us' AS BIGINT)"),
            DateField::PodEta => S("CAST(state->>'pod_eta_us' AS BIGINT)"),
            DateField::Arrival => {
                S("CAST(COALESCE(state->>'pod_ata_us', state->>'pod_eta_us') AS BIGINT)")
            }
        }
    }

    /// The expression over a shipment row, where the field is the shipment's own.
    pub(super) fn on_shipment(self) -> Option<&'static str> {
        match (self, self.at()) {
            (DateField::Created, _) => Some("created_us"),
            (_, DateAt::Shipment(e)) => Some(e),
            (_, DateAt::Container(_)) => None,
        }
    }
}

/// Bounds on one date, or a test of whether it is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateCond {
    /// Which date.
    pub field: DateField,
    /// From (inclusive).
    pub start_us: Option<i64>,
    /// To (inclusive).
    pub end_us: Option<i64>,
    /// Known (`Some(true)`) or unknown (`Some(false)`).
    pub known: Option<bool>,
}

impl DateCond {
    /// The condition over an expression of the row.
    pub(super) fn cond_on(&self, expr: &str) -> Vec<Cond> {
        let mut out = Vec::new();
        match self.known {
            Some(true) => out.push(Cond::assembled(format!("{expr} IS NOT NULL"), vec![])),
            Some(false) => out.push(Cond::assembled(format!("{expr} IS NULL"), vec![])),
            None => {}
        }
        if let Some(s) = self.start_us {
            out.push(Cond::assembled(format!("{expr} >= ?"), vec![Arg::I64(s)]));
        }
        if let Some(e) = self.end_us {
            out.push(Cond::assembled(format!("{expr} <= ?"), vec![Arg::I64(e)]));
        }
        out
    }

    /// The conditions on a container row (shipment dates through the container's shipment).
    pub(super) fn on_containers(&self, account_id: Uuid) -> Vec<Cond> {
        match self.field.at() {
            DateAt::Container(e) => self.cond_on(e),
            DateAt::Shipment(e) => self
                .cond_on(e)
                .into_iter()
                .map(|c| {
                    let mut args = vec![Arg::Uuid(account_id)];
                    args.extend(c.args);
                    Cond::assembled(
                        format!(
                            "shipment_id IN (SELECT id FROM shipments WHERE account_id = ? AND {})",
                            c.sql
                        ),
                        args,
                    )
                })
                .collect(),
        }
    }
}

/// The conditions of shipment tags (any or all), on a row with a `tags` JSON column.
pub(super) fn tag_conds(tags: &[String], all: bool) -> Vec<Cond> {
    // a JSON array of strings: the tag in quotes, as serialised (both backends quote it so)
    let pattern = |t: &str| {
        let quoted = serde_json::Value::String(t.to_string()).to_string();
        format!("%{}%", quoted.replace(['%', '_'], ""))
    };
    if tags.is_empty() {
        return Vec::new();
    }
    if all {
        tags.iter()
            .map(|t| Cond::new("CAST(tags AS TEXT) LIKE ?", vec![Arg::Text(pattern(t))]))
            .collect()
    } else {
        let ors = vec!["CAST(tags AS TEXT) LIKE ?"; tags.len()].join(" OR ");
        vec![Cond::assembled(
            format!("({ors})"),
            tags.iter().map(|t| Arg::Text(pattern(t))).collect(),
        )]
    }
}

/// The orders the shipment and container lists offer. Cursors in `links` follow the default
/// order only, so the other orders page by page number.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ListSort {
    /// Most recently updated first (the API's order).
    #[default]
    UpdatedDesc,
    /// Least recently updated first.
    UpdatedAsc,
    /// Newest first.
    CreatedDesc,
    /// Oldest first.
    CreatedAsc,
    /// Soonest last free day first, containers without one last (containers).
    LfdAsc,
    /// Latest last free day first, containers without one last (containers).
    LfdDesc,
    /// Soonest estimated arrival at the POD first (the shipment's), those without one last.
    EtaAsc,
    /// Latest estimated arrival at the POD first, those without one last.
    EtaDesc,
}

impl ListSort {
    /// Every order, in the order a form lists them.
    pub const ALL: [ListSort; 8] = [
        ListSort::UpdatedDesc,
        ListSort::UpdatedAsc,
        ListSort::CreatedDesc,
        ListSort::CreatedAsc,
        ListSort::LfdAsc,
        ListSort::LfdDesc,
        ListSort::EtaAsc,
        ListSort::EtaDesc,
    ];

    /// The JSON:API spelling (`-updated_at`, `pickup_lfd`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ListSort::UpdatedDesc => "-updated_at",
            ListSort::UpdatedAsc => "updated_at",
            ListSort::CreatedDesc => "-created_at",
            ListSort::CreatedAsc => "created_at",
            ListSort::LfdAsc => "pickup_lfd",
            ListSort::LfdDesc => "-pickup_lfd",
            ListSort::EtaAsc => "pod_eta_at",
            ListSort::EtaDesc => "-pod_eta_at",
        }
    }

    /// Parses the JSON:API spelling.
    pub fn parse(s: &str) -> Option<ListSort> {
        ListSort::ALL.into_iter().find(|o| o.as_str() == s)
    }

    /// Whether the order applies to containers only.
    pub fn containers_only(self) -> bool {
        matches!(self, ListSort::LfdAsc | ListSort::LfdDesc)
    }

    /// The ordering expression over a shipment row and whether it ascends. Missing dates
    /// sort after every date in both directions.
    pub(super) fn on_shipments(self) -> (&'static str, bool) {
        match self {
            ListSort::EtaAsc => (
                "COALESCE(CAST(state->>'pod_eta_us' AS BIGINT), 9223372036854775807)",
                true,
            ),
            ListSort::EtaDesc => (
                "COALESCE(CAST(state->>'pod_eta_us' AS BIGINT), -9223372036854775807)",
                false,
            ),
            o if o.containers_only() => ListSort::UpdatedDesc.spec(),
            o => o.spec(),
        }
    }

    /// The ordering expression over a container row (the arrival is its shipment's, its
    /// subquery naming the account as `{account}`) and whether it ascends.
    pub(super) fn on_containers(self) -> (&'static str, bool) {
        match self {
            ListSort::EtaAsc => (
                "COALESCE((SELECT CAST(s.state->>'pod_eta_us' AS BIGINT) FROM shipments s WHERE s.account_id = {account} AND s.id = containers.shipment_id), 9223372036854775807)",
                true,
            ),
            ListSort::EtaDesc => (
                "COALESCE((SELECT CAST(s.state->>'pod_eta_us' AS BIGINT) FROM shipments s WHERE s.account_id = {account} AND s.id = containers.shipment_id), -9223372036854775807)",
                false,
            ),
            o => o.spec(),
        }
    }

    /// The ordering expression of the orders on the row's own columns and whether it ascends.
    /// Missing last free days sort after every date in both directions.
    fn spec(self) -> (&'static str, bool) {
        match self {
            ListSort::UpdatedDesc => ("updated_us", false),
            ListSort::UpdatedAsc => ("updated_us", true),
            ListSort::CreatedDesc => ("created_us", false),
            ListSort::CreatedAsc => ("created_us", true),
            ListSort::LfdAsc => ("COALESCE(pickup_lfd_us, 9223372036854775807)", true),
            ListSort::LfdDesc => ("COALESCE(pickup_lfd_us, -9223372036854775807)", false),
            // the shipment's: see `on_shipments` and `on_containers`
            ListSort::EtaAsc | ListSort::EtaDesc => ListSort::UpdatedDesc.spec(),
        }
    }
}

pub(super) fn like(q: &str) -> String {
    format!("%{}%", q.to_ascii_uppercase().replace(['%', '_'], ""))
}
