//! `boxtrack accounts …` and `boxtrack keys …`: administration with readable tables or
//! `--json` for scripts.

use anyhow::{Context, bail};
use boxtrack_core::plan::{Entitlement, Plan};
use boxtrack_core::ratelimit::{Bucket, Limits};
use boxtrack_core::time::format_micros;
use boxtrack_store::Db;
use boxtrack_store::accounts::{self, Account, AccountChanges, NewAccount};
use boxtrack_store::keys::{self, ApiKeyRecord};
use clap::{Args, Subcommand};
use serde_json::{Value, json};
use uuid::Uuid;

/// `boxtrack accounts …`
#[derive(Subcommand, Debug)]
pub enum AccountsCommand {
    /// Open an account and print its first API key (shown once; only a hash is stored).
    Create(CreateAccount),
    /// List every account.
    List(JsonFlag),
    /// Show one account with its limits and keys.
    Show {
        /// Account id.
        id: String,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Change an account's name, plan, entitlements or rate limits.
    Update(UpdateAccount),
    /// Disable an account: every credential of it is refused from now on (API keys,
    /// publishable keys, OAuth tokens, console sessions), in every process within a second.
    /// Its data stays, and its tracking and webhooks go on (`webhooks pause` stops those).
    Disable {
        /// Account id.
        id: String,
    },
    /// Enable a disabled account again: its credentials work as before.
    Enable {
        /// Account id.
        id: String,
    },
    /// Delete an account with all its data (tracking requests, shipments, containers, events,
    /// webhooks and their notifications, documents, users, keys, ...), in one transaction.
    /// Asks you to type the account's name unless --yes. There is no undo: back up first.
    Delete {
        /// Account id.
        id: String,
        /// Do not ask for the confirmation (scripts).
        #[arg(long)]
        yes: bool,
    },
}

/// `--json`
#[derive(Args, Debug, Clone, Copy)]
pub struct JsonFlag {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Flags of `accounts create`.
#[derive(Args, Debug)]
pub struct CreateAccount {
    /// Account (company) name.
    #[arg(long)]
    name: String,
    /// Plan: free (at most 10 active containers) or standard.
    #[arg(long, default_value = "free")]
    plan: String,
    /// Comma-separated entitlements: routing, rail_lfd, container_refresh, widget.
    #[arg(long, default_value = "")]
    entitlements: String,
    /// Rate-limit override BUCKET=REQUESTS_PER_MINUTE (repeatable). Buckets: default (100),
    /// tracking_requests.create (100), tracking_requests.infer_number (200), containers.refresh (10),
    /// embed (600, per publishable key).
    #[arg(long = "rate-limit", value_name = "BUCKET=N")]
    rate_limits: Vec<String>,
    #[command(flatten)]
    json: JsonFlag,
}

/// Flags of `accounts update`.
#[derive(Args, Debug)]
pub struct UpdateAccount {
    /// Account id.
    id: String,
    /// New name.
    #[arg(long)]
    name: Option<String>,
    /// New plan: free or standard.
    #[arg(long)]
    plan: Option<String>,
    /// New comma-separated entitlement set (replaces the old one; "" clears it).
    #[arg(long)]
    entitlements: Option<String>,
    /// Rate-limit override BUCKET=REQUESTS_PER_MINUTE (repeatable; merged into existing ones).
    #[arg(long = "rate-limit", value_name = "BUCKET=N")]
    rate_limits: Vec<String>,
    /// Make the account an operator (true) or not (false): an operator's keys may feed
    /// upstream data (POST /v2/ingest/x12) for the containers of every account.
    #[arg(long, value_name = "true|false")]
    operator: Option<bool>,
    #[command(flatten)]
    json: JsonFlag,
}

/// `boxtrack keys …`
#[derive(Subcommand, Debug)]
pub enum KeysCommand {
    /// Issue a new API key for an account (shown once).
    Create {
        /// Account id.
        #[arg(long)]
        account: String,
        /// Optional label.
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// List an account's keys (hints only, never the keys).
    List {
        /// Account id.
        #[arg(long)]
        account: String,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Revoke a key at once.
    Revoke {
        /// Key id (from `keys list`).
        key_id: String,
        #[command(flatten)]
        json: JsonFlag,
    },
}

fn parse_id(what: &str, s: &str) -> anyhow::Result<Uuid> {
    Uuid::parse_str(s.trim()).with_context(|| format!("{what} {s:?} is not a UUID"))
}

fn parse_limits(raw: &[String]) -> anyhow::Result<Limits> {
    let mut limits = Limits::default();
    for r in raw {
        let (b, n) = Limits::parse_override(r)?;
        limits.0.insert(b, n);
    }
    Ok(limits)
}

/// The account an id given on the command line names, disabled or not.
async fn account_named(db: &Db, id: &str) -> anyhow::Result<Account> {
    let id = parse_id("account id", id)?;
    accounts::get_any(db, id)
        .await?
        .with_context(|| format!("no account {id}"))
}

fn account_json(a: &Account) -> Value {
    let limits: serde_json::Map<String, Value> = Bucket::ALL
        .iter()
        .map(|b| (b.as_str().to_string(), json!(a.rate_limits.limit(*b))))
        .collect();
    json!({
        "account_id": a.id,
        "name": a.name,
        "plan": a.plan.as_str(),
        "entitlements": a.entitlements.iter().map(|e| e.as_str()).collect::<Vec<_>>(),
        "rate_limits": limits,
        "operator": a.operator,
        "created_at": format_micros(a.created_us),
    })
}

fn key_json(k: &ApiKeyRecord) -> Value {
    json!({
        "key_id": k.id,
        "account_id": k.account_id,
        "name": k.name,
        "hint": k.hint,
        "created_at": format_micros(k.created_us),
        "last_used_at": k.last_used_us.map(format_micros),
        "revoked_at": k.revoked_us.map(format_micros),
    })
}

/// A plain-text table: a header row and left-aligned columns two spaces apart.
pub(crate) fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.len()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut out = vec![line(headers.iter().map(|h| h.to_string()).collect())];
    out.extend(rows.iter().map(|r| line(r.clone())));
    out.join("\n")
}

fn account_row(a: &Account) -> Vec<String> {
    let ents = a
        .entitlements
        .iter()
        .map(|e| e.as_str())
        .collect::<Vec<_>>()
        .join(",");
    vec![
        a.id.to_string(),
        a.name.clone(),
        a.plan.to_string(),
        if ents.is_empty() { "-".into() } else { ents },
        format_micros(a.created_us),
    ]
}

const ACCOUNT_HEADERS: [&str; 5] = ["ACCOUNT ID", "NAME", "PLAN", "ENTITLEMENTS", "CREATED"];
const KEY_HEADERS: [&str; 6] = ["KEY ID", "NAME", "HINT", "CREATED", "LAST USED", "REVOKED"];

fn key_row(k: &ApiKeyRecord) -> Vec<String> {
    let t = |v: Option<i64>| v.map_or_else(|| "-".to_string(), format_micros);
    vec![
        k.id.to_string(),
        k.name.clone().unwrap_or_else(|| "-".into()),
        k.hint.clone(),
        format_micros(k.created_us),
        t(k.last_used_us),
        t(k.revoked_us),
    ]
}

fn print_json(v: &Value) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}

/// Runs an `accounts` subcommand.
pub async fn accounts(db: &Db, document_store: &str, cmd: &AccountsCommand) -> anyhow::Result<()> {
    match cmd {
        AccountsCommand::Create(c) => {
            let name = c.name.trim().to_string();
            if name.is_empty() {
                bail!("--name must not be blank");
            }
            let new = NewAccount {
                name,
                plan: c.plan.parse::<Plan>()?,
                entitlements: Entitlement::parse_list(&c.entitlements)?,
                rate_limits: parse_limits(&c.rate_limits)?,
            };
            let (account, record, key) = accounts::create(db, new).await?;
            if c.json.json {
                print_json(&json!({
                    "account_id": account.id,
                    "api_key": key.expose(),
                    "key_id": record.id,
                    "plan": account.plan.as_str(),
                    "entitlements": account.entitlements.iter().map(|e| e.as_str()).collect::<Vec<_>>(),
                }))
            } else {
                println!("{}", table(&ACCOUNT_HEADERS, &[account_row(&account)]));
                println!("\nAPI key (shown once, store it now): {}", key.expose());
                Ok(())
            }
        }
        AccountsCommand::List(j) => {
            let all = accounts::list_all(db).await?;
            let disabled = accounts::disabled(db).await?;
            if j.json {
                print_json(&Value::Array(
                    all.iter()
                        .map(|a| {
                            let mut v = account_json(a);
                            v["disabled_at"] =
                                json!(disabled.get(&a.id).map(|t| format_micros(*t)));
                            v
                        })
                        .collect(),
                ))
            } else {
                let rows: Vec<_> = all
                    .iter()
                    .map(|a| {
                        let mut r = account_row(a);
                        r.push(
                            if disabled.contains_key(&a.id) {
                                "disabled"
                            } else {
                                "active"
                            }
                            .into(),
                        );
                        r
                    })
                    .collect();
                let mut headers = ACCOUNT_HEADERS.to_vec();
                headers.push("STATE");
                println!("{}", table(&headers, &rows));
                Ok(())
            }
        }
        AccountsCommand::Disable { id } | AccountsCommand::Enable { id } => {
            let disable = matches!(cmd, AccountsCommand::Disable { .. });
            let id = parse_id("account id", id)?;
            accounts::set_disabled(db, id, disable)
                .await
                .map_err(|e| match e {
                    boxtrack_store::StoreError::NotFound(_) => anyhow::anyhow!("no account {id}"),
                    other => other.into(),
                })?;
            if disable {
                println!(
                    "account {id} disabled: its keys, tokens and sessions are refused; `boxtrack accounts enable {id}` undoes it"
                );
            } else {
                println!("account {id} enabled");
            }
            Ok(())
        }
        AccountsCommand::Delete { id, yes } => {
            let a = account_named(db, id).await?;
            let id = a.id;
            if !*yes {
                let held = accounts::rows_of(db, id).await?;
                eprintln!(
                    "This deletes account {id} ({}) and all its data, with no undo:",
                    a.name
                );
                for (t, n) in &held {
                    eprintln!("  {t:<28} {n}");
                }
                eprintln!("Type the account's name to go on:");
                let mut line = String::new();
                std::io::stdin()
                    .read_line(&mut line)
                    .context("reading the confirmation from standard input")?;
                if line.trim() != a.name {
                    bail!("the name did not match; nothing was deleted");
                }
            }
            let objects = boxtrack_store::files::object_keys_of(db, id).await?;
            let removed = accounts::delete(db, id).await?;
            if !objects.is_empty() {
                let files = boxtrack_store::files::open(document_store)
                    .context("the account's documents are in an object store, but it cannot be opened (setting document_store)")?;
                let mut left = 0;
                for key in &objects {
                    if files.delete(key).await.is_err() {
                        left += 1;
                    }
                }
                println!(
                    "{} document objects removed from the object store{}",
                    objects.len() - left,
                    if left > 0 {
                        format!("; {left} could not be removed")
                    } else {
                        String::new()
                    }
                );
            }
            let total: u64 = removed.iter().map(|(_, n)| n).sum();
            println!(
                "account {id} ({}) deleted with {total} rows of its data:",
                a.name
            );
            for (t, n) in removed {
                println!("  {t:<28} {n}");
            }
            Ok(())
        }
        AccountsCommand::Show { id, json } => {
            let a = account_named(db, id).await?;
            let id = a.id;
            let ks = keys::list_all(db, id).await?;
            if json.json {
                let mut v = account_json(&a);
                v["keys"] = Value::Array(ks.iter().map(key_json).collect());
                print_json(&v)
            } else {
                println!("{}", table(&ACCOUNT_HEADERS, &[account_row(&a)]));
                println!("\nRate limits (requests per rolling minute):");
                for b in Bucket::ALL {
                    println!("  {:<32} {}", b.as_str(), a.rate_limits.limit(b));
                }
                println!("\nKeys:");
                println!(
                    "{}",
                    table(&KEY_HEADERS, &ks.iter().map(key_row).collect::<Vec<_>>())
                );
                Ok(())
            }
        }
        AccountsCommand::Update(u) => {
            let id = parse_id("account id", &u.id)?;
            let changes = AccountChanges {
                name: match &u.name {
                    Some(n) if n.trim().is_empty() => bail!("--name must not be blank"),
                    Some(n) => Some(n.trim().to_string()),
                    None => None,
                },
                plan: u.plan.as_deref().map(str::parse::<Plan>).transpose()?,
                entitlements: u
                    .entitlements
                    .as_deref()
                    .map(Entitlement::parse_list)
                    .transpose()?,
                rate_limits: if u.rate_limits.is_empty() {
                    None
                } else {
                    Some(parse_limits(&u.rate_limits)?)
                },
                operator: u.operator,
            };
            let a = accounts::update(db, id, changes)
                .await
                .map_err(|e| match e {
                    boxtrack_store::StoreError::NotFound(_) => anyhow::anyhow!("no account {id}"),
                    other => other.into(),
                })?;
            if u.json.json {
                print_json(&account_json(&a))
            } else {
                println!("{}", table(&ACCOUNT_HEADERS, &[account_row(&a)]));
                Ok(())
            }
        }
    }
}

/// Runs a `keys` subcommand.
pub async fn keys(db: &Db, cmd: &KeysCommand) -> anyhow::Result<()> {
    match cmd {
        KeysCommand::Create {
            account,
            name,
            json,
        } => {
            let id = parse_id("account id", account)?;
            let (record, key) =
                keys::create(db, id, name.as_deref())
                    .await
                    .map_err(|e| match e {
                        boxtrack_store::StoreError::NotFound(_) => {
                            anyhow::anyhow!("no account {id}")
                        }
                        other => other.into(),
                    })?;
            if json.json {
                let mut v = key_json(&record);
                v["api_key"] = json!(key.expose());
                print_json(&v)
            } else {
                println!("{}", table(&KEY_HEADERS, &[key_row(&record)]));
                println!("\nAPI key (shown once, store it now): {}", key.expose());
                Ok(())
            }
        }
        KeysCommand::List { account, json } => {
            let id = parse_id("account id", account)?;
            if accounts::get(db, id).await?.is_none() {
                bail!("no account {id}");
            }
            let ks = keys::list_all(db, id).await?;
            if json.json {
                print_json(&Value::Array(ks.iter().map(key_json).collect()))
            } else {
                println!(
                    "{}",
                    table(&KEY_HEADERS, &ks.iter().map(key_row).collect::<Vec<_>>())
                );
                Ok(())
            }
        }
        KeysCommand::Revoke { key_id, json } => {
            let id = parse_id("key id", key_id)?;
            let k = keys::revoke(db, id, None).await.map_err(|e| match e {
                boxtrack_store::StoreError::NotFound(_) => anyhow::anyhow!("no API key {id}"),
                other => other.into(),
            })?;
            if json.json {
                print_json(&key_json(&k))
            } else {
                println!("{}", table(&KEY_HEADERS, &[key_row(&k)]));
                Ok(())
            }
        }
    }
}

/// `ingest` subcommands.
#[derive(Subcommand, Debug)]
pub enum IngestCommand {
    /// Read an ANSI X12 004010 file of 315 (ocean status) and 322 (rail / terminal) sets,
    /// store it verbatim and merge what it says into the containers it names. Prints what was
    /// read, matched and changed; exits with status 1 when nothing could be read (the
    /// segment and reason are printed).
    X12 {
        /// The file ("-" reads standard input).
        file: String,
        /// Only this account's containers (default: every account's).
        #[arg(long, value_name = "ACCOUNT_ID")]
        account: Option<String>,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Read a UN/EDIFACT file of IFTSTA status messages (a carrier's multimodal status
    /// reports, D:95B to D:00B; UNA, release characters and envelope counts honoured), store
    /// it verbatim and merge what it says into the containers it names. A message with a
    /// wrong UNT count, or an interchange with a wrong UNZ, is refused with its reason and
    /// nothing of it is applied. Prints what was read, matched and changed; exits with status
    /// 1 when nothing could be read.
    Edifact {
        /// The file ("-" reads standard input).
        file: String,
        /// Only this account's containers (default: every account's).
        #[arg(long, value_name = "ACCOUNT_ID")]
        account: Option<String>,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Read a file of NMEA 0183 AIS sentences (!AIVDM / !AIVDO; multi-part messages,
    /// checksums checked; other sentences skipped) and store each vessel's latest position
    /// (types 1, 2, 3) and static data (type 5: IMO, name, destination, ETA).
    Ais {
        /// The file ("-" reads standard input).
        file: String,
        #[command(flatten)]
        json: JsonFlag,
    },
}

fn read_input(file: &str) -> anyhow::Result<String> {
    if file == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .context("reading standard input")?;
        Ok(s)
    } else {
        let bytes = std::fs::read(file).with_context(|| format!("reading {file}"))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Runs an `ingest` subcommand.
pub async fn ingest(db: &Db, cmd: &IngestCommand) -> anyhow::Result<()> {
    match cmd {
        IngestCommand::Ais { file, json } => {
            let text = read_input(file)?;
            let mut decoder = boxtrack_sources::ais::Decoder::new();
            let report = boxtrack_sources::ais::ingest_lines(
                db,
                &mut decoder,
                text.lines(),
                boxtrack_store::now_us(),
            )
            .await?;
            if json.json {
                print_json(&serde_json::to_value(&report)?)?;
            } else {
                println!(
                    "{} AIS sentences: {} vessel positions and {} static reports stored; {} refused; {} other lines skipped",
                    report.sentences,
                    report.positions,
                    report.statics,
                    report.errors,
                    report.skipped
                );
            }
            Ok(())
        }
        IngestCommand::X12 {
            file,
            account,
            json,
        }
        | IngestCommand::Edifact {
            file,
            account,
            json,
        } => {
            let account = account
                .as_deref()
                .map(|a| parse_id("account id", a))
                .transpose()?;
            let text = read_input(file)?;
            let scope = boxtrack_sources::ingest::Scope {
                sender: None,
                containers_of: account,
            };
            let now = boxtrack_store::now_us();
            let report = if matches!(cmd, IngestCommand::X12 { .. }) {
                boxtrack_sources::ingest::x12(db, scope, "cli", &text, now).await?
            } else {
                boxtrack_sources::ingest::edifact(db, scope, "cli", &text, now).await?
            };
            if json.json {
                print_json(&serde_json::to_value(&report)?)?;
            } else {
                println!(
                    "payload {}: {} ({} transaction sets or messages read, {} refused); {} observations; {} changes",
                    report.payload_id,
                    report.status,
                    report.transaction_sets_accepted,
                    report.transaction_sets_rejected,
                    report.observations,
                    report.changes
                );
                println!(
                    "containers updated: {}",
                    list_or_none(&report.containers_matched)
                );
                println!(
                    "containers nobody tracks: {} ({} kept for when one is tracked)",
                    list_or_none(&report.containers_unknown),
                    report.early_reports_kept
                );
                for f in &report.findings {
                    let level = match f.severity {
                        boxtrack_sources::x12::Severity::Warning => "warning",
                        boxtrack_sources::x12::Severity::Error => "error",
                    };
                    println!("{level}: {f}");
                }
                for n in &report.notes {
                    println!("note: {n}");
                }
            }
            if report.status == "rejected" {
                bail!("nothing in {file} could be read");
            }
            Ok(())
        }
    }
}

fn list_or_none(v: &[String]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// `users` subcommands.
#[derive(Subcommand, Debug)]
pub enum UsersCommand {
    /// Create a user who signs in on the OAuth page (MCP clients such as AI assistants) and
    /// acts for an account. The password is hashed with Argon2id; without --password-stdin a
    /// random one is generated and printed once.
    Create {
        /// The account the user acts for.
        #[arg(long, value_name = "ACCOUNT_ID")]
        account: String,
        /// Email address (the sign-in name).
        #[arg(long)]
        email: String,
        /// Read the password from the first line of standard input (at least 12 characters).
        #[arg(long)]
        password_stdin: bool,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// List the users of every account, or of one.
    List {
        /// Only this account's users.
        #[arg(long, value_name = "ACCOUNT_ID")]
        account: Option<String>,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Remove a user: their console sessions and the OAuth tokens of the MCP clients they
    /// signed in end at once.
    Remove {
        /// User id (from `users list`).
        id: String,
    },
}

/// `boxtrack webhooks …`
#[derive(Subcommand, Debug)]
pub enum WebhooksCommand {
    /// List an account's webhooks: URL, state, failures in a row (never their secrets).
    List {
        /// The account.
        #[arg(long, value_name = "ACCOUNT_ID")]
        account: String,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Pause a webhook: nothing is sent to it until it is enabled again (notifications are
    /// still recorded and can be read through the API).
    Pause {
        /// Webhook id (from `webhooks list`).
        id: String,
    },
    /// Enable a paused or deactivated webhook again (its failure count starts over).
    Enable {
        /// Webhook id.
        id: String,
    },
    /// Receive webhooks on this machine: prints each delivery (and checks its signature with
    /// --secret) and answers 200. Register http://127.0.0.1:9000/ as the webhook's URL; the
    /// server must accept private URLs (`demo` does; `serve --allow-private-webhook-urls`).
    Receive(crate::client::ReceiveArgs),
}

/// Runs a `webhooks` subcommand.
pub async fn webhooks(db: &Db, cmd: &WebhooksCommand) -> anyhow::Result<()> {
    use boxtrack_store::webhooks as hooks;
    match cmd {
        WebhooksCommand::List { account, json } => {
            let id = account_named(db, account).await?.id;
            let all = hooks::list_all(db, id).await?;
            if json.json {
                print_json(&Value::Array(
                    all.iter()
                        .map(|w| {
                            json!({"webhook_id": w.id, "url": w.url, "active": w.active,
                                   "events": w.events.0, "consecutive_failures": w.consecutive_failures,
                                   "deactivated_reason": w.deactivated_reason,
                                   "created_at": format_micros(w.created_us)})
                        })
                        .collect(),
                ))
            } else {
                let rows: Vec<Vec<String>> = all
                    .iter()
                    .map(|w| {
                        vec![
                            w.id.to_string(),
                            w.url.clone(),
                            if w.active {
                                "active".into()
                            } else {
                                "paused".into()
                            },
                            w.consecutive_failures.to_string(),
                            w.deactivated_reason.clone().unwrap_or_else(|| "-".into()),
                        ]
                    })
                    .collect();
                println!(
                    "{}",
                    table(
                        &["WEBHOOK ID", "URL", "STATE", "FAILURES", "WHY INACTIVE"],
                        &rows
                    )
                );
                Ok(())
            }
        }
        WebhooksCommand::Receive(_) => bail!("webhooks receive needs no database"),
        WebhooksCommand::Pause { id } | WebhooksCommand::Enable { id } => {
            let active = matches!(cmd, WebhooksCommand::Enable { .. });
            let id = parse_id("webhook id", id)?;
            let Some(w) = hooks::get_many(db, &[id]).await?.into_iter().next() else {
                bail!("no webhook {id}");
            };
            let changes = hooks::WebhookChanges {
                active: Some(active),
                ..Default::default()
            };
            hooks::update(db, w.account_id, id, changes).await?;
            println!(
                "webhook {id} ({}) {}",
                w.url,
                if active { "enabled" } else { "paused" }
            );
            Ok(())
        }
    }
}

/// Runs a `users` subcommand.
pub async fn users(db: &Db, cmd: &UsersCommand) -> anyhow::Result<()> {
    match cmd {
        UsersCommand::Create {
            account,
            email,
            password_stdin,
            json,
        } => {
            let account = account_named(db, account).await?.id;
            let email = email.trim();
            if !(email.contains('@') && email.len() >= 3 && !email.contains(' ')) {
                bail!("--email {email:?} is not an email address");
            }
            let (password, generated) = if *password_stdin {
                let mut line = String::new();
                std::io::stdin()
                    .read_line(&mut line)
                    .context("reading the password from standard input")?;
                let p = line.trim_end_matches(['\r', '\n']).to_string();
                if p.chars().count() < 12 {
                    bail!("the password must be at least 12 characters");
                }
                (p, false)
            } else {
                (boxtrack_core::oauth::new_secret()[..20].to_string(), true)
            };
            let hash = boxtrack_core::oauth::hash_password(&password)
                .map_err(|e| anyhow::anyhow!("hashing the password failed: {e}"))?;
            let user = boxtrack_store::oauth::create_user(db, account, email, &hash)
                .await
                .map_err(|e| match e {
                    boxtrack_store::StoreError::Duplicate(_) => {
                        anyhow::anyhow!("a user with email {email} exists")
                    }
                    other => other.into(),
                })?;
            if json.json {
                let mut v =
                    json!({"user_id": user.id, "account_id": user.account_id, "email": user.email});
                if generated {
                    v["password"] = json!(password);
                }
                print_json(&v)
            } else {
                println!(
                    "user {} ({}) for account {}",
                    user.id, user.email, user.account_id
                );
                if generated {
                    println!("password (shown once): {password}");
                }
                Ok(())
            }
        }
        UsersCommand::List { account, json } => {
            let account = account
                .as_deref()
                .map(|a| parse_id("account id", a))
                .transpose()?;
            let users = boxtrack_store::oauth::list_users(db, account).await?;
            if json.json {
                print_json(&Value::Array(
                    users
                        .iter()
                        .map(|u| json!({"user_id": u.id, "account_id": u.account_id, "email": u.email}))
                        .collect(),
                ))
            } else {
                let rows: Vec<Vec<String>> = users
                    .iter()
                    .map(|u| vec![u.id.to_string(), u.email.clone(), u.account_id.to_string()])
                    .collect();
                println!("{}", table(&["USER ID", "EMAIL", "ACCOUNT ID"], &rows));
                Ok(())
            }
        }
        UsersCommand::Remove { id } => {
            let id = parse_id("user id", id)?;
            let u = boxtrack_store::oauth::remove_user(db, id)
                .await
                .map_err(|e| match e {
                    boxtrack_store::StoreError::NotFound(_) => anyhow::anyhow!("no user {id}"),
                    other => other.into(),
                })?;
            println!(
                "user {} ({}) removed with their sessions and tokens",
                u.id, u.email
            );
            Ok(())
        }
    }
}
