//! What a person enters on a container: `PATCH /v2/containers/{id}` takes, beside the
//! reference's `ref_numbers`, the attributes a person may set (a last free day, a pickup
//! appointment, the pickup, the delivery, the empty return; `null` clears what a person set),
//! and `GET /v2/containers/{id}/entries` says who entered what and when. boxtrack's extension
//! (`docs/precedence.md`, "What a person enters").

use axum::extract::State;
use boxtrack_app::{AppError, containers, entries};
use boxtrack_core::requests;
use boxtrack_core::time::parse_micros;
use boxtrack_core::tracking::entries::Entry;
use boxtrack_views::jsonapi::At;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use uuid::Uuid;

use crate::state::AppState;
use boxtrack_http::auth::Caller;
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::extract::IdPath;
use boxtrack_http::jsonapi::JsonApi;

/// A member that may be `null` (clear) as well as absent (leave as it is).
fn nullable<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// What to change: the ref numbers, and what a person knows (RFC 3339 times; `null` clears
/// what a person set, and the sources' value shows again).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("minProperties" = 1))]
pub(crate) struct PatchAttrs {
    /// The client's reference numbers (replaced; at most 50, each at most 100 characters).
    #[serde(default)]
    #[schemars(inner(length(max = 100)), extend("type" = "array"))]
    ref_numbers: Option<Vec<String>>,
    /// boxtrack's: the last free day a person knows (the line told them); it wins over the
    /// sources' until cleared.
    #[serde(default, deserialize_with = "nullable")]
    #[schemars(extend("format" = "date-time"))]
    pickup_lfd: Option<Option<String>>,
    /// boxtrack's: the pickup appointment a person booked.
    #[serde(default, deserialize_with = "nullable")]
    #[schemars(extend("format" = "date-time"))]
    pickup_appointment_at: Option<Option<String>>,
    /// boxtrack's: when the box was picked up (gated out full at the port of discharge).
    #[serde(default, deserialize_with = "nullable")]
    #[schemars(extend("format" = "date-time"))]
    pod_full_out_at: Option<Option<String>>,
    /// boxtrack's: when it was delivered.
    #[serde(default, deserialize_with = "nullable")]
    #[schemars(extend("format" = "date-time"))]
    delivered_at: Option<Option<String>>,
    /// boxtrack's: when the empty was returned.
    #[serde(default, deserialize_with = "nullable")]
    #[schemars(extend("format" = "date-time"))]
    empty_terminated_at: Option<Option<String>>,
}

/// The change.
#[derive(Deserialize, JsonSchema)]
struct PatchData {
    /// `container`.
    #[serde(default, rename = "type")]
    #[schemars(extend("const" = "container"))]
    kind: Option<String>,
    /// What to change.
    attributes: PatchAttrs,
}

/// Body of `PATCH /v2/containers/{id}`.
#[derive(Deserialize, JsonSchema)]
pub struct PatchDoc {
    data: PatchData,
}

impl PatchAttrs {
    /// The ref numbers asked, cleaned (none: left as they are); `at` points at the document's
    /// attributes (`/data/attributes`, `/data/3/attributes`).
    pub(crate) fn refs(&self, at: &str) -> ApiResult<Option<Vec<String>>> {
        match &self.ref_numbers {
            Some(r) => requests::clean_refs(r, "").map(Some).map_err(|e| {
                ApiError::unprocessable(&format!("{at}/ref_numbers"), e.code, e.detail)
            }),
            None => Ok(None),
        }
    }

    /// The entries asked, each a time or a clearing; a time that is not RFC 3339 is a 422
    /// naming its attribute under `at`.
    pub(crate) fn asked(&self, at: &str) -> ApiResult<Vec<(Entry, Option<i64>)>> {
        let given = [
            (Entry::PickupLfd, &self.pickup_lfd),
            (Entry::PickupAppointment, &self.pickup_appointment_at),
            (Entry::PodFullOut, &self.pod_full_out_at),
            (Entry::Delivered, &self.delivered_at),
            (Entry::EmptyTerminated, &self.empty_terminated_at),
        ];
        let mut out = vec![];
        for (entry, value) in given {
            let Some(value) = value else { continue };
            let at = match value {
                None => None,
                Some(text) => Some(parse_micros(text).ok_or_else(|| {
                    ApiError::unprocessable(
                        &format!("{at}/{}", entry.name()),
                        "invalid",
                        format!(
                            "{} must be an RFC 3339 time (or null to clear)",
                            entry.name()
                        ),
                    )
                })?),
            };
            out.push((entry, at));
        }
        if out.is_empty() && self.ref_numbers.is_none() {
            return Err(ApiError::unprocessable(
                at,
                "blank",
                "name ref_numbers or what a person knows: pickup_lfd, pickup_appointment_at, pod_full_out_at, delivered_at, empty_terminated_at",
            ));
        }
        Ok(out)
    }
}

