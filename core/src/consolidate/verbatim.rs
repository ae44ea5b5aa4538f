//! A turn in a language the English rules do not read: its sentences that speak of the user in
//! the first person, kept exactly as the user wrote them (never rewritten, never translated).
//! What counts as the first person is one row per language ([`FIRST_PERSON`]); the rest of the
//! rules (a question, a secret, too short, too long, a placeholder) are the English rules' own.

use super::rules::{Dropped, Rule};
use crate::language::Lang;

/// How a language says "I", "my", "me": whole words, and openings of a word ("j'" of "j'ai").
struct FirstPerson {
    lang: Lang,
    words: &'static [&'static str],
    openings: &'static [&'static str],
}

/// The first person of each language memory reads beyond English. Spanish, Italian and
/// Portuguese drop the pronoun, so the first-person forms of their commonest verbs count too
/// ("Tengo dos gatos", "Lavoro in banca"). Chinese and Japanese are matched inside the text,
/// which has no spaces.
const FIRST_PERSON: &[FirstPerson] = &[
    FirstPerson {
        lang: Lang::French,
        words: &["je", "moi", "mon", "ma", "mes", "me"],
        openings: &["j'", "m'"],
    },
    FirstPerson {
        lang: Lang::Spanish,
        words: &[
            "yo", "me", "mi", "mis", "mí", "conmigo", "soy", "estoy", "tengo", "vivo", "trabajo",
            "estudio", "hago", "juego", "prefiero", "odio", "amo", "adoro", "necesito", "voy",
        ],
        openings: &[],
    },
    FirstPerson {
        lang: Lang::Italian,
        words: &[
            "io",
            "mi",
            "mio",
            "mia",
            "miei",
            "mie",
            "me",
            "ho",
            "sono",
            "sto",
            "vivo",
            "abito",
            "lavoro",
            "studio",
            "faccio",
            "gioco",
            "preferisco",
            "odio",
            "amo",
            "adoro",
            "vado",
        ],
        openings: &["m'"],
    },
    FirstPerson {
        lang: Lang::Portuguese,
        words: &[
            "eu", "meu", "minha", "meus", "minhas", "me", "mim", "sou", "estou", "tenho", "moro",
            "trabalho", "estudo", "faço", "jogo", "prefiro", "odeio", "amo", "adoro", "vou",
        ],
        openings: &[],
    },
    FirstPerson {
        lang: Lang::German,
        words: &[
            "ich", "mein", "meine", "meinen", "meinem", "meiner", "meines", "mir", "mich",
        ],
        openings: &[],
    },
    FirstPerson {
        lang: Lang::Dutch,
        words: &["ik", "mijn", "me", "mij"],
        openings: &[],
    },
    FirstPerson {
        lang: Lang::Indonesian,
        words: &["saya", "aku", "gue", "gw"],
        openings: &[],
    },
    FirstPerson {
        lang: Lang::Korean,
        words: &["저", "제", "나", "내"],
        openings: &[
            "저는",
            "저도",
            "저의",
            "저를",
            "저에게",
            "제가",
            "나는",
            "나도",
            "나의",
            "나를",
            "내가",
            "나에게",
        ],
    },
    FirstPerson {
        lang: Lang::Chinese,
        words: &[],
        openings: &["我"],
    },
    FirstPerson {
        lang: Lang::Japanese,
        words: &[],
        openings: &["私", "僕", "俺", "わたし", "あたし", "ぼく", "おれ"],
    },
];

/// A sentence of fewer words (characters, in a language without spaces) says too little; of
/// more, it is not one fact.
const MIN_WORDS: usize = 3;
const MAX_WORDS: usize = 32;
const MIN_CHARS: usize = 4;
const MAX_CHARS: usize = 64;

/// Each sentence of `text` (a turn in `lang`, not English) with its verdict: kept as written, or
/// the rule that dropped it. A language without a row drops every sentence by
/// [`Rule::Language`].
pub fn read(text: &str, lang: Lang) -> Vec<(&str, Result<(), Dropped>)> {
    let row = FIRST_PERSON.iter().find(|r| r.lang == lang);
    sentences(text)
        .into_iter()
        .map(|s| {
            let verdict = match row {
                None => Err(Dropped::by(Rule::Language)),
                Some(row) => verdict(s, row),
            };
            (s, verdict)
        })
        .collect()
}

