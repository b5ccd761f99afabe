//! Reads from a real streaming replica (issue 45, part 3): a PostgreSQL primary and a
//! `pg_basebackup -R` replica of it made in a temporary folder for each test
//! (`boxtrack_testkit::pgreplica`; skipped, saying why, where the server binaries are missing).
//! Read-your-writes, the lag bound and the loss of the replica, through the HTTP edge.

use std::sync::Arc;
use std::time::Duration;

use boxtrack_api::listen::Connections;
use boxtrack_api::{ApiConfig, AppState, Limiter};
use boxtrack_store::Db;
use boxtrack_store::replicas::Replicas;
use boxtrack_testkit::pgreplica::ReplicaPair;
use tokio_util::sync::CancellationToken;

use crate::helpers::{TestApp, tracking_request_body};

const MT: &str = "application/vnd.api+json";

/// A served app whose lists read from the replica of `pair`; the fields drop in order (the
/// app and the health loop stop before the clusters are removed).
struct Setup {
    app: TestApp,
    replicas: Arc<Replicas>,
    /// A connection to the replica of its own, to pause and resume its replay.
    replica: Db,
    stop: CancellationToken,
    pair: ReplicaPair,
}

impl Drop for Setup {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// The pair and the app, the replica in use; `None` (the test is skipped) where a cluster
/// cannot be made here.
async fn setup(max_lag: Duration) -> Option<Setup> {
    let pair = match ReplicaPair::start() {
        Ok(p) => p,
        Err(why) => {
            eprintln!("skipped: no PostgreSQL primary and replica can be made here: {why}");
            return None;
        }
    };
    let primary = Db::connect(&pair.primary_url).await.unwrap();
    primary.migrate().await.unwrap();
    let replicas = Arc::new(
        Replicas::open(
            primary.clone(),
            std::slice::from_ref(&pair.replica_url),
            max_lag,
            Some(4),
            Duration::from_secs(2),
        )
        .unwrap(),
    );
    let stop = CancellationToken::new();
    tokio::spawn(
        replicas
            .clone()
            .run(Duration::from_millis(100), stop.clone().cancelled_owned()),
    );
    let state = AppState::new(
        boxtrack_app::Ctx::new(primary).with_replicas(replicas.clone()),
        ApiConfig::default(),
        Limiter::memory(),
    );
    let app = TestApp::serve_state(state, Connections::default()).await;
    let replica = Db::connect(&pair.replica_url).await.unwrap();
    let s = Setup {
        app,
        replicas,
        replica,
        stop,
        pair,
    };
    s.until("the replica is in use and caught up", |h| {
        h.in_use && h.lag_bytes == 0
    })
    .await;
    Some(s)
}

impl Setup {
    /// Waits (10 s at most) until the replica's health is as `want` says.
    async fn until(&self, what: &str, want: impl Fn(&boxtrack_store::replicas::Health) -> bool) {
        for _ in 0..200 {
            if want(&self.replicas.status()[0].health) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("{what}: not within 10 s: {:?}", self.replicas.status());
    }

    async fn replay(&self, pause: bool) {
        let Db::Postgres(p) = &self.replica else {
            unreachable!()
        };
        let sql = if pause {
            "SELECT pg_wal_replay_pause()::text"
        } else {
            "SELECT pg_wal_replay_resume()::text"
        };
        sqlx::query_scalar::<_, Option<String>>(sql)
            .fetch_one(p)
            .await
            .unwrap();
    }

    /// The ref numbers of each tracking request in the account's list, in the list's order.
    async fn listed_refs(&self, key: &str) -> Vec<String> {
        let r = self.app.get("/v2/tracking_requests", Some(key)).await;
        assert_eq!(r.status, 200, "{}", r.text);
        r.json()["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["attributes"]["ref_numbers"].to_string())
            .collect()
    }

    /// Tracks `number` for the account through the API; the request's id.
    async fn track(&self, key: &str, number: &str) -> uuid::Uuid {
        let body = tracking_request_body(number, "bill_of_lading", "TEST");
        let r = self.app.post("/v2/tracking_requests", key, MT, &body).await;
        assert_eq!(r.status, 201, "{}", r.text);
        r.json()["data"]["id"].as_str().unwrap().parse().unwrap()
    }

    /// Changes a request's ref numbers on the primary behind the edge's back (so that the
    /// edge records no write of the account).
    async fn change_refs(&self, account: uuid::Uuid, id: uuid::Uuid, to: &str) {
        boxtrack_store::tracking::update_request(
            &self.app.db,
            account,
            id,
            Some(vec![to.to_string()]),
            None,
        )
        .await
        .unwrap();
    }

    async fn metrics(&self) -> String {
        self.app.get("/metrics", None).await.text
    }
}

#[tokio::test]
async fn an_account_reads_its_own_writes_while_the_others_read_the_replica() {
    let Some(s) = setup(Duration::from_secs(60)).await else {
        return;
    };
    let (a, key_a) = s.app.account().await;
    let (b, key_b) = s.app.account().await;
    let b_request = s.track(&key_b, "TEST-TR-B").await;
    s.until("the replica has B's request", |h| h.lag_bytes == 0)
        .await;
    // the loop has seen B's write replayed: B reads the replica
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = s.replicas.reads();
    assert_eq!(s.listed_refs(&key_b).await, [r#"["PO-1"]"#]);
    assert_eq!(s.replicas.reads().replica, before.replica + 1);

    s.replay(true).await;
    // A writes while the replica replays nothing: A's list comes from the primary
    s.track(&key_a, "TEST-TR-A").await;
    let before = s.replicas.reads();
    assert_eq!(s.listed_refs(&key_a).await.len(), 1, "A sees its write");
    let after = s.replicas.reads();
    assert_eq!(after.primary_behind_write, before.primary_behind_write + 1);
    assert_eq!(after.replica, before.replica);
    // B wrote nothing through the edge since: B reads the replica, which has not seen the
    // change made on the primary; B's request by id is read on the primary
    s.change_refs(b.id, b_request, "PO-2").await;
    assert_eq!(s.listed_refs(&key_b).await, [r#"["PO-1"]"#]);
    assert_eq!(s.replicas.reads().replica, after.replica + 1);
    let one = s
        .app
        .get(&format!("/v2/tracking_requests/{b_request}"), Some(&key_b))
        .await;
    assert_eq!(one.json()["data"]["attributes"]["ref_numbers"][0], "PO-2");
    let text = s.metrics().await;
    assert!(
        text.contains("boxtrack_replica_in_use{replica=\"127.0.0.1:"),
        "{text}"
    );
    assert!(
        text.contains("boxtrack_replica_reads_total{to=\"primary\",reason=\"read_your_writes\"} 1"),
        "{text}"
    );

    // replayed again: A's reads return to the replica once it has A's write
    s.replay(false).await;
    s.until("the replica caught up", |h| h.in_use && h.lag_bytes == 0)
        .await;
    let mut back = false;
    for _ in 0..100 {
        let before = s.replicas.reads().replica;
        let refs = s.listed_refs(&key_a).await;
        assert_eq!(refs.len(), 1, "A never reads older than its write");
        if s.replicas.reads().replica > before {
            back = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        back,
        "A's reads did not return to the replica: {:?}",
        s.replicas.reads()
    );
    assert_eq!(s.listed_refs(&key_b).await, [r#"["PO-2"]"#]);
    let _ = a;
}

#[tokio::test]
async fn a_list_page_read_again_comes_from_the_primary_and_then_from_memory() {
    let Some(s) = setup(Duration::from_secs(60)).await else {
        return;
    };
    let (_, key) = s.app.account().await;
    s.until("caught up", |h| h.in_use && h.lag_bytes == 0).await;
    let page = || async {
        let r = s.app.get("/v2/containers", Some(&key)).await;
        assert_eq!(r.status, 200, "{}", r.text);
        r.json()
    };
    // the first read of the page goes to the replica (and every read does while the change
    // feed is not yet listening: nothing can be kept without it)
    let before = s.replicas.reads();
    let first = page().await;
    assert_eq!(s.replicas.reads().replica, before.replica + 1);
    let mut kept = false;
    for _ in 0..100 {
        let before = s.replicas.reads();
        assert_eq!(page().await, first);
        if s.replicas.reads().replica == before.replica {
            kept = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(kept, "a page read again never came from the primary");
    // kept: served from memory, the replica and the primary untouched
    let (hits, _) = s.app.reads.counts();
    let before = s.replicas.reads();
    for _ in 0..3 {
        assert_eq!(page().await, first);
    }
    assert_eq!(s.app.reads.counts().0, hits + 3);
    let after = s.replicas.reads();
    assert_eq!(
        (
            after.replica,
            after.primary_no_replica,
            after.primary_behind_write
        ),
        (
            before.replica,
            before.primary_no_replica,
            before.primary_behind_write
        )
    );
}

#[tokio::test]
async fn a_replica_lagging_past_the_bound_is_taken_out_and_comes_back() {
    let Some(s) = setup(Duration::from_millis(1000)).await else {
        return;
    };
    let (b, key_b) = s.app.account().await;
    let id = s.track(&key_b, "TEST-TR-LAG").await;
    s.until("caught up", |h| h.in_use && h.lag_bytes == 0).await;
    s.replay(true).await;
    // writes the replica does not replay, for longer than the bound
    for n in 0..15 {
        s.change_refs(b.id, id, &format!("PO-{n}")).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    s.until("the lagging replica is out", |h| !h.in_use).await;
    let why = s.replicas.status()[0].health.why_out.clone().unwrap();
    assert!(why.contains("lags"), "{why}");
    // B made no write through the edge, and still reads the newest: from the primary
    let before = s.replicas.reads();
    assert_eq!(s.listed_refs(&key_b).await, [r#"["PO-14"]"#]);
    let after = s.replicas.reads();
    assert_eq!(after.primary_no_replica, before.primary_no_replica + 1);
    let text = s.metrics().await;
    assert!(
        text.lines()
            .any(|l| l.starts_with("boxtrack_replica_in_use{") && l.ends_with(" 0")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("boxtrack_replica_lag_seconds{")
                && l.rsplit(' ').next().unwrap().parse::<f64>().unwrap() > 1.0),
        "{text}"
    );
    // replayed again, it comes back
    s.replay(false).await;
    s.until("the replica is back", |h| h.in_use).await;
    assert_eq!(s.listed_refs(&key_b).await, [r#"["PO-14"]"#]);
}

#[tokio::test]
async fn reads_survive_the_loss_of_the_replica() {
    let Some(s) = setup(Duration::from_secs(5)).await else {
        return;
    };
    let (_, key) = s.app.account().await;
    s.track(&key, "TEST-TR-LOSS").await;
    s.until("caught up", |h| h.in_use && h.lag_bytes == 0).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(s.listed_refs(&key).await.len(), 1);
    s.pair.stop_replica().unwrap();
    // a read that went to the replica as it died fails at most with a 503 and leaves the
    // gate open; the replica is taken out at once
    let r = s.app.get("/v2/tracking_requests", Some(&key)).await;
    assert!(r.status == 200 || r.status == 503, "{}", r.text);
    s.until("the lost replica is out", |h| !h.in_use).await;
    let why = s.replicas.status()[0].health.why_out.clone().unwrap();
    assert!(why.contains("cannot be reached"), "{why}");
    let before = s.replicas.reads();
    for _ in 0..5 {
        assert_eq!(s.listed_refs(&key).await.len(), 1);
    }
    assert_eq!(
        s.replicas.reads().primary_no_replica,
        before.primary_no_replica + 5
    );
    let text = s.metrics().await;
    assert!(
        text.lines()
            .any(|l| l.starts_with("boxtrack_replica_in_use{") && l.ends_with(" 0")),
        "{text}"
    );
}
