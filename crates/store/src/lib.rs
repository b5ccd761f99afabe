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
pub mod copy;
pub mod custom_fields;
pub mod db;
pub mod documents;
pub mod events;
pub mod files;
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
pub mod sandbox;
pub mod sessions;
mod sql;
pub mod sqlite_writer;
pub mod subjects;
pub mod tracking;
pub mod webhooks;

pub use db::{Backend, Db, Tx};

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

/// Result alias for the storage layer.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// The current time in Unix microseconds.
pub fn now_us() -> i64 {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    i64::try_from(d.as_micros()).unwrap_or(i64::MAX)
}
