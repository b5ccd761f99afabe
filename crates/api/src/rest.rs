//! The REST API's routes (`/v2/…`, health, docs) without the MCP and OAuth endpoints or the
//! process-wide layers: the whole service mounts them, and MCP tools call them in-process.

use axum::Router;
use axum::routing::{get, patch};

use crate::auth;
use crate::routes::{
    self, account, api_keys, containers, docs, health, shipments, tracking_requests,
};
use crate::state::AppState;

/// The REST routes, authenticated ones behind the key check and rate limits.
pub fn router(state: &AppState) -> Router<AppState> {
    let authenticated = Router::new()
        .route("/v2/account", get(account::show))
        .route("/v2/api_keys", get(api_keys::list).post(api_keys::create))
        .route(
            "/v2/api_keys/{id}",
            get(api_keys::show).delete(api_keys::revoke),
        )
        .route(
            "/v2/tracking_requests",
            get(tracking_requests::list).post(tracking_requests::create),
        )
        .route(
            "/v2/tracking_requests/infer_number",
            axum::routing::post(tracking_requests::infer_number),
        )
        .route(
            "/v2/tracking_requests/{id}",
            get(tracking_requests::show).patch(tracking_requests::update),
        )
        .route("/v2/shipments", get(shipments::list))
        .route(
            "/v2/shipments/{id}",
            get(shipments::show).patch(shipments::update),
        )
        .route("/v2/shipments/{id}/stop_tracking", patch(shipments::stop))
        .route(
            "/v2/shipments/{id}/resume_tracking",
            patch(shipments::resume),
        )
        .route("/v2/containers", get(containers::list))
        .route(
            "/v2/containers/{id}",
            get(containers::show).patch(containers::update),
        )
        .route(
            "/v2/containers/{id}/transport_events",
            get(containers::events),
        )
        .route(
            "/v2/containers/{id}/map_geojson",
            get(containers::map_geojson),
        )
        .route(
            "/v2/containers/{id}/raw_events",
            get(containers::raw_events),
        )
        .route("/v2/sandbox/scenarios", get(routes::sandbox::list))
        .route("/v2/shipping_lines", get(routes::reference::lines))
        .route("/v2/shipping_lines/{id}", get(routes::reference::line))
        .route("/v2/ports/{id}", get(routes::reference::port))
        .route("/v2/terminals/{id}", get(routes::reference::terminal))
        .route("/v2/metro_areas/{id}", get(routes::reference::metro))
        .route("/v2/vessels/{id}", get(routes::reference::vessel))
        .route(
            "/v2/vessels/{id}/future_positions",
            get(routes::reference::future_positions),
        )
        .route(
            "/v2/vessels/{id}/future_positions_with_coordinates",
            get(routes::reference::future_positions_with_coordinates),
        )
        .route("/v2/search", get(routes::search::search))
        .route("/v2/ingest/x12", axum::routing::post(routes::ingest::x12))
        .route("/v2/containers/{id}/refresh", patch(containers::refresh))
        .route("/v2/sources", get(routes::sources::list))
        .route("/v2/events", get(routes::events::feed))
        .route(
            "/v2/webhook_notifications",
            get(routes::notifications::list),
        )
        .route(
            "/v2/webhook_notifications/examples",
            get(routes::notifications::examples),
        )
        .route(
            "/v2/webhook_notifications/{id}",
            get(routes::notifications::show),
        )
        .route(
            "/v2/webhooks",
            get(routes::webhooks::list).post(routes::webhooks::create),
        )
        .route("/v2/webhooks/events", get(routes::webhooks::events))
        .route("/v2/webhooks/ips", get(routes::webhooks::ips))
        .route(
            "/v2/webhooks/trigger",
            axum::routing::post(routes::webhooks::trigger),
        )
        .route(
            "/v2/webhooks/{id}/replay",
            axum::routing::post(routes::webhooks::replay),
        )
        .route(
            "/v2/webhooks/{id}",
            get(routes::webhooks::show)
                .patch(routes::webhooks::update)
                .delete(routes::webhooks::delete),
        )
        .route(
            "/rails/active_storage/direct_uploads",
            axum::routing::post(routes::documents::announce),
        )
        .route(
            "/v2/documents",
            get(routes::documents::list).post(routes::documents::create),
        )
        .route("/v2/documents/types", get(routes::documents::types))
        .route(
            "/v2/email_submissions",
            get(routes::email_submissions::list)
                .post(routes::email_submissions::create)
                .layer(axum::extract::DefaultBodyLimit::max(
                    routes::email_submissions::MAX_MESSAGE_BYTES,
                )),
        )
        .route(
            "/v2/email_submissions/{id}",
            get(routes::email_submissions::show),
        )
        .route(
            "/v2/custom_field_definitions",
            get(routes::custom_fields::list_definitions)
                .post(routes::custom_fields::create_definition),
        )
        .route(
            "/v2/custom_field_definitions/{id}",
            get(routes::custom_fields::show_definition)
                .patch(routes::custom_fields::update_definition)
                .delete(routes::custom_fields::delete_definition),
        )
        .route(
            "/v2/custom_field_definitions/{id}/options",
            get(routes::custom_fields::list_options).post(routes::custom_fields::create_option),
        )
        .route(
            "/v2/custom_field_definitions/{id}/options/{option_id}",
            get(routes::custom_fields::show_option)
                .patch(routes::custom_fields::update_option)
                .delete(routes::custom_fields::delete_option),
        )
        .route(
            "/v2/custom_fields",
            get(routes::custom_fields::list_fields).post(routes::custom_fields::create_field),
        )
        .route(
            "/v2/custom_fields/{id}",
            get(routes::custom_fields::show_field)
                .patch(routes::custom_fields::update_field)
                .delete(routes::custom_fields::delete_field),
        )
        .route(
            "/v2/shipments/{id}/custom_fields",
            get(routes::custom_fields::nested_list::<0>)
                .post(routes::custom_fields::nested_create::<0>),
        )
        .route(
            "/v2/shipments/{id}/custom_fields/{api_slug}",
            patch(routes::custom_fields::nested_update::<0>)
                .delete(routes::custom_fields::nested_delete::<0>),
        )
        .route(
            "/v2/containers/{id}/custom_fields",
            get(routes::custom_fields::nested_list::<1>)
                .post(routes::custom_fields::nested_create::<1>),
        )
        .route(
            "/v2/containers/{id}/custom_fields/{api_slug}",
            patch(routes::custom_fields::nested_update::<1>)
                .delete(routes::custom_fields::nested_delete::<1>),
        )
        .route(
            "/v2/tracking_requests/{id}/custom_fields",
            get(routes::custom_fields::nested_list::<2>)
                .post(routes::custom_fields::nested_create::<2>),
        )
        .route(
            "/v2/tracking_requests/{id}/custom_fields/{api_slug}",
            patch(routes::custom_fields::nested_update::<2>)
                .delete(routes::custom_fields::nested_delete::<2>),
        )
        .route(
            "/v2/parties",
            get(routes::parties::list).post(routes::parties::create),
        )
        .route(
            "/v2/parties/{id}",
            get(routes::parties::show).patch(routes::parties::update),
        )
        .route(
            "/v2/documents/{id}",
            get(routes::documents::show)
                .patch(routes::documents::update)
                .delete(routes::documents::delete),
        )
        .route(
            "/v2/documents/{id}/reclassify",
            axum::routing::post(routes::documents::reclassify),
        )
        .route(
            "/v2/documents/{id}/relink",
            axum::routing::post(routes::documents::relink),
        )
        .route(
            "/v2/documents/{id}/download_url",
            get(routes::documents::download_url),
        )
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::guard,
        ));
    Router::new()
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(health::metrics))
        .route("/docs", get(docs::page))
        .route("/v2/openapi.json", get(docs::openapi_json))
        .route("/v2/ingest/dcsa", axum::routing::post(routes::ingest::dcsa))
        // the URL is the credential of these two (as a presigned storage URL is)
        .route(
            "/v2/uploads/{token}",
            axum::routing::put(routes::documents::upload).layer(
                axum::extract::DefaultBodyLimit::max(
                    usize::try_from(boxtrack_core::documents::MAX_BYTES).unwrap_or(usize::MAX),
                ),
            ),
        )
        .route("/v2/downloads/{token}", get(routes::documents::download))
        .merge(authenticated)
}
