//! Charges: the tariffs and calendars an account keeps (its own, and the public ones the
//! operator loads), and what a box owes by them (`POST /v2/charges/quote`). The rule itself is
//! `boxtrack_core::charges`; here are its documents stored and read, the tariff chosen for each
//! kind, and the box's times turned into local dates at the port.

use boxtrack_core::charges::calendar::{CalendarDoc, weekday_of};
use boxtrack_core::charges::tariff::{Problem, TariffDoc, is_locode};
use boxtrack_core::paging::{Key, Page};
use boxtrack_store::StoreError;
use boxtrack_store::charges::{self as store, DocRow, TariffKeys};
use boxtrack_store::list::{Keyed, Listed};
use serde::Deserialize;
use uuid::Uuid;

use crate::AppError;
use crate::ctx::Ctx;
use crate::fields::Flag;

pub mod audit;
pub mod container;
pub mod notices;
pub mod quote;
pub mod shipped;
pub mod summary;

/// A stored tariff or calendar with its document.
#[derive(Debug, Clone)]
pub struct Stored<T> {
    /// Its id.
    pub id: Uuid,
    /// Public (loaded by the operator), not the account's own.
    pub public: bool,
    /// When it was stored (Unix microseconds).
    pub created_us: i64,
    /// The document.
    pub doc: T,
}

impl<T> Keyed for Stored<T> {
    fn key(&self) -> Key {
        Key {
            sort_us: self.created_us,
            id: *self.id.as_bytes(),
        }
    }
}

/// A stored row's document read back (a row the store holds was checked when stored).
fn read<T: for<'de> Deserialize<'de>>(row: DocRow) -> Result<Stored<T>, AppError> {
    let doc = serde_json::from_str(&row.doc).map_err(|e| AppError::Refused {
        code: "corrupt",
        detail: format!("a stored document cannot be read: {e}"),
    })?;
    Ok(Stored {
        id: row.id,
        public: row.account_id.is_none(),
        created_us: row.created_us,
        doc,
    })
}

fn rejected(problems: Vec<Problem>) -> AppError {
    AppError::Rejected(problems.into_iter().map(|p| (p.field, p.detail)).collect())
}

fn page_of<T: for<'de> Deserialize<'de>>(
    rows: Listed<DocRow>,
) -> Result<Listed<Stored<T>>, AppError> {
    let Listed {
        rows,
        total,
        total_exact,
        has_next,
    } = rows;
    Ok(Listed {
        rows: rows.into_iter().map(read).collect::<Result<_, _>>()?,
        total,
        total_exact,
        has_next,
    })
}

/// Which tariffs or calendars a list shows.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
pub struct ListDocs {
    /// The filters.
    #[serde(default)]
    pub filter: ListDocsFilter,
}

/// The filters of a list of tariffs or calendars.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
pub struct ListDocsFilter {
    /// The public ones (loaded by the operator for every account) instead of the account's own
    pub public: Option<Flag>,
}

impl ListDocs {
    /// Whose to list: the account's, or (none) the public ones.
    pub fn whose(&self, account_id: Uuid) -> Option<Uuid> {
        (!self.filter.public.is_some_and(|f| f.0)).then_some(account_id)
    }
}

// ---- tariffs --------------------------------------------------------------------------

/// Checks and stores a tariff of the account (none: a public one, as the operator loads it);
/// every rule it breaks is refused, naming its field, and nothing is stored.
pub async fn add_tariff(
    ctx: &Ctx,
    account_id: Option<Uuid>,
    mut doc: TariffDoc,
) -> Result<Stored<TariffDoc>, AppError> {
    doc.issuer = doc.issuer.trim().to_ascii_uppercase();
    let checked = doc.check().map_err(rejected)?;
    let text = serde_json::to_string(&checked.doc).map_err(|e| AppError::Refused {
        code: "invalid",
        detail: e.to_string(),
    })?;
    let valid_from = checked.doc.valid_from.to_string();
    let keys = TariffKeys {
        kind: checked.doc.kind.as_str(),
        issuer: &checked.doc.issuer,
        valid_from: &valid_from,
    };
    let row = store::add_tariff(&ctx.db, account_id, keys, &text).await?;
    read(row)
}

