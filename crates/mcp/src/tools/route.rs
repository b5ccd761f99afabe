//! `get_container_route` and `get_supported_shipping_lines` on the read layer. The route is
//! the journey the map draws (`core::routemap::stops`: the port of lading, every
//! transshipment port in the order the container reached it, the port of discharge), plus the
//! inland destination by rail, in the reference MCP server's shape.

use super::error::ToolError;
use boxtrack_app::model::Account;
use boxtrack_app::{containers, journey};
use boxtrack_core::routemap::{self, Stop};
use boxtrack_views::jsonapi::At;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use boxtrack_core::plan::Entitlement;
use boxtrack_core::{carriers, reference};
use boxtrack_http::Front;

use super::container::ContainerId;
use super::tool::{Cx, Tool};

/// `get_supported_shipping_lines`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinesInput {
    /// Name or SCAC filter
    pub search: Option<String>,
}

/// `get_supported_shipping_lines`.
pub struct GetSupportedShippingLines;

impl Tool for GetSupportedShippingLines {
    const GUIDE: super::contract::Guide = super::guides::LINES;
    type Input = LinesInput;
    type Output = LinesAnswer;
    const NAME: &'static str = "get_supported_shipping_lines";
    const TITLE: &'static str = "Get Supported Shipping Lines";
    const DESCRIPTION: &'static str = "Shipping lines boxtrack tracks, filtered by name or SCAC.";

    async fn call(_: &Cx<'_>, input: LinesInput) -> Result<LinesAnswer, ToolError> {
        Ok(lines(input.search.as_deref()))
    }
}

/// `get_container_route`.
pub struct GetContainerRoute;

impl Tool for GetContainerRoute {
    const GUIDE: super::contract::Guide = super::guides::ROUTE;
    type Input = ContainerId;
    type Output = RouteOrNot;
    const NAME: &'static str = "get_container_route";
    const TITLE: &'static str = "Get Container Route";
    const DESCRIPTION: &'static str = "The container's route, port by port, with arrivals and departures (needs the routing entitlement).";

    async fn call(cx: &Cx<'_>, input: ContainerId) -> Result<RouteOrNot, ToolError> {
        if !cx.account.has(Entitlement::Routing) {
            // a normal answer, as the reference gives it: nothing of the route leaks
            return Ok(RouteOrNot::NotEnabled(NotEnabled {
                error: "FeatureNotEnabled",
                message: "Route tracking is not enabled for this account (entitlement `routing`); the operator can enable it.".into(),
                alternative: "get_container_transport_events shows the container's movements, and get_shipment_details its ports with their ETAs and ATAs.".into(),
            }));
        }
        get(cx.state, cx.account, input.id)
            .await
            .map(RouteOrNot::Route)
    }
}

/// A container's route, or why the account cannot see it.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum RouteOrNot {
    /// The route.
    Route(RouteAnswer),
    /// The account lacks the routing entitlement.
    NotEnabled(NotEnabled),
}

/// A feature the account lacks, said as a normal answer with what to do instead.
#[derive(Debug, Serialize, JsonSchema)]
pub struct NotEnabled {
    /// `FeatureNotEnabled`.
    #[schemars(extend("const" = "FeatureNotEnabled"))]
    pub error: &'static str,
    /// What is not enabled.
    pub message: String,
    /// Which tools answer instead.
    pub alternative: String,
}

/// A port of the route.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RoutePort {
    /// UN/LOCODE.
    pub code: String,
    /// Name.
    pub name: Option<String>,
    /// City (the port's name in the reference data).
    pub city: Option<String>,
    /// ISO 3166 country code.
    pub country_code: Option<String>,
}

/// A vessel.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RouteVessel {
    /// Name.
    pub name: Option<String>,
    /// IMO number.
    pub imo: Option<String>,
}

