//! `boxtrack keys …`: issue, list and revoke an account's API keys.

use anyhow::bail;
use boxtrack_core::time::format_micros;
use boxtrack_store::Db;
use boxtrack_store::accounts;
use boxtrack_store::keys::{self, ApiKeyRecord};
use clap::Subcommand;
use serde_json::{Value, json};

use super::{JsonFlag, not_found, parse_id, print_json, table};

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
    })
}

/// The columns of a key table.
pub(super) const KEY_HEADERS: [&str; 6] =
    ["KEY ID", "NAME", "HINT", "CREATED", "LAST USED", "REVOKED"];

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
    ]
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
            let (record, key) = keys::create(db, id, name.as_deref())
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