/// A page of the account's own tariffs (none: the public ones), newest first.
pub async fn tariffs(
    ctx: &Ctx,
    account_id: Option<Uuid>,
    page: &Page,
) -> Result<Listed<Stored<TariffDoc>>, AppError> {
    page_of(store::tariffs(&ctx.db, account_id, page).await?)
}

/// One of the account's tariffs, or a public one.
pub async fn tariff(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
) -> Result<Option<Stored<TariffDoc>>, AppError> {
    store::tariff(&ctx.db, account_id, id)
        .await?
        .map(read)
        .transpose()
}

/// Deletes one of the account's own tariffs.
pub async fn delete_tariff(ctx: &Ctx, account_id: Uuid, id: Uuid) -> Result<(), AppError> {
    if store::delete_tariff(&ctx.db, account_id, id).await? {
        Ok(())
    } else {
        Err(AppError::NotFound("tariff"))
    }
}

// ---- calendars ------------------------------------------------------------------------

/// The rules a calendar document breaks, each naming its field (a JSON pointer below the
/// document).
pub fn calendar_problems(doc: &CalendarDoc) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if !is_locode(&doc.port) {
        out.push((
            "/port".to_string(),
            format!("{:?} is not a UN/LOCODE such as USLAX", doc.port),
        ));
    }
    if doc
        .facility
        .as_deref()
        .is_some_and(|f| f.trim().is_empty() || f.len() > 16)
    {
        out.push((
            "/facility".to_string(),
            "facility is a terminal's code, or null".to_string(),
        ));
    }
    for (i, day) in doc.weekend.iter().flatten().enumerate() {
        if weekday_of(day).is_none() {
            out.push((
                format!("/weekend/{i}"),
                format!("{day:?} is not a day: mon, tue, wed, thu, fri, sat or sun"),
            ));
        }
    }
    for (i, c) in doc.closures.iter().enumerate() {
        if c.reason.trim().is_empty() {
            out.push((
                format!("/closures/{i}/reason"),
                "a closure says why".to_string(),
            ));
        }
    }
    out
}

/// Checks and stores a calendar of the account (none: a public one, which replaces the public
/// one of its place); the account keeps one per port and facility.
pub async fn add_calendar(
    ctx: &Ctx,
    account_id: Option<Uuid>,
    mut doc: CalendarDoc,
) -> Result<Stored<CalendarDoc>, AppError> {
    doc.port = doc.port.trim().to_ascii_uppercase();
    let problems = calendar_problems(&doc);
    if !problems.is_empty() {
        return Err(AppError::Rejected(problems));
    }
    let text = serde_json::to_string(&doc).map_err(|e| AppError::Refused {
        code: "invalid",
        detail: e.to_string(),
    })?;
    let facility = doc.facility.clone().unwrap_or_default();
    match store::add_calendar(&ctx.db, account_id, &doc.port, &facility, &text).await {
        Err(StoreError::Duplicate(_)) => Err(AppError::Rejected(vec![(
            "/port".to_string(),
            "the account has a calendar of this port and facility already: DELETE it first"
                .to_string(),
        )])),
        other => read(other?),
    }
}

/// A page of the account's own calendars (none: the public ones), newest first.
pub async fn calendars(
    ctx: &Ctx,
    account_id: Option<Uuid>,
    page: &Page,
) -> Result<Listed<Stored<CalendarDoc>>, AppError> {
    page_of(store::calendars(&ctx.db, account_id, page).await?)
}

/// One of the account's calendars, or a public one.
pub async fn calendar(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
) -> Result<Option<Stored<CalendarDoc>>, AppError> {
    store::calendar(&ctx.db, account_id, id)
        .await?
        .map(read)
        .transpose()
}

/// Deletes one of the account's own calendars.
pub async fn delete_calendar(ctx: &Ctx, account_id: Uuid, id: Uuid) -> Result<(), AppError> {
    if store::delete_calendar(&ctx.db, account_id, id).await? {
        Ok(())
    } else {
        Err(AppError::NotFound("calendar"))
    }
}
