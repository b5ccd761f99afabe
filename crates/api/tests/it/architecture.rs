//! The shape of the edge: no module of an edge crate reaches back into a module that uses it
//! (the import graph has no loops), and no edge crate makes outbound HTTP requests itself
//! (webhook delivery is the worker's, upstream reads are the sources crate's; hyper is there
//! to serve connections only).

use std::path::{Path, PathBuf};

use boxtrack_testkit::modules::{cycles, graph, users_of};

/// The crates of the edge: what answers HTTP and what shapes its answers.
const EDGE: &[&str] = &["api", "views", "app", "http", "mcp", "web"];

/// The crates whose modules must not import each other in a loop: the edge and the worker.
const LAYERED: &[&str] = &["api", "views", "app", "http", "mcp", "web", "worker"];

fn crate_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name)
}

#[test]
fn the_edge_crates_import_graphs_have_no_loops() {
    let mut report = Vec::new();
    for name in LAYERED {
        let g = graph(&crate_dir(name).join("src")).unwrap();
        assert!(g.len() > 1, "{name}: no modules found");
        for group in cycles(&g) {
            let detail: Vec<String> = group
                .iter()
                .map(|m| {
                    let users: Vec<&str> = users_of(&g, m)
                        .into_iter()
                        .filter(|u| group.iter().any(|x| x == u))
                        .collect();
                    format!("    {m} <- {}", users.join(", "))
                })
                .collect();
            report.push(format!(
                "{name}: a loop of {} modules:\n{}",
                group.len(),
                detail.join("\n")
            ));
        }
    }
    assert!(report.is_empty(), "\n{}", report.join("\n"));
}

