//! The connection pool over either backend, transactions, and migrations.

use std::str::FromStr;
use std::time::Duration;

use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{PgPool, Postgres, Sqlite, SqlitePool, Transaction};

use crate::{Result, StoreError};

/// A pool on the configured backend.
#[derive(Clone, Debug)]
pub enum Db {
    /// The embedded default: a pool, and the connections used without it (see [`SqliteSide`]).
    Sqlite(SqlitePool, std::sync::Arc<SqliteSide>),
    /// PostgreSQL for several processes.
    Postgres(PgPool),
}

/// What a SQLite database uses beside its pool: the connection delivery cycles write
/// through (see [`crate::notifications::cycle`]) and the connections point reads use in place
/// (see [`crate::sqlite_reader`]).
#[derive(Debug)]
pub struct SqliteSide {
    pub(crate) writer: crate::sqlite_writer::SqliteWriter,
    pub(crate) reader: crate::sqlite_reader::SqliteReader,
}

/// Which backend a [`Db`] talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// SQLite.
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

impl Backend {
    /// `sqlite` or `postgres`.
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }
}

/// The lock a process holds while it runs the background work on a SQLite file (taken by
/// [`Db::lock_worker`]); released when dropped or when the process ends, however it ends.
#[derive(Debug)]
pub struct WorkerLock {
    _file: std::fs::File,
    path: std::path::PathBuf,
}

impl WorkerLock {
    /// The lock file.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }
}

/// Checks that the file at `path` is a whole SQLite database of boxtrack's (`PRAGMA
/// integrity_check` is `ok`) and returns its schema version (the newest migration applied).
pub fn check_sqlite_file(path: &std::path::Path) -> Result<i64> {
    let conn = rusqlite::Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let verdict: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0))?;
    if verdict != "ok" {
        return Err(StoreError::Copy(format!(
            "{} is damaged: {verdict}",
            path.display()
        )));
    }
    let version: Option<i64> = conn
        .query_row("SELECT MAX(version) FROM _sqlx_migrations", [], |r| {
            r.get(0)
        })
        .map_err(|_| {
            StoreError::Copy(format!(
                "{} is a SQLite file but not a boxtrack database (no migration record)",
                path.display()
            ))
        })?;
    Ok(version.unwrap_or(0))
}

/// The newest migration this build knows for `backend`.
pub fn latest_migration(backend: Backend) -> i64 {
    let m = match backend {
        Backend::Sqlite => sqlx::migrate!("./migrations/sqlite"),
        Backend::Postgres => sqlx::migrate!("./migrations/postgres"),
    };
    m.iter().map(|m| m.version).max().unwrap_or(0)
}

/// The worker lock file of the SQLite database at `db_path`: `<db_path>.worker-lock`.
pub fn worker_lock_path(db_path: &std::path::Path) -> std::path::PathBuf {
    let mut name = db_path.as_os_str().to_owned();
    name.push(".worker-lock");
    std::path::PathBuf::from(name)
}