/// How the container reaches a port.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Inbound {
    /// `vessel` or `rail` (none at the port of lading).
    pub mode: Option<String>,
    /// The carrier's SCAC.
    pub carrier_scac: Option<String>,
    /// Estimated arrival.
    pub eta: Option<At>,
    /// Arrival.
    pub ata: Option<At>,
    /// The vessel that brings it.
    pub vessel: Option<RouteVessel>,
}

/// How the container leaves a port.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Outbound {
    /// `vessel` or `rail` (none at the end of the route).
    pub mode: Option<String>,
    /// The carrier's SCAC.
    pub carrier_scac: Option<String>,
    /// Estimated departure.
    pub etd: Option<At>,
    /// Departure.
    pub atd: Option<At>,
    /// The vessel that takes it.
    pub vessel: Option<RouteVessel>,
}

/// One place of the route.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RouteLocation {
    /// The port (or inland destination).
    pub port: Option<RoutePort>,
    /// Arriving there.
    pub inbound: Inbound,
    /// Leaving it.
    pub outbound: Outbound,
}

/// `get_container_route`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RouteAnswer {
    /// The route's id (its shipment's).
    pub route_id: Uuid,
    /// How many places.
    pub total_legs: usize,
    /// The places in order.
    pub route_locations: Vec<RouteLocation>,
    /// When tracking began.
    pub created_at: At,
    /// Last change.
    pub updated_at: At,
}

fn port(locode: &str) -> RoutePort {
    let p = reference::port(locode);
    RoutePort {
        code: locode.to_string(),
        name: p.and_then(|p| p.name.clone()),
        city: p.and_then(|p| p.name.clone()),
        country_code: p.map(|p| p.country_code.clone()),
    }
}

fn vessel(v: Option<&routemap::Vessel>) -> Option<RouteVessel> {
    v.map(|v| RouteVessel {
        name: v.name.clone(),
        imo: Some(v.imo.clone()),
    })
}

/// `get_container_route`.
pub(super) async fn get(
    state: &Front,
    account: &Account,
    id: Uuid,
) -> Result<RouteAnswer, ToolError> {
    let unavailable = ToolError::from_app("route");
    let missing = || {
        format!(
            "No route found for container id {id}. Use search_container to find the container's id, or get_container for its basic details."
        )
    };
    let read = containers::with_events(&state.ctx.db, account.id, id)
        .await
        .map_err(unavailable)?
        .ok_or_else(missing)?;
    let (c, events) = (read.container, read.events);
    let s = read.shipment.ok_or_else(missing)?;
    let (route, st) = (&s.route, &s.state);
    let stops = journey::stops_of(&s, &events);
    let inland = route.inland();
    let ct = &c.state.times;
    let line = Some(s.scac.clone());
    let rail = c.state.pod_rail_carrier_scac.clone();
    let mut locations: Vec<RouteLocation> = (0..stops.len())
        .map(|i| location(&stops, i, inland, line.as_deref(), rail.as_deref()))
        .collect();
    if inland && let Some(dest) = route.destination_locode.as_deref() {
        use boxtrack_core::tracking::rules::t;
        locations.push(RouteLocation {
            port: Some(port(dest)),
            inbound: Inbound {
                mode: Some("rail".into()),
                carrier_scac: rail,
                eta: At::opt(ct.get(&t::IND_ETA).copied().or(st.destination_eta_us)),
                ata: At::opt(ct.get(&t::IND_ATA).copied().or(st.destination_ata_us)),
                vessel: None,
            },
            outbound: Outbound {
                mode: None,
                carrier_scac: None,
                etd: None,
                atd: None,
                vessel: None,
            },
        });
    }
    Ok(RouteAnswer {
        route_id: s.id,
        total_legs: locations.len(),
        route_locations: locations,
        created_at: At(s.created_us),
        updated_at: At(s.updated_us),
    })
}

