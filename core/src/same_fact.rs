//! The one rule for "the same fact", used by consolidation (duplicates, overlaps) and the store
//! (a fact that is already there): the same words up to case and spacing, a cosine at or above
//! [`SAME_COSINE`], or content words that mostly coincide, and in every case the same values (no
//! number or name one holds that the other lacks); and how two facts' content words overlap when
//! they are not the same.

use std::collections::HashSet;

use crate::language::content_words;

/// Content-word overlap (Jaccard) at which two facts are the same fact.
pub const SAME_JACCARD: f32 = 0.8;
/// Cosine at which two facts are the same fact.
pub const SAME_COSINE: f32 = 0.92;

/// The key two facts are compared by for "the same words": case- and space-insensitive.
pub fn key(text: &str) -> String {
    text.split_whitespace()
        .map(|w| w.to_lowercase())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The content words [`overlap`] compares.
pub fn word_set(text: &str) -> HashSet<String> {
    content_words(text).into_iter().collect()
}

/// The values a fact states: its numbers ("25", "5K", "$250", "2023", "four") and the names it writes
/// with a capital inside the sentence ("Luna", "Seattle"), lowercased, without a trailing "'s".
/// "User" and "I" are not names.
fn values(text: &str) -> HashSet<String> {
    text.split_whitespace()
        .enumerate()
        .filter_map(|(k, w)| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '$');
            let w = w
                .strip_suffix("'s")
                .or_else(|| w.strip_suffix("\u{2019}s"))
                .unwrap_or(w);
            let number =
                w.chars().any(|c| c.is_ascii_digit()) || crate::words::is_count(&w.to_lowercase());
            let name = k > 0
                && w.chars().next().is_some_and(char::is_uppercase)
                && !matches!(w, "User" | "I");
            (number || name).then(|| w.to_lowercase())
        })
        .collect()
}

/// Whether `new` states a number `old` does not, and `old` a number of its own: a newer value
/// of what `old` counts ("User has completed 30 videos" of "… 20 videos").
pub fn newer_number(new: &str, old: &str) -> bool {
    let numbers = |t: &str| -> HashSet<String> {
        values(t)
            .into_iter()
            .filter(|v| v.chars().any(|c| c.is_ascii_digit()) || crate::words::is_count(v))
            .collect()
    };
    let (n, o) = (numbers(new), numbers(old));
    !o.is_empty() && n.iter().any(|v| !o.contains(v))
}

/// What a fact counts, read once: the numbers it states and its other content words.
pub struct Counted {
    numbers: HashSet<String>,
    words: HashSet<String>,
}

impl Counted {
    pub fn of(text: &str) -> Counted {
        let numbers = values(text)
            .into_iter()
            .filter(|v| v.chars().any(|c| c.is_ascii_digit()) || crate::words::is_count(v))
            .collect();
        let words = word_set(text)
            .into_iter()
            .filter(|w| !w.chars().any(|c| c.is_ascii_digit()) && !crate::words::is_count(w))
            .collect();
        Counted { numbers, words }
    }

    /// Whether this is a newer count of what `old` counts: the same words but for a number it
    /// states anew ("User has tried four Korean restaurants so far" of "User has tried three
    /// Korean restaurants"). Recall brings the later said alone.
    pub fn newer_than(&self, old: &Counted) -> bool {
        let anew = !old.numbers.is_empty() && self.numbers.iter().any(|v| !old.numbers.contains(v));
        if !anew || self.words.is_empty() || old.words.is_empty() {
            return false;
        }
        let inter = self.words.intersection(&old.words).count() as f32;
        inter / self.words.union(&old.words).count() as f32 >= NEWER_COUNT_JACCARD
    }
}

/// The share of words two counts of one thing have in common, numbers aside.
const NEWER_COUNT_JACCARD: f32 = 0.6;

/// Whether `a` and `b` say the same (`cosine`, when known, of their embeddings). Two facts that
/// state different values are never the same, however close their embeddings: "User has 25
/// plants" is a newer value of "User has 20 plants" (about 0.97 apart in MiniLM), not a copy.
pub fn same(a: &str, b: &str, cosine: Option<f32>) -> bool {
    if key(a) == key(b) {
        return true;
    }
    if values(a) != values(b) {
        return false;
    }
    if cosine.is_some_and(|c| c >= SAME_COSINE) {
        return true;
    }
    let (x, y) = (word_set(a), word_set(b));
    if x.is_empty() || y.is_empty() {
        return false;
    }
    let inter = x.intersection(&y).count() as f32;
    let union = x.union(&y).count() as f32;
    inter / union >= SAME_JACCARD
}

/// How the content words of a new fact relate to a known one's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlap {
    /// The new fact says nothing the known one does not (its words are a subset).
    SaysLess,
    /// The new fact says all the known one does, and more.
    SaysMore,
    /// Neither holds the other (or one has no content words).
    Apart,
}

/// How `new` overlaps `known`.
pub fn overlap(new: &str, known: &str) -> Overlap {
    let (n, k) = (word_set(new), word_set(known));
    if n.is_empty() || k.is_empty() {
        Overlap::Apart
    } else if n.is_subset(&k) {
        Overlap::SaysLess
    } else if k.is_subset(&n) {
        Overlap::SaysMore
    } else {
        Overlap::Apart
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_fact_table() {
        for (a, b, cos, want) in [
            ("User prefers tea", "user prefers  TEA", None, true),
            (
                "User prefers green tea",
                "User prefers tea, green",
                None,
                true,
            ),
            ("User prefers tea", "User prefers coffee", None, false),
            ("a", "b", Some(0.95), true),
            ("a", "b", Some(0.5), false),
            // A different number or name is a newer value, not a copy, at any cosine.
            (
                "User has 25 plants in their apartment",
                "User has 20 plants in their apartment",
                Some(0.969),
                false,
            ),
            (
                "User's cat is named Mochi",
                "User's cat is named Luna",
                Some(0.95),
                false,
            ),
            (
                "User adopted a cat in March 2023",
                "User adopted a cat",
                Some(0.95),
                false,
            ),
            (
                "User has been using Trello for their projects",
                "User has been using Trello for projects",
                Some(0.96),
                true,
            ),
            (
                "debugged a  flaky USB upload test",
                "Debugged a flaky USB upload test",
                None,
                true,
            ),
            (
                "Debugged a USB upload test",
                "Debugged a flaky USB upload test",
                None,
                true,
            ),
            ("User has two dogs", "User has two cats", None, false),
            // A number in words is a value too.
            (
                "User has tried four Korean restaurants in their city",
                "User has tried three Korean restaurants in their city",
                Some(0.97),
                false,
            ),
        ] {
            assert_eq!(same(a, b, cos), want, "{a} ~ {b}");
        }
    }

    #[test]
    fn overlaps() {
        assert_eq!(
            overlap("User has a dog", "User has a dog named Rex"),
            Overlap::SaysLess
        );
        assert_eq!(
            overlap("User has a dog named Rex", "User has a dog"),
            Overlap::SaysMore
        );
        assert_eq!(overlap("User has a cat", "User has a dog"), Overlap::Apart);
        assert_eq!(overlap("", "User has a dog"), Overlap::Apart);
    }

    #[test]
    fn the_key_ignores_case_and_spacing() {
        assert_eq!(key("Prefers  TEA"), key("prefers tea"));
    }
}
