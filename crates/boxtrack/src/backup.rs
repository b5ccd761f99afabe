//! `backup`, `restore` and `copy`: keep an installation safe, and move it from SQLite to
//! PostgreSQL when it outgrows one machine.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use boxtrack_store::{Backend, Db};
use clap::Args;

use crate::server::open_db;

/// Flags of `backup`.
#[derive(Args, Debug)]
pub struct BackupArgs {
    /// The file to write (it must not exist). SQLite: a consistent copy made while the server
    /// runs. PostgreSQL: a pg_dump archive (custom format) of boxtrack's schema.
    #[arg(long, value_name = "FILE")]
    to: PathBuf,
}

/// Flags of `restore`.
#[derive(Args, Debug)]
pub struct RestoreArgs {
    /// A file `boxtrack backup` wrote.
    #[arg(long, value_name = "FILE")]
    from: PathBuf,
    /// Replace a database that exists (SQLite: the current file is kept beside it as
    /// FILE.replaced-TIMESTAMP; PostgreSQL: pg_restore --clean drops boxtrack's tables first).
    #[arg(long)]
    force: bool,
}

/// Flags of `copy`.
#[derive(Args, Debug)]
pub struct CopyArgs {
    /// The installation to copy: sqlite://PATH, or postgres://… (a plain PostgreSQL install
    /// moving onto Citus). Stop its servers first: what they write after the copy's snapshot
    /// is not copied.
    #[arg(long, value_name = "URL")]
    from: String,
    /// An empty PostgreSQL database to copy into: postgres://USER:PASSWORD@HOST/DB.
    #[arg(long, value_name = "URL")]
    to: String,
    /// Skip the comparison of every table after the copy.
    #[arg(long)]
    no_verify: bool,
}

fn sqlite_file(url: &str) -> Option<PathBuf> {
    url.strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .map(|rest| PathBuf::from(rest.split('?').next().unwrap_or_default()))
}

fn size(path: &Path) -> String {
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    format!("{:.1} MiB", bytes as f64 / 1_048_576.0)
}

/// Why a PostgreSQL client tool could not be started, and what to install.
fn not_runnable(tool: &str, e: &std::io::Error) -> anyhow::Error {
    anyhow::anyhow!(
        "cannot run {tool} ({e}): install PostgreSQL's client tools (Debian: apt install postgresql-client), in the server's major version or newer"
    )
}

/// Runs a PostgreSQL client tool, saying what to install when it is missing.
fn run_tool(tool: &str, args: &[&str]) -> anyhow::Result<()> {
    let status = Command::new(tool)
        .args(args)
        .status()
        .map_err(|e| not_runnable(tool, &e))?;
    if !status.success() {
        bail!("{tool} failed ({status}); its message is above");
    }
    Ok(())
}

/// `boxtrack backup --to FILE`.
pub async fn backup(url: &str, args: &BackupArgs) -> anyhow::Result<()> {
    if args.to.exists() {
        bail!(
            "{} exists already; give a new file name (a backup never overwrites one)",
            args.to.display()
        );
    }
    crate::server::require_existing(url)?;
    let db = open_db(url).await?;
    let shown = boxtrack_store::db::redact_url(url);
    match db.backend() {
        Backend::Sqlite => {
            db.backup_sqlite(&args.to)
                .await
                .with_context(|| format!("cannot back up {shown}"))?;
            db.close().await;
            let version = boxtrack_store::db::check_sqlite_file(&args.to)?;
            println!(
                "backed up {shown} to {} ({}, schema version {version}, integrity ok)",
                args.to.display(),
                size(&args.to)
            );
        }
        Backend::Postgres => {
            let schema = db.current_schema().await?;
            db.close().await;
            let file = args.to.display().to_string();
            run_tool(
                "pg_dump",
                &[
                    "--format=custom",
                    "--no-owner",
                    &format!("--schema={schema}"),
                    &format!("--file={file}"),
                    &format!("--dbname={url}"),
                ],
            )?;
            println!(
                "backed up {shown} (schema {schema}) to {file} ({}) with pg_dump; boxtrack restore --from {file} puts it back",
                size(&args.to)
            );
        }
    }
    Ok(())
}

