//! The existing facts a candidate is compared against: shared content words (BM25), and cosine
//! similarity when the store's vectors are current. Best first, at most a few.

use super::plan::Candidate;
use crate::models::Embedder;
use crate::recall::lexical::{LexicalIndex, content_words};
use crate::record::Record;
use crate::store::Snapshot;
use crate::store::vectors::Vectors;

/// A fact with no shared word is a neighbour from this cosine up.
const RELATED_COSINE: f32 = 0.55;

/// Existing facts a candidate is compared against.
const NEIGHBOURS: usize = 4;

/// The store as the pass found it, with what finding a candidate's neighbours needs (the
/// lexical index is built once per pass, not per candidate).
pub(super) struct Existing<'a> {
    pub(super) snap: &'a Snapshot,
    pub(super) index: LexicalIndex,
    pub(super) embedder: Option<&'a dyn Embedder>,
    pub(super) vectors: Option<&'a Vectors>,
}

impl<'a> Existing<'a> {
    pub(super) fn new(
        snap: &'a Snapshot,
        embedder: Option<&'a dyn Embedder>,
        vectors: Option<&'a Vectors>,
    ) -> Existing<'a> {
        Existing {
            snap,
            index: LexicalIndex::new(snap.records.iter().map(|r| r.text.as_str())),
            embedder,
            vectors,
        }
    }

    /// The existing facts nearest to `c`: related by a shared content word or a cosine of at
    /// least the recall gate, ranked by capped BM25 plus cosine. Each comes with its cosine.
    pub(super) fn neighbours(&self, c: &Candidate) -> Vec<(&'a Record, Option<f32>)> {
        let records = &self.snap.records;
        let bm25 = self
            .index
            .scores(&self.index.terms(&content_words(&c.text)));
        let cosines: Vec<Option<f32>> = match (self.embedder, self.vectors) {
            (Some(e), Some(v)) => match e.embed(&[&c.text]) {
                Ok(q) if q.len() == 1 => records
                    .iter()
                    .map(|r| v.similarity(r, e.id(), &q[0]))
                    .collect(),
                _ => vec![None; records.len()],
            },
            _ => vec![None; records.len()],
        };
        let mut scored: Vec<(usize, f32)> = (0..records.len())
            // A fact is compared with facts, never with a session's summary.
            .filter(|&i| records[i].kind == c.kind)
            .filter_map(|i| {
                let cos = cosines[i].unwrap_or(0.0);
                let related = bm25[i] > 0.0 || cos >= RELATED_COSINE;
                related.then_some((i, bm25[i].min(10.0) / 10.0 + cos))
            })
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored
            .into_iter()
            .take(NEIGHBOURS)
            .map(|(i, _)| (&records[i], cosines[i]))
            .collect()
    }
}
