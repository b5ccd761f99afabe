//! `boxtrack accounts …`: open, list, show, change, disable, enable and delete accounts.

use anyhow::{Context, bail};
use boxtrack_core::plan::{Entitlement, Plan};
use boxtrack_core::ratelimit::{Bucket, Limits};
use boxtrack_core::time::format_micros;
use boxtrack_store::Db;
use boxtrack_store::accounts::{self, Account, AccountChanges, NewAccount};
use boxtrack_store::keys;
use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::keys::{KEY_HEADERS, key_json, key_row};
use super::{JsonFlag, account_named, not_found, parse_id, print_json, table};

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

/// Rate-limit overrides `BUCKET=N`, as limits.
fn parse_limits(raw: &[String]) -> anyhow::Result<Limits> {
    let mut limits = Limits::default();
    for r in raw {
        let (b, n) = Limits::parse_override(r)?;
        limits.0.insert(b, n);
    }
    Ok(limits)
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

/// Runs an `accounts` subcommand.
pub async fn accounts(db: &Db, document_store: &str, cmd: &AccountsCommand) -> anyhow::Result<()> {
    match cmd {
        AccountsCommand::Create(c) => create(db, c).await,
        AccountsCommand::List(j) => list(db, j.json).await,
        AccountsCommand::Disable { id } => set_disabled(db, id, true).await,
        AccountsCommand::Enable { id } => set_disabled(db, id, false).await,
        AccountsCommand::Delete { id, yes } => delete(db, document_store, id, *yes).await,
        AccountsCommand::Show { id, json } => show(db, id, json.json).await,
        AccountsCommand::Update(u) => update(db, u).await,
    }
}

/// `accounts create`: the account and its first key, shown once.
async fn create(db: &Db, c: &CreateAccount) -> anyhow::Result<()> {
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

/// `accounts list`: every account, active or disabled.
async fn list(db: &Db, json_out: bool) -> anyhow::Result<()> {
    let all = accounts::list_all(db).await?;
    let disabled = accounts::disabled(db).await?;
    if json_out {
        return print_json(&Value::Array(
            all.iter()
                .map(|a| {
                    let mut v = account_json(a);
                    v["disabled_at"] = json!(disabled.get(&a.id).map(|t| format_micros(*t)));
                    v
                })
                .collect(),
        ));
    }
    let rows: Vec<_> = all
        .iter()
        .map(|a| {
            let mut r = account_row(a);
            let state = if disabled.contains_key(&a.id) {
                "disabled"
            } else {
                "active"
            };
            r.push(state.into());
            r
        })
        .collect();
    let mut headers = ACCOUNT_HEADERS.to_vec();
    headers.push("STATE");
    println!("{}", table(&headers, &rows));
    Ok(())
}

/// `accounts disable` and `accounts enable`.
async fn set_disabled(db: &Db, id: &str, disable: bool) -> anyhow::Result<()> {
    let id = parse_id("account id", id)?;
    accounts::set_disabled(db, id, disable)
        .await
        .map_err(not_found(format!("no account {id}")))?;
    if disable {
        println!(
            "account {id} disabled: its keys, tokens and sessions are refused; `boxtrack accounts enable {id}` undoes it"
        );
    } else {
        println!("account {id} enabled");
    }
    Ok(())
}

/// `accounts delete`: asks for the account's name (unless `yes`), deletes its rows, then
/// its documents' objects, and says how many of each went.
async fn delete(db: &Db, document_store: &str, id: &str, yes: bool) -> anyhow::Result<()> {
    let a = account_named(db, id).await?;
    let id = a.id;
    if !yes {
        confirm_delete(db, &a).await?;
    }
    let objects = boxtrack_store::files::object_keys_of(db, id).await?;
    let removed = accounts::delete(db, id).await?;
    if !objects.is_empty() {
        remove_objects(document_store, &objects).await?;
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

/// Shows what deleting `a` removes and reads its name back from standard input; an error
/// when it does not match.
async fn confirm_delete(db: &Db, a: &Account) -> anyhow::Result<()> {
    let held = accounts::rows_of(db, a.id).await?;
    eprintln!(
        "This deletes account {} ({}) and all its data, with no undo:",
        a.id, a.name
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
    Ok(())
}

/// Removes a deleted account's document objects from the object store and says how many
/// went (and how many could not).
async fn remove_objects(document_store: &str, objects: &[String]) -> anyhow::Result<()> {
    let files = boxtrack_store::files::open(document_store)
        .context("the account's documents are in an object store, but it cannot be opened (setting document_store)")?;
    let mut left = 0;
    for key in objects {
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
    Ok(())
}

/// `accounts show`: the account, its rate limits and its keys.
async fn show(db: &Db, id: &str, json_out: bool) -> anyhow::Result<()> {
    let a = account_named(db, id).await?;
    let ks = keys::list_all(db, a.id).await?;
    if json_out {
        let mut v = account_json(&a);
        v["keys"] = Value::Array(ks.iter().map(key_json).collect());
        return print_json(&v);
    }
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

/// `accounts update`.
async fn update(db: &Db, u: &UpdateAccount) -> anyhow::Result<()> {
    let id = parse_id("account id", &u.id)?;
    let a = accounts::update(db, id, changes(u)?)
        .await
        .map_err(not_found(format!("no account {id}")))?;
    if u.json.json {
        print_json(&account_json(&a))
    } else {
        println!("{}", table(&ACCOUNT_HEADERS, &[account_row(&a)]));
        Ok(())
    }
}

/// The changes `accounts update` asks for, checked.
fn changes(u: &UpdateAccount) -> anyhow::Result<AccountChanges> {
    Ok(AccountChanges {
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
    })
}
