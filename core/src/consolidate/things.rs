//! What a clause names of the user's: the last "my …" (one thing, or several), the last title in
//! capitals, and a text's comma pieces (a comma inside a number kept). The clause rules
//! (`disclose`) and the relative-clause rule (`relative`) both read them, so they live below both.

use super::lexicon::{NOT_IN_A_NAME, PEOPLE, PREPOSITIONS};
use crate::words::bare;

/// `word` without the punctuation around it, its case kept.
pub(super) fn bare_case(word: &str) -> &str {
    word.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
}

/// The last title of `text` past its first word, in two words or more: capitalised words, with
/// "of", "the" or "and" between them ("… similar to The Last of Us Part II" → "The Last of Us
/// Part II").
pub(super) fn last_title(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().map(bare_case).collect();
    let capital = |w: &str| w != "I" && w.chars().next().is_some_and(char::is_uppercase);
    let end = (1..words.len()).rev().find(|&k| capital(words[k]))?;
    let mut start = end;
    while start > 1 {
        let w = words[start - 1];
        let joins = matches!(w, "of" | "the" | "and") && start >= 2 && capital(words[start - 2]);
        if capital(w) {
            start -= 1;
        } else if joins {
            start -= 2;
        } else {
            break;
        }
    }
    (end > start).then(|| words[start..=end].join(" "))
}

/// The last "my …" of `text` when it names things in the plural, in at most four words ("my old
/// sneakers", "my tomato plants"): what a "them" in the clause after points at.
pub(super) fn my_things(text: &str) -> Option<String> {
    my_thing(text).filter(|(_, plural)| *plural).map(|(n, _)| n)
}

/// The last "my …" of `text` when it names one thing ("my closet"): what an "it" after a
/// preposition in the clause after points at ("… in a shoe rack in it").
pub(super) fn my_one_thing(text: &str) -> Option<String> {
    my_thing(text)
        .filter(|(n, plural)| !plural && n.contains(' '))
        // "I watched Star Wars with my brother, I loved it": "it" is never a person.
        .filter(|(n, _)| {
            !n.rsplit(' ')
                .next()
                .is_some_and(|w| PEOPLE.contains(&bare(w).as_str()))
        })
        .map(|(n, _)| n)
}

/// The last "my …" of `text` in at most four words, and whether it is plural.
pub(super) fn my_thing(text: &str) -> Option<(String, bool)> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let my = words.iter().rposition(|w| bare(w) == "my")?;
    let mut name = vec!["my"];
    for w in &words[my + 1..] {
        let b = bare(w);
        if NOT_IN_A_NAME.contains(&b.as_str())
            || PREPOSITIONS.contains(&b.as_str())
            || name.len() > 4
        {
            break;
        }
        name.push(w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''));
        if w.ends_with([',', '.', ';', ':']) {
            break;
        }
    }
    if name.len() < 2 {
        return None;
    }
    let last = bare(name.last()?);
    let plural = last.chars().count() > 3
        && last.ends_with('s')
        && !last.ends_with("ss")
        && !last.ends_with("'s");
    Some((name.join(" "), plural))
}

/// `text` split at its commas, but not at one between digits ("$1,200", "10,000 steps").
pub(super) fn comma_pieces(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        let in_number =
            i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit);
        if c == b',' && !in_number {
            out.push(&text[start..i]);
            start = i + 1;
        }
    }
    out.push(&text[start..]);
    out
}
