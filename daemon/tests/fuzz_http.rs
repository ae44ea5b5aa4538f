//! Fuzz target for HTTP request bodies: the daemon's real router, in process on a temp data dir,
//! gets every POST/PUT/PATCH route under `/api/memory` with bodies that are seeds from
//! `tests/fuzz-corpus/http/` (mutated by the shared mutator, tests/src/fuzz_mutate.rs),
//! random bytes or over-long bodies, under any content type and any declared length. Bad input
//! must never panic or answer 5xx; every error is `{"error": {"code", "message"}}` with a
//! one-line message; a 4xx changes no file of the store; and whatever was answered, the store
//! still reads with no corrupt line. `PROPTEST_CASES` sets the number of cases (64 by default,
//! so the normal suite stays quick). `POST /api/memory/consolidate` takes no body and starts a
//! model process, so it is left out.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

#[path = "../../tests/src/fuzz_mutate.rs"]
mod fuzz_mutate;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, header};
use hyper::service::Service as _;
use hyper_util::service::TowerToHyperService;
use localm::config::{ChatEnv, Overrides};
use localm::service::api::{body::MAX_BODY, router};
use localm::service::passes::PassRunner;
use localm::service::state::Shared;
use localm_core::store::{LOCK_FILE, Store};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;

use fuzz_mutate::{Mutation, Tokens, mutation};
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// The routes with a body, by method and path (`{id}` is filled from [`IDS`]), and the prefix of
/// the seeds written for each (`""`: any seed, the route reads no body).
const ROUTES: &[(&str, &str, &str)] = &[
    ("PUT", "/api/memory", "bulk-edit"),
    ("POST", "/api/memory/append", "append"),
    ("POST", "/api/memory/recall", "recall"),
    ("PATCH", "/api/memory/{id}", "patch"),
    ("POST", "/api/memory/forgotten/{id}/restore", ""),
    ("POST", "/api/memory/corrections/{id}/accept", ""),
    ("POST", "/api/memory/corrections/{id}/reject", ""),
];

/// Ids in paths: live, archived and correction ids, prefixes, unknown ones, and odd encodings.
const IDS: &[&str] = &[
    "aaaa0001", "aaaa", "a", "bbbb0002", "feed0001", "cccc0001", "ffff0000", "%FF", "%0A", "%00",
    "a%20b", "..",
];

const CONTENT_TYPES: &[Option<&str>] = &[
    None,
    Some("application/json"),
    Some("application/json; charset=utf-8"),
    Some("application/json; charset=utf-16"),
    Some("application/x-www-form-urlencoded"),
    Some("text/plain"),
    Some("multipart/form-data; boundary=x"),
    Some("application/octet-stream"),
    Some(""),
];

/// What the mutations insert and swap in: these routes' bytes, numbers and strings.
const TOKENS: Tokens = Tokens {
    inserts: INSERTS,
    numbers: NUMBERS,
    strings: STRINGS,
};

/// Numbers the bodies' fields meet at their edges (importance, limits, lengths).
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "0.85",
    "1.5",
    "1e400",
    "-1e39",
    "NaN",
    "255",
    "256",
    "4294967296",
    "18446744073709551616",
];

/// String contents (JSON-escaped) these routes read: kinds, roles, origins, agents, awkward text.
const STRINGS: &[&str] = &[
    "",
    " ",
    "<long>",
    "<deep>",
    "episodic",
    "semantic",
    "coder",
    "user",
    "assistant",
    "tool",
    "system",
    "a\\nb",
    "\\u0000",
    "\\u001b[2J",
    "\\ud800",
    "\u{202e}evil",
    "aaaa0001",
];

/// Bytes worth inserting: JSON structure, escapes, field names and values of these routes, line
/// ends, NUL and broken or tricky UTF-8.
const INSERTS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"\"",
    b"\\",
    b"null",
    b"true",
    b"{}",
    b"[]",
    b",}",
    b"\"\":\"\"",
    b"\"text\":",
    b"\"kind\":",
    b"\"importance\":",
    b"\"messages\":",
    b"\"role\":",
    b"\"content\":",
    b"\"origin\":",
    b"\"agent\":",
    b"\"explain\":",
    b"\"episodic\"",
    b"\"semantic\"",
    b"\"coder\"",
    b"\"user\"",
    b"\"tool\"",
    b"-1",
    b"1e400",
    b"0.85",
    b"NaN",
    b"18446744073709551616",
    b"\\u0000",
    b"\\n",
    b"\\u001b[2J",
    b"\\ud800",
    b"\\u202e",
    b"\n",
    b"\r\n",
    b"\0",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\xef\xbb\xbf",
    b"\xe2\x80\x8b",
];

/// How the body is made.
#[derive(Debug, Clone)]
enum Make {
    Seed,
    Mutated(Vec<Mutation>),
    Random(Vec<u8>),
    /// The seed padded with spaces past the body limit.
    Oversized(usize),
}

