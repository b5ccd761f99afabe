//! `/v2/shipments`: shipments with their containers; stop and resume tracking.

use axum::extract::{OriginalUri, RawQuery, State};
use axum::http::HeaderMap;
use std::collections::HashMap;

use crate::rendered::prerendered_shipments;
use crate::rendered::{self as reads, ContainerRow, Db, Listed, RenderedShipment, ShipmentRow};
use boxtrack_app::shipments::{self, ListShipments};
use boxtrack_views::jsonapi::Included;
use boxtrack_views::tracking::{ShipmentFacts, ShipmentToShow};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::state::AppState;
use crate::state::Routes;
use boxtrack_core::paging::Page;
use boxtrack_core::{reference, requests};
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::{Doc, list_of, single};
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::extract::IdPath;
use boxtrack_http::jsonapi::{self, Body, JsonApi, QueryParams, Rows, sorted_list_response};
use boxtrack_views::tracking as resources;

const INCLUDES: &[&str] = &[
    "containers",
    "port_of_lading",
    "port_of_discharge",
    "destination",
    "pod_terminal",
    "destination_terminal",
];

/// The rows as resources with what `includes` asks for, their containers read from `db`
/// unless `known` are (the caller read them already).
async fn render(
    db: &Db,
    caller: &Caller,
    rows: &[ShipmentRow],
    known: Option<HashMap<uuid::Uuid, Vec<ContainerRow>>>,
    includes: &[String],
) -> ApiResult<(Vec<Value>, Vec<Value>)> {
    let mut data = Vec::new();
    let mut included = Vec::new();
    // every shipment's containers in one query, not one per row
    let ship_ids: Vec<uuid::Uuid> = rows.iter().map(|s| s.id).collect();
    let mut containers_of = match known {
        Some(c) => c,
        None => reads::containers_of_many(db, caller.account.id, &ship_ids).await?,
    };
    for s in rows {
        let containers = containers_of.remove(&s.id).unwrap_or_default();
        data.push(resources::shipment(s, &containers));
        if includes.iter().any(|i| i == "containers") {
            included.extend(
                containers
                    .iter()
                    .map(|c| resources::container(c, Some(s), &caller.account)),
            );
        }
        // the POD terminal the containers report, as the shipment's relationship names it
        if includes.iter().any(|i| i == "pod_terminal")
            && let Some(t) = containers
                .iter()
                .find_map(reads::ContainerOnShipment::pod_terminal)
                .and_then(reference::terminal)
        {
            let r = super::reference::terminal_resource(t);
            if !included.contains(&r) {
                included.push(r);
            }
        }
        let route = &s.route;
        for (name, locode) in [
            ("port_of_lading", &route.pol_locode),
            ("port_of_discharge", &route.pod_locode),
            ("destination", &route.destination_locode),
        ] {
            if includes.iter().any(|i| i == name)
                && let Some(p) = locode.as_deref().and_then(reference::port)
            {
                let r = super::reference::port_resource(p);
                if !included.contains(&r) {
                    included.push(r);
                }
            }
        }
    }
    Ok((data, included))
}

/// A page of shipments as [`boxtrack_app::shipments::list`] reads it (read prerendered), shown from their
/// rendered texts where current, each written out with what `includes` asks for: their
/// containers read as `C` (each included by `include`), their ports and POD terminals.
async fn rendered_page<C: reads::OfShipments>(
    db: &Db,
    caller: &Caller,
    asked: &ListShipments,
    page: &Page,
    includes: &[String],
    include: impl Fn(&mut Included, &C, &ShipmentFacts),
) -> ApiResult<(Listed<RenderedShipment>, Vec<String>, Vec<String>)> {
    let check = super::rendered_check::Check::start(db, caller.account.id).await?;
    let found = prerendered_shipments::<C>(db, caller.account.id, asked, page).await?;
    let asks = |name: &str| includes.iter().any(|i| i == name);
    let mut data = Vec::with_capacity(found.listed.rows.len());
    let mut included = Included::default();
    for row in &found.listed.rows {
        let s = ShipmentToShow::of(row).ok_or_else(ApiError::internal)?;
        let containers = found.containers.get(&s.id()).map(Vec::as_slice);
        let containers = containers.unwrap_or_default();
        data.push(s.written(containers));
        let facts = s.facts();
        for c in containers {
            include(&mut included, c, &facts);
        }
        // the POD terminal the containers report, as the shipment's relationship names it
        if asks("pod_terminal")
            && let Some(t) = containers
                .iter()
                .find_map(reads::ContainerOnShipment::pod_terminal)
                .and_then(reference::terminal)
        {
            included.value(&super::reference::terminal_resource(t));
        }
        let [pol, pod] = s.ports();
        for (name, locode) in [
            ("port_of_lading", pol),
            ("port_of_discharge", pod),
            ("destination", s.destination()),
        ] {
            if asks(name)
                && let Some(p) = locode.and_then(reference::port)
            {
                included.value(&super::reference::port_resource(p));
            }
        }
    }
    let included = included.into_written();
    let rendered = (data.as_slice(), included.as_slice());
    let rows = &found.listed.rows;
    check
        .finish(|before| rendered_as_parsed(db, caller, before, rows, includes, rendered))
        .await?;
    Ok((found.listed, data, included))
}

