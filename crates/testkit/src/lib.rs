//! Test support: every test gets a database of its own.
//!
//! Without `DATABASE_URL` (or with a `sqlite:` one) a test gets a new SQLite file in a
//! temporary folder. With `DATABASE_URL=postgres://…` it gets a new schema in that database,
//! addressed through the connection's `search_path`, so tests never see each other's rows.

pub mod modules;
pub mod pgreplica;
pub mod proxy;

use std::path::PathBuf;

use sqlx::Connection;

/// A fresh database for one test; the SQLite folder is removed on drop.
pub struct TestDatabase {
    /// URL to hand to `Db::connect` or to `boxtrack --database-url`.
    pub url: String,
    dir: Option<PathBuf>,
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        if let Some(d) = &self.dir {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// Whether the suite runs against PostgreSQL.
pub fn on_postgres() -> bool {
    std::env::var("DATABASE_URL").is_ok_and(|u| u.starts_with("postgres"))
}

/// A new empty folder under the system temporary directory.
pub fn temp_dir(prefix: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{prefix}-{}", uuid::Uuid::new_v4().simple()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("cannot create {}: {e}", dir.display());
    }
    dir
}

/// Creates a database for one test.
pub async fn fresh() -> TestDatabase {
    match std::env::var("DATABASE_URL") {
        Ok(base) if base.starts_with("postgres") => {
            let schema = format!("t_{}", uuid::Uuid::new_v4().simple());
            let mut conn = match sqlx::PgConnection::connect(&base).await {
                Ok(c) => c,
                Err(e) => panic!("DATABASE_URL is set but PostgreSQL is not reachable: {e}"),
            };
            let sql = format!("CREATE SCHEMA {schema}");
            if let Err(e) = sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(&mut conn)
                .await
            {
                panic!("cannot create schema {schema}: {e}");
            }
            let _ = conn.close().await;
            let sep = if base.contains('?') { '&' } else { '?' };
            TestDatabase {
                url: format!("{base}{sep}options=-c%20search_path%3D{schema}"),
                dir: None,
            }
        }
        _ => {
            let dir = temp_dir("boxtrack-test");
            TestDatabase {
                url: format!("sqlite://{}", dir.join("test.db").display()),
                dir: Some(dir),
            }
        }
    }
}
