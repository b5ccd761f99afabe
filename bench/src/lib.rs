//! What the benchmarks share: a fresh database with an account, (in [`hooks`]) what the
//! webhook delivery benchmarks need besides, and (in [`load`]) server processes and the HTTP
//! load generator.

pub mod hooks;
pub mod load;

use boxtrack_core::apikey::ApiKey;
use boxtrack_core::plan::Plan;
use boxtrack_core::ratelimit::Limits;
use boxtrack_store::Db;
use boxtrack_store::accounts::{self, Account, NewAccount};
use boxtrack_store::events::NewEvent;

/// The benchmarks' result type.
pub type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Starts `bin serve` on a free port of 127.0.0.1 against `db_url`, with `extra` arguments;
/// the child and its base URL once it prints `listening on …`.
pub fn start_serve(bin: &str, db_url: &str, extra: &[&str]) -> Res<(std::process::Child, String)> {
    use std::io::BufRead;
    let mut child = std::process::Command::new(bin)
        .args(["serve", "--listen", "127.0.0.1:0", "--database-url", db_url])
        .args(extra)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line?;
        if let Some(url) = line.strip_prefix("listening on ") {
            return Ok((child, url.trim().to_string()));
        }
    }
    Err("serve ended without listening".into())
}

/// A fresh, migrated database (SQLite in a temporary folder, or a schema of `DATABASE_URL`)
/// with one `standard` account named "bench" under `rate_limits`, and that account's API key.
/// Keep the returned [`boxtrack_testkit::TestDatabase`] alive as long as the database is used.
pub async fn fresh_account(
    rate_limits: Limits,
) -> Res<(Db, boxtrack_testkit::TestDatabase, Account, ApiKey)> {
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await?;
    db.migrate().await?;
    let (account, _, key) = accounts::create(
        &db,
        NewAccount {
            name: "bench".into(),
            plan: Plan::Standard,
            entitlements: vec![],
            rate_limits,
        },
    )
    .await?;
    Ok((db, database, account, key))
}

/// Appends `entries` to the account's event log in one committed transaction (which also
/// writes their webhook notifications, as every event append does).
pub async fn append_events(db: &Db, account_id: uuid::Uuid, entries: &[NewEvent]) -> Res<()> {
    let mut tx = db.begin().await?;
    boxtrack_store::events::append_many(&mut tx, account_id, entries, boxtrack_store::now_us())
        .await?;
    tx.commit().await?;
    Ok(())
}

/// boxtrack's router on `db` with `config` and an in-process rate limiter, served in this
/// process on a port of loopback; its base URL and the token that stops it.
pub async fn serve_in_process(
    db: &Db,
    config: boxtrack_api::ApiConfig,
) -> Res<(String, tokio_util::sync::CancellationToken)> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    let shutdown = tokio_util::sync::CancellationToken::new();
    let state = boxtrack_api::AppState::new(
        boxtrack_app::Ctx::new(db.clone()),
        config,
        boxtrack_api::Limiter::memory(),
    );
    tokio::spawn(boxtrack_api::serve(
        listener,
        boxtrack_api::router(state),
        shutdown.clone(),
    ));
    Ok((base, shutdown))
}
