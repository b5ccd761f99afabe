//! The REST API: every route module's routes, those that need a key behind `guard::guard`,
//! without the process-wide layers (the service adds them; MCP tools call these routes in
//! process).

use axum::Router;

use crate::guard;
use crate::routes::{
    account, api_keys, charges, container_map, containers, custom_fields, documents,
    email_submissions, events, health, infer, ingest, notifications, parties, publishable_keys,
    reference, sandbox, search, served_document, shipments, sources, tracking_requests, uploads,
    webhook_trigger, webhooks,
};
use crate::state::AppState;
use crate::state::Routes;

/// Every route module's routes and operations, in the document's display order.
pub fn parts() -> Vec<Routes> {
    vec![
        health::routes(),
        served_document::routes(),
        account::routes(),
        api_keys::routes(),
        publishable_keys::routes(),
        tracking_requests::routes(),
        infer::routes(),
        shipments::routes(),
        containers::routes(),
        container_map::routes(),
        uploads::routes(),
        documents::routes(),
        email_submissions::routes(),
        parties::routes(),
        charges::routes(),
        custom_fields::routes(),
        sandbox::routes(),
        reference::routes(),
        search::routes(),
        webhooks::routes(),
        webhook_trigger::routes(),
        events::routes(),
        notifications::routes(),
        ingest::routes(),
        sources::routes(),
    ]
}

/// `parts` joined: the public routes, and the others behind the key check.
pub fn join(state: &AppState, parts: Vec<Routes>) -> Router<AppState> {
    let mut authenticated = Router::new();
    let mut public = Router::new();
    for p in parts {
        authenticated = authenticated.merge(p.authenticated);
        public = public.merge(p.public);
    }
    public.merge(
        authenticated.route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            guard::guard,
        )),
    )
}

/// The REST routes.
pub fn router(state: &AppState) -> Router<AppState> {
    join(state, parts())
}
