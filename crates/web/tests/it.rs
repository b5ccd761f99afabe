//! The web console on a real socket against a fresh database (SQLite by default, PostgreSQL
//! when `DATABASE_URL=postgres://…`): sign-in, the portal, keys created and revoked, CSRF.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use boxtrack_app::ctx::Policy as UseCasePolicy;
use boxtrack_core::plan::Plan;
use boxtrack_core::ratelimit::Limits;
use boxtrack_http::{ApiConfig, Front, Limiter};
use boxtrack_store::Db;
use boxtrack_store::accounts::{self, NewAccount};
use reqwest::redirect::Policy;
use tokio_util::sync::CancellationToken;

// this binary's other tests, in files of their own beside it
#[path = "it/charges.rs"]
mod charges;
#[path = "it/entries.rs"]
mod entries;
#[path = "it/escaping.rs"]
mod escaping;

struct App {
    base: String,
    db: Db,
    /// The state the console runs on (its key cache and limiter are the REST service's too).
    front: Front,
    http: reqwest::Client,
    _shutdown: tokio_util::sync::DropGuard,
    _database: boxtrack_testkit::TestDatabase,
}

async fn spawn() -> App {
    spawn_with(UseCasePolicy::default()).await
}

async fn spawn_with(policy: UseCasePolicy) -> App {
    let config = ApiConfig::default();
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    // as serve builds it: limits in memory on SQLite, shared in the database on PostgreSQL
    let limiter = match db.backend() {
        boxtrack_store::Backend::Sqlite => Limiter::memory(),
        boxtrack_store::Backend::Postgres => Limiter::database(db.clone()),
    };
    let front = Front::new(
        boxtrack_app::Ctx::new(db.clone()).with_policy(policy),
        config,
        limiter,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = CancellationToken::new();
    // the console alone, as the service mounts it
    let routes = boxtrack_web::mount().with_state::<()>(front.clone());
    let router = axum::Router::new()
        .merge(routes.public)
        .merge(routes.authenticated);
    let stop = shutdown.clone();
    tokio::spawn(async move {
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
        .with_graceful_shutdown(stop.cancelled_owned())
        .await
    });
    App {
        base: format!("http://{addr}"),
        db,
        front,
        http: reqwest::Client::builder()
            .redirect(Policy::none())
            .build()
            .unwrap(),
        _shutdown: shutdown.drop_guard(),
        _database: database,
    }
}

/// An account with a user who signs in with `password`.
async fn account_with_user(app: &App, name: &str, email: &str) -> uuid::Uuid {
    let (a, _, _) = accounts::create(
        &app.db,
        NewAccount {
            name: name.into(),
            plan: Plan::Standard,
            entitlements: vec![],
            rate_limits: Limits::default(),
        },
    )
    .await
    .unwrap();
    let hash = boxtrack_core::oauth::hash_password("correct horse").unwrap();
    boxtrack_store::oauth::create_user(&app.db, a.id, email, &hash)
        .await
        .unwrap();
    a.id
}

fn cookie_of(r: &reqwest::Response, name: &str) -> Option<(String, String)> {
    r.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with(&format!("{name}=")))
        .map(|v| {
            let value = v[name.len() + 1..].split(';').next().unwrap().to_string();
            (value, v.to_string())
        })
}

fn field(html: &str, marker: &str) -> String {
    let at = html
        .find(marker)
        .unwrap_or_else(|| panic!("no {marker} in {html}"))
        + marker.len();
    html[at..].split('"').next().unwrap().to_string()
}

