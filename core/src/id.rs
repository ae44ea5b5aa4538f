//! Record ids: eight lowercase hex characters, stable for a record's life; commands accept any
//! unique prefix.

use std::collections::HashSet;

use chrono::{DateTime, Utc};

/// Length of a generated id.
pub const ID_LEN: usize = 8;

/// A fresh id for `text` created at `now`, not in `taken`. Derived from a hash of the text, the
/// time and a counter, so it is deterministic for a given input (no randomness in core).
pub fn new_id(text: &str, now: DateTime<Utc>, taken: &HashSet<&str>) -> String {
    let nanos = now.timestamp_nanos_opt().unwrap_or_default();
    for salt in 0u64.. {
        let mut h = Fnv::new();
        h.write(text.as_bytes());
        h.write(&nanos.to_le_bytes());
        h.write(&salt.to_le_bytes());
        let id = format!("{:08x}", (h.finish() >> 32) as u32);
        if !taken.contains(id.as_str()) {
            return id;
        }
    }
    unreachable!("u64 salts exhausted")
}

/// 64-bit FNV-1a: small, dependency-free and stable across Rust versions (unlike `DefaultHasher`).
/// The one FNV in the workspace, with [`fnv1a32`] for the 32-bit width. Values reach disk (ids,
/// the vector sidecar's text hashes), so neither may ever change: the tests pin known vectors.
pub struct Fnv(u64);

impl Fnv {
    pub fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    pub fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    pub fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for Fnv {
    fn default() -> Self {
        Self::new()
    }
}

/// 32-bit FNV-1a of `bytes`. The embedder's id carries it (a hash of the model's config.json), and
/// that id is stored with every vector in the sidecar.
pub fn fnv1a32(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for &b in bytes {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

/// How an id or prefix typed by the user resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved<T> {
    Found(T),
    NotFound,
    /// The prefix matches several ids (listed, sorted).
    Ambiguous(Vec<String>),
}

/// Resolve `query` against `ids`: an exact id wins, else a unique prefix. Case-insensitive.
pub fn resolve<'a, I>(query: &str, ids: I) -> Resolved<usize>
where
    I: IntoIterator<Item = &'a str>,
{
    let q = query.trim().to_ascii_lowercase();
    if q.is_empty() {
        return Resolved::NotFound;
    }
    let mut matches: Vec<(usize, &str)> = Vec::new();
    for (i, id) in ids.into_iter().enumerate() {
        if id == q {
            return Resolved::Found(i);
        }
        if id.starts_with(&q) {
            matches.push((i, id));
        }
    }
    match matches.len() {
        0 => Resolved::NotFound,
        1 => Resolved::Found(matches[0].0),
        _ => {
            let mut ids: Vec<String> = matches.iter().map(|(_, id)| id.to_string()).collect();
            ids.sort();
            ids.dedup();
            Resolved::Ambiguous(ids)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t() -> DateTime<Utc> {
        "2026-01-01T00:00:00Z".parse().unwrap()
    }

    #[test]
    fn ids_are_eight_hex_and_avoid_taken() {
        let first = new_id("Prefers tea", t(), &HashSet::new());
        assert_eq!(first.len(), ID_LEN);
        assert!(
            first
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        let taken: HashSet<&str> = [first.as_str()].into_iter().collect();
        let second = new_id("Prefers tea", t(), &taken);
        assert_ne!(first, second);
        assert_eq!(
            first,
            new_id("Prefers tea", t(), &HashSet::new()),
            "deterministic"
        );
    }

    #[test]
    fn fnv_is_stable() {
        let fnv64 = |bytes: &[u8]| {
            let mut h = Fnv::new();
            h.write(bytes);
            h.finish()
        };
        assert_eq!(fnv64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv64(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(fnv1a32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a32(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a32(b"foobar"), 0xbf9c_f968);
    }

    #[test]
    fn resolve_table() {
        let ids = ["abc12345", "abd99999", "ff000000"];
        assert_eq!(resolve("ff", ids), Resolved::Found(2));
        assert_eq!(resolve("ABC", ids), Resolved::Found(0));
        assert_eq!(resolve("abc12345", ids), Resolved::Found(0));
        assert_eq!(
            resolve("ab", ids),
            Resolved::Ambiguous(vec!["abc12345".into(), "abd99999".into()])
        );
        assert_eq!(resolve("zz", ids), Resolved::NotFound);
        assert_eq!(resolve("", ids), Resolved::NotFound);
    }
}