/// A transaction on either backend. SQLite write transactions start with `BEGIN IMMEDIATE`.
pub enum Tx {
    /// SQLite.
    Sqlite(Transaction<'static, Sqlite>),
    /// PostgreSQL.
    Postgres(Transaction<'static, Postgres>),
}

/// Runs the same expression against whichever pool (or transaction) is live.
///
/// `on_db!(db, p => sqlx::query(SQL).execute(p).await?.rows_affected())`: every arm must
/// produce a backend-neutral type.
#[macro_export]
macro_rules! on_db {
    ($db:expr, $pool:ident => $body:expr) => {
        match $db {
            $crate::Db::Sqlite($pool, _) => $body,
            $crate::Db::Postgres($pool) => $body,
        }
    };
}

/// Like [`on_db!`] for a [`Tx`]; the binding is `&mut *transaction`.
#[macro_export]
macro_rules! on_tx {
    ($tx:expr, $conn:ident => $body:expr) => {
        match $tx {
            $crate::Tx::Sqlite(t) => {
                let $conn = &mut **t;
                $body
            }
            $crate::Tx::Postgres(t) => {
                let $conn = &mut **t;
                $body
            }
        }
    };
}

/// A PostgreSQL condition that holds for a table of the catalog that is not a partition of
/// another (`schema` and `table` name the columns, e.g. `c.table_schema`, `c.table_name`):
/// catalog walks (account deletion, copies, schema checks) see a partitioned table once, as
/// its parent, never its monthly partitions.
pub fn pg_not_a_partition(schema: &str, table: &str) -> String {
    format!(
        "NOT EXISTS (SELECT 1 FROM pg_inherits pi JOIN pg_class pc ON pc.oid = pi.inhrelid \
         JOIN pg_namespace pn ON pn.oid = pc.relnamespace WHERE pc.relname = {table} AND pn.nspname = {schema})"
    )
}

/// Redacts the password of a database URL for logs and messages.
pub fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let userinfo = &url[scheme_end + 3..at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme_end + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

/// How often the SQLite write-ahead log is copied into the database.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);

/// Copies the SQLite write-ahead log into the database every `every` until the pool closes.
///
/// SQLite's own automatic checkpoint runs inside the commit that grows the log past 1 000
/// pages, so one writer's commit in every few hundred took 5–10 ms longer (the copy and an
/// fsync); the delivery lane, which is the single writer of the delivery path, waited for
/// it. A passive checkpoint on another connection does the same copy without holding up
/// writers or readers. A crash loses nothing: the log is replayed when the file is opened.
async fn checkpoints(pool: SqlitePool, every: Duration) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if pool.is_closed() {
            return;
        }
        if let Err(e) = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
            .execute(&pool)
            .await
        {
            if pool.is_closed() {
                return;
            }
            tracing::warn!(error = %e, "SQLite checkpoint failed; will retry");
        }
    }
}

impl Db {
    /// Opens a pool for `sqlite://PATH` (the file and its folder are created when missing;
    /// WAL journal) or `postgres://…`; a request waits at most ten seconds for a connection.
    pub async fn connect(url: &str) -> Result<Db> {
        Self::connect_waiting(url, Duration::from_secs(10)).await
    }

    /// As [`Db::connect`], a request waiting at most `acquire` for a connection of the pool.
    pub async fn connect_waiting(url: &str, acquire: Duration) -> Result<Db> {
        Self::connect_pool(url, None, acquire).await
    }

