//! Lexical relevance: content words (lower-cased, stop words out, a light plural stemmer) and
//! BM25 over them.

use std::collections::HashMap;

/// Words too common to say what a fact is about.
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as",
    "at", "be", "been", "before", "being", "but", "by", "can", "could", "did", "do", "does",
    "doing", "don't", "for", "from", "had", "has", "have", "having", "he", "her", "here", "him",
    "his", "how", "i", "i'm", "if", "in", "into", "is", "it", "it's", "its", "just", "let", "me",
    "mine", "more", "most", "my", "myself", "no", "not", "now", "of", "on", "once", "only", "or",
    "other", "our", "out", "over", "please", "same", "she", "should", "so", "some", "such", "tell",
    "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those",
    "through", "to", "too", "under", "until", "up", "us", "very", "was", "we", "were", "what",
    "what's", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would",
    "yes", "you", "your", "yours", "know", "remember", "think", "thing", "things", "really",
    "well", "get", "got", "okay", "ok", "hi", "hello", "thanks", "thank", "user", "way", "lot",
    "today", "one", "make", "go", "going", "say", "said", "see",
];

fn is_stop_word(w: &str) -> bool {
    static SET: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
        std::sync::OnceLock::new();
    SET.get_or_init(|| STOP_WORDS.iter().copied().collect())
        .contains(w)
}

/// Whether the light stemmer is applied (decided by the recall evaluation; see README).
pub const STEM: bool = true;

/// The content words of `text`, in order, with repeats.
pub fn content_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for raw in text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '+' || c == '#')) {
        let w = raw.trim_matches('\'');
        if w.is_empty() {
            continue;
        }
        let lower = w.to_lowercase();
        if lower.chars().count() < 2 && !lower.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        if is_stop_word(&lower) {
            continue;
        }
        let lower = lower
            .strip_suffix("'s")
            .map(str::to_string)
            .unwrap_or(lower);
        out.push(if STEM { stem(&lower) } else { lower });
    }
    out
}

/// A light English plural stemmer (S-stemmer): "libraries" → "library", "tools" → "tool".
pub fn stem(word: &str) -> String {
    let n = word.len();
    if n > 4 && word.ends_with("ies") && !word.ends_with("eies") && !word.ends_with("aies") {
        return format!("{}y", &word[..n - 3]);
    }
    if n > 3
        && word.ends_with("es")
        && !word.ends_with("aes")
        && !word.ends_with("ees")
        && !word.ends_with("oes")
    {
        let base = &word[..n - 2];
        if base.ends_with("ss")
            || base.ends_with("sh")
            || base.ends_with("ch")
            || base.ends_with('x')
        {
            return base.to_string();
        }
        return word[..n - 1].to_string();
    }
    if n > 3
        && word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
    {
        return word[..n - 1].to_string();
    }
    word.to_string()
}

const K1: f32 = 1.2;
const B: f32 = 0.75;

/// BM25 over a fixed set of documents (the store's facts), reusable across queries. Words are
/// interned to integers once, so scoring a query compares numbers, not strings.
#[derive(Debug, Clone, Default)]
pub struct LexicalIndex {
    docs: Vec<Vec<u32>>,
    vocab: HashMap<String, u32>,
    df: Vec<u32>,
    avgdl: f32,
}

impl LexicalIndex {
    pub fn new<'a>(texts: impl IntoIterator<Item = &'a str>) -> LexicalIndex {
        let mut vocab: HashMap<String, u32> = HashMap::new();
        let mut df: Vec<u32> = Vec::new();
        let mut docs: Vec<Vec<u32>> = Vec::new();
        for text in texts {
            let mut doc: Vec<u32> = Vec::new();
            for w in content_words(text) {
                let next = vocab.len() as u32;
                let id = *vocab.entry(w).or_insert(next);
                if id as usize == df.len() {
                    df.push(0);
                }
                if !doc.contains(&id) {
                    df[id as usize] += 1;
                }
                doc.push(id);
            }
            docs.push(doc);
        }
        let total: usize = docs.iter().map(Vec::len).sum();
        let avgdl = if docs.is_empty() {
            1.0
        } else {
            (total as f32 / docs.len() as f32).max(1.0)
        };
        LexicalIndex {
            docs,
            vocab,
            df,
            avgdl,
        }
    }

    /// The query's words that occur in some document, deduplicated (others cannot match).
    pub fn terms(&self, query_words: &[String]) -> Vec<u32> {
        let mut t: Vec<u32> = query_words
            .iter()
            .filter_map(|w| self.vocab.get(w).copied())
            .collect();
        t.sort_unstable();
        t.dedup();
        t
    }

    /// BM25 score of each document for the query terms; 0 when no word is shared.
    pub fn scores(&self, terms: &[u32]) -> Vec<f32> {
        let n = self.docs.len() as f32;
        self.docs
            .iter()
            .map(|doc| {
                let dl = doc.len() as f32;
                terms
                    .iter()
                    .map(|t| {
                        let tf = doc.iter().filter(|d| *d == t).count() as f32;
                        if tf == 0.0 {
                            return 0.0;
                        }
                        let df = self.df[*t as usize] as f32;
                        let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                        idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * dl / self.avgdl))
                    })
                    .sum()
            })
            .collect()
    }

    /// Whether document `i` shares a content word with the query.
    pub fn shares_word(&self, i: usize, terms: &[u32]) -> bool {
        self.docs[i].iter().any(|w| terms.contains(w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_words_table() {
        assert_eq!(content_words("What is my name?"), vec!["name"]);
        assert_eq!(
            content_words("I prefer TypeScript over JavaScript"),
            vec!["prefer", "typescript", "javascript"]
        );
        assert_eq!(
            content_words("Ada's libraries and boxes"),
            vec!["ada", "library", "box"]
        );
        assert_eq!(
            content_words("C++ and C# on Linux 6"),
            vec!["c++", "c#", "linux", "6"]
        );
        assert!(content_words("yes, do that").is_empty());
    }

    #[test]
    fn stem_table() {
        for (w, s) in [
            ("tools", "tool"),
            ("libraries", "library"),
            ("classes", "class"),
            ("boxes", "box"),
            ("glasses", "glass"),
            ("status", "status"),
            ("analysis", "analysis"),
            ("pages", "page"),
            ("bus", "bus"),
        ] {
            assert_eq!(stem(w), s, "{w}");
        }
    }

    #[test]
    fn bm25_prefers_rarer_shared_words() {
        let idx = LexicalIndex::new([
            "Works on a printer firmware project",
            "Prefers tea over coffee",
            "Project deadline is in March",
        ]);
        let s = idx.scores(&idx.terms(&content_words("printer project unknownword")));
        assert!(s[0] > s[2] && s[2] > 0.0 && s[1] == 0.0, "{s:?}");
        let project = idx.terms(&content_words("project"));
        assert!(idx.shares_word(2, &project));
        assert!(!idx.shares_word(1, &project));
    }
}
