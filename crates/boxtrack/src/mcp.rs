//! `boxtrack mcp --stdio`: the MCP server over standard input and output, for local clients.

use anyhow::{Context, bail};
use clap::Args;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

/// Flags of `mcp`.
#[derive(Args, Debug, Clone)]
pub struct McpArgs {
    /// Serve over standard input and output: one JSON-RPC message per line in, one answer
    /// per line out (the only transport of this command; `serve` offers POST /mcp).
    #[arg(long)]
    pub stdio: bool,
    /// The API key whose account the tools act for. Env: BOXTRACK_API_KEY.
    #[arg(
        long,
        env = "BOXTRACK_API_KEY",
        value_name = "KEY",
        hide_env_values = true
    )]
    pub api_key: String,
}

/// Runs the stdio server until standard input closes.
pub async fn run(s: crate::config::Settings, args: &McpArgs) -> anyhow::Result<()> {
    if !args.stdio {
        bail!("only --stdio is offered here; HTTP clients use POST /mcp of `boxtrack serve`");
    }
    let db = crate::server::open_configured_db(&s).await?;
    let state = crate::server::state(crate::server::ctx(db.clone(), &s)?, &s).await?;
    let auth = format!("Token {}", args.api_key.trim());
    let (key_id, account) = boxtrack_http::auth::account_for(&state.ctx, &auth)
        .await
        .map_err(|e| anyhow::anyhow!("checking the API key failed: {:?}", e.errors()))?
        .context("the API key is unknown, revoked or malformed")?;
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut out = tokio::io::stdout();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        let answer = match serde_json::from_str::<serde_json::Value>(&line) {
            Ok(msg) => {
                boxtrack_mcp::dispatch(
                    &state.front,
                    &account,
                    boxtrack_mcp::tools::Credential::ApiKey(key_id),
                    &msg,
                )
                .await
            }
            Err(_) => Some(
                serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}),
            ),
        };
        if let Some(a) = answer {
            out.write_all(a.to_string().as_bytes()).await?;
            out.write_all(b"\n").await?;
            out.flush().await?;
        }
    }
    db.close().await;
    Ok(())
}
