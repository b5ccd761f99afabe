//! Transport events, raw events, search and vessels as the API reads them.

use super::*;

/// The first `per_container` transport events of each of many containers (oldest first, as
/// the default order of a container's events), in one query per 500 containers: what
/// `include=transport_events` embeds for a page.
pub async fn transport_events_of_many(
    db: &Db,
    account_id: Uuid,
    container_ids: &[Uuid],
    per_container: i64,
) -> Result<std::collections::HashMap<Uuid, Vec<TransportEventRow>>> {
    const COLUMNS: &str = "id, container_id, shipment_id, event, at_us, locode, timezone, terminal, vessel_name, vessel_imo, voyage, data_source, created_us";
    let sql = format!(
        "SELECT {COLUMNS}, sort_us FROM (SELECT {COLUMNS}, COALESCE(at_us, created_us) AS sort_us, ROW_NUMBER() OVER (PARTITION BY container_id ORDER BY COALESCE(at_us, created_us), id) AS n FROM transport_events WHERE superseded_us IS NULL AND account_id = {{account}} AND container_id"
    );
    let order = format!(") ranked WHERE n <= {per_container} ORDER BY container_id, sort_us, id");
    let rows: Vec<TransportEventRow> = rows_in(db, account_id, container_ids, &sql, &order).await?;
    let mut out: std::collections::HashMap<Uuid, Vec<TransportEventRow>> =
        std::collections::HashMap::new();
    for r in rows {
        out.entry(r.container_id).or_default().push(r);
    }
    Ok(out)
}

/// A page of a container's transport events in `order`.
pub async fn transport_events(
    db: &Db,
    account_id: Uuid,
    container_id: Uuid,
    page: &Page,
    order: EventOrder,
) -> Result<Listed<TransportEventRow>> {
    const HAPPENED: &str = "COALESCE(at_us, created_us)";
    let (sort_col, columns, ascending) = match order {
        EventOrder::Timestamp | EventOrder::TimestampDesc => (
            HAPPENED,
            "id, container_id, shipment_id, event, at_us, locode, timezone, terminal, vessel_name, vessel_imo, voyage, data_source, created_us, COALESCE(at_us, created_us) AS sort_us",
            order == EventOrder::Timestamp,
        ),
        EventOrder::CreatedAt | EventOrder::CreatedAtDesc => (
            "created_us",
            "id, container_id, shipment_id, event, at_us, locode, timezone, terminal, vessel_name, vessel_imo, voyage, data_source, created_us, created_us AS sort_us",
            order == EventOrder::CreatedAt,
        ),
    };
    let spec = ListSpec {
        from: "transport_events",
        columns,
        sort_col,
        ascending,
        id_col: "id",
        conds: vec![Cond::new(
            "container_id = ? AND account_id = ? AND superseded_us IS NULL",
            vec![Arg::Uuid(container_id), Arg::Uuid(account_id)],
        )],
    };
    crate::list::list(db, &spec, page).await
}

/// The raw events of a container by their observation keys (the report behind each value:
/// `core::tracking::provenance`).
pub async fn raw_event_ids_by_key(
    db: &Db,
    account_id: Uuid,
    container_id: Uuid,
) -> Result<std::collections::HashMap<i64, Uuid>> {
    const SQL: &str = "SELECT observation_key, id FROM raw_events \
        WHERE container_id = $1 AND account_id = $2 AND observation_key IS NOT NULL";
    let rows: Vec<(i64, Uuid)> = on_db!(db, p => sqlx::query_as(SQL)
        .bind(container_id).bind(account_id).fetch_all(p).await?);
    Ok(rows.into_iter().collect())
}

/// Every transport event of a container, oldest first (at most 2 000, the newest).
pub async fn all_transport_events(
    db: &Db,
    account_id: Uuid,
    container_id: Uuid,
) -> Result<Vec<TransportEventRow>> {
    const SQL: &str = "SELECT id, container_id, shipment_id, event, at_us, locode, timezone, terminal, vessel_name, vessel_imo, voyage, data_source, created_us \
        FROM transport_events WHERE container_id = $1 AND account_id = $2 AND superseded_us IS NULL ORDER BY created_us DESC, id DESC LIMIT 2000";
    let mut rows: Vec<TransportEventRow> = on_db!(db, p => sqlx::query_as(SQL)
        .bind(container_id).bind(account_id).fetch_all(p).await?);
    rows.reverse();
    Ok(rows)
}

