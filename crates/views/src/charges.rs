//! Tariffs and calendars as the API shows them: the document as written, whether it is public
//! (loaded by the operator) or the account's own, and when it was stored.

use boxtrack_core::charges::{CalendarDoc, TariffDoc};
use schemars::JsonSchema;
use serde::Serialize;
use uuid::Uuid;

use crate::jsonapi::{At, Kind, NoRelationships, Resource};

/// The `tariff` type.
pub struct Tariff;

impl Kind for Tariff {
    const TYPE: &'static str = "tariff";
    const COLLECTION: &'static str = "tariffs";
    const NAME: &'static str = "Tariff";
    type Attributes = TariffAttributes;
    type Relationships = NoRelationships;
    const HAS_RELATIONSHIPS: bool = false;
}

/// A tariff's attributes: its document, and whose it is.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TariffAttributes {
    /// The document.
    #[serde(flatten)]
    pub document: TariffDoc,
    /// Loaded by the operator for every account (not the account's own).
    pub public: bool,
    /// Its validity ended (`valid_to` is past the date it was shown).
    pub stale: bool,
    /// When it was stored.
    pub created_at: At,
}

/// The `tariff` resource.
pub fn tariff(
    id: Uuid,
    public: bool,
    created_us: i64,
    document: &TariffDoc,
    today: jiff::civil::Date,
) -> Resource<Tariff> {
    Resource {
        id,
        attributes: TariffAttributes {
            stale: document.valid_to.is_some_and(|to| to <= today),
            document: document.clone(),
            public,
            created_at: At(created_us),
        },
        relationships: NoRelationships {},
    }
}

/// The `calendar` type.
pub struct Calendar;

impl Kind for Calendar {
    const TYPE: &'static str = "calendar";
    const COLLECTION: &'static str = "calendars";
    const NAME: &'static str = "Calendar";
    type Attributes = CalendarAttributes;
    type Relationships = NoRelationships;
    const HAS_RELATIONSHIPS: bool = false;
}

/// A calendar's attributes: its document, and whose it is.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CalendarAttributes {
    /// The document.
    #[serde(flatten)]
    pub document: CalendarDoc,
    /// Loaded by the operator for every account (not the account's own).
    pub public: bool,
    /// When it was stored.
    pub created_at: At,
}

/// The `calendar` resource.
pub fn calendar(
    id: Uuid,
    public: bool,
    created_us: i64,
    document: &CalendarDoc,
) -> Resource<Calendar> {
    Resource {
        id,
        attributes: CalendarAttributes {
            document: document.clone(),
            public,
            created_at: At(created_us),
        },
        relationships: NoRelationships {},
    }
}