/// The `i`th port of the route: how the container came (by the line's vessel, after the
/// first) and how it left (by vessel to the next port; from the last, by rail when bound
/// inland).
fn location(
    stops: &[Stop],
    i: usize,
    inland: bool,
    line: Option<&str>,
    rail: Option<&str>,
) -> RouteLocation {
    let stop = &stops[i];
    let by_sea_out = i + 1 < stops.len();
    let came = i > 0;
    RouteLocation {
        port: Some(port(&stop.locode)),
        inbound: Inbound {
            mode: came.then(|| "vessel".to_string()),
            carrier_scac: line.filter(|_| came).map(str::to_string),
            eta: At::opt(stop.eta_us),
            ata: At::opt(stop.ata_us),
            vessel: if came {
                vessel(stops[i - 1].outbound.as_ref())
            } else {
                None
            },
        },
        outbound: Outbound {
            mode: if by_sea_out {
                Some("vessel".into())
            } else if inland {
                Some("rail".into())
            } else {
                None
            },
            carrier_scac: if by_sea_out {
                line.map(str::to_string)
            } else if inland {
                rail.map(str::to_string)
            } else {
                None
            },
            etd: At::opt(stop.etd_us),
            atd: At::opt(stop.atd_us),
            vessel: if by_sea_out {
                vessel(stop.outbound.as_ref())
            } else {
                None
            },
        },
    }
}

/// A shipping line.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LineBrief {
    /// SCAC (for track_container).
    pub scac: String,
    /// Name.
    pub name: String,
    /// Short name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub short_name: Option<String>,
    /// Bill-of-lading prefix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bol_prefix: Option<String>,
    /// Other SCACs it uses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// `get_supported_shipping_lines`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LinesAnswer {
    /// How many.
    pub total_lines: usize,
    /// The lines, by name.
    pub shipping_lines: Vec<LineBrief>,
}

/// `get_supported_shipping_lines`: the lines boxtrack tracks, those whose SCAC, name or short
/// name contains `search` (any case), by name.
pub fn lines(search: Option<&str>) -> LinesAnswer {
    let needle = search.map(|s| s.trim().to_lowercase()).unwrap_or_default();
    let mut out: Vec<LineBrief> = carriers::shipping_lines()
        .iter()
        .filter(|l| l.supported && l.scac != carriers::SANDBOX_SCAC)
        .filter(|l| {
            needle.is_empty()
                || [&l.scac, &l.name, &l.short_name]
                    .iter()
                    .any(|v| v.to_lowercase().contains(&needle))
        })
        .map(|l| LineBrief {
            scac: l.scac.clone(),
            name: l.name.clone(),
            short_name: Some(l.short_name.clone()).filter(|s| !s.is_empty()),
            bol_prefix: l.bill_of_lading_prefix.clone(),
            notes: (!l.alternative_scacs.is_empty())
                .then(|| format!("Also uses SCAC {}", l.alternative_scacs.join(", "))),
        })
        .collect();
    out.sort_by_key(|l| l.name.to_lowercase());
    LinesAnswer {
        total_lines: out.len(),
        shipping_lines: out,
    }
}

#[cfg(test)]
mod tests {
    use super::lines;

    #[test]
    fn lines_are_found_by_scac_or_name_and_sorted() {
        let all = lines(None);
        assert_eq!(all.total_lines, all.shipping_lines.len());
        assert!(all.shipping_lines.iter().all(|l| l.scac != "TEST"));
        let names: Vec<String> = all
            .shipping_lines
            .iter()
            .map(|l| l.name.to_lowercase())
            .collect();
        assert!(names.windows(2).all(|w| w[0] <= w[1]));
        assert!(
            lines(Some("maersk"))
                .shipping_lines
                .iter()
                .any(|l| l.scac == "MAEU")
        );
        assert!(
            lines(Some("mscu"))
                .shipping_lines
                .iter()
                .any(|l| l.scac == "MSCU")
        );
        assert_eq!(lines(Some("no such line at all")).total_lines, 0);
    }
}
