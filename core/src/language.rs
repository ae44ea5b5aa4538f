//! The language of a text: which rules may read it. Letters of a script other than Latin decide
//! at once (Han with kana is Japanese, Han alone Chinese, Hangul Korean, Cyrillic, Arabic and the
//! rest are a language memory does not read); Latin letters are told by the readers' own words
//! (`detect`), letter trigrams settling what they cannot. English wins any doubt, so no English
//! turn loses its facts to a guess (measured in docs/benchmarks.md).

pub mod detect;
pub mod reader;
pub mod unread;

pub mod de;
pub mod en;
pub mod es;
pub mod fr;
pub mod id;
pub mod it;
pub mod ja;
pub mod ko;
pub mod nl;
pub mod pt;
pub mod zh;

use crate::words::{is_han, is_hangul, is_kana};
use serde::{Deserialize, Serialize};

/// The content words of `text` (`crate::words::content_words`) without the grammar words of
/// the language its grammar says it is in ("Où est-ce que j'habite ?" → "j'habite"): what
/// recall and the same-fact rule compare. English text, and text in no reader's grammar, keeps
/// `crate::words`' own (English) list alone.
pub fn content_words(text: &str) -> Vec<String> {
    let words = crate::words::content_words(text);
    let Some(grammar) = reader::grammar_of(&crate::words::tokens(text)) else {
        return words;
    };
    let is_grammar = |w: &str| {
        grammar
            .iter()
            .any(|g| *g == w || (g.ends_with('s') && crate::words::stem(g) == w))
    };
    words.into_iter().filter(|w| !is_grammar(w)).collect()
}

/// A language memory tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lang {
    English,
    French,
    German,
    Spanish,
    Italian,
    Portuguese,
    Dutch,
    Indonesian,
    Chinese,
    Japanese,
    Korean,
    /// A script or language memory does not read (Cyrillic, Arabic, Greek, Hebrew, Devanagari,
    /// Thai, …).
    Other,
}

impl Lang {
    /// The ISO 639-1 code ("en", "fr"), or "other".
    pub fn code(self) -> &'static str {
        match self {
            Lang::English => "en",
            Lang::French => "fr",
            Lang::German => "de",
            Lang::Spanish => "es",
            Lang::Italian => "it",
            Lang::Portuguese => "pt",
            Lang::Dutch => "nl",
            Lang::Indonesian => "id",
            Lang::Chinese => "zh",
            Lang::Japanese => "ja",
            Lang::Korean => "ko",
            Lang::Other => "other",
        }
    }

    /// Written without spaces between words (a word count says nothing; characters do).
    pub fn unspaced(self) -> bool {
        matches!(self, Lang::Chinese | Lang::Japanese)
    }

    /// Its words are matched inside the text's words: written without spaces, or with endings
    /// joined to its words (Korean "피곤해요", "비밀번호는").
    pub fn matched_inside_words(self) -> bool {
        self.unspaced() || self == Lang::Korean
    }
}

/// The letters of `text` by script, a CJK character weighing as a short word's letters.
#[derive(Default)]
struct Scripts {
    latin: usize,
    han: usize,
    kana: usize,
    hangul: usize,
    other: usize,
}

/// How many letters of each script `text` holds.
fn scripts(text: &str) -> Scripts {
    let mut s = Scripts::default();
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        let u = c as u32;
        if is_kana(c) {
            s.kana += 3;
        } else if is_hangul(c) {
            s.hangul += 3;
        } else if is_han(c) {
            s.han += 3;
        } else if (0x41..=0x24F).contains(&u) || (0x1E00..=0x1EFF).contains(&u) {
            s.latin += 1;
        } else {
            s.other += 1;
        }
    }
    s
}

/// The language of `text`: by its script, then, for Latin letters, by the detector with English
/// winning any doubt.
pub fn of(text: &str) -> Lang {
    by_script(text).unwrap_or_else(|| latin(text))
}

