//! What a secret's value looks like after its name: digits (or the same spoken, "four eight two
//! one"), a word that does not describe ("too long"), a made-up string ("hunter2"), a long random
//! key, a user name and password pair ("bob@example.com / Hunter2!"), a seed phrase.

use std::ops::Range;

use super::{REDACTED, Word, digit_runs};

/// What the value after a name must look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Value {
    /// Digits, this many at least and at most, written or spoken ("four eight two one").
    Digits(usize, usize),
    /// Any word but the ones that describe ("my password is too long").
    Word,
    /// A made-up string: letters with digits or symbols, inner capitals, or four digits or more
    /// ("hunter2", "Tr0ub4dor&3", "correctHorse", "4821"); not a plain word ("again").
    Made,
    /// A code: 3–10 digits, or a made-up string with a digit ("a1b2c-3d4e5").
    Code,
    /// A long random-looking string (letters and digits, 16 or more).
    Random,
    /// A user name and a made-up password, split by '/', '|' or ':' ("bob / Hunter2!",
    /// "bob@example.com:Hunter2"); the password is the value.
    Pair,
    /// Six or more plain lower-case words, none of them a function word: a wallet's seed phrase.
    Phrase,
}

/// Words after "password is" that describe it rather than give it.
pub(super) const NOT_A_VALUE: &[&str] = &[
    "a",
    "an",
    "the",
    "my",
    "your",
    "his",
    "her",
    "their",
    "our",
    "too",
    "very",
    "so",
    "not",
    "really",
    "quite",
    "pretty",
    "strong",
    "weak",
    "long",
    "short",
    "secure",
    "safe",
    "wrong",
    "incorrect",
    "expired",
    "same",
    "different",
    "new",
    "old",
    "easy",
    "hard",
    "simple",
    "complicated",
    "complex",
    "saved",
    "stored",
    "written",
    "in",
    "on",
    "at",
    "changed",
    "reset",
    "locked",
    "required",
    "case",
    "sensitive",
    "forgotten",
    "lost",
    "stolen",
    "compromised",
    "leaked",
    "hacked",
    "still",
    "now",
    "just",
    "only",
    "also",
    "always",
    "never",
    "set",
    "managed",
    "kept",
    "private",
    "secret",
    "unique",
    "random",
    "memorable",
    "fine",
    "ok",
    "okay",
    "good",
    "bad",
    "terrible",
    "awful",
    "great",
    "like",
    "based",
    "made",
    "something",
    "nothing",
    "anything",
    "that",
    "this",
    "it",
    "what",
    "one",
    "two",
    "for",
    "about",
    "being",
    "getting",
    "going",
    "working",
    "with",
    "without",
    "shared",
    "encrypted",
    "hashed",
    "generated",
    "protected",
    "visible",
    "blank",
    "empty",
    "mine",
    "yours",
];

/// Words that link a name to its value.
pub(super) const LINKS: &[&str] = &["is", "was", "are", "'s", "=", ":", "-", "–", "reads", "of"];

/// Words that never stand in a seed phrase (the BIP-39 list has none of them), so a sentence
/// about one ("is written on a card in my desk") is not one.
const FUNCTION_WORDS: &[&str] = &[
    "the", "a", "an", "my", "your", "our", "their", "his", "her", "its", "in", "on", "at", "of",
    "and", "or", "to", "is", "was", "are", "it", "with", "for", "that", "this", "i", "me", "but",
    "not", "so", "as", "by", "from", "be", "has", "have", "had", "we", "you", "they", "he", "she",
];

/// The bytes of the value of kind `value` that starts at `words[j]`, if one does.
pub(super) fn value_at(words: &[Word], j: usize, value: Value, text: &str) -> Option<Range<usize>> {
    let w = words.get(j)?;
    let raw = &text[w.span.clone()];
    match value {
        Value::Digits(min, max) => digits_at(words, j, text, min, max),
        Value::Word => {
            // "New York": a name, though "new" alone describes ("my password is new").
            let run = proper_run(words, j, text);
            (plain_value(w) && !participle(raw) || run.end > w.span.end).then_some(run)
        }
        Value::Made => made(raw).then(|| w.span.clone()),
        Value::Code => code_run(words, j, text),
        Value::Random => random(raw).then(|| w.span.clone()),
        Value::Pair => pair_at(words, j, text),
        Value::Phrase => phrase_at(words, j, text),
    }
}

