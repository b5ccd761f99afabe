//! `list_tracking_requests`: the account's tracking requests, through the use case the REST
//! list and the console's table run ([`boxtrack_app::requests`]), with the reference's names
//! for its arguments.

use super::error::ToolError;
use boxtrack_app::fields::{One, Text};
use boxtrack_app::model::Account;
use boxtrack_app::query;
use boxtrack_app::requests::{self, ListRequests, RequestsFilter};
use boxtrack_core::requests::{RequestType, Status as RequestStatus};
use boxtrack_http::Front;
use boxtrack_views::jsonapi::At;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::filters::{Applied, Paging};
use super::lists::{ListAnswer, answer};
use super::tool::{Cx, Tool};

/// `list_tracking_requests`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RequestsInput {
    /// One tracking request number
    #[schemars(length(max = 64))]
    #[serde(default)]
    pub request_number: Option<String>,
    /// The request's status (succeeded is created)
    #[serde(default)]
    pub status: Option<RequestStatusArg>,
    /// The carrier's SCAC
    #[serde(default)]
    pub scac: Option<String>,
    /// The kind of number: bill_of_lading, booking_number or container
    #[serde(default)]
    pub request_type: Option<RequestTypeArg>,
    /// Older spelling: filter[status], filter[scac], filter[request_number]
    #[serde(default)]
    pub filters: Option<std::collections::BTreeMap<String, String>>,
    /// The page.
    #[serde(flatten)]
    pub paging: Paging,
}

/// A tracking request's status as the tool takes it.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RequestStatusArg {
    /// Waiting for the carrier.
    Pending,
    /// The carrier has not published the manifest yet.
    AwaitingManifest,
    /// Tracking.
    Created,
    /// The reference's word for created.
    Succeeded,
    /// Failed.
    Failed,
    /// Stopped.
    TrackingStopped,
}

impl RequestStatusArg {
    /// The status it means.
    fn status(self) -> RequestStatus {
        match self {
            RequestStatusArg::Pending => RequestStatus::Pending,
            RequestStatusArg::AwaitingManifest => RequestStatus::AwaitingManifest,
            RequestStatusArg::Created | RequestStatusArg::Succeeded => RequestStatus::Created,
            RequestStatusArg::Failed => RequestStatus::Failed,
            RequestStatusArg::TrackingStopped => RequestStatus::TrackingStopped,
        }
    }
}

/// The kind of number a request tracks, as the tool takes it.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RequestTypeArg {
    /// A bill of lading.
    BillOfLading,
    /// A booking number.
    BookingNumber,
    /// A container number.
    Container,
}

impl RequestTypeArg {
    /// The kind it means.
    fn kind(self) -> RequestType {
        match self {
            RequestTypeArg::BillOfLading => RequestType::BillOfLading,
            RequestTypeArg::BookingNumber => RequestType::BookingNumber,
            RequestTypeArg::Container => RequestType::Container,
        }
    }
}

/// `list_tracking_requests`.
pub struct ListTrackingRequests;

impl Tool for ListTrackingRequests {
    const GUIDE: super::contract::Guide = super::guides::REQUESTS;

    fn contract(output: &Self::Output) -> super::contract::ResponseContract {
        let columns = &["requestNumber", "requestType", "status", "failedReason"];
        super::contract::list_contract(&Self::GUIDE, output.facts("tracking requests", columns))
    }
    type Input = RequestsInput;
    type Output = ListAnswer<RequestRow>;
    const NAME: &'static str = "list_tracking_requests";
    const TITLE: &'static str = "List Tracking Requests";
    const DESCRIPTION: &'static str = "Return one requested page of tracking requests (at most 25), newest first, optionally filtered by request number, status, carrier or kind of number. For created requests, use search_container to find the tracked containers and shipments.";

    async fn call(cx: &Cx<'_>, input: RequestsInput) -> Result<Self::Output, ToolError> {
        requests(cx.state, cx.account, input).await
    }
}

/// A tracking request, as a list shows it (keys in the reference's camelCase).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
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
async fn requests(
    state: &Front,
    account: &Account,
    input: RequestsInput,
) -> Result<ListAnswer<RequestRow>, ToolError> {
    let mut a = Applied::default();
    let page = input.paging.page()?;
    if let Some(s) = input.status {
        a.note("status", &s);
    }
    if let Some(t) = input.request_type {
        a.note("request_type", &t);
    }
    let mut asked = ListRequests {
        q: None,
        filter: RequestsFilter {
            request_number: a.text("request_number", &[&input.request_number]).map(Text),
            status: input.status.map(|s| One(s.status())),
            scac: a.text("scac", &[&input.scac]).map(Text),
            request_type: input.request_type.map(|t| One(t.kind())),
            ..Default::default()
        },
    };
    // the older `filters` object of raw JSON:API keys: read as the REST query is
    if let Some(raw) = &input.filters {
        const RAW: [&str; 3] = ["filter[status]", "filter[scac]", "filter[request_number]"];
        if let Some(other) = raw.keys().find(|k| !RAW.contains(&k.as_str())) {
            return Err(format!(
                "filters has no {other}; use filter[status], filter[scac] or filter[request_number]."
            ).into());
        }
        let pairs: Vec<(&str, &str)> = raw.iter().map(|(k, v)| (k.as_str(), v.trim())).collect();
        let given: ListRequests =
            query::parse(query::from_pairs(pairs)).map_err(ToolError::from)?;
        let (f, g) = (&mut asked.filter, given.filter);
        f.status = g.status.or(f.status);
        f.scac = g.scac.or(f.scac.take());
        f.request_number = g.request_number.or(f.request_number.take());
    }
    let listed = requests::list(state.ctx.read_db(account.id), account.id, &asked, &page)
        .await
        .map_err(ToolError::from)?;
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
    Ok(answer(items, &listed, a.0, None, &page))
}
