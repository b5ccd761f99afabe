//! An account's exposure: what its tracked boxes have accrued, what tomorrow adds, and whose
//! free time ends today, tomorrow or within three days, per kind and per terminal. Every box is
//! priced as `GET /v2/containers/{id}/charges` prices it, on its own data's clock; the
//! tariffs and calendars are read once for all of them.

use std::collections::{BTreeMap, HashMap};

use boxtrack_core::charges::Money;
use boxtrack_core::plan::Entitlement;
use boxtrack_store::charges::{self as store, PricedBox};
use boxtrack_store::reads::{ContainerRow, ShipmentRow};
use schemars::JsonSchema;
use serde::Serialize;
use uuid::Uuid;

use super::container::{ContainerCharge, ContainerCharges, ShippedBy, charges_of};
use super::quote::Pricer;
use crate::AppError;
use crate::accounts;
use crate::clock::DataClock;
use crate::ctx::Ctx;

/// The boxes each list of the summary names at most (the counts are whole).
pub const LISTED_MAX: usize = 500;

/// What one currency comes to.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Total {
    /// The currency.
    pub currency: String,
    /// The boxes with a charge in it.
    pub boxes: u32,
    /// What they have accrued.
    pub accrued: String,
    /// What tomorrow adds while they stay.
    pub tomorrow_adds: String,
}

/// What one kind, or one terminal, comes to in one currency.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GroupTotal {
    /// The kind (`demurrage`, …) or the terminal's code (null: not known).
    pub key: Option<String>,
    /// Its totals.
    #[serde(flatten)]
    pub total: Total,
}

/// A box whose free time ends soon.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EndingBox {
    /// The container.
    pub container_id: Uuid,
    /// Its number.
    pub number: String,
    /// The kind whose free time ends.
    pub kind: String,
    /// The calculated last free day.
    pub last_free_day: String,
    /// The terminal, if known.
    pub terminal: Option<String>,
}

/// The boxes of one horizon.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Ending {
    /// How many (box and kind).
    pub count: u32,
    /// The first [`LISTED_MAX`] of them, by last free day.
    pub boxes: Vec<EndingBox>,
}

/// A box accruing charges.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AccruingBox {
    /// The container.
    pub container_id: Uuid,
    /// Its number.
    pub number: String,
    /// The kind.
    pub kind: String,
    /// Its currency.
    pub currency: String,
    /// Accrued so far.
    pub accrued: String,
    /// What tomorrow adds.
    pub tomorrow_adds: String,
    /// The terminal, if known.
    pub terminal: Option<String>,
}

/// The account's exposure.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Summary {
    /// When it was summed (the wall clock; each box counts on its own data's clock).
    pub as_of: jiff::Timestamp,
    /// The tracked boxes summed over.
    pub boxes: u32,
    /// Those with at least one kind priced.
    pub priced: u32,
    /// Per currency.
    pub totals: Vec<Total>,
    /// Per kind and currency.
    pub by_kind: Vec<GroupTotal>,
    /// Per terminal and currency.
    pub by_terminal: Vec<GroupTotal>,
    /// Free times (box and kind, still running) whose last free day is today.
    pub free_time_ends_today: Ending,
    /// … tomorrow.
    pub free_time_ends_tomorrow: Ending,
    /// … in two or three days.
    pub free_time_ends_within_3_days: Ending,
    /// The boxes still accruing (a kind past its last free day whose clock runs), most accrued
    /// first.
    pub accruing: Vec<AccruingBox>,
    /// How many are accruing (box and kind).
    pub accruing_count: u32,
}

#[derive(Default)]
struct Sum {
    boxes: u32,
    accrued: Money,
    tomorrow: Money,
}

impl Sum {
    fn add(&mut self, accrued: Money, tomorrow: Money) {
        self.boxes += 1;
        self.accrued = self.accrued.plus(accrued);
        self.tomorrow = self.tomorrow.plus(tomorrow);
    }

    fn join(&mut self, other: Sum) {
        self.boxes += other.boxes;
        self.accrued = self.accrued.plus(other.accrued);
        self.tomorrow = self.tomorrow.plus(other.tomorrow);
    }

    fn total(&self, currency: &str) -> Total {
        Total {
            currency: currency.to_string(),
            boxes: self.boxes,
            accrued: self.accrued.to_string(),
            tomorrow_adds: self.tomorrow.to_string(),
        }
    }
}

fn money(text: &str) -> Money {
    Money::parse(text).unwrap_or(Money::ZERO)
}

/// A kind of a box (`id`, `number`) still accruing: past its last free day, its clock running.
fn accruing(
    (id, number): (Uuid, &str),
    terminal: Option<&String>,
    c: &ContainerCharge,
) -> Option<AccruingBox> {
    (c.charge.ended_on.is_none() && c.charge.chargeable_days > 0).then(|| AccruingBox {
        container_id: id,
        number: number.to_string(),
        kind: c.charge.kind.clone(),
        currency: c.charge.currency.clone(),
        accrued: c.charge.amount.clone(),
        tomorrow_adds: c
            .coming
            .first()
            .map_or_else(|| "0.00".into(), |d| d.adds.clone()),
        terminal: terminal.cloned(),
    })
}

