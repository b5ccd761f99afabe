//! Moving a whole installation into PostgreSQL (`boxtrack copy`): from SQLite when it
//! outgrows one machine, or from one PostgreSQL onto another, such as a Citus coordinator
//! (`docs/operations.md`, "Moving onto Citus"); and the check that the two hold the same
//! rows afterwards.
//!
//! Both databases are migrated to this build's schema first, so their tables and columns
//! match; the PostgreSQL catalog is the list of what to copy (every table but the migration
//! record) and says each column's type, which decides how the source's value is read. The
//! source is read inside one read transaction (a consistent snapshot: one SQLite connection,
//! or one repeatable-read PostgreSQL transaction through cursors), row by row, and written to PostgreSQL in multi-row inserts inside one transaction, so a failed
//! copy leaves the destination as it was. Tables go in the order of their foreign keys;
//! user triggers (the maintained per-account counts, the change feed) are off during the
//! copy, because the source's own counts and changes are copied with the rest.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use sqlx::{PgPool, Row};

use crate::{Db, Result, StoreError};

/// Rows of one table moved by [`into_postgres`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copied {
    /// The table.
    pub table: String,
    /// Rows written.
    pub rows: u64,
}

/// One table compared by [`compare`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableCheck {
    /// The table.
    pub table: String,
    /// Rows in the source.
    pub rows_from: u64,
    /// Rows in the destination.
    pub rows_to: u64,
    /// Whether both hold the same rows (every column's value, in any order).
    pub same: bool,
}

/// A column's PostgreSQL type, as far as the copy needs to know it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Uuid,
    Bool,
    BigInt,
    Int,
    Double,
    Text,
    Json,
    Bytes,
}

