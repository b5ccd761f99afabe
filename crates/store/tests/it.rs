//! Storage tests that need a real database.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use boxtrack_store::Db;

/// `table -> column -> nullable` as the database reports it.
async fn columns(db: &Db) -> BTreeMap<String, BTreeMap<String, bool>> {
    let rows: Vec<(String, String, bool)> = match db {
        Db::Sqlite(p, _) => {
            let tables: Vec<String> = sqlx::query_scalar(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_sqlx%'",
            )
            .fetch_all(p)
            .await
            .unwrap();
            let mut out = Vec::new();
            for t in tables {
                let cols: Vec<(String, i64, i64)> = sqlx::query_as(
                    "SELECT name, \"notnull\", pk FROM pragma_table_info($1)",
                )
                .bind(&t)
                .fetch_all(p)
                .await
                .unwrap();
                for (c, notnull, pk) in cols {
                    out.push((t.clone(), c, notnull == 0 && pk == 0));
                }
            }
            out
        }
        Db::Postgres(p) => sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT table_name::text, column_name::text, is_nullable = 'YES' FROM information_schema.columns \
             WHERE table_schema = current_schema() AND table_name NOT LIKE '_sqlx%' AND {}",
            boxtrack_store::db::pg_not_a_partition("table_schema", "table_name")
        )))
        .fetch_all(p)
        .await
        .unwrap(),
    };
    let mut map: BTreeMap<String, BTreeMap<String, bool>> = BTreeMap::new();
    // the one table only SQLite has: its change log for the read cache, where PostgreSQL
    // sends notifications instead (migration 0030, `boxtrack_store::changes`)
    for (t, c, n) in rows.into_iter().filter(|(t, _, _)| t != "account_changes") {
        map.entry(t).or_default().insert(c, n);
    }
    map
}

/// Both migration folders define the same tables, columns and nullability.
#[tokio::test]
async fn sqlite_and_postgres_schemas_agree() {
    let dir = boxtrack_testkit::temp_dir("boxtrack-schema");
    let sqlite = Db::connect(&format!("sqlite://{}", dir.join("s.db").display()))
        .await
        .unwrap();
    sqlite.migrate().await.unwrap();
    let lite = columns(&sqlite).await;
    assert!(
        lite.contains_key("accounts") && lite.contains_key("api_keys"),
        "{lite:?}"
    );
    if boxtrack_testkit::on_postgres() {
        let database = boxtrack_testkit::fresh().await;
        let pg = Db::connect(&database.url).await.unwrap();
        pg.migrate().await.unwrap();
        assert_eq!(columns(&pg).await, lite);
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Migrations can run again on an up-to-date database (every `serve` start does this).
#[tokio::test]
async fn migrations_are_idempotent() {
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    db.migrate().await.unwrap();
    db.ping().await.unwrap();
}

/// SQLite's log is copied into the database file by the pool's own checkpoint task, not by
/// a writer's commit: the commits below stay under SQLite's 1 000-page threshold, and commits
/// run no checkpoint at all, yet the database file takes the rows.
#[tokio::test]
async fn sqlite_checkpoints_run_beside_the_writers() {
    let dir = boxtrack_testkit::temp_dir("boxtrack-checkpoint");
    let path = dir.join("c.db");
    let db = Db::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    let Db::Sqlite(pool, _) = &db else {
        unreachable!()
    };
    let auto: i64 = sqlx::query_scalar("PRAGMA wal_autocheckpoint")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(auto, 0, "no checkpoint inside a commit");
    sqlx::query("CREATE TABLE scratch (x TEXT NOT NULL)")
        .execute(pool)
        .await
        .unwrap();
    let before = std::fs::metadata(&path).unwrap().len();
    let row = "x".repeat(1000);
    for _ in 0..10 {
        let mut tx = pool.begin().await.unwrap();
        for _ in 0..100 {
            sqlx::query("INSERT INTO scratch (x) VALUES ($1)")
                .bind(&row)
                .execute(&mut *tx)
                .await
                .unwrap();
        }
        tx.commit().await.unwrap();
    }
    // ~1 MB written through the log; the checkpoint task moves it into the file
    let mut size = before;
    for _ in 0..600 {
        size = std::fs::metadata(&path).unwrap().len();
        if size >= before + 1_000_000 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(size >= before + 1_000_000, "{before} -> {size}");
    db.close().await;
    let _ = std::fs::remove_dir_all(dir);
}

/// A new account on the standard plan.
async fn account(db: &Db, name: &str) -> boxtrack_store::accounts::Account {
    let (account, _, _) = boxtrack_store::accounts::create(
        db,
        boxtrack_store::accounts::NewAccount {
            name: name.into(),
            plan: boxtrack_core::plan::Plan::Standard,
            entitlements: vec![],
            rate_limits: boxtrack_core::ratelimit::Limits::default(),
        },
    )
    .await
    .unwrap();
    account
}

/// A delivery cycle stores a body only where none is stored yet, hands back the body another
/// worker stored first, and later claims return the stored body; outcomes move the
/// notification on.
#[tokio::test]
async fn delivery_cycles_keep_the_first_stored_body() {
    use boxtrack_store::notifications::{self, Attempt, Claim, Cycle};
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    let account = account(&db, "cycle").await;
    boxtrack_store::webhooks::create(
        &db,
        account.id,
        &boxtrack_store::webhooks::NewWebhook {
            url: "https://example.com/hook".into(),
            active: true,
            events: vec!["tracking_request.succeeded".into()],
            headers: BTreeMap::new(),
            secret: boxtrack_core::webhooks::generate_secret(),
        },
    )
    .await
    .unwrap();
    let object = uuid::Uuid::now_v7();
    let mut tx = db.begin().await.unwrap();
    boxtrack_store::events::append_many(
        &mut tx,
        account.id,
        &[boxtrack_store::events::NewEvent {
            event: "tracking_request.succeeded".into(),
            object_type: "tracking_request",
            object_id: object,
            payload: serde_json::json!({}),
        }],
        boxtrack_store::now_us(),
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();

    let now = boxtrack_store::now_us() + 1;
    let claim_at = |now_us, after| {
        let db = db.clone();
        async move {
            let work = Cycle {
                claim: Some(Claim {
                    now_us,
                    lease_us: 60_000_000,
                    limit: 10,
                    after,
                    first: after.is_none(),
                }),
                ..Cycle::default()
            };
            notifications::cycle(&db, work).await.unwrap()
        }
    };
    let first = claim_at(now, None).await;
    assert_eq!(first.claimed.len(), 1);
    let n = first.claimed[0].row.clone();
    assert!(first.claimed[0].body.is_none(), "nothing rendered yet");
    let again = claim_at(now, first.last_claimed).await;
    assert!(
        again.claimed.is_empty(),
        "a run does not claim a notification twice"
    );
    assert_eq!(again.last_claimed, first.last_claimed);
    // another run: on PostgreSQL another process, kept off by the lease; on SQLite the same
    // process started afresh, which holds nothing, so the notification is due again at once
    let restarted = claim_at(now, None).await;
    match db.backend() {
        boxtrack_store::Backend::Postgres => {
            assert!(restarted.claimed.is_empty(), "leased");
        }
        boxtrack_store::Backend::Sqlite => {
            assert_eq!(restarted.claimed.len(), 1);
            assert_eq!(restarted.claimed[0].row.id, n.id);
            assert_eq!(restarted.last_claimed, first.last_claimed);
        }
    }

    let stored = notifications::cycle(
        &db,
        Cycle {
            bodies: vec![notifications::Body {
                account_id: n.account_id,
                notification_id: n.id,
                notification_created_us: n.created_us,
                body: bytes::Bytes::from_static(b"first"),
            }],
            ..Cycle::default()
        },
    )
    .await
    .unwrap();
    assert!(stored.stored_before.is_empty());
    let lost = notifications::cycle(
        &db,
        Cycle {
            bodies: vec![notifications::Body {
                account_id: n.account_id,
                notification_id: n.id,
                notification_created_us: n.created_us,
                body: bytes::Bytes::from_static(b"second"),
            }],
            ..Cycle::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(
        lost.stored_before.get(&n.id).map(String::as_str),
        Some("first")
    );

    // a failed attempt with a retry, then the retry claims the stored body
    let retry_at = now + 5_000_000;
    let record_failure = || {
        notifications::cycle(
            &db,
            Cycle {
                done: vec![(
                    n.clone(),
                    Attempt {
                        at_us: now,
                        status_code: Some(503),
                        duration_ms: 3,
                        error: Some("receiver answered 503".into()),
                        response_body: Some("busy, try later".into()),
                        succeeded: false,
                        next_attempt_us: Some(retry_at),
                    },
                )],
                deactivate_after: 100,
                ..Cycle::default()
            },
        )
    };
    let failed = record_failure().await.unwrap();
    assert!(failed.deactivated.is_empty());
    // the same cycle again (its commit went through, but the connection broke before the
    // answer came, so the deliverer kept its outcomes and records them again): nothing changes
    record_failure().await.unwrap();
    let hook = &boxtrack_store::webhooks::list_all(&db, account.id)
        .await
        .unwrap()[0];
    assert_eq!(hook.consecutive_failures, 1, "one failure counted once");
    assert!(
        claim_at(now, None).await.claimed.is_empty(),
        "not due before its retry"
    );
    let retried = claim_at(retry_at, None).await;
    assert_eq!(retried.claimed.len(), 1);
    assert_eq!(retried.claimed[0].row.attempts, 1);
    assert_eq!(retried.claimed[0].body.as_deref(), Some("first"));
    let attempts = notifications::attempts(&db, n.id).await.unwrap();
    assert_eq!(attempts.len(), 1);
    assert_eq!(
        attempts[0].response_body.as_deref(),
        Some("busy, try later"),
        "the receiver's answer is kept with the attempt"
    );
}

/// A replay finds the notification it repeats through the index on `event_id`, on both
/// backends, however many notifications the install holds (it read every one of them per
/// event replayed before migration 44).
#[tokio::test]
async fn a_replay_finds_its_original_through_an_index() {
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    if let Db::Postgres(p) = &db
        && boxtrack_store::citus::on_citus(p)
    {
        // each shard plans its own part; a generic plan of the coordinator's is not one
        eprintln!("skipped on Citus: this is the plan of plain PostgreSQL's lookup");
        return;
    }
    let acct = account(&db, "replay-plan").await.id;
    // early in this month: the rows stay in one month
    let now = boxtrack_store::retention::month_of(boxtrack_core::time::now_us())
        .unwrap()
        .0;
    let plan: Vec<String> = match &db {
        Db::Postgres(p) => {
            sqlx::query(
                "INSERT INTO webhook_notifications (id, account_id, webhook_id, event_id, seq, event, reference_type, reference_id, delivery_status, attempts, created_us, updated_us) \
                 SELECT gen_random_uuid(), $1, gen_random_uuid(), gen_random_uuid(), g, 'container.updated', 'container', gen_random_uuid(), 'delivered', 1, $2 + g, $2 + g \
                 FROM generate_series(1, 20000) AS g",
            )
            .bind(acct)
            .bind(now)
            .execute(p)
            .await
            .unwrap();
            sqlx::query("ANALYZE webhook_notifications")
                .execute(p)
                .await
                .unwrap();
            let mut tx = p.begin().await.unwrap();
            sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                "PREPARE original(uuid, uuid) AS {}",
                boxtrack_store::notifications::ORIGINAL
            )))
            .execute(&mut *tx)
            .await
            .unwrap();
            sqlx::query("SET LOCAL plan_cache_mode = force_generic_plan")
                .execute(&mut *tx)
                .await
                .unwrap();
            let plan = sqlx::query_scalar(
                "EXPLAIN EXECUTE original('00000000-0000-0000-0000-000000000001', '00000000-0000-0000-0000-000000000002')",
            )
            .fetch_all(&mut *tx)
            .await
            .unwrap();
            tx.rollback().await.unwrap();
            plan
        }
        Db::Sqlite(p, _) => {
            sqlx::query(
                "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 20000) \
                 INSERT INTO webhook_notifications (id, account_id, webhook_id, event_id, seq, event, reference_type, reference_id, delivery_status, attempts, created_us, updated_us) \
                 SELECT randomblob(16), $1, randomblob(16), randomblob(16), n, 'container.updated', 'container', randomblob(16), 'delivered', 1, $2 + n, $2 + n FROM g",
            )
            .bind(acct)
            .bind(now)
            .execute(p)
            .await
            .unwrap();
            sqlx::query("ANALYZE").execute(p).await.unwrap();
            let rows: Vec<(i64, i64, i64, String)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "EXPLAIN QUERY PLAN {}",
                boxtrack_store::notifications::ORIGINAL
            )))
            .bind(uuid::Uuid::nil())
            .bind(uuid::Uuid::nil())
            .fetch_all(p)
            .await
            .unwrap();
            rows.into_iter().map(|r| r.3).collect()
        }
    };
    let plan = plan.join("\n");
    // SQLite names the index; PostgreSQL names each month's copy of it
    assert!(
        plan.contains("webhook_notifications_event") || plan.contains("event_id_idx"),
        "{plan}"
    );
    assert!(!plan.contains("SCAN webhook_notifications\n"), "{plan}");
    // the month holding the rows (the other months are empty, and read by a scan of nothing)
    let month = boxtrack_store::retention::partition_name(
        "webhook_notifications",
        boxtrack_store::retention::month_of(now).unwrap().0,
    )
    .unwrap();
    assert!(!plan.contains(&format!("Seq Scan on {month} ")), "{plan}");
}

