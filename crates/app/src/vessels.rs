//! The vessels an account's shipments sail on, as `/v2/vessels` shows them: found by IMO or
//! by the id derived from it, with what AIS says of each and its track.

pub use boxtrack_store::ais::{AisVessel, TrackPoint};
use boxtrack_store::{ais as store, reads};
use uuid::Uuid;

use crate::AppError;
use crate::ctx::Ctx;

/// The IMO numbers of the vessels seen in the account's events.
pub async fn imos(ctx: &Ctx, account_id: Uuid) -> Result<Vec<String>, AppError> {
    Ok(reads::vessel_imos(&ctx.db, account_id).await?)
}

/// The name the account's events give the vessel with this IMO, if they name it.
pub async fn name(ctx: &Ctx, account_id: Uuid, imo: &str) -> Result<Option<String>, AppError> {
    Ok(reads::vessel_name(&ctx.db, account_id, imo).await?)
}

/// What AIS says of the vessel with this IMO (its latest report).
pub async fn ais(ctx: &Ctx, imo: &str) -> Result<Option<AisVessel>, AppError> {
    Ok(store::by_imo(&ctx.db, imo).await?)
}

/// The vessel's AIS positions between two instants (either open), at most `limit`.
pub async fn track(
    ctx: &Ctx,
    mmsi: i64,
    from_us: Option<i64>,
    to_us: Option<i64>,
    limit: i64,
) -> Result<Vec<TrackPoint>, AppError> {
    Ok(store::track(&ctx.db, mmsi, from_us, to_us, limit).await?)
}
