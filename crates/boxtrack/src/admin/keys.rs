//! `boxtrack keys …`: issue, list and revoke an account's API keys and publishable keys.

use anyhow::bail;
use boxtrack_core::plan::Entitlement;
use boxtrack_core::time::format_micros;
use boxtrack_store::Db;
use boxtrack_store::accounts;
use boxtrack_store::keys::{self, ApiKeyRecord};
use boxtrack_store::publishable::{self, PublishableKeyRecord};
use clap::Subcommand;
use serde_json::{Value, json};

use super::{JsonFlag, not_found, parse_id, print_json, table};

/// `boxtrack keys …`
#[derive(Subcommand, Debug)]
pub enum KeysCommand {
    /// Issue a new key for an account (shown once): a secret API key (`btk_…`), or with
    /// `--publishable` a publishable key (`btp_…`) for the embeddable map and widget.
    Create {
        /// Account id.
        #[arg(long)]
        account: String,
        /// Optional label.
        #[arg(long)]
        name: Option<String>,
        /// When the API key stops working: an RFC 3339 time or a date (its midnight UTC), in
        /// the future; past it the key is refused as a revoked key is. Without it: never.
        #[arg(long, value_name = "TIME", conflicts_with = "publishable")]
        expires: Option<String>,
        /// Make a publishable key (the account needs the `widget` entitlement).
        #[arg(long)]
        publishable: bool,
        /// With --publishable: an origin whose pages may use the key
        /// (`https://shop.example.com`); repeat for more; none: any origin.
        #[arg(long = "origin", requires = "publishable")]
        origins: Vec<String>,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// List an account's keys (hints only, never the keys).
    List {
        /// Account id.
        #[arg(long)]
        account: String,
        /// List its publishable keys instead of its API keys.
        #[arg(long)]
        publishable: bool,
        #[command(flatten)]
        json: JsonFlag,
    },
    /// Revoke a key at once (an API key, or a publishable key by its id).
    Revoke {
        /// Key id (from `keys list` or `keys list --publishable`).
        key_id: String,
        #[command(flatten)]
        json: JsonFlag,
    },
}

/// A publishable key as `--json` prints it (never the key itself).
fn publishable_json(k: &PublishableKeyRecord) -> Value {
    json!({
        "key_id": k.id,
        "account_id": k.account_id,
        "name": k.name,
        "hint": k.hint,
        "allowed_origins": k.allowed_origins,
        "created_at": format_micros(k.created_us),
        "revoked_at": k.revoked_us.map(format_micros),
    })
}

/// The columns of a publishable key table.
const PUBLISHABLE_HEADERS: [&str; 6] = ["KEY ID", "NAME", "HINT", "ORIGINS", "CREATED", "REVOKED"];

/// A publishable key as a table row.
fn publishable_row(k: &PublishableKeyRecord) -> Vec<String> {
    let origins = if k.allowed_origins.is_empty() {
        "any".to_string()
    } else {
        k.allowed_origins.join(" ")
    };
    vec![
        k.id.to_string(),
        k.name.clone().unwrap_or_else(|| "-".into()),
        k.hint.clone(),
        origins,
        format_micros(k.created_us),
        k.revoked_us.map_or_else(|| "-".to_string(), format_micros),
    ]
}

/// Prints publishable keys as `--json` or a table.
fn print_publishable(ks: &[PublishableKeyRecord], json: bool) -> anyhow::Result<()> {
    if json {
        print_json(&Value::Array(ks.iter().map(publishable_json).collect()))
    } else {
        println!(
            "{}",
            table(
                &PUBLISHABLE_HEADERS,
                &ks.iter().map(publishable_row).collect::<Vec<_>>()
            )
        );
        Ok(())
    }
}

/// `keys create --publishable`: a publishable key of an account with the widget entitlement.
async fn create_publishable(
    db: &Db,
    account: uuid::Uuid,
    name: Option<&str>,
    origins: &[String],
    json: bool,
) -> anyhow::Result<()> {
    let Some(a) = accounts::get(db, account).await? else {
        bail!("no account {account}");
    };
    if !a.has(Entitlement::Widget) {
        bail!(
            "account {account} lacks the `widget` entitlement that publishable keys need; grant it with `boxtrack accounts update {account} --entitlements …,widget`"
        );
    }
    let origins = boxtrack_core::apikey::normalize_origins(origins.iter().map(String::as_str))
        .map_err(anyhow::Error::msg)?;
    let (record, key) = publishable::create(db, account, name, &origins).await?;
    if json {
        let mut v = publishable_json(&record);
        v["publishable_key"] = json!(key.expose());
        print_json(&v)
    } else {
        print_publishable(std::slice::from_ref(&record), false)?;
        println!(
            "\nPublishable key (shown once, store it now): {}",
            key.expose()
        );
        Ok(())
    }
}

/// A key as `--json` prints it (never the key itself).
pub(super) fn key_json(k: &ApiKeyRecord) -> Value {
    json!({
        "key_id": k.id,
        "account_id": k.account_id,
        "name": k.name,
        "hint": k.hint,
        "created_at": format_micros(k.created_us),
        "last_used_at": k.last_used_us.map(format_micros),
        "revoked_at": k.revoked_us.map(format_micros),
        "expires_at": k.expires_us.map(format_micros),
    })
}

/// The columns of a key table.
pub(super) const KEY_HEADERS: [&str; 7] = [
    "KEY ID",
    "NAME",
    "HINT",
    "CREATED",
    "LAST USED",
    "REVOKED",
    "EXPIRES",
];

/// A key as a table row.
pub(super) fn key_row(k: &ApiKeyRecord) -> Vec<String> {
    let t = |v: Option<i64>| v.map_or_else(|| "-".to_string(), format_micros);
    vec![
        k.id.to_string(),
        k.name.clone().unwrap_or_else(|| "-".into()),
        k.hint.clone(),
        format_micros(k.created_us),
        t(k.last_used_us),
        t(k.revoked_us),
        t(k.expires_us),
    ]
}

/// Runs a `keys` subcommand.
pub async fn keys(db: &Db, cmd: &KeysCommand) -> anyhow::Result<()> {
    match cmd {
        KeysCommand::Create {
            account,
            name,
            publishable: true,
            origins,
            json,
            ..
        } => {
            let id = parse_id("account id", account)?;
            create_publishable(db, id, name.as_deref(), origins, json.json).await
        }
        KeysCommand::Create {
            account,
            name,
            expires,
            json,
            ..
        } => {
            let id = parse_id("account id", account)?;
            let expires_us = match expires.as_deref() {
                None => None,
                Some(t) => match boxtrack_core::time::parse_instant_or_date(t) {
                    Some(at) if at > boxtrack_store::now_us() => Some(at),
                    Some(_) => bail!("--expires {t} is not in the future"),
                    None => bail!(
                        "--expires {t:?} is not a time (2027-06-30T00:00:00Z) or a date (2027-06-30)"
                    ),
                },
            };
            let (record, key) = keys::create_expiring(db, id, name.as_deref(), expires_us)
                .await
                .map_err(not_found(format!("no account {id}")))?;
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
        KeysCommand::List {
            account,
            publishable,
            json,
        } => {
            let id = parse_id("account id", account)?;
            if accounts::get(db, id).await?.is_none() {
                bail!("no account {id}");
            }
            if *publishable {
                return print_publishable(&publishable::list(db, id).await?, json.json);
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
            if let Some(p) = publishable::get(db, id).await? {
                let k = publishable::revoke(db, p.account_id, id).await?;
                return print_publishable(std::slice::from_ref(&k), json.json);
            }
            let k = keys::revoke(db, id, None)
                .await
                .map_err(not_found(format!("no API key {id}")))?;
            if json.json {
                print_json(&key_json(&k))
            } else {
                println!("{}", table(&KEY_HEADERS, &[key_row(&k)]));
                Ok(())
            }
        }
    }
}
