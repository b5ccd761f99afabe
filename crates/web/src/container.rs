//! The console's container page: `GET /console/containers/{id}`, one container with its
//! timeline, holds, fees, last free days by source, documents, custom fields, upstream
//! records (paged) and route map; and the map's data for the page.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use boxtrack_app::clock::DataClock;
use boxtrack_app::detail::ContainerDetail;
use boxtrack_app::model::{ContainerRow, ShipmentRow, TransportEventRow};
use boxtrack_app::{accounts, detail as app_detail, documents, journey};
use boxtrack_core::carriers;
use boxtrack_core::plan::Entitlement;
use boxtrack_core::tracking::ContainerState;
use boxtrack_core::tracking::release::GateView;
use boxtrack_core::tracking::rules::{self, ContainerStatus};
use boxtrack_http::doc::Doc;
use boxtrack_http::error::ApiError;
use boxtrack_http::front::Mount;
use boxtrack_http::schema::{Param, Schema};
use boxtrack_http::{Front, doc};
use maud::{Markup, html};
use uuid::Uuid;

use crate::charges;
use crate::common::{self, SignedIn, page, page_with, see_other, unavailable};
use crate::detail;
use crate::layout::{Place, signed_in};
use crate::live::{self, marker};
use crate::look;
use crate::pagedoc;

/// `GET /console/containers/{id}`: one container, its shipment and its timeline of transport
/// events, each at the local time of its place.
pub async fn show(
    State(state): State<Front>,
    SignedIn(s): SignedIn,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let raw_page: u32 = query
        .get("raw_page")
        .and_then(|p| p.trim().parse().ok())
        .filter(|p| *p >= 1)
        .unwrap_or(1);
    let missing = || {
        page(
            StatusCode::NOT_FOUND,
            "No such container",
            html! {
                main {
                    h1 { "No such container" }
                    p { a href="/console/containers" { "Back to the containers" } }
                }
            },
        )
    };
    let Ok(id) = id.parse::<Uuid>() else {
        return missing();
    };
    // the version where `/console/live` reads it (a replica that has the account's writes)
    let db = state.ctx.read_db(s.account_id);
    let version = match accounts::fingerprint(db, s.account_id).await {
        Ok(v) => v,
        Err(e) => return unavailable(&e),
    };
    let found = match app_detail::detail(&state.ctx, s.account_id, id, raw_page).await {
        Ok(Some(found)) => found,
        Ok(None) => return missing(),
        Err(e) => return common::app_unavailable(e),
    };
    let wall = state.ctx.now_us();
    let now = Now {
        data: found.clock.at(wall),
        wall,
        clock: found.clock,
    };
    let body = signed_in(
        Place::Elsewhere,
        &s,
        render(&version, &found, raw_page, now, &s.csrf),
    );
    respond(&found.container.number, body, found.routing)
}

/// "Now" for a container's page: the clock of its data (a sandbox journey's virtual clock,
/// a fast source's clock; see `boxtrack_app::clock`), which its events and last free day
/// follow, and the wall clock, which boxtrack's own times (`Updated`) follow.
#[derive(Debug, Clone, Copy)]
struct Now {
    /// On the data's clock.
    data: i64,
    /// On the wall clock.
    wall: i64,
    /// The data's clock, to place what boxtrack recorded at a wall time on it.
    clock: DataClock,
}

/// The route section: the map, or why there is none.
fn route_section(c: &ContainerRow, routing: bool) -> Markup {
    html! {
        section aria-labelledby="route" {
            h2 id="route" { "Route" }
            @if routing {
                div id="route-map" class="console-map" data-map-url={ "/console/containers/" (c.id) "/map_geojson" } data-shipment-id=(c.shipment_id) data-container-id=(c.id) role="region" aria-label="Map of the container's route" {}
            } @else {
                p { "The route map needs the routing entitlement." }
            }
        }
    }
}

/// The legs of a journey, in the order a box travels them.
const LEGS: [&str; 5] = [
    "Origin",
    "Ocean",
    "Port of discharge",
    "Rail and inland",
    "Empty return",
];

