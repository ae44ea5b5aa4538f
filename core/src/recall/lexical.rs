//! Lexical relevance: BM25 over content words (the word model is `crate::words`), and the
//! generic words that count for less. The index also keeps what each fact says by rule that
//! does not change between queries: its standing constraint (`constraint.rs`), and whether it
//! carries a date (`when.rs`).

pub use crate::language::content_words;
pub use crate::words::{STEM, stem};

use std::collections::HashMap;

use super::constraint::{self, Constraint};
use super::identity::{self, Asked, Held};
use super::when;

/// Generic words that still say a little (counts, places, times, everyday verbs): "How far
/// away is Mars?" shares "away" with "User's cat ran away" without being about it. They count
/// at [`WEAK_WEIGHT`] of their IDF; so does any number.
const WEAK_WORDS: &[&str] = &[
    "many",
    "much",
    "few",
    "lot",
    "lots",
    "several",
    "number",
    "amount",
    "far",
    "away",
    "near",
    "top",
    "bottom",
    "left",
    "right",
    "center",
    "centre",
    "middle",
    "side",
    "back",
    "front",
    "point",
    "time",
    "year",
    "month",
    "week",
    "day",
    "first",
    "last",
    "next",
    "ago",
    "long",
    "old",
    "new",
    "later",
    "soon",
    "early",
    "late",
    "use",
    "take",
    "put",
    "give",
    "write",
    "look",
    "find",
    "want",
    "need",
    "like",
    "feel",
    "keep",
    "start",
    "stop",
    "set",
    "try",
    "help",
    "show",
    "call",
    "come",
    "become",
    "mean",
    "good",
    "bad",
    "best",
    "better",
    "big",
    "small",
    "great",
    "little",
    "high",
    "low",
    "real",
    "sure",
    "kind",
    "type",
    "sort",
    "different",
    "difference",
    "between",
    "off",
    "half",
    "whole",
    "part",
    "stuff",
    "ever",
    "still",
    "even",
    "another",
    "each",
    "every",
    "own",
];

/// What a weak word or a number weighs, as a fraction of its IDF.
pub const WEAK_WEIGHT: f32 = 0.5;

/// Whether `w` (a content word) is generic: a weak word or a number.
pub fn is_weak(w: &str) -> bool {
    static SET: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
        std::sync::OnceLock::new();
    SET.get_or_init(|| WEAK_WORDS.iter().copied().collect())
        .contains(w)
        || w.chars().all(|c| c.is_ascii_digit() || c == '.')
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
    /// Each fact's standing constraint, recognised once when the index is built.
    constraints: Vec<Option<Constraint>>,
    /// Whether each fact carries a date.
    dated: Vec<bool>,
    /// The identity questions each fact answers ("what's my name?"), recognised once.
    answers: Vec<Vec<Asked>>,
    /// Whether an English-only embedding model may score each fact
    /// (`crate::language::reads_as_english`).
    english: Vec<bool>,
    /// The value held one at a time each fact states (where the user lives, who they work
    /// for), recognised once.
    held: Vec<Option<Held>>,
    /// What each fact says the user gave up, if anything (`given_up.rs`).
    gave_up: Vec<Option<Vec<String>>>,
}

