//! `get_demurrage_exposure`: what the account's tracked boxes owe by the tariffs it reads
//! (demurrage, storage, detention), what tomorrow adds, and whose free time ends soon — the
//! figures of `GET /v2/charges/summary` (boxtrack's extension).

use boxtrack_app::charges::summary::{self, Summary};

use super::error::ToolError;
use super::tool::{Cx, NoArgs, Tool};

/// `get_demurrage_exposure`.
pub struct GetDemurrageExposure;

impl Tool for GetDemurrageExposure {
    const GUIDE: super::contract::Guide = super::guides::EXPOSURE;
    type Input = NoArgs;
    type Output = Summary;
    const NAME: &'static str = "get_demurrage_exposure";
    const TITLE: &'static str = "Get Demurrage Exposure";
    const DESCRIPTION: &'static str = "What the account's tracked containers owe in demurrage, storage and detention by the tariffs the account reads (its own and the public ones), each counted day by day on its own data's clock: accrued and what tomorrow adds per currency, per kind and per terminal; the free times ending today, tomorrow and in two or three days; the containers accruing, most accrued first. Amounts are exact decimal strings. A container whose line, port or equipment has no tariff is not priced (boxes vs priced says how many were). Use it for \"what is my demurrage exposure\" and \"which boxes are costing me\"; use get_container for one box's charges day by day.";

    async fn call(cx: &Cx<'_>, _: NoArgs) -> Result<Summary, ToolError> {
        summary::summary(&cx.state.ctx, cx.account.id)
            .await
            .map_err(ToolError::from_app("the charges"))
    }
}