/// The leg an event belongs to, by its name.
fn leg_of(event: &str) -> usize {
    let has = |w: &str| event.contains(w);
    if has("rail") || has("inland") {
        3
    } else if has("empty_in") || has("empty_return") {
        4
    } else if has("transshipment") || has("feeder") {
        1
    } else if has("discharged") || has("full_out") || has("available") || has("pickup") {
        2
    } else if has("departed") || has("arrived") || has("berthed") {
        1
    } else {
        0
    }
}

/// The timeline, leg by leg (origin, ocean, port of discharge, rail, empty return): each event
/// at the clock of its place, with how long ago (or how soon) it is, where it happened, the
/// vessel and who said it; within a leg, in the order they happened.
fn timeline(events: &[TransportEventRow], clock: Now, pod_zone: Option<&str>) -> Markup {
    let rows: Vec<Row<'_>> = events
        .iter()
        .filter_map(|e| Row::of(e, clock, pod_zone))
        .collect();
    if rows.is_empty() {
        return html! { p { "No events yet." } };
    }
    let legs = LEGS.iter().enumerate().filter_map(|(i, name)| {
        let mut of_leg: Vec<&Row<'_>> = rows.iter().filter(|r| leg_of(&r.e.event) == i).collect();
        of_leg.sort_by_key(|r| r.at);
        (!of_leg.is_empty()).then_some((name, of_leg))
    });
    html! {
        @for (name, of_leg) in legs {
            section class="leg" {
                h3 {
                    (name)
                    " "
                    span class="rel" { (of_leg.len()) " event" (if of_leg.len() == 1 { "" } else { "s" }) }
                }
                ol class="timeline" {
                    @for r in &of_leg {
                        (timeline_item(r, clock.data))
                    }
                }
            }
        }
    }
}

/// An event as the timeline shows it: what, when (on the data's clock) and at which place's
/// clock.
struct Row<'a> {
    /// The event.
    e: &'a TransportEventRow,
    /// What happened, in words.
    what: String,
    /// When, on the data's clock.
    at: i64,
    /// The zone of the place it happened.
    zone: Option<&'a str>,
}

impl<'a> Row<'a> {
    /// The row of `e`, or none for an event another row already says: a last free day of
    /// one source (`container.pickup_lfd_terminal.changed`) is said by the change of the last
    /// free day itself, and each source's day is in "Last free day by source".
    fn of(e: &'a TransportEventRow, clock: Now, pod_zone: Option<&'a str>) -> Option<Row<'a>> {
        // a change boxtrack noticed is shown when it noticed it, at the port's clock
        let noticed = clock.clock.at(e.created_us);
        let change = |set: Option<String>, cleared: &str| {
            (
                set.unwrap_or_else(|| cleared.to_string()),
                noticed,
                pod_zone,
            )
        };
        let (what, at, zone) = match e.event.as_str() {
            "container.pickup_lfd_line.changed"
            | "container.pickup_lfd_terminal.changed"
            | "container.pickup_lfd_rail.changed" => return None,
            "container.pickup_lfd.changed" => change(
                e.at_us
                    .map(|day| format!("Last free day set to {}", look::short_day(day, pod_zone))),
                "Last free day withdrawn",
            ),
            "container.pickup_appointment.changed" => change(
                e.at_us.map(|t| {
                    format!(
                        "Pickup appointment set for {}",
                        look::short_local(t, pod_zone)
                    )
                }),
                "Pickup appointment cancelled",
            ),
            name => {
                let what = name
                    .trim_start_matches("container.")
                    .trim_start_matches("transport.")
                    .replace(['.', '_'], " ");
                // an event its source gave no time is shown when it was reported
                match e.at_us {
                    Some(t) => (capitalized(&what), t, e.timezone.as_deref()),
                    None => (
                        format!("{} (reported; no time given)", capitalized(&what)),
                        noticed,
                        e.timezone.as_deref().or(pod_zone),
                    ),
                }
            }
        };
        Some(Row { e, what, at, zone })
    }
}

