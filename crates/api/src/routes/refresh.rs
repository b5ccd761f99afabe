//! `PATCH /v2/containers/{id}/refresh`: a container's sources read now, not when the
//! scheduler would ([`boxtrack_app::refresh`]).

use axum::Json;
use axum::extract::State;
use boxtrack_app::refresh::{self, Refreshed};

use crate::state::AppState;
use boxtrack_core::plan::Entitlement;
use boxtrack_http::auth::Caller;
use boxtrack_http::error::ApiResult;
use boxtrack_http::extract::IdPath;

/// `PATCH /v2/containers/{id}/refresh`: polls every source of the container now (the carrier,
/// and the terminal once it is discharged) and answers when done, with what changed.
pub async fn refresh(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<Json<Refreshed>> {
    caller.require(Entitlement::ContainerRefresh)?;
    Ok(Json(
        refresh::refresh(&state.ctx, &caller.account, id).await?,
    ))
}