/// What changes when anything the console shows of an account changes: the newest
/// `updated_us` of its containers, shipments and tracking requests (three index probes), as
/// text. Every process computes the same value, so a page can ask any of them.
pub async fn fingerprint(db: &Db, account_id: Uuid) -> Result<String> {
    const SQL: &str = "SELECT (SELECT MAX(updated_us) FROM containers WHERE account_id = $1), \
        (SELECT MAX(updated_us) FROM shipments WHERE account_id = $1), \
        (SELECT MAX(updated_us) FROM tracking_requests WHERE account_id = $1)";
    let (c, s, t): (Option<i64>, Option<i64>, Option<i64>) =
        on_db!(db, p => sqlx::query_as(SQL).bind(account_id).fetch_one(p).await?);
    Ok(format!(
        "{}-{}-{}",
        c.unwrap_or(0),
        s.unwrap_or(0),
        t.unwrap_or(0)
    ))
}

/// A search hit before ranking.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct SearchHit {
    /// `shipment`, `container` or `tracking_request`.
    pub entity_type: String,
    /// Its id.
    pub id: Uuid,
    /// The number that matched (bill of lading, container or request number).
    pub number: String,
    /// Ref numbers, JSON text.
    pub refs: String,
    /// Last change.
    pub updated_us: i64,
}

/// Candidates whose number or ref numbers contain `query` (case-insensitive), at most
/// `limit` of each kind; rank them with [`boxtrack_core::search::rank`].
pub async fn search(db: &Db, account_id: Uuid, query: &str, limit: i64) -> Result<Vec<SearchHit>> {
    const SQL: &str = "SELECT * FROM (SELECT 'shipment' AS entity_type, id, bill_of_lading_number AS number, CAST(ref_numbers AS TEXT) AS refs, updated_us FROM shipments \
          WHERE account_id = $1 AND (UPPER(bill_of_lading_number) LIKE $2 OR UPPER(CAST(ref_numbers AS TEXT)) LIKE $2) ORDER BY updated_us DESC LIMIT $3) s \
        UNION ALL SELECT * FROM (SELECT 'container' AS entity_type, id, number, CAST(ref_numbers AS TEXT) AS refs, updated_us FROM containers \
          WHERE account_id = $1 AND (number LIKE $2 OR UPPER(CAST(ref_numbers AS TEXT)) LIKE $2) ORDER BY updated_us DESC LIMIT $3) c \
        UNION ALL SELECT * FROM (SELECT 'tracking_request' AS entity_type, id, request_number AS number, CAST(ref_numbers AS TEXT) AS refs, updated_us FROM tracking_requests \
          WHERE account_id = $1 AND status IN ('pending', 'awaiting_manifest', 'failed') AND (UPPER(request_number) LIKE $2 OR UPPER(CAST(ref_numbers AS TEXT)) LIKE $2) ORDER BY updated_us DESC LIMIT $3) t";
    Ok(
        on_db!(db, p => sqlx::query_as(SQL).bind(account_id).bind(like(query)).bind(limit).fetch_all(p).await?),
    )
}

/// The matches for `query`, best first: [`search`]'s candidates scored by
/// [`boxtrack_core::search::rank`] (those scoring 0 left out), ties by the latest change, at
/// most `limit` (`GET /v2/search` and the MCP `search_container` both read them so).
pub async fn search_ranked(
    db: &Db,
    account_id: Uuid,
    query: &str,
    limit: usize,
) -> Result<Vec<(u8, SearchHit)>> {
    let hits = search(
        db,
        account_id,
        query,
        i64::try_from(limit).unwrap_or(i64::MAX),
    )
    .await?;
    let mut ranked: Vec<(u8, SearchHit)> = hits
        .into_iter()
        .map(|h| {
            let refs: Vec<String> = serde_json::from_str(&h.refs).unwrap_or_default();
            (boxtrack_core::search::rank(query, &h.number, &refs), h)
        })
        .filter(|(score, _)| *score > 0)
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.updated_us.cmp(&a.1.updated_us)));
    ranked.truncate(limit);
    Ok(ranked)
}

/// A stored raw event (one observation as a source reported it).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RawEventRow {
    /// Id.
    pub id: Uuid,
    /// Container.
    pub container_id: Uuid,
    /// Shipment.
    pub shipment_id: Uuid,
    /// Source.
    pub data_source: String,
    /// Milestone or fact kind.
    pub event: String,
    /// An estimate.
    pub estimated: bool,
    /// When.
    pub at_us: Option<i64>,
    /// UN/LOCODE.
    pub locode: Option<String>,
    /// IANA zone.
    pub timezone: Option<String>,
    /// Vessel name.
    pub vessel_name: Option<String>,
    /// Vessel IMO.
    pub vessel_imo: Option<String>,
    /// Voyage.
    pub voyage: Option<String>,
    /// The observation verbatim.
    #[sqlx(json)]
    pub original: serde_json::Value,
    /// When the source produced it.
    pub observed_us: i64,
    /// When boxtrack received it.
    pub created_us: i64,
    /// Its place in the container's raw events, oldest first from 0 (set by [`raw_events`]).
    #[sqlx(skip)]
    pub index: i64,
}

