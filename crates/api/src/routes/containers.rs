//! `/v2/containers`: containers with terminal data, and their transport events.

use axum::extract::{OriginalUri, RawQuery, State};
use axum::http::HeaderMap;
use std::collections::HashMap;

use crate::rendered::{prerendered_container, prerendered_containers};
use boxtrack_app::containers::{self, ListContainers};
use boxtrack_app::model::{EventOrder, ShipmentRow};
use boxtrack_app::refresh::Refreshed;
use boxtrack_app::{entries, shipments};
use boxtrack_core::plan::Entitlement;
use boxtrack_core::reference;
use boxtrack_core::tracking::{self, DataSource};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::state::AppState;
use crate::state::Routes;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::{self, Doc, Q, list_of, single, typed_params};
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::extract::IdPath;
use boxtrack_http::jsonapi::{
    Body, JsonApi, QueryParams, Rows, list_response, sorted_list_response, sorted_page,
};
use boxtrack_http::schema::Schema;
use boxtrack_views::jsonapi::At;
use boxtrack_views::tracking::Providers;
use boxtrack_views::{jsonapi, tracking as resources};

const INCLUDES: &[&str] = &[
    "shipment",
    "pod_terminal",
    "pickup_facility",
    "transport_events",
    "shipment.port_of_lading",
    "shipment.port_of_discharge",
    "shipment.containers",
];
mod render;

use super::rendered_check::Check;
use render::rendered_as_parsed;
use render::{Known, asks_refs, render, to_show};

const EVENT_INCLUDES: &[&str] = &["shipment", "container", "location", "terminal", "vessel"];

/// `GET /v2/containers`: the use case [`boxtrack_app::containers`], its input read from the
/// query (answered from the read cache while nothing of the account has changed).
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<axum::response::Response> {
    // a list may be as old as a replica's lag (never older than the account's own writes)
    let (q, caller, headers) = (QueryParams::parse(raw.as_deref()), &caller, &headers);
    let (state, uri) = (&state, &uri);
    let render = |db| async move {
        let page = q.page()?;
        let includes = q.includes("container", INCLUDES)?;
        let asked: ListContainers = q.input()?;
        let sorted = sorted_page(asked.sort(), &page)?;
        // each container and shipment shown from its rendered state where that is current
        let check = Check::start(db, caller.account.id).await?;
        let found = prerendered_containers(db, caller.account.id, &asked, &page).await?;
        let rows = &found.listed.rows;
        let shipments = to_show(found.shipments.values())?;
        let known = Known {
            shipments: Some(&shipments),
            refs: None,
        };
        let (data, included) = render(db, caller, rows, known, &includes).await?;
        let shipments: Vec<_> = found.shipments.values().collect();
        let rendered = (data.as_slice(), included.as_slice());
        check
            .finish(|before| {
                rendered_as_parsed(db, caller, before, rows, &shipments, &includes, rendered)
            })
            .await?;
        Ok(sorted_list_response(
            state.config.public_url.as_deref(),
            headers,
            uri.path(),
            &q,
            page,
            &found.listed,
            sorted,
            Rows::Written(data, included),
        ))
    };
    state
        .cached_list(&caller.account, headers, uri, render)
        .await
}

async fn one(
    state: &AppState,
    caller: &Caller,
    id: uuid::Uuid,
    includes: &[String],
) -> ApiResult<JsonApi> {
    // what the shipment's resource shows of its containers is read with them
    let refs = asks_refs(includes);
    let check = Check::start(&state.ctx.db, caller.account.id).await?;
    let shown = prerendered_container(&state.ctx.db, caller.account.id, id, refs)
        .await?
        .ok_or_else(|| ApiError::not_found("container"))?;
    let c = shown.container;
    // the shipment's rendered text read once for all the request takes of it
    let shipments = to_show(&shown.shipment)?;
    let refs = shown
        .siblings
        .map(|refs| HashMap::from([(c.shipment_id(), refs)]));
    let known = Known {
        shipments: Some(&shipments),
        refs,
    };
    let (mut data, included) = render(
        &state.ctx.db,
        caller,
        std::slice::from_ref(&c),
        known,
        includes,
    )
    .await?;
    let shipments: Vec<_> = shown.shipment.iter().collect();
    let written = (data.as_slice(), included.as_slice());
    let cs = std::slice::from_ref(&c);
    check
        .finish(|before| {
            rendered_as_parsed(
                &state.ctx.db,
                caller,
                before,
                cs,
                &shipments,
                includes,
                written,
            )
        })
        .await?;
    let this = format!("/v2/containers/{}", c.id());
    Ok(JsonApi::written_single(
        &data.pop().unwrap_or_else(|| "null".into()),
        &this,
        &included,
    ))
}