    /// As [`Db::connect_waiting`], with at most `size` connections in the pool (`None`: 8 on
    /// SQLite, whose writer is a connection of its own, and 16 on PostgreSQL).
    pub async fn connect_pool(url: &str, size: Option<u32>, acquire: Duration) -> Result<Db> {
        if let Some(rest) = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
        {
            let path = rest.split('?').next().unwrap_or_default();
            if path.is_empty() {
                return Err(StoreError::UnsupportedUrl(url.to_string()));
            }
            if let Some(dir) = std::path::Path::new(path)
                .parent()
                .filter(|d| path != ":memory:" && !d.as_os_str().is_empty())
            {
                std::fs::create_dir_all(dir).map_err(|source| StoreError::Io {
                    path: dir.display().to_string(),
                    source,
                })?;
            }
            let opts = SqliteConnectOptions::from_str(&format!("sqlite://{rest}"))?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .busy_timeout(Duration::from_secs(10))
                .foreign_keys(true)
                // 8 MiB of page cache per reading connection (SQLite's default is 2 MiB; the
                // delivery writer keeps 32 MiB): eight readers' caches stay within 64 MiB of
                // the process's memory, and what they miss comes from the operating system's
                // file cache. (Mapping the file instead, `mmap_size`, did not make bench-read
                // faster on a 2.4 GB database through these connections and counted every
                // mapped page once per connection in the resident size operators watch; the
                // point reads in place, `sqlite_reader`, map the file's first 256 MiB.)
                .pragma("cache_size", "-8192")
                // rows a statement's thread may run ahead of the reader (sqlx's default is
                // 50): with fewer, a claim of 256 rows stalls the connection's thread once per
                // row after the 50th, each time waiting for the reader to take one
                .row_buffer_size(1024);
            // no checkpoint inside a writer's commit: `checkpoints` copies the log into the
            // database beside the writers (see there); SQLite's own stays on where that task
            // cannot run
            let runtime = tokio::runtime::Handle::try_current().ok();
            let opts = match runtime {
                Some(_) => opts.pragma("wal_autocheckpoint", "0"),
                None => opts,
            };
            let writer = crate::sqlite_writer::SqliteWriter::start(
                opts.get_filename().to_path_buf(),
                runtime.is_none(),
            )?;
            let reader = crate::sqlite_reader::SqliteReader::new(opts.get_filename().to_path_buf());
            let pool = SqlitePoolOptions::new()
                .max_connections(size.unwrap_or(8))
                .acquire_timeout(acquire)
                .connect_with(opts)
                .await?;
            if let Some(rt) = runtime {
                rt.spawn(checkpoints(pool.clone(), CHECKPOINT_EVERY));
            }
            Ok(Db::Sqlite(
                pool,
                std::sync::Arc::new(SqliteSide { writer, reader }),
            ))
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let opts = PgConnectOptions::from_str(url)?;
            // one connection first, so that a server that refuses, a wrong password or a
            // missing database is one line naming the cause, not a pool's 10-second timeout
            match tokio::time::timeout(CONNECT_TIMEOUT, PgConnection::connect_with(&opts)).await {
                Ok(Ok(c)) => {
                    let _ = c.close().await;
                }
                Ok(Err(e)) => {
                    return Err(StoreError::Connect(describe_pg_failure(
                        &pg_failure(&e),
                        &opts,
                    )));
                }
                Err(_) => {
                    return Err(StoreError::Connect(describe_pg_failure(
                        &PgFailure::Timeout,
                        &opts,
                    )));
                }
            }
            let pool = pg_pool_options(size.unwrap_or(16), acquire)
                .connect_with(opts)
                .await?;
            // statements that Citus plans otherwise choose by it (`citus::on_citus`), in a
            // process that did not migrate too
            crate::citus::is_citus(&pool).await?;
            Ok(Db::Postgres(pool))
        } else {
            Err(StoreError::UnsupportedUrl(redact_url(url)))
        }
    }