#[test]
fn the_edge_crates_make_no_outbound_http_requests() {
    for name in EDGE {
        let manifest = std::fs::read_to_string(crate_dir(name).join("Cargo.toml")).unwrap();
        let deps = manifest
            .split("[dependencies]")
            .nth(1)
            .and_then(|d| d.split("\n[").next())
            .unwrap_or_default();
        for client in ["reqwest", "ureq", "isahc", "surf"] {
            assert!(
                !deps
                    .lines()
                    .any(|l| l.trim_start().starts_with(&format!("{client}."))
                        || l.trim_start().starts_with(&format!("{client} "))),
                "{name} depends on the HTTP client {client}"
            );
        }
        // hyper serves the API's connections (api/src/listen.rs); its client half stays unused
        for file in rust_files(&crate_dir(name).join("src")) {
            let text = std::fs::read_to_string(&file).unwrap();
            for client in ["hyper::client", "hyper_util::client", "handshake("] {
                assert!(
                    !text.contains(client),
                    "{} uses hyper's HTTP client ({client})",
                    file.display()
                );
            }
        }
    }
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// Every file `docs/architecture.md` names exists: a path with a folder is looked up from the
/// repository, from `crates/` and from the crate's `src/` (`core/plan.rs` is
/// `crates/core/src/plan.rs`); a bare file name (`auth.rs`, `polling.md`) must be somewhere in
/// the crates or the docs. URL paths, commands and `::item` suffixes are not files.
#[test]
fn every_file_the_architecture_map_names_exists() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(repo.join("docs/architecture.md")).unwrap();
    fn walk(dir: &Path, names: &mut std::collections::BTreeSet<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().to_string();
            if name == "target" || name.starts_with('.') {
                continue;
            }
            if p.is_dir() {
                walk(&p, names);
            } else {
                names.insert(name);
            }
        }
    }
    let mut names = std::collections::BTreeSet::new();
    walk(&repo.join("crates"), &mut names);
    walk(&repo.join("docs"), &mut names);
    walk(&repo.join("bench"), &mut names);
    let mut missing = Vec::new();
    for (i, token) in text.split('`').enumerate() {
        // the odd pieces are inside backticks
        if i % 2 == 0 || token.contains([' ', '=', '{', '*', '<', '…']) || token.starts_with('/')
        {
            continue;
        }
        let path = token
            .split("::")
            .next()
            .unwrap_or(token)
            .trim_end_matches('/');
        let file_like = [".rs", ".md", ".sql", ".sh", ".json"]
            .iter()
            .any(|ext| path.ends_with(ext));
        if !path.contains('/') && !file_like {
            continue;
        }
        let found = if path.contains('/') {
            let (first, rest) = path.split_once('/').unwrap_or((path, ""));
            [
                repo.join(path),
                repo.join("crates").join(path),
                repo.join("crates").join(first).join("src").join(rest),
            ]
            .iter()
            .any(|p| p.exists())
        } else {
            names.contains(path)
        };
        if !found {
            missing.push(token.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "docs/architecture.md names files that do not exist: {missing:?}"
    );
}

/// Test suites of a front end that use another front end: none (each suite serves its own
/// front end alone; the binary's suite runs the whole service). An entry may leave, never
/// join.
const DEV_EXCEPTIONS: &[(&str, &str)] = &[];

/// The crate layers of `docs/architecture.md` hold: every crate is in the table, and each
/// depends (outside its dev-dependencies) only on crates of a lower layer; tools (`testkit`,
/// `fuzz`, `bench`) only ever as dev-dependencies of the others; no front end's tests use
/// another front end (but for [`DEV_EXCEPTIONS`]).
#[test]
fn crates_depend_only_on_lower_layers() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(repo.join("docs/architecture.md")).unwrap();
    let section = text
        .split("### Layers")
        .nth(1)
        .expect("docs/architecture.md has a Layers section");
    let mut layer_of: std::collections::BTreeMap<String, Option<u32>> = Default::default();
    for line in section
        .lines()
        .skip_while(|l| !l.starts_with("| layer"))
        .skip(2)
    {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 3 {
            break;
        }
        let layer = cells[1].parse::<u32>().ok();
        for c in cells[2].split(',') {
            layer_of.insert(c.trim().trim_matches('`').to_string(), layer);
        }
    }
    let mut manifests: Vec<(String, PathBuf)> = std::fs::read_dir(repo.join("crates"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("Cargo.toml").exists())
        .map(|e| {
            (
                e.file_name().to_string_lossy().to_string(),
                e.path().join("Cargo.toml"),
            )
        })
        .collect();
    manifests.push(("bench".into(), repo.join("bench/Cargo.toml")));
    let mut wrong = Vec::new();
    let mut excepted = Vec::new();
    for (name, manifest) in &manifests {
        let Some(own) = layer_of.get(name) else {
            wrong.push(format!("{name}: not in the Layers table"));
            continue;
        };
        let toml = std::fs::read_to_string(manifest).unwrap();
        let mut section = "";
        for line in toml.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                section = match line {
                    "[dependencies]" => "dependencies",
                    "[dev-dependencies]" => "dev-dependencies",
                    _ => "",
                };
                continue;
            }
            let Some(dep) = line.strip_prefix("boxtrack-") else {
                continue;
            };
            let dep: String = dep
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let theirs = layer_of.get(&dep).copied().flatten();
            match (section, own, theirs) {
                // a tool may use anything
                (_, None, _) => {}
                ("dependencies", Some(_), None) => {
                    wrong.push(format!("{name} depends on the tool {dep}"))
                }
                ("dependencies", Some(a), Some(b)) if b >= *a => {
                    wrong.push(format!("{name} (layer {a}) depends on {dep} (layer {b})"))
                }
                // a crate's tests may use tools and lower layers; a front end's tests never
                // another front end (the whole service is the binary's to test)
                ("dev-dependencies", Some(a), Some(b)) if b == *a => {
                    if DEV_EXCEPTIONS.contains(&(name.as_str(), dep.as_str())) {
                        excepted.push((name.clone(), dep));
                    } else {
                        wrong.push(format!(
                            "{name}'s tests (layer {a}) depend on {dep} (layer {b})"
                        ))
                    }
                }
                _ => {}
            }
        }
    }
    for (a, b) in DEV_EXCEPTIONS {
        if !excepted.iter().any(|(x, y)| x == a && y == b) {
            wrong.push(format!(
                "{a}'s tests no longer use {b}: take it off DEV_EXCEPTIONS"
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The longest a source file may be (lines before its `#[cfg(test)] mod tests`), and a
/// function (outside tests, generated and data files).
const FILE_MAX: usize = 800;
const FN_MAX: usize = 120;

/// What is still over those limits, at most as long as it is today: an entry may shrink or go,
/// never grow, and nothing new may join (issue 43). `(path under crates/, function or "", lines)`.
const OVER: &[(&str, &str, usize)] = &[];

/// The source files of every crate (not their tests, benches or fuzz targets).
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The lines of a file before its unit tests.
fn code_lines(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .windows(2)
        .position(|w| w[0].starts_with("#[cfg(test)]") && w[1].starts_with("mod "))
        .unwrap_or(lines.len());
    lines[..end].to_vec()
}

/// Each function's name and length in lines (its signature to its closing brace at the same
/// indentation).
fn functions<'a>(lines: &[&'a str]) -> Vec<(&'a str, usize)> {
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let indent = line.len() - t.len();
        let rest = ["pub(crate) ", "pub(super) ", "pub "]
            .iter()
            .find_map(|p| t.strip_prefix(p))
            .unwrap_or(t);
        let rest = rest.strip_prefix("async ").unwrap_or(rest);
        let rest = rest.strip_prefix("const ").unwrap_or(rest);
        let Some(sig) = rest.strip_prefix("fn ") else {
            continue;
        };
        if line.trim_end().ends_with(';') {
            continue;
        }
        let name = sig
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or_default();
        let close = " ".repeat(indent) + "}";
        if let Some(n) = lines[i + 1..].iter().position(|l| l.trim_end() == close) {
            out.push((name, n + 2));
        }
    }
    out
}

/// No source file over [`FILE_MAX`] lines and no function over [`FN_MAX`], except what
/// [`OVER`] lists, each no longer than it says.
#[test]
fn files_and_functions_stay_small() {
    let root = crate_dir("");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if name == "fuzz" || name == "testkit" {
            continue;
        }
        sources(&entry.path().join("src"), &mut files);
    }
    let mut found: Vec<(String, String, usize)> = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let rel = f
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let lines = code_lines(&text);
        if lines.len() > FILE_MAX {
            found.push((rel.clone(), String::new(), lines.len()));
        }
        for (name, n) in functions(&lines) {
            if n > FN_MAX {
                found.push((rel.clone(), name.to_string(), n));
            }
        }
    }
    assert!(found.len() > 1 || files.len() > 100, "no sources read");
    let mut report = Vec::new();
    for (path, name, n) in &found {
        match OVER.iter().find(|(p, f, _)| p == path && f == name) {
            None => report.push(format!(
                "{path} {name}: {n} lines (files at most {FILE_MAX}, functions {FN_MAX})"
            )),
            Some((_, _, max)) if n > max => {
                report.push(format!("{path} {name}: {n} lines, grown past {max}"))
            }
            Some(_) => {}
        }
    }
    for (path, name, max) in OVER {
        if !found.iter().any(|(p, f, _)| p == path && f == name) {
            report.push(format!(
                "{path} {name}: no longer over the limit (was {max}): take it out of OVER"
            ));
        }
    }
    assert!(report.is_empty(), "\n{}", report.join("\n"));
}

