//! One list query for every resource: account scope, filters, keyset or offset paging, total.
//!
//! Rows are ordered newest first by `(sort column, id)`. A cursor from a `links` entry seeks on
//! that pair (an index range scan whose cost does not grow with the page number); a bare page
//! number falls back to an offset.

use boxtrack_core::paging::{Cursor, Key, Page};
use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use sqlx::{AssertSqlSafe, FromRow};
use uuid::Uuid;

use crate::{Db, Result, on_db};

/// A value bound to a `?` in a filter condition.
#[derive(Debug, Clone)]
pub enum Arg {
    /// An integer (times are microseconds).
    I64(i64),
    /// Text.
    Text(String),
    /// A UUID.
    Uuid(Uuid),
    /// A boolean.
    Bool(bool),
}

/// A SQL condition with `?` markers and the values for them, in order.
#[derive(Debug, Clone)]
pub struct Cond {
    pub(crate) sql: std::borrow::Cow<'static, str>,
    pub(crate) args: Vec<Arg>,
}

impl Cond {
    /// A condition such as `status = ?` with its arguments.
    pub fn new(sql: &'static str, args: Vec<Arg>) -> Cond {
        Cond {
            sql: std::borrow::Cow::Borrowed(sql),
            args,
        }
    }

    /// A condition whose text is made at run time (`?` markers for a list of values).
    pub fn owned(sql: String, args: Vec<Arg>) -> Cond {
        Cond {
            sql: std::borrow::Cow::Owned(sql),
            args,
        }
    }

    /// A condition assembled from static fragments only (never from input): the SQL of a
    /// closed set of columns and comparisons.
    pub(crate) fn assembled(sql: String, args: Vec<Arg>) -> Cond {
        Cond {
            sql: std::borrow::Cow::Owned(sql),
            args,
        }
    }
}

/// What to list: the table, the columns to read, the ordering column and the filters.
#[derive(Debug, Clone)]
pub struct ListSpec {
    /// Table (or join) to read from; static text only.
    pub from: &'static str,
    /// Column list for the row type; a subquery in it names the account as `{account}` (the
    /// first condition's parameter).
    pub columns: &'static str,
    /// The integer microsecond column (or expression) that orders the list; a subquery in it
    /// names the account as `{account}` (the first condition's parameter).
    pub sort_col: &'static str,
    /// Oldest first instead of the default newest first.
    pub ascending: bool,
    /// The id column (the tie breaker).
    pub id_col: &'static str,
    /// Filters, all of which must hold.
    pub conds: Vec<Cond>,
}

/// Matching rows are counted up to this many per request, so a filtered list costs the same
/// in an account of a million rows as in one of ten thousand; past it the total is a lower
/// bound ([`Listed::total_exact`] is false). Unfiltered lists of shipments, containers and
/// tracking requests read the account's maintained count instead ([`list_counted`]).
pub const COUNT_CAP: u64 = 10_000;

/// One page of rows plus the total count of matching rows.
#[derive(Debug, Clone)]
pub struct Listed<T> {
    /// The rows of this page, newest first.
    pub rows: Vec<T>,
    /// How many rows match in all (exact, or a lower bound when more than [`COUNT_CAP`]
    /// match and the list has no maintained count).
    pub total: u64,
    /// Whether `total` is exact.
    pub total_exact: bool,
    /// Whether rows follow this page in the list's order.
    pub has_next: bool,
}

/// A row that can report its own sort key (for the cursors in links).
pub trait Keyed {
    /// The `(sort_us, id)` of this row.
    fn key(&self) -> Key;
}

struct Built {
    sql: String,
    pub(crate) args: Vec<Arg>,
}

fn render(parts: &[(&str, &[Arg])], tail: &str) -> Built {
    let mut sql = String::new();
    let mut args = Vec::new();
    for (text, part_args) in parts {
        let mut it = part_args.iter();
        for ch in text.chars() {
            if ch == '?'
                && let Some(a) = it.next()
            {
                args.push(a.clone());
                sql.push_str(&format!("${}", args.len()));
                continue;
            }
            sql.push(ch);
        }
    }
    sql.push_str(tail);
    Built { sql, args }
}

fn where_parts(spec: &ListSpec) -> Vec<(String, Vec<Arg>)> {
    spec.conds
        .iter()
        .map(|c| (c.sql.to_string(), c.args.clone()))
        .collect()
}

macro_rules! bind_all {
    ($q:expr, $args:expr) => {{
        let mut q = $q;
        for a in $args {
            q = match a {
                Arg::I64(v) => q.bind(v),
                Arg::Text(v) => q.bind(v),
                Arg::Uuid(v) => q.bind(v),
                Arg::Bool(v) => q.bind(v),
            };
        }
        q
    }};
}

