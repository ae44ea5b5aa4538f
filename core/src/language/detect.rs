//! Which Latin-script language a text is in, told by the readers themselves: each word a reader
//! lists (its grammar, "I", "you", question, time and mood words) and each letter only its
//! language writes ([`Reader::letters_of_its_own`]) is a vote, shared among the readers that
//! list it. Where the votes cannot tell (none in a text of four words or more, or two readers
//! beyond English within one vote), whatlang's letter trigrams choose between them. English wins
//! any other doubt: a tie with English, or no vote in a short text, is English, so no English
//! turn loses its facts to a guess. Measured against lingua and whatlang alone in
//! docs/benchmarks.md (`examples/language_of.rs`).

use std::collections::HashMap;
use std::sync::OnceLock;

use super::reader::{READERS, Reader};
use super::{Lang, SHORT_WORDS};

/// How a Latin-script text's language is told: memory runs [`Readers`]; the benchmark puts
/// others beside it.
pub trait Detector: Sync {
    /// The language of `text`, whose letters are mostly Latin.
    fn latin(&self, text: &str) -> Lang;
}

/// The readers' votes, whatlang where they cannot tell, English winning doubt.
pub struct Readers;

/// Two readers beyond English closer than this are a doubt that letter trigrams settle ("mi
/// piace", Italian, votes for Spanish's "mi" too).
const CLOSE: f64 = 1.0;

/// A vote's weight for a letter only one language writes: a word weighs one.
const LETTER: f64 = 0.5;

/// The readers that list each word, and each phrase of up to [`PHRASE_WORDS`] words (its words
/// joined by one space), as bits over [`READERS`]: a word of a phrase votes alone too.
fn voters() -> &'static HashMap<String, u32> {
    static VOTERS: OnceLock<HashMap<String, u32>> = OnceLock::new();
    VOTERS.get_or_init(|| {
        let mut m: HashMap<String, u32> = HashMap::new();
        for (i, r) in READERS.iter().enumerate() {
            for phrase in said_by(r) {
                let words = crate::words::tokens(phrase);
                if (2..=PHRASE_WORDS).contains(&words.len()) {
                    *m.entry(words.join(" ")).or_default() |= 1 << i;
                }
                for w in words {
                    *m.entry(w).or_default() |= 1 << i;
                }
            }
        }
        m
    })
}

/// The longest phrase that votes as one ("ya no", "weißt du", "tous les"), beside its words.
const PHRASE_WORDS: usize = 3;

/// Every word and phrase `r` lists that its language says in everyday talk.
fn said_by(r: &Reader) -> Vec<&'static str> {
    let t = &r.times;
    let id = &r.identity;
    let mut all: Vec<&'static str> = [
        r.grammar,
        r.first_person,
        r.you,
        r.asks,
        r.listener_openers,
        r.passing,
        r.pointing,
        r.tally.count,
        r.tally.order,
        t.likings,
        t.habits,
        id.name.asked,
        id.name.told,
        id.home.asked,
        id.home.told,
        id.work.asked,
        id.work.told,
    ]
    .concat();
    for p in &mut all {
        *p = p.trim_start_matches('^');
    }
    all.extend(r.given_up.iter().map(|c| c.split(" +").next().unwrap_or(c)));
    all.extend(t.days.iter().map(|(w, _)| *w));
    all.extend(t.weeks.iter().map(|(w, _)| *w));
    all.extend(t.weekdays.iter().flat_map(|d| d.iter()));
    all
}

/// Adds `weight` shared among the readers in `bits`.
fn vote(scores: &mut [f64], bits: u32, weight: f64) {
    let n = bits.count_ones();
    if n == 0 {
        return;
    }
    for (i, s) in scores.iter_mut().enumerate() {
        if bits & (1 << i) != 0 {
            *s += weight / f64::from(n);
        }
    }
}

/// The readers that list `c` among the letters only their language writes.
fn letter_voters(c: char) -> u32 {
    READERS
        .iter()
        .enumerate()
        .filter(|(_, r)| r.letters_of_its_own.contains(&c))
        .fold(0, |bits, (i, _)| bits | 1 << i)
}

/// Each reader's votes for `text`, in the order of [`READERS`].
pub fn votes(text: &str) -> Vec<f64> {
    let mut scores = vec![0.0; READERS.len()];
    let words = crate::words::tokens(text);
    for n in 1..=PHRASE_WORDS {
        for run in words.windows(n) {
            if let Some(&bits) = voters().get(run.join(" ").as_str()) {
                vote(&mut scores, bits, 1.0);
            }
        }
    }
    for c in text.chars().flat_map(char::to_lowercase) {
        vote(&mut scores, letter_voters(c), LETTER);
    }
    scores
}

