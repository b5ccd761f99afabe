use boxtrack_api::Limiter;
use boxtrack_core::plan::Plan;
use boxtrack_core::ratelimit::{Bucket, Limits};

use crate::helpers::{TestApp, assert_error, fresh_db};

fn limits(default: u32) -> Limits {
    Limits([(Bucket::Default, default)].into_iter().collect())
}

#[tokio::test]
async fn over_the_limit_is_429_with_retry_after_and_ratelimit_headers() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account_with(Plan::Free, &[], limits(3)).await;
    let (_, other) = app.account().await;
    for remaining in [2, 1, 0] {
        let r = app.get("/v2/account", Some(&key)).await;
        assert_eq!(r.status, 200);
        assert_eq!(
            r.header("ratelimit-policy").as_deref(),
            Some("\"default\";q=3;w=60")
        );
        let state = r.header("ratelimit").unwrap();
        assert!(
            state.starts_with(&format!("\"default\";r={remaining};t=")),
            "{state}"
        );
    }
    let r = app.get("/v2/api_keys", Some(&key)).await;
    let e = assert_error(&r, 429);
    assert_eq!(e["title"], "Too Many Requests");
    assert!(e["detail"].as_str().unwrap().contains("rate limit"));
    let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
    // until the 5-second slot of the first call leaves the rolling 60-second window
    assert!((1..=65).contains(&retry), "{retry}");
    assert!(r.header("ratelimit").unwrap().contains("r=0"));

    // other accounts are not affected
    assert_eq!(app.get("/v2/account", Some(&other)).await.status, 200);
    let m = app.get("/metrics", None).await;
    assert!(
        m.text
            .contains(r#"boxtrack_rate_limited_total{bucket="default"} 1"#),
        "{}",
        m.text
    );
    assert!(m.text.contains(r#"route="/v2/api_keys",status="429""#));
}

/// Two service instances on one database (each with its own pool and limiter, as two
/// `serve` processes would have) enforce one limit together, not twice the limit.
#[tokio::test]
async fn the_limit_holds_across_processes_sharing_a_database() {
    let (db, database) = fresh_db().await;
    let second_pool = boxtrack_store::Db::connect(&database.url).await.unwrap();
    let one = TestApp::spawn_on(db.clone(), Limiter::database(db.clone())).await;
    let two = TestApp::spawn_on(second_pool.clone(), Limiter::database(second_pool)).await;
    one_limit_for_two_processes(&one, &two).await;
    drop(database);
}

/// The same with the windows in Redis (`--rate-limit-store redis://…`): runs where
/// `REDIS_URL` names a Redis server (CI starts one), and says so where it does not.
#[tokio::test]
async fn the_limit_holds_across_processes_sharing_redis() {
    let Ok(url) = std::env::var("REDIS_URL") else {
        eprintln!("skipped: REDIS_URL is not set (CI sets it to a local Redis server)");
        return;
    };
    let prefix = format!("boxtrack-test:{}", uuid::Uuid::new_v4());
    let redis = |prefix: String| {
        let url = url.clone();
        async move {
            boxtrack_store::ratelimit_redis::RedisLimits::connect_with_prefix(&url, &prefix)
                .await
                .unwrap()
        }
    };
    let (db, database) = fresh_db().await;
    let second_pool = boxtrack_store::Db::connect(&database.url).await.unwrap();
    let r1 = redis(prefix.clone()).await;
    let r2 = redis(prefix.clone()).await;
    let one = TestApp::spawn_on(db.clone(), Limiter::redis(r1.clone())).await;
    let two = TestApp::spawn_on(second_pool, Limiter::redis(r2)).await;
    one_limit_for_two_processes(&one, &two).await;

    // a refused request says when to come back, from the window Redis holds
    let (_, key) = one.account_with(Plan::Standard, &[], limits(1)).await;
    assert_eq!(one.get("/v2/account", Some(&key)).await.status, 200);
    let r = two.get("/v2/account", Some(&key)).await;
    assert_error(&r, 429);
    let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=65).contains(&retry), "{retry}");
    assert!(r.header("ratelimit").unwrap().contains("r=0"));
    r1.clear().await.unwrap();
    drop(database);
}