/// The summary being summed.
#[derive(Default)]
struct Tally {
    boxes: u32,
    priced: u32,
    totals: BTreeMap<String, Sum>,
    kinds: BTreeMap<(String, String), Sum>,
    terminals: BTreeMap<(Option<String>, String), Sum>,
    ending: [Vec<EndingBox>; 3],
    accruing: Vec<(Money, AccruingBox)>,
}

impl Tally {
    /// Adds one box's charges.
    fn add(&mut self, b: &PricedBox, terminal: Option<&String>, charges: &ContainerCharges) {
        self.boxes += 1;
        if !charges.charges.is_empty() {
            self.priced += 1;
        }
        let terminal = terminal.cloned();
        let mut per_currency: BTreeMap<&str, (Money, Money)> = BTreeMap::new();
        for c in &charges.charges {
            let (accrued, tomorrow) = (
                money(&c.charge.amount),
                c.coming.first().map_or(Money::ZERO, |d| money(&d.adds)),
            );
            let currency = c.charge.currency.clone();
            let e = per_currency.entry(&c.charge.currency).or_default();
            *e = (e.0.plus(accrued), e.1.plus(tomorrow));
            self.kinds
                .entry((c.charge.kind.clone(), currency.clone()))
                .or_default()
                .add(accrued, tomorrow);
            let running = c.charge.ended_on.is_none();
            if let Some(a) = accruing((b.id, &b.number), terminal.as_ref(), c) {
                self.accruing.push((accrued, a));
            }
            self.note_ending(b, terminal.as_ref(), c, running);
        }
        for (currency, (accrued, tomorrow)) in per_currency {
            self.totals
                .entry(currency.to_string())
                .or_default()
                .add(accrued, tomorrow);
            self.terminals
                .entry((terminal.clone(), currency.to_string()))
                .or_default()
                .add(accrued, tomorrow);
        }
    }

    /// Notes a running kind whose last free day is today, tomorrow or in two or three days
    /// (by the box's own as-of date).
    fn note_ending(
        &mut self,
        b: &PricedBox,
        terminal: Option<&String>,
        c: &ContainerCharge,
        running: bool,
    ) {
        let Some(lfd) = c.charge.last_free_day.as_deref() else {
            return;
        };
        // the box's own today: the day before its first coming day
        let today = c
            .coming
            .first()
            .and_then(|d| d.date.parse::<jiff::civil::Date>().ok())
            .and_then(|d| d.yesterday().ok());
        let (Some(today), Ok(lfd_date), true) = (today, lfd.parse::<jiff::civil::Date>(), running)
        else {
            return;
        };
        let Ok(left) = today.until(lfd_date).map(|s| s.get_days()) else {
            return;
        };
        let bucket = match left {
            0 => 0,
            1 => 1,
            2 | 3 => 2,
            _ => return,
        };
        self.ending[bucket].push(EndingBox {
            container_id: b.id,
            number: b.number.clone(),
            kind: c.charge.kind.clone(),
            last_free_day: lfd.to_string(),
            terminal: terminal.cloned(),
        });
    }

    /// Adds another share's tally to this one.
    fn merge(&mut self, other: Tally) {
        self.boxes += other.boxes;
        self.priced += other.priced;
        for (k, v) in other.totals {
            self.totals.entry(k).or_default().join(v);
        }
        for (k, v) in other.kinds {
            self.kinds.entry(k).or_default().join(v);
        }
        for (k, v) in other.terminals {
            self.terminals.entry(k).or_default().join(v);
        }
        for (mine, theirs) in self.ending.iter_mut().zip(other.ending) {
            mine.extend(theirs);
        }
        self.accruing.extend(other.accruing);
    }

    fn finish(self, as_of: jiff::Timestamp) -> Summary {
        let groups = |m: BTreeMap<(Option<String>, String), Sum>| {
            m.into_iter()
                .map(|((key, currency), sum)| GroupTotal {
                    key,
                    total: sum.total(&currency),
                })
                .collect()
        };
        let [today, tomorrow, soon] = self.ending.map(|mut boxes| {
            boxes.sort_by(|a, b| a.last_free_day.cmp(&b.last_free_day));
            let count = u32::try_from(boxes.len()).unwrap_or(u32::MAX);
            boxes.truncate(LISTED_MAX);
            Ending { count, boxes }
        });
        let mut accruing = self.accruing;
        accruing.sort_by_key(|a| std::cmp::Reverse(a.0));
        let accruing_count = u32::try_from(accruing.len()).unwrap_or(u32::MAX);
        accruing.truncate(LISTED_MAX);
        Summary {
            as_of,
            boxes: self.boxes,
            priced: self.priced,
            totals: self
                .totals
                .iter()
                .map(|(currency, sum)| sum.total(currency))
                .collect(),
            by_kind: groups(
                self.kinds
                    .into_iter()
                    .map(|((k, c), s)| ((Some(k), c), s))
                    .collect(),
            ),
            by_terminal: groups(self.terminals),
            free_time_ends_today: today,
            free_time_ends_tomorrow: tomorrow,
            free_time_ends_within_3_days: soon,
            accruing: accruing.into_iter().map(|(_, b)| b).collect(),
            accruing_count,
        }
    }
}

