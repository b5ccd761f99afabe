//! `boxtrack`: the one binary. `serve` runs the API; `demo` is the newcomer's first command;
//! `migrate`, `accounts` and `keys` administer a database.

mod admin;
mod backup;
mod carriers;
mod client;
mod config;
mod logformat;
mod logwriter;
mod mcp;
mod server;
mod sim;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

/// Self-hosted ocean container and shipment tracking.
///
/// Settings come from defaults, then boxtrack.toml (or --config FILE), then BOXTRACK_*
/// environment variables, then flags. Run `boxtrack demo` to try it.
#[derive(Parser, Debug)]
#[command(name = "boxtrack", version = server::VERSION, propagate_version = true)]
pub struct Cli {
    /// Configuration file (TOML); default ./boxtrack.toml when it exists. Env: BOXTRACK_CONFIG.
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// `--database-url`, `--log-format`, `--log-level` (config::specs).
    #[command(flatten)]
    settings: config::SettingFlags<{ config::GLOBAL }>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the API server and the background worker (migrations are applied on start).
    ///
    /// On PostgreSQL run as many as you like: they share the work. A SQLite file takes one
    /// `serve` (or `demo`) at a time; a second one on the same file stops at start.
    Serve(Box<ServeArgs>),
    /// Try boxtrack: a SQLite database in ./boxtrack-demo, an account, its API key and
    /// copy-paste curl lines, then the API on http://127.0.0.1:8080 (or a free port if taken).
    Demo(DemoArgs),
    /// Apply pending schema migrations and exit (`serve` applies them on start too).
    /// Migrations only go forward: back up before an upgrade (docs/operations.md).
    Migrate(MigrateArgs),
    /// Create, list, show and change accounts.
    #[command(subcommand)]
    Accounts(admin::AccountsCommand),
    /// Create, list and revoke API keys.
    #[command(subcommand)]
    Keys(admin::KeysCommand),
    /// Serve the upstream world on a virtual clock: carriers with DCSA Track & Trace 2.2 or 3.0
    /// endpoints, terminal availability feeds, rail carriers sending X12 322 files (and, with
    /// --edifact-ingest-url, carriers' IFTSTA and terminals' CODECO and COARRI), and a catalog
    /// of what exists (GET /sim/v1/catalog). The same seed gives the same world.
    Sim(sim::SimArgs),
    /// Create, list and remove users who sign in on the console and the OAuth page for MCP
    /// clients.
    #[command(subcommand)]
    Users(admin::UsersCommand),
    /// List an account's webhooks, pause them and enable them again.
    #[command(subcommand)]
    Webhooks(admin::WebhooksCommand),
    /// Serve the MCP tools, prompts and resources over stdio for local AI clients
    /// (HTTP clients use POST /mcp of `serve`).
    Mcp(mcp::McpArgs),
    /// Write a backup: a consistent copy of a SQLite database while it serves, or a pg_dump
    /// archive of a PostgreSQL one.
    Backup(backup::BackupArgs),
    /// Put a backup in place of the database (stop serve first); an older backup is migrated
    /// forward.
    Restore(backup::RestoreArgs),
    /// Move a whole installation into an empty PostgreSQL database, every table, then compare
    /// every table (stop serve first): from SQLite when it outgrows one machine, or from a
    /// plain PostgreSQL onto a Citus coordinator (the copy is laid out across the workers).
    Copy(backup::CopyArgs),
    /// Check a running server: exits 0 when GET URL/readyz answers 200, 1 otherwise (the
    /// container image's HEALTHCHECK; no curl needed). On a Citus coordinator it prints each
    /// worker node and warns of one out of reach.
    Health(HealthArgs),
    /// Track a number on a running server (BOXTRACK_URL, BOXTRACK_API_KEY): one, or every
    /// number of a CSV file with --file.
    Track(client::TrackArgs),
    /// List the account's containers on a running server, with the API's filters.
    Containers(client::ContainersArgs),
    /// List the account's shipments on a running server, with the API's filters.
    Shipments(client::ShipmentsArgs),
    /// A readable summary of one container or shipment: status, ETA, last free day, holds,
    /// fees and the last events.
    Show(client::ShowArgs),
    /// Follow a container live, printing each change, until it reaches a status you name.
    Watch(client::WatchArgs),
    /// Print a shell completion script: `boxtrack completions bash > /etc/bash_completion.d/boxtrack`
    /// (bash, zsh, fish, elvish or powershell).
    Completions(CompletionsArgs),
    /// Feed upstream files through the ingest path (as an operator: every account's
    /// containers are matched unless --account narrows it).
    #[command(subcommand)]
    Ingest(admin::IngestCommand),
    /// Remove the history the retention settings no longer keep (the worker of `serve` does
    /// it every hour): the event log, upstream payloads and finished webhook notifications
    /// older than `retention_*_days`. `--dry-run` shows what would go.
    Prune(admin::PruneArgs),
    /// Load and list the public tariffs (free time and per-day rates of demurrage, detention
    /// and storage) every account's charges are counted with; an account's own, made through
    /// `POST /v2/tariffs`, beat them.
    #[command(subcommand)]
    Tariffs(admin::TariffsCommand),
    /// Load and list the public calendars (weekends, holidays, closures of a port or a
    /// terminal) charges count working days by.
    #[command(subcommand)]
    Calendars(admin::CalendarsCommand),
    /// What boxtrack knows of the shipping lines' own tracking APIs: `carriers profiles`
    /// lists the profile of each line (what `[carriers.SCAC] profile = "NAME"` fills in and
    /// which credentials it still needs); `carriers check SCAC` makes one request with the
    /// configured credentials and says what is wrong.
    #[command(subcommand)]
    Carriers(carriers::CarriersCommand),
}

