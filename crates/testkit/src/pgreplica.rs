//! A PostgreSQL primary and a streaming replica of it, made for one test in a temporary folder
//! with the server binaries of the machine (`initdb`, `pg_ctl`, `pg_basebackup`; Debian keeps
//! them in `/usr/lib/postgresql/<version>/bin`, `PG_BIN` names another folder).
//!
//! The primary is initialised with `trust` authentication and a `pg_hba.conf` line that lets
//! `127.0.0.1` replicate; the replica is a `pg_basebackup -R` of it (which writes
//! `standby.signal` and the connection to follow). Both listen on free ports of `127.0.0.1`
//! with their sockets in the folder. PostgreSQL refuses to run as root: when the tests run as
//! root the commands run as the `postgres` user (`runuser`), and the folder is given to it.
//! Dropped, the pair stops both servers (immediately) and removes the folder, also when the
//! test failed.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A primary and its streaming replica, stopped and removed on drop.
pub struct ReplicaPair {
    /// `postgres://postgres@127.0.0.1:PORT/postgres` of the primary.
    pub primary_url: String,
    /// The same of the replica.
    pub replica_url: String,
    bin: PathBuf,
    root: PathBuf,
    as_postgres: bool,
}

/// The folder of the server binaries: `PG_BIN`, or the newest Debian one.
fn bin_dir() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|b| b.join("pg_basebackup").exists())
        .collect();
    versions.sort();
    versions.pop()
}

/// A port of 127.0.0.1 nobody listens on now.
fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    l.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

impl ReplicaPair {
    /// Makes and starts the pair; `Err` says why it cannot be made here (no binaries, a
    /// command that failed), for the test to print and skip.
    pub fn start() -> Result<ReplicaPair, String> {
        let bin = bin_dir().ok_or("no PostgreSQL server binaries (set PG_BIN)")?;
        for tool in ["initdb", "pg_ctl", "pg_basebackup"] {
            if !bin.join(tool).exists() {
                return Err(format!("{} has no {tool}", bin.display()));
            }
        }
        let root = crate::temp_dir("boxtrack-pgreplica");
        let mut pair = ReplicaPair {
            primary_url: String::new(),
            replica_url: String::new(),
            bin,
            root,
            as_postgres: running_as_root(),
        };
        pair.make()?;
        Ok(pair)
    }

    fn make(&mut self) -> Result<(), String> {
        if self.as_postgres {
            // the folder (and the temporary folder above it) must be the postgres user's
            run(Command::new("chown").arg("postgres").arg(&self.root))?;
        }
        let primary = self.root.join("primary");
        let replica = self.root.join("replica");
        self.tool("initdb")
            .args(["--auth=trust", "-U", "postgres", "-D"])
            .arg(&primary)
            .run()?;
        let hba = primary.join("pg_hba.conf");
        let mut lines = std::fs::read_to_string(&hba).map_err(|e| e.to_string())?;
        lines.push_str("\nhost replication all 127.0.0.1/32 trust\n");
        std::fs::write(&hba, lines).map_err(|e| e.to_string())?;
        let primary_port = free_port()?;
        self.start_server(&primary, primary_port)?;
        self.tool("pg_basebackup")
            .args(["-R", "-h", "127.0.0.1", "-U", "postgres", "-p"])
            .arg(primary_port.to_string())
            .arg("-D")
            .arg(&replica)
            .run()?;
        let replica_port = free_port()?;
        self.start_server(&replica, replica_port)?;
        self.primary_url = format!("postgres://postgres@127.0.0.1:{primary_port}/postgres");
        self.replica_url = format!("postgres://postgres@127.0.0.1:{replica_port}/postgres");
        Ok(())
    }

    fn start_server(&self, data: &Path, port: u16) -> Result<(), String> {
        let options = format!(
            "-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} -c fsync=off",
            self.root.display()
        );
        self.tool("pg_ctl")
            .args(["-w", "-t", "60", "-D"])
            .arg(data)
            .arg("-l")
            .arg(data.with_extension("log"))
            .args(["-o", &options, "start"])
            .run()
    }

    /// Stops the replica at once, as a crash would (`pg_ctl stop -m immediate`).
    pub fn stop_replica(&self) -> Result<(), String> {
        self.stop(&self.root.join("replica"))
    }

    fn stop(&self, data: &Path) -> Result<(), String> {
        self.tool("pg_ctl")
            .args(["-w", "-m", "immediate", "-D"])
            .arg(data)
            .arg("stop")
            .run()
    }

    /// A command of the server binaries, run as the postgres user when this is root.
    fn tool(&self, name: &str) -> Tool {
        let path = self.bin.join(name);
        let mut c = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(path);
            c
        } else {
            Command::new(path)
        };
        c.current_dir(&self.root);
        Tool(c)
    }
}

/// A command whose failure is its output.
struct Tool(Command);

impl Tool {
    fn args<I, S>(mut self, args: I) -> Tool
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.0.args(args);
        self
    }

    fn arg(mut self, arg: impl AsRef<std::ffi::OsStr>) -> Tool {
        self.0.arg(arg);
        self
    }

    fn run(mut self) -> Result<(), String> {
        run(&mut self.0)
    }
}

fn run(c: &mut Command) -> Result<(), String> {
    let out = c.output().map_err(|e| format!("{c:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{c:?} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

impl Drop for ReplicaPair {
    fn drop(&mut self) {
        for node in ["replica", "primary"] {
            let data = self.root.join(node);
            if data.join("postmaster.pid").exists() {
                let _ = self.stop(&data);
            }
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