/// One event of the timeline.
fn timeline_item(r: &Row<'_>, now: i64) -> Markup {
    let e = r.e;
    let vessel = match (&e.vessel_name, &e.voyage) {
        (Some(v), Some(voy)) => format!("{v} / {voy}"),
        (Some(v), None) => v.clone(),
        _ => String::new(),
    };
    let estimated = e.event.contains("estimated");
    let place: Vec<&str> = [e.locode.as_deref(), e.terminal.as_deref()]
        .into_iter()
        .flatten()
        .chain((!vessel.is_empty()).then_some(vessel.as_str()))
        .chain(std::iter::once(e.data_source.as_str()))
        .collect();
    html! {
        li class=[estimated.then_some("estimated")] {
            span class="what" { (r.what) }
            " "
            (look::when(r.at, r.zone, now))
            div class="where" { (place.join(" · ")) }
        }
    }
}

/// `s` with its first letter in capitals.
fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// What the summary card says, decided from the container, its shipment and the clocks.
struct Summary<'a> {
    status: ContainerStatus,
    ready_for_pickup: bool,
    /// Days to the last free day, for its colour and the badges.
    days: Option<i64>,
    /// The last free day and how far it is, when known.
    lfd: Option<(String, String)>,
    appointment: Option<String>,
    holds: String,
    fees: String,
    arrival: String,
    vessel: String,
    equipment: String,
    gates: [GateView; 3],
    next: String,
    state: &'a ContainerState,
    shipment: Option<&'a ShipmentRow>,
    updated: Markup,
}

/// The summary card: the badges, the facts a dispatcher looks for first (status, last free
/// day, holds, fees, terminal, bill of lading, last update) and the next step.
fn summary_card(c: &ContainerRow, shipment: Option<&ShipmentRow>, clock: Now) -> Markup {
    summary_html(&summary(c, shipment, clock))
}

/// Decides what the summary card says.
fn summary<'a>(c: &'a ContainerRow, shipment: Option<&'a ShipmentRow>, clock: Now) -> Summary<'a> {
    let now = clock.data;
    let st = &c.state;
    let status = ContainerStatus::parse(&c.current_status).unwrap_or(ContainerStatus::New);
    let zone = shipment.and_then(|sh| sh.route.pod_timezone.as_deref());
    let days = look::lfd_days(status, c.pickup_lfd_us, zone, now);
    let appointment = rules::appointment(st).map(|t| look::short_local(t, zone));
    let (arrival, vessel) = shipment.map_or_else(Default::default, |sh| {
        (look::arrival(&sh.route, &sh.state), look::vessel(&sh.state))
    });
    let gates = crate::release::gates_of(st, status.as_str());
    let next = crate::release::step_for(status, &gates).unwrap_or_else(|| {
        look::next_step(
            status,
            &st.holds,
            rules::reported_fees(st),
            days,
            appointment.as_deref(),
        )
    });
    Summary {
        status,
        ready_for_pickup: c.ready_for_pickup,
        days,
        lfd: c.pickup_lfd_us.map(|t| lfd_text(t, zone, now)),
        appointment,
        holds: holds_text(st),
        fees: fees_text(st),
        arrival: or_unknown(arrival),
        vessel: or_unknown(vessel),
        equipment: or_unknown(equipment_text(st)),
        gates,
        next,
        state: st,
        shipment,
        // boxtrack's own time, on the wall clock
        updated: look::when(c.updated_us, zone, clock.wall),
    }
}

/// The last free day and how far it is from `now` ("in 2 days", "today", "3 days ago").
fn lfd_text(t: i64, zone: Option<&str>, now: i64) -> (String, String) {
    let rel = match rules::days_until(t, zone, now) {
        Some(0) => "today".to_string(),
        Some(d) if d > 0 => format!("in {d} day{}", if d == 1 { "" } else { "s" }),
        Some(d) => format!("{} day{} ago", -d, if d == -1 { "" } else { "s" }),
        None => String::new(),
    };
    (look::short_day(t, zone), rel)
}