/// `GET /v2/containers/{id}` (answered from the process's read cache while nothing it is
/// rendered from has changed).
pub async fn show(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<axum::response::Response> {
    let includes = QueryParams::parse(raw.as_deref()).includes("container", INCLUDES)?;
    let path = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
    // boxed: the render's future (its reads and includes) is large, and inline it would make
    // the handler's future as large, copied whole each time axum moves it into place
    let render = Box::pin(one(&state, &caller, id, &includes));
    state.reads.respond(&caller.account, path, render).await
}

/// `PATCH /v2/containers/{id}`: ref numbers, and what a person knows
/// ([`super::entries::apply`]).
pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    Body(doc): Body<super::entries::PatchDoc>,
) -> ApiResult<JsonApi> {
    super::entries::apply(&state, &caller, id, &doc).await?;
    one(&state, &caller, id, &[]).await
}

/// One container's change in `PATCH /v2/containers`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct BulkItem {
    /// The container to change.
    #[schemars(required)]
    id: Option<uuid::Uuid>,
    /// `container`.
    #[serde(default, rename = "type")]
    #[schemars(extend("const" = "container"))]
    kind: Option<String>,
    /// What to change: the ref numbers, and what a person knows, as in
    /// `PATCH /v2/containers/{id}`.
    attributes: super::entries::PatchAttrs,
}

/// One container, or a list of them.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum BulkData {
    /// One container: answered with that container.
    One(BulkItem),
    /// Up to 100 containers: answered with each, in order.
    #[schemars(extend("minItems" = 1, "maxItems" = 100))]
    Many(Vec<BulkItem>),
}

/// Body of `PATCH /v2/containers`.
#[derive(Deserialize, JsonSchema)]
pub struct BulkDoc {
    data: BulkData,
}

/// The most containers one `PATCH /v2/containers` changes.
const BULK_MAX: usize = 100;

/// `PATCH /v2/containers`: ref numbers of one container named by `data.id` (the reference's
/// "Edit a container") or of up to 100 (`data` a list), all or none.
pub async fn update_many(
    State(state): State<AppState>,
    caller: Caller,
    Body(doc): Body<BulkDoc>,
) -> ApiResult<JsonApi> {
    let (items, many) = match doc.data {
        BulkData::One(item) => (vec![item], false),
        BulkData::Many(items) => (items, true),
    };
    if items.is_empty() || items.len() > BULK_MAX {
        return Err(ApiError::unprocessable(
            "/data",
            "invalid",
            format!("data names 1 to {BULK_MAX} containers"),
        ));
    }
    let by = super::entries::author(&state, &caller).await;
    let mut ids = Vec::with_capacity(items.len());
    let (mut refs, mut planned) = (vec![], vec![]);
    for (i, item) in items.iter().enumerate() {
        let at = |field: &str| {
            if many {
                format!("/data/{i}{field}")
            } else {
                format!("/data{field}")
            }
        };
        if item.kind.as_deref().is_some_and(|k| k != "container") {
            return Err(ApiError::unprocessable(
                &at("/type"),
                "invalid_type",
                "type must be \"container\"",
            ));
        }
        let Some(id) = item.id else {
            return Err(ApiError::unprocessable(
                &at("/id"),
                "blank",
                "id names the container to change",
            ));
        };
        ids.push(id);
        let a = &item.attributes;
        if let Some(r) = a.refs(&at("/attributes"))? {
            refs.push((id, r));
        }
        let attributes = at("/attributes");
        let asked = a.asked(&attributes)?;
        if !asked.is_empty() {
            let p = super::entries::plan(&state, &caller, id, &by, &asked, &attributes);
            planned.push(p.await?);
        }
    }
    // the ref numbers first: their write is where an id that is not the account's is found
    // (every entry was checked above)
    if !refs.is_empty() {
        containers::update_refs(&state.ctx, caller.account.id, &refs).await?;
    }
    if !planned.is_empty() {
        entries::write(&state.ctx, caller.account.id, planned).await?;
    }
    if !many {
        return one(&state, &caller, ids[0], &[]).await;
    }
    let rows = containers::by_ids(&state.ctx.db, caller.account.id, &ids).await?;
    let (data, included) = render(
        &state.ctx.db,
        &caller,
        &rows,
        Known::<ShipmentRow>::default(),
        &[],
    )
    .await?;
    Ok(JsonApi::written_lists(&[
        ("data", &data),
        ("included", &included),
    ]))
}