impl Keyed for RawEventRow {
    fn key(&self) -> Key {
        Key {
            sort_us: self.created_us,
            id: *self.id.as_bytes(),
        }
    }
}

/// A page of a container's raw events, newest first.
pub async fn raw_events(
    db: &Db,
    account_id: Uuid,
    container_id: Uuid,
    page: &Page,
    rail_lfd: bool,
) -> Result<Listed<RawEventRow>> {
    let mut conds = vec![Cond::new(
        "container_id = ? AND account_id = ?",
        vec![Arg::Uuid(container_id), Arg::Uuid(account_id)],
    )];
    if !rail_lfd {
        // the rail carrier's LFD is for accounts with the rail_lfd entitlement only
        conds.push(Cond::new("event <> 'pickup_lfd_rail'", vec![]));
    }
    let spec = ListSpec {
        from: "raw_events",
        columns: "id, container_id, shipment_id, data_source, event, estimated, at_us, locode, timezone, vessel_name, vessel_imo, voyage, original, observed_us, created_us",
        sort_col: "created_us",
        ascending: false,
        id_col: "id",
        conds,
    };
    let mut listed: Listed<RawEventRow> = crate::list::list(db, &spec, page).await?;
    // each row's place oldest first: the rows newer than this page's newest come first in
    // the newest-first order, then this page's rows in their key order
    let Some(newest) = listed.rows.iter().map(Keyed::key).max() else {
        return Ok(listed);
    };
    let sql = if rail_lfd {
        "SELECT COUNT(*) FROM raw_events WHERE container_id = $1 AND account_id = $2 AND (created_us > $3 OR (created_us = $3 AND id > $4))"
    } else {
        "SELECT COUNT(*) FROM raw_events WHERE container_id = $1 AND account_id = $2 AND (created_us > $3 OR (created_us = $3 AND id > $4)) AND event <> 'pickup_lfd_rail'"
    };
    let newest_id = Uuid::from_bytes(newest.id);
    let newer: i64 = on_db!(db, p => sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).bind(container_id).bind(account_id).bind(newest.sort_us).bind(newest_id).fetch_one(p).await?);
    let mut keys: Vec<Key> = listed.rows.iter().map(Keyed::key).collect();
    keys.sort_unstable_by(|a, b| b.cmp(a));
    let last = i64::try_from(listed.total).unwrap_or(i64::MAX) - 1;
    for row in &mut listed.rows {
        let rank = keys.iter().position(|k| *k == row.key()).unwrap_or(0);
        row.index = (last - newer - rank as i64).max(0);
    }
    Ok(listed)
}

/// The name last reported for a vessel IMO number in an account's events.
pub async fn vessel_name(db: &Db, account_id: Uuid, imo: &str) -> Result<Option<String>> {
    const SQL: &str = "SELECT vessel_name FROM transport_events WHERE account_id = $1 AND vessel_imo = $2 AND vessel_name IS NOT NULL ORDER BY created_us DESC LIMIT 1";
    Ok(on_db!(db, p => sqlx::query_scalar(SQL).bind(account_id).bind(imo).fetch_optional(p).await?))
}

/// Vessel IMO numbers seen in an account's events.
pub async fn vessel_imos(db: &Db, account_id: Uuid) -> Result<Vec<String>> {
    const SQL: &str = "SELECT DISTINCT vessel_imo FROM transport_events WHERE account_id = $1 AND vessel_imo IS NOT NULL";
    Ok(on_db!(db, p => sqlx::query_scalar(SQL).bind(account_id).fetch_all(p).await?))
}

/// Transport events of an account by id, in one query per 500.
pub async fn transport_events_by_id(
    db: &Db,
    account_id: Uuid,
    ids: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, TransportEventRow>> {
    let rows: Vec<TransportEventRow> = rows_in(
        db,
        account_id,
        ids,
        "SELECT id, container_id, shipment_id, event, at_us, locode, timezone, terminal, vessel_name, vessel_imo, voyage, data_source, created_us FROM transport_events WHERE account_id = {account} AND id",
        "",
    )
    .await?;
    Ok(rows.into_iter().map(|r| (r.id, r)).collect())
}

/// One transport event of an account.
pub async fn transport_event(
    db: &Db,
    account_id: Uuid,
    id: Uuid,
) -> Result<Option<TransportEventRow>> {
    const SQL: &str = "SELECT id, container_id, shipment_id, event, at_us, locode, timezone, terminal, vessel_name, vessel_imo, voyage, data_source, created_us FROM transport_events WHERE id = $1 AND account_id = $2";
    Ok(on_db!(db, p => sqlx::query_as(SQL).bind(id).bind(account_id).fetch_optional(p).await?))
}