/// The holds in force, "none", or "not reported".
fn holds_text(st: &ContainerState) -> String {
    rules::reported_holds(st).map_or("not reported".to_string(), |h| {
        let active: Vec<&str> = rules::active_holds(h).map(|h| h.name.as_str()).collect();
        if active.is_empty() {
            "none".to_string()
        } else {
            active.join(", ")
        }
    })
}

/// The fees owed by currency, "none", or "not reported".
fn fees_text(st: &ContainerState) -> String {
    rules::reported_fees(st).map_or("not reported".to_string(), |f| {
        let sums = rules::fee_sums(f);
        if sums.values().all(|v| *v == 0) {
            "none".to_string()
        } else {
            sums.iter()
                .map(|(cur, minor)| detail::money(*minor, cur))
                .collect::<Vec<_>>()
                .join(", ")
        }
    })
}

/// Size, type, height and weight as far as reported, joined by middle dots.
fn equipment_text(st: &ContainerState) -> String {
    let e = &st.equipment;
    [
        e.equipment_length.map(|l| format!("{l}'")),
        e.equipment_type.clone(),
        e.equipment_height.clone().map(|h| h.replace('_', " ")),
        e.weight_in_lbs.map(|w| format!("{w} lbs")),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" · ")
}

/// "not known" for what is empty.
fn or_unknown(v: String) -> String {
    if v.is_empty() {
        "not known".to_string()
    } else {
        v
    }
}

/// The summary card as the page shows it.
fn summary_html(s: &Summary<'_>) -> Markup {
    let st = s.state;
    html! {
        div class="card" aria-label="Summary" {
            div class="badges" { (look::badges_html(&look::container_badges(s.status, st, s.days))) }
            dl class="facts" {
                div { dt { "Status" } dd { (s.status.label()) } }
                div { dt { "Ready for pickup" } dd { (if s.ready_for_pickup { "yes" } else { "no" }) } }
                div {
                    dt { "Last free day" }
                    dd class=(look::lfd_class(s.days)) {
                        @match &s.lfd {
                            Some((day, rel)) => { (day) " " span class="rel" { (rel) } }
                            None => { "not known" }
                        }
                    }
                }
                div { dt { "Pickup appointment" } dd { (s.appointment.as_deref().unwrap_or("none booked")) } }
                div { dt { "Holds" } dd { (s.holds) } }
                div { dt { "Fees" } dd { (s.fees) } }
                div { dt { "Arrival" } dd { (s.arrival) } }
                div { dt { "Vessel and voyage" } dd { (s.vessel) } }
                div { dt { "POD terminal" } dd { (st.pod_terminal.as_deref().unwrap_or("not known")) } }
                div { dt { "Yard location" } dd { (st.location_at_pod_terminal.as_deref().unwrap_or("not reported")) } }
                div { dt { "Size, type and weight" } dd { (s.equipment) } }
                div {
                    dt { "Bill of lading" }
                    dd {
                        @match s.shipment {
                            Some(sh) => { code { (sh.bill_of_lading_number) } " (" (sh.scac) ")" }
                            None => { "—" }
                        }
                    }
                }
                div { dt { "Updated" } dd { (s.updated) } }
            }
            div class="badges" aria-label="Release gates" { "Release: " (crate::release::badges(&s.gates)) }
            p class="next" { strong { "Next step:" } " " (s.next) }
        }
    }
}

