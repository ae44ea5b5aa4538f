//! The words of each language memory reads beyond English, one row a language: how it says
//! "I" and "my", "you", and what marks a reaction or the moment. The rules of
//! `consolidate::verbatim` and recall's "is this message about the user" read them.

use super::Lang;

/// How a language says "I", "my", "me": whole words, and openings of a word ("j'" of "j'ai").
pub struct Words {
    pub lang: Lang,
    pub words: &'static [&'static str],
    pub openings: &'static [&'static str],
    /// "you", "your": the sentence speaks to the assistant (the `addressed` rule).
    pub you: &'static [&'static str],
    /// A reaction, the moment or the chat itself, not a lasting fact ("je suis désolé",
    /// "aujourd'hui", "我不知道"): the `passing` rule, matched as whole words in the folded text.
    pub passing: &'static [&'static str],
}

/// The first person of each language memory reads beyond English. Spanish, Italian and
/// Portuguese drop the pronoun, so the first-person forms of their commonest verbs count too
/// ("Tengo dos gatos", "Lavoro in banca"). Chinese and Japanese are matched inside the text,
/// which has no spaces.
const TABLE: &[Words] = &[
    Words {
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
    Words {
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
    Words {
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
    Words {
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
    Words {
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
    Words {
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
    Words {
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
    Words {
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
    Words {
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
    Words {
        lang: Lang::Japanese,
        words: &[],
        openings: &["私", "僕", "俺", "わたし", "あたし", "ぼく", "おれ"],
        you: &["あなた", "君", "きみ"],
        passing: &["今日", "今夜", "分かりません", "残念", "聞こえ", "元気です"],
    },
];

/// "I", "my" and "me" of the Latin-script languages that no English text says (not "me", "mi",
/// "ma" or a verb): enough to tell a message is about its writer without the detector.
const SURELY_FIRST_PERSON: &[&str] = &[
    "je", "j'", "mon", "mes", "moi", "yo", "mis", "mí", "io", "mio", "mia", "miei", "eu", "meu",
    "minha", "meus", "minhas", "ich", "mein", "meine", "meinen", "meinem", "meiner", "mich", "mir",
    "ik", "mijn", "mij", "saya", "aku",
];

/// Whether `s` speaks of its writer in a language beyond English: by the row of its script's
/// language (Chinese, Japanese, Korean), or by a Latin-script "I" or "my" no English text says.
/// No detector runs: recall asks this on the chat path.
pub fn about_the_writer(s: &str) -> bool {
    match super::by_script(s) {
        Some(lang) => of(lang).is_some_and(|row| first_person(s, row)),
        None => words_of(s).iter().any(|w| {
            SURELY_FIRST_PERSON
                .iter()
                .any(|f| w == f || (f.ends_with('\'') && w.starts_with(f)))
        }),
    }
}

/// The row of `lang`, if memory reads it beyond English.
pub fn of(lang: Lang) -> Option<&'static Words> {
    TABLE.iter().find(|r| r.lang == lang)
}

/// The first of `listed` that `s` says: as a whole word (an entry ending in an apostrophe opens
/// one), or anywhere in a language without spaces.
pub fn says_any(s: &str, row: &Words, listed: &[&'static str]) -> Option<&'static str> {
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
pub fn says_phrase(folded: &str, phrase: &str, unspaced: bool) -> bool {
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
pub fn first_person(s: &str, row: &Words) -> bool {
    if row.lang.unspaced() {
        return row.openings.iter().any(|o| s.contains(o));
    }
    words_of(s)
        .iter()
        .any(|w| row.words.contains(&w.as_str()) || row.openings.iter().any(|o| w.starts_with(o)))
}