/// On PostgreSQL the claim probes the claimed ids through the primary key and never scans the
/// whole outbox, however many analyzed rows it holds (with `id IN (subquery)` the planner
/// chose a hash semi-join over a sequential scan of every notification ever written), and it
/// reads the due index in order.
#[tokio::test]
async fn postgres_claims_never_scan_the_whole_outbox() {
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    let Db::Postgres(pool) = &db else {
        return; // SQLite plans `IN (subquery)` as primary-key probes already
    };
    db.migrate().await.unwrap();
    if boxtrack_store::citus::on_citus(pool) {
        // Citus claims with `citus_claim_statement`, each shard planning its own part
        eprintln!("skipped on Citus: this is the plan of plain PostgreSQL's claim");
        return;
    }
    let account = account(&db, "plan").await;
    sqlx::query(
        "INSERT INTO webhook_notifications (id, account_id, webhook_id, event_id, seq, event, reference_type, reference_id, delivery_status, attempts, next_attempt_us, created_us, updated_us) \
         SELECT gen_random_uuid(), $1, gen_random_uuid(), gen_random_uuid(), g, 'tracking_request.succeeded', 'tracking_request', gen_random_uuid(), \
                'pending', 0, g, g, g FROM generate_series(1, 20000) AS g",
    )
    .bind(account.id)
    .execute(pool)
    .await
    .unwrap();
    sqlx::query("ANALYZE webhook_notifications")
        .execute(pool)
        .await
        .unwrap();
    let sql = boxtrack_store::notifications::claim_statement(boxtrack_store::Backend::Postgres);
    let mut tx = pool.begin().await.unwrap();
    // as the claim runs it
    sqlx::query("SET LOCAL plan_cache_mode = force_generic_plan")
        .execute(&mut *tx)
        .await
        .unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "PREPARE claim(bigint, bigint, bigint, uuid, bigint) AS {sql}"
    )))
    .execute(&mut *tx)
    .await
    .unwrap();
    let plan: Vec<String> = sqlx::query_scalar(
        "EXPLAIN EXECUTE claim(30000, 256, -1, '00000000-0000-0000-0000-000000000000', 90000)",
    )
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    let plan = plan.join("\n");
    // the rows are in the DEFAULT partition (their times are in 1970); the months made are
    // empty, and an empty partition is read by a scan of nothing
    assert!(
        !plan.contains("Seq Scan on webhook_notifications_default"),
        "the claim scans the whole outbox:\n{plan}"
    );
    // the claimed ids are probed through the index of ids (migration 57 keys the table by
    // account, for Citus)
    assert!(
        plan.contains("webhook_notifications_default_id_idx"),
        "{plan}"
    );
    // due order is the index's order: the claim reads the next entries of each month's due
    // index, merged, and sorts nothing
    assert!(
        plan.contains("webhook_notifications_default_next_attempt_us_id_idx"),
        "{plan}"
    );
    assert!(plan.contains("Merge Append"), "{plan}");
    assert!(
        !plan.contains("Sort\n") && !plan.contains("->  Sort"),
        "{plan}"
    );
    tx.rollback().await.unwrap();
}

/// Early reports are kept per number and pruned by age, in all and per number.
#[tokio::test]
async fn early_reports_are_bounded_by_age_and_count() {
    use boxtrack_core::tracking::{DataSource, Fact, Observation};
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    let obs = |t: i64| Observation {
        observed_us: t,
        source: DataSource::ShippingLine,
        fact: Fact::Chassis {
            number: Some(format!("CH{t}")),
        },
        precision: Default::default(),
        upstream_id: None,
    };
    const DAY: i64 = 86_400_000_000;
    for (n, day) in [("AAAU1234565", 1), ("AAAU1234565", 5), ("BBBU7654321", 9)] {
        boxtrack_store::early::keep(
            &db,
            None,
            None,
            &[(n.to_string(), vec![obs(day)])],
            day * DAY,
        )
        .await
        .unwrap();
    }
    assert_eq!(
        boxtrack_store::early::stats(&db).await.unwrap(),
        (3, Some(DAY))
    );
    // older than 6 days at day 10: the first goes
    let gone = boxtrack_store::early::prune(&db, 10 * DAY, 6 * DAY, 100)
        .await
        .unwrap();
    assert_eq!(gone, 1);
    // at most one in all: the newest stays
    let gone = boxtrack_store::early::prune(&db, 10 * DAY, 60 * DAY, 1)
        .await
        .unwrap();
    assert_eq!(gone, 1);
    assert_eq!(
        boxtrack_store::early::stats(&db).await.unwrap(),
        (1, Some(9 * DAY))
    );
}

const DAY_US: i64 = 86_400_000_000;

/// Writes one event-log row, one payload or one notification (with a body and an earlier
/// attempt) at a chosen time (raw SQL: the time is the test's).
async fn history_row(
    db: &Db,
    table: &str,
    account: uuid::Uuid,
    at_us: i64,
    status: &str,
) -> uuid::Uuid {
    let id = history_row_alone(db, table, account, at_us, status).await;
    if table == "webhook_notifications" {
        owned_rows(db, id, Some(at_us)).await;
    }
    id
}

/// [`history_row`] without a notification's body and attempt.
async fn history_row_alone(
    db: &Db,
    table: &str,
    account: uuid::Uuid,
    at_us: i64,
    status: &str,
) -> uuid::Uuid {
    let id = uuid::Uuid::now_v7();
    let json = sqlx::types::Json(serde_json::json!({"at": at_us}));
    let sql = match table {
        "events" => {
            "INSERT INTO events (account_id, seq, id, event, object_type, object_id, payload, created_us) VALUES ($1, $2, $3, 'container.updated', 'container', $3, $4, $2)"
        }
        "source_payloads" => {
            "INSERT INTO source_payloads (account_id, received_us, id, format, origin, body, status, summary) VALUES ($1, $2, $3, 'x12', 'test', 'ISA*', 'accepted', $4)"
        }
        _ => {
            "INSERT INTO webhook_notifications (account_id, created_us, id, webhook_id, event_id, seq, event, reference_type, reference_id, delivery_status, attempts, updated_us) VALUES ($1, $2, $3, $3, $3, 1, 'container.updated', 'container', $3, $4, 1, $2)"
        }
    };
    boxtrack_store::on_db!(db, c => {
        let q = sqlx::query(sql).bind(account).bind(at_us).bind(id);
        let q = if table == "webhook_notifications" { q.bind(status) } else { q.bind(json) };
        q.execute(c).await.unwrap();
    });
    id
}

/// A body and an earlier attempt of notification `id`, carrying its creation time when
/// given (the schema since migration 43), or as written before.
async fn owned_rows(db: &Db, id: uuid::Uuid, created_us: Option<i64>) {
    let (body, attempt) = if created_us.is_some() {
        (
            "INSERT INTO webhook_bodies (notification_id, body, notification_created_us, account_id) SELECT $1, '{}', $2, account_id FROM webhook_notifications WHERE id = $1",
            "INSERT INTO webhook_attempts (id, notification_id, attempted_us, status_code, duration_ms, notification_created_us, account_id) SELECT $1, $2, 5, 200, 5, $3, account_id FROM webhook_notifications WHERE id = $2",
        )
    } else {
        (
            "INSERT INTO webhook_bodies (notification_id, body) VALUES ($1, '{}')",
            "INSERT INTO webhook_attempts (id, notification_id, attempted_us, status_code, duration_ms) VALUES ($1, $2, 5, 200, 5)",
        )
    };
    boxtrack_store::on_db!(db, c => {
        let q = sqlx::query(body).bind(id);
        match created_us { Some(t) => q.bind(t), None => q }.execute(c).await.unwrap();
        let q = sqlx::query(attempt).bind(uuid::Uuid::now_v7()).bind(id);
        match created_us { Some(t) => q.bind(t), None => q }.execute(c).await.unwrap();
    });
}

async fn ids_of(db: &Db, table: &str) -> std::collections::BTreeSet<uuid::Uuid> {
    let sql = format!("SELECT id FROM {table}");
    let ids: Vec<uuid::Uuid> = boxtrack_store::on_db!(db, c => sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).fetch_all(c).await.unwrap());
    ids.into_iter().collect()
}

async fn owned_count(db: &Db, table: &str) -> i64 {
    let sql = format!("SELECT COUNT(*) FROM {table}");
    boxtrack_store::on_db!(db, c => sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).fetch_one(c).await.unwrap())
}