    /// Takes the right to run the background work (tracking requests, webhook deliveries) on
    /// this database, for as long as the returned lock lives.
    ///
    /// On SQLite that right is exclusive: the deliverer claims notifications by reading the
    /// due index past its own last claim, without writing a lease (one writer per file makes
    /// a lease pure cost), so a second process delivering from the same file would send some
    /// notifications twice. The lock is an advisory file lock on `<file>.worker-lock`, which
    /// the kernel releases when the process ends, even by SIGKILL, so a crashed process never
    /// leaves it behind. A second `serve` gets [`StoreError::WorkerLocked`] and starts nothing.
    /// PostgreSQL needs no lock (`Ok(None)`): workers there share the work through row leases.
    /// In-memory SQLite databases are private to their process and need none either.
    pub fn lock_worker(&self) -> Result<Option<WorkerLock>> {
        let Db::Sqlite(pool, _) = self else {
            return Ok(None);
        };
        let db_path = pool.connect_options().get_filename().to_path_buf();
        if db_path.as_os_str().is_empty() || db_path.as_os_str() == ":memory:" {
            return Ok(None);
        }
        let path = worker_lock_path(&db_path);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|source| StoreError::LockFile {
                path: path.display().to_string(),
                source,
            })?;
        match file.try_lock() {
            Ok(()) => Ok(Some(WorkerLock { _file: file, path })),
            Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::WorkerLocked {
                path: db_path.display().to_string(),
                lock: path.display().to_string(),
            }),
            Err(std::fs::TryLockError::Error(source)) => Err(StoreError::LockFile {
                path: path.display().to_string(),
                source,
            }),
        }
    }

    /// Which backend this pool talks to.
    pub fn backend(&self) -> Backend {
        match self {
            Db::Sqlite(..) => Backend::Sqlite,
            Db::Postgres(_) => Backend::Postgres,
        }
    }

    /// Applies every pending migration of this backend. On SQLite, a migration that applied
    /// is followed by an `ANALYZE` of at most a thousand rows per index, so the query planner
    /// knows the indexes a migration added (it keeps no statistics by itself; without them it
    /// may walk an account's every row through an older index).
    pub async fn migrate(&self) -> Result<()> {
        match self {
            Db::Sqlite(p, _) => {
                let applied = || async {
                    sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM _sqlx_migrations")
                        .fetch_one(p)
                        .await
                        .unwrap_or(0)
                };
                let before = applied().await;
                sqlx::migrate!("./migrations/sqlite").run(p).await?;
                if applied().await != before {
                    sqlx::raw_sql("PRAGMA analysis_limit = 1000; ANALYZE;")
                        .execute(p)
                        .await?;
                }
            }
            Db::Postgres(p) => {
                sqlx::migrate!("./migrations/postgres").run(p).await?;
                if crate::citus::is_citus(p).await? {
                    crate::citus::lay_out(p).await?;
                }
            }
        }
        Ok(())
    }

    /// Applies the migrations up to `version` only: for tests that build an install as an
    /// older release left it and then upgrade it with [`Db::migrate`].
    pub async fn migrate_to(&self, version: i64) -> Result<()> {
        match self {
            Db::Sqlite(p, _) => {
                sqlx::migrate!("./migrations/sqlite")
                    .run_to(version, p)
                    .await?
            }
            Db::Postgres(p) => {
                sqlx::migrate!("./migrations/postgres")
                    .run_to(version, p)
                    .await?
            }
        }
        Ok(())
    }

    /// Makes the PostgreSQL schema `name` where it is missing (a restore into a database
    /// that does not have it yet); nothing on SQLite.
    pub async fn create_schema_if_missing(&self, name: &str) -> Result<()> {
        if let Db::Postgres(p) = self {
            let quoted = format!("\"{}\"", name.replace('"', "\"\""));
            let sql = format!("CREATE SCHEMA IF NOT EXISTS {quoted}");
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql)).execute(p).await?;
        }
        Ok(())
    }

    /// The newest migration applied (its number, e.g. 36), 0 before any.
    pub async fn schema_version(&self) -> Result<i64> {
        let v: Option<i64> = on_db!(self, p => sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations")
            .fetch_one(p)
            .await?);
        Ok(v.unwrap_or(0))
    }

    /// The migrations this build knows and whether each is applied: `(version, description,
    /// applied)`, oldest first.
    pub async fn migration_status(&self) -> Result<Vec<(i64, String, bool)>> {
        let applied: Vec<i64> = on_db!(self, p => sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success")
            .fetch_all(p)
            .await
            .unwrap_or_default());
        let known = match self {
            Db::Sqlite(..) => sqlx::migrate!("./migrations/sqlite"),
            Db::Postgres(_) => sqlx::migrate!("./migrations/postgres"),
        };
        let mut out: Vec<(i64, String, bool)> = known
            .iter()
            .map(|m| {
                (
                    m.version,
                    m.description.to_string(),
                    applied.contains(&m.version),
                )
            })
            .collect();
        // applied by a newer boxtrack: this binary must not serve the database
        for v in applied {
            if !known.iter().any(|m| m.version == v) {
                out.push((v, UNKNOWN_MIGRATION.to_string(), true));
            }
        }
        out.sort_by_key(|(v, _, _)| *v);
        Ok(out)
    }

    /// Writes a consistent copy of this SQLite database to `to` while it keeps serving
    /// (`VACUUM INTO`: one read transaction, so the copy is one instant's state; the WAL's
    /// committed pages are included). `to` must not exist. PostgreSQL is backed up with
    /// `pg_dump` instead ([`StoreError::Copy`] here).
    pub async fn backup_sqlite(&self, to: &std::path::Path) -> Result<()> {
        let Db::Sqlite(pool, _) = self else {
            return Err(StoreError::Copy(
                "a PostgreSQL database is backed up with pg_dump".into(),
            ));
        };
        let target = to
            .to_str()
            .ok_or_else(|| StoreError::Copy(format!("{} is not a UTF-8 path", to.display())))?;
        sqlx::query("VACUUM INTO ?")
            .bind(target)
            .execute(pool)
            .await?;
        Ok(())
    }

    /// The schema boxtrack's tables live in: PostgreSQL's current schema (`public` unless the
    /// URL sets a search path), `main` on SQLite.
    pub async fn current_schema(&self) -> Result<String> {
        match self {
            Db::Sqlite(..) => Ok("main".into()),
            Db::Postgres(p) => Ok(sqlx::query_scalar("SELECT current_schema()::text")
                .fetch_one(p)
                .await?),
        }
    }

    /// Round-trips a trivial query (readiness).
    pub async fn ping(&self) -> Result<()> {
        on_db!(self, p => sqlx::query("SELECT 1").execute(p).await.map(|_| ())?);
        Ok(())
    }

    /// Starts a write transaction.
    pub async fn begin(&self) -> Result<Tx> {
        Ok(match self {
            Db::Sqlite(p, _) => Tx::Sqlite(p.begin_with("BEGIN IMMEDIATE").await?),
            Db::Postgres(p) => Tx::Postgres(p.begin().await?),
        })
    }

    /// Closes every connection (on shutdown).
    pub async fn close(&self) {
        on_db!(self, p => p.close().await)
    }
}

