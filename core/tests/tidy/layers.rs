//! The layer map of ARCHITECTURE.md checked against the code. The map's tables ("### Layers of
//! core/src" …) list each crate's modules bottom up, one layer a row; this reads every shipped
//! `crate::`, `super::`, `self::` and child-module path in the crate's files, maps each file and
//! each path to the longest module the table names, and reports an import of a higher layer, a
//! module the table does not name, and any cycle between the named modules.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// One table: module path (`service::state`) → layer (its row, from 1 at the bottom).
pub type Layers = BTreeMap<String, usize>;

/// The table under the heading `### Layers of <name>` in `text` (`name` e.g. `core/src`).
pub fn table(text: &str, name: &str) -> Layers {
    let heading = format!("### Layers of {name}");
    let mut layers = Layers::new();
    let mut inside = false;
    let mut row = 0;
    for line in text.lines() {
        if line.starts_with('#') {
            inside = line.trim() == heading;
            continue;
        }
        let Some(cells) = line.strip_prefix('|').filter(|_| inside) else {
            continue;
        };
        let mut cells = cells.split('|');
        let (Some(first), Some(modules)) = (cells.next(), cells.next()) else {
            continue;
        };
        if first.trim().parse::<usize>().is_err() {
            continue; // the header and its rule
        }
        row += 1;
        for (i, part) in modules.split('`').enumerate() {
            if i % 2 == 1 {
                layers.insert(part.trim().to_string(), row);
            }
        }
    }
    layers
}

/// The module path of a file under a crate's `src` (`service/api/mod.rs` → `service::api`).
pub fn module_of(rel: &str) -> String {
    let stem = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut parts: Vec<&str> = stem.split('/').collect();
    if matches!(parts.last(), Some(&"mod") | Some(&"lib")) {
        parts.pop();
    }
    parts.join("::")
}

/// The longest module of `layers` that `path` is inside, if any.
fn unit_of<'a>(layers: &'a Layers, path: &str) -> Option<&'a str> {
    layers
        .keys()
        .filter(|m| path == m.as_str() || path.starts_with(&format!("{m}::")))
        .max_by_key(|m| m.len())
        .map(String::as_str)
}

/// Code without line comments (doc comments included) and string literals' contents, so a path
/// written in prose or a message is not read as an import.
fn code_only(line: &str) -> String {
    let mut out = String::new();
    let mut in_str = false;
    let mut prev = ' ';
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !in_str && c == '/' && chars.get(i + 1) == Some(&'/') {
            break;
        }
        if c == '"' && prev != '\\' && !(prev == '\'' && chars.get(i + 1) == Some(&'\'')) {
            in_str = !in_str;
            out.push('"');
        } else if !in_str {
            out.push(c);
        }
        prev = if prev == '\\' && c == '\\' { ' ' } else { c };
        i += 1;
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths a use tree starting at `s` names, each prefixed with `base` (`a::{b, c::d}` →
/// `a::b`, `a::c::d`).
fn expand(base: &[String], s: &str, out: &mut Vec<Vec<String>>) {
    let s = s.trim_start();
    let mut path = base.to_vec();
    let mut rest = s;
    loop {
        let end = rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        path.push(rest[..end].to_string());
        rest = &rest[end..];
        match rest.strip_prefix("::") {
            Some(after) => rest = after.trim_start(),
            None => break,
        }
    }
    if let Some(inner) = rest.strip_prefix('{') {
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    expand_item(&path, &inner[start..i], out);
                    return;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_item(&path, &inner[start..i], out);
                    start = i + 1;
                }
                _ => {}
            }
        }
    } else if !path.is_empty() {
        out.push(path);
    }
}

fn expand_item(base: &[String], item: &str, out: &mut Vec<Vec<String>>) {
    let item = item.trim();
    if item == "self" {
        out.push(base.to_vec());
    } else if !item.is_empty() && item != "*" {
        expand(base, item, out);
    }
}

/// One import: the module path it names and where (`file:line`).
pub struct Import {
    pub from: String,
    pub to: String,
    pub at: String,
}