impl Kind {
    fn of(data_type: &str) -> Option<Kind> {
        Some(match data_type {
            "uuid" => Kind::Uuid,
            "boolean" => Kind::Bool,
            "bigint" => Kind::BigInt,
            "integer" | "smallint" => Kind::Int,
            "double precision" | "real" => Kind::Double,
            "text" | "character varying" => Kind::Text,
            "jsonb" | "json" => Kind::Json,
            "bytea" => Kind::Bytes,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone)]
struct Column {
    name: String,
    kind: Kind,
}

/// One value, the same whichever backend it was read from.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Double(f64),
    Text(String),
    Bytes(Vec<u8>),
    Uuid(uuid::Uuid),
    Json(serde_json::Value),
}

impl Value {
    /// Feeds the value to a hasher; JSON by its canonical text (keys sorted), so that
    /// PostgreSQL's `jsonb` (which reorders keys) and SQLite's text compare equal.
    fn digest(&self, h: &mut impl Hasher) {
        match self {
            Value::Null => 0u8.hash(h),
            Value::Bool(b) => (1u8, b).hash(h),
            Value::Int(i) => (2u8, i).hash(h),
            Value::Double(f) => (3u8, f.to_bits()).hash(h),
            Value::Text(s) => (4u8, s).hash(h),
            Value::Bytes(b) => (5u8, b).hash(h),
            Value::Uuid(u) => (6u8, u.as_bytes()).hash(h),
            Value::Json(v) => (7u8, canonical(v)).hash(h),
        }
    }
}

/// JSON text with object keys sorted at every level.
fn canonical(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Object(m) => {
            let sorted: BTreeMap<&String, String> =
                m.iter().map(|(k, x)| (k, canonical(x))).collect();
            let inner: Vec<String> = sorted
                .iter()
                .map(|(k, x)| format!("{}:{x}", serde_json::Value::String((*k).clone())))
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        serde_json::Value::Array(a) => {
            format!(
                "[{}]",
                a.iter().map(canonical).collect::<Vec<_>>().join(",")
            )
        }
        other => other.to_string(),
    }
}

fn bad(table: &str, column: &str, detail: impl std::fmt::Display) -> StoreError {
    StoreError::Copy(format!("{table}.{column}: {detail}"))
}

/// Reads a SQLite value as the PostgreSQL column's type asks.
fn from_sqlite(table: &str, c: &Column, v: rusqlite::types::ValueRef<'_>) -> Result<Value> {
    use rusqlite::types::ValueRef as R;
    Ok(match (c.kind, v) {
        (_, R::Null) => Value::Null,
        (Kind::Uuid, R::Blob(b)) => Value::Uuid(
            uuid::Uuid::from_slice(b)
                .map_err(|e| bad(table, &c.name, format!("not a UUID: {e}")))?,
        ),
        (Kind::Uuid, R::Text(t)) => Value::Uuid(
            std::str::from_utf8(t)
                .ok()
                .and_then(|s| uuid::Uuid::parse_str(s).ok())
                .ok_or_else(|| bad(table, &c.name, "not a UUID"))?,
        ),
        (Kind::Bool, R::Integer(i)) => Value::Bool(i != 0),
        (Kind::BigInt | Kind::Int, R::Integer(i)) => Value::Int(i),
        (Kind::Double, R::Real(f)) => Value::Double(f),
        (Kind::Double, R::Integer(i)) => Value::Double(i as f64),
        (Kind::Text, R::Text(t)) => Value::Text(
            String::from_utf8(t.to_vec()).map_err(|_| bad(table, &c.name, "text is not UTF-8"))?,
        ),
        (Kind::Json, R::Text(t) | R::Blob(t)) => Value::Json(
            serde_json::from_slice(t).map_err(|e| bad(table, &c.name, format!("not JSON: {e}")))?,
        ),
        (Kind::Bytes, R::Blob(b)) => Value::Bytes(b.to_vec()),
        (kind, other) => {
            return Err(bad(
                table,
                &c.name,
                format!(
                    "a {:?} value where PostgreSQL keeps {kind:?}",
                    other.data_type()
                ),
            ));
        }
    })
}

/// Reads a PostgreSQL value of the column's type.
fn from_pg(table: &str, c: &Column, row: &sqlx::postgres::PgRow, i: usize) -> Result<Value> {
    let err = |e: sqlx::Error| bad(table, &c.name, e);
    Ok(match c.kind {
        Kind::Uuid => row
            .try_get::<Option<uuid::Uuid>, _>(i)
            .map_err(err)?
            .map_or(Value::Null, Value::Uuid),
        Kind::Bool => row
            .try_get::<Option<bool>, _>(i)
            .map_err(err)?
            .map_or(Value::Null, Value::Bool),
        Kind::BigInt => row
            .try_get::<Option<i64>, _>(i)
            .map_err(err)?
            .map_or(Value::Null, Value::Int),
        Kind::Int => row
            .try_get::<Option<i32>, _>(i)
            .map_err(err)?
            .map_or(Value::Null, |v| Value::Int(i64::from(v))),
        Kind::Double => row
            .try_get::<Option<f64>, _>(i)
            .map_err(err)?
            .map_or(Value::Null, Value::Double),
        Kind::Text => row
            .try_get::<Option<String>, _>(i)
            .map_err(err)?
            .map_or(Value::Null, Value::Text),
        Kind::Json => row
            .try_get::<Option<serde_json::Value>, _>(i)
            .map_err(err)?
            .map_or(Value::Null, Value::Json),
        Kind::Bytes => row
            .try_get::<Option<Vec<u8>>, _>(i)
            .map_err(err)?
            .map_or(Value::Null, Value::Bytes),
    })
}

/// The tables of the destination (all but the migration record) with their columns, parents
/// before the tables whose foreign keys name them.
async fn pg_tables(pool: &PgPool) -> Result<Vec<(String, Vec<Column>)>> {
    let cols: Vec<(String, String, String)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT c.table_name::text, c.column_name::text, c.data_type::text FROM information_schema.columns c \
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name \
         WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.table_name <> '_sqlx_migrations' \
         AND {} ORDER BY c.table_name, c.ordinal_position",
        crate::db::pg_not_a_partition("c.table_schema", "c.table_name")
    )))
    .fetch_all(pool)
    .await?;
    let mut tables: BTreeMap<String, Vec<Column>> = BTreeMap::new();
    for (table, name, data_type) in cols {
        let kind = Kind::of(&data_type)
            .ok_or_else(|| bad(&table, &name, format!("the type {data_type} is not copied")))?;
        tables.entry(table).or_default().push(Column { name, kind });
    }
    let fks: Vec<(String, String)> = sqlx::query_as(
        "SELECT child.relname::text, parent.relname::text FROM pg_constraint k \
         JOIN pg_class child ON child.oid = k.conrelid JOIN pg_class parent ON parent.oid = k.confrelid \
         JOIN pg_namespace n ON n.oid = k.connamespace \
         WHERE k.contype = 'f' AND n.nspname = current_schema()",
    )
    .fetch_all(pool)
    .await?;
    // parents first; alphabetical among tables free to go
    let mut parents: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (child, parent) in &fks {
        if child != parent {
            parents.entry(child).or_default().insert(parent);
        }
    }
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut ordered = Vec::new();
    while done.len() < tables.len() {
        let next = tables.keys().find(|t| {
            !done.contains(*t)
                && parents.get(t.as_str()).is_none_or(|ps| {
                    ps.iter()
                        .all(|p| done.contains(*p) || !tables.contains_key(*p))
                })
        });
        let Some(t) = next.cloned() else {
            return Err(StoreError::Copy(
                "the foreign keys of the destination form a cycle".into(),
            ));
        };
        done.insert(t.clone());
        ordered.push(t);
    }
    Ok(ordered
        .into_iter()
        .map(|t| {
            let cols = tables.remove(&t).unwrap_or_default();
            (t, cols)
        })
        .collect())
}