/// Retention removes exactly the history older than each table's setting: not a row newer,
/// not a notification still pending, and a finished notification's body and attempts with
/// it; a dry run counts the same rows and changes nothing; 0 days keeps a table forever.
#[tokio::test]
async fn retention_removes_only_what_is_older() {
    use boxtrack_store::retention::{self, Mode, Retention};
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    let acct = account(&db, "retention").await.id;
    let now = 1_795_867_200_000_000; // 2026-11-28T12:00Z
    retention::make_partitions(&db, now - 400 * DAY_US, 14)
        .await
        .unwrap();
    let mut kept = BTreeMap::new();
    for (table, days, status) in [
        ("events", [400, 366, 365, 2], "delivered"),
        ("source_payloads", [200, 91, 89, 0], "delivered"),
        ("webhook_notifications", [45, 31, 29, 1], "delivered"),
    ] {
        for (i, d) in days.into_iter().enumerate() {
            // the third of each is just inside the window: 1 µs after the cutoff
            let at = now - d * DAY_US + if i == 2 { 1 } else { 0 };
            let id = history_row(&db, table, acct, at, status).await;
            let ids = kept.entry(table).or_insert_with(Vec::new);
            if i >= 2 {
                ids.push(id);
            }
        }
    }
    // a notification still pending is kept whatever its age
    let pending = history_row(
        &db,
        "webhook_notifications",
        acct,
        now - 90 * DAY_US,
        "pending",
    )
    .await;
    kept.get_mut("webhook_notifications").unwrap().push(pending);
    // finished ones: in a month wholly past the cutoff that holds nothing pending, and in
    // the month of the pending one
    for days in [60, 89] {
        history_row(
            &db,
            "webhook_notifications",
            acct,
            now - days * DAY_US,
            "failed",
        )
        .await;
    }
    let keep = Retention {
        events_days: 365,
        payloads_days: 90,
        notifications_days: 30,
    };

    let dry = retention::sweep(&db, now, &keep, Mode::DryRun)
        .await
        .unwrap();
    assert_eq!(
        dry.iter().map(|s| s.rows).collect::<Vec<_>>(),
        vec![2, 2, 4],
        "{dry:?}"
    );
    for table in ["events", "source_payloads", "webhook_notifications"] {
        assert_eq!(
            ids_of(&db, table).await.len(),
            4 + 3 * usize::from(table == "webhook_notifications"),
            "dry run changed {table}"
        );
    }

    let done = retention::sweep(&db, now, &keep, Mode::Apply)
        .await
        .unwrap();
    assert_eq!(
        done.iter().map(|s| s.rows).collect::<Vec<_>>(),
        vec![2, 2, 4],
        "{done:?}"
    );
    assert_eq!(
        dry.iter().map(|s| &s.partitions).collect::<Vec<_>>(),
        done.iter().map(|s| &s.partitions).collect::<Vec<_>>(),
        "a dry run names the months a sweep drops"
    );
    for (table, ids) in &kept {
        let left = ids_of(&db, table).await;
        assert_eq!(left, ids.iter().copied().collect(), "{table}");
    }
    // the bodies and attempts of the two finished notifications that went, went with them
    assert_eq!(owned_count(&db, "webhook_bodies").await, 3);
    assert_eq!(owned_count(&db, "webhook_attempts").await, 3);
    if boxtrack_testkit::on_postgres() {
        // the months wholly past the cutoff were dropped, not emptied row by row
        assert!(
            done[0].partitions.contains(&"events_p202510".to_string()),
            "{done:?}"
        );
        let months = retention::partitions(&db, "events").await.unwrap();
        assert!(
            months
                .iter()
                .all(|p| p.hi.is_none_or(|hi| hi > now - 365 * DAY_US)),
            "{months:?}"
        );
        // September's notifications went as a month, with their bodies and attempts; August
        // stays for the pending one it holds, its finished ones deleted
        assert!(
            done[2]
                .partitions
                .contains(&"webhook_notifications_p202609".to_string()),
            "{done:?}"
        );
        assert!(
            !done[2]
                .partitions
                .contains(&"webhook_notifications_p202608".to_string()),
            "{done:?}"
        );
        for table in [
            "webhook_notifications",
            "webhook_bodies",
            "webhook_attempts",
        ] {
            let names: Vec<String> = retention::partitions(&db, table)
                .await
                .unwrap()
                .into_iter()
                .map(|p| p.name)
                .collect();
            assert!(!names.contains(&format!("{table}_p202609")), "{names:?}");
            assert!(names.contains(&format!("{table}_p202608")), "{names:?}");
        }
    }

    // a second sweep finds nothing; with 0 days nothing is ever removed
    let again = retention::sweep(&db, now, &keep, Mode::Apply)
        .await
        .unwrap();
    assert!(
        again.iter().all(|s| s.rows == 0 && s.partitions.is_empty()),
        "{again:?}"
    );
    let forever = Retention {
        events_days: 0,
        payloads_days: 0,
        notifications_days: 0,
    };
    let none = retention::sweep(&db, now + 9_000 * DAY_US, &forever, Mode::Apply)
        .await
        .unwrap();
    assert!(
        none.iter().all(|s| s.rows == 0 && s.cutoff_us.is_none()),
        "{none:?}"
    );
}

/// An install from before the monthly partitions (migration 40) moves onto them without
/// losing a row, rows outside every month included; the worker's step then makes the months
/// ahead, moving in what the DEFAULT partition held of them.
#[tokio::test]
async fn history_moves_onto_monthly_partitions_without_losing_a_row() {
    use boxtrack_store::retention;
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate_to(40).await.unwrap();
    let acct = account(&db, "upgrade").await.id;
    let now = boxtrack_core::time::now_us();
    let mut before = BTreeMap::new();
    for table in ["events", "source_payloads"] {
        let mut ids = Vec::new();
        for at in [
            now - 700 * DAY_US,
            now - 40 * DAY_US,
            now,
            now + 30 * DAY_US,
            now + 400 * DAY_US,
        ] {
            ids.push(history_row(&db, table, acct, at, "").await);
        }
        before.insert(
            table,
            ids.into_iter().collect::<std::collections::BTreeSet<_>>(),
        );
    }
    db.migrate().await.unwrap();
    for (table, ids) in &before {
        assert_eq!(&ids_of(&db, table).await, ids, "{table}");
    }
    if !boxtrack_testkit::on_postgres() {
        return;
    }
    let months = retention::partitions(&db, "events").await.unwrap();
    assert!(months.len() > 20, "{months:?}");
    // the row a year ahead waits in DEFAULT until its month is made
    let default: i64 = boxtrack_store::on_db!(&db, c => sqlx::query_scalar("SELECT COUNT(*) FROM events_default").fetch_one(c).await.unwrap());
    assert_eq!(default, 1);
    let made = retention::make_partitions(&db, now + 400 * DAY_US, 0)
        .await
        .unwrap();
    assert_eq!(made.len(), retention::PARTITIONED.len(), "{made:?}");
    let default: i64 = boxtrack_store::on_db!(&db, c => sqlx::query_scalar("SELECT COUNT(*) FROM events_default").fetch_one(c).await.unwrap());
    assert_eq!(default, 0);
    assert_eq!(&ids_of(&db, "events").await, &before["events"]);
    // making them again changes nothing
    assert!(
        retention::make_partitions(&db, now + 400 * DAY_US, 0)
            .await
            .unwrap()
            .is_empty()
    );
}

/// An install from before notifications were partitioned (migration 42) moves onto the
/// monthly partitions without losing a notification, body or attempt; each body and attempt
/// takes its notification's creation time, so it lands in its notification's month.
#[tokio::test]
async fn notifications_move_onto_monthly_partitions_without_losing_a_row() {
    use boxtrack_store::retention;
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate_to(42).await.unwrap();
    let acct = account(&db, "upgrade-notifications").await.id;
    let now = boxtrack_core::time::now_us();
    let mut created = BTreeMap::new();
    for (at, status) in [
        (now - 700 * DAY_US, "delivered"),
        (now - 40 * DAY_US, "failed"),
        (now, "pending"),
        (now + 400 * DAY_US, "pending"),
    ] {
        let id = history_row_alone(&db, "webhook_notifications", acct, at, status).await;
        owned_rows(&db, id, None).await;
        created.insert(id, at);
    }
    db.migrate().await.unwrap();
    let ids: std::collections::BTreeSet<_> = created.keys().copied().collect();
    assert_eq!(ids_of(&db, "webhook_notifications").await, ids);
    for table in ["webhook_bodies", "webhook_attempts"] {
        let sql = format!("SELECT notification_id, notification_created_us FROM {table}");
        let rows: Vec<(uuid::Uuid, i64)> = boxtrack_store::on_db!(&db, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).fetch_all(c).await.unwrap());
        let got: BTreeMap<uuid::Uuid, i64> = rows.into_iter().collect();
        assert_eq!(got, created, "{table}");
    }
    if !boxtrack_testkit::on_postgres() {
        return;
    }
    for table in [
        "webhook_notifications",
        "webhook_bodies",
        "webhook_attempts",
    ] {
        let months = retention::partitions(&db, table).await.unwrap();
        assert!(months.len() > 20, "{table}: {months:?}");
        // only the one a year ahead waits in DEFAULT until its month is made
        assert_eq!(
            owned_count(&db, &format!("{table}_default")).await,
            1,
            "{table}"
        );
    }
    retention::make_partitions(&db, now + 400 * DAY_US, 0)
        .await
        .unwrap();
    for table in [
        "webhook_notifications",
        "webhook_bodies",
        "webhook_attempts",
    ] {
        assert_eq!(
            owned_count(&db, &format!("{table}_default")).await,
            0,
            "{table}"
        );
    }
    // a month made later keeps the notifications' rows rewritable in place
    let opts: Option<String> = boxtrack_store::on_db!(&db, c => sqlx::query_scalar(
        "SELECT array_to_string(reloptions, ',') FROM pg_class WHERE oid = to_regclass($1)")
        .bind(retention::partition_name("webhook_notifications", retention::month_of(now + 400 * DAY_US).unwrap().0).unwrap())
        .fetch_one(c).await.unwrap());
    assert_eq!(opts.as_deref(), Some("fillfactor=50"));
    assert_eq!(ids_of(&db, "webhook_notifications").await, ids);
}

/// A row written into a past month that has no partition (an old time, or `boxtrack copy`
/// from SQLite) waits in the DEFAULT partition until the worker's step makes its month.
#[tokio::test]
async fn rows_of_past_months_move_out_of_the_default_partition() {
    use boxtrack_store::retention;
    if !boxtrack_testkit::on_postgres() {
        return;
    }
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    let acct = account(&db, "settle").await.id;
    let now = boxtrack_core::time::now_us();
    let old = history_row(&db, "events", acct, now - 200 * DAY_US, "").await;
    let in_default = |db: Db| async move {
        let n: i64 = boxtrack_store::on_db!(&db, c => sqlx::query_scalar("SELECT COUNT(*) FROM events_default").fetch_one(c).await.unwrap());
        n
    };
    assert_eq!(in_default(db.clone()).await, 1);
    let made = retention::make_partitions(&db, now, 2).await.unwrap();
    assert!(made.len() >= 6, "{made:?}");
    assert_eq!(in_default(db.clone()).await, 0);
    assert!(ids_of(&db, "events").await.contains(&old));
}

