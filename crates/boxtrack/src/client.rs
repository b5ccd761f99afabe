//! The client command line: `track`, `containers`, `shipments`, `show` and `watch` speak to a
//! running server over its REST API with an API key (`BOXTRACK_URL`, `BOXTRACK_API_KEY`), and
//! print tables for people or JSON for scripts (`--json`); `webhooks receive` prints the
//! deliveries a server sends.
//!
//! - [`args`]: the flags of each command;
//! - [`http`]: the server reached with a key, its error answers as sentences;
//! - [`resources`]: the JSON:API answers, typed for the fields the tables print;
//! - [`track`], [`lists`], [`show`], [`watch`], [`receive`]: one command each;
//! - [`summaries`]: holds, fees and times as the tables write them.

mod args;
mod http;
mod lists;
mod receive;
mod resources;
mod show;
mod summaries;
mod track;
mod watch;

pub use args::{ContainersArgs, ShipmentsArgs, ShowArgs, TrackArgs, WatchArgs};
pub use lists::{containers, shipments};
pub use receive::{ReceiveArgs, receive};
pub use show::show;
pub use track::track;
pub use watch::watch;

use serde_json::Value;

/// A URL query string of the pairs that have a value.
fn query(pairs: &[(&str, Option<String>)]) -> String {
    let mut u = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        if let Some(v) = v {
            u.append_pair(k, v);
        }
    }
    u.finish()
}

/// Prints the API's own document for scripts (`--json`), or what `readable` makes of it for
/// people.
fn print(
    doc: &Value,
    json_out: bool,
    readable: impl FnOnce() -> anyhow::Result<String>,
) -> anyhow::Result<()> {
    if json_out {
        println!("{}", serde_json::to_string_pretty(doc)?);
    } else {
        println!("{}", readable()?);
    }
    Ok(())
}