/// What a source reader sends: a batch of a table's rows, `None` at the end of a table.
type Batches = tokio::sync::mpsc::Receiver<Result<Option<Vec<Vec<Value>>>>>;

/// Starts reading every listed table of `from` (SQLite on a blocking thread, PostgreSQL on a
/// task), in the order given.
fn read_source(
    from: &Db,
    tables: &[(String, Vec<Column>)],
) -> (Batches, tokio::task::JoinHandle<()>) {
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let tables = tables.to_vec();
    let reader = match from {
        Db::Sqlite(pool, _) => {
            let path = pool.connect_options().get_filename().to_path_buf();
            tokio::task::spawn_blocking(move || read_sqlite(path, tables, tx))
        }
        Db::Postgres(pool) => {
            let pool = pool.clone();
            tokio::spawn(async move {
                if let Err(e) = read_pg(&pool, &tables, &tx).await {
                    let _ = tx.send(Err(e)).await;
                }
            })
        }
    };
    (rx, reader)
}

/// Reads every listed table of a PostgreSQL database in one repeatable-read transaction (one
/// snapshot of them all), through a cursor per table.
async fn read_pg(
    pool: &PgPool,
    tables: &[(String, Vec<Column>)],
    out: &tokio::sync::mpsc::Sender<Result<Option<Vec<Vec<Value>>>>>,
) -> Result<()> {
    let mut tx = pool.begin().await?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .execute(&mut *tx)
        .await?;
    for (table, cols) in tables {
        let names: Vec<String> = cols.iter().map(|c| format!("\"{}\"", c.name)).collect();
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DECLARE copy_source NO SCROLL CURSOR FOR SELECT {} FROM \"{table}\"",
            names.join(", ")
        )))
        .execute(&mut *tx)
        .await
        .map_err(|e| StoreError::Copy(format!("{table} in the source: {e}")))?;
        let fetch = format!("FETCH {} FROM copy_source", batch_rows(cols.len()));
        loop {
            // not prepared: each table's cursor has its own columns
            let rows = sqlx::query(sqlx::AssertSqlSafe(fetch.clone()))
                .persistent(false)
                .fetch_all(&mut *tx)
                .await?;
            if rows.is_empty() {
                break;
            }
            let batch = rows
                .iter()
                .map(|row| {
                    cols.iter()
                        .enumerate()
                        .map(|(i, c)| from_pg(table, c, row, i))
                        .collect::<Result<Vec<_>>>()
                })
                .collect::<Result<Vec<_>>>()?;
            if out.send(Ok(Some(batch))).await.is_err() {
                return Ok(());
            }
        }
        sqlx::query("CLOSE copy_source").execute(&mut *tx).await?;
        if out.send(Ok(None)).await.is_err() {
            return Ok(());
        }
    }
    tx.rollback().await?;
    Ok(())
}