impl Tx {
    /// Which backend this transaction runs on.
    pub fn backend(&self) -> Backend {
        match self {
            Tx::Sqlite(_) => Backend::Sqlite,
            Tx::Postgres(_) => Backend::Postgres,
        }
    }

    /// Commits the transaction.
    pub async fn commit(self) -> Result<()> {
        match self {
            Tx::Sqlite(t) => t.commit().await?,
            Tx::Postgres(t) => t.commit().await?,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact_url("postgres://bob:secret@db:5432/x"),
            "postgres://bob:***@db:5432/x"
        );
        assert_eq!(redact_url("postgres://db/x"), "postgres://db/x");
        assert_eq!(redact_url("sqlite://./data/b.db"), "sqlite://./data/b.db");
    }

    #[tokio::test]
    async fn a_migration_from_a_newer_binary_is_reported() {
        let dir = std::env::temp_dir().join(format!("boxtrack-mig-{}", uuid::Uuid::now_v7()));
        let url = format!("sqlite://{}/m.db", dir.display());
        let db = Db::connect(&url).await.unwrap_or_else(|e| panic!("{e}"));
        db.migrate().await.unwrap_or_else(|e| panic!("{e}"));
        let before = db
            .migration_status()
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            before
                .iter()
                .all(|(_, d, applied)| *applied && d != UNKNOWN_MIGRATION)
        );
        if let Db::Sqlite(p, _) = &db {
            sqlx::query("INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (99999, 'from the future', 1, X'00', 0)")
                .execute(p)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let after = db
            .migration_status()
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(after.len(), before.len() + 1);
        assert_eq!(
            after.last().map(|(v, d, _)| (*v, d.as_str())),
            Some((99999, UNKNOWN_MIGRATION))
        );
        db.close().await;
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// The description [`Db::migration_status`] gives a migration the database has applied but
/// this binary does not know (a newer boxtrack applied it).
pub const UNKNOWN_MIGRATION: &str = "applied by a newer boxtrack: unknown to this binary";

/// How long the first connection to PostgreSQL may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The options of every PostgreSQL pool (the primary's and each read replica's): at most
/// `size` connections, a request waiting at most `acquire` for one.
///
/// sqlx checks a connection with a round trip (a `Sync` the server answers) as it takes it
/// from the pool, as well as when it comes back. Skipping the first check for a connection
/// used within the last second was measured (2026-12-05): the rendered container read without
/// the read cache went from 13.5 k to 13.8 k requests a second, within the noise, while a
/// server restart then failed one request for each connection the pool held instead of
/// waiting it out (`faults::a_postgres_restart_that_refuses_connections_delays_requests_then_503s`).
/// The check stays.
pub(crate) fn pg_pool_options(size: u32, acquire: Duration) -> PgPoolOptions {
    PgPoolOptions::new()
        .max_connections(size)
        .acquire_timeout(acquire)
}

/// Why a first connection to PostgreSQL failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PgFailure {
    /// Nothing listens at the address.
    Refused,
    /// The address cannot be reached or resolved.
    Unreachable(String),
    /// No answer in time.
    Timeout,
    /// The password is wrong (SQLSTATE 28P01).
    Password,
    /// The user is not let in: no such role, or pg_hba.conf has no line for it (28000).
    User(String),
    /// The database does not exist (3D000).
    NoDatabase,
    /// Anything else, as the server or the driver said it.
    Other(String),
}

/// Classifies a connection error of the driver.
pub fn pg_failure(e: &sqlx::Error) -> PgFailure {
    match e {
        sqlx::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            PgFailure::Refused
        }
        sqlx::Error::Io(io) => PgFailure::Unreachable(io.to_string()),
        sqlx::Error::PoolTimedOut => PgFailure::Timeout,
        sqlx::Error::Database(d) => match d.code().as_deref() {
            Some("28P01") => PgFailure::Password,
            Some("28000") => PgFailure::User(d.message().to_string()),
            Some("3D000") => PgFailure::NoDatabase,
            _ => PgFailure::Other(d.message().to_string()),
        },
        other => PgFailure::Other(other.to_string()),
    }
}

