//! `POST /v2/tracking_requests/infer_number`: what a number is (container, bill of lading,
//! booking), whether its shape is valid, and which carrier it most likely belongs to.

use boxtrack_core::carriers;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::state::Routes;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::Doc;
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::jsonapi::{Body, JsonApi};

/// Body of `POST /v2/tracking_requests/infer_number`.
#[derive(Deserialize, JsonSchema)]
pub struct InferBody {
    /// The number.
    #[schemars(required, extend("type" = "string"))]
    number: Option<String>,
}

/// `POST /v2/tracking_requests/infer_number`.
pub async fn infer_number(_caller: Caller, Body(b): Body<InferBody>) -> ApiResult<JsonApi> {
    let number = b.number.unwrap_or_default();
    if number.trim().is_empty() {
        return Err(ApiError::unprocessable(
            "/number",
            "blank",
            "number can't be blank",
        ));
    }
    let i = carriers::infer(&number)
        .map_err(|e| ApiError::unprocessable("/number", "invalid", e.to_string()))?;
    let candidates: Vec<CandidateView> = i
        .candidates
        .iter()
        .map(|c| CandidateView {
            scac: c.scac.clone(),
            name: c.name.clone(),
            confidence: c.confidence,
        })
        .collect();
    let selected = if i.decision == carriers::Decision::NoPrediction {
        None
    } else {
        candidates.first().cloned()
    };
    let decision = match i.decision {
        carriers::Decision::AutoSelect => "auto_select",
        carriers::Decision::NeedsConfirmation => "needs_confirmation",
        carriers::Decision::NoPrediction => "no_prediction",
    };
    let container = i.number_type == carriers::NumberType::Container;
    Ok(JsonApi::of(&InferDocument {
        data: Inference {
            id: format!("req_{}", uuid::Uuid::now_v7().simple()),
            kind: "infer_number_results",
            attributes: InferenceAttributes {
                number: i.number.clone(),
                number_type: match i.number_type {
                    carriers::NumberType::Container => "container",
                    carriers::NumberType::BillOfLading => "bill_of_lading",
                    carriers::NumberType::Booking => "booking",
                },
                request_type: i.number_type.request_type(),
                validation: Validation {
                    is_valid: i.is_valid,
                    kind: if container { "container" } else { "shipment" },
                    check_digit_passed: i.check_digit_passed,
                    parsed_number: i.number,
                    reason: i.reason,
                },
                shipping_line: LineGuess {
                    decision,
                    selected,
                    candidates,
                },
            },
        },
    }))
}

/// What a number looks like.
#[derive(Serialize, JsonSchema)]
pub struct InferDocument {
    /// The inference.
    pub data: Inference,
}

/// The inference about one number.
#[derive(Serialize, JsonSchema)]
pub struct Inference {
    /// A request id (`req_…`).
    pub id: String,
    /// `infer_number_results`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "infer_number_results"))]
    pub kind: &'static str,
    /// What was found.
    pub attributes: InferenceAttributes,
}

/// What was found about a number.
#[derive(Serialize, JsonSchema)]
pub struct InferenceAttributes {
    /// The number, normalized.
    pub number: String,
    /// What it is.
    #[schemars(extend("enum" = ["container", "bill_of_lading", "booking"]))]
    pub number_type: &'static str,
    /// The `request_type` to track it with.
    #[schemars(extend("enum" = ["container", "bill_of_lading", "booking_number"]))]
    pub request_type: &'static str,
    /// Whether its shape is valid.
    pub validation: Validation,
    /// Which carrier it belongs to.
    pub shipping_line: LineGuess,
}

/// Whether a number's shape is valid.
#[derive(Serialize, JsonSchema)]
pub struct Validation {
    /// It is.
    pub is_valid: Option<bool>,
    /// `container` or `shipment`.
    #[serde(rename = "type")]
    #[schemars(extend("enum" = ["container", "shipment"]))]
    pub kind: &'static str,
    /// A container number's ISO 6346 check digit (null for other numbers).
    pub check_digit_passed: Option<bool>,
    /// The number as parsed.
    pub parsed_number: String,
    /// Why it is not valid.
    pub reason: Option<String>,
}

/// Which carrier a number belongs to.
#[derive(Serialize, JsonSchema)]
pub struct LineGuess {
    /// How sure: `auto_select` (0.95 or more), `needs_confirmation`, `no_prediction`.
    #[schemars(extend("enum" = ["auto_select", "needs_confirmation", "no_prediction"]))]
    pub decision: &'static str,
    /// The carrier to use, unless there is no prediction.
    pub selected: Option<CandidateView>,
    /// Candidates, most likely first.
    pub candidates: Vec<CandidateView>,
}

/// A carrier candidate.
#[derive(Clone, Serialize, JsonSchema)]
pub struct CandidateView {
    /// Its SCAC.
    pub scac: String,
    /// Its name.
    pub name: String,
    /// 0 to 1.
    pub confidence: f64,
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .post("/v2/tracking_requests/infer_number", infer_number, || {
            Doc::new("Tracking requests", "Infer number type and carrier")
                .about("Plain JSON `{\"number\": \"...\"}`. Answers the number type, ISO 6346 validation with `check_digit_passed`, and ranked carrier candidates with a decision (`auto_select` ≥ 0.95, `needs_confirmation` ≥ 0.70, else `no_prediction`). Rate limit bucket `tracking_requests.infer_number` (200/min).")
                .body::<InferBody>()
                .errors(&[400, 401, 415, 422, 429])
                .ok_of::<InferDocument>("Inference")
                .reference_id("post-infer-number")
        })
}
