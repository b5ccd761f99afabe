//! Storage for boxtrack on SQLite (the embedded default) or PostgreSQL (scale-out).
//!
//! One repository layer serves both backends: [`Db`] wraps a concrete sqlx pool and the
//! [`on_db!`] macro runs the same SQL text (with `$n` placeholders, which both drivers accept)
//! against whichever pool is live (statements built at run time take their placeholders from
//! `sql::Marks`, which writes `?` on SQLite, where sqlx binds numbered ones in quadratic time). Only the DDL differs, in `migrations/sqlite` and
//! `migrations/postgres`. Times used for ordering are integer Unix microseconds.

pub mod accounts;
pub mod ais;
pub mod changes;
pub mod charges;
pub mod citus;
mod citus_delivery;
pub mod copy;
pub mod custom_fields;
pub mod db;
pub mod documents;
pub mod early;
pub mod entries;
pub mod events;
pub mod files;
pub mod gauges;
pub mod keys;
pub mod list;
pub mod notifications;
pub mod oauth;
pub mod parties;
pub mod payloads;
pub mod publishable;
pub mod ratelimit;
pub mod ratelimit_redis;
pub mod reads;
pub mod rendered;
pub mod replicas;
pub mod retention;
pub mod sandbox;
pub mod sessions;
mod sql;
pub mod sqlite_reader;
pub mod sqlite_writer;
pub mod subjects;
pub mod tracking;
pub mod webhooks;

pub use db::{Backend, Db, SqliteSide, Tx};

/// Errors from the storage layer.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database URL names no supported backend.
    #[error("unsupported database URL {0:?}: expected sqlite://PATH or postgres://...")]
    UnsupportedUrl(String),
    /// A row that must exist does not (or belongs to another account).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// A unique rule was broken (e.g. a live tracking request for the same number).
    #[error("duplicate {0}")]
    Duplicate(&'static str),
    /// The account's plan allows no more active containers.
    #[error("the plan allows at most {limit} active containers")]
    PlanLimit {
        /// The limit.
        limit: u32,
    },
    /// A stored value could not be decoded.
    #[error("corrupt stored value in {what}: {detail}")]
    Corrupt {
        /// Which column or value.
        what: &'static str,
        /// Why it could not be read.
        detail: String,
    },
    /// Creating the SQLite file's folder failed.
    #[error("cannot create the database folder {path}: {source}")]
    Io {
        /// The folder.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A migration failed.
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// Any other database error.
    #[error("database error: {0}")]
    Sqlx(#[from] sqlx::Error),
    /// An error of the SQLite writer connection (see [`sqlite_writer`]).
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// Copying an installation between databases failed (see [`copy`]).
    #[error("copy: {0}")]
    Copy(String),
    /// The first connection to PostgreSQL failed; the text names the cause (see
    /// [`db::describe_pg_failure`]).
    #[error("{0}")]
    Connect(String),
    /// The object store of documents failed (see [`files`]).
    #[error("document store: {0}")]
    Files(String),
    /// Deleting an account could not finish (see [`accounts::delete`]); nothing was deleted.
    #[error("deleting the account: {0}")]
    Delete(String),
    /// The Redis server that holds shared rate-limit windows failed or is unreachable.
    #[error("the rate-limit store (Redis) failed: {0}")]
    Redis(#[from] redis::RedisError),
    /// The SQLite delivery writer could not start, has stopped, or a cycle on it panicked.
    #[error("the database writer stopped: {0}")]
    Writer(String),
    /// Another process runs the background work on this SQLite file (see
    /// [`Db::lock_worker`]).
    #[error(
        "another boxtrack process is already serving {path} (it holds {lock}): a SQLite file \
         takes one `serve` or `demo` at a time, because its deliverer claims notifications \
         without leases; stop the other process, or use PostgreSQL to run several"
    )]
    WorkerLocked {
        /// The database file.
        path: String,
        /// The lock file.
        lock: String,
    },
    /// Read replicas cannot be used as configured (see [`replicas`]).
    #[error("read replicas: {0}")]
    Replicas(String),
    /// The schema could not be laid out on a Citus cluster (see [`citus`]).
    #[error("Citus: {0}")]
    Citus(String),
    /// The worker lock file could not be opened or locked.
    #[error("cannot lock {path}: {source}")]
    LockFile {
        /// The lock file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
}

/// Whether a database error is a broken unique rule (a duplicate), on either backend.
pub(crate) fn unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_unique_violation())
}

