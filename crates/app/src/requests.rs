//! Listing tracking requests: `GET /v2/tracking_requests`, the console's requests table and
//! MCP's `list_tracking_requests` ask the same question ([`ListRequests`]).

use boxtrack_core::paging::Page;
use boxtrack_core::requests::{RequestType, Status};
use boxtrack_store::tracking::{self, RequestFilter, TrackingRequestRow};

pub use boxtrack_store::tracking::RequestExtras;
use boxtrack_store::{Db, list::Listed};
use schemars::JsonSchema;
use serde::Deserialize;
use uuid::Uuid;

use crate::AppError;
use crate::ctx::Ctx;
use crate::fields::{One, Range, Text, Word, given};

/// Which of the account's tracking requests (newest first).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ListRequests {
    /// The request number or a ref number (part of it)
    pub q: Option<Text>,
    /// The filters; all of them hold.
    #[serde(default)]
    pub filter: RequestsFilter,
}

/// The filters of the tracking request list.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct RequestsFilter {
    /// Exact request number
    pub request_number: Option<Text>,
    /// The request's status
    pub status: Option<One<Status>>,
    /// Carrier SCAC
    pub scac: Option<Text>,
    /// What the number is: bill_of_lading, booking_number or container
    pub request_type: Option<One<RequestType>>,
    /// Created
    #[serde(default)]
    pub created_at: Range,
    /// Last updated
    #[serde(default)]
    pub updated_at: Range,
}

impl Word for Status {
    const ALL: &'static [Self] = &Status::ALL;
    fn word(self) -> &'static str {
        self.as_str()
    }
}

impl Word for RequestType {
    const ALL: &'static [Self] = &[
        RequestType::BillOfLading,
        RequestType::BookingNumber,
        RequestType::Container,
    ];
    fn word(self) -> &'static str {
        self.as_str()
    }
}

impl ListRequests {
    /// The store's filter for this question.
    pub fn filter(&self) -> RequestFilter {
        let f = &self.filter;
        RequestFilter {
            q: given(&self.q),
            request_number: given(&f.request_number).map(|n| n.to_ascii_uppercase()),
            status: f.status.map(|s| s.0.as_str().to_string()),
            scac: given(&f.scac).map(|s| s.to_ascii_uppercase()),
            request_type: f.request_type.map(|t| t.0.as_str().to_string()),
            created_start_us: f.created_at.start_us(),
            created_end_us: f.created_at.end_us(),
            updated_start_us: f.updated_at.start_us(),
            updated_end_us: f.updated_at.end_us(),
        }
    }
}

/// Lists the account's tracking requests as asked.
pub async fn list(
    db: &Db,
    account_id: Uuid,
    asked: &ListRequests,
    page: &Page,
) -> Result<Listed<TrackingRequestRow>, AppError> {
    Ok(tracking::list_requests(db, account_id, &asked.filter(), page).await?)
}

/// One of the account's tracking requests.
pub async fn get(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
) -> Result<Option<TrackingRequestRow>, AppError> {
    Ok(tracking::get_request(&ctx.db, account_id, id).await?)
}

/// Replaces the ref numbers and/or shipment tags of one of the account's tracking requests
/// (what is not given stays); the request as it is now.
pub async fn update(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
    ref_numbers: Option<Vec<String>>,
    tags: Option<Vec<String>>,
) -> Result<TrackingRequestRow, AppError> {
    Ok(tracking::update_request(&ctx.db, account_id, id, ref_numbers, tags).await?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::{from_pairs, parse};

    #[test]
    fn the_query_names_fill_the_question() {
        let asked: ListRequests = parse(from_pairs([
            ("q", "po 7"),
            ("filter[request_number]", "maeu1"),
            ("filter[status]", "awaiting_manifest"),
            ("filter[scac]", "maeu"),
            ("filter[request_type]", "bill_of_lading"),
            ("filter[created_at][start]", "2026-01-01T00:00:00Z"),
        ]))
        .unwrap_or_default();
        let f = asked.filter();
        assert_eq!(f.q.as_deref(), Some("po 7"));
        assert_eq!(f.request_number.as_deref(), Some("MAEU1"));
        assert_eq!(f.status.as_deref(), Some("awaiting_manifest"));
        assert_eq!(f.scac.as_deref(), Some("MAEU"));
        assert_eq!(f.request_type.as_deref(), Some("bill_of_lading"));
        assert!(f.created_start_us.is_some() && f.updated_end_us.is_none());
        for (name, value) in [
            ("filter[status]", "pending "),
            ("filter[request_type]", "bol"),
        ] {
            assert!(
                matches!(parse::<ListRequests>(from_pairs([(name, value)])), Err(AppError::Invalid { param, .. }) if param == name),
                "{name}"
            );
        }
    }
}