/// `boxtrack restore --from FILE`.
pub async fn restore(url: &str, args: &RestoreArgs) -> anyhow::Result<()> {
    if !args.from.is_file() {
        bail!("no backup at {}", args.from.display());
    }
    let shown = boxtrack_store::db::redact_url(url);
    match sqlite_file(url) {
        Some(target) => {
            let version = boxtrack_store::db::check_sqlite_file(&args.from).with_context(|| {
                format!(
                    "{} is not a backup boxtrack can restore",
                    args.from.display()
                )
            })?;
            let latest = boxtrack_store::db::latest_migration(Backend::Sqlite);
            if version > latest {
                bail!(
                    "{} has schema version {version}, newer than this boxtrack knows ({latest}): restore it with the version that wrote it",
                    args.from.display()
                );
            }
            if target.exists() {
                if !args.force {
                    bail!(
                        "{} exists; --force replaces it (the current file is kept beside it)",
                        target.display()
                    );
                }
                // a running server holds the worker lock: restoring under it would lose writes
                let current = Db::connect(url).await?;
                let lock = current.lock_worker();
                current.close().await;
                lock.context("stop boxtrack serve before restoring")?;
            }
            // a new install restores into a folder that may not exist yet
            if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot make the folder {}", dir.display()))?;
            }
            let staged = target.with_extension("restoring");
            std::fs::copy(&args.from, &staged)
                .with_context(|| format!("cannot write {}", staged.display()))?;
            std::fs::File::open(&staged)?.sync_all()?;
            if target.exists() {
                let stamp = boxtrack_core::time::format_micros(boxtrack_store::now_us())
                    .replace([':', '-'], "");
                let kept = PathBuf::from(format!("{}.replaced-{stamp}", target.display()));
                std::fs::rename(&target, &kept)?;
                println!("kept the replaced database as {}", kept.display());
            }
            for suffix in ["-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", target.display()));
            }
            std::fs::rename(&staged, &target)?;
            let db = open_db(url).await?;
            let now = db.schema_version().await?;
            db.close().await;
            println!(
                "restored {} into {shown} (schema version {version}{})",
                args.from.display(),
                if now > version {
                    format!(", migrated to {now}")
                } else {
                    String::new()
                }
            );
        }
        None => {
            let file = args.from.display().to_string();
            let mut argv = vec!["--no-owner", "--exit-on-error"];
            if args.force {
                argv.extend(["--clean", "--if-exists"]);
                // pg_restore's --clean cannot drop a partition's inherited key: the
                // partitioned tables go first, with their partitions
                let db = boxtrack_store::Db::connect(url)
                    .await
                    .with_context(|| format!("cannot open database {shown}"))?;
                boxtrack_store::retention::drop_partitioned_tables(&db).await?;
                db.close().await;
            }
            // the schema itself is not restored but made where missing: dropping and making
            // `public` again fails where an extension lives in it (Citus's does)
            let list = restore_list(&args.from, url).await?;
            let use_list = format!("--use-list={}", list.path.display());
            argv.push(&use_list);
            let dbname = format!("--dbname={}", with_unsafe_triggers(url));
            argv.push(&dbname);
            argv.push(&file);
            run_tool("pg_restore", &argv)?;
            let db = open_db(url).await?;
            db.close().await;
            println!("restored {file} into {shown} with pg_restore");
        }
    }
    Ok(())
}

/// `url` with `citus.enable_unsafe_triggers` on for its sessions: on Citus, `pg_restore
/// --clean` drops the row-count triggers of distributed tables, which Citus refuses unless
/// told it may. A placeholder setting, ignored on plain PostgreSQL. (A URL's `options` win
/// over `PGOPTIONS`, so the setting goes into the URL.)
fn with_unsafe_triggers(url: &str) -> String {
    const SET: &str = "-c%20citus.enable_unsafe_triggers%3Don";
    if url.contains("options=") {
        url.replacen("options=", &format!("options={SET}%20"), 1)
    } else {
        let sep = if url.contains('?') { '&' } else { '?' };
        format!("{url}{sep}options={SET}")
    }
}

/// A `pg_restore --use-list` file, removed on drop.
struct RestoreList {
    path: PathBuf,
}