/// The language of `text` when its letters alone say it (no letters: English), `None` for
/// Latin letters, which need the detector.
pub fn by_script(text: &str) -> Option<Lang> {
    let s = scripts(text);
    let cjk = s.han + s.kana + s.hangul;
    let most = s.latin.max(cjk).max(s.other);
    if most == 0 {
        // No letters ("1", "!!"): nothing the English rules would keep, nor garble.
        return Some(Lang::English);
    }
    if most == s.latin {
        return None;
    }
    if most == s.other {
        return Some(Lang::Other);
    }
    Some(if s.hangul >= s.han + s.kana {
        Lang::Korean
    } else if s.kana > 0 {
        Lang::Japanese
    } else {
        Lang::Chinese
    })
}

/// Whether an English-only embedding model may score `text`: its letters are Latin (or it has
/// none) and its grammar words are English's, or no reader's ("Pip", "CKA exam"). Cheap (no
/// detector): recall asks it of every fact once, when its index is built, and of each message.
pub fn reads_as_english(text: &str) -> bool {
    match by_script(text) {
        Some(lang) => lang == Lang::English,
        None => matches!(
            reader::lang_by_grammar(&crate::words::tokens(text)),
            None | Some(Lang::English)
        ),
    }
}

/// A Latin-script turn of fewer words than this says too little for the detector ("Blue!",
/// "Oui"): it is in the language of the message before it; with no reader's word in it, it is
/// English (`detect`); and recall reads no reader's first person in it ("Soy milk recipes?").
pub(crate) const SHORT_WORDS: usize = 4;

/// The language of a turn, `before` being the message it answers: a short Latin-script reply is
/// in the language it was asked in (and only then is the message before read).
pub fn of_turn(text: &str, before: Option<&str>) -> Lang {
    match by_script(text) {
        Some(lang) => lang,
        None => match before {
            // The message before is read only for a short reply.
            Some(before) if crate::words::tokens(text).len() < SHORT_WORDS => of(before),
            _ => latin(text),
        },
    }
}

/// A Latin-script text's language, told by the readers' own words (`detect`).
fn latin(text: &str) -> Lang {
    use detect::Detector;
    detect::Readers.latin(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_script_and_the_latin_languages() {
        for (text, lang) in [
            ("I'm a night owl, honestly.", Lang::English),
            ("Me too!", Lang::English),
            ("I collect hats.", Lang::English),
            (
                "Hola, me llamo Lucía y trabajo como enfermera.",
                Lang::Spanish,
            ),
            ("Ich bin allergisch gegen Nüsse.", Lang::German),
            ("j'ai deux chiens et je vis à Lyon.", Lang::French),
            ("我有两只狗。", Lang::Chinese),
            ("私は東京に住んでいます。", Lang::Japanese),
            ("저는 서울에 살고 있어요.", Lang::Korean),
            ("Привет, меня зовут Ольга.", Lang::Other),
            ("مرحبا، اسمي ليلى", Lang::Other),
            ("123 !!", Lang::English),
            ("c'est un nom adorable pour une tortue.", Lang::French),
            ("a Korg B1", Lang::English),
            ("Amo i films horror e i gatti neri", Lang::Italian),
            ("Soy vegana.", Lang::Spanish),
            ("I love 寿司 and ramen", Lang::English),
        ] {
            assert_eq!(of(text), lang, "{text}");
        }
        let asked = Some("What's your favorite color?");
        assert_eq!(of_turn("Blue!", asked), Lang::English);
        // A long paste is told by its start (and fast).
        let long = "I collect old maps and I restore them at weekends. ".repeat(20_000);
        assert_eq!(of(&long), Lang::English);
        let en_francais = Some("Tu as des chiens à la maison ?");
        assert_eq!(of_turn("Oui, deux.", en_francais), Lang::French);
        assert_eq!(of_turn("我有两只狗。", asked), Lang::Chinese);
    }
}
