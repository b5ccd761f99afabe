//! The import graph of a crate's modules, to keep its layering honest: a module that uses
//! something of another module (`use crate::a::b`, `super::x`, or a `crate::a::f(…)` path in
//! code) depends on it, and no chain of such uses may come back to where it started.
//!
//! `mod` declarations are not uses (a parent names its children without depending on them),
//! and a file's `#[cfg(test)]` part (at its end, as clippy wants it) is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (`crate::routes::shipments`) → the modules it uses.
pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// The module path of a source file relative to `src/`.
fn module_of(rel: &Path) -> String {
    let mut parts: Vec<String> = vec!["crate".into()];
    let comps: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    for (i, c) in comps.iter().enumerate() {
        let last = i + 1 == comps.len();
        if !last {
            parts.push(c.clone());
        } else if c != "lib.rs" && c != "main.rs" && c != "mod.rs" {
            parts.push(c.trim_end_matches(".rs").to_string());
        }
    }
    parts.join("::")
}

fn parent(m: &str) -> String {
    m.rsplit_once("::")
        .map_or_else(|| m.to_string(), |(p, _)| p.to_string())
}

/// The code of a file without comments, string contents and its test part.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '"' => {
                out.push('"');
                let mut escaped = false;
                for c in chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == '"' {
                        break;
                    }
                }
                out.push('"');
            }
            _ => out.push(c),
        }
    }
    out
}

/// Expands a use tree (`a::{b, c::{d, e}}`) into its paths.
fn expand(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![tree];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut items = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
        .into_iter()
        .filter(|s| !s.is_empty())
        .flat_map(expand)
        .map(|s| {
            if s == "self" {
                prefix.trim_end_matches("::").to_string()
            } else {
                format!("{prefix}{s}")
            }
        })
        .collect()
}

/// The paths (`crate::…`, `super::…`) a file's code names.
fn paths_in(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    // use statements, with their trees
    let mut rest = code;
    while let Some(i) = rest.find("use ") {
        let before = rest[..i].chars().last();
        rest = &rest[i + 4..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let end = rest.find(';').unwrap_or(rest.len());
        let tree = &rest[..end];
        if tree.trim_start().starts_with("crate::") || tree.trim_start().starts_with("super::") {
            out.extend(expand(tree));
        }
        rest = &rest[end..];
    }
    // paths written out in code
    out.extend(relative_paths(code, "crate"));
    out.extend(relative_paths(code, "super"));
    out
}

/// Paths written from `first` (`crate`, `super` or a child module's name: `first::item`), not
/// as a part of a longer path.
fn relative_paths(code: &str, first: &str) -> Vec<String> {
    let start = format!("{first}::");
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = code[from..].find(&start) {
        let at = from + i;
        from = at + start.len();
        let before = code[..at].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let path: String = code[at..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        out.push(path.trim_end_matches(':').to_string());
    }
    out
}

/// Resolves a written path to the module it lands in (the longest known module prefix).
fn resolve(from: &str, path: &str, modules: &BTreeSet<String>) -> Option<String> {
    let mut segs: Vec<&str> = path.split("::").collect();
    let mut base = if segs.first() == Some(&"crate") {
        segs.remove(0);
        "crate".to_string()
    } else {
        from.to_string()
    };
    while segs.first() == Some(&"super") {
        segs.remove(0);
        base = parent(&base);
    }
    let mut best = None;
    let mut cur = base.clone();
    if modules.contains(&cur) {
        best = Some(cur.clone());
    }
    for s in segs {
        cur = format!("{cur}::{s}");
        if modules.contains(&cur) {
            best = Some(cur.clone());
        }
    }
    best
}

/// The import graph of the crate whose sources are under `src`.
pub fn graph(src: &Path) -> std::io::Result<Graph> {
    let mut files = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let p = entry?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                files.push(p);
            }
        }
    }
    let mut texts = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(src).unwrap_or(&f).to_path_buf();
        texts.insert(module_of(&rel), std::fs::read_to_string(&f)?);
    }
    let modules: BTreeSet<String> = texts.keys().cloned().collect();
    let mut g = Graph::new();
    for (m, text) in &texts {
        let uses = g.entry(m.clone()).or_default();
        let code = code_of(text);
        // a path may also start at a child module (`routes::health::metrics` in lib.rs)
        let children: Vec<&str> = modules
            .iter()
            .filter_map(|c| c.strip_prefix(m.as_str())?.strip_prefix("::"))
            .filter(|rest| !rest.contains("::"))
            .collect();
        let mut paths = paths_in(&code);
        for child in children {
            paths.extend(
                relative_paths(&code, child)
                    .into_iter()
                    .map(|p| format!("{m}::{p}")),
            );
        }
        for p in paths {
            if let Some(to) = resolve(m, &p, &modules)
                && &to != m
            {
                uses.insert(to);
            }
        }
    }
    Ok(g)
}

/// The loops of a graph: each strongly connected group of two or more modules, sorted.
pub fn cycles(g: &Graph) -> Vec<Vec<String>> {
    // Tarjan's algorithm, iterative enough for a few hundred modules
    struct State<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on.insert(v);
        let g = s.g;
        for w in g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(lw));
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut group = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                group.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                s.out.push(group);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

/// The modules of `g` that use `module` (directly), for explaining a loop.
pub fn users_of<'a>(g: &'a Graph, module: &str) -> Vec<&'a str> {
    g.iter()
        .filter(|(_, uses)| uses.contains(module))
        .map(|(m, _)| m.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn use_trees_expand_to_their_paths() {
        assert_eq!(
            expand("crate::{a::B, c::{d, e::F}, self}"),
            vec!["crate::a::B", "crate::c::d", "crate::c::e::F", "crate"]
        );
    }

    #[test]
    fn paths_in_comments_strings_and_tests_do_not_count() {
        let code = code_of(
            "use crate::a::X;\n// crate::b::y\nlet s = \"crate::c\";\nfn f() { crate::d::g(); }\n#[cfg(test)]\nmod tests { use crate::e; }",
        );
        let mut p = paths_in(&code);
        p.sort();
        assert_eq!(p, vec!["crate::a::X", "crate::a::X", "crate::d::g"]);
    }

    #[test]
    fn super_resolves_against_the_parent_and_loops_are_found() {
        let modules: BTreeSet<String> = ["crate", "crate::r", "crate::r::a", "crate::doc"]
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(
            resolve("crate::r::a", "super::Id", &modules).as_deref(),
            Some("crate::r")
        );
        assert_eq!(
            resolve("crate::r::a", "crate::doc::Op", &modules).as_deref(),
            Some("crate::doc")
        );
        let mut g = Graph::new();
        g.entry("crate::r::a".into())
            .or_default()
            .insert("crate::doc".into());
        g.entry("crate::doc".into())
            .or_default()
            .insert("crate::r::a".into());
        g.entry("crate".into())
            .or_default()
            .insert("crate::r".into());
        assert_eq!(cycles(&g), vec![vec!["crate::doc", "crate::r::a"]]);
        g.entry("crate::doc".into()).or_default().clear();
        assert!(cycles(&g).is_empty());
    }
}