fn pg_pool(db: &Db) -> Result<&PgPool> {
    match db {
        Db::Postgres(p) => Ok(p),
        Db::Sqlite(..) => Err(StoreError::Copy(
            "the destination must be a PostgreSQL database (postgres://...)".into(),
        )),
    }
}

/// Rows per statement: within PostgreSQL's 65535 parameters, and at most 500.
fn batch_rows(columns: usize) -> usize {
    (60_000 / columns.max(1)).clamp(1, 500)
}

/// Reads every listed table of a SQLite file in one read transaction, sending each table's
/// rows in batches (a batch of `None` ends a table). Runs on a blocking thread.
fn read_sqlite(
    path: PathBuf,
    tables: Vec<(String, Vec<Column>)>,
    out: tokio::sync::mpsc::Sender<Result<Option<Vec<Vec<Value>>>>>,
) {
    let run = || -> Result<()> {
        let conn = rusqlite::Connection::open_with_flags(
            &path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.execute_batch("BEGIN")?;
        for (table, cols) in &tables {
            let list: Vec<String> = cols.iter().map(|c| format!("\"{}\"", c.name)).collect();
            let mut stmt = conn
                .prepare(&format!("SELECT {} FROM \"{table}\"", list.join(", ")))
                .map_err(|e| StoreError::Copy(format!("{table} in the source: {e}")))?;
            let mut rows = stmt.query([])?;
            let size = batch_rows(cols.len());
            let mut batch = Vec::with_capacity(size);
            while let Some(row) = rows.next()? {
                let mut values = Vec::with_capacity(cols.len());
                for (i, c) in cols.iter().enumerate() {
                    values.push(from_sqlite(table, c, row.get_ref(i)?)?);
                }
                batch.push(values);
                if batch.len() == size
                    && out
                        .blocking_send(Ok(Some(std::mem::replace(
                            &mut batch,
                            Vec::with_capacity(size),
                        ))))
                        .is_err()
                {
                    return Ok(());
                }
            }
            if !batch.is_empty() && out.blocking_send(Ok(Some(batch))).is_err() {
                return Ok(());
            }
            if out.blocking_send(Ok(None)).is_err() {
                return Ok(());
            }
        }
        conn.execute_batch("COMMIT")?;
        Ok(())
    };
    if let Err(e) = run() {
        let _ = out.blocking_send(Err(e));
    }
}

fn bind<'q>(
    q: sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>,
    kind: Kind,
    v: Value,
) -> sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments> {
    match (kind, v) {
        (Kind::Uuid, Value::Uuid(u)) => q.bind(u),
        (Kind::Uuid, _) => q.bind(None::<uuid::Uuid>),
        (Kind::Bool, Value::Bool(b)) => q.bind(b),
        (Kind::Bool, _) => q.bind(None::<bool>),
        (Kind::BigInt, Value::Int(i)) => q.bind(i),
        (Kind::BigInt, _) => q.bind(None::<i64>),
        (Kind::Int, Value::Int(i)) => q.bind(i32::try_from(i).ok()),
        (Kind::Int, _) => q.bind(None::<i32>),
        (Kind::Double, Value::Double(f)) => q.bind(f),
        (Kind::Double, _) => q.bind(None::<f64>),
        (Kind::Text, Value::Text(s)) => q.bind(s),
        (Kind::Text, _) => q.bind(None::<String>),
        (Kind::Json, Value::Json(j)) => q.bind(sqlx::types::Json(j)),
        (Kind::Json, _) => q.bind(None::<sqlx::types::Json<serde_json::Value>>),
        (Kind::Bytes, Value::Bytes(b)) => q.bind(b),
        (Kind::Bytes, _) => q.bind(None::<Vec<u8>>),
    }
}

