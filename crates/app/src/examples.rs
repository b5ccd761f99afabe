//! The sandbox's journeys played in a scratch database, as webhook notification examples are
//! made the way live notifications are.
//!
//! Every scripted sandbox journey (and the sandbox numbers that fail, await their manifest or
//! stop) is played in a scratch SQLite database through the same tracking-request processor,
//! merge, event log, notification fan-out and envelope code that live deliveries go through;
//! the first notification of each event is that event's example. The REST service's tour
//! then records its operations over the same data (`boxtrack_api::examples`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use boxtrack_core::carriers;
use boxtrack_core::paging::{self, Page};
use boxtrack_core::plan::{Entitlement, Plan};
use boxtrack_core::ratelimit::{Bucket, Limits};
use boxtrack_core::requests::{RequestType, ValidRequest};
use boxtrack_core::webhooks::EVENTS;
use boxtrack_sources::sandbox::Sandbox;
use boxtrack_sources::{Source, scenarios};
use boxtrack_store::{Db, StoreError, accounts, notifications, now_us, tracking, webhooks};
use boxtrack_views::notifications as views_notifications;
use boxtrack_worker::Processor;
use serde_json::Value;
use uuid::Uuid;

use crate::AppError;
use crate::ctx::Ctx;

const H: i64 = 1_000_000; // one simulated hour per real second at the default speed

/// A scratch database in which every sandbox journey has played for one subscribed account.
pub struct Scratch {
    /// The context over the scratch database.
    pub ctx: Ctx,
    /// The account the journeys played for (every entitlement, a webhook of every event).
    pub account_id: Uuid,
    /// The scratch folder, removed on [`Scratch::close`].
    dir: PathBuf,
}

impl Scratch {
    /// A new scratch database with every journey played to its end (one shipment stopped by
    /// its user).
    pub async fn played() -> Result<Scratch, AppError> {
        let dir = std::env::temp_dir().join(format!("boxtrack-examples-{}", Uuid::now_v7()));
        let path = dir.join("examples.sqlite");
        let db = Db::connect(&format!("sqlite://{}", path.display())).await?;
        match play(&db).await {
            Ok(account_id) => Ok(Scratch {
                ctx: Ctx::new(db),
                account_id,
                dir,
            }),
            Err(e) => {
                db.close().await;
                let _ = std::fs::remove_dir_all(&dir);
                Err(e.into())
            }
        }
    }

    /// The envelope of the first notification of each event, by event name.
    pub async fn first_notifications(&self) -> Result<BTreeMap<String, Value>, AppError> {
        let rows = first_of_each_event(&self.ctx.db, self.account_id).await?;
        let envelopes = views_notifications::envelopes(&self.ctx.db, &rows, Vec::new()).await?;
        Ok(rows.into_iter().map(|r| r.event).zip(envelopes).collect())
    }

    /// Closes the database and removes the scratch folder (whatever is left behind in the
    /// temporary folder is harmless).
    pub async fn close(self) {
        self.ctx.db.close().await;
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Migrates, makes the account, tracks and plays every journey, stops one shipment.
async fn play(db: &Db) -> Result<Uuid, StoreError> {
    db.migrate().await?;
    let account = subscribed_account(db).await?;
    let journeys = scenarios::scenarios();
    track_every_journey(db, account.id, &journeys).await?;
    play_to_the_end(db, &journeys).await?;
    // a user stops tracking one shipment
    stop_one(db, account.id, "TEST-SCN-IMPORT").await?;
    Ok(account.id)
}

/// An account with every entitlement, limits the tour cannot reach, and a webhook of every
/// event (so each event leaves a notification to show).
async fn subscribed_account(db: &Db) -> Result<accounts::Account, StoreError> {
    let (account, _, _) = accounts::create(
        db,
        accounts::NewAccount {
            name: "Webhook examples".into(),
            plan: Plan::Standard,
            entitlements: Entitlement::ALL.to_vec(),
            // the tour makes a hundred calls in a moment
            rate_limits: Limits(Bucket::ALL.into_iter().map(|b| (b, 1_000_000)).collect()),
        },
    )
    .await?;
    webhooks::create(
        db,
        account.id,
        &webhooks::NewWebhook {
            url: "https://example.com/webhooks/boxtrack".into(),
            active: true,
            events: EVENTS.iter().map(|e| e.to_string()).collect(),
            headers: BTreeMap::new(),
            secret: "whsec_examples".into(),
        },
    )
    .await?;
    Ok(account)
}

/// A tracking request for each sandbox journey, and for the two that never become a
/// shipment (failed, awaiting the manifest).
async fn track_every_journey(
    db: &Db,
    account_id: Uuid,
    journeys: &[scenarios::Scenario],
) -> Result<(), StoreError> {
    let mut numbers: Vec<&str> = journeys.iter().map(|s| s.number).collect();
    numbers.extend(["TEST-TR-FAILED", "TEST-TR-AWAITING-MANIFEST"]);
    for number in numbers {
        let request = ValidRequest {
            number: number.to_string(),
            request_type: RequestType::BillOfLading,
            scac: Some(carriers::SANDBOX_SCAC.to_string()),
            auto_detect: false,
            ref_numbers: vec!["PO-1234".into()],
            shipment_tags: vec![],
        };
        tracking::create_request(
            db,
            account_id,
            Plan::Standard,
            &request,
            &tracking::RequestExtras::default(),
        )
        .await?;
    }
    Ok(())
}

/// Every journey played by the worker on the journeys' clock, hour by hour.
async fn play_to_the_end(db: &Db, journeys: &[scenarios::Scenario]) -> Result<(), StoreError> {
    let sources: Vec<Arc<dyn Source>> = vec![Arc::new(Sandbox)];
    let worker = Processor::new(db.clone(), sources);
    let start = now_us();
    worker.process_due(start).await?;
    let mut hours: Vec<i64> = journeys
        .iter()
        .flat_map(|s| s.steps.iter().map(|st| st.at_h))
        .collect();
    hours.sort_unstable();
    hours.dedup();
    for h in hours {
        worker.tick(start + h * H).await?;
    }
    Ok(())
}

/// A whole list at once, page by page.
fn all(number: u32) -> Page {
    Page {
        number,
        size: paging::MAX_SIZE,
        cursor: None,
    }
}

/// Stops tracking the shipment of the request for `number`.
async fn stop_one(db: &Db, account_id: Uuid, number: &str) -> Result<(), StoreError> {
    let requests =
        tracking::list_requests(db, account_id, &tracking::RequestFilter::default(), &all(1))
            .await?;
    if let Some(shipment) = requests
        .rows
        .iter()
        .filter(|r| r.request_number == number)
        .find_map(|r| r.shipment_id)
    {
        tracking::stop_shipment(db, account_id, shipment, "cancelled_by_user").await?;
    }
    Ok(())
}

/// The oldest notification of each event (the list is newest first).
async fn first_of_each_event(
    db: &Db,
    account_id: Uuid,
) -> Result<Vec<notifications::NotificationRow>, StoreError> {
    let mut first: BTreeMap<String, notifications::NotificationRow> = BTreeMap::new();
    for number in 1.. {
        let listed = notifications::list(
            db,
            account_id,
            &notifications::Filter::default(),
            &all(number),
        )
        .await?;
        let last = listed.rows.len() < paging::MAX_SIZE as usize;
        for row in listed.rows {
            first.insert(row.event.clone(), row);
        }
        if last {
            break;
        }
    }
    Ok(first.into_values().collect())
}
