//! The `boxtrack` binary as a user runs it: administration commands, settings errors,
//! `serve` on port 0 and `demo`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;

fn boxtrack(db_url: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_boxtrack"))
        .args(args)
        .arg("--database-url")
        .arg(db_url)
        .env_remove("BOXTRACK_LISTEN")
        .env_remove("BOXTRACK_DATABASE_URL")
        .output()
        .unwrap()
}

fn ok_json(out: Output) -> Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn ok_text(out: Output) -> String {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn failed(out: Output) -> String {
    assert!(
        !out.status.success(),
        "expected failure, got: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stderr).unwrap()
}

struct Running(Child);
impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts a command and waits for its `listening on http://ADDR` line; returns the base URL
/// and every stdout line read up to it.
fn start(cmd: &mut Command) -> (Running, String, Vec<String>) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let running = Running(child);
    let mut lines = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        if let Some(url) = line.strip_prefix("listening on ") {
            let url = url.trim().to_string();
            lines.push(line);
            return (running, url, lines);
        }
        lines.push(line);
    }
    panic!("the process ended without listening: {lines:?}");
}

#[tokio::test]
async fn accounts_and_keys_administration() {
    let db = boxtrack_testkit::fresh().await;
    let created = ok_json(boxtrack(
        &db.url,
        &[
            "accounts",
            "create",
            "--name",
            "Acme Imports",
            "--plan",
            "standard",
            "--entitlements",
            "routing,rail_lfd",
            "--rate-limit",
            "containers.refresh=3",
            "--json",
        ],
    ));
    let account = created["account_id"].as_str().unwrap().to_string();
    let key = created["api_key"].as_str().unwrap().to_string();
    assert!(key.starts_with("btk_"));
    assert_eq!(created["plan"], "standard");

    let shown = ok_json(boxtrack(&db.url, &["accounts", "show", &account, "--json"]));
    assert_eq!(
        shown["entitlements"],
        serde_json::json!(["routing", "rail_lfd"])
    );
    assert_eq!(shown["rate_limits"]["containers.refresh"], 3);
    assert_eq!(shown["rate_limits"]["default"], 100);
    // only a hash is stored: the key never appears again
    assert!(!serde_json::to_string(&shown).unwrap().contains(&key));

    let table = ok_text(boxtrack(&db.url, &["accounts", "list"]));
    assert!(table.starts_with("ACCOUNT ID"), "{table}");
    assert!(table.contains("Acme Imports") && table.contains("standard"));

    let updated = ok_json(boxtrack(
        &db.url,
        &[
            "accounts",
            "update",
            &account,
            "--plan",
            "free",
            "--entitlements",
            "",
            "--json",
        ],
    ));
    assert_eq!(updated["plan"], "free");
    assert_eq!(updated["entitlements"], serde_json::json!([]));

    let second = ok_json(boxtrack(
        &db.url,
        &[
            "keys",
            "create",
            "--account",
            &account,
            "--name",
            "ci",
            "--json",
        ],
    ));
    let second_id = second["key_id"].as_str().unwrap().to_string();
    assert!(second["api_key"].as_str().unwrap().starts_with("btk_"));
    let listed = ok_json(boxtrack(
        &db.url,
        &["keys", "list", "--account", &account, "--json"],
    ));
    assert_eq!(listed.as_array().unwrap().len(), 2);
    let text = ok_text(boxtrack(&db.url, &["keys", "list", "--account", &account]));
    assert!(text.starts_with("KEY ID") && text.contains("ci"), "{text}");

    let revoked = ok_json(boxtrack(&db.url, &["keys", "revoke", &second_id, "--json"]));
    assert!(revoked["revoked_at"].is_string());

    // bad input: clear errors, nothing changed
    let err = failed(boxtrack(
        &db.url,
        &["accounts", "create", "--name", "X", "--plan", "gold"],
    ));
    assert!(
        err.contains("gold") && err.contains("free, standard"),
        "{err}"
    );
    let err = failed(boxtrack(
        &db.url,
        &[
            "accounts",
            "create",
            "--name",
            "X",
            "--entitlements",
            "teleport",
        ],
    ));
    assert!(err.contains("teleport"), "{err}");
    let err = failed(boxtrack(
        &db.url,
        &[
            "accounts",
            "create",
            "--name",
            "X",
            "--rate-limit",
            "bogus=1",
        ],
    ));
    assert!(err.contains("bogus"), "{err}");
    let err = failed(boxtrack(
        &db.url,
        &[
            "keys",
            "create",
            "--account",
            "0190c2a0-0000-7000-8000-000000000000",
        ],
    ));
    assert!(err.contains("no account"), "{err}");
    let err = failed(boxtrack(&db.url, &["keys", "revoke", "nope"]));
    assert!(err.contains("not a UUID"), "{err}");
    let all = ok_json(boxtrack(&db.url, &["accounts", "list", "--json"]));
    assert_eq!(all.as_array().unwrap().len(), 1);
}

