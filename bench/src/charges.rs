//! Charges (issue 77): what one box's quote costs in `core`, and what an account's exposure
//! (`GET /v2/charges/summary`) costs over a seeded account, beside reading its boxes alone in
//! the same run.
//!
//! ```sh
//! cargo build --release -p boxtrack-bench
//! DATABASE_URL=sqlite:///tmp/c100k.db ./target/release/bench-seed 100000 20000 1 /tmp/c100k.json
//! ./target/release/bench-charges /tmp/c100k.json [ROUNDS]
//! ```
//!
//! The seeded boxes are copies of the sandbox journey `TEST-SCN-IMPORT` at its end (discharged
//! at Los Angeles, picked up, returned empty); public demurrage and detention tariffs for the
//! seed's line are loaded first (four working days free on a US federal calendar, two tiers),
//! so every box is priced twice, day by day.

use std::time::{Duration, Instant};

use boxtrack_core::charges::count::{Facility, Span, count};
use boxtrack_core::charges::{Calendar, CalendarDoc, TariffDoc};
use boxtrack_store::{Db, on_db};
use serde_json::{Value, json};
use uuid::Uuid;

use boxtrack_bench::Res;

fn tariff(issuer: &str, kind: &str, from: &str) -> Res<TariffDoc> {
    Ok(serde_json::from_value(json!({
        "name": format!("bench {kind}"), "issuer": issuer, "kind": kind, "ports": ["*"],
        "equipment": ["*"], "valid_from": "2000-01-01", "valid_to": null, "currency": "USD",
        "free_time": {"days": 4, "count": "working", "from": from, "starts": "next_day"},
        "charges": {"count": "calendar"},
        "tiers": [{"from_day": 1, "to_day": 4, "rate": "150.00"}, {"from_day": 5, "to_day": null, "rate": "180.00"}],
        "excuse": {"closures": true, "holds": ["customs"]},
        "source": {"url": "https://example.com/bench", "retrieved": "2026-12-06"}
    }))?)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Microseconds one quote of the specification's worked example costs in `core` (the rule
/// alone: free time on working days over a calendar with a holiday, six days charged).
fn core_quote() -> Res<f64> {
    let t = tariff("MAEU", "demurrage", "discharged")?
        .check()
        .map_err(|p| format!("{p:?}"))?;
    let cal = Calendar::of(&CalendarDoc {
        port: "USLAX".into(),
        facility: None,
        weekend: None,
        holidays: vec!["2026-03-09".parse()?],
        holidays_rule: Some(boxtrack_core::charges::calendar::HolidaysRule::UsFederal),
        closures: vec![],
        source: None,
    });
    let zone = jiff::tz::TimeZone::get("America/Los_Angeles")?;
    let f = Facility {
        calendar: &cal,
        zone: &zone,
        holds: &[],
    };
    let span = Span {
        start: "2026-03-05".parse()?,
        end: Some("2026-03-18".parse()?),
        as_of: "2026-03-20".parse()?,
    };
    let n = 200_000u32;
    let mut sum = 0i64;
    let started = Instant::now();
    for _ in 0..n {
        sum += std::hint::black_box(count(&t, &f, std::hint::black_box(span)))
            .amount
            .0;
    }
    let each = started.elapsed().as_secs_f64() * 1e6 / f64::from(n);
    if sum != 96_000 * i64::from(n) {
        return Err(format!("the worked example came to {sum}").into());
    }
    Ok(each)
}

#[tokio::main]
async fn main() -> Res<()> {
    let mut args = std::env::args().skip(1);
    let seed: Value = serde_json::from_slice(&std::fs::read(
        args.next()
            .ok_or("usage: bench-charges SEED.json [ROUNDS]")?,
    )?)?;
    let rounds: usize = args.next().map_or(Ok(5), |r| r.parse())?;
    println!(
        "core: one quote of the worked example: {:.2} µs",
        core_quote()?
    );

    let url = seed["database_url"].as_str().ok_or("no database_url")?;
    let account: Uuid = seed["accounts"][0]["id"]
        .as_str()
        .ok_or("no account")?
        .parse()?;
    let db = Db::connect(url).await?;
    db.migrate().await?;
    let ctx = boxtrack_app::Ctx::new(db.clone());
    let scac: String = on_db!(&db, p => sqlx::query_scalar("SELECT scac FROM shipments WHERE account_id = $1 LIMIT 1")
        .bind(account).fetch_one(p).await?);
    let loaded: i64 = on_db!(&db, p => sqlx::query_scalar("SELECT COUNT(*) FROM public_tariffs WHERE issuer = $1")
        .bind(&scac).fetch_one(p).await?);
    if loaded == 0 {
        for (kind, from) in [("demurrage", "discharged"), ("detention", "full_out")] {
            boxtrack_app::charges::add_tariff(&ctx, None, tariff(&scac, kind, from)?).await?;
        }
    }

    let (mut read, mut summed) = (Vec::new(), Vec::new());
    let mut shown = Value::Null;
    for _ in 0..rounds {
        let t = Instant::now();
        let boxes = boxtrack_store::charges::active_boxes(&db, account, (0, 1)).await?;
        read.push(t.elapsed());
        let t = Instant::now();
        let s = boxtrack_app::charges::summary::summary(&ctx, account).await?;
        summed.push(t.elapsed());
        shown = json!({"boxes": boxes.len(), "priced": s.priced, "totals": s.totals.len()});
    }
    println!(
        "exposure of {shown}: summary {:.0} ms (median of {rounds}); reading the boxes alone {:.0} ms",
        median(summed).as_secs_f64() * 1e3,
        median(read).as_secs_f64() * 1e3,
    );
    Ok(())
}
