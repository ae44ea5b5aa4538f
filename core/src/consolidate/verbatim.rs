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
    /// "you", "your": the sentence speaks to the assistant ([`Rule::Addressed`]).
    you: &'static [&'static str],
    /// A reaction, the moment or the chat itself, not a lasting fact ("je suis désolé",
    /// "aujourd'hui", "我不知道"): [`Rule::Passing`], matched as whole words in the folded text.
    passing: &'static [&'static str],
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
        you: &[
            "tu", "te", "toi", "ton", "ta", "tes", "vous", "votre", "vos", "t'",
        ],
        passing: &[
            "aujourd'hui",
            "ce soir",
            "je comprends",
            "désolé",
            "désolée",
            "semble",
            "je vais bien",
            "ça va",
            "je l'ai",
            "je le",
            "je la",
        ],
    },
    FirstPerson {
        lang: Lang::Spanish,
        words: &[
            "yo", "me", "mi", "mis", "mí", "conmigo", "soy", "estoy", "tengo", "vivo", "trabajo",
            "estudio", "hago", "juego", "prefiero", "odio", "amo", "adoro", "necesito", "voy",
        ],
        openings: &[],
        you: &[
            "tú", "tu", "tus", "te", "ti", "usted", "ustedes", "vosotros", "vuestro", "vuestra",
        ],
        passing: &[
            "hoy",
            "esta noche",
            "entiendo",
            "lo siento",
            "suena",
            "estoy bien",
            "me alegro",
        ],
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
        you: &[
            "tu", "ti", "te", "tuo", "tua", "tuoi", "tue", "voi", "vostro", "vostra",
        ],
        passing: &[
            "oggi",
            "stasera",
            "capisco",
            "mi dispiace",
            "sembra",
            "sto bene",
            "l'ho",
        ],
    },
    FirstPerson {
        lang: Lang::Portuguese,
        words: &[
            "eu", "meu", "minha", "meus", "minhas", "me", "mim", "sou", "estou", "tenho", "moro",
            "trabalho", "estudo", "faço", "jogo", "prefiro", "odeio", "amo", "adoro", "vou",
        ],
        openings: &[],
        you: &["você", "vocês", "tu", "te", "teu", "tua", "teus", "tuas"],
        passing: &[
            "hoje",
            "esta noite",
            "entendo",
            "sinto muito",
            "parece",
            "estou bem",
        ],
    },
    FirstPerson {
        lang: Lang::German,
        words: &[
            "ich", "mein", "meine", "meinen", "meinem", "meiner", "meines", "mir", "mich",
        ],
        openings: &[],
        you: &[
            "du", "dich", "dir", "dein", "deine", "deinen", "deinem", "deiner", "ihr", "euch",
            "euer",
        ],
        passing: &[
            "heute",
            "heute abend",
            "ich verstehe",
            "tut mir leid",
            "klingt",
            "mir geht es gut",
            "mir geht's gut",
        ],
    },
    FirstPerson {
        lang: Lang::Dutch,
        words: &["ik", "mijn", "me", "mij"],
        openings: &[],
        you: &["jij", "jou", "jouw", "u", "uw", "jullie"],
        passing: &[
            "vandaag",
            "vanavond",
            "ik begrijp",
            "het spijt me",
            "klinkt",
            "gaat goed",
        ],
    },
    FirstPerson {
        lang: Lang::Indonesian,
        words: &["saya", "aku", "gue", "gw"],
        openings: &[],
        you: &["kamu", "anda", "kau", "engkau", "mu"],
        passing: &[
            "hari ini",
            "malam ini",
            "saya mengerti",
            "maaf",
            "kedengarannya",
            "terdengar",
            "baik-baik saja",
        ],
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
        you: &["당신", "너", "네가", "너는", "당신은", "당신의"],
        passing: &["오늘", "오늘밤", "유감", "들리네요", "들려요"],
    },
    FirstPerson {
        lang: Lang::Chinese,
        words: &[],
        openings: &["我"],
        you: &["你", "您"],
        passing: &[
            "今天",
            "今晚",
            "我不知道",
            "我认为",
            "我不这么认为",
            "遗憾",
            "听起来",
            "太棒了",
            "我很好",
        ],
    },
    FirstPerson {
        lang: Lang::Japanese,
        words: &[],
        openings: &["私", "僕", "俺", "わたし", "あたし", "ぼく", "おれ"],
        you: &["あなた", "君", "きみ"],
        passing: &["今日", "今夜", "分かりません", "残念", "聞こえ", "元気です"],
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
    if let Some(you) = says_any(s, row, row.you) {
        return Err(Dropped::on(Rule::Addressed, you));
    }
    let folded = crate::words::fold(s);
    let unspaced = row.lang.unspaced();
    if let Some(p) = row
        .passing
        .iter()
        .find(|p| says_phrase(&folded, p, unspaced))
    {
        return Err(Dropped::on(Rule::Passing, p));
    }
    Ok(())
}

/// The first of `listed` that `s` says: as a whole word (an entry ending in an apostrophe opens
/// one), or anywhere in a language without spaces.
fn says_any(s: &str, row: &FirstPerson, listed: &[&'static str]) -> Option<&'static str> {
    if row.lang.unspaced() {
        return listed.iter().find(|w| s.contains(*w)).copied();
    }
    let words = words_of(s);
    listed
        .iter()
        .find(|l| {
            words
                .iter()
                .any(|w| w == *l || (l.ends_with('\'') && w.starts_with(*l)))
        })
        .copied()
}

/// Whether `folded` holds `phrase`: as whole words, or anywhere in a language without spaces.
fn says_phrase(folded: &str, phrase: &str, unspaced: bool) -> bool {
    folded.match_indices(phrase).any(|(i, _)| {
        let before = folded[..i].chars().next_back();
        let after = folded[i + phrase.len()..].chars().next();
        let apart = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        unspaced || (apart(before) && (phrase.ends_with('\'') || apart(after)))
    })
}

/// The words of `s`, lower-cased, an apostrophe kept inside ("j'ai"; typographic ones made
/// plain).
fn words_of(s: &str) -> Vec<String> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .filter(|w| !w.is_empty())
        .map(|w| w.replace('\u{2019}', "'").to_lowercase())
        .collect()
}

/// Whether `s` says "I", "my" or "me" as `row`'s language does.
fn first_person(s: &str, row: &FirstPerson) -> bool {
    if row.lang.unspaced() {
        return row.openings.iter().any(|o| s.contains(o));
    }
    words_of(s)
        .iter()
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