/// `GET /v2/containers/{id}/transport_events`.
pub async fn events(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    headers: HeaderMap,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let page = q.page()?;
    let includes = q.includes("transport_event", EVENT_INCLUDES)?;
    let shown = containers::show(&state.ctx.db, caller.account.id, id, false)
        .await?
        .ok_or_else(|| ApiError::not_found("container"))?;
    let order = q
        .one_of("sort", &EVENT_SORTS)?
        .and_then(EventOrder::parse)
        .unwrap_or_default();
    let listed =
        containers::events_page(&state.ctx.db, caller.account.id, id, &page, order).await?;
    let mut included = Vec::new();
    if includes.iter().any(|i| i == "container") {
        let s = shown.shipment.as_ref();
        included.push(resources::container(&shown.container, s, &caller.account));
    }
    if includes.iter().any(|i| i == "shipment") {
        included.extend(shipment_with_siblings(&state, &caller, shown.shipment.as_ref()).await?);
    }
    for e in &listed.rows {
        include_places(
            &mut included,
            &includes,
            Named {
                event: &e.event,
                locode: e.locode.as_deref(),
                terminal: e.terminal.as_deref(),
                vessel_imo: e.vessel_imo.as_deref(),
                vessel_name: e.vessel_name.as_deref(),
            },
        );
    }
    Ok(list_response(
        state.config.public_url.as_deref(),
        &headers,
        uri.path(),
        &q,
        page,
        &listed,
        listed.rows.iter().map(resources::transport_event).collect(),
        included,
    ))
}

/// The places and vessel an event names.
struct Named<'a> {
    event: &'a str,
    locode: Option<&'a str>,
    terminal: Option<&'a str>,
    vessel_imo: Option<&'a str>,
    vessel_name: Option<&'a str>,
}

/// Adds to `included`, once each, the location, terminal and vessel that `named` names and
/// `includes` asks for.
fn include_places(included: &mut Vec<Value>, includes: &[String], named: Named<'_>) {
    let asked = |name: &str| includes.iter().any(|i| i == name);
    let mut extra = Vec::new();
    if asked("location")
        && let Some(p) = named.locode.and_then(reference::port)
    {
        extra.push(if resources::inland_event(named.event) {
            super::reference::metro_resource(p)
        } else {
            super::reference::port_resource(p)
        });
    }
    if asked("terminal")
        && let Some(t) = named.terminal.and_then(reference::terminal)
    {
        extra.push(super::reference::terminal_resource(t));
    }
    if asked("vessel")
        && let Some(imo) = named.vessel_imo
    {
        extra.push(super::reference::vessel_resource(imo, named.vessel_name));
    }
    for r in extra {
        jsonapi::include_once(included, r);
    }
}

/// What `GET /v2/containers/{id}/raw_events` can include.
const RAW_INCLUDES: &[&str] = &["location", "vessel", "terminal", "container", "shipment"];

/// What it includes when `include` is not given, as the reference does.
const RAW_DEFAULT_INCLUDES: &[&str] = &["location", "vessel", "terminal"];