/// On SQLite, reads by key run in place (`sqlite_reader`, rusqlite on the caller's thread)
/// and answer what the pool answers, for the account that owns the row only; their prepared
/// statements are never prepared again once values are bound anew, even after `ANALYZE` kept
/// statistics (SQLite is built without STAT4, `.cargo/config.toml`).
#[tokio::test]
async fn sqlite_reads_in_place_answer_as_the_pool_and_stay_prepared() {
    use boxtrack_core::tracking::{ContainerState, ShipmentState};
    use boxtrack_store::reads;
    use sqlx::types::Json;
    let dir = boxtrack_testkit::temp_dir("boxtrack-reader");
    let path = dir.join("r.db");
    let db = Db::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    db.migrate().await.unwrap();
    let (owner, other) = (account(&db, "owner").await, account(&db, "other").await);
    let Db::Sqlite(p, _) = &db else {
        unreachable!("a sqlite:// URL opens SQLite")
    };
    let state = ContainerState {
        pod_terminal: Some("Y258".into()),
        ..ContainerState::default()
    };
    let mut shipments = Vec::new();
    let mut containers = Vec::new();
    for s in 0..40_i64 {
        let sid = uuid::Uuid::now_v7();
        sqlx::query("INSERT INTO shipments (id, account_id, bill_of_lading_number, scac, ref_numbers, tags, route, state, created_us, updated_us) VALUES ($1, $2, $3, 'MAEU', '[\"PO-1\"]', '[]', '{}', $4, $5, $5)")
            .bind(sid)
            .bind(owner.id)
            .bind(format!("BL{s}"))
            .bind(Json(ShipmentState::default()))
            .bind(s)
            .execute(p)
            .await
            .unwrap();
        for c in 0..3_i64 {
            let cid = uuid::Uuid::now_v7();
            sqlx::query("INSERT INTO containers (id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, pickup_lfd_us, active, created_us, updated_us, pod_terminal) VALUES ($1, $2, $3, $4, '[]', $5, 'on_ship', 1, $6, 1, $7, $7, 'Y258')")
                .bind(cid)
                .bind(owner.id)
                .bind(sid)
                .bind(format!("MSKU{s:03}{c:04}"))
                .bind(Json(state.clone()))
                .bind((c == 1).then_some(1_000_i64))
                .bind(s * 10 + c)
                .execute(p)
                .await
                .unwrap();
            containers.push(cid);
        }
        shipments.push(sid);
    }
    sqlx::raw_sql("ANALYZE").execute(p).await.unwrap();

    for &id in &containers[..6] {
        let here = reads::container(&db, owner.id, id).await.unwrap().unwrap();
        let pooled: reads::ContainerRow = sqlx::query_as("SELECT id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, pickup_lfd_us, active, created_us, updated_us FROM containers WHERE id = $1")
            .bind(id)
            .fetch_one(p)
            .await
            .unwrap();
        assert_eq!(format!("{here:?}"), format!("{pooled:?}"));
        assert_eq!(here.state.pod_terminal.as_deref(), Some("Y258"));
        assert!(reads::container(&db, other.id, id).await.unwrap().is_none());
    }
    let shipment = reads::shipment(&db, owner.id, shipments[1])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(shipment.bill_of_lading_number, "BL1");
    assert_eq!(shipment.ref_numbers, ["PO-1"]);
    assert_eq!(shipment.customer_name, None);
    assert!(
        reads::shipment(&db, other.id, shipments[1])
            .await
            .unwrap()
            .is_none()
    );
    // each shipment's containers, oldest first, asked twice for one shipment
    let refs =
        reads::container_refs_of_many(&db, owner.id, &[shipments[2], shipments[0], shipments[2]])
            .await
            .unwrap();
    assert_eq!(refs.len(), 2);
    for (i, s) in [(2, shipments[2]), (0, shipments[0])] {
        let ids: Vec<uuid::Uuid> = refs[&s].iter().map(|r| r.id).collect();
        assert_eq!(ids, containers[i * 3..i * 3 + 3]);
        assert!(
            refs[&s]
                .iter()
                .all(|r| r.pod_terminal.as_deref() == Some("Y258"))
        );
    }
    assert!(
        reads::container_refs_of_many(&db, other.id, &shipments)
            .await
            .unwrap()
            .is_empty()
    );

    // statements that read by key, bound to new values: SQLite plans each once
    let conn = rusqlite::Connection::open(&path).unwrap();
    for (sql, keys) in [
        (
            "SELECT count(*) FROM containers WHERE id = ?1 AND account_id = ?2",
            &containers,
        ),
        (
            "SELECT count(*) FROM containers WHERE shipment_id = ?1 AND account_id = ?2",
            &shipments,
        ),
    ] {
        let mut stmt = conn.prepare(sql).unwrap();
        for &key in keys {
            let n: i64 = stmt.query_row((key, owner.id), |r| r.get(0)).unwrap();
            assert!(n > 0, "{sql}");
        }
        assert_eq!(
            stmt.get_status(rusqlite::StatementStatus::RePrepare),
            0,
            "{sql}"
        );
    }
}

/// A container and its shipment read together (one statement on PostgreSQL, one connection in
/// place on SQLite) are what the two reads by key answer, the shipment's customer included;
/// another account reads neither.
#[tokio::test]
async fn a_container_and_its_shipment_are_read_together() {
    use boxtrack_core::tracking::{ContainerState, Route, ShipmentState};
    use boxtrack_store::reads::{self, ContainerRow};
    use sqlx::types::Json;
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    let (owner, other) = (account(&db, "together").await, account(&db, "apart").await);
    let party = boxtrack_store::parties::create(&db, owner.id, "Acme Imports")
        .await
        .unwrap();
    let (request, shipment, container, sibling) = (
        uuid::Uuid::now_v7(),
        uuid::Uuid::now_v7(),
        uuid::Uuid::now_v7(),
        uuid::Uuid::now_v7(),
    );
    let empty = Json(Vec::<String>::new());
    let route = Route {
        pod_locode: Some("USLAX".into()),
        ..Route::default()
    };
    let state = ContainerState {
        pod_terminal: Some("Y258".into()),
        ..ContainerState::default()
    };
    boxtrack_store::on_db!(&db, p => {
        sqlx::query("INSERT INTO tracking_requests (id, account_id, request_number, request_type, scac, auto_detect, status, is_retrying, ref_numbers, shipment_tags, customer_id, created_us, updated_us) VALUES ($1, $2, 'BL1', 'bill_of_lading', 'MAEU', FALSE, 'created', FALSE, $3, $3, $4, 1, 1)")
            .bind(request).bind(owner.id).bind(empty.clone()).bind(party.id)
            .execute(p).await.unwrap();
        sqlx::query("INSERT INTO shipments (id, account_id, tracking_request_id, bill_of_lading_number, scac, ref_numbers, tags, route, state, created_us, updated_us) VALUES ($1, $2, $3, 'BL1', 'MAEU', $4, $4, $5, $6, 2, 3)")
            .bind(shipment).bind(owner.id).bind(request).bind(empty.clone()).bind(Json(&route)).bind(Json(ShipmentState::default()))
            .execute(p).await.unwrap();
        sqlx::query("INSERT INTO containers (id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, pickup_lfd_us, active, created_us, updated_us, pod_terminal) VALUES ($1, $2, $3, 'MSKU1234565', $4, $5, 'available', TRUE, 9, TRUE, 4, 5, 'Y258')")
            .bind(container).bind(owner.id).bind(shipment).bind(empty.clone()).bind(Json(&state))
            .execute(p).await.unwrap();
        // a sibling made earlier, its terminal not known yet
        sqlx::query("INSERT INTO containers (id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, pickup_lfd_us, active, created_us, updated_us) VALUES ($1, $2, $3, 'MSKU7654321', $4, $5, 'new', FALSE, NULL, TRUE, 3, 3)")
            .bind(sibling).bind(owner.id).bind(shipment).bind(empty.clone()).bind(Json(ContainerState::default()))
            .execute(p).await.unwrap();
    });
    let read = reads::container_and_shipment::<ContainerRow>(&db, owner.id, container, true)
        .await
        .unwrap()
        .unwrap();
    let (c, s) = (read.container, read.shipment);
    // its shipment's containers as the shipment's resource shows them, oldest first, as
    // read on their own
    let siblings = read.siblings.unwrap();
    let shown: Vec<_> = siblings
        .iter()
        .map(|r| (r.id, r.shipment_id, r.pod_terminal.as_deref()))
        .collect();
    assert_eq!(
        shown,
        [
            (sibling, shipment, None),
            (container, shipment, Some("Y258"))
        ]
    );
    let apart = reads::container_refs_of_many(&db, owner.id, &[shipment])
        .await
        .unwrap();
    assert_eq!(format!("{siblings:?}"), format!("{:?}", apart[&shipment]));
    let without = reads::container_and_shipment::<ContainerRow>(&db, owner.id, container, false)
        .await
        .unwrap()
        .unwrap();
    assert!(without.siblings.is_none());
    let one = reads::container(&db, owner.id, container).await.unwrap();
    let two = reads::shipment(&db, owner.id, shipment).await.unwrap();
    assert_eq!(format!("{:?}", Some(&c)), format!("{:?}", one.as_ref()));
    assert_eq!(format!("{s:?}"), format!("{two:?}"));
    let s = s.unwrap();
    assert_eq!(s.customer_name.as_deref(), Some("Acme Imports"));
    assert_eq!(s.customer_id, Some(party.id));
    assert_eq!(s.route.pod_locode.as_deref(), Some("USLAX"));
    assert_eq!(c.state.pod_terminal.as_deref(), Some("Y258"));
    assert!(
        reads::container_and_shipment::<ContainerRow>(&db, other.id, container, true)
            .await
            .unwrap()
            .is_none()
    );
}

/// The `state` and `records` columns of row `id` of `table`, as text.
async fn state_and_records(db: &Db, table: &str, id: uuid::Uuid) -> (String, String) {
    let cast = match db.backend() {
        boxtrack_store::Backend::Sqlite => "state, records",
        boxtrack_store::Backend::Postgres => "state::text, records::text",
    };
    let sql = format!("SELECT {cast} FROM {table} WHERE id = $1");
    boxtrack_store::on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).fetch_one(p).await.unwrap())
}

/// A tracking request for `BL9`, its shipment and its container `MSKU1234565` in `owner`'s
/// account, written directly: (shipment, container).
async fn tracked(db: &Db, owner: uuid::Uuid) -> (uuid::Uuid, uuid::Uuid) {
    use boxtrack_core::tracking::ShipmentState;
    use sqlx::types::Json;
    let (request, shipment, container) = (
        uuid::Uuid::now_v7(),
        uuid::Uuid::now_v7(),
        uuid::Uuid::now_v7(),
    );
    let empty = Json(Vec::<String>::new());
    boxtrack_store::on_db!(db, p => {
        sqlx::query("INSERT INTO tracking_requests (id, account_id, request_number, request_type, scac, auto_detect, status, is_retrying, ref_numbers, shipment_tags, created_us, updated_us) VALUES ($1, $2, 'BL9', 'bill_of_lading', 'MAEU', FALSE, 'created', FALSE, $3, $3, 1, 1)")
            .bind(request).bind(owner).bind(empty.clone())
            .execute(p).await.unwrap();
        sqlx::query("INSERT INTO shipments (id, account_id, tracking_request_id, bill_of_lading_number, scac, ref_numbers, tags, route, state, created_us, updated_us) VALUES ($1, $2, $3, 'BL9', 'MAEU', $4, $4, '{}', $5, 2, 3)")
            .bind(shipment).bind(owner).bind(request).bind(empty.clone()).bind(Json(ShipmentState::default()))
            .execute(p).await.unwrap();
        sqlx::query("INSERT INTO containers (id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, active, created_us, updated_us) VALUES ($1, $2, $3, 'MSKU1234565', $4, '{}', 'new', FALSE, TRUE, 4, 5)")
            .bind(container).bind(owner).bind(shipment).bind(empty.clone())
            .execute(p).await.unwrap();
    });
    (shipment, container)
}

/// On PostgreSQL a merge tells the change feed about its account once (migration 47): the
/// row triggers stay quiet for the account the transaction announced, and still speak for
/// any other account's rows written in the same transaction.
#[tokio::test]
async fn a_merge_announces_its_account_once_and_other_accounts_rows_still_notify() {
    use boxtrack_core::tracking::{DataSource, Fact, Hold, Observation};
    if !boxtrack_testkit::on_postgres() {
        return;
    }
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    // on Citus the rows change on the workers, which cannot notify inside a distributed
    // commit: the row triggers are not laid out there and the response cache is off
    if let Db::Postgres(p) = &db
        && boxtrack_store::citus::on_citus(p)
    {
        eprintln!("skipped on Citus: the change feed's row triggers are not laid out there");
        return;
    }
    let (a, b) = (account(&db, "announced").await, account(&db, "other").await);
    let ((_, container_a), (_, container_b)) = (tracked(&db, a.id).await, tracked(&db, b.id).await);
    let mut listener = sqlx::postgres::PgListener::connect(&database.url)
        .await
        .unwrap();
    listener
        .listen(boxtrack_store::changes::CHANNEL)
        .await
        .unwrap();
    let next = async |listener: &mut sqlx::postgres::PgListener| {
        let n = tokio::time::timeout(std::time::Duration::from_secs(30), listener.recv())
            .await
            .expect("a notification")
            .unwrap();
        n.payload().to_string()
    };

    // announced for A: A's row is quiet, B's speaks
    let mut tx = db.begin().await.unwrap();
    boxtrack_store::on_tx!(&mut tx, c => {
        sqlx::query("SELECT set_config('boxtrack.notified_account', $1::text, true)").bind(a.id).execute(&mut *c).await.unwrap();
        for id in [container_a, container_b] {
            sqlx::query("UPDATE containers SET updated_us = updated_us + 1 WHERE id = $1").bind(id).execute(&mut *c).await.unwrap();
        }
    });
    tx.commit().await.unwrap();
    assert_eq!(next(&mut listener).await, b.id.to_string());

    // a merge into A's container is heard once as A
    let holds = Observation {
        observed_us: boxtrack_store::now_us(),
        source: DataSource::Terminal,
        fact: Fact::Holds {
            holds: vec![Hold {
                name: "customs".into(),
                status: "hold".into(),
                description: None,
            }],
        },
        precision: Default::default(),
        upstream_id: None,
    };
    let changes = boxtrack_store::tracking::apply(&db, a.id, container_a, &[holds])
        .await
        .unwrap();
    assert!(!changes.is_empty());
    assert_eq!(next(&mut listener).await, a.id.to_string());
}

