//! `get_demurrage_exposure`: what the account's tracked boxes owe by the tariffs it reads
//! (demurrage, storage, detention), what tomorrow adds, and whose free time ends soon — the
//! figures of `GET /v2/charges/summary` (boxtrack's extension).

use boxtrack_app::charges::container::{self, ContainerCharges};
use boxtrack_app::charges::summary::{self, Summary};
use boxtrack_app::model::{Account, ContainerRow, ShipmentRow};
use boxtrack_core::plan::Entitlement;
use boxtrack_http::Front;

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

/// What a box of `get_container` owes by the account's tariffs, as of `now_us` (its data's
/// clock); none without its shipment, or while no tariff prices it.
pub(super) async fn of_box(
    state: &Front,
    account: &Account,
    (c, shipment): (&ContainerRow, Option<&ShipmentRow>),
    now_us: i64,
) -> Result<Option<ContainerCharges>, ToolError> {
    let Some(s) = shipment else {
        return Ok(None);
    };
    let charges = container::priced(
        &state.ctx,
        account.id,
        (c, s),
        now_us,
        account.has(Entitlement::RailLfd),
    )
    .await
    .map_err(ToolError::from_app("the container's charges"))?;
    Ok(Some(charges).filter(|ch| !ch.charges.is_empty()))
}

/// The container resource's charges section: one line per kind.
pub(super) fn markdown(ch: &ContainerCharges) -> String {
    let mut text = String::from("\n## Charges (by the account's tariffs)\n\n");
    for c in &ch.charges {
        let k = &c.charge;
        text.push_str(&format!(
            "- **{kind}** ({issuer}): {cur} {amount} for {days} day(s); calculated LFD {lfd}{reported}{tomorrow}\n",
            kind = k.kind,
            issuer = k.issuer,
            cur = k.currency,
            amount = k.amount,
            days = k.chargeable_days,
            lfd = k.last_free_day.as_deref().unwrap_or("not yet"),
            reported = c
                .reported_last_free_day
                .as_ref()
                .filter(|r| Some(&r.date) != k.last_free_day.as_ref())
                .map_or(String::new(), |r| format!(" (the {} says {})", r.source, r.date)),
            tomorrow = c
                .coming
                .first()
                .map_or(String::new(), |d| format!("; tomorrow adds {}", d.adds)),
        ));
    }
    text
}
