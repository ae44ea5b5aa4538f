//! The inputs of the fuzz targets: seeds from `tests/fuzz-corpus/<target>/` changed by a few
//! mutations (bit flips, interesting bytes, numbers and strings swapped for edge cases, cuts,
//! splices of two seeds, duplicated lines), plus random bytes and random JSON-ish token soup.
//! Each mutation is a value proptest can shrink, so a failure comes back as a small edit.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{Index, select};
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
                m.apply(&mut bytes, &corpus.seeds);
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

/// One change to an input. Positions are `Index`es, so they fit any length and shrink well.
#[derive(Debug, Clone)]
pub enum Mutation {
    FlipBit(Index, u8),
    InsertToken(Index, Index),
    InsertByte(Index, u8),
    Delete(Index, usize),
    Truncate(Index),
    /// Keep the input up to a point, then continue with another seed from a point.
    Splice(Index, Index, Index),
    DuplicateLine(Index),
    DeleteLine(Index),
    SwapLines(Index, Index),
    ReplaceNumber(Index, Index),
    ReplaceString(Index, Index),
    /// Overwrite bytes with an edge-case little-endian integer (for binary formats).
    OverwriteInt(Index, Index, Index),
    /// Repeat a short stretch many times (deep nesting, long runs).
    Repeat(Index, usize, usize),
}

