//! `track_container` on the read layer: the container when the account tracks the number
//! already (with `get_container`'s answer), else a new tracking request through the same path
//! as `POST /v2/tracking_requests` (validation, plan limit, duplicates), the kind of number and
//! the carrier inferred when not given, in the reference MCP server's shape.

use super::error::ToolError;
use boxtrack_app::AppError;
use boxtrack_app::containers;
use boxtrack_app::model::{Account, ContainerRow, TrackingRequestRow};
use boxtrack_core::requests::NewRequest;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use boxtrack_app::tracking::{self, Refused};
use boxtrack_core::carriers;
use boxtrack_core::ratelimit::Bucket;
use boxtrack_http::Front;

use super::container::ContainerAnswer;
use super::tool::{Cx, Hints, Tool};

/// `track_container`'s arguments (the reference's names, with its deprecated aliases).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrackInput {
    /// One container, bill of lading or booking number (at most 64 characters); an identifier only, never a message
    #[schemars(length(max = 64))]
    pub number: Option<String>,
    /// Optional override: container, bill_of_lading or booking_number (BL, B/L and BOOKING are read too); inferred when absent
    #[serde(rename = "numberType")]
    pub number_type: Option<String>,
    /// Deprecated alias of number
    #[serde(rename = "containerNumber")]
    pub container_number: Option<String>,
    /// Deprecated alias of number with numberType booking_number
    #[serde(rename = "bookingNumber")]
    pub booking_number: Option<String>,
    /// Optional four-letter shipping-line SCAC (e.g. MAEU for Maersk); inferred when absent
    #[schemars(length(max = 4))]
    pub scac: Option<String>,
    /// The shipper's or customer's reference numbers to keep with the request
    #[serde(rename = "refNumbers")]
    pub ref_numbers: Option<Vec<String>>,
}

/// `track_container`.
pub struct TrackContainer;

impl Tool for TrackContainer {
    const GUIDE: super::contract::Guide = super::guides::TRACK;
    type Input = TrackInput;
    type Output = TrackAnswer;
    const NAME: &'static str = "track_container";
    const TITLE: &'static str = "Track Container";
    const DESCRIPTION: &'static str = "Track a container, bill of lading or booking number. Returns the container (get_container's answer) when the account tracks it already; otherwise infers the kind of number and the carrier when they are not given and creates a tracking request. If the new request is still pending, use list_tracking_requests or search_container a little later.";
    const HINTS: Hints = Hints::WRITE;

    fn bucket() -> Bucket {
        Bucket::for_route("POST", "/v2/tracking_requests")
    }

    async fn call(cx: &Cx<'_>, input: TrackInput) -> Result<TrackAnswer, ToolError> {
        track(cx.state, cx.account, input).await
    }
}

/// How the kind of number and the carrier were chosen.
#[derive(Debug, Serialize, JsonSchema)]
pub struct InferResult {
    /// `container`, `bill_of_lading` or `booking_number`.
    pub inferred_type: Option<String>,
    /// The carrier's SCAC.
    pub selected_scac: Option<String>,
    /// `search_match` (tracked already), `given` (the call named them) or `inference` (read
    /// from the number).
    pub source: String,
}

/// A container the account tracks, with how it was found.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Tracked {
    /// `get_container`'s answer.
    #[serde(flatten)]
    pub container: ContainerAnswer,
    /// False: the number was tracked already.
    pub tracking_request_created: bool,
    /// How it was found.
    pub infer_result: InferResult,
}

/// The tracking request made (or found pending).
#[derive(Debug, Serialize, JsonSchema)]
pub struct RequestBrief {
    /// Tracking request id.
    pub id: Uuid,
    /// The number.
    pub request_number: String,
    /// The kind of number.
    pub number_type: String,
    /// The carrier.
    pub scac: Option<String>,
    /// Its status (`pending` until the line answers).
    pub status: String,
}

/// Nothing to show yet: a request was made, or one is pending already.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Pending {
    /// Whether this call made the request.
    pub tracking_request_created: bool,
    /// How the kind of number and the carrier were chosen.
    pub infer_result: InferResult,
    /// The request.
    pub tracking_request: RequestBrief,
    /// What to do next.
    pub message: String,
}

/// `track_container`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum TrackAnswer {
    /// Tracked already.
    Tracked(Box<Tracked>),
    /// Requested; the container appears once the line answers.
    Pending(Box<Pending>),
}

/// `track_container`.
pub(super) async fn track(
    state: &Front,
    account: &Account,
    args: TrackInput,
) -> Result<TrackAnswer, ToolError> {
    let Asked {
        number,
        given_type,
        given_scac,
    } = asked(&args)?;
    if let Some((c, by_container)) = tracked_already(state, account, &number).await? {
        let scac = containers::show(&state.ctx.db, account.id, c.id, false)
            .await
            .map_err(unavailable)?
            .and_then(|shown| shown.shipment)
            .map(|s| s.scac);
        let container =
            super::container::get(state, account, c.id, &["shipment".to_string()]).await?;
        let kind = if by_container {
            "container"
        } else {
            "bill_of_lading"
        };
        return Ok(TrackAnswer::Tracked(Box::new(Tracked {
            container,
            tracking_request_created: false,
            infer_result: InferResult {
                inferred_type: Some(given_type.unwrap_or_else(|| kind.into())),
                selected_scac: given_scac.or(scac),
                source: "search_match".into(),
            },
        })));
    }
    // a new request: what the call names, else what the number says
    let source = if given_type.is_some() && given_scac.is_some() {
        "given"
    } else {
        "inference"
    };
    let request_type = given_type.or_else(|| {
        carriers::infer(&number)
            .ok()
            .map(|i| i.number_type.request_type().to_string())
    });
    let input = NewRequest {
        request_number: Some(number.clone()),
        request_type,
        auto_detect: given_scac.is_none(),
        scac: given_scac,
        ref_numbers: args.ref_numbers.clone().unwrap_or_default(),
        ..Default::default()
    };
    let (row, made) = request(state, account, &number, &input).await?;
    Ok(pending(row, made, source))
}

