//! Upstream payloads as received (X12 files, DCSA answers and pushes, ...), verbatim, with
//! the outcome of reading them. A payload that could not be read is still kept here, and
//! nowhere else.

use uuid::Uuid;

use crate::{Db, Result, on_db};

/// A stored payload.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PayloadRow {
    /// Id.
    pub id: Uuid,
    /// The account whose key sent it (`None`: the operator's command line or a poll).
    pub account_id: Option<Uuid>,
    /// `x12`, `dcsa`, `ais`, `terminal`.
    pub format: String,
    /// Where it came from (`api`, `cli`, a carrier code, a URL).
    pub origin: String,
    /// The bytes as text.
    pub body: String,
    /// `accepted`, `partial` or `rejected`.
    pub status: String,
    /// What reading it found (JSON).
    pub summary: String,
    /// When it arrived.
    pub received_us: i64,
}

/// What to store.
#[derive(Debug, Clone)]
pub struct NewPayload<'a> {
    /// Sender account.
    pub account_id: Option<Uuid>,
    /// Format.
    pub format: &'a str,
    /// Origin.
    pub origin: &'a str,
    /// Body.
    pub body: &'a str,
    /// Outcome.
    pub status: &'a str,
    /// Findings (JSON).
    pub summary: &'a serde_json::Value,
    /// Arrival time.
    pub received_us: i64,
}

/// Stores a payload and returns its id.
pub async fn record(db: &Db, p: &NewPayload<'_>) -> Result<Uuid> {
    let id = Uuid::now_v7();
    let summary = p.summary.to_string();
    let sql = match db {
        Db::Sqlite(..) => {
            "INSERT INTO source_payloads (id, account_id, format, origin, body, status, summary, received_us) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        }
        Db::Postgres(_) => {
            "INSERT INTO source_payloads (id, account_id, format, origin, body, status, summary, received_us) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8)"
        }
    };
    on_db!(db, c => sqlx::query(sql)
        .bind(id)
        .bind(p.account_id)
        .bind(p.format)
        .bind(p.origin)
        .bind(p.body)
        .bind(p.status)
        .bind(&summary)
        .bind(p.received_us)
        .execute(c)
        .await
        .map(|_| ())?);
    Ok(id)
}

/// One payload.
pub async fn get(db: &Db, id: Uuid) -> Result<Option<PayloadRow>> {
    let sql = match db {
        Db::Sqlite(..) => {
            "SELECT id, account_id, format, origin, body, status, summary, received_us FROM source_payloads WHERE id = $1"
        }
        Db::Postgres(_) => {
            "SELECT id, account_id, format, origin, body, status, summary::text AS summary, received_us FROM source_payloads WHERE id = $1"
        }
    };
    Ok(on_db!(db, c => sqlx::query_as(sql).bind(id).fetch_optional(c).await?))
}

/// A tracked container that a number names.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Target {
    /// Owner.
    pub account_id: Uuid,
    /// Container id.
    pub container_id: Uuid,
    /// Its number.
    pub number: String,
}

/// Containers that take reports (tracked, or whose journey ended lately) with these numbers:
/// of one account, or of every account (`None`).
pub async fn targets(db: &Db, account: Option<Uuid>, numbers: &[String]) -> Result<Vec<Target>> {
    let mut out = Vec::new();
    for chunk in numbers.chunks(400) {
        let mut marks = crate::sql::Marks::new(db.backend());
        let (a1, a2) = (marks.one(), marks.one());
        let sql = format!(
            "SELECT c.account_id, c.id AS container_id, c.number FROM containers c JOIN shipments s ON s.account_id = c.account_id AND s.id = c.shipment_id WHERE ({a1} IS NULL OR c.account_id = {a2}) AND c.number IN ({}) AND {} ORDER BY c.account_id, c.number, c.id",
            marks.list(chunk.len()),
            crate::tracking::takes_reports(&marks.one()),
        );
        let since = crate::tracking::refine_since(crate::now_us());
        let rows: Vec<Target> = on_db!(db, c => {
            let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(account).bind(account);
            for n in chunk {
                q = q.bind(n);
            }
            q = q.bind(since);
            q.fetch_all(c).await?
        });
        out.extend(rows);
    }
    Ok(out)
}
