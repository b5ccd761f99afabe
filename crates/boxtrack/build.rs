//! Records the commit the binary is built from, for `--version` and the start-up log line:
//! `BOXTRACK_COMMIT` when the builder sets it (a Docker build without `.git`), else the
//! checkout's `git describe`, else `unknown` (a source archive).

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=BOXTRACK_COMMIT");
    let commit = std::env::var("BOXTRACK_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| {
            let out = Command::new("git")
                .args(["describe", "--always", "--exclude", "*"])
                .output()
                .ok()?;
            out.status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
                .filter(|c| !c.is_empty())
        })
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=BOXTRACK_COMMIT={commit}");
    // a new commit or a checkout of another branch changes HEAD or the ref it points at
    if let Ok(out) = Command::new("git")
        .args(["rev-parse", "--git-dir"])
        .output()
        && out.status.success()
    {
        let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/refs/heads");
    }
}
