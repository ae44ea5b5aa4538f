//! The fuzz mutator of both fuzz places (core/tests/fuzz.rs: the store's files and the other
//! parsers; daemon/tests/fuzz_http.rs: the API's request bodies): one change to an input (bit
//! flips, inserted tokens, numbers and strings swapped for edge cases, cuts, splices of two seeds,
//! line edits, edge-case integers, repeats), as a value proptest can shrink, applied with each
//! target's own [`Tokens`]. Both include this file by `#[path]`: neither crate can depend on
//! localm-tests, which depends on them.

use proptest::prelude::*;
use proptest::sample::Index;

/// What a target's mutations insert and swap in: bytes worth inserting, numbers at the edges of
/// the types they land in, and string contents (already JSON-escaped; `<long>` and `<deep>` are
/// expanded, see [`expand`]).
pub struct Tokens {
    pub inserts: &'static [&'static [u8]],
    pub numbers: &'static [&'static str],
    pub strings: &'static [&'static str],
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
    pub fn apply(&self, b: &mut Vec<u8>, seeds: &[impl AsRef<[u8]>], tokens: &Tokens) {
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
                b.splice(p..p, t.get(tokens.inserts).iter().copied());
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
                let other = s.get(seeds).as_ref();
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
                let token = tokens.numbers[t.index(tokens.numbers.len())].as_bytes();
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
                let token = expand(tokens.strings[t.index(tokens.strings.len())]);
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
pub fn expand(token: &str) -> String {
    match token {
        "<long>" => "x ".repeat(300),
        "<deep>" => "[".repeat(200),
        other => other.to_string(),
    }
}

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