/// With a large limit, a process asks the shared store for a lease of many admissions at once
/// (a thousandth of the limit) and hands them out without asking again: 60 requests through
/// two instances cost a few grants, not 60 checks, and every grant counts in the shared window
/// at once, so the window never holds fewer admissions than were made.
#[tokio::test]
async fn large_limits_are_leased_to_each_process_in_grants() {
    let (db, database) = fresh_db().await;
    let second_pool = boxtrack_store::Db::connect(&database.url).await.unwrap();
    let one = TestApp::spawn_on(db.clone(), Limiter::database(db.clone())).await;
    let two = TestApp::spawn_on(second_pool.clone(), Limiter::database(second_pool)).await;
    let (account, key) = one.account_with(Plan::Standard, &[], limits(100_000)).await;
    let mut remaining = Vec::new();
    for i in 0..60 {
        let app = if i < 30 { &one } else { &two };
        let r = app.get("/v2/account", Some(&key)).await;
        assert_eq!(r.status, 200);
        let state = r.header("ratelimit").unwrap();
        let r: u32 = state
            .split(";r=")
            .nth(1)
            .and_then(|s| s.split(';').next())
            .unwrap()
            .parse()
            .unwrap();
        remaining.push(r);
    }
    let counted: i64 = boxtrack_store::on_db!(&db, p => sqlx::query_scalar(
        "SELECT CAST(COALESCE(SUM(count), 0) AS BIGINT) FROM rate_limit_slots WHERE account_id = $1")
        .bind(account.id).fetch_one(p).await.unwrap());
    // grants of 100 each: at least one per process, one more per 5-second slot crossed
    assert_eq!(counted % 100, 0, "{counted}");
    assert!((200..=400).contains(&counted), "{counted}");
    // what a response says remains counts what this process still holds
    assert!(
        remaining.iter().all(|r| *r >= 100_000 - 400),
        "{remaining:?}"
    );
    assert!(remaining[0] > remaining[29], "{remaining:?}");
    drop(database);
}

/// Eight calls alternating between two instances, then twelve at once, against limits of
/// four and five: exactly the limit is admitted.
async fn one_limit_for_two_processes(one: &TestApp, two: &TestApp) {
    let (_, key) = one.account_with(Plan::Standard, &[], limits(4)).await;
    let mut ok = 0;
    let mut limited = 0;
    for i in 0..8 {
        let app = if i % 2 == 0 { one } else { two };
        match app.get("/v2/account", Some(&key)).await.status {
            200 => ok += 1,
            429 => limited += 1,
            s => panic!("unexpected {s}"),
        }
    }
    assert_eq!((ok, limited), (4, 4));

    // concurrent requests from both instances still admit exactly the limit
    let (_, key2) = one.account_with(Plan::Standard, &[], limits(5)).await;
    let mut tasks = Vec::new();
    for i in 0..12 {
        let url = if i % 2 == 0 {
            one.url("/v2/account")
        } else {
            two.url("/v2/account")
        };
        let client = one.client.clone();
        let k = key2.clone();
        tasks.push(tokio::spawn(async move {
            client
                .get(url)
                .header("Authorization", format!("Token {k}"))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }));
    }
    let mut statuses = Vec::new();
    for t in tasks {
        statuses.push(t.await.unwrap());
    }
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        5,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 429).count(),
        7,
        "{statuses:?}"
    );
}

#[tokio::test]
async fn limits_are_configurable_per_account() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    boxtrack_store::accounts::update(
        &app.db,
        account.id,
        boxtrack_store::accounts::AccountChanges {
            rate_limits: Some(limits(1)),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(
        app.get("/v2/account", Some(&key)).await.json()["data"]["attributes"]["rate_limits"]["default"],
        1
    );
    assert_error(&app.get("/v2/account", Some(&key)).await, 429);
}

/// One account floods from many connections at once, far past its limit: it is admitted
/// exactly its limit and refused the rest, while another account's requests, sent during the
/// flood, are all answered. (How much the flood slows the other account is measured by
/// `bench-abuse`, not here.)
#[tokio::test]
async fn a_flood_on_one_key_leaves_other_accounts_served() {
    const LIMIT: u32 = 20;
    let app = std::sync::Arc::new(TestApp::spawn().await);
    let (_, flooder) = app.account_with(Plan::Free, &[], limits(LIMIT)).await;
    let (_, other) = app.account().await;
    let flood: Vec<_> = (0..16)
        .map(|_| {
            let (app, key) = (app.clone(), flooder.clone());
            tokio::spawn(async move {
                let mut statuses = Vec::new();
                for _ in 0..25 {
                    statuses.push(app.get("/v2/containers", Some(&key)).await.status);
                }
                statuses
            })
        })
        .collect();
    for _ in 0..40 {
        assert_eq!(app.get("/v2/containers", Some(&other)).await.status, 200);
    }
    let mut admitted = 0;
    let mut refused = 0;
    for task in flood {
        for status in task.await.unwrap() {
            match status {
                200 => admitted += 1,
                429 => refused += 1,
                s => panic!("the flood got a {s}"),
            }
        }
    }
    assert_eq!(admitted, LIMIT);
    assert_eq!(refused, 16 * 25 - LIMIT);
}