/// A condition of the database, not of the request, that keeps it from answering now: the
/// API answers 503 for these rather than 500.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unavailable {
    /// The database cannot be reached: refused or broken connections, no free connection
    /// in time, the server shutting down or starting.
    Unreachable,
    /// The database or its disk is full, or its storage refuses writes (SQLite `SQLITE_FULL`
    /// and `SQLITE_IOERR`, PostgreSQL `53100`).
    Full,
    /// The database is locked by another writer for longer than the busy timeout.
    Busy,
}

impl StoreError {
    /// Whether this error is a database condition that a later retry may not meet
    /// (`None`: an error of this request or a defect).
    pub fn unavailable(&self) -> Option<Unavailable> {
        match self {
            StoreError::Sqlx(e) => sqlx_unavailable(e),
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(f, _)) => {
                unavailable_code(&f.extended_code.to_string())
            }
            StoreError::Connect(_) => Some(Unavailable::Unreachable),
            _ => None,
        }
    }
}

fn sqlx_unavailable(e: &sqlx::Error) -> Option<Unavailable> {
    match e {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::WorkerCrashed => Some(Unavailable::Unreachable),
        sqlx::Error::Database(d) => d.code().and_then(|c| unavailable_code(&c)),
        _ => None,
    }
}

/// The condition a database error code names: a PostgreSQL SQLSTATE (five characters) or a
/// SQLite result code (a number, extended codes included).
pub fn unavailable_code(code: &str) -> Option<Unavailable> {
    // a SQLSTATE has five characters, often all digits; SQLite's codes have at most four
    if code.len() != 5
        && let Ok(n) = code.parse::<i64>()
    {
        // SQLite: the primary code is the low byte of an extended one
        return match n & 0xff {
            // SQLITE_FULL (ENOSPC); SQLITE_IOERR (a write refused: EFBIG past a file-size
            // limit or quota, EIO)
            13 | 10 => Some(Unavailable::Full),
            5 | 6 => Some(Unavailable::Busy),
            14 => Some(Unavailable::Unreachable),
            _ => None,
        };
    }
    match code {
        // disk_full, out_of_memory, insufficient_resources
        "53100" | "53200" | "53000" => Some(Unavailable::Full),
        // too_many_connections, admin/crash shutdown, cannot_connect_now, database_dropped
        "53300" | "57P01" | "57P02" | "57P03" | "57P04" => Some(Unavailable::Unreachable),
        // connection exceptions
        c if c.starts_with("08") => Some(Unavailable::Unreachable),
        _ => None,
    }
}

/// Result alias for the storage layer.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// A PostgreSQL transaction.
pub(crate) type PgTx = sqlx::Transaction<'static, sqlx::Postgres>;

/// The current time in Unix microseconds.
pub fn now_us() -> i64 {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    i64::try_from(d.as_micros()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_conditions_are_told_from_request_errors() {
        assert_eq!(unavailable_code("13"), Some(Unavailable::Full));
        assert_eq!(unavailable_code("5"), Some(Unavailable::Busy));
        // SQLITE_IOERR_WRITE: a write past the file-size limit
        assert_eq!(unavailable_code("778"), Some(Unavailable::Full));
        // SQLITE_BUSY_SNAPSHOT, an extended code of SQLITE_BUSY
        assert_eq!(unavailable_code("517"), Some(Unavailable::Busy));
        assert_eq!(unavailable_code("2067"), None, "a unique constraint");
        assert_eq!(unavailable_code("19"), None, "a constraint");
        assert_eq!(unavailable_code("53100"), Some(Unavailable::Full));
        assert_eq!(unavailable_code("08006"), Some(Unavailable::Unreachable));
        assert_eq!(unavailable_code("57P01"), Some(Unavailable::Unreachable));
        assert_eq!(unavailable_code("23505"), None, "unique_violation");
        assert_eq!(
            unavailable_code("40001"),
            None,
            "serialization_failure is retried inside"
        );
        assert_eq!(
            StoreError::Sqlx(sqlx::Error::PoolTimedOut).unavailable(),
            Some(Unavailable::Unreachable)
        );
        assert_eq!(StoreError::NotFound("x").unavailable(), None);
    }
}
