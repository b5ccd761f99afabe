//! "Now" on the clock of a shipment's data.

use boxtrack_api::state::AppState;
use uuid::Uuid;

/// "Now" on the clock of a shipment's data: a sandbox journey runs on its virtual clock
/// (zero at its run's start, `sandbox_speed` times faster than real time); everything else on
/// the wall clock.
pub(super) async fn data_now(state: &AppState, account: Uuid, shipment: Uuid) -> i64 {
    let now = state.now_us();
    match boxtrack_store::sandbox::started_us(&state.db, account, shipment).await {
        Ok(Some(started)) => boxtrack_core::schedule::SourceClock::reading(
            started,
            started,
            state.config.sandbox_speed.max(1.0),
        )
        .now_at(now.max(started)),
        _ => now,
    }
}
