//! The `tracking_request` resource.

use boxtrack_store::tracking::TrackingRequestRow;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::jsonapi::{At, Kind, Resource, ToOne};

/// The `tracking_request` type.
pub struct TrackingRequest;

impl Kind for TrackingRequest {
    const TYPE: &'static str = "tracking_request";
    const COLLECTION: &'static str = "tracking_requests";
    const NAME: &'static str = "TrackingRequest";
    type Attributes = TrackingRequestAttributes;
    type Relationships = TrackingRequestRelationships;
}

/// Attributes of a tracking request.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TrackingRequestAttributes {
    /// The number as registered.
    pub request_number: String,
    /// What the number is.
    #[schemars(extend("enum" = ["container", "bill_of_lading", "booking_number"]))]
    pub request_type: String,
    /// The carrier's SCAC (`TEST` for the sandbox), or null while it is being detected.
    pub scac: Option<String>,
    /// The carrier is detected from the number.
    pub auto_detect_vocc_scac: bool,
    /// Where the request is.
    #[schemars(extend("enum" = ["pending", "awaiting_manifest", "created", "failed", "tracking_stopped"]))]
    pub status: String,
    /// Why the request failed or is failing. `data_unavailable` while no source is configured
    /// for the carrier (the request waits and resolves once one is); `plan_limit` when it
    /// resolved to more containers than the plan has room for (nothing was tracked).
    #[schemars(extend("enum" = ["booking_cancelled", "duplicate", "expired", "internal_processing_error", "invalid_number", "not_found", "retries_exhausted", "shipping_line_unreachable", "unrecognized_response", "data_unavailable", "scac_auto_detect_failed", "plan_limit", null]))]
    pub failed_reason: Option<String>,
    /// The request is waiting to be tried again.
    pub is_retrying: bool,
    /// How often it was tried again.
    pub retry_count: Option<i64>,
    /// The client's reference numbers.
    pub ref_numbers: Vec<String>,
    /// Tags given to the shipment once it is created.
    pub shipment_tags: Vec<String>,
    /// The same tags, under the reference's name.
    pub tags: Vec<String>,
    /// When the request was registered.
    pub created_at: At,
    /// When it last changed.
    pub updated_at: At,
}

/// Relationships of a tracking request.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TrackingRequestRelationships {
    /// The shipment it created (`shipment`), once it did.
    pub tracked_object: ToOne,
    /// The customer (`party`) it is tracked for.
    pub customer: ToOne,
    /// The person who made it (`user`), as the reference names it: boxtrack has API keys,
    /// not users, so always null.
    pub user: ToOne,
}

/// The `tracking_request` resource.
pub fn tracking_request_resource(r: &TrackingRequestRow) -> Resource<TrackingRequest> {
    Resource {
        id: r.id,
        attributes: TrackingRequestAttributes {
            request_number: r.request_number.clone(),
            request_type: r.request_type.clone(),
            scac: r.scac.clone(),
            auto_detect_vocc_scac: r.auto_detect,
            status: r.status.clone(),
            failed_reason: r.failed_reason.clone(),
            is_retrying: r.is_retrying,
            retry_count: r.retry_count,
            ref_numbers: r.ref_numbers.clone(),
            shipment_tags: r.shipment_tags.clone(),
            tags: r.shipment_tags.clone(),
            created_at: At(r.created_us),
            updated_at: At(r.updated_us),
        },
        relationships: TrackingRequestRelationships {
            tracked_object: ToOne::new("shipment", r.shipment_id),
            customer: ToOne::new("party", r.customer_id),
            user: ToOne::none(),
        },
    }
}

/// The `tracking_request` resource as a JSON value.
pub fn tracking_request(r: &TrackingRequestRow) -> Value {
    tracking_request_resource(r).to_value()
}
