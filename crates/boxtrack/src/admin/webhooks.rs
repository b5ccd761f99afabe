//! `boxtrack webhooks …`: an account's webhooks listed, paused and enabled again
//! (`webhooks receive` is a client of the API: `client::receive`).

use anyhow::bail;
use boxtrack_core::time::format_micros;
use boxtrack_store::Db;
use clap::Subcommand;
use serde_json::{Value, json};

use super::{JsonFlag, account_named, parse_id, print_json, table};

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
                                   "events": w.events, "consecutive_failures": w.consecutive_failures,
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
            let Some(w) = hooks::find(db, id).await? else {
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
