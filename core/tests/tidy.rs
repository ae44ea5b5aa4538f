//! Tidy checks over the whole workspace, after rust-analyzer's: ARCHITECTURE.md names every
//! source file and only files that exist, every file opens with its `//!` line, core reads no
//! clock, environment or runtime, only config reads `LOCALM_*` variables (and only the command
//! line asks it to), and every import of core/src and daemon/src keeps to ARCHITECTURE.md's
//! layer tables, in no circle (`tidy/layers.rs`). They read the tree, not the code's behaviour,
//! so they run in milliseconds and fail with the file to fix.

#[path = "tidy/layers.rs"]
mod layers;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The workspace root (core's parent).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("core sits inside the workspace")
        .to_path_buf()
}

/// The folders whose `.rs` files the codemap must name.
const SOURCE_DIRS: &[&str] = &[
    "core/src",
    "core/tests",
    "bert/src",
    "bert/examples",
    "daemon/src",
    "daemon/tests",
    "daemon/examples",
    "tests/src",
    "tests/tests",
    "tests/examples",
];

/// Every `.rs` file under `dir`, as a path relative to the workspace root.
fn rust_files(root: &Path, dir: &str, out: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(root.join(dir)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = format!("{dir}/{name}");
        let kind = entry.file_type().expect("a listed entry has a type");
        if kind.is_dir() {
            rust_files(root, &rel, out);
        } else if name.ends_with(".rs") {
            out.push(rel);
        }
    }
}

fn all_sources() -> Vec<String> {
    let root = root();
    let mut files = Vec::new();
    for dir in SOURCE_DIRS {
        rust_files(&root, dir, &mut files);
    }
    files.sort();
    files
}

/// The paths the codemap's tables name, resolved against the workspace root. A table under a
/// heading that is a folder (`## core/src`) names paths relative to it; any other table names
/// paths from the root. Only the first cell of a row names files, each in backticks; a name
/// ending in `/` is a folder and covers everything in it.
fn codemap(text: &str) -> BTreeSet<String> {
    let mut base = String::new();
    let mut named = BTreeSet::new();
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            let heading = heading.trim();
            base = if heading.contains('/') && !heading.contains(' ') {
                format!("{}/", heading.trim_end_matches('/'))
            } else {
                String::new()
            };
            continue;
        }
        let Some(row) = line.strip_prefix('|') else {
            continue;
        };
        let first = row.split('|').next().unwrap_or_default();
        for (i, part) in first.split('`').enumerate() {
            // Odd parts are inside backticks.
            if i % 2 == 1 && (part.ends_with(".rs") || part.ends_with('/')) {
                named.insert(format!("{base}{part}"));
            }
        }
    }
    named
}

fn architecture() -> String {
    fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md is readable")
}

/// Whether the codemap names `file`: itself, a folder above it, or (for a `tests.rs` or
/// `x/tests.rs` unit-test module) the module it tests.
fn is_named(file: &str, named: &BTreeSet<String>) -> bool {
    if named.contains(file)
        || named
            .iter()
            .any(|n| n.ends_with('/') && file.starts_with(n.as_str()))
    {
        return true;
    }
    if let Some(dir) = file.strip_suffix("/tests.rs") {
        return named.contains(&format!("{dir}.rs")) || named.contains(&format!("{dir}/mod.rs"));
    }
    false
}

#[test]
fn every_file_the_codemap_names_exists() {
    let root = root();
    let missing: Vec<String> = codemap(&architecture())
        .into_iter()
        .filter(|p| !root.join(p).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names files that do not exist: {missing:?}"
    );
}

#[test]
fn every_source_file_is_named_in_the_codemap() {
    let named = codemap(&architecture());
    let unnamed: Vec<String> = all_sources()
        .into_iter()
        .filter(|f| !is_named(f, &named))
        .collect();
    assert!(
        unnamed.is_empty(),
        "source files ARCHITECTURE.md does not name (add a row saying what each owns): {unnamed:?}"
    );
}

