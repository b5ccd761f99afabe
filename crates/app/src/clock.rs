//! "Now" on the clock of a shipment's data, so that "3 h ago", "in 2 days" and a last free
//! day's days count as the data does: a sandbox journey runs on its virtual clock (zero at its
//! run's start, `sandbox_speed` times faster than real time), a shipment fed by a source whose
//! clock runs fast (the upstream simulator) on that source's clock, everything else on the
//! wall clock. What boxtrack itself did (a row's `updated_at`) is on the wall clock.

use std::collections::HashMap;

use boxtrack_core::schedule::SourceClock;
use boxtrack_store::sandbox::{self, DataClockRow};
use boxtrack_store::{Db, StoreError};
use uuid::Uuid;

use crate::ctx::Ctx;

/// The clock of one shipment's data.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DataClock {
    /// The reading it runs from; none: the wall clock.
    reading: Option<SourceClock>,
    /// A sandbox journey's start: its clock does not run before it.
    not_before: Option<i64>,
}

impl DataClock {
    /// The wall clock.
    pub fn wall() -> DataClock {
        DataClock::default()
    }

    /// The clock of a shipment whose row is `row` (none: the wall clock).
    pub fn of(row: Option<&DataClockRow>, sandbox_speed: f64) -> DataClock {
        let Some(row) = row else {
            return DataClock::wall();
        };
        if let Some(started) = row.started_us {
            return DataClock {
                reading: Some(SourceClock::reading(
                    started,
                    started,
                    sandbox_speed.max(1.0),
                )),
                not_before: Some(started),
            };
        }
        match (row.clock_wall_us, row.clock_source_us, row.clock_speed) {
            (Some(wall), Some(source), Some(speed)) => DataClock {
                reading: Some(SourceClock::reading(wall, source, speed)),
                not_before: None,
            },
            _ => DataClock::wall(),
        }
    }

    /// This clock's time at real time `wall_us` (when boxtrack recorded something, say).
    pub fn at(&self, wall_us: i64) -> i64 {
        match self.reading {
            Some(r) => r.now_at(self.not_before.map_or(wall_us, |s| wall_us.max(s))),
            None => wall_us,
        }
    }
}

/// The clocks of an account's shipments `ids` (a page's, read where the page was:
/// [`Ctx::read_db`]); a shipment not found is on the wall clock.
pub async fn clocks(
    ctx: &Ctx,
    account_id: Uuid,
    ids: &[Uuid],
) -> Result<HashMap<Uuid, DataClock>, StoreError> {
    clocks_in(ctx.read_db(account_id), ctx, account_id, ids).await
}

async fn clocks_in(
    db: &Db,
    ctx: &Ctx,
    account_id: Uuid,
    ids: &[Uuid],
) -> Result<HashMap<Uuid, DataClock>, StoreError> {
    let rows = sandbox::data_clocks(db, account_id, ids).await?;
    Ok(rows
        .iter()
        .map(|r| (r.id, DataClock::of(Some(r), ctx.policy.sandbox_speed)))
        .collect())
}

/// The clock of one of an account's shipments, read from the primary as reads of one
/// resource are (the wall clock when it cannot be read).
pub async fn clock(ctx: &Ctx, account_id: Uuid, shipment: Uuid) -> DataClock {
    clocks_in(&ctx.db, ctx, account_id, &[shipment])
        .await
        .ok()
        .and_then(|m| m.get(&shipment).copied())
        .unwrap_or_default()
}

/// "Now" on the clock of one of an account's shipments: what the console's pages and MCP's
/// answers count days from.
pub async fn now(ctx: &Ctx, account_id: Uuid, shipment: Uuid) -> i64 {
    clock(ctx, account_id, shipment).await.at(ctx.now_us())
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = 3_600_000_000;

    fn row() -> DataClockRow {
        DataClockRow {
            id: Uuid::nil(),
            started_us: None,
            clock_wall_us: None,
            clock_source_us: None,
            clock_speed: None,
        }
    }

    #[test]
    fn each_shipment_s_data_keeps_its_own_clock() {
        // no row, or one without a clock: the wall clock
        assert_eq!(DataClock::of(None, 3600.0).at(10 * H), 10 * H);
        assert_eq!(DataClock::of(Some(&row()), 3600.0).at(10 * H), 10 * H);
        // a sandbox journey started at 10 h runs an hour a second, and not before its start
        let sandbox = DataClock::of(
            Some(&DataClockRow {
                started_us: Some(10 * H),
                ..row()
            }),
            3600.0,
        );
        assert_eq!(sandbox.at(10 * H + 2_000_000), 12 * H);
        assert_eq!(sandbox.at(5 * H), 10 * H);
        // a simulated carrier said 100 h at real 10 h, running 10 times faster
        let sim = DataClock::of(
            Some(&DataClockRow {
                clock_wall_us: Some(10 * H),
                clock_source_us: Some(100 * H),
                clock_speed: Some(10.0),
                ..row()
            }),
            3600.0,
        );
        assert_eq!(sim.at(11 * H), 110 * H);
    }
}
