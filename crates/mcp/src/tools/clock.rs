//! "Now" on the clock of a shipment's data.

use boxtrack_api::state::AppState;
use uuid::Uuid;

/// "Now" on the clock of a shipment's data (`boxtrack_app::clock`): a sandbox journey's
/// virtual clock, a fast source's clock, else the wall clock.
pub(super) async fn data_now(state: &AppState, account: Uuid, shipment: Uuid) -> i64 {
    let now = state.now_us();
    boxtrack_app::clock::clock(&state.db, account, shipment, state.config.sandbox_speed)
        .await
        .at(now)
}
