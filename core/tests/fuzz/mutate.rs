//! The inputs of the core fuzz targets: seeds from `tests/fuzz-corpus/<target>/` changed by a few
//! mutations of the shared mutator (tests/src/fuzz_mutate.rs) with these targets' tokens, plus
//! random bytes and random JSON-ish token soup. Each mutation is a value proptest can shrink, so
//! a failure comes back as a small edit.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

use crate::fuzz_mutate::{Tokens, expand, mutation};
use proptest::test_runner::{Config, FileFailurePersistence};

/// The proptest config of every target: `PROPTEST_CASES` and the other `PROPTEST_*` variables
/// as set, else 64 cases so the normal test suite stays quick (`scripts/fuzz` runs more). A
/// failing input is kept in `core/tests/fuzz.proptest-regressions` and tried first next time.
pub fn config() -> Config {
    let mut config = Config {
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..Config::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 64;
    }
    config
}

/// An input: bytes, shown in a failure as an escaped byte string rather than a list of numbers.
#[derive(Clone, PartialEq, Eq)]
pub struct Bytes(pub Vec<u8>);

impl fmt::Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}

impl Bytes {
    /// The bytes as text, invalid UTF-8 replaced (for the parsers that take `&str`).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0).into_owned()
    }
}

/// A target's seeds, by file name, sorted.
#[derive(Debug)]
pub struct Corpus {
    pub names: Vec<String>,
    pub seeds: Vec<Vec<u8>>,
}

impl Corpus {
    pub fn load(target: &str) -> Arc<Corpus> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fuzz-corpus")
            .join(target);
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("the corpus {}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        paths.sort();
        assert!(!paths.is_empty(), "the corpus {} is empty", dir.display());
        Arc::new(Corpus {
            names: paths
                .iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect(),
            seeds: paths.iter().map(|p| std::fs::read(p).unwrap()).collect(),
        })
    }

    /// The place of the seed called `name`.
    pub fn index(&self, name: &str) -> usize {
        self.names
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("no seed {name} in {:?}", self.names))
    }
}

/// The usual input of a target: mostly mutated seeds, sometimes a seed as it is, random bytes or
/// token soup.
pub fn input(target: &str) -> BoxedStrategy<Bytes> {
    let corpus = Corpus::load(target);
    let n = corpus.seeds.len();
    let seeds = corpus.clone();
    prop_oneof![
        1 => (0..n).prop_map(move |i| Bytes(seeds.seeds[i].clone())),
        12 => mutants(corpus, None),
        2 => vec(any::<u8>(), 0..256).prop_map(Bytes),
        2 => soup(),
    ]
    .boxed()
}

/// The seed at `only` (or any seed) with 1 to 8 mutations; splices take from any seed.
pub fn mutants(corpus: Arc<Corpus>, only: Option<usize>) -> BoxedStrategy<Bytes> {
    let pick = match only {
        Some(i) => Just(i).boxed(),
        None => (0..corpus.seeds.len()).boxed(),
    };
    (pick, vec(mutation(), 1..=8))
        .prop_map(move |(i, mutations)| {
            let mut bytes = corpus.seeds[i].clone();
            for m in &mutations {
                m.apply(&mut bytes, &corpus.seeds, &TOKENS);
            }
            Bytes(bytes)
        })
        .boxed()
}

/// Random JSON-ish text: tokens, numbers and strings of the kind the parsers meet, in any order.
pub fn soup() -> BoxedStrategy<Bytes> {
    let token = prop_oneof![
        select(INSERTS).prop_map(<[u8]>::to_vec),
        select(NUMBERS).prop_map(|s| s.as_bytes().to_vec()),
        select(STRINGS).prop_map(|s| format!("\"{}\"", expand(s)).into_bytes()),
    ];
    vec(token, 0..48)
        .prop_map(|tokens| Bytes(tokens.concat()))
        .boxed()
}

/// The tokens of these targets' mutations.
pub const TOKENS: Tokens = Tokens {
    inserts: INSERTS,
    numbers: NUMBERS,
    strings: STRINGS,
};

/// Bytes worth inserting: structure, line ends, NUL, invalid or tricky UTF-8, escapes.
const INSERTS: &[&[u8]] = &[
    b"\0",
    b"\n",
    b"\r\n",
    b"\r",
    b"\t",
    b" ",
    b"\"",
    b"'",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"\\",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\xef\xbb\xbf",
    b"\xe2\x80\xae",
    b"\xe2\x80\x8b",
    b"\xf0\x9f\x91\x8b",
    b"\x1b[2J",
    b"null",
    b"true",
    b"{}",
    b"[]",
    b",]",
    b",}",
    b"\"\":\"\"",
    b"```",
    b"```json\n",
    b"#",
    b"- ",
    b"1. ",
    b"\\u0000",
    b"\\n",
    b"\\ud800",
    b"\\\"",
    b"{\"facts\":[",
    b"\"text\":",
    b"\"kind\":",
    b"\"confidence\":",
    b"\"summary\":",
    b"\"op\":\"ADD\"",
    b"\"version\":",
    b"\"generation\":",
    b"\"every_secs\":",
    b"\"cron\":",
];

/// Numbers at the edges of the types they land in (u32, u64, i64, usize, f32, f64).
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "2",
    "0.5",
    "1.5",
    "255",
    "256",
    "65535",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "1e39",
    "-1e39",
    "3.4028236e38",
    "1e400",
    "1e-400",
    "5e-324",
    "1.7976931348623157e308",
    "123456789012345678901234567890",
    "0.1e1",
    "1E2",
    "00",
    "9999",
];

/// String contents (already JSON-escaped) that reach deeper: the names of enum variants, dates,
/// cron expressions, file names, and the awkward ones.
const STRINGS: &[&str] = &[
    "",
    " ",
    "a\\nb",
    "a\\u0000b",
    "\\u001b[31mred\\u001b[0m",
    "\\ud800",
    "\\ud83d\\ude00",
    "\u{202e}evil",
    "\u{200b}",
    "<long>",
    "<deep>",
    "semantic",
    "episodic",
    "user",
    "synth",
    "import",
    "pending",
    "dismissed",
    "done",
    "update",
    "delete",
    "evicted",
    "decayed",
    "superseded",
    "memory",
    "ok",
    "error",
    "skipped",
    "privacy",
    "log",
    "full",
    "ADD",
    "UPDATE",
    "NO_OP",
    "write",
    "remove",
    "memory.jsonl",
    "state.json",
    ".journal",
    ".lock",
    "../settings.json",
    "memory.vec",
    "9999-12-31T23:59:59Z",
    "+262143-12-31T23:59:59Z",
    "-262143-01-01T00:00:00Z",
    "2026-02-30T00:00:00Z",
    "2026-03-01T12:00:00+14:00",
    "2026-03-01T12:00:00.999999999Z",
    "0 3 * * *",
    "0 0 30 2 *",
    "0 0 29 2 *",
    "* * * * * *",
    "0 0 0 L * ?",
    "0 0 * * MON#5",
    "*/0 * * * *",
    "@yearly",
    "1h 30m",
    "3fa91c2e",
    "3f",
    "0.9",
    "1e400",
    "NaN",
    "inf",
];