impl Drop for RestoreList {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The archive's table of contents without its schemas (which are made here where missing),
/// written to a temporary file for `pg_restore --use-list`.
async fn restore_list(archive: &Path, url: &str) -> anyhow::Result<RestoreList> {
    let out = Command::new("pg_restore")
        .arg("--list")
        .arg(archive)
        .output()
        .map_err(|e| not_runnable("pg_restore", &e))?;
    if !out.status.success() {
        bail!(
            "pg_restore cannot read {}: {}",
            archive.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let (kept, schemas) = without_schemas(&String::from_utf8_lossy(&out.stdout));
    let db = Db::connect(url).await.context("cannot open the database")?;
    for schema in &schemas {
        db.create_schema_if_missing(schema).await?;
    }
    db.close().await;
    let path = std::env::temp_dir().join(format!("boxtrack-restore-{}.list", uuid::Uuid::new_v4()));
    std::fs::write(&path, kept).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(RestoreList { path })
}

/// A `pg_restore --list` without the entries that make or comment on a schema, and the
/// schemas they named.
fn without_schemas(list: &str) -> (String, Vec<String>) {
    let mut schemas = Vec::new();
    let mut kept = String::new();
    for line in list.lines() {
        if let Some((_, rest)) = line.split_once(" SCHEMA - ") {
            schemas.extend(rest.split_whitespace().next().map(str::to_string));
            continue;
        }
        if line.contains(" COMMENT - SCHEMA ") {
            continue;
        }
        kept.push_str(line);
        kept.push('\n');
    }
    (kept, schemas)
}

/// `boxtrack copy --from sqlite://… --to postgres://…`.
pub async fn copy(args: &CopyArgs) -> anyhow::Result<()> {
    let is_pg = |url: &str| url.starts_with("postgres://") || url.starts_with("postgresql://");
    match sqlite_file(&args.from) {
        Some(path) if !path.is_file() => bail!("no database at {}", path.display()),
        Some(_) => {}
        None if is_pg(&args.from) => {}
        None => bail!("--from must be sqlite://PATH or postgres://USER:PASSWORD@HOST/DB"),
    }
    if !is_pg(&args.to) {
        bail!("--to must be postgres://USER:PASSWORD@HOST/DB, an empty database");
    }
    if args.from == args.to {
        bail!("--from and --to name the same database");
    }
    let from = open_db(&args.from).await?;
    // holding the worker lock keeps a server off the source while it is read
    let _lock = from
        .lock_worker()
        .context("stop boxtrack serve on the source first: a running server keeps writing")?;
    let to = open_db(&args.to).await?;
    let started = std::time::Instant::now();
    let progress = |table: &str, rows: u64| println!("  {table:<28} {rows:>10} rows");
    println!(
        "copying {} to {}",
        boxtrack_store::db::redact_url(&args.from),
        boxtrack_store::db::redact_url(&args.to)
    );
    let copied = boxtrack_store::copy::into_postgres(&from, &to, &progress).await?;
    let rows: u64 = copied.iter().map(|c| c.rows).sum();
    println!(
        "copied {rows} rows in {} tables in {:.1} s",
        copied.len(),
        started.elapsed().as_secs_f64()
    );
    if !args.no_verify {
        let checks = boxtrack_store::copy::compare(&from, &to).await?;
        let differing: Vec<_> = checks.iter().filter(|c| !c.same).collect();
        if !differing.is_empty() {
            for c in &differing {
                eprintln!(
                    "  {} differs: {} rows in the source, {} in the copy",
                    c.table, c.rows_from, c.rows_to
                );
            }
            bail!(
                "the copy differs from the source in {} table(s)",
                differing.len()
            );
        }
        println!(
            "verified: every table of the copy holds the same rows as the source ({} tables)",
            checks.len()
        );
    }
    from.close().await;
    to.close().await;
    println!(
        "next: run boxtrack serve --database-url {} (keep the source until you are satisfied)",
        boxtrack_store::db::redact_url(&args.to)
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_restore_connects_with_unsafe_triggers_allowed_beside_its_own_options() {
        assert_eq!(
            with_unsafe_triggers("postgres://h/db"),
            "postgres://h/db?options=-c%20citus.enable_unsafe_triggers%3Don"
        );
        assert_eq!(
            with_unsafe_triggers("postgres://h/db?sslmode=require"),
            "postgres://h/db?sslmode=require&options=-c%20citus.enable_unsafe_triggers%3Don"
        );
        assert_eq!(
            with_unsafe_triggers("postgres://h/db?options=-c%20search_path%3Dt1"),
            "postgres://h/db?options=-c%20citus.enable_unsafe_triggers%3Don%20-c%20search_path%3Dt1"
        );
    }

    #[test]
    fn a_restore_list_leaves_out_the_schema_and_its_comment() {
        let list = ";\n; Archive created at 2026-12-07\n5; 2615 2200 SCHEMA - public pg_database_owner\n4232; 0 0 COMMENT - SCHEMA public pg_database_owner\n220; 1259 16390 TABLE public accounts root\n";
        let (kept, schemas) = without_schemas(list);
        assert_eq!(schemas, vec!["public".to_string()]);
        assert!(!kept.contains("SCHEMA"), "{kept}");
        assert!(kept.contains("TABLE public accounts root"), "{kept}");
    }
}