/// Checks, in debug builds (every test), that shipments shown from their rendered texts read
/// as the ones rendered from their parsed rows (`rendered`: the page's `data` and `included`).
async fn rendered_as_parsed(
    db: &Db,
    caller: &Caller,
    before: super::rendered_check::Before,
    rows: &[RenderedShipment],
    includes: &[String],
    rendered: (&[String], &[String]),
) -> ApiResult<()> {
    use super::rendered_check::{in_order, same};
    let ids: Vec<uuid::Uuid> = rows.iter().map(RenderedShipment::id).collect();
    let whole = reads::shipments_by_id(db, caller.account.id, &ids).await?;
    let parsed: Vec<ShipmentRow> = in_order(whole, &ids, "shipment")?;
    let (data, included) = render(db, caller, &parsed, None, includes).await?;
    let account = caller.account.id;
    same(
        db,
        account,
        &before,
        rendered,
        (data, included),
        "shipments",
    )
    .await
}

/// `GET /v2/shipments`: the use case [`boxtrack_app::shipments`], its input read from the
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
        let includes = q.includes("shipment", INCLUDES)?;
        let asked: ListShipments = q.input()?;
        let sorted = jsonapi::sorted_page(asked.sort(), &page)?;
        // each shipment shown from its rendered text where that is current; its containers
        // read whole only where they are included
        let (listed, data, included) = if includes.iter().any(|i| i == "containers") {
            let include = |inc: &mut Included, c: &ContainerRow, facts: &ShipmentFacts| {
                inc.typed(c.id, || {
                    resources::container_resource_with(c, Some(facts), &caller.account)
                });
            };
            rendered_page(db, caller, &asked, &page, &includes, include).await?
        } else {
            let refs_only = |_: &mut Included, _: &reads::ContainerRef, _: &ShipmentFacts| {};
            rendered_page(db, caller, &asked, &page, &includes, refs_only).await?
        };
        Ok(sorted_list_response(
            state.config.public_url.as_deref(),
            headers,
            uri.path(),
            &q,
            page,
            &listed,
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
    let shown = shipments::show(&state.ctx.db, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("shipment"))?;
    let s = shown.shipment;
    let known = HashMap::from([(s.id, shown.containers)]);
    let (mut data, included) = render(
        &state.ctx.db,
        caller,
        std::slice::from_ref(&s),
        Some(known),
        includes,
    )
    .await?;
    Ok(JsonApi::single(data.pop().unwrap_or(Value::Null), included))
}

/// `GET /v2/shipments/{id}` (answered from the process's read cache while nothing it is
/// rendered from has changed).
pub async fn show(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<axum::response::Response> {
    let includes = QueryParams::parse(raw.as_deref()).includes("shipment", INCLUDES)?;
    let path = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
    // boxed, as the container's render is (`containers::show`)
    let render = Box::pin(one(&state, &caller, id, &includes));
    state.reads.respond(&caller.account, path, render).await
}

/// What to change.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PatchAttrs {
    /// The client's reference numbers (replaced; at most 50, each at most 100 characters).
    #[serde(default)]
    #[schemars(inner(length(max = 100)))]
    ref_numbers: Option<Vec<String>>,
    /// The client's tags (replaced; at most 50, each at most 100 characters).
    #[serde(default)]
    #[schemars(inner(length(max = 100)))]
    tags: Option<Vec<String>>,
    /// The same as `tags` (the reference's spelling).
    #[serde(default)]
    #[schemars(inner(length(max = 100)))]
    shipment_tags: Option<Vec<String>>,
}

/// The change.
#[derive(Deserialize, JsonSchema)]
struct PatchData {
    /// `shipment`.
    #[serde(default, rename = "type")]
    #[schemars(extend("const" = "shipment"))]
    kind: Option<String>,
    /// What to change.
    attributes: PatchAttrs,
}

/// Body of `PATCH /v2/shipments/{id}`.
#[derive(Deserialize, JsonSchema)]
pub struct PatchDoc {
    data: PatchData,
}

fn clean(list: Vec<String>, pointer: &'static str) -> ApiResult<Vec<String>> {
    requests::clean_refs(&list, pointer)
        .map_err(|e| ApiError::unprocessable(e.pointer, e.code, e.detail))
}

/// `PATCH /v2/shipments/{id}`: ref numbers and tags.
pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    Body(doc): Body<PatchDoc>,
) -> ApiResult<JsonApi> {
    if doc.data.kind.as_deref().is_some_and(|k| k != "shipment") {
        return Err(ApiError::unprocessable(
            "/data/type",
            "invalid_type",
            "type must be \"shipment\"",
        ));
    }
    let a = doc.data.attributes;
    let refs = a
        .ref_numbers
        .map(|l| clean(l, "/data/attributes/ref_numbers"))
        .transpose()?;
    let tags = a
        .tags
        .or(a.shipment_tags)
        .map(|l| clean(l, "/data/attributes/tags"))
        .transpose()?;
    shipments::update(&state.ctx, caller.account.id, id, refs, tags).await?;
    one(&state, &caller, id, &[]).await
}