/// A word that may be a value: not one that describes ("too", "strong") nor a link.
pub(super) fn plain_value(w: &Word) -> bool {
    !NOT_A_VALUE.contains(&w.lower.as_str()) && !LINKS.contains(&w.lower.as_str())
}

/// A lower-case word in "-ed" says what was done to a value ("printed on the router", "taped
/// under the desk"), not the value.
fn participle(raw: &str) -> bool {
    raw.len() > 4 && raw.ends_with("ed") && raw.chars().all(|c| c.is_ascii_lowercase())
}

/// `words[j]` and the capitalised words after it: "New York", "Maple Street".
fn proper_run(words: &[Word], j: usize, text: &str) -> Range<usize> {
    let mut end = j;
    if !capitalised(&words[j], text) {
        return words[j].span.clone();
    }
    while end + 1 < words.len() && capitalised(&words[end + 1], text) && !words[end].colon {
        let gap = &text[words[end].span.end..words[end + 1].span.start];
        if gap.chars().any(|c| !c.is_whitespace()) {
            break;
        }
        end += 1;
    }
    words[j].span.start..words[end].span.end
}

/// `words[j]` and the capitalised words before it: "Elm Street" in "Elm Street is my answer".
pub(super) fn proper_run_back(words: &[Word], j: usize, text: &str) -> Range<usize> {
    let mut start = j;
    while start > 0 && capitalised(&words[start - 1], text) && capitalised(&words[start], text) {
        let gap = &text[words[start - 1].span.end..words[start].span.start];
        if gap.chars().any(|c| !c.is_whitespace()) || !plain_value(&words[start - 1]) {
            break;
        }
        start -= 1;
    }
    words[start].span.start..words[j].span.end
}

/// A word that starts with a capital and is not "I" or "I'm".
fn capitalised(w: &Word, text: &str) -> bool {
    let raw = &text[w.span.clone()];
    raw.chars().next().is_some_and(char::is_uppercase)
        && !matches!(
            w.lower.as_str(),
            "i" | "i'm" | "i’m" | "i've" | "i'd" | "i'll"
        )
}

/// A run of digits starting at `words[j]` ("4821", "1 9 8 4", "12-34") or the same spoken
/// ("four eight two one", "double seven"), `min..=max` digits long.
fn digits_at(words: &[Word], j: usize, text: &str, min: usize, max: usize) -> Option<Range<usize>> {
    let start = words[j].span.start;
    if let Some(run) = digit_runs(text).into_iter().find(|r| r.span.start == start) {
        return (min..=max).contains(&run.digits.len()).then_some(run.span);
    }
    let (n, end) = spoken_digits(words, j)?;
    (min..=max).contains(&n).then_some(start..end)
}

/// How many digits the number words from `words[j]` say, and where they end: "four eight two
/// one" is 4, "forty two" 2, "double seven" 2.
fn spoken_digits(words: &[Word], j: usize) -> Option<(usize, usize)> {
    let mut n = 0;
    let mut end = None;
    let mut times = 1;
    let mut after_tens = false;
    'words: for w in &words[j..] {
        for part in w.lower.split('-') {
            // The numbers are `words::NUMBER_WORDS`; "oh" and "nought" are spoken zeros, and
            // "hundred", "thousand" and "dozen" are no digits of a spoken code.
            let value = crate::words::number_value(part)
                .filter(|_| !matches!(part, "hundred" | "thousand" | "dozen"));
            let digits = match (part, value) {
                ("oh" | "nought", _) | (_, Some(0)) => 1,
                // "forty two": the unit fills the tens' second digit.
                (_, Some(1..=9)) => usize::from(!after_tens),
                (_, Some(_)) => 2,
                ("double", _) => {
                    times = 2;
                    continue;
                }
                ("triple", _) => {
                    times = 3;
                    continue;
                }
                _ => break 'words,
            };
            after_tens = digits == 2 && part.ends_with('y');
            n += digits * times;
            times = 1;
        }
        end = Some(w.span.end);
    }
    end.filter(|_| n > 0).map(|e| (n, e))
}

