//! `memory.vec`, the vector sidecar: one vector per record, keyed by record id, a hash of the
//! text it was made from and the embedder's id — so an edited fact or a changed model is seen as
//! missing a vector and re-embedded, never silently compared.
//!
//! Format (little-endian): magic `LMVEC\0`, u16 version, u32 count, then per entry: u8 id length,
//! id bytes, u64 text hash, u16 model-id length, model-id bytes, u32 dim, dim × f32.

use std::collections::HashMap;

use crate::id::Fnv;
use crate::record::Record;

const MAGIC: &[u8; 6] = b"LMVEC\0";
const VERSION: u16 = 1;

/// One stored vector.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorEntry {
    pub id: String,
    pub text_hash: u64,
    pub model: String,
    pub vector: Vec<f32>,
}

/// The sidecar file could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("memory.vec is not a valid vector file: {0}")]
pub struct BadVectors(pub &'static str);

/// The hash of a record's text that its vector was made from.
pub fn text_hash(text: &str) -> u64 {
    let mut h = Fnv::new();
    h.write(text.as_bytes());
    h.finish()
}

pub fn encode(entries: &[VectorEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(
        16 + entries
            .iter()
            .map(|e| 32 + e.vector.len() * 4)
            .sum::<usize>(),
    );
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for e in entries {
        let id = &e.id.as_bytes()[..e.id.len().min(255)];
        out.push(id.len() as u8);
        out.extend_from_slice(id);
        out.extend_from_slice(&e.text_hash.to_le_bytes());
        let model = &e.model.as_bytes()[..e.model.len().min(u16::MAX as usize)];
        out.extend_from_slice(&(model.len() as u16).to_le_bytes());
        out.extend_from_slice(model);
        out.extend_from_slice(&(e.vector.len() as u32).to_le_bytes());
        for x in &e.vector {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out
}

pub fn decode(bytes: &[u8]) -> Result<Vec<VectorEntry>, BadVectors> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(6)? != MAGIC {
        return Err(BadVectors("wrong magic"));
    }
    if r.u16()? != VERSION {
        return Err(BadVectors("unknown version"));
    }
    let count = r.u32()? as usize;
    let mut entries = Vec::with_capacity(count.min(4096));
    for _ in 0..count {
        let id_len = r.take(1)?[0] as usize;
        let id = String::from_utf8(r.take(id_len)?.to_vec()).map_err(|_| BadVectors("id"))?;
        let text_hash = u64::from_le_bytes(r.take(8)?.try_into().map_err(|_| BadVectors("hash"))?);
        let model_len = r.u16()? as usize;
        let model =
            String::from_utf8(r.take(model_len)?.to_vec()).map_err(|_| BadVectors("model"))?;
        let dim = r.u32()? as usize;
        let raw = r.take(dim.checked_mul(4).ok_or(BadVectors("dim"))?)?;
        let vector = raw
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        entries.push(VectorEntry {
            id,
            text_hash,
            model,
            vector,
        });
    }
    if r.at != bytes.len() {
        return Err(BadVectors("trailing bytes"));
    }
    Ok(entries)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], BadVectors> {
        let end = self.at.checked_add(n).ok_or(BadVectors("truncated"))?;
        let s = self
            .bytes
            .get(self.at..end)
            .ok_or(BadVectors("truncated"))?;
        self.at = end;
        Ok(s)
    }
    fn u16(&mut self) -> Result<u16, BadVectors> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Result<u32, BadVectors> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// Sidecar entries for `records` and the vectors `model` made of their texts, in order.
pub fn entries_for(records: &[Record], vectors: Vec<Vec<f32>>, model: &str) -> Vec<VectorEntry> {
    records
        .iter()
        .zip(vectors)
        .map(|(r, vector)| VectorEntry {
            id: r.id.clone(),
            text_hash: text_hash(&r.text),
            model: model.to_string(),
            vector,
        })
        .collect()
}

/// The vectors of a store, looked up by record id.
#[derive(Debug, Clone, Default)]
pub struct Vectors {
    pub entries: Vec<VectorEntry>,
    by_id: HashMap<String, usize>,
}

impl Vectors {
    pub fn new(entries: Vec<VectorEntry>) -> Vectors {
        let by_id = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id.clone(), i))
            .collect();
        Vectors { entries, by_id }
    }

    /// The vector of record `id` if it was made from `text` by `model`.
    pub fn current(&self, id: &str, text: &str, model: &str) -> Option<&[f32]> {
        let e = &self.entries[*self.by_id.get(id)?];
        (e.model == model && e.text_hash == text_hash(text)).then_some(e.vector.as_slice())
    }

    /// Cosine similarity of `record`'s current vector to `query` (both L2-normalised, so the
    /// dot product); `None` when the record has no vector from `model` for its text.
    pub fn similarity(&self, record: &Record, model: &str, query: &[f32]) -> Option<f32> {
        self.current(&record.id, &record.text, model)
            .map(|v| dot(query, v))
    }
}

/// The dot product of two vectors of the same length.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_staleness() {
        let e = VectorEntry {
            id: "abcd1234".into(),
            text_hash: text_hash("Prefers tea"),
            model: "minilm:384".into(),
            vector: vec![0.5, -0.25, 1.0],
        };
        let bytes = encode(std::slice::from_ref(&e));
        let back = decode(&bytes).unwrap();
        assert_eq!(back, vec![e]);
        let v = Vectors::new(back);
        assert!(v.current("abcd1234", "Prefers tea", "minilm:384").is_some());
        assert!(
            v.current("abcd1234", "Prefers coffee", "minilm:384")
                .is_none(),
            "edited text"
        );
        assert!(
            v.current("abcd1234", "Prefers tea", "bge:384").is_none(),
            "other model"
        );
        assert!(decode(&bytes[..bytes.len() - 1]).is_err());
        assert!(decode(b"garbage").is_err());
    }
}