/// One line that names the cause and what to do about it.
pub fn describe_pg_failure(f: &PgFailure, opts: &PgConnectOptions) -> String {
    let at = format!("{}:{}", opts.get_host(), opts.get_port());
    let user = opts.get_username();
    let db = opts.get_database().unwrap_or(user);
    match f {
        PgFailure::Refused => format!(
            "PostgreSQL at {at} refused the connection: is it running and listening there (listen_addresses, port)?"
        ),
        PgFailure::Unreachable(why) => format!("cannot reach PostgreSQL at {at}: {why}"),
        PgFailure::Timeout => format!(
            "PostgreSQL at {at} did not answer within {} s (a firewall, or the wrong host?)",
            CONNECT_TIMEOUT.as_secs()
        ),
        PgFailure::Password => format!(
            "PostgreSQL at {at} refused the password of user {user:?} (characters such as @ : / in it must be percent-encoded in the URL)"
        ),
        PgFailure::User(msg) => format!(
            "PostgreSQL at {at} did not let user {user:?} in: {msg} (create the role, or allow it in pg_hba.conf)"
        ),
        PgFailure::NoDatabase => format!(
            "database {db:?} does not exist on PostgreSQL at {at}: create it first (CREATE DATABASE {db} OWNER {user};)"
        ),
        PgFailure::Other(msg) => format!("cannot connect to PostgreSQL at {at}: {msg}"),
    }
}

#[cfg(test)]
mod connect_tests {
    use super::*;

    #[test]
    fn each_cause_is_one_line_naming_it() {
        let opts = PgConnectOptions::from_str("postgres://app:secret@db.internal:5433/tracking")
            .unwrap_or_else(|e| panic!("{e}"));
        let line = |f: PgFailure| describe_pg_failure(&f, &opts);
        assert!(line(PgFailure::Refused).contains("db.internal:5433 refused the connection"));
        assert!(line(PgFailure::Password).contains("refused the password of user \"app\""));
        assert!(line(PgFailure::NoDatabase).contains("database \"tracking\" does not exist"));
        assert!(line(PgFailure::NoDatabase).contains("CREATE DATABASE tracking OWNER app"));
        assert!(
            line(PgFailure::User("role \"app\" does not exist".into())).contains("pg_hba.conf")
        );
        assert!(line(PgFailure::Timeout).contains("did not answer within 10 s"));
        for f in [
            PgFailure::Refused,
            PgFailure::Password,
            PgFailure::NoDatabase,
            PgFailure::Timeout,
        ] {
            let l = line(f);
            assert!(!l.contains('\n') && !l.contains("secret"), "{l}");
        }
    }

    #[test]
    fn refused_connections_are_told_apart() {
        let io = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert_eq!(pg_failure(&sqlx::Error::Io(io)), PgFailure::Refused);
        assert_eq!(pg_failure(&sqlx::Error::PoolTimedOut), PgFailure::Timeout);
    }
}