#[test]
fn bad_settings_stop_the_start_and_name_the_setting() {
    let dir = boxtrack_testkit::temp_dir("boxtrack-cli");
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_boxtrack"));
        c.current_dir(&dir).args(args);
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    };
    let err = failed(run(&["serve"], &[("BOXTRACK_LISTEN", "nowhere")]));
    assert!(
        err.contains("listen") && err.contains("BOXTRACK_LISTEN"),
        "{err}"
    );
    let err = failed(run(&["serve", "--database-url", "mysql://db/x"], &[]));
    assert!(
        err.contains("database_url") && err.contains("--database-url"),
        "{err}"
    );
    std::fs::write(dir.join("boxtrack.toml"), "log_format = \"xml\"\n").unwrap();
    let err = failed(run(&["serve"], &[]));
    assert!(
        err.contains("log_format") && err.contains("boxtrack.toml"),
        "{err}"
    );
    std::fs::write(dir.join("boxtrack.toml"), "lisen = \"127.0.0.1:1\"\n").unwrap();
    let err = failed(run(&["migrate"], &[]));
    assert!(err.contains("lisen"), "{err}");
    // the environment overrides the file, flags override the environment
    std::fs::write(dir.join("boxtrack.toml"), "log_format = \"xml\"\n").unwrap();
    let out = run(&["migrate"], &[("BOXTRACK_LOG_FORMAT", "json")]);
    let text = ok_text(out);
    assert!(
        text.contains("migrations applied to sqlite://./data/boxtrack.db"),
        "{text}"
    );
    assert!(
        dir.join("data/boxtrack.db").exists(),
        "the default database is created on first start"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn serve_answers_on_port_zero() {
    let db = boxtrack_testkit::fresh().await;
    let created = ok_json(boxtrack(
        &db.url,
        &["accounts", "create", "--name", "A", "--json"],
    ));
    let key = created["api_key"].as_str().unwrap();
    let (_server, base, _) = start(
        Command::new(env!("CARGO_BIN_EXE_boxtrack"))
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--database-url",
                &db.url,
            ])
            .env_remove("BOXTRACK_LISTEN"),
    );
    let client = reqwest::Client::new();
    let ready = client.get(format!("{base}/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200);
    let acct = client
        .get(format!("{base}/v2/account"))
        .header("Authorization", format!("Token {key}"))
        .send()
        .await
        .unwrap();
    assert_eq!(acct.status(), 200);
    let doc: Value = acct.json().await.unwrap();
    assert_eq!(doc["data"]["id"], created["account_id"]);
}

#[tokio::test]
async fn demo_prints_a_working_key_and_moves_off_a_taken_port() {
    let dir = boxtrack_testkit::temp_dir("boxtrack-demo");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken_addr = taken.local_addr().unwrap().to_string();
    let (_demo, base, lines) = start(
        Command::new(env!("CARGO_BIN_EXE_boxtrack"))
            .current_dir(&dir)
            .args(["demo", "--listen", &taken_addr])
            .env_remove("BOXTRACK_DATABASE_URL"),
    );
    let text = lines.join("\n");
    assert!(text.contains("is already in use"), "{text}");
    assert_ne!(base, format!("http://{taken_addr}"));
    assert!(dir.join("boxtrack-demo/boxtrack.db").exists());
    let key = lines
        .iter()
        .find_map(|l| l.trim().strip_prefix("API key:"))
        .map(|k| k.trim().to_string())
        .expect("the demo prints its API key");
    // the printed curl line works as printed
    let curl = lines
        .iter()
        .find(|l| l.contains("curl -s") && l.contains("/v2/account"))
        .expect("a curl line");
    assert!(curl.contains(&base) && curl.contains(&key), "{curl}");
    let client = reqwest::Client::new();
    let res = client
        .get(format!("{base}/v2/account"))
        .header("Authorization", format!("Token {key}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    // the demo's sandbox journeys become shipments with containers (bounded wait for the
    // in-process worker; no timing is asserted)
    let mut total = 0;
    for _ in 0..100 {
        let doc: Value = client
            .get(format!("{base}/v2/containers"))
            .header("Authorization", format!("Token {key}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        total = doc["meta"]["total"].as_u64().unwrap();
        if total == 5 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(total, 5, "four demo shipments with five containers");
    drop(taken);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_command_explains_itself() {
    for args in [
        vec!["--help"],
        vec!["serve", "--help"],
        vec!["demo", "--help"],
        vec!["migrate", "--help"],
        vec!["accounts", "--help"],
        vec!["accounts", "create", "--help"],
        vec!["accounts", "update", "--help"],
        vec!["keys", "--help"],
        vec!["keys", "revoke", "--help"],
        vec!["ingest", "--help"],
        vec!["ingest", "x12", "--help"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_boxtrack"))
            .args(&args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("Usage:"), "{args:?}: {text}");
    }
}

#[tokio::test]
async fn ingest_reads_x12_files_and_names_what_is_wrong() {
    let db = boxtrack_testkit::fresh().await;
    let fixtures = format!("{}/../../fixtures/x12", env!("CARGO_MANIFEST_DIR"));
    let ok = ok_json(boxtrack(
        &db.url,
        &[
            "ingest",
            "x12",
            &format!("{fixtures}/315/004010_315_singleline_hamsud-krpus-mxzlo.edi"),
            "--json",
        ],
    ));
    assert_eq!(ok["status"], "accepted");
    assert_eq!(ok["transaction_sets_accepted"], 1);
    // nobody tracks it in this fresh database
    assert_eq!(ok["containers_unknown"], serde_json::json!(["MRSU4371639"]));

    let text = ok_text(boxtrack(
        &db.url,
        &[
            "ingest",
            "x12",
            &format!("{fixtures}/322/004010_322_hamsud_4_AL.edi"),
        ],
    ));
    assert!(text.contains("warning: segment"), "{text}");
    assert!(
        text.contains("SE01 says 12 segments, the transaction set has 14"),
        "{text}"
    );

    let err = failed(boxtrack(
        &db.url,
        &[
            "ingest",
            "x12",
            &format!("{fixtures}/322/004010_322_1edisource_GI.edi"),
        ],
    ));
    assert!(err.contains("could be read"), "{err}");
    let missing = failed(boxtrack(&db.url, &["ingest", "x12", "/nonexistent.edi"]));
    assert!(missing.contains("/nonexistent.edi"), "{missing}");
}
