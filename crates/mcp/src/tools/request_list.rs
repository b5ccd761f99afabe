//! `list_tracking_requests`: the account's tracking requests, through the use case the REST
//! list and the console's table run ([`boxtrack_app::requests`]), with the reference's names
//! for its arguments.

use boxtrack_api::state::AppState;
use boxtrack_app::fields::{One, Text};
use boxtrack_app::requests::{ListRequests, RequestsFilter};
use boxtrack_core::requests::{RequestType, Status as RequestStatus};
use boxtrack_store::accounts::Account;
use boxtrack_views::jsonapi::At;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
use uuid::Uuid;

use super::lists::{Args, ListAnswer, answer, app_unavailable};

/// Tracking request statuses `list_tracking_requests` filters by (`succeeded` is the
/// reference's word for `created`).
pub const REQUEST_STATUSES: [&str; 6] = [
    "pending",
    "awaiting_manifest",
    "created",
    "succeeded",
    "failed",
    "tracking_stopped",
];

/// A tracking request, as a list shows it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RequestRow {
    /// Tracking request id.
    pub id: Uuid,
    /// The number tracked.
    pub request_number: String,
    /// `bill_of_lading`, `booking_number` or `container`.
    pub request_type: String,
    /// Its status.
    pub status: String,
    /// The carrier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scac: Option<String>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_reason: Option<String>,
    /// The shipment it created.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shipment_id: Option<Uuid>,
    /// Created.
    pub created_at: At,
    /// Last change.
    pub updated_at: At,
}

/// `list_tracking_requests`.
pub(super) async fn requests(
    state: &AppState,
    account: &Account,
    args: &Map<String, Value>,
) -> Result<ListAnswer<RequestRow>, String> {
    let mut a = Args::of(args);
    let page = a.page()?;
    let status = match a.text(&["status"]) {
        None => None,
        // the reference's word for created
        Some(s) if s == "succeeded" => Some(RequestStatus::Created),
        Some(s) => match RequestStatus::parse(&s) {
            Some(st) => Some(st),
            None => {
                return Err(format!(
                    "status must be one of {}, not {s:?}.",
                    REQUEST_STATUSES.join(", ")
                ));
            }
        },
    };
    let request_type = match a.text(&["request_type"]) {
        None => None,
        Some(t) => Some(RequestType::parse(&t).ok_or_else(|| {
            format!("request_type must be bill_of_lading, booking_number or container, not {t:?}.")
        })?),
    };
    let mut asked = ListRequests {
        q: None,
        filter: RequestsFilter {
            request_number: a.text(&["request_number"]).map(Text),
            status: status.map(One),
            scac: a.text(&["scac"]).map(Text),
            request_type: request_type.map(One),
            ..Default::default()
        },
    };
    // the older `filters` object of raw JSON:API keys: read as the REST query is
    if let Some(raw) = args.get("filters").and_then(Value::as_object) {
        const RAW: [&str; 3] = ["filter[status]", "filter[scac]", "filter[request_number]"];
        if let Some(other) = raw.keys().find(|k| !RAW.contains(&k.as_str())) {
            return Err(format!(
                "filters has no {other}; use filter[status], filter[scac] or filter[request_number]."
            ));
        }
        let pairs: Vec<(&str, &str)> = raw
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str().unwrap_or_default().trim()))
            .collect();
        let given: ListRequests =
            boxtrack_app::query::parse(boxtrack_app::query::from_pairs(pairs))
                .map_err(app_unavailable)?;
        let (f, g) = (&mut asked.filter, given.filter);
        f.status = g.status.or(f.status);
        f.scac = g.scac.or(f.scac.take());
        f.request_number = g.request_number.or(f.request_number.take());
    }
    let listed = boxtrack_app::requests::list(&state.db, account.id, &asked, &page)
        .await
        .map_err(app_unavailable)?;
    let items = listed
        .rows
        .iter()
        .map(|r| RequestRow {
            id: r.id,
            request_number: r.request_number.clone(),
            request_type: r.request_type.clone(),
            status: r.status.clone(),
            scac: r.scac.clone(),
            failed_reason: r.failed_reason.clone(),
            shipment_id: r.shipment_id,
            created_at: At(r.created_us),
            updated_at: At(r.updated_us),
        })
        .collect();
    Ok(answer(items, &listed, a.applied, None, &page))
}