/// What a call asks to track: the number (spaces out, upper case) and the kind of number and
/// carrier it names, if it names them.
struct Asked {
    number: String,
    given_type: Option<String>,
    given_scac: Option<String>,
}

/// The number and what the call says of it, from the reference's names and their
/// deprecated aliases.
fn asked(args: &TrackInput) -> Result<Asked, ToolError> {
    let s = |v: &Option<String>| {
        v.as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    let number: String = s(&args.number)
        .or(s(&args.container_number))
        .or(s(&args.booking_number))
        .unwrap_or_default()
        .split_whitespace()
        .collect::<String>()
        .to_uppercase();
    if number.is_empty() {
        return Err("number is required: one container, bill of lading or booking number.".into());
    }
    let given_type = s(&args.number_type)
        .map(|t| normalize_type(&t))
        .or_else(|| s(&args.container_number).map(|_| "container".to_string()))
        .or_else(|| s(&args.booking_number).map(|_| "booking_number".to_string()));
    Ok(Asked {
        number,
        given_type,
        given_scac: s(&args.scac).map(|c| c.to_uppercase()),
    })
}

/// What a store failure tells the model.
fn unavailable(e: AppError) -> ToolError {
    ToolError::from_app("request")(e)
}

/// The account's container this number names ([`boxtrack_app::tracking::tracked_already`]).
async fn tracked_already(
    state: &Front,
    account: &Account,
    number: &str,
) -> Result<Option<(ContainerRow, bool)>, ToolError> {
    tracking::tracked_already(&state.ctx, account.id, number)
        .await
        .map_err(unavailable)
}

/// Tracks the number through the use case REST and the console run: the new request
/// (`true`), or the one already pending for it (`false`); a refusal in the model's words.
async fn request(
    state: &Front,
    account: &Account,
    number: &str,
    input: &NewRequest,
) -> Result<(TrackingRequestRow, bool), ToolError> {
    match tracking::track(&state.ctx, account, input, Default::default()).await {
        Ok(row) => Ok((row, true)),
        Err(Refused::Invalid(errors)) => {
            let why = errors
                .iter()
                .map(|e| e.detail.clone())
                .collect::<Vec<_>>()
                .join(" ");
            Err(format!(
                "Tracking identifier {number} is invalid: {why} Verify the kind of number (numberType: container, bill_of_lading or booking_number) and the carrier's SCAC (get_supported_shipping_lines)."
            ).into())
        }
        Err(Refused::Duplicate(valid)) => {
            let pending = tracking::request_for(&state.ctx, account.id, &valid.number)
                .await
                .map_err(unavailable)?
                .ok_or_else(|| {
                format!(
                    "{number} is being tracked already; list_tracking_requests shows its request."
                )
            })?;
            Ok((pending, false))
        }
        Err(Refused::PlanLimit(limit)) => Err(format!(
            "The plan tracks at most {limit} active containers at once: stop tracking a shipment (stop_tracking) or change the plan, then try again."
        ).into()),
        Err(Refused::Store(e)) => Err(unavailable(AppError::Store(e))),
    }
}

/// The answer about a request that was made (`made`) or was pending already.
fn pending(row: TrackingRequestRow, made: bool, source: &str) -> TrackAnswer {
    TrackAnswer::Pending(Box::new(Pending {
        tracking_request_created: made,
        infer_result: InferResult {
            inferred_type: Some(row.request_type.clone()),
            selected_scac: row.scac.clone(),
            source: source.into(),
        },
        message: if made {
            "Tracking started; the shipment and its containers appear once the line answers (usually within seconds): call list_tracking_requests or search_container a little later.".into()
        } else {
            "A request for this number is pending already; call list_tracking_requests or search_container a little later.".into()
        },
        tracking_request: RequestBrief {
            id: row.id,
            request_number: row.request_number,
            number_type: row.request_type,
            scac: row.scac,
            status: row.status,
        },
    }))
}

/// The reference's spellings of a kind of number (`BL`, `B/L`, `BOOKING`, ...) in
/// boxtrack's.
pub fn normalize_type(raw: &str) -> String {
    match raw.trim().to_uppercase().as_str() {
        "BOOKING" | "BOOKING_NUMBER" => "booking_number".into(),
        "CONTAINER" => "container".into(),
        "BL" | "B/L" | "BILL_OF_LADING" | "BOL" => "bill_of_lading".into(),
        _ => raw.trim().to_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::normalize_type;

    #[test]
    fn kinds_of_number_in_every_spelling() {
        assert_eq!(normalize_type("BL"), "bill_of_lading");
        assert_eq!(normalize_type("b/l"), "bill_of_lading");
        assert_eq!(normalize_type("Booking"), "booking_number");
        assert_eq!(normalize_type("container"), "container");
        assert_eq!(normalize_type("Parcel"), "parcel");
    }
}