impl Detector for Readers {
    fn latin(&self, text: &str) -> Lang {
        let scores = votes(text);
        let mut order: Vec<usize> = (0..scores.len()).collect();
        // Most votes first; a tie goes to the reader listed first, English before all.
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        let (first, second) = (order[0], order[1]);
        if scores[first] == 0.0 {
            // Too few words for letter trigrams ("Blue!", "a Korg B1"): English.
            if crate::words::tokens(text).len() < SHORT_WORDS {
                return Lang::English;
            }
            return by_trigrams(text).unwrap_or(Lang::English);
        }
        let first_lang = READERS[first].lang;
        if first_lang == Lang::English {
            return Lang::English;
        }
        let second_lang = READERS[second].lang;
        if second_lang == Lang::English || scores[first] - scores[second] >= CLOSE {
            return first_lang;
        }
        by_trigrams(text)
            .filter(|l| [first_lang, second_lang].contains(l))
            .unwrap_or(first_lang)
    }
}

/// Characters of a text letter trigrams read at most: a pasted page is told by its start, and a
/// text's language costs the same whatever its length.
const READ_CHARS: usize = 2_000;

/// whatlang's choice among the Latin-script languages memory reads.
fn by_trigrams(text: &str) -> Option<Lang> {
    let head = text
        .char_indices()
        .nth(READ_CHARS)
        .map_or(text, |(end, _)| &text[..end]);
    static TRIGRAMS: OnceLock<whatlang::Detector> = OnceLock::new();
    let trigrams = TRIGRAMS.get_or_init(|| {
        let latin = READERS.iter().filter_map(|r| trigrams_of(r.lang)).collect();
        whatlang::Detector::with_allowlist(latin)
    });
    let info = trigrams.detect(head)?;
    let picked = info.lang();
    READERS
        .iter()
        .map(|r| r.lang)
        .find(|&l| trigrams_of(l) == Some(picked))
}

/// whatlang's name for a Latin-script language memory reads (every one needs its arm: a new
/// `Lang` does not compile until it has one); `None` for a language told by its script.
fn trigrams_of(lang: Lang) -> Option<whatlang::Lang> {
    use whatlang::Lang as W;
    match lang {
        Lang::English => Some(W::Eng),
        Lang::French => Some(W::Fra),
        Lang::German => Some(W::Deu),
        Lang::Spanish => Some(W::Spa),
        Lang::Italian => Some(W::Ita),
        Lang::Portuguese => Some(W::Por),
        Lang::Dutch => Some(W::Nld),
        Lang::Indonesian => Some(W::Ind),
        Lang::Chinese | Lang::Japanese | Lang::Korean | Lang::Other => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each Latin-script reader tells a short chat line of its own language, and English keeps
    /// what it shares with them. A new reader adds its line here.
    #[test]
    fn each_reader_tells_its_own_language() {
        for (text, lang) in [
            ("I've been a nurse for ten years.", Lang::English),
            ("Me too!", Lang::English),
            (
                "Bonjour, j'habite à Lyon avec mes deux chats.",
                Lang::French,
            ),
            ("Ya no tomo pastillas para dormir.", Lang::Spanish),
            ("mi piace ascoltare la musica classica.", Lang::Italian),
            (
                "Eu moro em Lisboa e trabalho num hospital.",
                Lang::Portuguese,
            ),
            ("Ich wohne seit drei Jahren in Bremen.", Lang::German),
            ("Ik woon in Utrecht en ik heb een hond.", Lang::Dutch),
            ("apakah anda punya hewan peliharaan?", Lang::Indonesian),
        ] {
            assert_eq!(Readers.latin(text), lang, "{text}");
        }
    }

    /// A short text with no reader's word is English (a name, a product, a reply), and a text
    /// of none of the readers' languages and no vote is told by its letters, never a panic.
    #[test]
    fn no_vote_is_english_when_short() {
        for text in ["a Korg B1", "Blue!", "Pip", "CKA exam", ""] {
            assert_eq!(Readers.latin(text), Lang::English, "{text}");
        }
        let long = "Kakak perempuan membeli sepatu merah kemarin sore.";
        assert_eq!(Readers.latin(long), Lang::Indonesian);
    }
}