/// The merge keeps its records (milestones, estimates, provenance, withdrawn ids) in the
/// container's `records` column: a read to show the container has none of them, a whole read
/// and the next merge have them all, and migration 45 moves a state written whole before it
/// into the two columns without losing anything.
#[tokio::test]
async fn a_containers_merge_records_live_in_a_column_of_their_own() {
    use boxtrack_core::tracking::{
        DataSource, EventFact, Fact, LfdKind, Milestone, Observation, Place, Precision,
        ShipmentState,
    };
    use boxtrack_store::reads;
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    let owner = account(&db, "records").await;
    let (shipment, container) = tracked(&db, owner.id).await;
    const H: i64 = 3_600_000_000;
    let event = |m: Milestone, place: Place, at: i64, estimated: bool| {
        Fact::Event(EventFact {
            milestone: m,
            estimated,
            at_us: Some(at),
            place,
            locode: None,
            timezone: None,
            terminal: None,
            vessel_name: None,
            vessel_imo: None,
            voyage: None,
        })
    };
    let said = |observed_us: i64, source: DataSource, fact: Fact, id: Option<&str>| Observation {
        observed_us,
        source,
        fact,
        precision: Precision::default(),
        upstream_id: id.map(String::from),
    };
    let batch = [
        said(
            1,
            DataSource::ShippingLine,
            event(Milestone::VesselLoaded, Place::Origin, 100 * H, false),
            Some("ev-load"),
        ),
        said(
            2,
            DataSource::ShippingLine,
            event(Milestone::VesselArrived, Place::Pod, 300 * H, true),
            None,
        ),
        said(
            3,
            DataSource::Terminal,
            Fact::Lfd {
                which: LfdKind::Terminal,
                at_us: Some(500 * H),
            },
            None,
        ),
    ];
    boxtrack_store::tracking::apply(&db, owner.id, container, &batch)
        .await
        .unwrap();
    let stored = |db: &Db| {
        let db = db.clone();
        async move {
            let (state, records) = state_and_records(&db, "containers", container).await;
            let keys = |text: &str| -> Vec<String> {
                let v: serde_json::Value = serde_json::from_str(text).unwrap();
                v.as_object().unwrap().keys().cloned().collect()
            };
            (keys(&state), keys(&records))
        }
    };
    let voyage = state_and_records(&db, "shipments", shipment).await;
    assert!(
        !voyage.0.contains("\"estimates\"") && voyage.1.contains("\"estimates\""),
        "{voyage:?}"
    );
    let shown_shipment = reads::shipment(&db, owner.id, shipment)
        .await
        .unwrap()
        .unwrap();
    assert!(shown_shipment.state.estimates.is_empty());
    assert!(shown_shipment.state.pod_eta_us.is_some());
    let (state_keys, record_keys) = stored(&db).await;
    for k in ["milestones", "estimates", "provenance"] {
        assert!(
            !state_keys.contains(&k.to_string()),
            "{k} in {state_keys:?}"
        );
        assert!(
            record_keys.contains(&k.to_string()),
            "{k} not in {record_keys:?}"
        );
    }
    let shown = reads::container(&db, owner.id, container)
        .await
        .unwrap()
        .unwrap();
    assert!(shown.state.milestones.is_empty() && shown.state.provenance.is_empty());
    assert!(!shown.state.times.is_empty() && !shown.state.lfd.is_empty());
    let whole = reads::container_whole(&db, owner.id, container)
        .await
        .unwrap()
        .unwrap();
    assert!(!whole.state.milestones.is_empty() && !whole.state.estimates.is_empty());
    assert!(!whole.state.provenance.is_empty());
    let mut light = whole.state.clone();
    light.take_records();
    assert_eq!(light, shown.state);
    // the report's id is found in the records, and the next merge reads them: the withdrawal
    // of the loading takes its milestone away
    let holding = boxtrack_store::subjects::targets_holding(&db, &["ev-load".into()])
        .await
        .unwrap();
    assert_eq!(holding.len(), 1);
    let withdraw = said(
        4,
        DataSource::ShippingLine,
        Fact::Retracted {
            upstream_id: "ev-load".into(),
        },
        Some("ev-load"),
    );
    boxtrack_store::tracking::apply(&db, owner.id, container, &[withdraw])
        .await
        .unwrap();
    let after = reads::container_whole(&db, owner.id, container)
        .await
        .unwrap()
        .unwrap();
    assert!(after.state.withdrawn.contains("ev-load"));
    assert!(!after.state.estimates.is_empty(), "the estimate stays");
    assert!(
        after
            .state
            .milestones
            .latest(Milestone::VesselLoaded, Place::Origin)
            .is_none()
    );
    let voyage_read = |db: &Db| {
        let db = db.clone();
        async move {
            let (state, records) = state_and_records(&db, "shipments", shipment).await;
            assert!(!state.contains("\"estimates\""), "{state}");
            (
                serde_json::from_str::<ShipmentState>(&state).unwrap(),
                serde_json::from_str::<boxtrack_core::tracking::VoyageRecords>(&records).unwrap(),
            )
        }
    };
    let voyage_before = voyage_read(&db).await;
    // a state stored whole, as before migration 45, is moved apart by it
    let (migration, whole_json) = match db.backend() {
        boxtrack_store::Backend::Sqlite => (
            include_str!("../migrations/sqlite/0045_container_records.sql"),
            serde_json::to_string(&after.state).unwrap(),
        ),
        boxtrack_store::Backend::Postgres => (
            include_str!("../migrations/postgres/0045_container_records.sql"),
            serde_json::to_string(&after.state).unwrap(),
        ),
    };
    // the migration's data moves (its statements after the columns were added)
    let updates: Vec<String> = migration
        .split(';')
        .map(|st| {
            st.lines()
                .filter(|l| !l.trim_start().starts_with("--"))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .filter(|st| st.trim_start().starts_with("UPDATE"))
        .collect();
    assert_eq!(updates.len(), 2, "{updates:?}");
    boxtrack_store::on_db!(&db, p => {
        let set = match db.backend() {
            boxtrack_store::Backend::Sqlite => "UPDATE containers SET state = $1, records = '{}' WHERE id = $2",
            boxtrack_store::Backend::Postgres => "UPDATE containers SET state = $1::jsonb, records = '{}' WHERE id = $2",
        };
        sqlx::query(set).bind(&whole_json).bind(container).execute(p).await.unwrap();
        let whole_voyage = match db.backend() {
            boxtrack_store::Backend::Sqlite => "UPDATE shipments SET state = json_patch(state, records), records = '{}' WHERE id = $1",
            boxtrack_store::Backend::Postgres => "UPDATE shipments SET state = state || records, records = '{}' WHERE id = $1",
        };
        sqlx::query(whole_voyage).bind(shipment).execute(p).await.unwrap();
        assert!(reads::container(&db, owner.id, container).await.unwrap().unwrap().state.withdrawn.contains("ev-load"));
        for update in &updates {
            sqlx::raw_sql(sqlx::AssertSqlSafe(update.clone())).execute(p).await.unwrap();
        }
    });
    let (state_keys, _) = stored(&db).await;
    assert!(
        !state_keys
            .iter()
            .any(|k| k == "milestones" || k == "withdrawn")
    );
    let moved = reads::container_whole(&db, owner.id, container)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(moved.state, after.state);
    let (voyage_state, voyage_records) = voyage_read(&db).await;
    assert!(!voyage_records.estimates.is_empty());
    assert!(voyage_state.pod_eta_us.is_some());
    assert_eq!((voyage_state, voyage_records), voyage_before);
}

/// A bulk apply of 300 containers in 30 shipments lands whole (on PostgreSQL in three parts
/// at once, by shipment): every container's events and raw events, an event log without a gap
/// that holds one entry a change; the same bulk again changes nothing.
#[tokio::test]
async fn a_bulk_apply_lands_whole_and_again_changes_nothing() {
    use boxtrack_core::tracking::{
        DataSource, EventFact, Fact, Milestone, Observation, Place, ShipmentState,
    };
    use sqlx::types::Json;
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    let owner = account(&db, "bulk").await;
    let empty = Json(Vec::<String>::new());
    let mut containers = Vec::new();
    for s in 0..30 {
        let shipment = uuid::Uuid::now_v7();
        boxtrack_store::on_db!(&db, p => sqlx::query("INSERT INTO shipments (id, account_id, tracking_request_id, bill_of_lading_number, scac, ref_numbers, tags, route, state, created_us, updated_us) VALUES ($1, $2, NULL, $3, 'MAEU', $4, $4, '{}', $5, 1, 1)")
            .bind(shipment).bind(owner.id).bind(format!("BULK{s}")).bind(empty.clone()).bind(Json(ShipmentState::default()))
            .execute(p).await.map(|_| ()).unwrap());
        for c in 0..10 {
            let id = uuid::Uuid::now_v7();
            boxtrack_store::on_db!(&db, p => sqlx::query("INSERT INTO containers (id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, active, created_us, updated_us) VALUES ($1, $2, $3, $4, $5, '{}', 'new', FALSE, TRUE, 1, 1)")
                .bind(id).bind(owner.id).bind(shipment).bind(format!("BLKU{s:03}{c:04}")).bind(empty.clone())
                .execute(p).await.map(|_| ()).unwrap());
            containers.push(id);
        }
    }
    let event = |m: Milestone, h: i64| Observation {
        observed_us: 10 + h,
        source: DataSource::ShippingLine,
        fact: Fact::Event(EventFact {
            milestone: m,
            estimated: false,
            at_us: Some(h * 3_600_000_000),
            place: Place::Origin,
            locode: Some("CNSHA".into()),
            timezone: None,
            terminal: None,
            vessel_name: Some("EVER GIVEN".into()),
            vessel_imo: Some("9811000".into()),
            voyage: Some("0412E".into()),
        }),
        precision: Default::default(),
        upstream_id: None,
    };
    // a shipment's containers interleaved with the others', as a file lists them
    let mut batches: Vec<(uuid::Uuid, Vec<Observation>)> = (0..10)
        .flat_map(|c| (0..30).map(move |s| s * 10 + c))
        .map(|i| {
            (
                containers[i],
                vec![
                    event(Milestone::VesselLoaded, 10),
                    event(Milestone::VesselDeparted, 12),
                ],
            )
        })
        .collect();
    // a container nobody has: the whole bulk refused, nothing written
    let mut with_unknown = batches.clone();
    with_unknown.push((
        uuid::Uuid::now_v7(),
        vec![event(Milestone::VesselLoaded, 10)],
    ));
    let refused = boxtrack_store::tracking::apply_many(&db, owner.id, &with_unknown).await;
    assert!(
        matches!(refused, Err(boxtrack_store::StoreError::NotFound(_))),
        "{refused:?}"
    );
    let changes = boxtrack_store::tracking::apply_many(&db, owner.id, &batches)
        .await
        .unwrap();
    let count = |table: &'static str| {
        let db = db.clone();
        async move {
            let sql = format!("SELECT COUNT(*) FROM {table}");
            let n: i64 = boxtrack_store::on_db!(&db, p => sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).fetch_one(p).await.unwrap());
            n
        }
    };
    assert_eq!(count("transport_events").await, 600);
    assert_eq!(count("raw_events").await, 600);
    let (first, last, n): (i64, i64, i64) = boxtrack_store::on_db!(&db, p => sqlx::query_as("SELECT MIN(seq), MAX(seq), COUNT(*) FROM events WHERE account_id = $1")
        .bind(owner.id).fetch_one(p).await.unwrap());
    assert_eq!((first, last, n), (1, changes as i64, changes as i64));
    assert!(changes >= 600, "{changes} changes");
    let departed: i64 = boxtrack_store::on_db!(&db, p => sqlx::query_scalar("SELECT COUNT(*) FROM containers WHERE account_id = $1 AND current_status <> 'new'")
        .bind(owner.id).fetch_one(p).await.unwrap());
    assert_eq!(departed, 300);
    if let Db::Postgres(p) = &db {
        // three transactions wrote them (300 containers: three parts of 100), each whole
        // shipments
        let writers: i64 = sqlx::query_scalar(
            "SELECT COUNT(DISTINCT xmin::text) FROM containers WHERE account_id = $1",
        )
        .bind(owner.id)
        .fetch_one(p)
        .await
        .unwrap();
        assert_eq!(writers, 3);
        let split: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM (SELECT shipment_id FROM containers WHERE account_id = $1 GROUP BY shipment_id HAVING COUNT(DISTINCT xmin::text) > 1) s")
            .bind(owner.id).fetch_one(p).await.unwrap();
        assert_eq!(split, 0);
    }

    // again: nothing new, in any order
    batches.reverse();
    let again = boxtrack_store::tracking::apply_many(&db, owner.id, &batches)
        .await
        .unwrap();
    assert_eq!(again, 0);
    assert_eq!(count("transport_events").await, 600);
    assert_eq!(count("raw_events").await, 600);
    assert_eq!(count("events").await, changes as i64);
}