/// Flags of `serve`.
#[derive(Args, Debug, Default)]
pub struct ServeArgs {
    /// One flag per setting `serve` takes (config::specs).
    #[command(flatten)]
    settings: config::SettingFlags<{ config::SERVE }>,
    #[command(flatten)]
    webhooks: WebhookFlags,
}

/// Flags of `completions`.
#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// Webhook flags of `serve` and `demo`.
#[derive(Args, Debug, Default)]
pub struct WebhookFlags {
    /// One flag per webhook delivery setting (config::specs).
    #[command(flatten)]
    settings: config::SettingFlags<{ config::WEBHOOKS }>,
}

/// Flags of `health`.
#[derive(Args, Debug)]
pub struct HealthArgs {
    /// The server's base address.
    #[arg(long, default_value = "http://127.0.0.1:8080", value_name = "URL")]
    url: String,
    /// Seconds before the check counts as failed.
    #[arg(long, default_value_t = 5, value_name = "SECONDS")]
    timeout_secs: u64,
}

/// `boxtrack health`: GET URL/readyz.
async fn health(args: &HealthArgs) -> anyhow::Result<()> {
    let url = format!("{}/readyz", args.url.trim_end_matches('/'));
    let client = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(args.timeout_secs.max(1)))
        .build()?;
    let r = client
        .get(&url)
        .send()
        .await
        .map_err(|e| anyhow::anyhow!("{url}: no answer ({e})"))?;
    let status = r.status();
    let body = r.text().await.unwrap_or_default();
    if status.is_success() {
        println!("{url}: {status} {body}");
        // on a Citus coordinator: a worker out of reach is said, and the process stays ready
        // (the accounts on the other workers are served)
        let workers = serde_json::from_str::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v.get("workers").and_then(|w| w.as_array()).cloned())
            .unwrap_or_default();
        for w in workers {
            if w.get("reachable") == Some(&serde_json::Value::Bool(false)) {
                eprintln!(
                    "warning: the Citus worker {} does not answer the coordinator: its accounts cannot be served",
                    w.get("node").and_then(|n| n.as_str()).unwrap_or("?")
                );
            }
        }
        Ok(())
    } else {
        anyhow::bail!("{url}: {status} {body}")
    }
}

/// Flags of `migrate`.
#[derive(Args, Debug)]
pub struct MigrateArgs {
    /// Show which migrations this build knows and which are applied, and change nothing.
    #[arg(long)]
    status: bool,
}

