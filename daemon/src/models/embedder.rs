//! core's `Embedder` on the BERT encoder (localm-bert), with the last few query embeddings kept: a
//! query window recall has already embedded (the same text, e.g. a client re-sending a turn) is
//! answered from memory, the same vector bit for bit.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Mutex;

use anyhow::Context as _;
use localm_core::models::{Embedder, ModelError};

use super::bert::Bert;

/// Query texts whose vectors are kept.
pub const CACHED_QUERIES: usize = 16;

/// A loaded sentence-transformers model.
pub struct BertEmbedder {
    model: Bert,
    queries: QueryCache,
}

impl BertEmbedder {
    pub fn load(dir: &Path) -> anyhow::Result<BertEmbedder> {
        let model = Bert::load(dir)
            .with_context(|| format!("while loading the embedding model in {}", dir.display()))?;
        Ok(BertEmbedder {
            model,
            queries: QueryCache::default(),
        })
    }
}

impl Embedder for BertEmbedder {
    fn id(&self) -> &str {
        self.model.id()
    }
    fn dim(&self) -> usize {
        self.model.dim()
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        let run = |t: &[&str]| self.model.embed(t).map_err(|e| ModelError(e.to_string()));
        match texts {
            // One text is recall's query; a batch is facts being embedded, never repeated.
            [one] => self.queries.get_or(one, || run(texts)),
            _ => run(texts),
        }
    }
}

/// The vectors of the last [`CACHED_QUERIES`] single texts embedded, newest first.
#[derive(Default)]
pub struct QueryCache {
    kept: Mutex<VecDeque<(String, Vec<f32>)>>,
}

impl QueryCache {
    /// The kept vector of `text`, or `embed`'s answer for it (kept when it succeeds).
    pub fn get_or(
        &self,
        text: &str,
        embed: impl FnOnce() -> Result<Vec<Vec<f32>>, ModelError>,
    ) -> Result<Vec<Vec<f32>>, ModelError> {
        {
            let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(at) = kept.iter().position(|(t, _)| t == text) {
                let hit = kept.remove(at).expect("a position inside the deque");
                let v = hit.1.clone();
                kept.push_front(hit);
                return Ok(vec![v]);
            }
        }
        // The model runs without the lock held: other turns are not kept waiting.
        let v = embed()?;
        if let [one] = v.as_slice() {
            let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
            kept.push_front((text.to_string(), one.clone()));
            kept.truncate(CACHED_QUERIES);
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    #[test]
    fn a_query_seen_is_answered_from_memory_and_the_oldest_goes() {
        let cache = QueryCache::default();
        let calls = Cell::new(0);
        let embed = |x: f32| {
            calls.set(calls.get() + 1);
            Ok(vec![vec![x, 1.0]])
        };
        assert_eq!(
            cache.get_or("dinner ideas", || embed(0.5)).unwrap(),
            vec![vec![0.5, 1.0]]
        );
        // The same text: the same vector, and the model is not asked again.
        assert_eq!(
            cache.get_or("dinner ideas", || embed(9.0)).unwrap(),
            vec![vec![0.5, 1.0]]
        );
        assert_eq!(calls.get(), 1);
        // A failure is not kept.
        assert!(
            cache
                .get_or("boom", || Err(ModelError("no".into())))
                .is_err()
        );
        assert_eq!(
            cache.get_or("boom", || embed(2.0)).unwrap(),
            vec![vec![2.0, 1.0]]
        );
        // Past the cap, the least recently used text is embedded again.
        for k in 0..CACHED_QUERIES {
            cache.get_or(&format!("q{k}"), || embed(0.0)).unwrap();
        }
        let before = calls.get();
        cache.get_or("dinner ideas", || embed(0.5)).unwrap();
        assert_eq!(calls.get(), before + 1, "evicted");
        cache
            .get_or(&format!("q{}", CACHED_QUERIES - 1), || embed(0.0))
            .unwrap();
        assert_eq!(calls.get(), before + 1, "the newest is kept");
    }
}