/// The page's main content.
fn render(version: &str, found: &ContainerDetail, raw_page: u32, clock: Now, csrf: &str) -> Markup {
    let now = clock.data;
    let ContainerDetail {
        container: c,
        shipment,
        routing,
        rail,
        raw,
        documents: docs,
        fields,
        events,
        sources,
        clock: _,
        charges,
        entries,
    } = found;
    let shipment = shipment.as_ref();
    let pod_zone = shipment.and_then(|sh| sh.route.pod_timezone.as_deref());
    let sandbox = shipment.is_some_and(|sh| sh.scac == carriers::SANDBOX_SCAC);
    let st = &c.state;
    html! {
        h1 { "Container " (c.number) }
        (marker(version))
        div id="container-live" data-live {
            (summary_card(c, shipment, clock))
            section aria-labelledby="timeline" {
                h2 id="timeline" { "Timeline" }
                p class="muted" { "Times are those of the clock at each place." }
                (timeline(events, clock, pod_zone))
            }
            section aria-labelledby="release" {
                h2 id="release" { "Release gates" }
                (crate::release::section(
                    &crate::release::gates_of(st, &c.current_status),
                    |t| look::short_local(t, pod_zone),
                ))
            }
            section aria-labelledby="holds" {
                h2 id="holds" { "Holds" }
                (detail::holds(rules::reported_holds(st)))
            }
            section aria-labelledby="fees" {
                h2 id="fees" { "Fees" }
                (detail::fees(rules::reported_fees(st)))
            }
            section aria-labelledby="lfd" {
                h2 id="lfd" { "Last free day by source" }
                (detail::lfd(&st.lfd, *rail, pod_zone, now))
            }
            section aria-labelledby="charges" {
                h2 id="charges" { "Charges" }
                (charges::container_section(charges.as_ref()))
            }
            section aria-labelledby="provenance" {
                h2 id="provenance" { "Where each value came from" }
                (detail::provenance(sources, sandbox))
            }
            section aria-labelledby="documents" {
                h2 id="documents" { "Documents" }
                (detail::documents(docs))
            }
            section aria-labelledby="fields" {
                h2 id="fields" { "Custom fields" }
                (detail::custom_fields(fields))
            }
        }
        // outside the live part: what is typed is not replaced when the data changes
        section aria-labelledby="entered" {
            h2 id="entered" { "What you know" }
            (crate::entries::section(c.id, csrf, entries, pod_zone))
        }
        (route_section(c, *routing))
        section aria-labelledby="raw" {
            h2 id="raw" { "Upstream records, newest first" }
            (detail::raw_events(&raw.rows))
            (detail::raw_pager(c.id, raw_page, raw.total, raw.has_next))
        }
        p {
            a href={ "/v2/containers/" (c.id) } { "This container in the API" }
            " (with an API key)."
        }
    }
}

/// The page, with the map's scripts when the map is shown.
fn respond(number: &str, body: Markup, routing: bool) -> Response {
    if routing {
        page_with(
            StatusCode::OK,
            number,
            body,
            &["/embed/map.css"],
            &[
                "/embed/map.js",
                "/console/assets/container.js",
                live::SCRIPT,
            ],
        )
    } else {
        page_with(StatusCode::OK, number, body, &[], &[live::SCRIPT])
    }
}