/// Signs in and returns the session cookie's value.
async fn sign_in(app: &App, email: &str, password: &str) -> reqwest::Response {
    let page = app
        .http
        .get(format!("{}/console/sign-in", app.base))
        .send()
        .await
        .unwrap();
    let (csrf_cookie, _) = cookie_of(&page, "btk_console_csrf").unwrap();
    let html = page.text().await.unwrap();
    let csrf = field(&html, r#"name="csrf" value=""#);
    app.http
        .post(format!("{}/console/sign-in", app.base))
        .header("cookie", format!("btk_console_csrf={csrf_cookie}"))
        .form(&[
            ("csrf", csrf.as_str()),
            ("email", email),
            ("password", password),
        ])
        .send()
        .await
        .unwrap()
}

/// `GET path` with the session cookie `session` (empty: a cookie that names no session).
async fn get_as(app: &App, path: &str, session: &str) -> reqwest::Response {
    app.http
        .get(format!("{}{path}", app.base))
        .header("cookie", format!("btk_console={session}"))
        .send()
        .await
        .unwrap()
}

/// The page at `path` as `session` sees it.
async fn html_as(app: &App, path: &str, session: &str) -> String {
    get_as(app, path, session).await.text().await.unwrap()
}

async fn console(app: &App, session: &str) -> reqwest::Response {
    get_as(app, "/console", session).await
}

async fn post_form(
    app: &App,
    path: &str,
    session: &str,
    form: &[(&str, &str)],
) -> reqwest::Response {
    app.http
        .post(format!("{}{path}", app.base))
        .header("cookie", format!("btk_console={session}"))
        .form(form)
        .send()
        .await
        .unwrap()
}

/// What the REST service's key check answers for `key` (the service is not served here: its
/// check is the process's key cache, then the database, then the account's rate limit in the
/// default bucket, all on the state the console shares with it): 200 or 401.
async fn v2_status(app: &App, key: &str) -> u16 {
    let Ok(parsed) = boxtrack_core::apikey::ApiKey::parse(key) else {
        return 401;
    };
    let digest = parsed.digest();
    let account = match app.front.keys.get(&digest) {
        Some(found) => found.account,
        None => match boxtrack_store::keys::authenticate(&app.db, &parsed)
            .await
            .unwrap()
        {
            Some((key_id, account)) => {
                let account = std::sync::Arc::new(account);
                app.front.keys.put(digest, key_id, account.clone());
                account
            }
            None => return 401,
        },
    };
    let bucket = boxtrack_core::ratelimit::Bucket::Default;
    let limit = account.rate_limits.limit(bucket);
    let d = app
        .front
        .limiter
        .check(account.id, bucket, limit)
        .await
        .unwrap();
    if d.allowed { 200 } else { 429 }
}

#[tokio::test]
async fn sign_in_create_a_key_see_it_once_revoke_it_sign_out() {
    let app = spawn().await;
    let account = account_with_user(&app, "Harbor Freight Co", "ops@example.com").await;
    let other = account_with_user(&app, "Other Co", "other@example.com").await;

    // without a session the portal sends people to sign in
    let r = console(&app, "nothing").await;
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/console/sign-in");
    // and so does every form sent without one
    let r = app
        .http
        .post(format!(
            "{}/console/webhooks/{}/test",
            app.base,
            uuid::Uuid::nil()
        ))
        .form(&[("csrf", ""), ("event", "")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/console/sign-in");

    // the sign-in page: strict headers
    let r = app
        .http
        .get(format!("{}/console/sign-in", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("default-src 'none'")
    );
    assert_eq!(r.headers()["x-frame-options"], "DENY");

    // a form without its token changes nothing
    let r = app
        .http
        .post(format!("{}/console/sign-in", app.base))
        .form(&[("email", "ops@example.com"), ("password", "correct horse")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(cookie_of(&r, "btk_console").is_none());

    // a wrong password: the form again, with the error
    let r = sign_in(&app, "ops@example.com", "wrong").await;
    assert_eq!(r.status(), 400);
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("The email or password is not right.")
    );

    let r = sign_in(&app, "OPS@example.com", "correct horse").await;
    assert_eq!(r.status(), 303);
    let (session, header) = cookie_of(&r, "btk_console").unwrap();
    assert!(
        header.contains("HttpOnly")
            && header.contains("SameSite=Strict")
            && header.contains("Path=/console"),
        "{header}"
    );

    let r = console(&app, &session).await;
    assert_eq!(r.status(), 200);
    let html = r.text().await.unwrap();
    assert!(html.contains("Harbor Freight Co") && html.contains("ops@example.com"));
    assert!(html.contains("standard") && html.contains("tracking_requests.create"));
    let csrf = field(&html, r#"name="csrf" value=""#);

    // creating a key needs the session's form token
    let r = post_form(
        &app,
        "/console/keys",
        &session,
        &[("csrf", "forged"), ("name", "ci")],
    )
    .await;
    assert_eq!(r.status(), 403);
    let r = post_form(
        &app,
        "/console/keys",
        &session,
        &[("csrf", &csrf), ("name", "ci")],
    )
    .await;
    assert_eq!(r.status(), 201);
    let html = r.text().await.unwrap();
    let key = field(&html, r#"<p class="secret" id="new-key-value">"#)
        .split('<')
        .next()
        .unwrap()
        .to_string();
    assert!(key.len() > 20, "{key}");
    assert_eq!(v2_status(&app, &key).await, 200);
    assert_eq!(v2_status(&app, &key).await, 200);
    // shown once: the portal shows only its hint afterwards
    let html = console(&app, &session).await.text().await.unwrap();
    assert!(!html.contains(&key));
    // usage against the limits: the two requests in the default bucket
    assert!(
        html.contains("<tr><td><code>default</code></td><td>100 a minute</td><td>2</td></tr>"),
        "{html}"
    );
    assert!(html.contains("0 active containers (no limit)"), "{html}");
    let record = boxtrack_store::keys::list_all(&app.db, account)
        .await
        .unwrap()
        .into_iter()
        .find(|k| k.name.as_deref() == Some("ci"))
        .unwrap();
    assert!(html.contains(&record.hint));
    // a key that expires: a day in the past makes nothing, one ahead shows in the table
    let r = post_form(
        &app,
        "/console/keys",
        &session,
        &[
            ("csrf", &csrf),
            ("name", "old"),
            ("expires_on", "2001-01-01"),
        ],
    )
    .await;
    assert_eq!(r.status(), 422);
    let r = post_form(
        &app,
        "/console/keys",
        &session,
        &[
            ("csrf", &csrf),
            ("name", "q4"),
            ("expires_on", "2099-12-31"),
        ],
    )
    .await;
    assert_eq!(r.status(), 201);
    let html = console(&app, &session).await.text().await.unwrap();
    assert!(html.contains("2099-12-31T00:00:00Z"), "{html}");
    assert!(!html.contains(">old<"), "{html}");

    // another account's key is not this account's to revoke
    let theirs = boxtrack_store::keys::list_all(&app.db, other)
        .await
        .unwrap();
    let r = post_form(
        &app,
        &format!("/console/keys/{}/revoke", theirs[0].id),
        &session,
        &[("csrf", &csrf)],
    )
    .await;
    assert_eq!(r.status(), 404);
    // revoking needs the token, then takes effect at once
    let path = format!("/console/keys/{}/revoke", record.id);
    assert_eq!(post_form(&app, &path, &session, &[]).await.status(), 403);
    assert_eq!(v2_status(&app, &key).await, 200);
    let r = post_form(&app, &path, &session, &[("csrf", &csrf)]).await;
    assert_eq!(r.status(), 303);
    assert_eq!(v2_status(&app, &key).await, 401);

    // signing out ends the session for good
    assert_eq!(
        post_form(&app, "/console/sign-out", &session, &[("csrf", "x")])
            .await
            .status(),
        403
    );
    let r = post_form(&app, "/console/sign-out", &session, &[("csrf", &csrf)]).await;
    assert_eq!(r.status(), 303);
    assert_eq!(console(&app, &session).await.status(), 303);
}

#[tokio::test]
async fn sign_in_attempts_are_limited_per_email() {
    let app = spawn().await;
    account_with_user(&app, "Guarded Co", "guarded@example.com").await;
    account_with_user(&app, "Bystander Co", "bystander@example.com").await;
    for _ in 0..boxtrack_core::ratelimit::SIGN_IN_ATTEMPTS_PER_MINUTE {
        assert_eq!(
            sign_in(&app, "guarded@example.com", "guess").await.status(),
            400
        );
    }
    // the right password no longer helps this minute; the refusal says when to come back
    let r = sign_in(&app, "Guarded@example.com", "correct horse").await;
    assert_eq!(r.status(), 429);
    assert!(r.headers().contains_key("retry-after"));
    assert!(cookie_of(&r, "btk_console").is_none());
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("Too many sign-in attempts")
    );
    // other users sign in as before
    assert_eq!(
        sign_in(&app, "bystander@example.com", "correct horse")
            .await
            .status(),
        303
    );
}

/// Tracks container `number` for `account` as if its carrier had answered (a request created,
/// claimed and finished with a shipment), as the worker does.
async fn track(app: &App, account: uuid::Uuid, number: &str) {
    track_with(app, account, number, vec![], Default::default()).await;
}

/// [`track`] with the request's reference numbers and extras (its customer).
async fn track_with(
    app: &App,
    account: uuid::Uuid,
    number: &str,
    ref_numbers: Vec<String>,
    extras: boxtrack_store::tracking::RequestExtras,
) {
    use boxtrack_store::tracking;
    let request = boxtrack_core::requests::validate(&boxtrack_core::requests::NewRequest {
        request_number: Some(number.into()),
        request_type: Some("container".into()),
        scac: Some("MAEU".into()),
        ref_numbers,
        ..Default::default()
    })
    .unwrap();
    let tr = tracking::create_request(&app.db, account, Plan::Standard, &request, &extras)
        .await
        .unwrap();
    let now = boxtrack_store::now_us();
    let claimed = tracking::claim_due(&app.db, now + 1_000_000, 60_000_000, 100)
        .await
        .unwrap();
    let row = claimed.into_iter().find(|r| r.id == tr.id).unwrap();
    tracking::finish(
        &app.db,
        &row,
        tracking::Outcome::Created {
            scac: "MAEU".into(),
            bill_of_lading_number: format!("MAEU{}", &number[4..]),
            route: Box::default(),
            containers: vec![tracking::NewContainer {
                number: number.into(),
                observations: vec![],
            }],
            scenario: None,
        },
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn the_containers_table_lists_filters_and_pages_the_account_s_containers() {
    let app = spawn().await;
    let account = account_with_user(&app, "Table Co", "table@example.com").await;
    let other = account_with_user(&app, "Other Co", "other-table@example.com").await;
    for number in ["MRSU4371639", "MSCU1234566", "TGHU6543213"] {
        track(&app, account, number).await;
    }
    track(&app, other, "CMAU1234564").await;
    assert_eq!(get_as(&app, "/console/containers", "").await.status(), 303);
    let (session, _) = cookie_of(
        &sign_in(&app, "table@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();

    let html = html_as(&app, "/console/containers", &session).await;
    assert!(html.contains("3 containers; page 1."), "{html}");
    for number in ["MRSU4371639", "MSCU1234566", "TGHU6543213"] {
        assert!(html.contains(number), "{number} missing");
    }
    assert!(
        !html.contains("CMAU1234564"),
        "another account's container is listed"
    );
    assert!(!html.contains("rel=\"next\""));

    // search by number; a status that means nothing is left out
    let html = html_as(&app, "/console/containers?q=MSCU1234566", &session).await;
    assert!(
        html.contains("1 containers")
            && html.contains("MSCU1234566")
            && !html.contains("MRSU4371639"),
        "{html}"
    );
    let html = html_as(&app, "/console/containers?status=teleported", &session).await;
    assert!(html.contains("3 containers"), "{html}");
    let html = html_as(&app, "/console/containers?ready=1", &session).await;
    assert!(html.contains("0 containers"), "{html}");
}

#[tokio::test]
async fn tracking_a_number_from_the_console() {
    let app = spawn().await;
    account_with_user(&app, "Track Co", "track@example.com").await;
    account_with_user(&app, "Bystander Co", "bystander2@example.com").await;
    let (session, _) = cookie_of(
        &sign_in(&app, "track@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();
    let r = console(&app, &session).await;
    let csrf = field(&r.text().await.unwrap(), r#"name="csrf" value=""#);
    let page = || get_as(&app, "/console/tracking_requests", &session);
    let r = page().await;
    assert_eq!(r.status(), 200);
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("0 tracking requests; page 1.")
    );

    let track = |number: &'static str, csrf: String| {
        let session = session.clone();
        let app = &app;
        async move {
            post_form(
                app,
                "/console/tracking_requests",
                &session,
                &[
                    ("csrf", &csrf),
                    ("request_number", number),
                    ("request_type", "bill_of_lading"),
                    ("scac", "test"),
                ],
            )
            .await
        }
    };
    assert_eq!(
        track("TEST-SCN-IMPORT", "forged".into()).await.status(),
        403
    );
    let r = track("", csrf.clone()).await;
    assert_eq!(r.status(), 400);
    assert!(
        r.text()
            .await
            .unwrap()
            .contains(r#"id="track-error" role="alert""#)
    );
    let r = track("TEST-SCN-IMPORT", csrf.clone()).await;
    assert_eq!(r.status(), 303, "{}", r.text().await.unwrap());
    let html = page().await.text().await.unwrap();
    assert!(
        html.contains("1 tracking requests; page 1.")
            && html.contains("TEST-SCN-IMPORT")
            && html.contains("<td>TEST</td>"),
        "{html}"
    );
    // the same number again: said plainly, nothing created
    let r = track("TEST-SCN-IMPORT", csrf).await;
    assert_eq!(r.status(), 409);
    assert!(r.text().await.unwrap().contains("is tracked already"));
    assert!(
        page()
            .await
            .text()
            .await
            .unwrap()
            .contains("1 tracking requests; page 1.")
    );

    // the other account sees none of it
    let (theirs, _) = cookie_of(
        &sign_in(&app, "bystander2@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();
    let html = html_as(&app, "/console/tracking_requests", &theirs).await;
    assert!(
        html.contains("0 tracking requests; page 1.")
            && !html.contains("<tr><td><code>TEST-SCN-IMPORT")
    );
}

#[tokio::test]
async fn a_container_page_shows_its_timeline_at_local_times_and_only_to_its_account() {
    use boxtrack_core::tracking::{DataSource, EventFact, Fact, Milestone, Observation, Place};
    let app = spawn().await;
    let account = account_with_user(&app, "Page Co", "page@example.com").await;
    account_with_user(&app, "Nosy Co", "nosy@example.com").await;
    track(&app, account, "MRSU4371639").await;
    let listed = boxtrack_store::reads::containers(
        &app.db,
        account,
        &Default::default(),
        &boxtrack_core::paging::Page {
            number: 1,
            size: 10,
            cursor: None,
        },
    )
    .await
    .unwrap();
    let id = listed.rows[0].id;
    // departed Shanghai at 16:30 UTC: 00:30 the next day on the clock there
    let at = boxtrack_core::time::parse_micros("2026-11-25T16:30:00Z").unwrap();
    boxtrack_store::tracking::apply(
        &app.db,
        account,
        id,
        &[Observation {
            observed_us: at,
            source: DataSource::ShippingLine,
            fact: Fact::Event(EventFact {
                milestone: Milestone::VesselDeparted,
                estimated: false,
                at_us: Some(at),
                place: Place::Origin,
                locode: Some("CNSHA".into()),
                timezone: Some("Asia/Shanghai".into()),
                terminal: None,
                vessel_name: Some("EVER GIVEN".into()),
                vessel_imo: None,
                voyage: Some("001E".into()),
            }),
            precision: Default::default(),
            upstream_id: None,
        }],
    )
    .await
    .unwrap();
    let (session, _) = cookie_of(
        &sign_in(&app, "page@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();
    let r = get_as(&app, &format!("/console/containers/{id}"), &session).await;
    assert_eq!(r.status(), 200);
    let html = r.text().await.unwrap();
    assert!(html.contains("Container MRSU4371639"), "{html}");
    assert!(
        html.contains(r#"<time datetime="2026-11-25T16:30:00Z">Nov 26 00:30 CST</time>"#),
        "{html}"
    );
    // the summary card comes before the timeline, which goes leg by leg
    let card = html.find(r#"class="card""#).unwrap_or(usize::MAX);
    let timeline = html.find(r#"id="timeline""#).unwrap_or(0);
    assert!(card < timeline, "{html}");
    assert!(
        html.contains("Next step:") && html.contains("<h3>Ocean "),
        "{html}"
    );
    assert!(
        html.contains("CNSHA") && html.contains("EVER GIVEN / 001E"),
        "{html}"
    );
    // where each value came from
    assert!(
        html.contains("Where each value came from")
            && html.contains("<code>pol_vessel_departed_at</code>"),
        "{html}"
    );
    // holds, fees (no terminal has spoken: not "none"), the last free day by source and what
    // the sources said, verbatim
    assert!(
        html.contains("Not reported yet: no source has said whether the box is held.")
            && html.contains("Not reported yet: no source has said what is owed."),
        "{html}"
    );
    assert!(
        html.contains("Last free day by source")
            && html.contains("POD terminal</th><td>not reported")
    );
    assert!(html.contains("<summary>Record</summary>"), "{html}");
    assert!(
        html.contains("shipping_line</td><td>vessel departed"),
        "{html}"
    );
    // the table links to the page
    let table = html_as(&app, "/console/containers", &session).await;
    assert!(table.contains(&format!("href=\"/console/containers/{id}\"")));
    // another account's session gets 404, and so does nonsense
    let (nosy, _) = cookie_of(
        &sign_in(&app, "nosy@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();
    assert_eq!(
        get_as(&app, &format!("/console/containers/{id}"), &nosy)
            .await
            .status(),
        404
    );
    assert_eq!(
        get_as(&app, "/console/containers/not-an-id", &session)
            .await
            .status(),
        404
    );
}

/// A sandbox journey's page runs on the journey's clock (its events and last free day), and
/// boxtrack's own times on the wall clock; a last free day's change is one row, when it
/// changed, at the port's clock.
#[tokio::test]
async fn a_sandbox_container_page_keeps_the_journey_s_clock() {
    use boxtrack_core::tracking::{
        DataSource, EventFact, Fact, LfdKind, Milestone, Observation, Place,
    };
    const H: i64 = 3_600_000_000;
    let app = spawn().await;
    let account = account_with_user(&app, "Clock Co", "clock@example.com").await;
    track(&app, account, "MRSU4371639").await;
    let id = container_id(&app, account, "MRSU4371639").await;
    let shipment: uuid::Uuid = boxtrack_store::on_db!(&app.db, p => sqlx::query_scalar(
        "SELECT shipment_id FROM containers WHERE id = $1").bind(id).fetch_one(p).await.unwrap());
    // a journey that started 100 real seconds ago: 100 hours on its clock (an hour a second)
    let wall = boxtrack_store::now_us();
    let started = wall - 100_000_000;
    boxtrack_store::on_db!(&app.db, p => sqlx::query(
        "INSERT INTO sandbox_runs (id, account_id, shipment_id, scenario, started_us, next_step, done) VALUES ($1, $2, $3, 'TEST-SCN-HOLDS', $4, 0, FALSE)")
        .bind(uuid::Uuid::now_v7()).bind(account).bind(shipment).bind(started)
        .execute(p).await.map(|_| ()).unwrap());
    let virtual_now = started + 100 * H;
    let observe = |observed_us: i64, source: DataSource, fact: Fact| Observation {
        observed_us,
        source,
        fact,
        precision: Default::default(),
        upstream_id: None,
    };
    boxtrack_store::tracking::apply(
        &app.db,
        account,
        id,
        &[
            // arrived 5 hours ago on the journey's clock
            observe(
                virtual_now - 5 * H,
                DataSource::ShippingLine,
                Fact::Event(EventFact {
                    milestone: Milestone::VesselArrived,
                    estimated: false,
                    at_us: Some(virtual_now - 5 * H),
                    place: Place::Pod,
                    locode: Some("USLAX".into()),
                    timezone: Some("America/Los_Angeles".into()),
                    terminal: None,
                    vessel_name: None,
                    vessel_imo: None,
                    voyage: None,
                }),
            ),
            // the terminal's last free day, in four days
            observe(
                virtual_now - 4 * H,
                DataSource::Terminal,
                Fact::Lfd {
                    which: LfdKind::Terminal,
                    at_us: Some(virtual_now + 96 * H),
                },
            ),
        ],
    )
    .await
    .unwrap();
    let (session, _) = cookie_of(
        &sign_in(&app, "clock@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();
    let html = html_as(&app, &format!("/console/containers/{id}"), &session).await;
    // the arrival was hours ago on the journey's clock, not days ahead on the wall's
    assert!(html.contains("Vessel arrived</span>"), "{html}");
    assert!(html.contains("5 h ago"), "{html}");
    // boxtrack updated the row a moment ago (wall clock), not 100 hours ago
    let updated = html.split("<dt>Updated</dt>").nth(1).unwrap_or_default();
    assert!(
        updated.contains("just now") || updated.contains(" s ago") || updated.contains("min ago"),
        "{updated}"
    );
    // one row for the last free day's change, not one per source, and no row without a time
    assert_eq!(html.matches("Last free day set to").count(), 1, "{html}");
    assert!(!html.contains("pickup lfd terminal changed"), "{html}");
    assert!(
        !html.to_lowercase().contains("pickup lfd changed"),
        "{html}"
    );
}

/// Sign-in lands on what needs action: boxes on hold, free time ending, arrivals this week;
/// the containers table shows a dispatcher's columns and finds a box by its shipment's PO.
#[tokio::test]
async fn sign_in_lands_on_what_needs_action() {
    use boxtrack_core::tracking::{Fact, Hold, Observation};
    let app = spawn().await;
    let account = account_with_user(&app, "Action Co", "action@example.com").await;
    track(&app, account, "MRSU4371639").await;
    track(&app, account, "MSKU1234565").await;
    let held = container_id(&app, account, "MRSU4371639").await;
    let now = boxtrack_store::now_us();
    boxtrack_store::tracking::apply(
        &app.db,
        account,
        held,
        &[Observation {
            observed_us: now,
            source: boxtrack_core::tracking::DataSource::Terminal,
            fact: Fact::Holds {
                holds: vec![Hold {
                    name: "customs".into(),
                    status: "hold".into(),
                    description: Some("CBP EXAM".into()),
                }],
            },
            precision: Default::default(),
            upstream_id: None,
        }],
    )
    .await
    .unwrap();
    let r = sign_in(&app, "action@example.com", "correct horse").await;
    assert_eq!(r.status(), 303);
    assert_eq!(
        r.headers().get("location").and_then(|l| l.to_str().ok()),
        Some("/console/action")
    );
    let (session, _) = cookie_of(&r, "btk_console").unwrap();
    let html = html_as(&app, "/console/action", &session).await;
    assert!(html.contains("<h1>Needs action</h1>"), "{html}");
    let on_hold = html.split("<h2>").nth(1).unwrap_or_default();
    assert!(
        on_hold.starts_with("On hold")
            && on_hold.contains("MRSU4371639")
            && !on_hold.contains("MSKU1234565"),
        "{on_hold}"
    );
    assert!(on_hold.contains("customs"), "{on_hold}");
    assert!(
        html.contains("No box is due at its port of discharge in the next 7 days."),
        "{html}"
    );
    assert!(
        html.contains(r#"href="/console/containers?holds=1""#),
        "{html}"
    );
    // every page links to it
    let table = html_as(&app, "/console/containers", &session).await;
    assert!(
        table.contains(r#"<a href="/console/action">Needs action</a>"#),
        "{table}"
    );
    assert!(
        table.contains("Holds, fees and charges") && table.contains("Arrival (port, inland)"),
        "{table}"
    );
}

/// An account with `entitlements` and its own limits, and a publishable key of it made in
/// the store (allowed from any origin).
async fn embedder(app: &App, name: &str, limits: Limits, entitled: bool) -> (uuid::Uuid, String) {
    let (a, _, _) = accounts::create(
        &app.db,
        NewAccount {
            name: name.into(),
            plan: Plan::Standard,
            entitlements: if entitled {
                vec![boxtrack_core::plan::Entitlement::Widget]
            } else {
                vec![]
            },
            rate_limits: limits,
        },
    )
    .await
    .unwrap();
    let (_, key) = boxtrack_store::publishable::create(&app.db, a.id, None, &[])
        .await
        .unwrap();
    (a.id, key.expose().to_string())
}

async fn embed_get(app: &App, path: &str, key: &str, origin: Option<&str>) -> reqwest::Response {
    let mut r = app
        .http
        .get(format!("{}{path}", app.base))
        .header("authorization", format!("Token {key}"));
    if let Some(o) = origin {
        r = r.header("origin", o);
    }
    r.send().await.unwrap()
}

#[tokio::test]
async fn publishable_keys_read_only_the_embeds_of_their_account_from_their_origins() {
    let app = spawn().await;
    let shop = "https://shop.example.com";
    let account = account_with_user(&app, "Embed Co", "embed@example.com").await;
    let (session, _) = cookie_of(
        &sign_in(&app, "embed@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();
    let html = html_as(&app, "/console", &session).await;
    let csrf = field(&html, r#"name="csrf" value=""#);
    // without the entitlement: said on the page, and nothing is made
    assert!(html.contains("Publishable keys") && html.contains("entitlement"));
    let r = post_form(
        &app,
        "/console/publishable_keys",
        &session,
        &[("csrf", &csrf), ("name", "site"), ("origins", shop)],
    )
    .await;
    assert_eq!(r.status(), 403);
    assert!(
        boxtrack_store::publishable::list(&app.db, account)
            .await
            .unwrap()
            .is_empty()
    );
    boxtrack_store::accounts::update(
        &app.db,
        account,
        boxtrack_store::accounts::AccountChanges {
            entitlements: Some(vec![boxtrack_core::plan::Entitlement::Widget]),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    // a bad origin changes nothing; a good one makes a key, shown once
    let r = post_form(
        &app,
        "/console/publishable_keys",
        &session,
        &[("csrf", &csrf), ("origins", "shop.example.com/path")],
    )
    .await;
    assert_eq!(r.status(), 400);
    let r = post_form(
        &app,
        "/console/publishable_keys",
        &session,
        &[
            ("csrf", &csrf),
            ("name", "site"),
            ("origins", "https://Shop.example.com/"),
        ],
    )
    .await;
    assert_eq!(r.status(), 201);
    let html = r.text().await.unwrap();
    let key = field(&html, r#"<p class="secret" id="new-key-value">"#);
    let key = key.split('<').next().unwrap().to_string();
    assert!(key.starts_with("btp_"), "{key}");
    let again = html_as(&app, "/console", &session).await;
    assert!(!again.contains(&key) && again.contains(shop));

    // what the account tracks, and another account's container
    track(&app, account, "MRSU4371639").await;
    let (other, other_key) = embedder(&app, "Other Embed Co", Limits::default(), true).await;
    track(&app, other, "TGHU6543213").await;
    let page = boxtrack_core::paging::Page {
        number: 1,
        size: 10,
        cursor: None,
    };
    let mine = &boxtrack_store::reads::containers(&app.db, account, &Default::default(), &page)
        .await
        .unwrap()
        .rows[0];
    let theirs = &boxtrack_store::reads::containers(&app.db, other, &Default::default(), &page)
        .await
        .unwrap()
        .rows[0];

    // the widget: exact numbers only, from the allowed origin, with CORS for it
    let r = embed_get(&app, "/embed/v1/track?number=mrsu4371639", &key, Some(shop)).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["access-control-allow-origin"], shop);
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(body["data"][0]["containers"][0]["number"], "MRSU4371639");
    assert_eq!(
        body["data"][0]["shipment"]["bill_of_lading_number"],
        "MAEU4371639"
    );
    for number in ["MRSU437", "TGHU6543213", "MAEU"] {
        let r = embed_get(
            &app,
            &format!("/embed/v1/track?number={number}"),
            &key,
            Some(shop),
        )
        .await;
        let body: serde_json::Value = r.json().await.unwrap();
        assert_eq!(body["data"], serde_json::json!([]), "{number}");
    }
    let r = embed_get(&app, "/embed/v1/track?number=a%20b", &key, Some(shop)).await;
    assert_eq!(r.status(), 400);
    assert_eq!(r.headers()["access-control-allow-origin"], shop);
    for origin in [Some("https://evil.example.com"), None] {
        let r = embed_get(&app, "/embed/v1/track?number=MRSU4371639", &key, origin).await;
        assert_eq!(r.status(), 403, "{origin:?}");
    }

    // the map: the container on its shipment, nothing of another account
    let map = |c: &boxtrack_store::reads::ContainerRow, s: uuid::Uuid| {
        format!(
            "/embed/v1/map_geojson?shipment_id={s}&container_id={}",
            c.id
        )
    };
    let r = embed_get(&app, &map(mine, mine.shipment_id), &key, Some(shop)).await;
    assert_eq!(r.status(), 200);
    let doc: serde_json::Value = r.json().await.unwrap();
    assert_eq!(doc["type"], "FeatureCollection");
    assert_eq!(
        embed_get(&app, &map(mine, theirs.shipment_id), &key, Some(shop))
            .await
            .status(),
        404
    );
    assert_eq!(
        embed_get(&app, &map(theirs, theirs.shipment_id), &key, Some(shop))
            .await
            .status(),
        404
    );
    assert_eq!(
        embed_get(&app, &map(theirs, theirs.shipment_id), &other_key, None)
            .await
            .status(),
        200
    );
    assert_eq!(
        embed_get(
            &app,
            "/embed/v1/map_geojson?shipment_id=x&container_id=y",
            &key,
            Some(shop)
        )
        .await
        .status(),
        400
    );

    // a publishable key reaches nothing else (MCP refuses it too: its suite), and a secret
    // key is refused here
    assert_eq!(v2_status(&app, &key).await, 401);
    let (_, _, secret) = accounts::create(
        &app.db,
        NewAccount {
            name: "Secret Co".into(),
            plan: Plan::Standard,
            entitlements: vec![boxtrack_core::plan::Entitlement::Widget],
            rate_limits: Limits::default(),
        },
    )
    .await
    .unwrap();
    assert_eq!(
        embed_get(
            &app,
            "/embed/v1/track?number=MRSU4371639",
            secret.expose(),
            None
        )
        .await
        .status(),
        401
    );

    // the preflight allows the Authorization header for the asking origin
    let r = app
        .http
        .request(
            reqwest::Method::OPTIONS,
            format!("{}/embed/v1/track", app.base),
        )
        .header("origin", shop)
        .header("access-control-request-method", "GET")
        .header("access-control-request-headers", "authorization")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(r.headers()["access-control-allow-origin"], shop);
    assert!(
        r.headers()["access-control-allow-headers"]
            .to_str()
            .unwrap()
            .contains("authorization")
    );

    // revoked in the console: refused at once
    let listed = boxtrack_store::publishable::list(&app.db, account)
        .await
        .unwrap();
    let r = post_form(
        &app,
        &format!("/console/publishable_keys/{}/revoke", listed[0].id),
        &session,
        &[("csrf", &csrf)],
    )
    .await;
    assert_eq!(r.status(), 303);
    assert_eq!(
        embed_get(&app, "/embed/v1/track?number=MRSU4371639", &key, Some(shop))
            .await
            .status(),
        401
    );
    // another account's key cannot be revoked from this session
    let theirs_listed = boxtrack_store::publishable::list(&app.db, other)
        .await
        .unwrap();
    let r = post_form(
        &app,
        &format!("/console/publishable_keys/{}/revoke", theirs_listed[0].id),
        &session,
        &[("csrf", &csrf)],
    )
    .await;
    assert_eq!(r.status(), 404);
}

#[tokio::test]
async fn embeds_need_the_entitlement_and_keep_their_own_rate_limit() {
    let app = spawn().await;
    let (_, unentitled) = embedder(&app, "No Widget Co", Limits::default(), false).await;
    assert_eq!(
        embed_get(
            &app,
            "/embed/v1/track?number=MRSU4371639",
            &unentitled,
            None
        )
        .await
        .status(),
        403
    );
    let limits = Limits(
        [(boxtrack_core::ratelimit::Bucket::Embed, 2)]
            .into_iter()
            .collect(),
    );
    let (_, key) = embedder(&app, "Small Widget Co", limits, true).await;
    for _ in 0..2 {
        assert_eq!(
            embed_get(&app, "/embed/v1/track?number=MRSU4371639", &key, None)
                .await
                .status(),
            200
        );
    }
    let r = embed_get(&app, "/embed/v1/track?number=MRSU4371639", &key, None).await;
    assert_eq!(r.status(), 429);
    assert!(r.headers().contains_key("retry-after"));

    // the static files: the map's script carries Leaflet and the map, the base map is GeoJSON
    let js = app
        .http
        .get(format!("{}/embed/map.js", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(js.status(), 200);
    assert!(
        js.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/javascript")
    );
    let js = js.text().await.unwrap();
    assert!(js.contains("BoxtrackMap") && js.contains("Leaflet"));
    let land: serde_json::Value = app
        .http
        .get(format!("{}/embed/land-110m.geojson", app.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(land["type"], "FeatureCollection");
    for path in [
        "/embed/widget.js",
        "/embed/widget.css",
        "/embed/map.css",
        "/embed/licenses.txt",
    ] {
        let r = app
            .http
            .get(format!("{}{path}", app.base))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(r.headers()["access-control-allow-origin"], "*", "{path}");
    }
}

/// The account's version as `GET /console/live` gives it to `session`.
async fn live_version(app: &App, session: &str) -> String {
    version_at(app, "/console/live", session).await
}

/// The version a live page's endpoint at `path` gives to `session`.
async fn version_at(app: &App, path: &str, session: &str) -> String {
    let r = get_as(app, path, session).await;
    assert_eq!(r.status(), 200);
    r.json::<serde_json::Value>().await.unwrap()["version"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn tables_export_as_csv_and_pages_know_when_the_account_changed() {
    let app = spawn().await;
    let account = account_with_user(&app, "Export Co", "export@example.com").await;
    let other = account_with_user(&app, "Elsewhere Co", "elsewhere@example.com").await;
    let (session, _) = cookie_of(
        &sign_in(&app, "export@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();
    // without a session: no version, no export
    let r = get_as(&app, "/console/live", "nothing").await;
    assert_eq!(r.status(), 401);
    assert_eq!(
        get_as(&app, "/console/containers.csv", "nothing")
            .await
            .status(),
        303
    );
    let before = live_version(&app, &session).await;
    assert_eq!(before, live_version(&app, &session).await);
    track(&app, account, "MRSU4371639").await;
    let after = live_version(&app, &session).await;
    assert_ne!(before, after, "tracking a container changes the version");
    track(&app, account, "MSCU1234566").await;
    track(&app, other, "TGHU6543213").await;

    // the pages carry the version they were rendered at and their live regions
    let html = html_as(&app, "/console/containers", &session).await;
    assert!(
        html.contains(r#"id="live-status""#) && html.contains(r#"id="containers-live" data-live"#)
    );
    assert!(html.contains(r#"<script src="/console/assets/live.js"></script>"#));
    assert!(html.contains(r#"href="/console/containers.csv?""#));

    // the export: every container of the account, none of another's, the filters applied
    let r = get_as(&app, "/console/containers.csv", &session).await;
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    assert!(
        r.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("containers.csv")
    );
    let csv = r.text().await.unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("number,status,ready_for_pickup,pickup_lfd"));
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(csv.contains("MRSU4371639") && csv.contains("MSCU1234566"));
    assert!(
        csv.contains("MAEU4371639"),
        "the bill of lading is exported: {csv}"
    );
    assert!(!csv.contains("TGHU6543213"));
    let filtered = get_as(&app, "/console/containers.csv?q=MSCU", &session)
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(filtered.lines().count(), 2, "{filtered}");
    assert!(filtered.contains("MSCU1234566"));
}

#[tokio::test]
async fn the_shipments_table_lists_and_filters_the_account_s_shipments() {
    let app = spawn().await;
    let account = account_with_user(&app, "Ships Co", "ships@example.com").await;
    let other = account_with_user(&app, "Not Ships Co", "notships@example.com").await;
    track(&app, account, "MRSU4371639").await;
    track(&app, account, "MSCU1234566").await;
    track(&app, other, "TGHU6543213").await;
    let (session, _) = cookie_of(
        &sign_in(&app, "ships@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();
    assert_eq!(
        get_as(&app, "/console/shipments", "nothing").await.status(),
        303
    );
    let html = html_as(&app, "/console/shipments", &session).await;
    assert!(html.contains("2 shipments; page 1."), "{html}");
    assert!(html.contains("MAEU4371639") && html.contains("MAEU1234566"));
    assert!(
        !html.contains("MAEU6543213"),
        "another account's shipment is listed"
    );
    assert!(html.contains(r#"href="/console/containers?q=MAEU4371639""#));
    let one = html_as(&app, "/console/shipments?q=4371639", &session).await;
    assert!(
        one.contains("1 shipments; page 1.") && one.contains("MAEU4371639"),
        "{one}"
    );
    let none = html_as(&app, "/console/shipments?carrier=CMDU", &session).await;
    assert!(none.contains("0 shipments"), "{none}");
    let stopped = html_as(&app, "/console/shipments?tracking=stopped", &session).await;
    assert!(stopped.contains("0 shipments"), "{stopped}");
    // the containers table filters by carrier and recency too
    let by_line = html_as(
        &app,
        "/console/containers?carrier=maeu&updated_days=1",
        &session,
    )
    .await;
    assert!(by_line.contains("2 containers; page 1."), "{by_line}");
    let other_line = html_as(&app, "/console/containers?carrier=CMDU", &session).await;
    assert!(other_line.contains("0 containers"), "{other_line}");
}

/// The id of the account's container `number`.
async fn container_id(app: &App, account: uuid::Uuid, number: &str) -> uuid::Uuid {
    let f = boxtrack_store::reads::Filter {
        container_number: Some(number.into()),
        ..Default::default()
    };
    let page = boxtrack_core::paging::Page {
        number: 1,
        size: 1,
        cursor: None,
    };
    boxtrack_store::reads::containers(&app.db, account, &f, &page)
        .await
        .unwrap()
        .rows[0]
        .id
}

/// Where each of `needles` first appears in `hay` (panics on one missing).
fn positions(hay: &str, needles: &[&str]) -> Vec<usize> {
    needles
        .iter()
        .map(|n| {
            hay.find(n)
                .unwrap_or_else(|| panic!("{n} missing from {hay}"))
        })
        .collect()
}

#[tokio::test]
async fn tables_sort_filter_by_holds_and_export_shipments() {
    use boxtrack_core::tracking::{DataSource, Fact, Hold, LfdKind, Observation};
    let app = spawn().await;
    let account = account_with_user(&app, "Sort Co", "sort@example.com").await;
    let other = account_with_user(&app, "Unsorted Co", "unsorted@example.com").await;
    for n in ["MRSU4371639", "MSCU1234566", "CMAU1234564"] {
        track(&app, account, n).await;
    }
    track(&app, other, "TGHU6543213").await;
    let day = 86_400_000_000_i64;
    let t = boxtrack_store::now_us();
    let obs = |fact: Fact| Observation {
        observed_us: t,
        source: DataSource::Terminal,
        fact,
        precision: Default::default(),
        upstream_id: None,
    };
    // MSCU: a customs hold and a last free day in 9 days; CMAU: a pending hold only and a
    // last free day in 2 days; MRSU: neither
    let mscu = container_id(&app, account, "MSCU1234566").await;
    boxtrack_store::tracking::apply(
        &app.db,
        account,
        mscu,
        &[
            obs(Fact::Holds {
                holds: vec![Hold {
                    name: "customs".into(),
                    status: "hold".into(),
                    description: None,
                }],
            }),
            obs(Fact::Lfd {
                which: LfdKind::Terminal,
                at_us: Some(t + 9 * day),
            }),
        ],
    )
    .await
    .unwrap();
    let cmau = container_id(&app, account, "CMAU1234564").await;
    boxtrack_store::tracking::apply(
        &app.db,
        account,
        cmau,
        &[
            obs(Fact::Holds {
                holds: vec![Hold {
                    name: "USDA".into(),
                    status: "pending".into(),
                    description: None,
                }],
            }),
            obs(Fact::Lfd {
                which: LfdKind::Terminal,
                at_us: Some(t + 2 * day),
            }),
        ],
    )
    .await
    .unwrap();
    let (session, _) = cookie_of(
        &sign_in(&app, "sort@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();

    // holds: active ones only; a pending hold does not count
    let held = html_as(&app, "/console/containers?holds=1", &session).await;
    assert!(held.contains("1 containers; page 1."), "{held}");
    assert!(held.contains("MSCU1234566") && !held.contains("CMAU1234564"));
    assert!(held.contains(r#"<option value="1" selected>on hold</option>"#));
    let free = html_as(&app, "/console/containers?holds=0", &session).await;
    assert!(free.contains("2 containers; page 1."), "{free}");
    assert!(!free.contains("MSCU1234566"));

    // sorting by last free day: soonest first, none last; then the other way, none still last
    let soonest = html_as(&app, "/console/containers?sort=pickup_lfd", &session).await;
    let p = positions(&soonest, &["CMAU1234564", "MSCU1234566", "MRSU4371639"]);
    assert!(p[0] < p[1] && p[1] < p[2], "{soonest}");
    assert!(
        soonest.contains(r#"aria-sort="ascending"><a href="/console/containers?sort=-pickup_lfd">Last free day ▲</a>"#),
        "the header says the order and links to the other direction: {soonest}"
    );
    assert!(soonest.contains(r#"<input type="hidden" name="sort" value="pickup_lfd">"#));
    let latest = html_as(&app, "/console/containers?sort=-pickup_lfd", &session).await;
    let p = positions(&latest, &["MSCU1234566", "CMAU1234564", "MRSU4371639"]);
    assert!(p[0] < p[1] && p[1] < p[2], "{latest}");
    // oldest tracked first
    let oldest = html_as(&app, "/console/containers?sort=created_at", &session).await;
    let p = positions(&oldest, &["MRSU4371639", "MSCU1234566", "CMAU1234564"]);
    assert!(p[0] < p[1] && p[1] < p[2], "{oldest}");
    // an order the table does not offer is the default
    let unknown = html_as(&app, "/console/containers?sort=number", &session).await;
    assert!(unknown.contains(r#"aria-sort="descending"><a href="/console/containers?sort=updated_at">Updated (UTC) ▼</a>"#), "{unknown}");

    // the export follows the order and the filters, and says which are on hold
    let csv = get_as(&app, "/console/containers.csv?sort=pickup_lfd", &session)
        .await
        .text()
        .await
        .unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4, "{csv}");
    assert!(lines[0].contains(",on_hold,"));
    assert!(lines[1].starts_with("CMAU1234564,") && lines[1].contains(",false,MAEU"));
    assert!(lines[2].starts_with("MSCU1234566,") && lines[2].contains(",true,MAEU"));
    assert!(lines[3].starts_with("MRSU4371639,"));
    let held_csv = get_as(&app, "/console/containers.csv?holds=1", &session)
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(held_csv.lines().count(), 2, "{held_csv}");

    // shipments: sorted, exported with their containers, another account's left out
    let ships = html_as(&app, "/console/shipments?sort=created_at", &session).await;
    let p = positions(&ships, &["MAEU4371639", "MAEU1234566", "MAEU1234564"]);
    assert!(p[0] < p[1] && p[1] < p[2], "{ships}");
    assert!(ships.contains(r#"href="/console/shipments.csv?sort=created_at""#));
    assert_eq!(
        get_as(&app, "/console/shipments.csv", "nothing")
            .await
            .status(),
        303
    );
    let r = get_as(&app, "/console/shipments.csv?sort=created_at", &session).await;
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("shipments.csv")
    );
    let csv = r.text().await.unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4, "{csv}");
    assert!(lines[0].starts_with("bill_of_lading,scac,pol_locode,pod_locode"));
    assert!(lines[1].starts_with("MAEU4371639,MAEU,") && lines[1].contains(",MRSU4371639,"));
    assert!(lines[3].starts_with("MAEU1234564,") && lines[3].contains(",tracked,"));
    assert!(!csv.contains("6543213"));
    let one = get_as(&app, "/console/shipments.csv?q=MSCU1234566", &session)
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(one.lines().count(), 2, "{one}");
}

#[tokio::test]
async fn a_container_page_shows_its_documents_fields_and_every_upstream_record() {
    use boxtrack_core::tracking::{DataSource, Fact, Observation};
    use boxtrack_store::{custom_fields, documents};
    let app = spawn().await;
    let account = account_with_user(&app, "Papers Co", "papers@example.com").await;
    let other = account_with_user(&app, "Other Papers Co", "otherpapers@example.com").await;
    track(&app, account, "MRSU4371639").await;
    track(&app, account, "MSCU1234566").await;
    let id = container_id(&app, account, "MRSU4371639").await;
    let sibling = container_id(&app, account, "MSCU1234566").await;
    let container = boxtrack_store::reads::container(&app.db, account, id)
        .await
        .unwrap()
        .unwrap();
    // 25 records from the terminal, each a different availability report
    let t = boxtrack_store::now_us();
    let observations: Vec<Observation> = (0..25)
        .map(|i| Observation {
            observed_us: t + i,
            source: DataSource::Terminal,
            fact: Fact::Availability {
                available: i % 2 == 0,
                at_us: None,
            },
            precision: Default::default(),
            upstream_id: None,
        })
        .collect();
    boxtrack_store::tracking::apply(&app.db, account, id, &observations)
        .await
        .unwrap();
    // a document on the shipment, one on the other container, and a field on each entity
    let mut doc_ids = Vec::new();
    for (name, body, shipments, containers) in [
        (
            "Bill of lading",
            b"%PDF-1".as_slice(),
            vec![container.shipment_id],
            vec![],
        ),
        (
            "Sibling's packing list",
            b"%PDF-2".as_slice(),
            vec![],
            vec![sibling],
        ),
    ] {
        let announced = boxtrack_core::documents::Announced {
            filename: format!("{}.pdf", name.len()),
            content_type: "application/pdf".into(),
            byte_size: body.len() as i64,
            checksum: name.into(),
        };
        let blob = documents::announce(&app.db, account, &announced, name, name)
            .await
            .unwrap();
        assert!(
            documents::store_bytes(&app.db, &boxtrack_store::files::InDatabase, &blob, body)
                .await
                .unwrap()
        );
        let created = documents::create(
            &app.db,
            &blob,
            documents::NewDocument {
                name,
                document_type: "bill_of_lading",
                shipment_ids: shipments,
                container_ids: containers,
            },
        )
        .await
        .unwrap();
        match created {
            documents::Created::New(d) => doc_ids.push(d.id),
            documents::Created::Duplicate { .. } => panic!("not a duplicate"),
        }
    }
    for (entity, entity_id, label, value) in [
        ("Container", id, "Seal number", serde_json::json!("SL-99")),
        (
            "Shipment",
            container.shipment_id,
            "Purchase orders",
            serde_json::json!(["PO-1", "PO-2"]),
        ),
    ] {
        let def = custom_fields::DefinitionRow {
            id: uuid::Uuid::now_v7(),
            account_id: account,
            entity_type: entity.into(),
            api_slug: label.to_lowercase().replace(' ', "_"),
            display_name: label.into(),
            description: None,
            data_type: "short_text".into(),
            reference_type: None,
            validation: serde_json::Value::Null,
            default_format: None,
            default_value: serde_json::Value::Null,
            created_us: t,
            updated_us: t,
        };
        custom_fields::create_definition(&app.db, &def)
            .await
            .unwrap();
        custom_fields::create_field(&app.db, &def, entity_id, &value)
            .await
            .unwrap();
    }
    let (session, _) = cookie_of(
        &sign_in(&app, "papers@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();
    let path = format!("/console/containers/{id}");
    let html = html_as(&app, &path, &session).await;
    assert!(
        html.contains("Bill of lading") && !html.contains("Sibling"),
        "{html}"
    );
    assert!(html.contains(&format!(
        r#"href="/console/documents/{}/download""#,
        doc_ids[0]
    )));
    assert!(
        html.contains("Seal number <code>seal_number</code></th><td>SL-99</td><td>container</td>"),
        "{html}"
    );
    assert!(
        html.contains("<td>PO-1, PO-2</td><td>shipment</td>"),
        "{html}"
    );
    // 25 records: 20 on the first page, the other 5 on the second
    assert!(html.contains("25 records; page 1."), "{html}");
    assert!(html.contains(&format!("/console/containers/{id}?raw_page=2#raw")));
    let second = html_as(&app, &format!("{path}?raw_page=2"), &session).await;
    assert!(second.contains("25 records; page 2."), "{second}");
    assert_eq!(second.matches("<summary>Record</summary>").count(), 5);
    assert!(second.contains("Newer records") && !second.contains("Older records"));

    // the download: a token of the API's kind, then the file
    let r = get_as(
        &app,
        &format!("/console/documents/{}/download", doc_ids[0]),
        &session,
    )
    .await;
    assert_eq!(r.status(), 303);
    let to = r.headers()["location"].to_str().unwrap().to_string();
    assert!(to.starts_with("/v2/downloads/dl_"), "{to}");
    // the token opens the file (`GET /v2/downloads/{token}` answers it: the API's suite)
    let token = to.trim_start_matches("/v2/downloads/");
    let file = boxtrack_store::documents::download(
        &app.db,
        &boxtrack_store::files::InDatabase,
        &boxtrack_core::documents::digest(token),
        boxtrack_store::now_us(),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(file.2, b"%PDF-1");
    // not without a session, and not another account's
    assert_eq!(
        get_as(
            &app,
            &format!("/console/documents/{}/download", doc_ids[0]),
            "nothing"
        )
        .await
        .status(),
        303
    );
    let (theirs, _) = cookie_of(
        &sign_in(&app, "otherpapers@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();
    let _ = other;
    assert_eq!(
        get_as(
            &app,
            &format!("/console/documents/{}/download", doc_ids[0]),
            &theirs
        )
        .await
        .status(),
        404
    );
    assert_eq!(get_as(&app, &path, &theirs).await.status(), 404);
}

#[tokio::test]
async fn tracking_requests_filter_page_and_export() {
    let app = spawn().await;
    let account = account_with_user(&app, "Requests Co", "requests@example.com").await;
    let other = account_with_user(&app, "Other Requests Co", "otherrequests@example.com").await;
    track(&app, account, "MRSU4371639").await;
    track(&app, account, "MSCU1234566").await;
    track(&app, other, "TGHU6543213").await;
    // one still pending
    let pending = boxtrack_core::requests::validate(&boxtrack_core::requests::NewRequest {
        request_number: Some("CMAU1234564".into()),
        request_type: Some("container".into()),
        scac: Some("CMDU".into()),
        ..Default::default()
    })
    .unwrap();
    boxtrack_store::tracking::create_request(
        &app.db,
        account,
        Plan::Standard,
        &pending,
        &Default::default(),
    )
    .await
    .unwrap();
    let (session, _) = cookie_of(
        &sign_in(&app, "requests@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();
    let all = html_as(&app, "/console/tracking_requests", &session).await;
    assert!(all.contains("3 tracking requests; page 1."), "{all}");
    assert!(!all.contains("TGHU6543213"));
    let waiting = html_as(&app, "/console/tracking_requests?status=pending", &session).await;
    assert!(
        waiting.contains("1 tracking requests; page 1.") && waiting.contains("CMAU1234564"),
        "{waiting}"
    );
    assert!(waiting.contains(r#"<option value="pending" selected>pending</option>"#));
    let by_line = html_as(
        &app,
        "/console/tracking_requests?scac=maeu&q=4371",
        &session,
    )
    .await;
    assert!(
        by_line.contains("1 tracking requests") && by_line.contains("MRSU4371639"),
        "{by_line}"
    );
    assert!(
        by_line.contains(r#"href="/console/tracking_requests.csv?q=4371&amp;scac=MAEU""#),
        "{by_line}"
    );
    // nonsense is left out rather than refused
    let odd = html_as(
        &app,
        "/console/tracking_requests?status=sideways&page=0",
        &session,
    )
    .await;
    assert!(odd.contains("3 tracking requests; page 1."), "{odd}");

    assert_eq!(
        get_as(&app, "/console/tracking_requests.csv", "nothing")
            .await
            .status(),
        303
    );
    let csv = get_as(
        &app,
        "/console/tracking_requests.csv?status=created",
        &session,
    )
    .await
    .text()
    .await
    .unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[0].starts_with("request_number,request_type,scac,status,failed_reason"));
    assert!(csv.contains("MRSU4371639,container,MAEU,created,") && csv.contains("MSCU1234566"));
    assert!(!csv.contains("CMAU1234564") && !csv.contains("TGHU6543213"));
}

#[tokio::test]
async fn a_csv_import_checks_every_row_tracks_the_good_ones_and_never_twice() {
    let app = spawn().await;
    account_with_user(&app, "Import Co", "import@example.com").await;
    let (session, _) = cookie_of(
        &sign_in(&app, "import@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();
    let html = html_as(&app, "/console/imports", &session).await;
    let csrf = field(&html, r#"name="csrf" value=""#);
    let csv = "number,type,scac,ref_numbers\nMSCU1234566,,,PO-1\nMSCU1234567,,,\nMRSU4371639,container,MAEU,PO-2;PO-3\nMSCU1234566,,,\n";
    // without the form token nothing is checked
    let r = post_form(&app, "/console/imports/preview", &session, &[("csv", csv)]).await;
    assert_eq!(r.status(), 403);
    let r = post_form(
        &app,
        "/console/imports/preview",
        &session,
        &[("csrf", &csrf), ("csv", csv)],
    )
    .await;
    assert_eq!(r.status(), 200);
    let preview = r.text().await.unwrap();
    assert!(
        preview.contains("2 of 4 rows can be tracked; 2 refused."),
        "{preview}"
    );
    assert!(
        preview.contains("Repeats line 2 of this file."),
        "{preview}"
    );
    let rows = field(&preview, r#"name="rows" value=""#).replace("&quot;", "\"");
    // the rows tracked, as the progress bar's batches ask (JSON)
    let run = |rows: String| {
        app.http
            .post(format!("{}/console/imports/run", app.base))
            .header("cookie", format!("btk_console={session}"))
            .header("accept", "application/json")
            .form(&[("csrf", csrf.clone()), ("rows", rows)])
            .send()
    };
    let r = run(rows.clone()).await.unwrap();
    assert_eq!(r.status(), 200);
    let body: serde_json::Value = r.json().await.unwrap();
    let outcomes: Vec<&str> = body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, vec!["tracked", "tracked"]);
    let tracked = html_as(&app, "/console/tracking_requests", &session).await;
    assert!(tracked.contains("MSCU1234566") && tracked.contains("MRSU4371639"));
    // the same file again creates nothing
    let again: serde_json::Value = run(rows).await.unwrap().json().await.unwrap();
    assert!(
        again["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["outcome"] == "already tracked"),
        "{again}"
    );
    // rows that do not come from the preview are checked again
    let forged =
        r#"[{"line":1,"number":"NOT A NUMBER","type":"container","scac":"","ref_numbers":[]}]"#;
    let r: serde_json::Value = run(forged.to_string()).await.unwrap().json().await.unwrap();
    assert_eq!(r["results"][0]["outcome"], "refused");
    assert_eq!(run("not json".into()).await.unwrap().status(), 400);
    // the single tracking form detects the carrier when it is left empty, as it says
    let r = post_form(
        &app,
        "/console/tracking_requests",
        &session,
        &[
            ("csrf", &csrf),
            ("request_number", "CMAU1234564"),
            ("request_type", "container"),
            ("scac", ""),
        ],
    )
    .await;
    assert_eq!(r.status(), 303);
    // an empty file is refused with the form again
    let r = post_form(
        &app,
        "/console/imports/preview",
        &session,
        &[("csrf", &csrf), ("csv", "\n")],
    )
    .await;
    assert_eq!(r.status(), 400);

    // the same rows from a workbook's first sheet (the page's script sends it as base64);
    // the second sheet's number is not read
    use base64::Engine as _;
    let workbook =
        base64::engine::general_purpose::STANDARD.encode(include_bytes!("fixtures/import.xlsx"));
    let r = post_form(
        &app,
        "/console/imports/preview",
        &session,
        &[("csrf", &csrf), ("csv", ""), ("xlsx", &workbook)],
    )
    .await;
    assert_eq!(r.status(), 200);
    let preview = r.text().await.unwrap();
    assert!(
        preview.contains("2 of 4 rows can be tracked; 2 refused."),
        "{preview}"
    );
    assert!(
        preview.contains("Repeats line 2 of this file."),
        "{preview}"
    );
    assert!(!preview.contains("TGHU6543213"));
    let rows = field(&preview, r#"name="rows" value=""#).replace("&quot;", "\"");
    assert!(
        rows.contains(r#""line":5,"number":"MRSU4371639""#),
        "{rows}"
    );
    let again: serde_json::Value = run(rows).await.unwrap().json().await.unwrap();
    assert!(
        again["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["outcome"] == "already tracked"),
        "the workbook's rows were tracked from the CSV already: {again}"
    );
    // what is not a workbook says so, and changes nothing
    for (bad, why) in [
        ("not base64!", "did not arrive whole"),
        (
            "bnVtYmVyLE1TQ1UxMjM0NTY2",
            "could not be read: this is not an XLSX workbook",
        ),
    ] {
        let r = post_form(
            &app,
            "/console/imports/preview",
            &session,
            &[("csrf", &csrf), ("csv", ""), ("xlsx", bad)],
        )
        .await;
        assert_eq!(r.status(), 400);
        assert!(r.text().await.unwrap().contains(why));
    }
}

#[tokio::test]
async fn webhooks_are_made_tested_inspected_and_redelivered_from_the_console() {
    use std::sync::{Arc, Mutex};
    let app = spawn_with(UseCasePolicy {
        allow_private_webhook_urls: true,
        ..UseCasePolicy::default()
    })
    .await;
    // a real receiver that keeps what it was sent
    let got: Arc<Mutex<Vec<axum::http::HeaderMap>>> = Arc::default();
    let keep = got.clone();
    let receiver = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |h: axum::http::HeaderMap| {
            let keep = keep.clone();
            async move {
                keep.lock().unwrap().push(h);
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hook = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, receiver).await });

    let account = account_with_user(&app, "Hooks Co", "hooks@example.com").await;
    account_with_user(&app, "Other Hooks Co", "otherhooks@example.com").await;
    let (session, _) = cookie_of(
        &sign_in(&app, "hooks@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();
    let html = html_as(&app, "/console/webhooks", &session).await;
    let csrf = field(&html, r#"name="csrf" value=""#);
    let r = post_form(
        &app,
        "/console/webhooks",
        &session,
        &[("csrf", &csrf), ("url", "ftp://example.com")],
    )
    .await;
    assert_eq!(r.status(), 400);
    let r = post_form(
        &app,
        "/console/webhooks",
        &session,
        &[("csrf", &csrf), ("url", &hook)],
    )
    .await;
    assert_eq!(r.status(), 303);
    let page_path = r.headers()["location"].to_str().unwrap().to_string();
    let page = html_as(&app, &page_path, &session).await;
    assert!(page.contains(&hook), "{page}");
    let w = boxtrack_store::webhooks::list(
        &app.db,
        account,
        &boxtrack_core::paging::Page {
            number: 1,
            size: 10,
            cursor: None,
        },
    )
    .await
    .unwrap()
    .rows
    .remove(0);
    assert!(
        page.contains(&w.secret),
        "the signing secret is on the page"
    );

    // a test delivery, signed, with what came back
    let r = post_form(
        &app,
        &format!("{page_path}/test"),
        &session,
        &[
            ("csrf", &csrf),
            ("event", "container.transport.vessel_arrived"),
        ],
    )
    .await;
    assert_eq!(r.status(), 200);
    let shown = r.text().await.unwrap();
    assert!(shown.contains("Delivered: HTTP 204"), "{shown}");
    {
        let got = got.lock().unwrap();
        assert_eq!(got.len(), 1);
        assert!(got[0].contains_key("webhook-id"));
        assert!(
            got[0].keys().any(|k| k.as_str().contains("signature")),
            "{:?}",
            got[0]
        );
    }

    // notifications of what the account tracks, each redeliverable
    track(&app, account, "MRSU4371639").await;
    let count = || async {
        boxtrack_store::notifications::list(
            &app.db,
            account,
            &Default::default(),
            &boxtrack_core::paging::Page {
                number: 1,
                size: 100,
                cursor: None,
            },
        )
        .await
        .unwrap()
        .rows
    };
    let before = count().await;
    assert!(!before.is_empty());
    let page = html_as(&app, &page_path, &session).await;
    assert!(page.contains(&before[0].event), "{page}");
    let n = &before[0];
    let v1 = version_at(&app, &format!("{page_path}/version"), &session).await;
    assert!(page.contains(&format!(r#"data-live-url="{page_path}/version""#)));
    let r = post_form(
        &app,
        &format!("{page_path}/notifications/{}/redeliver", n.id),
        &session,
        &[("csrf", &csrf)],
    )
    .await;
    assert_eq!(r.status(), 303);
    let after = count().await;
    assert_eq!(after.len(), before.len() + 1);
    let v2 = version_at(&app, &format!("{page_path}/version"), &session).await;
    assert_ne!(v1, v2, "the page's version moves with its notifications");
    assert!(
        after
            .iter()
            .any(|x| x.replay_of == Some(n.id) || (x.event == n.event && x.id != n.id))
    );

    // an attempt the receiver refused shows what it answered
    boxtrack_store::notifications::cycle(
        &app.db,
        boxtrack_store::notifications::Cycle {
            done: vec![(
                n.clone(),
                boxtrack_store::notifications::Attempt {
                    at_us: boxtrack_store::now_us(),
                    status_code: Some(422),
                    duration_ms: 7,
                    error: Some("receiver answered 422".into()),
                    response_body: Some("<b>unknown event</b>".into()),
                    succeeded: false,
                    next_attempt_us: None,
                },
            )],
            deactivate_after: 100,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let page = html_as(&app, &page_path, &session).await;
    assert!(
        page.contains("HTTP 422 · 7 ms · receiver answered 422<br>Answered: <pre class=\"answer\">&lt;b&gt;unknown event&lt;/b&gt;</pre>"),
        "{page}"
    );

    // the events it subscribes to, chosen on the page, grouped as the catalog groups them
    assert!(
        page.contains(
            r#"<input name="events" type="checkbox" value="tracking_request.succeeded" checked>"#
        ),
        "{page}"
    );
    assert!(page.contains("<legend>Tracking Request Events</legend>"));
    let r = post_form(
        &app,
        &page_path,
        &session,
        &[
            ("csrf", &csrf),
            ("url", &hook),
            ("active", "1"),
            ("events_shown", "1"),
            ("events", "container.transport.vessel_arrived"),
            ("events", "tracking_request.failed"),
        ],
    )
    .await;
    assert_eq!(r.status(), 303);
    let events = || async {
        boxtrack_store::webhooks::get(&app.db, account, w.id)
            .await
            .unwrap()
            .unwrap()
            .events
    };
    assert_eq!(
        events().await,
        [
            "container.transport.vessel_arrived",
            "tracking_request.failed"
        ]
    );
    for (bad, why) in [
        (vec![], "Choose at least one event"),
        (
            vec![("events", "container.teleported")],
            "&quot;container.teleported&quot; is not a webhook event",
        ),
    ] {
        let mut form = vec![
            ("csrf", csrf.as_str()),
            ("url", hook.as_str()),
            ("events_shown", "1"),
        ];
        form.extend(bad);
        let r = post_form(&app, &page_path, &session, &form).await;
        assert_eq!(r.status(), 400);
        assert!(r.text().await.unwrap().contains(why));
        assert_eq!(events().await.len(), 2, "a refused form changes nothing");
    }

    // switched off from the console
    let r = post_form(
        &app,
        &page_path,
        &session,
        &[("csrf", &csrf), ("url", &hook)],
    )
    .await;
    assert_eq!(r.status(), 303);
    assert!(
        !boxtrack_store::webhooks::get(&app.db, account, w.id)
            .await
            .unwrap()
            .unwrap()
            .active
    );

    // another account sees none of it
    let (nosy, _) = cookie_of(
        &sign_in(&app, "otherhooks@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();
    assert_eq!(get_as(&app, &page_path, &nosy).await.status(), 404);
    let nosy_csrf = field(
        &html_as(&app, "/console/webhooks", &nosy).await,
        r#"name="csrf" value=""#,
    );
    let r = post_form(
        &app,
        &format!("{page_path}/notifications/{}/redeliver", n.id),
        &nosy,
        &[("csrf", &nosy_csrf)],
    )
    .await;
    assert_eq!(r.status(), 404);
    assert!(
        !html_as(&app, "/console/webhooks", &nosy)
            .await
            .contains(&hook)
    );
}

#[tokio::test]
async fn the_sources_page_shows_the_upstreams_and_keeps_itself_current() {
    let app = spawn().await;
    account_with_user(&app, "Ops Co", "ops2@example.com").await;
    assert_eq!(
        get_as(&app, "/console/sources", "nothing").await.status(),
        303
    );
    assert_eq!(
        get_as(&app, "/console/sources/version", "nothing")
            .await
            .status(),
        401
    );
    let (session, _) = cookie_of(
        &sign_in(&app, "ops2@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();
    let html = html_as(&app, "/console/sources", &session).await;
    assert!(
        html.contains("<h1>Sources</h1>") && html.contains("Polled subjects:"),
        "{html}"
    );
    assert!(html.contains(r#"data-live-url="/console/sources/version""#));
    let v: serde_json::Value = get_as(&app, "/console/sources/version", &session)
        .await
        .json()
        .await
        .unwrap();
    assert!(v["version"].is_string());
}
