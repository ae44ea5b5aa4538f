//! The one word model of core, for recall and consolidation alike: how text splits into words,
//! which words say something (content words, with a light plural stemmer), and when two words
//! are the same word.

/// Words too common to say what a fact is about.
pub const STOP_WORDS: &[&str] = &[
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

/// `text` case-folded without moving a byte: each character lower-cased where its lower case is
/// one character of the same length in UTF-8, else kept as it is ("İ", whose lower case is two
/// characters, and the Kelvin sign, whose lower case is one byte). An offset found in the result
/// is the same offset in `text`, so a cut there never lands inside a character or on another one.
/// Every rule that finds a place in a folded copy and cuts the original uses this, never
/// `to_lowercase`.
pub fn fold(text: &str) -> String {
    text.chars()
        .map(|c| {
            let mut lower = c.to_lowercase();
            match (lower.next(), lower.next()) {
                (Some(l), None) if l.len_utf8() == c.len_utf8() => l,
                _ => c,
            }
        })
        .collect()
}

/// Lower-cased words of `text`, apostrophes kept inside a word ("i'm", "user's"), typographic
/// apostrophes made plain. A run of Chinese, Japanese or Korean letters, which spaces do not
/// split into words, gives its overlapping two-letter pieces ("我喜欢猫" → "我喜", "喜欢", "欢猫").
pub fn tokens(text: &str) -> Vec<String> {
    text.replace('\u{2019}', "'")
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty())
        .flat_map(|w| pieces(&w))
        .collect()
}

/// Whether `c` is a Han, kana or Hangul letter.
pub fn is_cjk(c: char) -> bool {
    is_han(c) || is_kana(c) || is_hangul(c)
}

/// Whether `c` is a Japanese kana letter (hiragana, katakana, half-width katakana).
pub fn is_kana(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F)
}

/// Whether `c` is a Korean Hangul letter (syllables and jamo).
pub fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF)
}

/// Han letters too common to say what a text is about (pronouns, particles, "to be", "to have",
/// numbers' measure words, question words).
const HAN_FUNCTION: &str =
    "我你您他她它们的了是在有和不也很都就吗呢吧啊什么这那个一些要会能可以到说对把被给让从";

/// Whether `c` is a Han letter (Chinese, or Japanese kanji).
pub fn is_han(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x3134F)
}

/// A word as recall and the same-fact rule compare it: itself, or, written in CJK letters, its
/// overlapping two-letter pieces (one letter alone stays itself).
fn pieces(word: &str) -> Vec<String> {
    if !word.chars().any(is_cjk) {
        return vec![word.to_string()];
    }
    let letters: Vec<char> = word.chars().collect();
    if letters.len() < 2 {
        return vec![word.to_string()];
    }
    letters.windows(2).map(|w| w.iter().collect()).collect()
}

