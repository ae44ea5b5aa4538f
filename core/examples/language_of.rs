//! The language gate's accuracy on labelled turns: reads `lang<TAB>text` lines on stdin
//! (`scripts/language-turns.py` writes them) and prints, per language, the share given the right
//! language and the share read as English. `--detector NAME` picks what tells a Latin-script
//! text's language (a text in another script is told by its letters in every case):
//! `readers` (memory's own, `language::detect::Readers`, the default), `votes` (the readers'
//! words alone, English winning doubt), `lingua` and `whatlang` (each one's top language among
//! the readers' eight), and `lingua-english-first` (lingua with English winning doubt: what
//! memory ran until its readers told languages).
//! `--errors` prints each miss to stderr.
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)] // an example

use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::LazyLock;

use localm_core::language::detect::{Detector, Readers};
use localm_core::language::{Lang, by_script};

/// lingua over the eight Latin-script languages memory reads.
static LINGUA: LazyLock<lingua::LanguageDetector> =
    LazyLock::new(|| lingua::LanguageDetectorBuilder::from_all_languages().build());

fn from_lingua(l: lingua::Language) -> Lang {
    use lingua::Language as L;
    match l {
        L::French => Lang::French,
        L::German => Lang::German,
        L::Spanish => Lang::Spanish,
        L::Italian => Lang::Italian,
        L::Portuguese => Lang::Portuguese,
        L::Dutch => Lang::Dutch,
        L::Indonesian => Lang::Indonesian,
        _ => Lang::English,
    }
}

/// lingua's top language.
struct Lingua;
impl Detector for Lingua {
    fn latin(&self, text: &str) -> Lang {
        LINGUA
            .detect_language_of(text)
            .map_or(Lang::English, from_lingua)
    }
}

/// lingua with English winning doubt, as memory ran it until its readers told languages: English
/// when lingua ranks it first, or gives it at least 0.1 and the text has a word only English
/// has; a text of fewer than four words is another language only at 0.3 or more.
struct LinguaEnglishFirst;
impl Detector for LinguaEnglishFirst {
    fn latin(&self, text: &str) -> Lang {
        const ENGLISH_WORDS: &[&str] = &[
            "i'm", "i've", "i'd", "i'll", "my", "the", "and", "is", "you", "it", "it's", "to",
            "of", "was", "have", "too", "that", "with", "this", "what", "do", "don't", "hello",
            "bye", "yes", "thanks",
        ];
        let head = text
            .char_indices()
            .nth(2_000)
            .map_or(text, |(end, _)| &text[..end]);
        let values = LINGUA.compute_language_confidence_values(head);
        let english = values
            .iter()
            .find(|(l, _)| *l == lingua::Language::English)
            .map_or(0.0, |(_, c)| *c);
        let Some(&(top, sure)) = values.first() else {
            return Lang::English;
        };
        if sure < 0.3 && localm_core::words::tokens(text).len() < 4 {
            return Lang::English;
        }
        let english_word = || {
            text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
                .any(|w| w == "I" || ENGLISH_WORDS.contains(&w.to_lowercase().as_str()))
        };
        if top == lingua::Language::English || (english >= 0.1 && english_word()) {
            return Lang::English;
        }
        from_lingua(top)
    }
}

/// whatlang's top language among the eight.
struct Whatlang;
impl Detector for Whatlang {
    fn latin(&self, text: &str) -> Lang {
        use whatlang::Lang as W;
        let eight = vec![
            W::Eng,
            W::Fra,
            W::Deu,
            W::Spa,
            W::Ita,
            W::Por,
            W::Nld,
            W::Ind,
        ];
        let detector = whatlang::Detector::with_allowlist(eight);
        match detector.detect_lang(text) {
            Some(W::Fra) => Lang::French,
            Some(W::Deu) => Lang::German,
            Some(W::Spa) => Lang::Spanish,
            Some(W::Ita) => Lang::Italian,
            Some(W::Por) => Lang::Portuguese,
            Some(W::Nld) => Lang::Dutch,
            Some(W::Ind) => Lang::Indonesian,
            _ => Lang::English,
        }
    }
}

/// The readers' votes alone, English winning a tie or no vote (`readers` without whatlang).
struct VotesAlone;
impl Detector for VotesAlone {
    fn latin(&self, text: &str) -> Lang {
        use localm_core::language::reader::READERS;
        let scores = localm_core::language::detect::votes(text);
        let (best, top) =
            scores.iter().enumerate().fold(
                (0, scores[0]),
                |(b, m), (i, &s)| if s > m { (i, s) } else { (b, m) },
            );
        if top <= scores[0] {
            return Lang::English;
        }
        READERS[best].lang
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let errors = args.iter().any(|a| a == "--errors");
    let name = args
        .iter()
        .position(|a| a == "--detector")
        .and_then(|i| args.get(i + 1))
        .map_or("readers", String::as_str);
    let detector: &dyn Detector = match name {
        "readers" => &Readers,
        "votes" => &VotesAlone,
        "lingua" => &Lingua,
        "lingua-english-first" => &LinguaEnglishFirst,
        "whatlang" => &Whatlang,
        other => {
            panic!("no detector {other}: readers, votes, lingua, lingua-english-first, whatlang")
        }
    };
    let mut by: BTreeMap<String, (u32, u32, u32)> = BTreeMap::new();
    let started = std::time::Instant::now();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let Some((want, text)) = line.split_once('\t') else {
            continue;
        };
        let got = by_script(text)
            .unwrap_or_else(|| detector.latin(text))
            .code();
        if errors && got != want {
            eprintln!("{want}->{got}\t{text}");
        }
        let e = by.entry(want.to_string()).or_default();
        e.0 += 1;
        e.1 += u32::from(got == want);
        e.2 += u32::from(got == "en");
    }
    let took = started.elapsed();
    println!("{name}: lang  turns  right  read as English");
    for (lang, (n, right, en)) in by {
        let share = |k: u32| f64::from(k) / f64::from(n);
        println!("{lang:4}  {n:5}  {:.4}  {:.4}", share(right), share(en));
    }
    println!("{:.2} s for all", took.as_secs_f64());
}