/// A made-up string: no spaces, 4–64 characters, and four digits or more, or letters with a
/// digit, a symbol or an inner capital. A plain word ("again", "manager") or a date ("12/28")
/// is not one.
pub(super) fn made(s: &str) -> bool {
    let n = s.chars().count();
    // What `redact` left ("[secret]", its ']' maybe trimmed as punctuation) is no value.
    let redacted = s.contains(REDACTED.trim_end_matches(']'));
    if !(4..=64).contains(&n) || s.chars().any(char::is_whitespace) || redacted {
        return false;
    }
    let letters = s.chars().filter(|c| c.is_alphabetic()).count();
    let digits = s.chars().filter(char::is_ascii_digit).count();
    if digits == n {
        return true;
    }
    if letters == 0 {
        return false;
    }
    // Hyphens, apostrophes and dots join plain words ("wi-fi", "don't", "U.S.").
    let symbol = s
        .chars()
        .any(|c| !c.is_alphanumeric() && !"-'’.".contains(c));
    let inner_capital = s
        .chars()
        .zip(s.chars().skip(1))
        .any(|(a, b)| a.is_lowercase() && b.is_uppercase());
    digits > 0 || symbol || inner_capital
}

/// One code at `words[j]`: 3–10 digits, or a made-up string with a digit.
fn code_at(words: &[Word], j: usize, text: &str) -> Option<Range<usize>> {
    let w = words.get(j)?;
    let raw = &text[w.span.clone()];
    digits_at(words, j, text, 3, 10)
        .or_else(|| (made(raw) && raw.chars().any(|c| c.is_ascii_digit())).then(|| w.span.clone()))
}

/// The codes from `words[j]`, listed ("8841-2290, 1172-5530 and 0093-1184"): their bytes.
fn code_run(words: &[Word], j: usize, text: &str) -> Option<Range<usize>> {
    let first = code_at(words, j, text)?;
    let mut span = first.clone();
    loop {
        let Some(next) = words.iter().position(|w| w.span.start >= span.end) else {
            return Some(span);
        };
        let k = if matches!(words[next].lower.as_str(), "and" | "or" | "&") {
            next + 1
        } else {
            next
        };
        match code_at(words, k, text) {
            Some(more) => span.end = more.end,
            None => return Some(span),
        }
    }
}

/// A long random-looking string: 16 or more letters and digits (and `_-+/=.`), both kinds.
fn random(raw: &str) -> bool {
    raw.chars().count() >= 16
        && raw
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-+/=.".contains(c))
        && raw.chars().any(|c| c.is_ascii_digit())
        && raw.chars().any(|c| c.is_ascii_alphabetic())
}

/// A user name and password from `words[j]`: "bob / Hunter2", "bob: Hunter2" (one word or two),
/// "bob@example.com:Hunter2". Returns the password's bytes.
fn pair_at(words: &[Word], j: usize, text: &str) -> Option<Range<usize>> {
    let user = &words[j];
    if !plain_value(user) {
        return None;
    }
    let raw = &text[user.span.clone()];
    if let Some(p) = raw.find([':', '/', '|']) {
        let (name, tail) = (&raw[..p], &raw[p + 1..]);
        // A user name, then a password: not a link ("mailto:…", "https://…").
        let user_name = name
            .chars()
            .all(|c| c.is_alphanumeric() || "._-+@".contains(c));
        let password = !tail.starts_with('/') && !tail.contains('@');
        if p > 0 && user_name && password && made(tail) {
            return Some(user.span.start + p + 1..user.span.end);
        }
        if !tail.is_empty() {
            return None;
        }
    }
    let sep = user.colon || raw.ends_with(['/', '|']);
    let k = match words.get(j + 1) {
        _ if sep => j + 1,
        Some(w)
            if matches!(
                w.lower.as_str(),
                "/" | "|" | "pw" | "pwd" | "pass" | "password"
            ) =>
        {
            j + 2
        }
        _ => return None,
    };
    let pass = words.get(k)?;
    made(&text[pass.span.clone()]).then(|| pass.span.clone())
}

/// Six or more plain lower-case words from `words[j]`, none a function word, the first not one
/// that describes ("stored in …"): a seed phrase ("abandon ability able about above absent").
fn phrase_at(words: &[Word], j: usize, text: &str) -> Option<Range<usize>> {
    let plain = |w: &Word| {
        let raw = &text[w.span.clone()];
        (3..=8).contains(&raw.len())
            && raw.chars().all(|c| c.is_ascii_lowercase())
            && !FUNCTION_WORDS.contains(&raw)
    };
    let n = words[j..].iter().take_while(|w| plain(w)).count();
    (n >= 6 && plain_value(&words[j])).then(|| words[j].span.start..words[j + n - 1].span.end)
}