/// The one place a front end's source may name the store: REST's fast path for prerendered
/// reads (docs/architecture.md). Everything else reaches it through a use case of `app`.
const STORE_ALLOWED: &[&str] = &["api/src/rendered.rs"];

/// The lines of the front ends' sources (but [`STORE_ALLOWED`]) that are not comments and
/// contain any of `names`, each as `file:line: text`.
fn front_end_lines_naming(names: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for name in ["api", "mcp", "web"] {
        for f in rust_files(&crate_dir(name).join("src")) {
            let shown = f.to_string_lossy().replace('\\', "/");
            if STORE_ALLOWED.iter().any(|a| shown.ends_with(a)) {
                continue;
            }
            let text = std::fs::read_to_string(&f).unwrap();
            for (n, line) in text.lines().enumerate() {
                let named = names.iter().any(|x| line.contains(x));
                if named && !line.trim_start().starts_with("//") {
                    found.push(format!("{shown}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn the_front_ends_reach_the_store_only_through_app() {
    // the records app's answers carry are plain data: no database type either
    let wrong = front_end_lines_naming(&["boxtrack_store", "sqlx"]);
    assert!(
        wrong.is_empty(),
        "these lines name the store or its database types; reach it through a use case of app: \
         {wrong:#?}"
    );
}

/// The front ends that reach the store only through `app`: their `[dependencies]` do not name
/// `boxtrack-store` at all (their tests may, to make fixtures), so the compiler keeps them so.
const STORE_FREE: &[&str] = &["mcp", "web"];

#[test]
fn the_store_free_front_ends_do_not_depend_on_the_store() {
    let mut wrong = Vec::new();
    for name in STORE_FREE {
        let toml = std::fs::read_to_string(crate_dir(name).join("Cargo.toml")).unwrap();
        let deps = toml
            .split("[dependencies]")
            .nth(1)
            .and_then(|rest| rest.split("\n[").next())
            .unwrap_or_default();
        if deps.lines().any(|l| l.trim().starts_with("boxtrack-store")) {
            wrong.push(format!(
                "{name} depends on boxtrack-store: reach it through a use case of app"
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The store's read shapes (the traits a read is generic over, the prerendered rows) that
/// `app`'s answers do not carry: its use cases answer whole rows, and only its `prerendered`
/// module, the REST fast path, reads in these shapes.
const READ_SHAPES: &[&str] = &[
    "ContainerRead",
    "ShipmentRead",
    "OfShipments",
    "RenderedContainer",
    "RenderedShipment",
];

#[test]
fn app_answers_in_its_own_shapes_but_for_the_named_fast_path() {
    let mut wrong = Vec::new();
    for f in rust_files(&crate_dir("app").join("src")) {
        let shown = f.to_string_lossy().replace('\\', "/");
        if shown.ends_with("app/src/prerendered.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if READ_SHAPES.iter().any(|shape| code.contains(shape)) {
                wrong.push(format!("{shown}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    // and only REST's fast-path module calls the fast path
    wrong.extend(front_end_lines_naming(&["app::prerendered"]));
    assert!(
        wrong.is_empty(),
        "these lines carry the store's read shapes outside the fast path \
         (app/src/prerendered.rs, api/src/rendered.rs): {wrong:#?}"
    );
}