/// Flags of `demo`.
#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Folder for the demo database.
    #[arg(long, default_value = "./boxtrack-demo", value_name = "DIR")]
    dir: PathBuf,
    /// Address to listen on; if the port is taken a free one is used instead.
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR")]
    listen: String,
    /// How fast the demo journeys play: simulated seconds per real second. The default, 3600,
    /// is an hour a second: a hold lasts a couple of minutes and a month-long voyage about
    /// ten, slow enough to watch in the console; 14400 plays it in under three minutes.
    #[arg(
        long = "speed",
        alias = "sandbox-speed",
        default_value_t = 3600.0,
        value_name = "FACTOR"
    )]
    sandbox_speed: f64,
    /// Refuse http:// and loopback / private webhook URLs, as `serve` does by default (the demo
    /// accepts them, so that a receiver on this laptop gets the deliveries).
    #[arg(long)]
    public_webhook_urls_only: bool,
    #[command(flatten)]
    webhooks: WebhookFlags,
}

fn env_map() -> BTreeMap<String, String> {
    std::env::vars()
        .filter(|(k, _)| k.starts_with("BOXTRACK_"))
        .collect()
}

/// Loads settings for this invocation (flags from `serve` when given).
fn settings(
    cli: &Cli,
    serve: Option<&ServeArgs>,
    webhooks: Option<&WebhookFlags>,
) -> anyhow::Result<config::Settings> {
    let env = env_map();
    let file = match config::config_file(cli.config.as_deref(), &env)? {
        Some(path) => {
            let layer = config::Layer::from_file(&path)?;
            Some((path, layer))
        }
        None => None,
    };
    let mut flags = cli.settings.onto(config::Layer::default());
    if let Some(s) = serve {
        flags = s.settings.onto(flags);
    }
    if let Some(w) = webhooks.or(serve.map(|s| &s.webhooks)) {
        flags = w.settings.onto(flags);
    }
    config::resolve(
        file.as_ref().map(|(p, l)| (p.as_path(), l.clone())),
        config::Layer::from_env(&env),
        flags,
    )
}

/// Logs to standard error, written off the request path ([`logwriter`]), each line written
/// while a request is handled naming it ([`logformat`]): the `log_level`
/// setting, else `RUST_LOG`, else `default_level`.
fn init_logs(format: config::LogFormat, level: Option<&str>, default_level: &str) {
    let filter = match level {
        Some(l) => tracing_subscriber::EnvFilter::new(l),
        None => tracing_subscriber::EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level)),
    };
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(logwriter::stderr())
        .with_ansi(ansi);
    // a line written while a request is handled names it (logformat)
    let _ = match format {
        config::LogFormat::Json => builder
            .json()
            .with_span_list(false)
            .map_event_format(|f| logformat::RequestScoped::new(f, true))
            .try_init(),
        config::LogFormat::Text => builder
            // the format itself colours: a request's lines are formatted apart first
            .map_event_format(|f| logformat::RequestScoped::new(f.with_ansi(ansi), false))
            .try_init(),
    };
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    match &cli.command {
        Command::Serve(args) => {
            let s = settings(&cli, Some(args), None)?;
            init_logs(s.log_format, s.log_level.as_deref(), "info");
            server::serve(s).await
        }
        Command::Demo(args) => {
            let mut s = settings(&cli, None, Some(&args.webhooks))?;
            if !args.public_webhook_urls_only {
                s.allow_private_webhook_urls = true;
            }
            init_logs(s.log_format, s.log_level.as_deref(), "warn");
            server::demo(s, args).await
        }
        Command::Webhooks(admin::WebhooksCommand::Receive(args)) => client::receive(args).await,
        Command::Users(_)
        | Command::Webhooks(_)
        | Command::Accounts(_)
        | Command::Keys(_)
        | Command::Ingest(_)
        | Command::Tariffs(_)
        | Command::Calendars(_)
        | Command::Prune(_) => on_database(&cli).await,
        Command::Mcp(args) => {
            let s = settings(&cli, None, None)?;
            init_logs(s.log_format, s.log_level.as_deref(), "warn");
            mcp::run(s, args).await
        }
        Command::Health(args) => health(args).await,
        Command::Carriers(carriers::CarriersCommand::Profiles { json }) => {
            carriers::profiles(*json)
        }
        Command::Carriers(carriers::CarriersCommand::Check(args)) => {
            let s = settings(&cli, None, None)?;
            init_logs(s.log_format, s.log_level.as_deref(), "error");
            carriers::check(s.upstreams, args).await
        }
        Command::Track(args) => client::track(args).await,
        Command::Containers(args) => client::containers(args).await,
        Command::Shipments(args) => client::shipments(args).await,
        Command::Show(args) => client::show(args).await,
        Command::Watch(args) => client::watch(args).await,
        Command::Completions(args) => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(args.shell, &mut cmd, "boxtrack", &mut std::io::stdout());
            Ok(())
        }
        Command::Backup(args) => {
            let s = settings(&cli, None, None)?;
            init_logs(s.log_format, s.log_level.as_deref(), "warn");
            backup::backup(&s.database_url, args).await
        }
        Command::Restore(args) => {
            let s = settings(&cli, None, None)?;
            init_logs(s.log_format, s.log_level.as_deref(), "warn");
            backup::restore(&s.database_url, args).await
        }
        Command::Copy(args) => {
            let s = settings(&cli, None, None)?;
            init_logs(s.log_format, s.log_level.as_deref(), "warn");
            backup::copy(args).await
        }
        Command::Sim(args) => {
            let format = match cli.settings.get("log_format") {
                Some("json") => config::LogFormat::Json,
                _ => config::LogFormat::Text,
            };
            init_logs(format, cli.settings.get("log_level"), "info");
            sim::run(args).await
        }
        Command::Migrate(MigrateArgs { status: true }) => {
            let s = settings(&cli, None, None)?;
            init_logs(s.log_format, s.log_level.as_deref(), "warn");
            server::require_existing(&s.database_url)?;
            server::migration_status(&s.database_url).await
        }
        Command::Migrate(MigrateArgs { status: false }) => {
            let s = settings(&cli, None, None)?;
            init_logs(s.log_format, s.log_level.as_deref(), "warn");
            let db = server::open_db(&s.database_url).await?;
            println!(
                "migrations applied to {}",
                boxtrack_store::db::redact_url(&s.database_url)
            );
            db.close().await;
            Ok(())
        }
    }
}