/// `GET /v2/containers/{id}/raw_events`: what the sources reported, verbatim, newest first
/// (estimates included), with who reported each (`data_provider_name`, `data_provider_code`)
/// and, unless `include` says otherwise, their locations, vessels and terminals.
pub async fn raw_events(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    headers: HeaderMap,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let page = q.page()?;
    let includes = if q.get("include").is_some() {
        q.includes("raw_event", RAW_INCLUDES)?
    } else {
        RAW_DEFAULT_INCLUDES
            .iter()
            .map(|s| (*s).to_string())
            .collect()
    };
    let shown = containers::show(&state.ctx.db, caller.account.id, id, false)
        .await?
        .ok_or_else(|| ApiError::not_found("container"))?;
    let (c, shipment) = (shown.container, shown.shipment);
    let providers = Providers::of(&c.state, shipment.as_ref().map_or("", |s| s.scac.as_str()));
    let listed = containers::raw_page(
        &state.ctx.db,
        caller.account.id,
        id,
        &page,
        caller.account.has(Entitlement::RailLfd),
    )
    .await?;
    let data = listed
        .rows
        .iter()
        .map(|e| resources::raw_event(e, &providers))
        .collect();
    let mut included = Vec::new();
    if includes.iter().any(|i| i == "container") {
        included.push(resources::container(&c, shipment.as_ref(), &caller.account));
    }
    if includes.iter().any(|i| i == "shipment") {
        included.extend(shipment_with_siblings(&state, &caller, shipment.as_ref()).await?);
    }
    for e in &listed.rows {
        let terminal = resources::raw_event_terminal_code(e, &providers);
        include_places(
            &mut included,
            &includes,
            Named {
                event: &e.event,
                locode: e.locode.as_deref(),
                terminal: terminal.as_deref(),
                vessel_imo: e.vessel_imo.as_deref(),
                vessel_name: e.vessel_name.as_deref(),
            },
        );
    }
    Ok(list_response(
        state.config.public_url.as_deref(),
        &headers,
        uri.path(),
        &q,
        page,
        &listed,
        data,
        included,
    ))
}

/// `GET /v2/containers/{id}/field_sources`: where each value of the container came from.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FieldSourcesDoc {
    /// One entry per attribute a source has set, by attribute name.
    pub data: Vec<FieldSourceObject>,
}

/// Where one attribute's value came from.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FieldSourceObject {
    /// `field_source`.
    #[serde(rename = "type")]
    #[schemars(extend("enum" = ["field_source"]))]
    pub kind: &'static str,
    /// The attribute of the container resource (`pod_discharged_at`).
    pub id: String,
    /// The details.
    pub attributes: FieldSourceAttributes,
}

/// The source of one attribute.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FieldSourceAttributes {
    /// The attribute of the container resource.
    pub attribute: String,
    /// Whose word decided the value (docs/precedence.md).
    #[schemars(extend("enum" = ["shipping_line", "terminal", "rail", "ais", "sandbox", "user_input"]))]
    pub data_source: &'static str,
    /// Who stated it (for a milestone time, a finer source that agrees may state the time
    /// for the deciding one).
    #[schemars(extend("enum" = ["shipping_line", "terminal", "rail", "ais", "sandbox", "user_input"]))]
    pub reported_by: &'static str,
    /// When that report was produced.
    pub reported_at: At,
    /// How finely it states times.
    #[schemars(extend("enum" = ["second", "minute", "hour", "day"]))]
    pub precision: &'static str,
    /// The raw event that keeps the report (`GET /v2/containers/{id}/raw_events`); null for
    /// a report kept before raw events had keys.
    pub raw_event_id: Option<uuid::Uuid>,
    /// The other sources whose latest report stands behind the value too, oldest first: for
    /// `holds_at_pod_terminal`, every other source's latest hold list (a hold one source
    /// lifted stays while another still reports it). Empty for the other attributes.
    pub also_reported_by: Vec<AlsoReported>,
}

/// Another source's report behind a value.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AlsoReported {
    /// Who.
    #[schemars(extend("enum" = ["shipping_line", "terminal", "rail", "ais", "sandbox", "user_input"]))]
    pub reported_by: &'static str,
    /// When that report was produced.
    pub reported_at: At,
    /// The raw event that keeps it; null for a report kept before raw events had keys.
    pub raw_event_id: Option<uuid::Uuid>,
}