/// Copies every table of the database `from` (SQLite, or PostgreSQL such as a plain install
/// moving onto Citus) into the PostgreSQL database `to`, which
/// must hold no account yet. Both must be migrated to this build's schema. `progress` hears
/// each table's name and its rows when the table is done. All or nothing: the destination is
/// written in one transaction.
pub async fn into_postgres(
    from: &Db,
    to: &Db,
    progress: &(dyn Fn(&str, u64) + Sync),
) -> Result<Vec<Copied>> {
    let pool = pg_pool(to)?;
    let accounts: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM accounts")
        .fetch_one(pool)
        .await?;
    if accounts > 0 {
        return Err(StoreError::Copy(format!(
            "the destination holds {accounts} account(s) already; copy moves an installation into an empty database"
        )));
    }
    let tables = pg_tables(pool).await?;
    let (mut rx, reader) = read_source(from, &tables);
    let mut tx = pool.begin().await?;
    if crate::citus::on_citus(pool) {
        // the reference tables (users) are written in the same transaction as the
        // distributed ones: one connection a worker, as Citus asks
        sqlx::query("SET LOCAL citus.multi_shard_modify_mode TO 'sequential'")
            .execute(&mut *tx)
            .await?;
        // the maintained counts' triggers are turned off on the shards too (they fire there)
        sqlx::query("SET LOCAL citus.enable_unsafe_triggers = on")
            .execute(&mut *tx)
            .await?;
    }
    for (table, _) in &tables {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "ALTER TABLE \"{table}\" DISABLE TRIGGER USER"
        )))
        .execute(&mut *tx)
        .await?;
        sqlx::query(sqlx::AssertSqlSafe(format!("DELETE FROM \"{table}\"")))
            .execute(&mut *tx)
            .await?;
    }
    let mut out = Vec::new();
    for (table, cols) in &tables {
        let names: Vec<String> = cols.iter().map(|c| format!("\"{}\"", c.name)).collect();
        let mut rows = 0u64;
        loop {
            let Some(msg) = rx.recv().await else {
                return Err(StoreError::Copy("the source reader stopped".into()));
            };
            let Some(batch) = msg? else { break };
            let mut n = 0;
            let marks: Vec<String> = batch
                .iter()
                .map(|_| {
                    let row: Vec<String> = cols
                        .iter()
                        .map(|_| {
                            n += 1;
                            format!("${n}")
                        })
                        .collect();
                    format!("({})", row.join(", "))
                })
                .collect();
            let sql = format!(
                "INSERT INTO \"{table}\" ({}) VALUES {}",
                names.join(", "),
                marks.join(", ")
            );
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            let count = batch.len() as u64;
            for row in batch {
                for (c, v) in cols.iter().zip(row) {
                    q = bind(q, c.kind, v);
                }
            }
            q.execute(&mut *tx)
                .await
                .map_err(|e| StoreError::Copy(format!("writing {table}: {e}")))?;
            rows += count;
        }
        progress(table, rows);
        out.push(Copied {
            table: table.clone(),
            rows,
        });
    }
    for (table, _) in &tables {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "ALTER TABLE \"{table}\" ENABLE TRIGGER USER"
        )))
        .execute(&mut *tx)
        .await?;
    }
    reader
        .await
        .map_err(|e| StoreError::Copy(format!("the source reader failed: {e}")))?;
    tx.commit().await?;
    Ok(out)
}

