//! Resources of an account's own records: the account, its API keys, its parties (customers)
//! and its webhooks.

use std::collections::BTreeMap;

use boxtrack_core::ratelimit::Bucket;
use boxtrack_store::accounts::Account as AccountRow;
use boxtrack_store::keys::ApiKeyRecord;
use boxtrack_store::parties::PartyRow;
use boxtrack_store::webhooks::WebhookRow;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;

use crate::jsonapi::{At, Kind, NoRelationships, Resource, ToOne};

/// The `account` type.
pub struct Account;

impl Kind for Account {
    const TYPE: &'static str = "account";
    const COLLECTION: &'static str = "accounts";
    const NAME: &'static str = "Account";
    type Attributes = AccountAttributes;
    type Relationships = NoRelationships;
    const HAS_RELATIONSHIPS: bool = false;
}

/// Attributes of an account.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AccountAttributes {
    /// The company's name.
    pub company_name: String,
    /// The plan.
    #[schemars(extend("enum" = ["free", "standard"]))]
    pub plan: String,
    /// What the plan includes beyond tracking.
    #[schemars(extend("items" = {"enum": ["routing", "rail_lfd", "container_refresh", "widget"]}))]
    pub entitlements: Vec<String>,
    /// Most containers tracked at once; null when unlimited.
    pub active_container_limit: Option<u32>,
    /// Requests per rolling minute, by bucket.
    pub rate_limits: BTreeMap<String, u32>,
    /// When the account was created.
    pub created_at: At,
}

/// The `account` resource.
pub fn account(a: &AccountRow) -> Resource<Account> {
    Resource {
        id: a.id,
        attributes: AccountAttributes {
            company_name: a.name.clone(),
            plan: a.plan.as_str().to_string(),
            entitlements: a
                .entitlements
                .iter()
                .map(|e| e.as_str().to_string())
                .collect(),
            active_container_limit: a.plan.active_container_limit(),
            rate_limits: Bucket::ALL
                .iter()
                .map(|b| (b.as_str().to_string(), a.rate_limits.limit(*b)))
                .collect(),
            created_at: At(a.created_us),
        },
        relationships: NoRelationships {},
    }
}

/// The `api_key` type.
pub struct ApiKey;

impl Kind for ApiKey {
    const TYPE: &'static str = "api_key";
    const COLLECTION: &'static str = "api_keys";
    const NAME: &'static str = "ApiKey";
    type Attributes = ApiKeyAttributes;
    type Relationships = ApiKeyRelationships;
}

/// Attributes of an API key (never the secret, except once when it is created).
#[derive(Debug, Serialize, JsonSchema)]
pub struct ApiKeyAttributes {
    /// A name to tell keys apart.
    pub name: Option<String>,
    /// The first characters of the key, to tell keys apart.
    pub hint: String,
    /// The key itself: only in the response to POST, never again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// When the key was created.
    pub created_at: At,
    /// When it was last used.
    pub last_used_at: Option<At>,
    /// When it was revoked.
    pub revoked_at: Option<At>,
    /// When it expires (null: never); from then on it is refused as a revoked key is.
    pub expires_at: Option<At>,
}

/// Relationships of an API key.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ApiKeyRelationships {
    /// The account it belongs to (`account`).
    pub account: ToOne,
}

/// The `api_key` resource; `key` only in the response that creates it.
pub fn api_key(k: &ApiKeyRecord, key: Option<String>) -> Resource<ApiKey> {
    Resource {
        id: k.id,
        attributes: ApiKeyAttributes {
            name: k.name.clone(),
            hint: k.hint.clone(),
            key,
            created_at: At(k.created_us),
            last_used_at: At::opt(k.last_used_us),
            revoked_at: At::opt(k.revoked_us),
            expires_at: At::opt(k.expires_us),
        },
        relationships: ApiKeyRelationships {
            account: ToOne::new("account", Some(k.account_id)),
        },
    }
}

/// The `publishable_key` type: the credential of the embeddable map and widget.
pub struct PublishableKey;

impl Kind for PublishableKey {
    const TYPE: &'static str = "publishable_key";
    const COLLECTION: &'static str = "publishable_keys";
    const NAME: &'static str = "PublishableKey";
    type Attributes = PublishableKeyAttributes;
    type Relationships = ApiKeyRelationships;
}

