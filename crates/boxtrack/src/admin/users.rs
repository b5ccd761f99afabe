//! `boxtrack users …`: the people who sign in on the console and the OAuth page for MCP
//! clients.

use anyhow::{Context, bail};
use boxtrack_store::Db;
use clap::Subcommand;
use serde_json::{Value, json};

use super::{JsonFlag, account_named, not_found, parse_id, print_json, table};

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
                .map_err(not_found(format!("no user {id}")))?;
            println!(
                "user {} ({}) removed with their sessions and tokens",
                u.id, u.email
            );
            Ok(())
        }
    }
}
