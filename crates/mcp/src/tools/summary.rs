//! `summarize_containers` on the read layer: the containers `list_containers` would list
//! (the same filters), counted by one dimension, for "how many" and "break down by"
//! questions. The grouping keys are computed by [`key_of`].

use super::error::ToolError;
use std::collections::BTreeMap;

use boxtrack_app::containers::{self, ListContainers};
use boxtrack_app::model::Account;
use boxtrack_app::model::{ContainerRow, Keyed, ShipmentRow};
use boxtrack_core::paging::{Cursor, MAX_SIZE, Page};
use boxtrack_core::tracking::assess;
use boxtrack_core::tracking::rules::active_holds;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use boxtrack_core::reference;
use boxtrack_core::tracking::rules::t::POD_ARRIVED;
use boxtrack_http::Front;

use super::filters::{Applied, ContainerFilters, container_filter, merged};
use super::tool::{Cx, Tool};

/// `summarize_containers`'s arguments: `list_containers`'s filters, a dimension and a bound.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SummaryInput {
    /// The filters.
    #[serde(flatten)]
    pub filters: ContainerFilters,
    /// The same filters, as the reference's clients send them; a filter goes here or at the top level, never both
    #[serde(default)]
    pub advanced_filters: Option<ContainerFilters>,
    /// Dimension to count by. Terminals and ports are labeled by name, shipping lines by SCAC; hold_type counts each active hold (a container with two holds counts twice); dates are the port's calendar days
    pub group_by: GroupBy,
    /// Most containers to count (default 3000, at most 6000); the answer says when the set was larger
    #[schemars(range(min = 1))]
    #[serde(default)]
    pub max_rows: Option<u64>,
}

/// The dimensions containers are counted by.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    /// The terminal at the port of discharge.
    PodTerminal,
    /// The container's status.
    CurrentStatus,
    /// The shipping line.
    ShippingLine,
    /// The port of discharge.
    PortOfDischarge,
    /// Each active hold.
    HoldType,
    /// The last free day, as a date.
    PickupLfdDate,
    /// The arrival at the port of discharge, as a date.
    PodArrivalDate,
}

impl GroupBy {
    /// Its word.
    pub fn word(self) -> &'static str {
        match self {
            GroupBy::PodTerminal => GROUP_BY[0],
            GroupBy::CurrentStatus => GROUP_BY[1],
            GroupBy::ShippingLine => GROUP_BY[2],
            GroupBy::PortOfDischarge => GROUP_BY[3],
            GroupBy::HoldType => GROUP_BY[4],
            GroupBy::PickupLfdDate => GROUP_BY[5],
            GroupBy::PodArrivalDate => GROUP_BY[6],
        }
    }
}

/// `summarize_containers`.
pub struct SummarizeContainers;

impl Tool for SummarizeContainers {
    const GUIDE: super::contract::Guide = super::guides::SUMMARIZE;
    type Input = SummaryInput;
    type Output = SummaryAnswer;
    const NAME: &'static str = "summarize_containers";
    const TITLE: &'static str = "Summarize Containers";
    const DESCRIPTION: &'static str = "Count containers grouped by POD terminal, status, shipping line, port of discharge, hold type, LFD date or arrival date, with the same filters as list_containers. Use it for \"how many\" and \"break down by\" questions; use list_containers for \"which ones\". Like the dashboard, only actively tracked containers are counted unless include_stopped_tracking is true. Report the total, and say so when truncated is true.";

    async fn call(cx: &Cx<'_>, input: SummaryInput) -> Result<SummaryAnswer, ToolError> {
        get(cx.state, cx.account, input).await
    }
}

/// The dimensions containers are counted by.
pub const GROUP_BY: [&str; 7] = [
    "pod_terminal",
    "current_status",
    "shipping_line",
    "port_of_discharge",
    "hold_type",
    "pickup_lfd_date",
    "pod_arrival_date",
];

/// Groups shown; the rest are counted in `other_groups`.
const MAX_GROUPS: usize = 50;
/// Containers counted unless `max_rows` says otherwise.
pub const DEFAULT_MAX_ROWS: usize = 3000;
/// The most `max_rows` may be.
pub const MAX_ROWS: usize = 6000;

/// One group.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Group {
    /// The key (a FIRMS code, status, SCAC, UN/LOCODE, hold name or date).
    pub key: String,
    /// How people read it (a terminal's or port's name, the key otherwise).
    pub label: String,
    /// Containers in it.
    pub count: usize,
}

/// `summarize_containers`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SummaryAnswer {
    /// Containers matching the filters (a lower bound past 10,000).
    pub total: u64,
    /// Containers counted.
    pub counted: usize,
    /// Whether fewer were counted than match.
    pub truncated: bool,
    /// The dimension.
    pub group_by: String,
    /// The groups, largest first (then by key), at most 50.
    pub groups: Vec<Group>,
    /// Groups beyond those shown.
    pub other_groups: usize,
    /// The filters that applied, with the defaults added (`actively_tracked`).
    pub applied_filters: BTreeMap<String, Value>,
}

