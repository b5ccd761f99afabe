//! Charges (boxtrack's extension; nothing the reference defines changes): an account's tariffs
//! and calendars (`/v2/tariffs`, `/v2/calendars`; public ones, loaded by the operator, are read
//! beside them) and what a box owes by them (`POST /v2/charges/quote`). The rule is
//! `boxtrack_core::charges`, the use cases `boxtrack_app::charges`.

use axum::extract::{OriginalUri, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use boxtrack_app::charges::audit::{self, AuditIn, AuditOut};
use boxtrack_app::charges::container::{self, ContainerCharges};
use boxtrack_app::charges::quote::{self, Quote, QuoteIn};
use boxtrack_app::charges::summary::{self, Summary};
use boxtrack_app::charges::{self, ListDocs, Stored};
use boxtrack_core::charges::{CalendarDoc, TariffDoc};
use boxtrack_views::charges as resources;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::state::{AppState, Routes};
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::{Doc, body, list_of, schema_of, single};
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::extract::IdPath;
use boxtrack_http::jsonapi::{Body, JsonApi, QueryParams, list_response};

/// A request document: `{"data": {"type": T, "attributes": …}}`.
#[derive(Deserialize, JsonSchema)]
pub struct Written<A> {
    data: WrittenData<A>,
}

/// The `data` member of a request document.
#[derive(Deserialize, JsonSchema)]
struct WrittenData<A> {
    /// The resource type.
    #[serde(default, rename = "type")]
    kind: Option<String>,
    /// The attributes.
    attributes: A,
}

impl<A> Written<A> {
    /// The attributes, when the `type` (if given) is `kind`.
    fn attributes(self, kind: &str) -> ApiResult<A> {
        if self.data.kind.as_deref().is_some_and(|k| k != kind) {
            return Err(ApiError::unprocessable(
                "/data/type",
                "invalid_type",
                format!("type must be {kind:?}"),
            ));
        }
        Ok(self.data.attributes)
    }
}

fn created(doc: JsonApi) -> axum::response::Response {
    let mut res = doc.into_response();
    *res.status_mut() = StatusCode::CREATED;
    res
}

fn tariff_value(state: &AppState, t: &Stored<TariffDoc>) -> Value {
    let today = jiff::Timestamp::from_microsecond(state.ctx.now_us())
        .map(|ts| ts.to_zoned(jiff::tz::TimeZone::UTC).date())
        .unwrap_or_default();
    resources::tariff(t.id, t.public, t.created_us, &t.doc, today).to_value()
}

fn calendar_value(c: &Stored<CalendarDoc>) -> Value {
    resources::calendar(c.id, c.public, c.created_us, &c.doc).to_value()
}

/// `GET /v2/tariffs`: the account's own tariffs (`filter[public]=true`: the public ones).
pub async fn list_tariffs(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let page = q.page()?;
    let asked: ListDocs = q.input()?;
    let whose = asked.whose(caller.account.id);
    let listed = charges::tariffs(&state.ctx, whose, &page).await?;
    let data = listed
        .rows
        .iter()
        .map(|t| tariff_value(&state, t))
        .collect();
    Ok(list_response(
        state.config.public_url.as_deref(),
        &headers,
        uri.path(),
        &q,
        page,
        &listed,
        data,
        vec![],
    ))
}

/// `POST /v2/tariffs`.
pub async fn create_tariff(
    State(state): State<AppState>,
    caller: Caller,
    Body(doc): Body<Written<TariffDoc>>,
) -> ApiResult<impl IntoResponse> {
    let doc = doc.attributes("tariff")?;
    let t = charges::add_tariff(&state.ctx, Some(caller.account.id), doc).await?;
    Ok(created(JsonApi::single(tariff_value(&state, &t), vec![])))
}

/// `GET /v2/tariffs/{id}`.
pub async fn show_tariff(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<JsonApi> {
    let t = charges::tariff(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("tariff"))?;
    Ok(JsonApi::single(tariff_value(&state, &t), vec![]))
}

/// `DELETE /v2/tariffs/{id}`: one of the account's own.
pub async fn delete_tariff(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<StatusCode> {
    charges::delete_tariff(&state.ctx, caller.account.id, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /v2/calendars`: the account's own calendars (`filter[public]=true`: the public ones).
pub async fn list_calendars(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let page = q.page()?;
    let asked: ListDocs = q.input()?;
    let whose = asked.whose(caller.account.id);
    let listed = charges::calendars(&state.ctx, whose, &page).await?;
    let data = listed.rows.iter().map(calendar_value).collect();
    Ok(list_response(
        state.config.public_url.as_deref(),
        &headers,
        uri.path(),
        &q,
        page,
        &listed,
        data,
        vec![],
    ))
}

/// `POST /v2/calendars`.
pub async fn create_calendar(
    State(state): State<AppState>,
    caller: Caller,
    Body(doc): Body<Written<CalendarDoc>>,
) -> ApiResult<impl IntoResponse> {
    let doc = doc.attributes("calendar")?;
    let c = charges::add_calendar(&state.ctx, Some(caller.account.id), doc).await?;
    Ok(created(JsonApi::single(calendar_value(&c), vec![])))
}

/// `GET /v2/calendars/{id}`.
pub async fn show_calendar(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<JsonApi> {
    let c = charges::calendar(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("calendar"))?;
    Ok(JsonApi::single(calendar_value(&c), vec![]))
}

/// `DELETE /v2/calendars/{id}`: one of the account's own.
pub async fn delete_calendar(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<StatusCode> {
    charges::delete_calendar(&state.ctx, caller.account.id, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A charges answer's document: `{"data": {"type": TYPE, "id", "attributes"}}`, as its two
/// types (the resource, with its `type` a constant in the schema, and the document) and the
/// answer made of an id and the use case's attributes.
macro_rules! answer_doc {
    ($doc:ident, $object:ident, $attributes:ty, $type:literal, $what:literal) => {
        #[doc = concat!("The `", $type, "` resource: ", $what, ".")]
        #[derive(Serialize, JsonSchema)]
        pub struct $object {
            #[doc = concat!("`", $type, "`.")]
            #[serde(rename = "type")]
            #[schemars(extend("const" = $type))]
            kind: &'static str,
            /// Its id.
            id: Uuid,
            #[doc = concat!($what, ".")]
            attributes: $attributes,
        }

        #[doc = concat!("The answer with ", $what, ".")]
        #[derive(Serialize, JsonSchema)]
        pub struct $doc {
            #[doc = concat!("The `", $type, "` resource.")]
            data: $object,
        }

        impl $doc {
            /// The answer.
            fn answer(id: Uuid, attributes: $attributes) -> JsonApi {
                JsonApi::of(&$doc {
                    data: $object {
                        kind: $type,
                        id,
                        attributes,
                    },
                })
            }
        }
    };
}

answer_doc!(
    QuoteDoc,
    QuoteObject,
    Quote,
    "charge_quote",
    "what each kind comes to, and the kinds not quoted (a new id)"
);
answer_doc!(
    ContainerChargesDoc,
    ContainerChargesObject,
    ContainerCharges,
    "container_charges",
    "what each kind comes to, the reported last free days beside the calculated ones, and what each coming day adds (the container's id)"
);
answer_doc!(
    SummaryDoc,
    SummaryObject,
    Summary,
    "charge_summary",
    "the account's exposure (the account's id)"
);
answer_doc!(
    AuditDoc,
    AuditObject,
    AuditOut,
    "charge_audit",
    "the findings, and the computed charge beside the billed one (a new id)"
);

/// `POST /v2/charges/quote`.
pub async fn quote(
    State(state): State<AppState>,
    caller: Caller,
    Body(doc): Body<Written<QuoteIn>>,
) -> ApiResult<JsonApi> {
    let asked = doc.attributes("charge_quote")?;
    let answer = quote::quote(&state.ctx, caller.account.id, &asked).await?;
    Ok(QuoteDoc::answer(Uuid::now_v7(), answer))
}

/// `GET /v2/containers/{id}/charges`.
pub async fn container_charges(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<JsonApi> {
    let answer = container::of_container(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("container"))?;
    Ok(ContainerChargesDoc::answer(id, answer))
}

/// `GET /v2/charges/summary`.
pub async fn charges_summary(State(state): State<AppState>, caller: Caller) -> ApiResult<JsonApi> {
    let answer = summary::summary(&state.ctx, caller.account.id).await?;
    Ok(SummaryDoc::answer(caller.account.id, answer))
}

/// `POST /v2/charges/audits`.
pub async fn charges_audit(
    State(state): State<AppState>,
    caller: Caller,
    Body(doc): Body<Written<AuditIn>>,
) -> ApiResult<JsonApi> {
    let asked = doc.attributes("charge_audit")?;
    let answer = audit::audit(&state.ctx, caller.account.id, &asked).await?;
    Ok(AuditDoc::answer(Uuid::now_v7(), answer))
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .get("/v2/tariffs", list_tariffs, || {
            Doc::new("Charges", "List tariffs")
                .about("The account's own tariffs, newest first; `filter[public]=true` lists the public ones the operator loaded. Each carries its document as written, `public`, and `stale` once its `valid_to` has passed. boxtrack's extension.")
                .query::<ListDocs>()
                .paged()
                .errors(&[400, 401, 429])
                .ok("A page of tariffs", list_of("Tariff"))
        })
        .post("/v2/tariffs", create_tariff, || {
            Doc::new("Charges", "Create a tariff")
                .about("A tariff of the account: free time (`days`, working or calendar days, from discharge, availability or the full out-gate, the same day or the next), how chargeable days count, per-day rates in tiers contiguous from day 1 (the last open), what excuses a day (closures, named holds), validity, ports and equipment. A document that breaks a rule is refused with a 422 naming each field; nothing is stored. An account's own tariff beats a public one. boxtrack's extension.")
                .body::<Written<TariffDoc>>()
                .errors(&[400, 401, 415, 422, 429])
                .answer("201", body("The tariff", single("Tariff")))
        })
        .get("/v2/tariffs/{id}", show_tariff, || {
            Doc::new("Charges", "Get a tariff")
                .about("One of the account's tariffs, or a public one.")
                .id("Tariff")
                .errors(&[401, 404, 429])
                .ok("The tariff", single("Tariff"))
        })
        .delete("/v2/tariffs/{id}", delete_tariff, || {
            Doc::new("Charges", "Delete a tariff")
                .about("Deletes one of the account's own tariffs (a public one is the operator's).")
                .id("Tariff")
                .errors(&[401, 404, 429])
                .answer("204", serde_json::json!({"description": "Deleted"}))
        })
        .get("/v2/calendars", list_calendars, || {
            Doc::new("Charges", "List calendars")
                .about("The account's own calendars (a port's, or a facility's within it), newest first; `filter[public]=true` lists the public ones. boxtrack's extension.")
                .query::<ListDocs>()
                .paged()
                .errors(&[400, 401, 429])
                .ok("A page of calendars", list_of("Calendar"))
        })
        .post("/v2/calendars", create_calendar, || {
            Doc::new("Charges", "Create a calendar")
                .about("The working days of a port (UN/LOCODE) or of a facility in it: weekend days, holidays (or `holidays_rule: us_federal`), full-day closures with their reasons. For its place it replaces the public calendar; a facility's adds its holidays and closures to its port's, and its weekend, when given, replaces the port's. One per port and facility (422 to add another: delete it first). boxtrack's extension.")
                .body::<Written<CalendarDoc>>()
                .errors(&[400, 401, 415, 422, 429])
                .answer("201", body("The calendar", single("Calendar")))
        })
        .get("/v2/calendars/{id}", show_calendar, || {
            Doc::new("Charges", "Get a calendar")
                .about("One of the account's calendars, or a public one.")
                .id("Calendar")
                .errors(&[401, 404, 429])
                .ok("The calendar", single("Calendar"))
        })
        .delete("/v2/calendars/{id}", delete_calendar, || {
            Doc::new("Charges", "Delete a calendar")
                .about("Deletes one of the account's own calendars.")
                .id("Calendar")
                .errors(&[401, 404, 429])
                .answer("204", serde_json::json!({"description": "Deleted"}))
        })
        .post("/v2/charges/quote", quote, || {
            Doc::new("Charges", "Quote charges")
                .about("What a box owes by the tariffs the account reads, kind by kind (demurrage, storage, detention, combined): the tariff chosen (the account's own before a public one, an exact port before `*`, type and length before type alone before `*`, then the latest `valid_from`), the day counting begins, the last free day, each chargeable day with its tier's rate, each excused day with its reason, and the amount exact to the cent. All counting is in local dates at the port. A kind without a matching tariff is listed in `missing`, never guessed; storage needs `facility`. boxtrack's extension.")
                .body::<Written<QuoteIn>>()
                .errors(&[400, 401, 415, 422, 429])
                .answer("200", body("The quote", schema_of::<QuoteDoc>()))
        })
        .get("/v2/containers/{id}/charges", container_charges, || {
            Doc::new("Charges", "Get a container's charges")
                .about("What the box owes, from its own history, as of its data's clock (a sandbox journey's virtual time): for each kind with a tariff, the quote's answer (the tariff chosen, the day counting begins, the calculated last free day, each chargeable and excused day, the amount), the last free day the sources reported beside the calculated one with the difference in days, and what each of the next 7 days adds while the box stays. The box is priced as its shipment's line, its port of discharge and terminal, its equipment, its discharge, first availability, full out-gate (or rail departure from the port) and empty return, and its holds as the reports followed them (`priced_as`). A kind without a tariff is listed in `missing`. `pickup_lfd` and `import_deadlines` stay what the sources reported. boxtrack's extension.")
                .id("Container")
                .errors(&[401, 404, 429])
                .ok("The container's charges", schema_of::<ContainerChargesDoc>())
        })
        .get("/v2/charges/summary", charges_summary, || {
            Doc::new("Charges", "Summarize charges")
                .about("The account's exposure over its tracked boxes, each priced as `GET /v2/containers/{id}/charges` prices it on its own data's clock: what they have accrued and what tomorrow adds, per currency, per kind and per terminal; the free times (box and kind, still running) whose calculated last free day is today, tomorrow, or in two or three days; and the boxes accruing, most accrued first (each list names at most 500, its count is whole). boxtrack's extension.")
                .errors(&[401, 429])
                .ok("The account's exposure", schema_of::<SummaryDoc>())
        })
        .post("/v2/charges/audits", charges_audit, || {
            Doc::new("Charges", "Audit an invoice")
                .about("A demurrage or detention invoice checked against the minimum contents 46 CFR 541.6 requires (identifying, timing, rate and dispute information, the two certifications; each missing item a finding: under 541.5 the billed party need not pay such an invoice), against 541.7 (issued within 30 days of the charge last incurred), and line by line against the charge the account's tariffs compute for the box: a day billed within free time or excused, a day not chargeable, another tier's rate, a line amount or a total that does not add up, free time start, end or days other than the tariff's. The box is named as a quote names it, or by `container_id` (a tracked box, from its own history); it is counted as of `as_of`, else noon UTC of the invoice date. Each finding names its line (or null), its date and the rule it breaks, so a dispute can quote it. The answer is 200 whatever it finds. boxtrack's extension.")
                .body::<Written<AuditIn>>()
                .errors(&[400, 401, 404, 415, 422, 429])
                .answer("200", body("The audit", schema_of::<AuditDoc>()))
        })
}