/// The `Content-Length` header sent.
#[derive(Debug, Clone)]
enum Length {
    Omitted,
    Exact,
    Declared(u64),
    Garbage(&'static str),
}

#[derive(Debug, Clone)]
struct Case {
    route: usize,
    id: usize,
    /// Pick the seed from the route's own seeds (else from all of them).
    own_seed: bool,
    seed: Index,
    make: Make,
    content_type: usize,
    length: Length,
}

/// A body, shown as an escaped byte string.
struct Shown<'a>(&'a [u8]);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}

fn case() -> impl Strategy<Value = Case> {
    let make = prop_oneof![
        2 => Just(Make::Seed),
        12 => vec(mutation(), 1..=8).prop_map(Make::Mutated),
        3 => vec(any::<u8>(), 0..256).prop_map(Make::Random),
        1 => (0usize..64).prop_map(Make::Oversized),
    ];
    let length = prop_oneof![
        4 => Just(Length::Exact),
        3 => Just(Length::Omitted),
        2 => prop::sample::select(vec![0, 1, 2, MAX_BODY as u64, MAX_BODY as u64 + 1, u64::MAX])
            .prop_map(Length::Declared),
        1 => prop::sample::select(vec!["abc", "-1", "1,1", " 5", "0x10", ""])
            .prop_map(Length::Garbage),
    ];
    (
        0..ROUTES.len(),
        0..IDS.len(),
        prop::bool::weighted(0.75),
        any::<Index>(),
        make,
        0..CONTENT_TYPES.len(),
        length,
    )
        .prop_map(
            |(route, id, own_seed, seed, make, content_type, length)| Case {
                route,
                id,
                own_seed,
                seed,
                make,
                content_type,
                length,
            },
        )
}

/// The seeds of `tests/fuzz-corpus/http/`, by file name.
fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fuzz-corpus/http");
    let mut seeds: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus {}: {e}", dir.display()))
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    seeds.sort();
    assert!(!seeds.is_empty(), "the corpus {} is empty", dir.display());
    seeds
}

impl Case {
    fn method_and_path(&self) -> (&'static str, String) {
        let (method, path, _) = ROUTES[self.route];
        (method, path.replace("{id}", IDS[self.id]))
    }

    fn body(&self, corpus: &[(String, Vec<u8>)]) -> Vec<u8> {
        let prefix = ROUTES[self.route].2;
        let own: Vec<&[u8]> = corpus
            .iter()
            .filter(|(name, _)| self.own_seed && name.starts_with(prefix))
            .map(|(_, b)| b.as_slice())
            .collect();
        let all: Vec<&[u8]> = corpus.iter().map(|(_, b)| b.as_slice()).collect();
        let pool = if own.is_empty() { &all } else { &own };
        let mut body = self.seed.get(pool).to_vec();
        match &self.make {
            Make::Seed => {}
            Make::Mutated(mutations) => {
                for m in mutations {
                    m.apply(&mut body, &all, &TOKENS);
                }
            }
            Make::Random(bytes) => body = bytes.clone(),
            Make::Oversized(extra) => body.resize(MAX_BODY + 1 + extra, b' '),
        }
        body
    }
}

/// A data dir in log mode with the memory plugin on, two live facts, an archived one and a
/// pending correction (so restore, accept and reject reach the store).
fn template() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("settings.json"),
        r#"{"mode": "log", "plugins": {"memory": {"installed": true, "enabled": true}}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("sessions")).unwrap();
    let store = dir.path().join("memory").join("chat");
    std::fs::create_dir_all(&store).unwrap();
    let record = |id: &str, text: &str, source: &str| {
        serde_json::json!({
            "id": id, "text": text, "kind": "semantic", "source": source, "importance": 0.7,
            "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"
        })
    };
    let lines = |values: &[serde_json::Value]| -> String {
        values.iter().map(|v| format!("{v}\n")).collect()
    };
    let live = [
        record("aaaa0001", "User prefers green tea", "user"),
        record("bbbb0002", "Works on printer firmware", "synth"),
    ];
    std::fs::write(store.join("memory.jsonl"), lines(&live)).unwrap();
    let mut archived = record("feed0001", "Rode a bike to work", "user");
    archived["archived_at"] = "2026-02-01T00:00:00Z".into();
    archived["reason"] = "evicted".into();
    std::fs::write(store.join(".forgotten.jsonl"), lines(&[archived])).unwrap();
    let correction = serde_json::json!({
        "id": "cccc0001", "target": "aaaa0001", "op": "update",
        "old_text": "User prefers green tea", "new_text": "User prefers black tea",
        "confidence": 0.9, "status": "pending", "created_at": "2026-02-01T00:00:00Z"
    });
    std::fs::write(store.join("corrections.jsonl"), lines(&[correction])).unwrap();
    dir
}

/// A copy of `from` (plain files, one level of folders deep as the template has).
fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Every file of the store folder but the lock (its content names the last holder), by name.
fn store_files(data_dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let dir = data_dir.join("memory").join("chat");
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name != LOCK_FILE)
        .map(|name| {
            let bytes = std::fs::read(dir.join(&name)).unwrap();
            (name, bytes)
        })
        .collect()
}