/// The name the caller's entries are recorded under (the API key's label and hint).
pub(crate) async fn author(state: &AppState, caller: &Caller) -> String {
    entries::author(
        &state.ctx,
        caller.account.id,
        entries::Author::Key(caller.key_id),
        None,
    )
    .await
}

/// Checks what is asked on the account's container `id` against its journey: a contradiction
/// is a 422 pointing at its attribute under `at` (the document's attributes).
pub(crate) async fn plan(
    state: &AppState,
    caller: &Caller,
    id: Uuid,
    by: &str,
    asked: &[(Entry, Option<i64>)],
    at: &str,
) -> ApiResult<entries::Planned> {
    entries::plan(&state.ctx, caller.account.id, id, by, asked)
        .await
        .map_err(|e| match e {
            AppError::Unprocessable {
                field,
                code,
                detail,
            } => ApiError::unprocessable(&format!("{at}/{field}"), code, detail),
            e => e.into(),
        })
}

/// What `PATCH /v2/containers/{id}` changes: ref numbers, and what a person knows (all or
/// none: an entry that contradicts the journey is a 422 naming it, and nothing changes). The
/// caller answers with the container.
pub async fn apply(state: &AppState, caller: &Caller, id: Uuid, doc: &PatchDoc) -> ApiResult<()> {
    if doc.data.kind.as_deref().is_some_and(|k| k != "container") {
        return Err(ApiError::unprocessable(
            "/data/type",
            "invalid_type",
            "type must be \"container\"",
        ));
    }
    let a = &doc.data.attributes;
    let refs = a.refs("/data/attributes")?;
    let asked = a.asked("/data/attributes")?;
    let mut planned = vec![];
    if !asked.is_empty() {
        let by = author(state, caller).await;
        planned.push(plan(state, caller, id, &by, &asked, "/data/attributes").await?);
    }
    if let Some(refs) = refs {
        containers::update_refs(&state.ctx, caller.account.id, &[(id, refs)]).await?;
    }
    if !planned.is_empty() {
        entries::write(&state.ctx, caller.account.id, planned).await?;
    }
    Ok(())
}

/// One entry as the API shows it.
#[derive(Serialize, JsonSchema)]
pub struct EntryAttributes {
    /// The attribute set or cleared.
    #[schemars(extend("enum" = ["pickup_lfd", "pickup_appointment_at", "pod_full_out_at", "delivered_at", "empty_terminated_at"]))]
    attribute: String,
    /// What it showed before.
    before: Option<At>,
    /// What was entered (null: cleared).
    after: Option<At>,
    /// Who entered it.
    entered_by: String,
    /// When.
    entered_at: At,
}

/// One entry (`container_entry`).
#[derive(Serialize, JsonSchema)]
pub struct EntryObject {
    /// `container_entry`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "container_entry"))]
    kind: &'static str,
    /// Its id.
    id: Uuid,
    /// What was entered.
    attributes: EntryAttributes,
}

/// The answer of `GET /v2/containers/{id}/entries`.
#[derive(Serialize, JsonSchema)]
pub struct EntriesDoc {
    /// The entries, newest first (at most 500).
    data: Vec<EntryObject>,
}

/// `GET /v2/containers/{id}/entries`: who entered what on the container, and when.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<JsonApi> {
    let rows = entries::history(&state.ctx, caller.account.id, id).await?;
    let data = rows
        .into_iter()
        .map(|r| EntryObject {
            kind: "container_entry",
            id: r.id,
            attributes: EntryAttributes {
                attribute: r.attribute,
                before: At::opt(r.before_us),
                after: At::opt(r.after_us),
                entered_by: r.entered_by,
                entered_at: At(r.entered_us),
            },
        })
        .collect();
    Ok(JsonApi::of(&EntriesDoc { data }))
}