/// The keys (and labels) a container counts under for `group_by`: one, or for `hold_type`
/// one per active hold (`no hold` without). Dates are the container's port's calendar days.
pub fn key_of(group_by: &str, c: &ContainerRow, s: Option<&ShipmentRow>) -> Vec<(String, String)> {
    let st = &c.state;
    let route = s.map(|s| &s.route);
    let zone = route.and_then(|r| r.pod_timezone.as_deref());
    let same = |k: String| vec![(k.clone(), k)];
    match group_by {
        "pod_terminal" => match st.pod_terminal.as_deref() {
            Some(f) => vec![(
                f.to_string(),
                reference::terminal(f).map_or_else(|| f.to_string(), |t| t.name.clone()),
            )],
            None => same("No POD terminal".into()),
        },
        "current_status" => same(c.current_status.clone()),
        "shipping_line" => same(s.map_or_else(|| "unknown".to_string(), |s| s.scac.clone())),
        "port_of_discharge" => match route.and_then(|r| r.pod_locode.clone()) {
            Some(l) => {
                let label = route
                    .and_then(|r| r.pod_name.clone())
                    .unwrap_or_else(|| l.clone());
                vec![(l, label)]
            }
            None => same("No port of discharge".into()),
        },
        "hold_type" => {
            let holds: Vec<(String, String)> = active_holds(&st.holds)
                .map(|h| (h.name.clone(), h.name.clone()))
                .collect();
            if holds.is_empty() {
                same("no hold".into())
            } else {
                holds
            }
        }
        "pickup_lfd_date" => same(
            c.pickup_lfd_us
                .and_then(|t| assess::local_date(t, zone))
                .unwrap_or_else(|| "no LFD".into()),
        ),
        "pod_arrival_date" => same(
            st.times
                .get(&POD_ARRIVED)
                .copied()
                .or_else(|| s.and_then(|s| s.state.pod_ata_us.or(s.state.pod_eta_us)))
                .and_then(|t| assess::local_date(t, zone))
                .unwrap_or_else(|| "no arrival date".into()),
        ),
        _ => same("unknown".into()),
    }
}

/// `summarize_containers`.
async fn get(
    state: &Front,
    account: &Account,
    input: SummaryInput,
) -> Result<SummaryAnswer, ToolError> {
    let group_by = input.group_by.word().to_string();
    let max_rows = input.max_rows.map_or(DEFAULT_MAX_ROWS, |n| {
        usize::try_from(n).unwrap_or(MAX_ROWS).clamp(1, MAX_ROWS)
    });
    let f = merged(&input.filters, input.advanced_filters.as_ref())?;
    let mut a = Applied::default();
    let asked = ListContainers {
        filter: container_filter(&f, &mut a, state.ctx.now_us())?,
        ..ListContainers::default()
    };
    let unavailable = ToolError::from_app("containers");
    let mut counts: BTreeMap<String, (String, usize)> = BTreeMap::new();
    let (mut counted, mut total) = (0usize, 0u64);
    let mut cursor: Option<Cursor> = None;
    // one database for every page counted (a replica, or the primary)
    let db = state.ctx.read_db(account.id);
    let more = loop {
        let found = containers::list(
            db,
            account.id,
            &asked,
            &Page {
                number: 1,
                size: MAX_SIZE,
                cursor,
            },
        )
        .await
        .map_err(unavailable)?;
        let (listed, shipments) = (found.listed, found.shipments);
        if cursor.is_none() {
            total = listed.total;
        }
        let room = max_rows - counted;
        let rows: Vec<&ContainerRow> = listed.rows.iter().take(room).collect();
        for c in &rows {
            for (key, label) in key_of(&group_by, c, shipments.get(&c.shipment_id)) {
                counts.entry(key).or_insert((label, 0)).1 += 1;
            }
        }
        counted += rows.len();
        match listed.rows.last() {
            Some(last) if listed.has_next && counted < max_rows => {
                cursor = Some(Cursor::After(last.key()));
            }
            _ => break listed.has_next || rows.len() < listed.rows.len(),
        }
    };
    let mut groups: Vec<Group> = counts
        .into_iter()
        .map(|(key, (label, count))| Group { key, label, count })
        .collect();
    groups.sort_by(|x, y| y.count.cmp(&x.count).then_with(|| x.key.cmp(&y.key)));
    let other_groups = groups.len().saturating_sub(MAX_GROUPS);
    groups.truncate(MAX_GROUPS);
    Ok(SummaryAnswer {
        total: total.max(counted as u64),
        counted,
        truncated: more || (counted as u64) < total,
        group_by,
        groups,
        other_groups,
        applied_filters: a.0,
    })
}