/// Attributes of a publishable key (the key itself only once, when it is made).
#[derive(Debug, Serialize, JsonSchema)]
pub struct PublishableKeyAttributes {
    /// A name to tell keys apart.
    pub name: Option<String>,
    /// The first characters of the key (`btp_3fa9c1…`), to tell keys apart.
    pub hint: String,
    /// The key itself (`btp_` and 48 hex digits): only in the response that makes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The origins (`scheme://host[:port]`) whose pages may use the key; empty: any.
    pub allowed_origins: Vec<String>,
    /// When the key was made.
    pub created_at: At,
    /// When it was revoked (it never authenticates again).
    pub revoked_at: Option<At>,
}

/// The `publishable_key` resource; `key` only in the response that makes it.
pub fn publishable_key(
    k: &boxtrack_store::publishable::PublishableKeyRecord,
    key: Option<String>,
) -> Resource<PublishableKey> {
    Resource {
        id: k.id,
        attributes: PublishableKeyAttributes {
            name: k.name.clone(),
            hint: k.hint.clone(),
            key,
            allowed_origins: k.allowed_origins.clone(),
            created_at: At(k.created_us),
            revoked_at: At::opt(k.revoked_us),
        },
        relationships: ApiKeyRelationships {
            account: ToOne::new("account", Some(k.account_id)),
        },
    }
}

/// The `party` type (a customer an account tracks for).
pub struct Party;

impl Kind for Party {
    const TYPE: &'static str = "party";
    const COLLECTION: &'static str = "parties";
    const NAME: &'static str = "Party";
    type Attributes = PartyAttributes;
    type Relationships = NoRelationships;
    const HAS_RELATIONSHIPS: bool = false;
}

/// Attributes of a party.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PartyAttributes {
    /// The company's name.
    pub company_name: String,
    /// When the party was created.
    pub created_at: At,
    /// When it last changed.
    pub updated_at: At,
}

/// The `party` resource.
pub fn party(p: &PartyRow) -> Resource<Party> {
    Resource {
        id: p.id,
        attributes: PartyAttributes {
            company_name: p.company_name.clone(),
            created_at: At(p.created_us),
            updated_at: At(p.updated_us),
        },
        relationships: NoRelationships {},
    }
}

/// The `webhook` type (a subscription).
pub struct Webhook;

impl Kind for Webhook {
    const TYPE: &'static str = "webhook";
    const COLLECTION: &'static str = "webhooks";
    const NAME: &'static str = "Webhook";
    type Attributes = WebhookAttributes;
    type Relationships = NoRelationships;
    const HAS_RELATIONSHIPS: bool = false;
}

fn webhook_events_schema(_: &mut SchemaGenerator) -> Schema {
    let events: Vec<&str> = boxtrack_core::webhooks::all_events().collect();
    json_schema!({"type": "array", "items": {"enum": events}})
}

/// Attributes of a webhook.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WebhookAttributes {
    /// Where notifications are sent.
    pub url: String,
    /// Notifications are sent (false once deactivated after repeated failures).
    pub active: bool,
    /// The events it receives (empty: all).
    #[schemars(schema_with = "webhook_events_schema")]
    pub events: Vec<String>,
    /// Headers sent with every notification (null when none).
    pub headers: Option<Vec<Header>>,
    /// `whsec_…`: the key every delivery is signed with (`X-Boxtrack-Webhook-Signature`, and
    /// the Standard Webhooks `webhook-signature`).
    pub secret: String,
    /// Why it was deactivated.
    pub deactivated_reason: Option<String>,
    /// When it was created.
    pub created_at: At,
    /// When it last changed.
    pub updated_at: At,
}

/// A header sent with every notification of a webhook.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Header {
    /// Its name.
    pub name: String,
    /// Its value.
    pub value: String,
}

/// The `webhook` resource.
pub fn webhook(w: &WebhookRow) -> Resource<Webhook> {
    Resource {
        id: w.id,
        attributes: WebhookAttributes {
            url: w.url.clone(),
            active: w.active,
            events: w.events.clone(),
            headers: (!w.headers.is_empty()).then(|| {
                w.headers
                    .iter()
                    .map(|(name, value)| Header {
                        name: name.clone(),
                        value: value.clone(),
                    })
                    .collect()
            }),
            secret: w.secret.clone(),
            deactivated_reason: w.deactivated_reason.clone(),
            created_at: At(w.created_us),
            updated_at: At(w.updated_us),
        },
        relationships: NoRelationships {},
    }
}
