//! `whoami` and `list_parties` on the read layer: who is calling, for which account, with
//! which plan, tracking slots and features; and the companies the account names on its
//! tracking requests, found by name.

use super::error::ToolError;
use std::collections::BTreeMap;

use boxtrack_app::model::Account;
use boxtrack_core::plan::Entitlement;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use boxtrack_app::{accounts, oauth, parties as app_parties};
use boxtrack_http::Front;

use super::credential::Credential;
use super::tool::{Cx, NoArgs, Tool};

/// `whoami`.
pub struct Whoami;

impl Tool for Whoami {
    const GUIDE: super::contract::Guide = super::guides::WHOAMI;
    type Input = NoArgs;
    type Output = WhoamiAnswer;
    const NAME: &'static str = "whoami";
    const TITLE: &'static str = "Who Am I";
    const DESCRIPTION: &'static str = "Who is calling and for which account: the credential's kind (API key or signed-in user), the account's plan, its tracking slots (containers tracked against the plan's limit) and which features are enabled. Call it before questions about what the account can do.";

    async fn call(cx: &Cx<'_>, _: NoArgs) -> Result<WhoamiAnswer, ToolError> {
        whoami(cx.state, cx.account, cx.credential).await
    }
}

/// `list_parties`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PartiesInput {
    /// A company name or part of one; leave out to list them alphabetically
    #[schemars(length(min = 1, max = 100))]
    pub search: Option<String>,
    /// Parties per page, 1 to 50 (default 25)
    #[schemars(range(min = 1))]
    pub limit: Option<u64>,
    /// 1-based page
    #[schemars(range(min = 1))]
    pub page: Option<u64>,
}

/// `list_parties`.
pub struct ListParties;

impl Tool for ListParties {
    const GUIDE: super::contract::Guide = super::guides::PARTIES;
    type Input = PartiesInput;
    type Output = PartiesAnswer;
    const NAME: &'static str = "list_parties";
    const TITLE: &'static str = "List Parties";
    const DESCRIPTION: &'static str = "Find the companies this account names on its tracking requests (customers) by name and return their ids, best match first (exact, then the start of the name, then a part of it; case and punctuation ignored). Use a party's id as customer_id in list_containers or list_shipments. When several match, ask the user which one.";

    async fn call(cx: &Cx<'_>, input: PartiesInput) -> Result<PartiesAnswer, ToolError> {
        let n =
            |v: Option<u64>, default: u64, max: u64| v.unwrap_or(default).clamp(1, max) as usize;
        parties(
            cx.state,
            cx.account,
            input.search.as_deref(),
            n(input.limit, 25, 50),
            n(input.page, 1, 10_000),
        )
        .await
    }
}

/// How many containers the plan lets the account track at once.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Slots {
    /// The plan's limit.
    pub limit: i64,
    /// Tracked now.
    pub used: i64,
    /// Still free.
    pub remaining: i64,
}

/// The caller's account.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AccountBrief {
    /// Account id.
    pub id: Uuid,
    /// Company name.
    pub company_name: String,
    /// Kind of company (not kept by boxtrack).
    pub company_type: Option<String>,
    /// Plan (`free`, `standard`).
    pub plan: Option<String>,
    /// SCAC (not kept by boxtrack).
    pub scac: Option<String>,
    /// Short name (not kept by boxtrack).
    pub abbr_name: Option<String>,
    /// Location (not kept by boxtrack).
    pub location: Option<String>,
    /// Tracking slots (none: the plan has no limit).
    pub tracking_slots: Option<Slots>,
}

/// The signed-in user (OAuth).
#[derive(Debug, Serialize, JsonSchema)]
pub struct UserBrief {
    /// User id.
    pub id: Uuid,
    /// Email.
    pub email: String,
    /// Name (not kept by boxtrack).
    pub name: Option<String>,
    /// Role (not kept by boxtrack).
    pub role: Option<String>,
    /// Job role (not kept by boxtrack).
    pub job_role: Option<String>,
    /// Job title (not kept by boxtrack).
    pub job_title: Option<String>,
    /// Whether the user is of the service's own staff (an operator account).
    pub terminal49_staff: bool,
}

/// Another account the user may sign in to.
#[derive(Debug, Serialize, JsonSchema)]
pub struct OtherAccount {
    /// Account id.
    pub id: Uuid,
    /// Company name.
    pub company_name: String,
}

/// Whether a feature is on.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Feature {
    /// `enabled` or `not_enabled`.
    pub status: String,
}

/// `whoami`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WhoamiAnswer {
    /// `api_key`, `user` or `open` (no credential: the operator opened the server).
    #[schemars(extend("enum" = ["api_key", "user", "open"]))]
    pub kind: String,
    /// `mcp`.
    pub channel: String,
    /// The credential's name (not known for API keys here).
    pub credential_name: Option<String>,
    /// The account.
    pub account: AccountBrief,
    /// The user, when one signed in.
    pub user: Option<UserBrief>,
    /// Other accounts of the user (each user belongs to one account).
    pub other_accounts: Vec<OtherAccount>,
    /// The account's features (entitlements) and whether each is on.
    pub features: BTreeMap<String, Feature>,
}