/// `GET /v2/containers/{id}/field_sources`: where each value of the container came from
/// (boxtrack's extension; `docs/precedence.md`).
pub async fn field_sources(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    QueryParams::parse(raw.as_deref()).includes("field_source", &[])?;
    let rail_lfd = caller.account.has(Entitlement::RailLfd);
    let found = containers::provenance(&state.ctx.db, caller.account.id, id, rail_lfd)
        .await?
        .ok_or_else(|| ApiError::not_found("container"))?;
    let (sandbox, raw_ids) = (found.sandbox, &found.raw_ids);
    let name = |s: DataSource| {
        if sandbox {
            "sandbox"
        } else {
            tracking::source_name(s)
        }
    };
    let data = found
        .fields
        .into_iter()
        .map(|f| FieldSourceObject {
            kind: "field_source",
            id: f.attribute.to_string(),
            attributes: FieldSourceAttributes {
                attribute: f.attribute.to_string(),
                data_source: name(f.source),
                reported_by: name(f.report.source),
                reported_at: At(f.report.observed_us),
                precision: f.report.precision.name(),
                raw_event_id: raw_ids.get(&f.report.key).copied(),
                also_reported_by: f
                    .also
                    .iter()
                    .map(|p| AlsoReported {
                        reported_by: name(p.source),
                        reported_at: At(p.observed_us),
                        raw_event_id: raw_ids.get(&p.key).copied(),
                    })
                    .collect(),
            },
        })
        .collect();
    Ok(JsonApi::of(&FieldSourcesDoc { data }))
}

/// The shipment resource with its containers, to include (nothing without a shipment).
async fn shipment_with_siblings(
    state: &AppState,
    caller: &Caller,
    shipment: Option<&ShipmentRow>,
) -> ApiResult<Option<Value>> {
    let Some(s) = shipment else {
        return Ok(None);
    };
    let siblings = shipments::show(&state.ctx.db, caller.account.id, s.id)
        .await?
        .map(|shown| shown.containers)
        .unwrap_or_default();
    Ok(Some(resources::shipment(s, &siblings)))
}