/// Lists one page of `spec`.
pub async fn list<T>(db: &Db, spec: &ListSpec, page: &Page) -> Result<Listed<T>>
where
    T: for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow> + Send + Unpin + Keyed,
{
    list_counted(db, spec, page, None).await
}

/// Lists one page of `spec`; with `counted` (a resource of `account_counts` and the account),
/// the total is that maintained count instead of a count of the rows: only for specs whose
/// one condition is the account scope.
pub async fn list_counted<T>(
    db: &Db,
    spec: &ListSpec,
    page: &Page,
    counted: Option<(&'static str, Uuid)>,
) -> Result<Listed<T>>
where
    T: for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow> + Send + Unpin + Keyed,
{
    let (count, select) = statements(spec, spec.columns, page, counted);
    let (total, rows): (i64, Vec<T>) = on_db!(db, p => {
        let total: i64 = bind_all!(sqlx::query_scalar(AssertSqlSafe(count.sql)), count.args)
            .fetch_one(p)
            .await?;
        let rows: Vec<T> = bind_all!(sqlx::query_as(AssertSqlSafe(select.sql)), select.args)
            .fetch_all(p)
            .await?;
        (total, rows)
    });
    Ok(listed(rows, total, page, counted))
}

/// The furthest page (in rows skipped) an unfiltered list is read in place.
const IN_PLACE_OFFSET: u64 = 300;

/// [`list_counted`], read in place on SQLite (one read transaction on the calling thread,
/// see `sqlite_reader`) with `columns` instead of the spec's, each row made by `row` (which
/// may read more on the same connection); through the pool on PostgreSQL, while SQLite is
/// busy, and for a list whose cost is not bounded by its page: a filtered one (its count
/// walks up to [`COUNT_CAP`] rows) or one far down by page number (its offset is walked),
/// which would hold the calling thread, a runtime worker, for as long.
pub(crate) async fn list_counted_in_place<T>(
    db: &Db,
    spec: &ListSpec,
    page: &Page,
    counted: Option<(&'static str, Uuid)>,
    (columns, row): InPlace<T>,
) -> Result<Listed<T>>
where
    T: for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow> + Send + Unpin + Keyed,
{
    if !bounded(page, counted.is_some()) {
        return list_counted(db, spec, page, counted).await;
    }
    let (count, select) = statements(spec, columns, page, counted);
    let read = crate::sqlite_reader::in_place(db, |c| {
        crate::sqlite_reader::snapshot(c, || {
            let total: i64 = c
                .prepare_cached(&count.sql)?
                .query_row(rusqlite::params_from_iter(&count.args), |r| r.get(0))?;
            let mut stmt = c.prepare_cached(&select.sql)?;
            let rows = stmt
                .query_map(rusqlite::params_from_iter(&select.args), |r| row(c, r))?
                .collect::<rusqlite::Result<Vec<T>>>()?;
            Ok((total, rows))
        })
    });
    match read {
        Some(read) => {
            let (total, rows) = read?;
            Ok(listed(rows, total, page, counted))
        }
        None => list_counted(db, spec, page, counted).await,
    }
}

/// Whether a list's cost is bounded by its page: unfiltered (`counted`: its total is a
/// maintained count) and by cursor or within [`IN_PLACE_OFFSET`] rows.
fn bounded(page: &Page, counted: bool) -> bool {
    counted && (page.cursor.is_some() || page.offset() <= IN_PLACE_OFFSET)
}

/// The columns a list reads in place on SQLite, and how a row of them is made (on the
/// connection that read it, which it may read more with).
pub(crate) type InPlace<T> = (
    &'static str,
    fn(&rusqlite::Connection, &rusqlite::Row<'_>) -> rusqlite::Result<T>,
);

impl rusqlite::ToSql for Arg {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        match self {
            Arg::I64(v) => v.to_sql(),
            Arg::Text(v) => v.to_sql(),
            Arg::Uuid(v) => v.to_sql(),
            Arg::Bool(v) => v.to_sql(),
        }
    }
}

/// `sql` with the account written `{account}` as the list's first parameter (copied only
/// where it names it).
fn with_account(sql: &str) -> std::borrow::Cow<'_, str> {
    if sql.contains("{account}") {
        std::borrow::Cow::Owned(sql.replace("{account}", "$1"))
    } else {
        std::borrow::Cow::Borrowed(sql)
    }
}

/// The count's statement and the page's, reading `columns` (`$1`… numbered in order of
/// appearance, which SQLite binds by position as well).
fn statements(
    spec: &ListSpec,
    columns: &str,
    page: &Page,
    counted: Option<(&'static str, Uuid)>,
) -> (Built, Built) {
    let conds = where_parts(spec);
    let count = match counted {
        Some((resource, account)) => Built {
            sql: "SELECT COALESCE((SELECT n FROM account_counts WHERE account_id = $1 AND resource = $2), 0)".into(),
            args: vec![Arg::Uuid(account), Arg::Text(resource.into())],
        },
        None => {
            let mut parts: Vec<(String, Vec<Arg>)> = Vec::new();
            parts.push((format!("SELECT 1 FROM {} WHERE 1=1", spec.from), vec![]));
            for (sql, args) in &conds {
                parts.push((format!(" AND ({sql})"), args.clone()));
            }
            let borrowed: Vec<(&str, &[Arg])> = parts
                .iter()
                .map(|(s, a)| (s.as_str(), a.as_slice()))
                .collect();
            let capped = render(&borrowed, &format!(" LIMIT {}", COUNT_CAP + 1));
            Built {
                sql: format!("SELECT COUNT(*) FROM ({}) AS capped", capped.sql),
                args: capped.args,
            }
        }
    };

    // a column's or the order's subquery names the account as `{account}`: the first
    // condition's parameter, the account scope every account list starts with
    // (`ListSpec::conds`); on Citus such a subquery stays on the account's shard
    let (sort, id) = (with_account(spec.sort_col), spec.id_col);
    let mut parts: Vec<(String, Vec<Arg>)> = Vec::new();
    let columns = with_account(columns);
    parts.push((
        format!("SELECT {columns} FROM {} WHERE 1=1", spec.from),
        vec![],
    ));
    for (sql, args) in &conds {
        parts.push((format!(" AND ({sql})"), args.clone()));
    }
    let reversed = matches!(page.cursor, Some(Cursor::Before(_)));
    // "after" a row is further along the list's order: older when newest first, newer when
    // oldest first
    let (past, back) = if spec.ascending {
        (">", "<")
    } else {
        ("<", ">")
    };
    match page.cursor {
        Some(Cursor::After(k)) => parts.push((
            format!(" AND (({sort}, {id}) {past} (?, ?))"),
            vec![Arg::I64(k.sort_us), Arg::Uuid(Uuid::from_bytes(k.id))],
        )),
        Some(Cursor::Before(k)) => parts.push((
            format!(" AND (({sort}, {id}) {back} (?, ?))"),
            vec![Arg::I64(k.sort_us), Arg::Uuid(Uuid::from_bytes(k.id))],
        )),
        None => {}
    }
    let order = if reversed != spec.ascending {
        "ASC"
    } else {
        "DESC"
    };
    let offset = if page.cursor.is_none() {
        page.offset()
    } else {
        0
    };
    // one row more than the page, to know whether another page follows
    let tail = format!(
        " ORDER BY {sort} {order}, {id} {order} LIMIT {} OFFSET {offset}",
        u64::from(page.size) + 1
    );
    let borrowed: Vec<(&str, &[Arg])> = parts
        .iter()
        .map(|(s, a)| (s.as_str(), a.as_slice()))
        .collect();
    (count, render(&borrowed, &tail))
}

/// The page of `rows` (read one past the page's size) and the count read with them.
fn listed<T>(
    mut rows: Vec<T>,
    total: i64,
    page: &Page,
    counted: Option<(&'static str, Uuid)>,
) -> Listed<T> {
    let reversed = matches!(page.cursor, Some(Cursor::Before(_)));
    let more = rows.len() > page.size as usize;
    rows.truncate(page.size as usize);
    if reversed {
        rows.reverse();
    }
    // paging back from a later page: that page follows
    let has_next = more || reversed;
    let counted_rows = u64::try_from(total).unwrap_or(0);
    let total_exact = counted.is_some() || counted_rows <= COUNT_CAP;
    let total = if total_exact {
        counted_rows
    } else {
        // at least the rows up to the end of this page, and one more if a page follows
        let seen = page.offset() + rows.len() as u64 + u64::from(has_next);
        COUNT_CAP.max(seen)
    };
    Listed {
        rows,
        total,
        total_exact,
        has_next,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_lists_bounded_by_their_page_are_read_in_place() {
        let page = |number: u32, cursor: Option<Cursor>| Page {
            number,
            size: 30,
            cursor,
        };
        let key = Key {
            sort_us: 1,
            id: [0; 16],
        };
        assert!(bounded(&page(1, None), true));
        assert!(bounded(&page(11, None), true), "300 rows skipped");
        assert!(!bounded(&page(12, None), true), "330 rows skipped");
        assert!(bounded(&page(1, Some(Cursor::After(key))), true));
        assert!(bounded(&page(1, Some(Cursor::Before(key))), true));
        assert!(!bounded(&page(1, None), false), "a filtered list's count");
    }

    #[test]
    fn placeholders_are_numbered_across_parts() {
        let a = [Arg::I64(1)];
        let b = [Arg::Text("x".into()), Arg::Bool(true)];
        let built = render(&[("a = ?", &a), (" AND b = ? AND c = ?", &b)], " LIMIT 3");
        assert_eq!(built.sql, "a = $1 AND b = $2 AND c = $3 LIMIT 3");
        assert_eq!(built.args.len(), 3);
    }
}