/// Send `req` to the router over a fresh daemon state on `data_dir`: the status, content type
/// and body of the answer. What a recall queued is written before this returns.
fn send(
    rt: &tokio::runtime::Runtime,
    data_dir: &Path,
    req: Request<Body>,
) -> (axum::http::StatusCode, String, String) {
    rt.block_on(async {
        // Never spawned: consolidation is not among the routes.
        let exe = std::env::current_exe().unwrap();
        let shared = Arc::new(
            Shared::new(
                data_dir.to_path_buf(),
                Overrides::default(),
                PassRunner::new(exe),
                ChatEnv::default(),
            )
            .unwrap(),
        );
        let service = TowerToHyperService::new(router(Arc::clone(&shared), None));
        let resp = service.call(req).await.unwrap();
        let status = resp.status();
        let content_type = resp
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let answer = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap();
        shared.reinforcer.flush().await;
        (
            status,
            content_type,
            String::from_utf8_lossy(&answer).into_owned(),
        )
    })
}

/// Send `case` to a fresh daemon state on a copy of `template`; check the answer and the store.
fn run_case(
    rt: &tokio::runtime::Runtime,
    template: &Path,
    corpus: &[(String, Vec<u8>)],
    case: &Case,
) -> Result<(), TestCaseError> {
    let data = tempfile::tempdir().unwrap();
    copy_dir(template, data.path());
    let before = store_files(data.path());
    let (method, path) = case.method_and_path();
    let body = case.body(corpus);
    let mut req = Request::builder().method(method).uri(&path);
    if let Some(ct) = CONTENT_TYPES[case.content_type] {
        req = req.header(header::CONTENT_TYPE, ct);
    }
    match &case.length {
        Length::Omitted => {}
        Length::Exact => req = req.header(header::CONTENT_LENGTH, body.len()),
        Length::Declared(n) => req = req.header(header::CONTENT_LENGTH, *n),
        Length::Garbage(s) => req = req.header(header::CONTENT_LENGTH, *s),
    }
    let req = req.body(Body::from(body.clone())).unwrap();
    let what = format!("{method} {path} {}", Shown(&body[..body.len().min(2000)]));

    let (status, content_type, answer) = send(rt, data.path(), req);

    prop_assert!(
        !status.is_server_error(),
        "{what}\n-> {status} (a 5xx for bad input): {answer}"
    );
    if status.is_client_error() {
        prop_assert!(
            content_type.starts_with("application/json"),
            "{what}\n-> {status} with content type {content_type:?}: {answer}"
        );
        let v: serde_json::Value = serde_json::from_str(&answer)
            .map_err(|e| TestCaseError::fail(format!("{what}\n-> not JSON ({e}): {answer}")))?;
        let code = v["error"]["code"].as_str().unwrap_or_default();
        let message = v["error"]["message"].as_str().unwrap_or_default();
        prop_assert!(
            !code.is_empty() && code.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
            "{what}\n-> {status}, no error code: {answer}"
        );
        prop_assert!(
            !message.is_empty() && !message.chars().any(char::is_control),
            "{what}\n-> {status}, the message is not one plain line: {answer}"
        );
        prop_assert_eq!(
            &store_files(data.path()),
            &before,
            "{}\n-> {} changed the store: {}",
            what,
            status,
            answer
        );
    }
    let snap = Store::new(data.path(), "chat", "fuzz")
        .read()
        .map_err(|e| TestCaseError::fail(format!("{what}\n-> the store does not read: {e}")))?;
    prop_assert!(
        snap.corrupt.is_empty(),
        "{what}\n-> {status} left corrupt lines: {:?}",
        snap.corrupt
    );
    Ok(())
}

/// `PROPTEST_CASES` (and the other `PROPTEST_*` variables) as set, else 64 cases.
fn config() -> Config {
    let mut config = Config {
        // A failure prints its smallest case; nothing is written next to the sources.
        failure_persistence: None,
        ..Config::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 64;
    }
    config
}

#[test]
fn bad_bodies_get_a_json_4xx_and_change_nothing() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let template = template();
    let corpus = corpus();
    let mut runner = TestRunner::new(config());
    let result = runner.run(&case(), |case| {
        run_case(&rt, template.path(), &corpus, &case)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// Each route's own seeds, as they are, succeed: the mutations start from valid bodies.
#[test]
fn every_seed_is_accepted_by_its_route() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let template = template();
    for (method, path, prefix) in ROUTES.iter().filter(|r| !r.2.is_empty()) {
        let path = path.replace("{id}", "aaaa0001");
        let seeds = corpus().into_iter().filter(|(n, _)| n.starts_with(prefix));
        for (name, body) in seeds {
            let data = tempfile::tempdir().unwrap();
            copy_dir(template.path(), data.path());
            let req = Request::builder()
                .method(*method)
                .uri(&path)
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(body))
                .unwrap();
            let (status, _, answer) = send(&rt, data.path(), req);
            assert!(
                status.is_success(),
                "{name} on {method} {path}: {status} {answer}"
            );
        }
    }
}