/// The orders of a container's transport events (`sort`).
const EVENT_SORTS: [&str; 4] = ["timestamp", "-timestamp", "created_at", "-created_at"];

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .patch("/v2/containers/{id}/refresh", super::refresh::refresh, || {
            Doc::new("Containers", "Refresh container")
                .about("Polls every source of the container now (the shipping line's DCSA endpoint, and the POD terminal's feed once discharged), merges what they say, and answers when done with the changes for this container (`message` as in the reference, plus `changes`). Needs the `container_refresh` entitlement; at most 10 per minute. A sandbox container plays what its journey has due on the virtual clock now and answers the same way. 422 `no_upstream` for other containers without an upstream; 502 `upstream_failed` when the line cannot be read.")
                .id("Container")
                .errors(&[401, 403, 404, 422, 429, 502])
                .answer("200", Doc::json_answer("What changed", doc::schema_of::<Refreshed>()))
                .reference_id("patch-containers-id-refresh")
        })
        .get("/v2/containers", list, || {
            Doc::new("Containers", "List containers")
                .about("Most recently updated first, unless `sort` says otherwise.")
                .paged()
                .include(INCLUDES)
                .query::<ListContainers>()
                .errors(&[400, 401, 429])
                .ok("A page of containers", list_of("Container"))
                .reference_id("get-containers")
        })
        .get("/v2/containers/{id}", show, || {
            Doc::new("Containers", "Get a container")
                .about("Terminal data (availability, holds, fees, LFDs, appointment), rail data and milestones.")
                .id("Container")
                .include(INCLUDES)
                .errors(&[400, 401, 404, 429])
                .ok("The container", single("Container"))
                .reference_id("get-containers-id")
        })
        .patch("/v2/containers/{id}", update, || {
            Doc::new("Containers", "Update a container")
                .about("Replaces ref numbers; and, boxtrack's extension, takes what a person knows first-hand: `pickup_lfd`, `pickup_appointment_at`, `pod_full_out_at`, `delivered_at`, `empty_terminated_at` (RFC 3339; `null` clears what a person set, and the sources' value shows again). Each is merged as a report of source `user_input` (the same transport events and webhooks as a source's) and wins over the sources' until cleared; an entry that contradicts the journey (a pickup before the discharge) is a 422 naming it, and nothing changes. `GET /v2/containers/{id}/entries` lists who entered what.")
                .id("Container")
                .body::<super::entries::PatchDoc>()
                .errors(&[400, 401, 404, 415, 422, 429])
                .ok("The container", single("Container"))
        })
        .get("/v2/containers/{id}/entries", super::entries::list, || {
            Doc::new("Containers", "List a container's entries")
                .about("What people of the account entered on the container (`PATCH /v2/containers/{id}`): the attribute, what it showed before, what was entered (null: cleared), who and when; newest first, at most 500. boxtrack's extension.")
                .id("Container")
                .errors(&[401, 404, 429])
                .ok("The entries", doc::schema_of::<super::entries::EntriesDoc>())
        })
        .patch("/v2/containers", update_many, || {
            Doc::new("Containers", "Update containers")
                .about("Replaces the ref numbers of the container `data.id` names (answered with that container), or of up to 100 when `data` is a list (answered with each, in order); and, boxtrack's extension, takes what a person knows of each, as `PATCH /v2/containers/{id}` does (`pickup_lfd`, `pickup_appointment_at`, `pod_full_out_at`, `delivered_at`, `empty_terminated_at`; `null` clears): a dispatcher enters the pickups of a whole list at once. Every entry is checked against its box's journey before anything is written; a contradiction is a 422 pointing at `/data/{i}/attributes/{name}`, an id that is not the account's is 404, and either changes nothing.")
                .body::<BulkDoc>()
                .errors(&[400, 401, 404, 415, 422, 429])
                .ok("The container, or the containers", Schema::one_of(vec![
                    Schema::from_value(single("Container")),
                    Schema::record(&[("data", Schema::array(Schema::component("Container")))])
                        .prop("included", Schema::array(Schema::object())),
                ]))
                        .reference_id("patch-containers-id")
        })
        .get("/v2/containers/{id}/raw_events", raw_events, || {
            Doc::new("Containers", "List a container's raw events")
                .about("Every observation the sources reported for the container, newest first, estimates included: the reference's normalized `event` (null for terminal facts such as holds and fees), `original_event` (what the source said, in one line), `observation` (the parsed record, verbatim), `index` (its place, oldest first from 0) and who reported it (`data_source`, `data_provider_name`, `data_provider_code`). Without `include`, the events' locations, vessels and terminals are included, as the reference does; `include=` names what to include instead.")
                .id("Container")
                .paged()
                .include(RAW_INCLUDES)
                .errors(&[400, 401, 404, 429])
                .ok("A page of raw events", list_of("RawEvent"))
                .reference_id("get-containers-id-raw_events")
        })
        .get("/v2/containers/{id}/field_sources", field_sources, || {
            Doc::new("Containers", "Where a container's values came from")
                .about("boxtrack's extension: for each attribute a source has set, whose word decided it (the precedence of `docs/precedence.md`), the report that stated it (its source, when it was produced, its precision) and the raw event that keeps it. Milestone times name the latest occurrence of their milestone.")
                .id("Container")
                .errors(&[400, 401, 404, 429])
                .ok_of::<FieldSourcesDoc>("Where each value came from")
        })
        .get("/v2/containers/{id}/transport_events", events, || {
            Doc::new("Containers", "List a container's transport events")
                .about("In the order they happened (oldest first) unless `sort` says otherwise.")
                .id("Container")
                .paged()
                .include(EVENT_INCLUDES)
                .params(typed_params(&[(
                    "sort",
                    Q::OneOf(EVENT_SORTS.to_vec()),
                    "timestamp (default: in the order the events happened, an estimate at its estimated time), -timestamp, created_at (the order they were recorded) or -created_at",
                )]))
                .errors(&[400, 401, 404, 429])
                .ok("A page of events", list_of("TransportEvent"))
                .reference_id("get-containers-id-transport_events")
        })
}