/// `GET /console/containers/{id}/map_geojson`: the container's journey for the page's map
/// (what `GET /v2/containers/{id}/map_geojson` answers), with the session; the account
/// needs the routing entitlement.
pub async fn map_geojson(
    State(state): State<Front>,
    SignedIn(s): SignedIn,
    Path(id): Path<String>,
) -> Response {
    let missing = || ApiError::not_found("container").into_response();
    let Ok(id) = id.parse::<Uuid>() else {
        return missing();
    };
    match accounts::get(&state.ctx, s.account_id).await {
        Ok(Some(a)) if a.entitlements.contains(&Entitlement::Routing) => {}
        Ok(_) => {
            return ApiError::forbidden("The route map needs the routing entitlement.")
                .into_response();
        }
        Err(e) => return ApiError::from(e).into_response(),
    }
    match journey::journey(&state.ctx, s.account_id, id).await {
        Ok(Some((_, doc))) => axum::Json(doc).into_response(),
        Ok(None) => missing(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// `GET /console/documents/{id}/download`: one of the account's documents, through a download
/// token of 10 minutes as `GET /v2/documents/{id}/download_url` gives (the browser follows the
/// redirect to `/v2/downloads/{token}`).
pub async fn download(
    State(state): State<Front>,
    SignedIn(s): SignedIn,
    Path(id): Path<String>,
) -> Response {
    let missing = || {
        page(
            StatusCode::NOT_FOUND,
            "No such document",
            html! {
                main {
                    h1 { "No such document" }
                    p { a href="/console/containers" { "Back to the containers" } }
                }
            },
        )
    };
    let Ok(id) = id.parse::<Uuid>() else {
        return missing();
    };
    let token = match documents::download_token(&state.ctx, s.account_id, id).await {
        Ok(Some(token)) => token,
        Ok(None) => return missing(),
        Err(e) => return unavailable(&e),
    };
    see_other(&format!("/v2/downloads/{token}"))
}

/// This page's routes, each declared with its documentation.
pub(crate) fn routes() -> Mount {
    use crate::pagedoc::{html, page, see_other, unavailable};

    Mount::default()
        .public_get("/console/containers/{id}", self::show, || Doc::from_value({
                let mut op = page(
                    "A container",
                    "One of the account's containers: status, readiness, last free day, POD terminal, its bill of lading, its timeline of transport events at the local time of each place, holds, fees with their sums, the last free day of each source, the documents linked to it or its shipment, the custom fields of both, its upstream records 20 a page (`raw_page`), and its route map.",
                    ("200", html("The container page")),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        ("404", html("No such container in this account")),
                        ("503", unavailable()),
                    ],
                    None,
                );
                op["parameters"] = pagedoc::path_ids(&["id"]);
                if let Some(list) = op["parameters"].as_array_mut() {
                    list.push(
                        Param::query(
                            "raw_page",
                            Schema::integer().range(1, u32::MAX),
                            "The page of upstream records, newest first",
                        )
                        .into(),
                    );
                }
                op
            }))
        .public_get("/console/documents/{id}/download", self::download, || Doc::from_value({
                let mut op = page(
                    "Download a document",
                    "One of the account's documents: a download token of 10 minutes, as `GET /v2/documents/{id}/download_url` gives, and a redirect to `/v2/downloads/{token}`.",
                    (
                        "303",
                        see_other(
                            "To /v2/downloads/{token}, or to /console/sign-in without a session",
                        ),
                    ),
                    vec![
                        ("404", html("No such document in this account")),
                        ("503", unavailable()),
                    ],
                    None,
                );
                op["parameters"] = pagedoc::path_ids(&["id"]);
                op
            }))
        .public_get("/console/containers/{id}/map_geojson", self::map_geojson, || Doc::from_value({
                let mut op = page(
                    "A container's route map (console)",
                    "What `GET /v2/containers/{id}/map_geojson` answers, for the signed-in account (which needs the routing entitlement); the container page's map draws it.",
                    (
                        "200",
                        Doc::json_answer(
                            "A GeoJSON FeatureCollection",
                            doc::object(),
                        ),
                    ),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        (
                            "403",
                            doc::body(
                                "The account lacks the routing entitlement",
                                doc::schema_ref("Errors"),
                            ),
                        ),
                        (
                            "404",
                            doc::body(
                                "No such container in this account",
                                doc::schema_ref("Errors"),
                            ),
                        ),
                    ],
                    None,
                );
                op["parameters"] = pagedoc::path_ids(&["id"]);
                op
            }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_fall_into_the_legs_a_box_travels() {
        let leg = |e: &str| LEGS[leg_of(e)];
        assert_eq!(leg("container.transport.empty_out"), "Origin");
        assert_eq!(leg("container.transport.vessel_loaded"), "Origin");
        assert_eq!(leg("container.transport.vessel_departed"), "Ocean");
        assert_eq!(leg("container.transport.transshipment_discharged"), "Ocean");
        assert_eq!(leg("container.transport.estimated.arrived_at_pod"), "Ocean");
        assert_eq!(
            leg("container.transport.vessel_discharged"),
            "Port of discharge"
        );
        assert_eq!(leg("container.transport.full_out"), "Port of discharge");
        assert_eq!(leg("container.transport.rail_departed"), "Rail and inland");
        assert_eq!(
            leg("container.transport.arrived_at_inland_destination"),
            "Rail and inland"
        );
        assert_eq!(leg("container.transport.empty_in"), "Empty return");
        assert_eq!(capitalized("vessel departed"), "Vessel departed");
    }
}