/// One whitespace-separated word lower-cased, without the punctuation around it (apostrophes
/// kept, typographic ones made plain).
pub fn bare(word: &str) -> String {
    word.trim_matches(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .to_lowercase()
        .replace('\u{2019}', "'")
}

/// Two words are the same word when they share this many leading characters ("adopted",
/// "adopt"), or when the shorter one (4+ characters) starts the longer ("walk", "walked").
pub const SAME_ROOT_CHARS: usize = 5;

/// Whether two (lower-cased) words are the same word (see [`SAME_ROOT_CHARS`]).
pub fn same_root(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let common = short
        .chars()
        .zip(long.chars())
        .take_while(|(x, y)| x == y)
        .count();
    let short_len = short.chars().count();
    common >= SAME_ROOT_CHARS || (short_len >= 4 && common == short_len)
}

/// Whether `w` is the same word as one of `pool`.
pub fn occurs_in(w: &str, pool: &[String]) -> bool {
    pool.iter().any(|p| same_root(w, p))
}

fn is_stop_word(w: &str) -> bool {
    static SET: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
        std::sync::OnceLock::new();
    SET.get_or_init(|| STOP_WORDS.iter().copied().collect())
        .contains(w)
}

/// Whether the light stemmer is applied (decided by the recall evaluation; see docs/benchmarks.md).
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
        if lower.chars().any(is_cjk) {
            out.extend(pieces(&lower));
            // A Han letter is often a word of its own ("猫", cat): each one that says something
            // counts too, beside the pieces.
            out.extend(
                lower
                    .chars()
                    .filter(|&c| is_han(c) && !HAN_FUNCTION.contains(c))
                    .map(String::from),
            );
            continue;
        }
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

/// Numbers written as words, each with its value: the one number class every rule reads (a
/// count, an age, a duration, a spoken PIN). "hundred", "thousand" and "dozen" multiply.
pub const NUMBER_WORDS: &[(&str, u32)] = &[
    ("zero", 0),
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("thirteen", 13),
    ("fourteen", 14),
    ("fifteen", 15),
    ("sixteen", 16),
    ("seventeen", 17),
    ("eighteen", 18),
    ("nineteen", 19),
    ("twenty", 20),
    ("thirty", 30),
    ("forty", 40),
    ("fifty", 50),
    ("sixty", 60),
    ("seventy", 70),
    ("eighty", 80),
    ("ninety", 90),
    ("hundred", 100),
    ("thousand", 1000),
    ("dozen", 12),
];

/// The value of a number written as a word ("six" → 6), lower-case.
pub fn number_value(word: &str) -> Option<u32> {
    NUMBER_WORDS
        .iter()
        .find(|(w, _)| *w == word)
        .map(|(_, v)| *v)
}

/// Words that say how many or how often as much as "4" does ("User has tried four Korean
/// restaurants", "twice a week"): the numbers and these.
const COUNT_ONLY: &[&str] = &["once", "twice", "half"];

/// Whether a lower-case word is a count ([`NUMBER_WORDS`] or [`COUNT_ONLY`]).
pub fn is_count(word: &str) -> bool {
    number_value(word).is_some() || COUNT_ONLY.contains(&word)
}

/// The second person, each form once, and last its chat spellings ("u", "ur"), which the guards
/// leave out: there a single "u" is as often a letter.
pub const SECOND_PERSON: &[&str] = &[
    "you", "your", "you're", "yours", "yourself", "you've", "you'll", "you'd", "u", "ur",
];

/// The chat spellings of [`SECOND_PERSON`].
const SECOND_PERSON_CHAT: &[&str] = &["u", "ur"];

/// Whether a lower-case word is the second person as written out (not "u" or "ur").
pub fn is_second_person_written_out(word: &str) -> bool {
    SECOND_PERSON.contains(&word) && !SECOND_PERSON_CHAT.contains(&word)
}

/// The first person, each form once, by its part in a clause: the one class every rule that
/// asks "is the user speaking of themself here?" reads, choosing the parts it means. Its
/// subjects ("I", "we" and their contractions, with and without the apostrophe).
pub const FIRST_PERSON_SUBJECTS: &[&str] = &[
    "i", "i'm", "im", "i've", "ive", "i'd", "i'll", "we", "we're", "we've",
];

/// The first person's possessives.
pub const FIRST_PERSON_POSSESSIVES: &[&str] = &["my", "our", "mine", "ours"];

/// The first person's reflexives.
pub const FIRST_PERSON_REFLEXIVES: &[&str] = &["myself", "ourselves"];

/// The first person's objects: "me" alone does not make a clause about the user ("it's driving
/// me mad").
pub const FIRST_PERSON_OBJECTS: &[&str] = &["me", "us"];

/// Whether a word as typed is in capitals ("US", "ME", "UK"): an acronym, never a pronoun.
pub fn is_acronym(word: &str) -> bool {
    let letters = word.chars().filter(|c| c.is_alphabetic()).count();
    letters > 1 && !word.chars().any(char::is_lowercase)
}

/// Whether a lower-case word is the first person as a subject, a possessive or a reflexive:
/// the words that make a clause about the user.
pub fn is_first_person(word: &str) -> bool {
    FIRST_PERSON_SUBJECTS.contains(&word)
        || FIRST_PERSON_POSSESSIVES.contains(&word)
        || FIRST_PERSON_REFLEXIVES.contains(&word)
}

/// [`is_first_person`], or an object ("me", "us"): any first-person word at all.
pub fn is_any_first_person(word: &str) -> bool {
    is_first_person(word) || FIRST_PERSON_OBJECTS.contains(&word)
}

/// The months, in order, lower-case.
pub const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The month (1–12) a lower-case word names, whole or short ("march", "mar", "sept").
pub fn month(w: &str) -> Option<u32> {
    let short = (3..=4).contains(&w.len());
    let i = MONTHS
        .iter()
        .position(|m| *m == w || (short && m.starts_with(w)))?;
    u32::try_from(i + 1).ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_word_class_is_defined_once_and_reads_as_its_parts() {
        assert_eq!(number_value("seventeen"), Some(17));
        assert_eq!(number_value("dozen"), Some(12));
        assert_eq!(number_value("a"), None);
        assert!(is_count("twice") && is_count("forty") && !is_count("fortnight"));
        for w in ["i", "i'll", "we've", "ive", "my", "ours", "myself"] {
            assert!(is_first_person(w), "{w}");
        }
        assert!(!is_first_person("me") && is_any_first_person("me") && is_any_first_person("us"));
        assert!(!is_any_first_person("mean") && !is_any_first_person("you"));
        assert!(is_second_person_written_out("you'd") && !is_second_person_written_out("u"));
        assert!(SECOND_PERSON.contains(&"ur"));
        // No word is in two parts of the first person.
        let parts = [
            FIRST_PERSON_SUBJECTS,
            FIRST_PERSON_POSSESSIVES,
            FIRST_PERSON_REFLEXIVES,
            FIRST_PERSON_OBJECTS,
        ];
        let all: Vec<&str> = parts.iter().flat_map(|p| p.iter().copied()).collect();
        let mut once = all.clone();
        once.sort_unstable();
        once.dedup();
        assert_eq!(once.len(), all.len());
    }

    #[test]
    fn fold_keeps_every_byte_where_it_was() {
        for text in [
            "I live in İstanbul",
            "\u{212A}elvin and \u{2126}hm",
            "STRASSE and \u{1E9E}",
            "Ünïcödé ΣΑΣ 我喜欢猫",
            "",
        ] {
            let f = fold(text);
            assert_eq!(f.len(), text.len(), "{text:?}");
            assert!(
                text.char_indices().all(|(i, _)| f.is_char_boundary(i)),
                "{text:?} -> {f:?}"
            );
        }
        assert_eq!(fold("I LIVE in İstanbul"), "i live in İstanbul");
        assert_eq!(fold("ÜBER"), "über");
    }

    use super::*;

    #[test]
    fn the_same_word_table() {
        for (a, b, same) in [
            ("adopted", "adopt", true),
            ("walk", "walked", true),
            ("walks", "walk", true),
            ("dogs", "dog", false), // plural stemming is content_words' job
            ("cat", "catalog", false),
            ("bake", "baking", false),
            ("knitting", "knit", true),
            ("pottery", "potter", true),
        ] {
            assert_eq!(same_root(a, b), same, "{a} ~ {b}");
        }
    }

    #[test]
    fn cjk_text_splits_into_two_letter_pieces() {
        assert_eq!(tokens("我喜欢猫。"), ["我喜", "喜欢", "欢猫"]);
        assert_eq!(tokens("猫"), ["猫"]);
        assert_eq!(
            tokens("고양이를 좋아해요"),
            ["고양", "양이", "이를", "좋아", "아해", "해요"]
        );
        assert_eq!(tokens("Ich mag Nüsse"), ["ich", "mag", "nüsse"]);
        let mine = content_words("我有两只猫");
        assert!(content_words("我的两只猫").iter().any(|w| mine.contains(w)));
        assert!(content_words("我的猫叫什么名字？").contains(&"猫".to_string()));
        assert!(!content_words("我的猫").contains(&"我".to_string()));
    }

    #[test]
    fn tokens_and_bare_words() {
        assert_eq!(
            tokens("I\u{2019}m Dana, User's friend!"),
            ["i'm", "dana", "user's", "friend"]
        );
        assert_eq!(bare("(I\u{2019}m,"), "i'm");
        assert_eq!(content_words("My dogs' names"), ["dog", "name"]);
    }
}