/// This binary's renderer of the rendered texts (a front end installs the resources' own; one per
/// process, whichever installs first): the text names what it was made of.
fn install_test_renderer() {
    boxtrack_store::rendered::install(boxtrack_store::rendered::Renderer {
        render: |st, status, ready| format!("t1|{status}|{ready}|{}", st.times.len()),
        current: |text| text.starts_with("t1|"),
        render_shipment: |route, st| {
            let pod = route.pod_locode.as_deref().unwrap_or_default();
            format!("u1|{pod}|{}", st.pol_atd_us.is_some())
        },
        shipment_current: |text| text.starts_with("u1|"),
        tag: "t1|",
        shipment_tag: "u1|",
    });
}

/// What a shipping line says of `milestone` at `place` (Los Angeles as the port of discharge,
/// Shanghai elsewhere), happening at `at_us`, observed at `observed_us`.
fn line_event(
    milestone: boxtrack_core::tracking::Milestone,
    place: boxtrack_core::tracking::Place,
    estimated: bool,
    at_us: i64,
    observed_us: i64,
) -> boxtrack_core::tracking::Observation {
    use boxtrack_core::tracking::{DataSource, EventFact, Fact, Observation, Place};
    Observation {
        observed_us,
        source: DataSource::ShippingLine,
        fact: Fact::Event(EventFact {
            milestone,
            estimated,
            at_us: Some(at_us),
            place,
            locode: Some(
                if place == Place::Pod {
                    "USLAX"
                } else {
                    "CNSHA"
                }
                .into(),
            ),
            timezone: None,
            terminal: None,
            vessel_name: None,
            vessel_imo: None,
            voyage: None,
        }),
        precision: Default::default(),
        upstream_id: None,
    }
}

/// A shipment of `account` with an empty route and state, written long ago (at 1 µs).
async fn bare_shipment(db: &Db, account: uuid::Uuid, bill: &str) -> uuid::Uuid {
    let (id, empty) = (
        uuid::Uuid::now_v7(),
        sqlx::types::Json(Vec::<String>::new()),
    );
    boxtrack_store::on_db!(db, p => sqlx::query("INSERT INTO shipments (id, account_id, tracking_request_id, bill_of_lading_number, scac, ref_numbers, tags, route, state, created_us, updated_us) VALUES ($1, $2, NULL, $3, 'MAEU', $4, $4, '{}', '{}', 1, 1)")
        .bind(id).bind(account).bind(bill).bind(empty)
        .execute(p).await.map(|_| ()).unwrap());
    id
}

/// A container of `shipment` with an empty state, status `new`, written long ago (at 1 µs).
async fn bare_container(
    db: &Db,
    account: uuid::Uuid,
    shipment: uuid::Uuid,
    number: &str,
) -> uuid::Uuid {
    let (id, empty) = (
        uuid::Uuid::now_v7(),
        sqlx::types::Json(Vec::<String>::new()),
    );
    boxtrack_store::on_db!(db, p => sqlx::query("INSERT INTO containers (id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, active, created_us, updated_us) VALUES ($1, $2, $3, $4, $5, '{}', 'new', FALSE, TRUE, 1, 1)")
        .bind(id).bind(account).bind(shipment).bind(number).bind(empty)
        .execute(p).await.map(|_| ()).unwrap());
    id
}

/// The merge writes its renderer's text of each container's state beside the state, and a
/// read to show the container takes that text instead of the state while it is current; a
/// text of another renderer, or none, and the read parses the state.
#[tokio::test]
async fn a_merged_container_is_shown_from_its_rendered_state_while_that_is_current() {
    use boxtrack_core::tracking::{EventFact, Fact, Milestone, Observation, Place, ShipmentState};
    use boxtrack_store::reads::{self, ContainerRow, RenderedContainer, RenderedShipment};
    use sqlx::types::Json;
    install_test_renderer();
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    let owner = account(&db, "rendered").await;
    let (shipment, container) = (uuid::Uuid::now_v7(), uuid::Uuid::now_v7());
    let empty = Json(Vec::<String>::new());
    boxtrack_store::on_db!(&db, p => {
        sqlx::query("INSERT INTO shipments (id, account_id, tracking_request_id, bill_of_lading_number, scac, ref_numbers, tags, route, state, created_us, updated_us) VALUES ($1, $2, NULL, 'BLR1', 'MAEU', $3, $3, '{}', $4, 1, 1)")
            .bind(shipment).bind(owner.id).bind(empty.clone()).bind(Json(ShipmentState::default()))
            .execute(p).await.map(|_| ()).unwrap();
        sqlx::query("INSERT INTO containers (id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, active, created_us, updated_us) VALUES ($1, $2, $3, 'MSKU1234565', $4, '{}', 'new', FALSE, TRUE, 1, 1)")
            .bind(container).bind(owner.id).bind(shipment).bind(empty.clone())
            .execute(p).await.map(|_| ()).unwrap();
    });
    let rendered = |db: Db| async move {
        reads::container_and_shipment::<RenderedContainer>(&db, owner.id, container, true)
            .await
            .unwrap()
            .unwrap()
            .container
    };
    // no merge yet: no text, the state parsed
    assert!(matches!(
        rendered(db.clone()).await,
        RenderedContainer::Row(_)
    ));
    let loaded = line_event(
        Milestone::VesselLoaded,
        Place::Origin,
        false,
        3_600_000_000,
        10,
    );
    boxtrack_store::tracking::apply_many(&db, owner.id, &[(container, vec![loaded.clone()])])
        .await
        .unwrap();
    let row = reads::container(&db, owner.id, container)
        .await
        .unwrap()
        .unwrap();
    let made = format!(
        "t1|{}|{}|{}",
        row.current_status,
        row.ready_for_pickup,
        row.state.times.len()
    );
    assert_ne!(row.current_status, "new");
    match rendered(db.clone()).await {
        RenderedContainer::View(v) => {
            assert_eq!(v.view, made);
            assert_eq!(
                (v.id, v.shipment_id, v.number.as_str(), v.updated_us),
                (row.id, row.shipment_id, "MSKU1234565", row.updated_us)
            );
        }
        RenderedContainer::Row(_) => panic!("the rendered state was not read"),
    }
    // with the shipment's containers when asked, and without them when not
    let sibling = bare_container(&db, owner.id, shipment, "MSKU7654321").await;
    let read = reads::container_and_shipment::<RenderedContainer>(&db, owner.id, container, true)
        .await
        .unwrap()
        .unwrap();
    let refs: Vec<_> = read.siblings.unwrap().iter().map(|r| r.id).collect();
    assert_eq!(refs, [container, sibling], "oldest first, then by id");
    assert!(matches!(read.container, RenderedContainer::View(_)));
    let without =
        reads::container_and_shipment::<RenderedContainer>(&db, owner.id, container, false)
            .await
            .unwrap()
            .unwrap();
    assert!(without.siblings.is_none());
    boxtrack_store::on_db!(&db, p => sqlx::query("DELETE FROM containers WHERE id = $1")
        .bind(sibling).execute(p).await.map(|_| ()).unwrap());
    // a list reads it so too, with the columns a list's cursor is made of
    let page = boxtrack_core::paging::Page {
        number: 1,
        size: 10,
        cursor: None,
    };
    let listed = || {
        let (db, page) = (db.clone(), page);
        async move {
            reads::containers_as::<RenderedContainer>(&db, owner.id, &Default::default(), &page)
                .await
                .unwrap()
                .rows
        }
    };
    match &listed().await[..] {
        [RenderedContainer::View(v)] => {
            assert_eq!(v.view, made);
            assert_eq!((v.id, v.updated_us), (row.id, row.updated_us));
        }
        other => panic!("the list did not read the rendered state: {other:?}"),
    }
    // the text of another renderer (an older build's) is not shown
    boxtrack_store::on_db!(&db, p => sqlx::query("UPDATE container_views SET view = 'old|x' WHERE container_id = $1")
        .bind(container).execute(p).await.map(|_| ()).unwrap());
    match rendered(db.clone()).await {
        RenderedContainer::Row(r) => assert_eq!(
            format!("{:?}", r.state),
            format!("{:?}", row.state),
            "the state read as the whole row reads it"
        ),
        RenderedContainer::View(_) => panic!("a text of another renderer was shown"),
    }
    match &listed().await[..] {
        [RenderedContainer::Row(r)] => {
            assert_eq!(format!("{:?}", r.state), format!("{:?}", row.state))
        }
        other => panic!("the list showed a text of another renderer: {other:?}"),
    }
    // the whole row's reader is not affected by the text
    let whole = reads::container_and_shipment::<ContainerRow>(&db, owner.id, container, false)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(whole.container.current_status, row.current_status);
    // the shipment: shown from its text once a merge changed its state
    let rendered_shipment = |db: Db| async move {
        reads::container_and_shipment::<RenderedContainer>(&db, owner.id, container, false)
            .await
            .unwrap()
            .unwrap()
            .shipment
            .unwrap()
    };
    let departed = Observation {
        observed_us: 11,
        fact: Fact::Event(EventFact {
            milestone: Milestone::VesselDeparted,
            at_us: Some(7_200_000_000),
            ..match &loaded.fact {
                Fact::Event(e) => e.clone(),
                _ => unreachable!(),
            }
        }),
        ..loaded.clone()
    };
    boxtrack_store::tracking::apply_many(&db, owner.id, &[(container, vec![departed])])
        .await
        .unwrap();
    let parsed = reads::shipment(&db, owner.id, shipment)
        .await
        .unwrap()
        .unwrap();
    assert!(parsed.state.pol_atd_us.is_some());
    match rendered_shipment(db.clone()).await {
        RenderedShipment::View(v) => {
            assert_eq!(v.view, "u1||true");
            assert_eq!(
                (v.id, v.bill_of_lading_number.as_str(), v.updated_us),
                (shipment, "BLR1", parsed.updated_us)
            );
        }
        RenderedShipment::Row(_) => panic!("the rendered shipment was not read"),
    }
    // a page's shipments by id are read so too
    let by_id = || {
        let db = db.clone();
        async move {
            reads::shipments_as::<RenderedShipment>(&db, owner.id, &[shipment])
                .await
                .unwrap()
                .remove(&shipment)
                .unwrap()
        }
    };
    match by_id().await {
        RenderedShipment::View(v) => {
            assert_eq!(v.view, "u1||true");
            assert_eq!(
                (
                    v.id,
                    v.bill_of_lading_number.as_str(),
                    v.updated_us,
                    v.customer_id
                ),
                (shipment, "BLR1", parsed.updated_us, None)
            );
        }
        RenderedShipment::Row(_) => panic!("the page's rendered shipment was not read"),
    }
    boxtrack_store::on_db!(&db, p => sqlx::query("UPDATE shipment_views SET view = 'old|x' WHERE shipment_id = $1")
        .bind(shipment).execute(p).await.map(|_| ()).unwrap());
    match rendered_shipment(db.clone()).await {
        RenderedShipment::Row(r) => assert_eq!(r.state, parsed.state),
        RenderedShipment::View(_) => panic!("a text of another renderer was shown"),
    }
    match by_id().await {
        RenderedShipment::Row(r) => assert_eq!(r.state, parsed.state),
        RenderedShipment::View(_) => panic!("a page's shipment showed a text of another renderer"),
    }
    // a merge that changes the state but not what this renderer shows of it leaves its own
    // text, and removes another build's (which may show the state before): reads then parse
    let eta = |at_us: i64, observed_us: i64| Observation {
        observed_us,
        fact: Fact::Event(EventFact {
            milestone: Milestone::VesselArrived,
            estimated: true,
            at_us: Some(at_us),
            place: Place::Pod,
            locode: Some("USLAX".into()),
            ..match &loaded.fact {
                Fact::Event(e) => e.clone(),
                _ => unreachable!(),
            }
        }),
        ..loaded.clone()
    };
    let text = || {
        let db = db.clone();
        async move {
            let v: Option<String> = boxtrack_store::on_db!(&db, p => sqlx::query_scalar("SELECT view FROM shipment_views WHERE shipment_id = $1")
                .bind(shipment).fetch_optional(p).await.unwrap());
            v
        }
    };
    let merged_eta = |n: i64| {
        let db = db.clone();
        let observation = eta(100 * 3_600_000_000 + n, 20 + n);
        async move {
            let before = reads::shipment(&db, owner.id, shipment)
                .await
                .unwrap()
                .unwrap();
            boxtrack_store::tracking::apply_many(&db, owner.id, &[(container, vec![observation])])
                .await
                .unwrap();
            let after = reads::shipment(&db, owner.id, shipment)
                .await
                .unwrap()
                .unwrap();
            assert_ne!(before.state, after.state, "the merge changed the state");
        }
    };
    merged_eta(1).await;
    assert_eq!(text().await, None, "another build's text was left");
    boxtrack_store::on_db!(&db, p => sqlx::query("INSERT INTO shipment_views (shipment_id, account_id, view) VALUES ($1, $2, 'u1||true')")
        .bind(shipment).bind(owner.id).execute(p).await.map(|_| ()).unwrap());
    merged_eta(2).await;
    assert_eq!(text().await.as_deref(), Some("u1||true"));
}