/// `PATCH /v2/shipments/{id}/stop_tracking`.
pub async fn stop(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<JsonApi> {
    shipments::stop(&state.ctx, caller.account.id, id).await?;
    one(&state, &caller, id, &[]).await
}

/// `PATCH /v2/shipments/{id}/resume_tracking`.
pub async fn resume(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<JsonApi> {
    shipments::resume(&state.ctx, &caller.account, id).await?;
    one(&state, &caller, id, &[]).await
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .get("/v2/shipments", list, || {
            Doc::new("Shipments", "List shipments")
                .about("Most recently updated first, unless `sort` says otherwise.")
                .paged()
                .include(INCLUDES)
                .query::<ListShipments>()
                .errors(&[400, 401, 429])
                .ok("A page of shipments", list_of("Shipment"))
                .reference_id("get-shipments")
        })
        .get("/v2/shipments/{id}", show, || {
            Doc::new("Shipments", "Get a shipment")
                .about("One shipment; `include=containers` embeds its containers.")
                .id("Shipment")
                .include(INCLUDES)
                .errors(&[400, 401, 404, 429])
                .ok("The shipment", single("Shipment"))
                .reference_id("get-shipment-id")
        })
        .patch("/v2/shipments/{id}", update, || {
            Doc::new("Shipments", "Update a shipment")
                .about("Replaces ref numbers and/or tags.")
                .id("Shipment")
                .body::<PatchDoc>()
                .errors(&[400, 401, 404, 415, 422, 429])
                .ok("The shipment", single("Shipment"))
                .reference_id("patch-shipments-id")
        })
        .patch("/v2/shipments/{id}/stop_tracking", stop, || {
            Doc::new("Shipments", "Stop tracking")
                .about("Stops tracking the shipment and all its containers (`line_tracking_stopped_reason: cancelled_by_user`); sends `tracking_request.tracking_stopped`. Stopped containers no longer count against the plan's limit.")
                .id("Shipment")
                .errors(&[401, 404, 429])
                .ok("The shipment", single("Shipment"))
                .reference_id("patch-shipments-id-stop-tracking")
        })
        .patch("/v2/shipments/{id}/resume_tracking", resume, || {
            Doc::new("Shipments", "Resume tracking")
                .about("Resumes tracking; data may have gaps for the stopped period.")
                .id("Shipment")
                .errors(&[401, 404, 422, 429])
                .ok("The shipment", single("Shipment"))
                .reference_id("patch-shipments-id-resume-tracking")
        })
}