/// Every path a shipped file of the crate under `src` names inside the crate.
pub fn imports(
    root: &Path,
    src: &str,
    files: &[String],
    shipped: fn(&str, &str) -> String,
) -> Vec<Import> {
    let mut found = Vec::new();
    for file in files {
        let Some(rel) = file.strip_prefix(&format!("{src}/")) else {
            continue;
        };
        if rel == "main.rs" {
            continue; // the binary's root: it names the library by its crate name
        }
        let text = fs::read_to_string(root.join(file)).unwrap_or_default();
        let text = shipped(file, &text);
        let module = module_of(rel);
        let here: Vec<String> = module
            .split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let code: Vec<String> = text.lines().map(code_only).collect();
        // Child modules declared here (`mod x;`): a bare `x::` path names one of them.
        let children: BTreeSet<String> = code
            .iter()
            .filter_map(|l| {
                let l = l.trim();
                let l = l
                    .strip_prefix("pub(crate) ")
                    .or(l.strip_prefix("pub "))
                    .unwrap_or(l);
                l.strip_prefix("mod ")?
                    .strip_suffix(';')
                    .map(|n| n.trim().to_string())
            })
            .collect();
        for (n, line) in code.iter().enumerate() {
            let mut paths = Vec::new();
            for (i, _) in line.match_indices("::") {
                // The path segment that ends here, and whether it starts the path.
                let head = &line[..i];
                let start = head.rfind(|c: char| !is_ident(c)).map_or(0, |p| p + 1);
                let word = &head[start..];
                if head[..start].ends_with("::") || word.is_empty() {
                    continue;
                }
                let after = &line[i + 2..];
                let base: Vec<String> = match word {
                    "crate" => Vec::new(),
                    "self" => here.clone(),
                    "super" => {
                        let mut up = here.clone();
                        up.pop();
                        let mut after = after;
                        while let Some(more) = after.trim_start().strip_prefix("super::") {
                            up.pop();
                            after = more;
                        }
                        expand(&up, after, &mut paths);
                        continue;
                    }
                    w if children.contains(w) => {
                        let mut p = here.clone();
                        p.push(w.to_string());
                        p
                    }
                    _ => continue,
                };
                expand(&base, after, &mut paths);
            }
            for p in paths {
                found.push(Import {
                    from: module.clone(),
                    to: p.join("::"),
                    at: format!("{file}:{}", n + 1),
                });
            }
        }
    }
    found
}

/// What the map says of these imports: an import of a higher layer, a file of a module the map
/// does not name (when `every_file` is set), and every cycle between the map's modules.
pub fn check(
    layers: &Layers,
    imports: &[Import],
    modules: &[String],
    every_file: bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    if every_file {
        for m in modules {
            if unit_of(layers, m).is_none() {
                problems.push(format!(
                    "module `{m}` is not in the layer table (add it to a row)"
                ));
            }
        }
    }
    // unit → unit → the first place that imports it.
    let mut graph: BTreeMap<&str, BTreeMap<&str, &str>> = BTreeMap::new();
    for imp in imports {
        let (Some(a), Some(b)) = (unit_of(layers, &imp.from), unit_of(layers, &imp.to)) else {
            continue;
        };
        if a == b {
            continue;
        }
        graph.entry(a).or_default().entry(b).or_insert(&imp.at);
        let (la, lb) = (layers[a], layers[b]);
        if lb > la {
            problems.push(format!(
                "{}: `{a}` (layer {la}) imports `{}` of `{b}`, a higher layer ({lb})",
                imp.at, imp.to
            ));
        }
    }
    for cycle in cycles(&graph) {
        let steps: Vec<String> = cycle
            .windows(2)
            .map(|w| format!("`{}` → `{}` ({})", w[0], w[1], graph[w[0]][w[1]]))
            .collect();
        problems.push(format!("import cycle: {}", steps.join(", ")));
    }
    problems
}

/// One cycle (first node repeated at the end) through each strongly connected group of nodes.
fn cycles<'a>(graph: &BTreeMap<&'a str, BTreeMap<&'a str, &'a str>>) -> Vec<Vec<&'a str>> {
    let reach = |from: &'a str| -> BTreeMap<&'a str, &'a str> {
        // Breadth first from `from`: each reached node → the node it was reached from.
        let mut prev = BTreeMap::new();
        let mut queue = vec![from];
        while let Some(n) = queue.pop() {
            for &next in graph.get(n).map(|m| m.keys()).into_iter().flatten() {
                if let std::collections::btree_map::Entry::Vacant(e) = prev.entry(next) {
                    e.insert(n);
                    queue.insert(0, next);
                }
            }
        }
        prev
    };
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut out = Vec::new();
    for &start in graph.keys() {
        if seen.contains(start) {
            continue;
        }
        let prev = reach(start);
        if !prev.contains_key(start) {
            continue;
        }
        // Walk back from `start` to itself: the shortest cycle through it.
        let mut path = vec![start];
        let mut n = prev[start];
        while n != start {
            path.push(n);
            n = prev[n];
        }
        path.push(start);
        path.reverse();
        seen.extend(path.iter().copied());
        out.push(path);
    }
    out
}