/// The verdict on one sentence in `row`'s language.
fn verdict(s: &str, row: &FirstPerson) -> Result<(), Dropped> {
    if s.contains(['?', '？']) || s.starts_with('¿') {
        return Err(Dropped::by(Rule::Question));
    }
    if let Some(secret) = crate::secret::find(s) {
        return Err(Dropped::on(Rule::Secret, secret.as_str()));
    }
    let (size, min, max) = if row.lang.unspaced() {
        let letters = s.chars().filter(|c| c.is_alphanumeric()).count();
        (letters, MIN_CHARS, MAX_CHARS)
    } else {
        let words = s
            .split_whitespace()
            .filter(|w| w.chars().any(char::is_alphanumeric))
            .count();
        (words, MIN_WORDS, MAX_WORDS)
    };
    if size < min {
        return Err(Dropped::by(Rule::TooShort));
    }
    if size > max {
        return Err(Dropped::by(Rule::TooLong));
    }
    if s.contains(['[', ']', '{', '}']) {
        return Err(Dropped::by(Rule::Placeholder));
    }
    if !first_person(s, row) {
        return Err(Dropped::by(Rule::NotFirstPerson));
    }
    Ok(())
}

/// Whether `s` says "I", "my" or "me" as `row`'s language does.
fn first_person(s: &str, row: &FirstPerson) -> bool {
    if row.lang.unspaced() {
        return row.openings.iter().any(|o| s.contains(o));
    }
    s.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .map(|w| w.replace('\u{2019}', "'").to_lowercase())
        .any(|w| row.words.contains(&w.as_str()) || row.openings.iter().any(|o| w.starts_with(o)))
}

/// The sentences of `text`, each a trimmed slice of it: cut after ".", "!", "?", "…" and their
/// full-width forms, and at line breaks; a point between two digits ("3.5") cuts nothing.
pub fn sentences(text: &str) -> Vec<&str> {
    const ENDS: &[char] = &['.', '!', '?', '…', '。', '！', '？', '\n'];
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    let mut prev: Option<char> = None;
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let decimal = c == '.'
            && prev.is_some_and(|p| p.is_ascii_digit())
            && next.is_some_and(|n| n.is_ascii_digit());
        if ENDS.contains(&c) && !decimal && !next.is_some_and(|n| ENDS.contains(&n)) {
            let end = i + c.len_utf8();
            out.push(text[start..end].trim());
            start = end;
        }
        prev = Some(c);
    }
    out.push(text[start..].trim());
    out.retain(|s| s.chars().any(char::is_alphanumeric));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(text: &str, lang: Lang) -> Vec<&str> {
        read(text, lang)
            .into_iter()
            .filter(|(_, v)| v.is_ok())
            .map(|(s, _)| s)
            .collect()
    }

    #[test]
    fn sentences_are_slices_of_the_text() {
        assert_eq!(
            sentences("je le fais bien . juste se détendre avec mes deux chiens."),
            [
                "je le fais bien .",
                "juste se détendre avec mes deux chiens."
            ]
        );
        assert_eq!(
            sentences("我有两只狗。我喜欢猫！"),
            ["我有两只狗。", "我喜欢猫！"]
        );
        assert_eq!(
            sentences("Il coûte 3.5 euros... vraiment"),
            ["Il coûte 3.5 euros...", "vraiment"]
        );
    }

    #[test]
    fn first_person_sentences_are_kept_as_said() {
        assert_eq!(
            kept(
                "Salut ! J'ai deux chiens. Les voitures sont belles. Et toi, tu as des chiens ?",
                Lang::French
            ),
            ["J'ai deux chiens."]
        );
        assert_eq!(
            kept("Tengo dos gatos, Luna y Sol.", Lang::Spanish),
            ["Tengo dos gatos, Luna y Sol."]
        );
        assert_eq!(kept("我有两只猫。你呢？", Lang::Chinese), ["我有两只猫。"]);
        assert_eq!(
            kept("저는 서울에 살고 있어요.", Lang::Korean),
            ["저는 서울에 살고 있어요."]
        );
        assert!(kept("Меня зовут Ольга, я врач.", Lang::Other).is_empty());
    }
}