impl LexicalIndex {
    pub fn new<'a>(texts: impl IntoIterator<Item = &'a str>) -> LexicalIndex {
        let mut vocab: HashMap<String, u32> = HashMap::new();
        let mut df: Vec<u32> = Vec::new();
        let mut docs: Vec<Vec<u32>> = Vec::new();
        let mut constraints = Vec::new();
        let mut dated = Vec::new();
        let mut answers = Vec::new();
        let mut english = Vec::new();
        let mut held = Vec::new();
        let mut gave_up = Vec::new();
        for text in texts {
            held.push(identity::held(text));
            gave_up.push(super::given_up::given_up(text));
            english.push(crate::language::reads_as_english(text));
            constraints.push(constraint::of_fact(text));
            answers.push(identity::answers(text));
            dated.push(when::carries_date(text));
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
            constraints,
            dated,
            answers,
            english,
            held,
            gave_up,
        }
    }

    /// What fact `i` says the user gave up, if anything.
    pub fn gave_up(&self, i: usize) -> Option<&[String]> {
        self.gave_up.get(i).and_then(|g| g.as_deref())
    }

    /// The value held one at a time fact `i` states, if one.
    pub fn held(&self, i: usize) -> Option<Held> {
        self.held.get(i).copied().flatten()
    }

    /// Whether fact `i` carries a date.
    pub fn dated(&self, i: usize) -> bool {
        self.dated.get(i).copied().unwrap_or(false)
    }

    /// Whether an English-only embedding model may score fact `i`.
    pub fn english(&self, i: usize) -> bool {
        self.english.get(i).copied().unwrap_or(true)
    }

    /// Whether fact `i` answers the identity question `asked`.
    pub fn answers(&self, i: usize, asked: Asked) -> bool {
        self.answers.get(i).is_some_and(|a| a.contains(&asked))
    }

    /// The standing constraint fact `i` states, if any.
    pub fn constraint(&self, i: usize) -> Option<Constraint> {
        self.constraints.get(i).copied().flatten()
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

    /// The inverse document frequency of a word held by `df` of the facts (BM25's, always > 0).
    fn idf(&self, df: u32) -> f32 {
        let n = self.docs.len() as f32;
        let df = df as f32;
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    /// The query's distinct content words weighted by IDF, generic ones at [`WEAK_WEIGHT`]. A
    /// word no fact holds weighs as much as the rarest word some fact holds: it is part of what
    /// the query is about, and no fact has it.
    pub fn weigh(&self, query_words: &[String]) -> Weighed {
        let mut words: Vec<&String> = query_words.iter().collect();
        words.sort_unstable();
        words.dedup();
        let mut terms = Vec::new();
        let mut mass = 0.0;
        for w in words {
            let id = self.vocab.get(w).copied();
            let df = id.map_or(1, |id| self.df[id as usize]);
            let weight = self.idf(df) * if is_weak(w) { WEAK_WEIGHT } else { 1.0 };
            mass += weight;
            if let Some(id) = id {
                terms.push((id, weight));
            }
        }
        terms.sort_unstable_by_key(|t| t.0);
        Weighed { terms, mass }
    }

    /// The share of the query's weight that document `i` holds: 0 (no shared word) to 1 (every
    /// query word). An absolute scale: it does not depend on how well the other facts match.
    pub fn share(&self, i: usize, q: &Weighed) -> f32 {
        if q.mass <= 0.0 {
            return 0.0;
        }
        let held: f32 = q
            .terms
            .iter()
            .filter(|(id, _)| self.docs[i].contains(id))
            .map(|(_, idf)| idf)
            .sum();
        held / q.mass
    }

    /// The words of `q` that document `i` holds.
    pub fn shared_words(&self, i: usize, q: &Weighed) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for (word, id) in &self.vocab {
            if q.terms.iter().any(|t| t.0 == *id) && self.docs[i].contains(id) {
                names.push(word);
            }
        }
        names.sort_unstable();
        names
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

/// A query's distinct content words with their IDF weights, and the weight of all of them
/// (words no fact holds included).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Weighed {
    /// Words some fact holds: (word id, weight), by id.
    pub terms: Vec<(u32, f32)>,
    /// The weight of every distinct query word.
    pub mass: f32,
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
    fn share_is_absolute_and_generic_words_weigh_little() {
        let idx = LexicalIndex::new([
            "User's cat ran away last year",
            "User has many plants at home",
            "Works on a printer firmware project",
        ]);
        let q = |text: &str| idx.weigh(&content_words(text));
        // One weak word among unknown ones holds a small share, however it ranks.
        let mars = q("How far away is Mars?");
        assert!(idx.share(0, &mars) <= 0.25, "{}", idx.share(0, &mars));
        let tabs = q("How many tabs can Firefox open?");
        assert!(idx.share(1, &tabs) < 0.2, "{}", idx.share(1, &tabs));
        // The fact holding every query word holds all of its weight.
        let fw = q("printer firmware");
        assert!((idx.share(2, &fw) - 1.0).abs() < 1e-6);
        assert_eq!(idx.share(0, &fw), 0.0);
        assert_eq!(idx.shared_words(2, &fw), vec!["firmware", "printer"]);
        // Numbers are generic too.
        assert!(is_weak("3") && is_weak("2.5") && is_weak("many") && !is_weak("firmware"));
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