pub fn mutation() -> impl Strategy<Value = Mutation> {
    let i = any::<Index>;
    prop_oneof![
        2 => (i(), 0u8..8).prop_map(|(a, b)| Mutation::FlipBit(a, b)),
        3 => (i(), i()).prop_map(|(a, t)| Mutation::InsertToken(a, t)),
        1 => (i(), any::<u8>()).prop_map(|(a, b)| Mutation::InsertByte(a, b)),
        1 => (i(), 1usize..32).prop_map(|(a, n)| Mutation::Delete(a, n)),
        1 => i().prop_map(Mutation::Truncate),
        1 => (i(), i(), i()).prop_map(|(a, s, b)| Mutation::Splice(a, s, b)),
        1 => i().prop_map(Mutation::DuplicateLine),
        1 => i().prop_map(Mutation::DeleteLine),
        1 => (i(), i()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        3 => (i(), i()).prop_map(|(a, t)| Mutation::ReplaceNumber(a, t)),
        3 => (i(), i()).prop_map(|(a, t)| Mutation::ReplaceString(a, t)),
        1 => (i(), i(), i()).prop_map(|(a, t, w)| Mutation::OverwriteInt(a, t, w)),
        1 => (i(), 1usize..8, 2usize..200).prop_map(|(a, n, k)| Mutation::Repeat(a, n, k)),
    ]
}

impl Mutation {
    pub fn apply(&self, b: &mut Vec<u8>, seeds: &[Vec<u8>]) {
        let at = |i: &Index, b: &Vec<u8>| i.index(b.len() + 1);
        match self {
            Mutation::FlipBit(i, bit) => {
                if !b.is_empty() {
                    let p = i.index(b.len());
                    b[p] ^= 1 << bit;
                }
            }
            Mutation::InsertToken(i, t) => {
                let p = at(i, b);
                b.splice(p..p, t.get(INSERTS).iter().copied());
            }
            Mutation::InsertByte(i, byte) => {
                let p = at(i, b);
                b.insert(p, *byte);
            }
            Mutation::Delete(i, n) => {
                let p = at(i, b);
                let end = (p + n).min(b.len());
                b.drain(p..end);
            }
            Mutation::Truncate(i) => {
                let p = at(i, b);
                b.truncate(p);
            }
            Mutation::Splice(i, s, j) => {
                if seeds.is_empty() {
                    return;
                }
                let other = s.get(seeds);
                let p = at(i, b);
                let q = j.index(other.len() + 1);
                b.truncate(p);
                b.extend_from_slice(&other[q..]);
            }
            Mutation::DuplicateLine(i) => {
                let lines = lines(b);
                let (s, e) = lines[i.index(lines.len())];
                let mut line = b[s..e].to_vec();
                if !line.ends_with(b"\n") {
                    line.insert(0, b'\n');
                }
                b.splice(e..e, line);
            }
            Mutation::DeleteLine(i) => {
                let lines = lines(b);
                let (s, e) = lines[i.index(lines.len())];
                b.drain(s..e);
            }
            Mutation::SwapLines(i, j) => {
                let lines = lines(b);
                let (x, y) = (i.index(lines.len()), j.index(lines.len()));
                let (x, y) = (x.min(y), x.max(y));
                if x != y {
                    let mut pieces: Vec<Vec<u8>> =
                        lines.iter().map(|&(s, e)| b[s..e].to_vec()).collect();
                    pieces.swap(x, y);
                    *b = pieces.concat();
                }
            }
            Mutation::ReplaceNumber(i, t) => {
                let token = NUMBERS[t.index(NUMBERS.len())].as_bytes();
                let spans = numbers(b);
                if spans.is_empty() {
                    let p = at(i, b);
                    b.splice(p..p, token.iter().copied());
                } else {
                    let (s, e) = spans[i.index(spans.len())];
                    b.splice(s..e, token.iter().copied());
                }
            }
            Mutation::ReplaceString(i, t) => {
                let token = expand(STRINGS[t.index(STRINGS.len())]);
                let spans = strings(b);
                if spans.is_empty() {
                    let p = at(i, b);
                    b.splice(p..p, format!("\"{token}\"").into_bytes());
                } else {
                    let (s, e) = spans[i.index(spans.len())];
                    b.splice(s..e, token.into_bytes());
                }
            }
            Mutation::OverwriteInt(i, t, w) => {
                let bytes = t.get(INTS).to_le_bytes();
                let width = *w.get(&[1, 2, 4, 8]);
                let p = at(i, b);
                for (k, byte) in bytes[..width].iter().enumerate() {
                    match b.get_mut(p + k) {
                        Some(slot) => *slot = *byte,
                        None => b.push(*byte),
                    }
                }
            }
            Mutation::Repeat(i, n, k) => {
                let p = at(i, b);
                let end = (p + n).min(b.len());
                let chunk = if p < end {
                    b[p..end].to_vec()
                } else {
                    b"[".to_vec()
                };
                let repeated = chunk.repeat(*k);
                b.splice(p..p, repeated);
            }
        }
    }
}

/// The spans of the lines of `b`, each with its `\n`; one empty span for empty input.
fn lines(b: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        if c == b'\n' {
            spans.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < b.len() || spans.is_empty() {
        spans.push((start, b.len()));
    }
    spans
}

/// The spans of the numbers in `b` (`-12`, `0.5`, `1e-3`; dates give several).
fn numbers(b: &[u8]) -> Vec<(usize, usize)> {
    let digits = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut spans = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let signed = b[i] == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit);
        if !(b[i].is_ascii_digit() || signed) {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = digits(if signed { i + 1 } else { i });
        if b.get(end) == Some(&b'.') && b.get(end + 1).is_some_and(u8::is_ascii_digit) {
            end = digits(end + 1);
        }
        if matches!(b.get(end), Some(b'e' | b'E')) {
            let mut e = end + 1;
            if matches!(b.get(e), Some(b'+' | b'-')) {
                e += 1;
            }
            if b.get(e).is_some_and(u8::is_ascii_digit) {
                end = digits(e);
            }
        }
        spans.push((start, end));
        i = end;
    }
    spans
}

/// The spans of the contents of the JSON strings in `b` (between the quotes).
fn strings(b: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'"' {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut j = start;
        while j < b.len() && b[j] != b'"' {
            j += if b[j] == b'\\' { 2 } else { 1 };
        }
        if j >= b.len() {
            break;
        }
        spans.push((start, j));
        i = j + 1;
    }
    spans
}

/// A string token as JSON string content; `<long>` is a fact over the 500-character limit.
fn expand(token: &str) -> String {
    match token {
        "<long>" => "x ".repeat(300),
        "<deep>" => "[".repeat(200),
        other => other.to_string(),
    }
}

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

/// Integers to overwrite binary fields with.
const INTS: &[u64] = &[
    0,
    1,
    0xff,
    0x100,
    0xffff,
    0x1_0000,
    0x7fff_ffff,
    0xffff_ffff,
    0x4000_0000,
    0x7f80_0000,
    0x7fc0_0000,
    u64::MAX,
];