/// After an upgrade (or rows a process without a renderer wrote), the containers' rendered
/// states are written again for this renderer, a batch at a time; a current one is left.
#[tokio::test]
async fn stale_rendered_states_are_written_again_once() {
    use boxtrack_core::tracking::ShipmentState;
    use boxtrack_store::rendered;
    use sqlx::types::Json;
    install_test_renderer();
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    let owner = account(&db, "stale").await;
    let shipment = uuid::Uuid::now_v7();
    let empty = Json(Vec::<String>::new());
    let mut ids = Vec::new();
    boxtrack_store::on_db!(&db, p => sqlx::query("INSERT INTO shipments (id, account_id, tracking_request_id, bill_of_lading_number, scac, ref_numbers, tags, route, state, created_us, updated_us) VALUES ($1, $2, NULL, 'BLS1', 'MAEU', $3, $3, '{}', $4, 1, 1)")
        .bind(shipment).bind(owner.id).bind(empty.clone()).bind(Json(ShipmentState::default()))
        .execute(p).await.map(|_| ()).unwrap());
    // none, another version's, a current one
    for (i, view) in [None, Some("c0|old"), Some("t1|kept")]
        .into_iter()
        .enumerate()
    {
        let id = uuid::Uuid::now_v7();
        boxtrack_store::on_db!(&db, p => sqlx::query("INSERT INTO containers (id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, active, created_us, updated_us) VALUES ($1, $2, $3, $4, $5, '{\"times\":{\"pod_arrived_at\":5}}', 'available', TRUE, TRUE, 1, 1)")
            .bind(id).bind(owner.id).bind(shipment).bind(format!("STAU{i:07}")).bind(empty.clone())
            .execute(p).await.map(|_| ()).unwrap());
        if let Some(view) = view {
            boxtrack_store::on_db!(&db, p => sqlx::query("INSERT INTO container_views (container_id, account_id, view) VALUES ($1, $2, $3)")
                .bind(id).bind(owner.id).bind(view)
                .execute(p).await.map(|_| ()).unwrap());
        }
        ids.push(id);
    }
    let views = || {
        let db = db.clone();
        let ids = ids.clone();
        async move {
            let mut out = Vec::new();
            for id in ids {
                let v: Option<String> = boxtrack_store::on_db!(&db, p => sqlx::query_scalar("SELECT view FROM container_views WHERE container_id = $1")
                    .bind(id).fetch_optional(p).await.unwrap());
                out.push(v);
            }
            out
        }
    };
    // two at a time: the first batch, then the rest
    let containers = rendered::RenderedKind::Containers;
    // every container here is the one account's: the cursor carries it
    let every = |id| rendered::Cursor::Every(owner.id, id);
    let start = rendered::Cursor::Every(uuid::Uuid::nil(), uuid::Uuid::nil());
    let (n, last) = rendered::refresh(&db, containers, start, 2).await.unwrap();
    assert_eq!((n, last), (2, Some(every(ids[1]))));
    let (n, last) = rendered::refresh(&db, containers, every(ids[1]), 2)
        .await
        .unwrap();
    assert_eq!((n, last), (0, Some(every(ids[2]))));
    assert_eq!(
        rendered::refresh(&db, containers, every(ids[2]), 2)
            .await
            .unwrap(),
        (0, None)
    );
    let made = Some("t1|available|true|1".to_string());
    assert_eq!(views().await, [made.clone(), made, Some("t1|kept".into())]);
    // nothing stale is left: a pass writes nothing
    assert_eq!(
        rendered::refresh(&db, containers, start, 10)
            .await
            .unwrap()
            .0,
        0
    );
    // the shipment, written without a text, gets one; once
    let shipments = rendered::RenderedKind::Shipments;
    assert_eq!(
        rendered::refresh(&db, shipments, start, 10).await.unwrap(),
        (1, Some(every(shipment)))
    );
    let v: Option<String> = boxtrack_store::on_db!(&db, p => sqlx::query_scalar("SELECT view FROM shipment_views WHERE shipment_id = $1")
        .bind(shipment).fetch_optional(p).await.unwrap());
    assert_eq!(v.as_deref(), Some("u1||false"));
    assert_eq!(
        rendered::refresh(&db, shipments, start, 10)
            .await
            .unwrap()
            .0,
        0
    );
}

/// A pass over the rendered texts from `pass.from` to the end, `batch` rows at a time; returns
/// how many texts it wrote and whether it was recorded.
async fn whole_pass(db: &Db, pass: &boxtrack_store::rendered::Pass, batch: i64) -> (usize, bool) {
    let (mut wrote, mut at) = (0, pass.from);
    loop {
        let (n, next) = boxtrack_store::rendered::refresh(db, pass.kind, at, batch)
            .await
            .unwrap();
        wrote += n;
        match next {
            Some(next) => at = next,
            None => break,
        }
    }
    (
        wrote,
        boxtrack_store::rendered::passed(db, pass).await.unwrap(),
    )
}

/// Once a pass of this renderer went to the end, a later start looks only at the rows
/// changed since it began (in every account), and leaves the rest unread; a pass of
/// another tag begun or recorded meanwhile, and the next start passes over every row again.
#[tokio::test]
async fn a_completed_pass_is_remembered_and_later_starts_read_only_changed_rows() {
    use boxtrack_store::rendered::{self, CHANGED_SLACK_US, Cursor, RenderedKind};
    install_test_renderer();
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    // three accounts of two containers each, written long ago by an older renderer
    let mut ids = Vec::new();
    for name in ["pass-a", "pass-b", "pass-c"] {
        let owner = account(&db, name).await;
        let shipment = bare_shipment(&db, owner.id, "BLP1").await;
        for i in 0..2 {
            let id = bare_container(&db, owner.id, shipment, &format!("PASU{i:07}")).await;
            boxtrack_store::on_db!(&db, p => sqlx::query("INSERT INTO container_views (container_id, account_id, view) VALUES ($1, $2, 'c0|old')")
                .bind(id).bind(owner.id)
                .execute(p).await.map(|_| ()).unwrap());
            ids.push(id);
        }
    }
    let view = |id: uuid::Uuid| {
        let db = db.clone();
        async move {
            let v: String = boxtrack_store::on_db!(&db, p => sqlx::query_scalar("SELECT view FROM container_views WHERE container_id = $1")
                .bind(id).fetch_one(p).await.unwrap());
            v
        }
    };
    let set = |id: uuid::Uuid, text: &'static str, updated_us: i64| {
        let db = db.clone();
        async move {
            boxtrack_store::on_db!(&db, p => sqlx::query("UPDATE container_views SET view = $2 WHERE container_id = $1")
                .bind(id).bind(text).execute(p).await.map(|_| ()).unwrap());
            boxtrack_store::on_db!(&db, p => sqlx::query("UPDATE containers SET updated_us = $2 WHERE id = $1")
                .bind(id).bind(updated_us).execute(p).await.map(|_| ()).unwrap());
        }
    };
    let marker = || {
        let db = db.clone();
        async move {
            let m: Option<Option<String>> = boxtrack_store::on_db!(&db, p => sqlx::query_scalar("SELECT tag FROM shown_passes WHERE shown = 'containers'")
                .fetch_optional(p).await.unwrap());
            m.flatten()
        }
    };
    let t0 = 1_000 * CHANGED_SLACK_US;
    let containers = RenderedKind::Containers;

    // the first start passes over every row and records it
    let pass = rendered::begin(&db, containers, t0).await.unwrap().unwrap();
    assert_eq!(
        pass.from,
        Cursor::Every(uuid::Uuid::nil(), uuid::Uuid::nil())
    );
    assert_eq!(whole_pass(&db, &pass, 1).await, (6, true));
    assert_eq!(marker().await.as_deref(), Some("t1|"));
    for id in &ids {
        assert_eq!(view(*id).await, "t1|new|false|0");
    }

    // a text unchanged since (here made stale by hand) is not read by the next start; one an
    // older build merged after the pass began (within the slack, in a later account) is
    let (unread, merged) = (ids[0], ids[3]);
    set(unread, "c0|hand", 1).await;
    set(merged, "c0|merged", t0 - CHANGED_SLACK_US / 2).await;
    let pass = rendered::begin(&db, containers, t0 + 1)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(pass.from, Cursor::changed_since(t0 - CHANGED_SLACK_US));
    assert_eq!(whole_pass(&db, &pass, 1).await, (1, true));
    assert_eq!(view(merged).await, "t1|new|false|0");
    assert_eq!(view(unread).await, "c0|hand");

    // two passes of this renderer at once: both go to the end, the record stays
    let (one, two) = (
        rendered::begin(&db, containers, t0 + 2)
            .await
            .unwrap()
            .unwrap(),
        rendered::begin(&db, containers, t0 + 3)
            .await
            .unwrap()
            .unwrap(),
    );
    assert_eq!(whole_pass(&db, &one, 10).await, (0, true));
    assert_eq!(whole_pass(&db, &two, 10).await, (0, false));
    assert_eq!(marker().await.as_deref(), Some("t1|"));

    // a pass of another tag went to the end meanwhile (another build): this one's is not
    // recorded, the record is withdrawn, and the next start passes over every row
    let racing = rendered::begin(&db, containers, t0 + 4)
        .await
        .unwrap()
        .unwrap();
    boxtrack_store::on_db!(&db, p => sqlx::query("UPDATE shown_passes SET tag = 'c9|', generation = generation + 1 WHERE shown = 'containers'")
        .execute(p).await.map(|_| ()).unwrap());
    assert_eq!(whole_pass(&db, &racing, 10).await, (0, false));
    assert_eq!(marker().await, None);
    let pass = rendered::begin(&db, containers, t0 + 5)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        pass.from,
        Cursor::Every(uuid::Uuid::nil(), uuid::Uuid::nil())
    );
    assert_eq!(whole_pass(&db, &pass, 4).await, (1, true));
    assert_eq!(view(unread).await, "t1|new|false|0");

    // a record of another tag is withdrawn when this renderer's pass begins, before it
    // writes anything: a pass of that tag going to the end later records nothing either
    boxtrack_store::on_db!(&db, p => sqlx::query("UPDATE shown_passes SET tag = 'c9|', generation = generation + 1 WHERE shown = 'containers'")
        .execute(p).await.map(|_| ()).unwrap());
    let pass = rendered::begin(&db, containers, t0 + 6)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        pass.from,
        Cursor::Every(uuid::Uuid::nil(), uuid::Uuid::nil())
    );
    assert_eq!(marker().await, None);
    assert_eq!(whole_pass(&db, &pass, 10).await, (0, true));

    // the shipments' record is their own
    let shipments = rendered::begin(&db, RenderedKind::Shipments, t0 + 7)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        shipments.from,
        Cursor::Every(uuid::Uuid::nil(), uuid::Uuid::nil())
    );
    assert_eq!(whole_pass(&db, &shipments, 10).await, (3, true));
}