/// `whoami`.
pub(super) async fn whoami(
    state: &Front,
    account: &Account,
    credential: Credential,
) -> Result<WhoamiAnswer, ToolError> {
    let failed = ToolError::from_app("account");
    let used = accounts::active_containers(&state.ctx, account.id)
        .await
        .map_err(failed)?;
    let user = match credential {
        Credential::User(id) => oauth::user(&state.ctx, account.id, id)
            .await
            .map_err(failed)?
            .map(|u| UserBrief {
                id: u.id,
                email: u.email,
                name: None,
                role: None,
                job_role: None,
                job_title: None,
                terminal49_staff: account.operator,
            }),
        _ => None,
    };
    Ok(WhoamiAnswer {
        kind: match credential {
            Credential::ApiKey(_) => "api_key",
            Credential::User(_) => "user",
            Credential::Open => "open",
        }
        .to_string(),
        channel: "mcp".into(),
        credential_name: None,
        account: AccountBrief {
            id: account.id,
            company_name: account.name.clone(),
            company_type: None,
            plan: Some(account.plan.as_str().to_string()),
            scac: None,
            abbr_name: None,
            location: None,
            tracking_slots: account.plan.active_container_limit().map(|limit| {
                let limit = i64::from(limit);
                Slots {
                    limit,
                    used,
                    remaining: (limit - used).max(0),
                }
            }),
        },
        user,
        other_accounts: Vec::new(),
        features: Entitlement::ALL
            .iter()
            .map(|e| {
                (
                    e.as_str().to_string(),
                    Feature {
                        status: if account.has(*e) {
                            "enabled"
                        } else {
                            "not_enabled"
                        }
                        .into(),
                    },
                )
            })
            .collect(),
    })
}

/// A party.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PartyBrief {
    /// Party id (for the list tools' `customer_id`).
    pub id: Uuid,
    /// Company name.
    pub name: String,
}

/// `list_parties`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PartiesAnswer {
    /// How many match.
    pub total_matched: usize,
    /// This page of them, best match first (alphabetical without a search).
    pub parties: Vec<PartyBrief>,
    /// This page.
    pub page: usize,
    /// The next page, when more match.
    pub next_page: Option<usize>,
    /// Whether more match than this page shows.
    pub truncated: bool,
    /// How to use a party's id.
    pub usage: String,
}

/// The most parties read to search.
const MAX_PARTIES: usize = 10_000;

/// How well `name` matches `search`: 0 best, `None` not at all.
pub fn party_rank(name: &str, search: &str) -> Option<u8> {
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let (n, q) = (name.to_lowercase(), search.trim().to_lowercase());
    let (nn, nq) = (norm(name), norm(search));
    if n == q || (!nq.is_empty() && nn == nq) {
        Some(0)
    } else if n.starts_with(&q) {
        Some(1)
    } else if n.contains(&q) {
        Some(2)
    } else if !nq.is_empty() && nn.contains(&nq) {
        Some(3)
    } else {
        None
    }
}

/// `list_parties`.
pub(super) async fn parties(
    state: &Front,
    account: &Account,
    search: Option<&str>,
    limit: usize,
    page: usize,
) -> Result<PartiesAnswer, ToolError> {
    let all = app_parties::all(&state.ctx, account.id, MAX_PARTIES)
        .await
        .map_err(ToolError::from_app("parties"))?;
    let search = search.map(str::trim).filter(|s| !s.is_empty());
    let mut matched: Vec<(u8, PartyBrief)> = all
        .into_iter()
        .filter_map(|p| {
            let rank = match search {
                Some(q) => party_rank(&p.company_name, q)?,
                None => 0,
            };
            Some((
                rank,
                PartyBrief {
                    id: p.id,
                    name: p.company_name,
                },
            ))
        })
        .collect();
    matched.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| a.1.name.to_lowercase().cmp(&b.1.name.to_lowercase()))
    });
    let total = matched.len();
    let start = (page - 1).saturating_mul(limit);
    let parties: Vec<PartyBrief> = matched
        .into_iter()
        .skip(start)
        .take(limit)
        .map(|(_, p)| p)
        .collect();
    let more = start + parties.len() < total;
    Ok(PartiesAnswer {
        total_matched: total,
        parties,
        page,
        next_page: more.then_some(page + 1),
        truncated: more || page > 1,
        usage: "Filter containers or shipments by a party with list_containers or list_shipments and customer_id: \"<party id>\" (the customer named on the tracking request). When several parties match, ask the user which one.".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::party_rank;

    #[test]
    fn parties_rank_exact_then_prefix_then_part() {
        assert_eq!(party_rank("Acme Imports", "acme imports"), Some(0));
        assert_eq!(
            party_rank("Ray's Drayage, Inc.", "rays drayage inc"),
            Some(0)
        );
        assert_eq!(party_rank("Acme Imports", "acme"), Some(1));
        assert_eq!(party_rank("Big Acme", "acme"), Some(2));
        assert_eq!(party_rank("The Ray-Drayage Co", "ray drayage"), Some(3));
        assert_eq!(party_rank("Globex", "acme"), None);
    }
}