/// The operator commands that open the database, act on it and close it.
async fn on_database(cli: &Cli) -> anyhow::Result<()> {
    let s = settings(cli, None, None)?;
    init_logs(s.log_format, s.log_level.as_deref(), "warn");
    // only `accounts create` may start a database; reading a missing one says so
    if matches!(&cli.command, Command::Keys(_) | Command::Prune(_))
        || matches!(&cli.command, Command::Accounts(c) if !matches!(c, admin::AccountsCommand::Create(_)))
    {
        server::require_existing(&s.database_url)?;
    }
    let db = server::open_db(&s.database_url).await?;
    let out = match &cli.command {
        Command::Users(cmd) => admin::users(&db, cmd).await,
        Command::Webhooks(cmd) => admin::webhooks(&db, cmd).await,
        Command::Accounts(cmd) => admin::accounts(&db, &s.document_store, cmd).await,
        Command::Keys(cmd) => admin::keys(&db, cmd).await,
        Command::Ingest(cmd) => admin::ingest(&db, cmd).await,
        Command::Prune(args) => admin::prune(&db, &s.retention, args).await,
        Command::Tariffs(cmd) => admin::tariffs(&db, cmd).await,
        Command::Calendars(cmd) => admin::calendars(&db, cmd).await,
        other => Err(anyhow::anyhow!("{other:?} is not a database command")),
    };
    db.close().await;
    out
}

/// The allocator of the whole process (see `Cargo.toml`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // one process-wide TLS crypto provider (ring, as the rest of the tree) for the clients
    // built on reqwest 0.13, which this tree builds without one (the S3 document store)
    let _ = rustls::crypto::ring::default_provider().install_default();
    // every command that merges observations writes the state as its resource shows it
    boxtrack_views::tracking::install_renderer();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    // the failure line in the format the logs use (settings may be what failed, so the flag
    // and the environment are read directly)
    let json = cli.settings.get("log_format") == Some("json")
        || (cli.settings.get("log_format").is_none()
            && std::env::var("BOXTRACK_LOG_FORMAT").is_ok_and(|f| f.trim() == "json"));
    let outcome = runtime.block_on(run(cli));
    logwriter::finish();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if json {
                eprintln!(
                    "{}",
                    serde_json::json!({"level": "ERROR", "fields": {"message": format!("{e:#}")}, "target": "boxtrack"})
                );
            } else {
                eprintln!("error: {e:#}");
            }
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_valid() {
        Cli::command().debug_assert();
    }
}