/// A new estimate takes the earlier estimates of its milestone off the timeline, and the
/// milestone that happened takes every estimate of it off, on each container of a bulk
/// (one statement for many containers); what other containers or milestones have stays.
#[tokio::test]
async fn newer_estimates_and_actuals_supersede_earlier_estimates_across_a_bulk() {
    use boxtrack_core::tracking::{Milestone, Observation, Place};
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    let owner = account(&db, "supersede").await;
    let shipment = bare_shipment(&db, owner.id, "BLS9").await;
    let mut ids = Vec::new();
    for i in 0..3 {
        ids.push(bare_container(&db, owner.id, shipment, &format!("SUPU{i:07}")).await);
    }
    const H: i64 = 3_600_000_000;
    let event = |milestone, place, estimated, at_h: i64, observed_us| {
        line_event(milestone, place, estimated, at_h * H, observed_us)
    };
    let arrival = |estimated, at_h, observed| {
        event(
            Milestone::VesselArrived,
            Place::Pod,
            estimated,
            at_h,
            observed,
        )
    };
    let bulk = |make: &dyn Fn(usize) -> Vec<Observation>| -> Vec<(uuid::Uuid, Vec<Observation>)> {
        ids.iter()
            .enumerate()
            .map(|(i, id)| (*id, make(i)))
            .collect()
    };
    // on the timeline: (event, hour) of a container's open transport events
    let open = |id: uuid::Uuid| {
        let db = db.clone();
        async move {
            let rows: Vec<(String, Option<i64>)> = boxtrack_store::on_db!(&db, p => sqlx::query_as("SELECT event, at_us FROM transport_events WHERE container_id = $1 AND superseded_us IS NULL ORDER BY event, at_us")
                .bind(id).fetch_all(p).await.unwrap());
            rows.into_iter()
                .map(|(e, at)| (e, at.unwrap_or_default() / H))
                .collect::<Vec<_>>()
        }
    };
    let estimated = "container.transport.estimated.vessel_arrived".to_string();
    // a first estimate, and the departure (another milestone) on every container
    let first = bulk(&|i| {
        vec![
            event(Milestone::VesselDeparted, Place::Origin, false, 10, 1),
            arrival(true, 300 + i as i64, 2),
        ]
    });
    boxtrack_store::tracking::apply_many(&db, owner.id, &first)
        .await
        .unwrap();
    for (i, id) in ids.iter().enumerate() {
        let now = open(*id).await;
        assert!(
            now.contains(&(estimated.clone(), 300 + i as i64)),
            "{now:?}"
        );
    }
    // a newer estimate on the first two: the earlier one leaves their timelines only
    let again: Vec<_> = bulk(&|i| vec![arrival(true, 320 + i as i64, 3)])
        .into_iter()
        .take(2)
        .collect();
    boxtrack_store::tracking::apply_many(&db, owner.id, &again)
        .await
        .unwrap();
    for (i, id) in ids.iter().enumerate() {
        let now = open(*id).await;
        let estimates: Vec<_> = now.iter().filter(|(e, _)| *e == estimated).collect();
        let expected = if i < 2 { 320 } else { 300 } + i as i64;
        assert_eq!(estimates, [&(estimated.clone(), expected)], "container {i}");
        assert!(
            now.iter().any(|(e, _)| e.ends_with("vessel_departed")),
            "{now:?}"
        );
    }
    // the arrival itself on the second and third: every estimate of it leaves
    let arrived: Vec<_> = bulk(&|_| vec![arrival(false, 330, 4)])
        .into_iter()
        .skip(1)
        .collect();
    boxtrack_store::tracking::apply_many(&db, owner.id, &arrived)
        .await
        .unwrap();
    for (i, id) in ids.iter().enumerate() {
        let now = open(*id).await;
        let estimates = now.iter().filter(|(e, _)| *e == estimated).count();
        assert_eq!(estimates, usize::from(i == 0), "container {i}: {now:?}");
        assert_eq!(
            now.iter()
                .any(|(e, _)| e.ends_with(".vessel_arrived") && !e.contains("estimated")),
            i > 0,
            "container {i}: {now:?}"
        );
    }
}

/// A PostgreSQL connection whose server process ended while it sat idle in the pool is found
/// out before it is used and replaced: the next statement runs on a new connection instead of
/// failing (see `db::pg_pool_options` for why every connection is checked as it is taken).
#[tokio::test]
async fn a_connection_that_died_while_idle_is_replaced_before_use() {
    use sqlx::Connection;
    if !boxtrack_testkit::on_postgres() {
        return;
    }
    let t = boxtrack_testkit::fresh().await;
    let db = Db::connect_pool(&t.url, Some(1), std::time::Duration::from_secs(10))
        .await
        .unwrap();
    let Db::Postgres(pool) = &db else {
        panic!("not PostgreSQL")
    };
    let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(pool)
        .await
        .unwrap();
    let mut other = sqlx::PgConnection::connect(&t.url).await.unwrap();
    let ended: bool = sqlx::query_scalar("SELECT pg_terminate_backend($1)")
        .bind(pid)
        .fetch_one(&mut other)
        .await
        .unwrap();
    assert!(ended);
    // until its server process is gone
    loop {
        let left: i64 = sqlx::query_scalar("SELECT count(*) FROM pg_stat_activity WHERE pid = $1")
            .bind(pid)
            .fetch_one(&mut other)
            .await
            .unwrap();
        if left == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let again: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_ne!(
        again, pid,
        "the pool handed out the dead connection's replacement"
    );
}

/// A key that authenticates records its use on its own row (the statement names the account
/// as well as the key: a bind missing there would update nothing, silently on SQLite).
#[tokio::test]
async fn an_authenticated_key_records_its_use() {
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    let (account, record, key) = boxtrack_store::accounts::create(
        &db,
        boxtrack_store::accounts::NewAccount {
            name: "uses".into(),
            plan: boxtrack_core::plan::Plan::Standard,
            entitlements: vec![],
            rate_limits: boxtrack_core::ratelimit::Limits::default(),
        },
    )
    .await
    .unwrap();
    assert_eq!(record.last_used_us, None);
    let (id, found) = boxtrack_store::keys::authenticate(&db, &key)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((id, found.id), (record.id, account.id));
    let keys = boxtrack_store::keys::list(&db, account.id, &boxtrack_core::paging::Page::first(10))
        .await
        .unwrap();
    assert!(
        keys.rows.iter().all(|k| k.last_used_us.is_some()),
        "{:?}",
        keys.rows
    );
}

/// The vessels AIS feeds keep: those of shipments tracked, or stopped within the refinement
/// week, tied to MMSIs by the static data stored.
#[tokio::test]
async fn tracked_vessels_are_those_of_shipments_still_followed() {
    use boxtrack_core::tracking::ShipmentState;
    use boxtrack_store::ais::{StaticUpdate, tracked_vessels};
    use sqlx::types::Json;
    let dir = boxtrack_testkit::temp_dir("boxtrack-ais-watch");
    let db = Db::connect(&format!("sqlite://{}", dir.join("w.db").display()))
        .await
        .unwrap();
    db.migrate().await.unwrap();
    let owner = account(&db, "owner").await;
    let Db::Sqlite(p, _) = &db else {
        unreachable!("a sqlite:// URL opens SQLite")
    };
    let now = 1_000_000_000_000_000_i64;
    let day = 86_400_000_000_i64;
    // (vessel IMO, when tracking stopped)
    for (n, (imo, stopped)) in [
        ("9321483", None),
        ("9281140", Some(now - 30 * day)),
        ("9518945", Some(now - day)),
    ]
    .into_iter()
    .enumerate()
    {
        let state = ShipmentState {
            pod_vessel_imo: Some(imo.to_string()),
            ..ShipmentState::default()
        };
        sqlx::query("INSERT INTO shipments (id, account_id, bill_of_lading_number, scac, ref_numbers, tags, route, state, tracking_stopped_us, created_us, updated_us) VALUES ($1, $2, $3, 'MAEU', '[]', '[]', '{}', $4, $5, 1, 1)")
            .bind(uuid::Uuid::now_v7())
            .bind(owner.id)
            .bind(format!("BL{n}"))
            .bind(Json(state))
            .bind(stopped)
            .execute(p)
            .await
            .unwrap();
    }
    let statics: Vec<StaticUpdate> = [(219_000_001, "9321483"), (219_000_002, "9281140")]
        .into_iter()
        .map(|(mmsi, imo)| StaticUpdate {
            mmsi,
            imo: Some(imo.to_string()),
            name: "V".into(),
            callsign: String::new(),
            ship_type: 71,
            destination: String::new(),
            eta_us: None,
            draught_m: 10.0,
            at_us: now,
        })
        .collect();
    boxtrack_store::ais::store(&db, &[], &statics)
        .await
        .unwrap();
    let mut t = tracked_vessels(&db, now).await.unwrap();
    t.imos.sort();
    assert_eq!(t.imos, ["9321483", "9518945"]);
    assert_eq!(t.mmsis, [219_000_001]);
}