#[test]
fn every_source_file_opens_with_its_doc_line() {
    let root = root();
    let bare: Vec<String> = all_sources()
        .into_iter()
        .filter(|f| {
            let text = fs::read_to_string(root.join(f)).unwrap_or_default();
            !text.starts_with("//!")
        })
        .collect();
    assert!(
        bare.is_empty(),
        "files without a `//!` line at the top: {bare:?}"
    );
}

/// The part of a file that ships: the whole file but each item under `#[cfg(test)]` (a test
/// module, a test-only field, statement or constant), and nothing of a test-only file.
fn shipped(file: &str, text: &str) -> String {
    let name = file.rsplit('/').next().unwrap_or(file);
    if name == "tests.rs" || name.ends_with("_tests.rs") {
        return String::new();
    }
    const GATE: &str = "#[cfg(test)]";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(GATE) {
        out.push_str(&rest[..at]);
        let item = &rest[at + GATE.len()..];
        let end = item_end(item);
        // Keep the line count, so a line number still names the line of the file.
        out.extend(item[..end].chars().filter(|c| *c == '\n'));
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// Where the item that opens `text` ends: after its braces close, or at a `;` or `,` outside
/// any (a `mod x;`, a constant, a statement, a field). Strings, chars and comments are skipped.
fn item_end(text: &str) -> usize {
    let b = text.as_bytes();
    let (mut depth, mut i, mut opened) = (0usize, 0usize, false);
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i += text[i..].find('\n').unwrap_or(text.len() - i);
                continue;
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') => i += 2,
            b'\'' if b.get(i + 1) == Some(&b'\\') => {
                i += 2;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
            }
            b'{' | b'(' | b'[' => {
                depth += 1;
                opened = true;
            }
            b'}' | b')' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 && b[i] == b'}' && opened {
                    return i + 1;
                }
            }
            b';' | b',' if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// Lines of shipped code under `prefix` that contain any of `needles`, as `file:line: text`.
fn offending(prefix: &str, needles: &[&str]) -> Vec<String> {
    let root = root();
    let mut found = Vec::new();
    for file in all_sources().into_iter().filter(|f| f.starts_with(prefix)) {
        let text = fs::read_to_string(root.join(&file)).unwrap_or_default();
        for (n, line) in shipped(&file, &text).lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if needles.iter().any(|needle| code.contains(needle)) {
                found.push(format!("{file}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn core_reads_no_clock_environment_or_runtime() {
    let found = offending(
        "core/src/",
        &[
            "tokio",
            "std::env",
            "env::var",
            "Instant::now",
            "SystemTime::now",
            "Utc::now",
            "Local::now",
        ],
    );
    assert!(
        found.is_empty(),
        "core must be handed the time, settings and runtime by its caller: {found:#?}"
    );
}

/// The shipped modules of the crate under `src` (its root and binary aside).
fn modules(src: &str) -> Vec<String> {
    all_sources()
        .iter()
        .filter_map(|f| f.strip_prefix(&format!("{src}/")).map(String::from))
        .filter(|rel| rel != "main.rs" && rel != "lib.rs")
        .map(|rel| layers::module_of(&rel))
        .collect()
}

/// The modules of `core/src/consolidate/` but its `mod.rs` and its test files.
fn pass_modules() -> Vec<String> {
    modules("core/src")
        .into_iter()
        .filter(|m| m.starts_with("consolidate::") && !m.ends_with("tests"))
        .collect()
}

#[test]
fn the_layers_import_one_way_in_no_circle() {
    let (root, text, files) = (root(), architecture(), all_sources());
    let mut problems = Vec::new();
    for src in ["core/src", "daemon/src"] {
        let table = layers::table(&text, src);
        assert!(
            !table.is_empty(),
            "ARCHITECTURE.md has no table under `### Layers of {src}`"
        );
        let imports = layers::imports(&root, src, &files, shipped);
        problems.extend(
            layers::check(&table, &imports, &modules(src), true)
                .into_iter()
                .map(|p| format!("{src}: {p}")),
        );
    }
    // Inside a pass every file has its row too (mod.rs, the pass itself, and test files aside).
    let inside = layers::table(&text, "core/src/consolidate");
    assert!(
        !inside.is_empty(),
        "ARCHITECTURE.md has no table under `### Layers of core/src/consolidate`"
    );
    let imports = layers::imports(&root, "core/src", &files, shipped);
    problems.extend(
        layers::check(&inside, &imports, &pass_modules(), true)
            .into_iter()
            .map(|p| format!("core/src/consolidate: {p}")),
    );
    // Cargo holds daemon → core; core never names the daemon's crate either.
    problems.extend(offending("core/src/", &["localm::"]));
    assert!(
        problems.is_empty(),
        "imports against the layer tables in ARCHITECTURE.md (move the import, or the module's row): {problems:#?}"
    );
}

/// The checker itself: a table parsed, a higher layer, an unnamed module and a cycle found.
#[test]
fn the_layer_checker_finds_what_it_should() {
    let text = "### Layers of x/src\n\n| layer | modules |\n|---|---|\n| 1 | `a`, `b::c` |\n\
                | 2 | `b` |\n\n### Other\n| 1 | `z` |\n";
    let table = layers::table(text, "x/src");
    let want: layers::Layers = [("a", 1), ("b::c", 1), ("b", 2)]
        .into_iter()
        .map(|(m, l)| (m.to_string(), l))
        .collect();
    assert_eq!(table, want);
    let import = |from: &str, to: &str| layers::Import {
        from: from.into(),
        to: to.into(),
        at: format!("{from}.rs:1"),
    };
    // b imports a and its own child b::c: below it, fine.
    let fine = [import("b", "a::Item"), import("b::d", "b::c::f")];
    assert!(layers::check(&table, &fine, &["a".into(), "b::d".into()], true).is_empty());
    // a imports b (higher), b::c and a import each other (a cycle), q is on no row.
    let bad = [
        import("a", "b::thing"),
        import("b::c", "a"),
        import("a", "b::c::x"),
    ];
    let problems = layers::check(&table, &bad, &["q".into()], true);
    let all = problems.join("\n");
    assert!(
        all.contains("module `q` is not in the layer table"),
        "{all}"
    );
    assert!(
        all.contains("`a` (layer 1) imports `b::thing` of `b`, a higher layer (2)"),
        "{all}"
    );
    assert!(all.contains("import cycle: `a` → `b::c`"), "{all}");
}

/// The import reader: use trees, `super::`, `self::`, child modules; not comments or strings.
#[test]
fn the_import_reader_reads_paths_not_prose() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let src = dir.join("x/src/p");
    fs::create_dir_all(&src).unwrap();
    fs::write(
        src.join("mod.rs"),
        "//! p\nmod kid;\nuse crate::{a::{self, b}, c::D};\nuse super::e;\n\
         fn f() { kid::go(); self::g(); } // crate::not_this\nconst S: &str = \"crate::nor_this\";\n\
         #[cfg(test)]\nmod tests { use crate::test_only; }\n",
    )
    .unwrap();
    let files = vec!["x/src/p/mod.rs".to_string()];
    let found: BTreeSet<String> = layers::imports(&dir, "x/src", &files, shipped)
        .into_iter()
        .map(|i| i.to)
        .collect();
    let want: BTreeSet<String> = ["a", "a::b", "c::D", "e", "p::kid::go", "p::g"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(found, want);
}

/// Only `daemon/src/config.rs` reads `LOCALM_*` variables from the environment: a read names
/// its variable on its line (`env::var("LOCALM_…")`), or passes a name it was given, which only
/// config may do for `LOCALM_*` (open.rs's `DISPLAY` check is the one other).
#[test]
fn only_config_reads_localm_variables() {
    let root = root();
    let mut found = Vec::new();
    for file in all_sources()
        .into_iter()
        .filter(|f| f.starts_with("daemon/src/") && f != "daemon/src/config.rs")
    {
        let text = fs::read_to_string(root.join(&file)).unwrap_or_default();
        for (n, line) in shipped(&file, &text).lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            let Some(at) = ["env::var(", "env::var_os(", "env::vars"]
                .iter()
                .find_map(|read| code.find(read).map(|i| i + read.len()))
            else {
                continue;
            };
            let rest = &code[at..];
            let literal = rest.starts_with('"');
            let names_localm = code.contains("\"LOCALM_");
            let given_name = !literal && !file.ends_with("cli/open.rs");
            if names_localm || given_name {
                found.push(format!("{file}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "LOCALM_* variables are read in daemon/src/config.rs only (add a typed reader there): {found:#?}"
    );
}

/// Configuration is resolved once, at the entry point, and handed down: only the command line
/// (`daemon/src/cli/mod.rs`) calls `config::Env::read`; every other file is given typed values.
#[test]
fn only_the_entry_point_reads_the_configuration() {
    let found: Vec<String> = offending("daemon/src/", &["Env::read("])
        .into_iter()
        .filter(|line| !line.starts_with("daemon/src/cli/mod.rs:"))
        .collect();
    assert!(
        found.is_empty(),
        "only cli/mod.rs reads the configuration (hand the typed value down instead): {found:#?}"
    );
}

#[test]
fn the_codemap_reader_understands_its_tables() {
    let text = "## core/src\n\n| file | owns |\n|---|---|\n| `a.rs`, `b/` | x `not.rs` |\n\n\
                ## tests and tools\n\n| `tests/tests/c.rs` | y |\n";
    let named = codemap(text);
    let want: BTreeSet<String> = ["core/src/a.rs", "core/src/b/", "tests/tests/c.rs"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(named, want);
    assert!(is_named("core/src/b/c.rs", &named));
    assert!(is_named("core/src/a/tests.rs", &named));
    assert!(!is_named("core/src/d.rs", &named));
}

/// The longest a function of the pass may be, in lines (issue 42: a rule is a row and a step
/// is a function a reader takes in at once).
const PASS_FUNCTION_LINES: usize = 80;

/// Each function of `text` longer than `limit` lines, as `name (lines) at line N`: from its
/// `fn` line to the `}` at its indentation (rustfmt's layout), tests included.
fn long_functions(text: &str, limit: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let head = [
            "pub(super) ",
            "pub(crate) ",
            "pub ",
            "const ",
            "async ",
            "unsafe ",
        ]
        .iter()
        .fold(code, |c, p| c.strip_prefix(p).unwrap_or(c));
        let Some(rest) = head.strip_prefix("fn ") else {
            continue;
        };
        if code.ends_with(';') {
            continue;
        }
        let close = format!("{indent}}}");
        let Some(end) = lines[i + 1..].iter().position(|l| *l == close) else {
            continue;
        };
        let n = end + 2;
        if n > limit {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            long.push(format!("{name} ({n} lines) at line {}", i + 1));
        }
    }
    long
}

#[test]
fn no_function_of_the_pass_is_over_80_lines() {
    let root = root();
    let mut long = Vec::new();
    for file in all_sources()
        .into_iter()
        .filter(|f| f.starts_with("core/src/consolidate"))
    {
        let text = fs::read_to_string(root.join(&file)).unwrap_or_default();
        long.extend(
            long_functions(&text, PASS_FUNCTION_LINES)
                .into_iter()
                .map(|f| format!("{file}: {f}")),
        );
    }
    assert!(
        long.is_empty(),
        "functions of core/src/consolidate over {PASS_FUNCTION_LINES} lines (split them into named steps): {long:#?}"
    );
}

#[test]
fn the_function_measure_counts_from_fn_to_its_brace() {
    let text = "fn a() {\n    x();\n}\n\nimpl T {\n    pub fn b(&self) {\n        y();\n        z();\n    }\n}\nfn c();\n";
    assert_eq!(long_functions(text, 3), ["b (4 lines) at line 6"]);
    assert!(long_functions(text, 4).is_empty());
}
