//! Storage tests that need a real database.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use boxtrack_store::Db;

/// `table -> column -> nullable` as the database reports it.
async fn columns(db: &Db) -> BTreeMap<String, BTreeMap<String, bool>> {
    let rows: Vec<(String, String, bool)> = match db {
        Db::Sqlite(p) => {
            let tables: Vec<String> = sqlx::query_scalar(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_sqlx%'",
            )
            .fetch_all(p)
            .await
            .unwrap();
            let mut out = Vec::new();
            for t in tables {
                let cols: Vec<(String, i64, i64)> = sqlx::query_as(
                    "SELECT name, \"notnull\", pk FROM pragma_table_info($1)",
                )
                .bind(&t)
                .fetch_all(p)
                .await
                .unwrap();
                for (c, notnull, pk) in cols {
                    out.push((t.clone(), c, notnull == 0 && pk == 0));
                }
            }
            out
        }
        Db::Postgres(p) => sqlx::query_as(
            "SELECT table_name::text, column_name::text, is_nullable = 'YES' FROM information_schema.columns \
             WHERE table_schema = current_schema() AND table_name NOT LIKE '_sqlx%'",
        )
        .fetch_all(p)
        .await
        .unwrap(),
    };
    let mut map: BTreeMap<String, BTreeMap<String, bool>> = BTreeMap::new();
    for (t, c, n) in rows {
        map.entry(t).or_default().insert(c, n);
    }
    map
}

/// Both migration folders define the same tables, columns and nullability.
#[tokio::test]
async fn sqlite_and_postgres_schemas_agree() {
    let dir = boxtrack_testkit::temp_dir("boxtrack-schema");
    let sqlite = Db::connect(&format!("sqlite://{}", dir.join("s.db").display()))
        .await
        .unwrap();
    sqlite.migrate().await.unwrap();
    let lite = columns(&sqlite).await;
    assert!(
        lite.contains_key("accounts") && lite.contains_key("api_keys"),
        "{lite:?}"
    );
    if boxtrack_testkit::on_postgres() {
        let database = boxtrack_testkit::fresh().await;
        let pg = Db::connect(&database.url).await.unwrap();
        pg.migrate().await.unwrap();
        assert_eq!(columns(&pg).await, lite);
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Migrations can run again on an up-to-date database (every `serve` start does this).
#[tokio::test]
async fn migrations_are_idempotent() {
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    db.migrate().await.unwrap();
    db.ping().await.unwrap();
}