/// The number of rows and an order-free digest of them (a sum of each row's hash).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Digest {
    rows: u64,
    sum: u64,
}

impl Digest {
    fn add(&mut self, row: &[Value]) {
        // `DefaultHasher::new` has fixed keys: the same row hashes the same in both readings
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for v in row {
            v.digest(&mut h);
        }
        self.rows += 1;
        self.sum = self.sum.wrapping_add(h.finish());
    }
}

/// Compares every table of the database `from` (SQLite or PostgreSQL) with the PostgreSQL
/// database `to`: the same rows (every column's value, in any order) or not.
pub async fn compare(from: &Db, to: &Db) -> Result<Vec<TableCheck>> {
    let pool = pg_pool(to)?;
    let tables = pg_tables(pool).await?;
    let (mut rx, reader) = read_source(from, &tables);
    let mut source_digests = Vec::new();
    let mut d = Digest::default();
    while let Some(msg) = rx.recv().await {
        match msg? {
            Some(batch) => batch.iter().for_each(|r| d.add(r)),
            None => source_digests.push(std::mem::take(&mut d)),
        }
    }
    reader
        .await
        .map_err(|e| StoreError::Copy(format!("reading the source failed: {e}")))?;
    let mut out = Vec::new();
    let mut conn = pool.begin().await?;
    for ((table, cols), from_d) in tables.iter().zip(source_digests) {
        let names: Vec<String> = cols.iter().map(|c| format!("\"{}\"", c.name)).collect();
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DECLARE copy_check NO SCROLL CURSOR FOR SELECT {} FROM \"{table}\"",
            names.join(", ")
        )))
        .execute(&mut *conn)
        .await?;
        let mut d = Digest::default();
        loop {
            // not prepared: each table's cursor has its own columns, and a prepared FETCH
            // would keep the first table's
            let rows = sqlx::query("FETCH 1000 FROM copy_check")
                .persistent(false)
                .fetch_all(&mut *conn)
                .await?;
            if rows.is_empty() {
                break;
            }
            for row in &rows {
                let values = cols
                    .iter()
                    .enumerate()
                    .map(|(i, c)| from_pg(table, c, row, i))
                    .collect::<Result<Vec<_>>>()?;
                d.add(&values);
            }
        }
        sqlx::query("CLOSE copy_check").execute(&mut *conn).await?;
        out.push(TableCheck {
            table: table.clone(),
            rows_from: from_d.rows,
            rows_to: d.rows,
            same: from_d == d,
        });
    }
    conn.rollback().await?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_digests_ignore_key_order_and_spacing() {
        let a: serde_json::Value =
            serde_json::from_str(r#"{"b": [1, {"y": 2, "x": 1}], "a": null}"#).unwrap();
        let b: serde_json::Value =
            serde_json::from_str(r#"{"a":null,"b":[1,{"x":1,"y":2}]}"#).unwrap();
        assert_eq!(canonical(&a), canonical(&b));
        let (mut x, mut y) = (Digest::default(), Digest::default());
        x.add(&[Value::Json(a), Value::Int(1)]);
        y.add(&[Value::Json(b), Value::Int(1)]);
        assert_eq!(x, y);
        let mut z = Digest::default();
        z.add(&[Value::Json(serde_json::json!({"a": 1})), Value::Int(1)]);
        assert_ne!(x, z);
    }

    #[test]
    fn rows_per_statement_stay_within_the_parameter_limit() {
        for cols in [1, 7, 30, 200, 60_000] {
            let n = batch_rows(cols);
            assert!(n >= 1 && n * cols <= 65_535, "{cols}: {n}");
        }
    }
}