/// Prices every tracked box of the account on its own data's clock at `now`, tallied: on a
/// backend that reads them in shares ([`store::box_shares`]), each share read and priced on
/// a task of its own.
async fn tally(ctx: &Ctx, account_id: Uuid, now: i64) -> Result<Tally, AppError> {
    let rail = accounts::get(ctx, account_id)
        .await?
        .is_some_and(|a| a.entitlements.contains(&Entitlement::RailLfd));
    let shares = store::box_shares(ctx.read_db(account_id));
    if shares <= 1 {
        return tally_share(ctx.clone(), account_id, (now, rail), (0, 1)).await;
    }
    let tasks: Vec<_> = (0..shares)
        .map(|share| {
            tokio::spawn(tally_share(
                ctx.clone(),
                account_id,
                (now, rail),
                (share, shares),
            ))
        })
        .collect();
    let mut all = Tally::default();
    for task in tasks {
        match task.await {
            Ok(part) => all.merge(part?),
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(_) => {
                return Err(AppError::Refused {
                    code: "stopping",
                    detail: "the service is stopping".into(),
                });
            }
        }
    }
    Ok(all)
}

/// One share of the account's boxes, read and priced.
async fn tally_share(
    ctx: Ctx,
    account_id: Uuid,
    (now, rail): (i64, bool),
    share: (u8, u8),
) -> Result<Tally, AppError> {
    let boxes = store::active_boxes(ctx.read_db(account_id), account_id, share).await?;
    let mut pricer = Pricer::new(&ctx, account_id);
    let mut tally = Tally::default();
    for mut b in boxes {
        let as_of = DataClock::of(Some(&b.clock()), ctx.policy.sandbox_speed).at(now);
        let state = std::mem::take(&mut b.state).into_state();
        let of = ShippedBy {
            scac: &b.scac,
            route: &b.route,
        };
        let charges = charges_of(&mut pricer, (b.id, &state), &of, as_of, (rail, 1)).await?;
        tally.add(&b, state.pod_terminal.as_ref(), &charges);
    }
    Ok(tally)
}

/// The account's exposure over its tracked boxes, each counted on its own data's clock.
pub async fn summary(ctx: &Ctx, account_id: Uuid) -> Result<Summary, AppError> {
    let now = ctx.now_us();
    let tally = tally(ctx, account_id, now).await?;
    Ok(tally.finish(jiff::Timestamp::from_microsecond(now).unwrap_or_default()))
}

/// Every one of the account's tracked boxes still accruing a charge, most accrued first (the
/// console's containers table filters on them).
pub async fn accruing_ids(ctx: &Ctx, account_id: Uuid) -> Result<Vec<Uuid>, AppError> {
    let mut accruing = tally(ctx, account_id, ctx.now_us()).await?.accruing;
    accruing.sort_by_key(|a| std::cmp::Reverse(a.0));
    let mut ids: Vec<Uuid> = Vec::new();
    for (_, b) in accruing {
        if !ids.contains(&b.container_id) {
            ids.push(b.container_id);
        }
    }
    Ok(ids)
}

/// What each box of a page accrues (the kinds past their last free day whose clock runs), by
/// container: each box with its shipment and the instant its data's clock reads.
pub async fn accruing_on_page(
    ctx: &Ctx,
    account_id: Uuid,
    boxes: &[(&ContainerRow, &ShipmentRow, i64)],
) -> Result<HashMap<Uuid, Vec<AccruingBox>>, AppError> {
    let mut pricer = Pricer::new(ctx, account_id);
    let mut out: HashMap<Uuid, Vec<AccruingBox>> = HashMap::new();
    for (c, s, as_of) in boxes {
        let of = ShippedBy {
            scac: &s.scac,
            route: &s.route,
        };
        let charges = charges_of(&mut pricer, (c.id, &c.state), &of, *as_of, (false, 1)).await?;
        let terminal = c.state.pod_terminal.as_ref();
        for ch in &charges.charges {
            if let Some(a) = accruing((c.id, &c.number), terminal, ch) {
                out.entry(c.id).or_default().push(a);
            }
        }
    }
    Ok(out)
}
