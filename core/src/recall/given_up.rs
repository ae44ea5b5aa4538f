//! What the user gave up ("User quit smoking in 2022", "Je ne fume plus depuis janvier", "Ya no
//! tomo pastillas para dormir"): a fact said later that gives a thing up ends an older one that
//! does it ("User smokes about ten cigarettes a day"), which recall then sets aside.

use crate::language::reader::{READERS, Reader, find_phrase};
use crate::words::is_cjk;

/// Of the words beside a cue, this many at most name what was given up ("tomo pastillas").
const NAMED_BY: usize = 2;
/// In Chinese, Japanese or Korean letters, this many letters beside a cue at most.
const NAMED_BY_LETTERS: usize = 4;

/// The words of what `text` says the user gave up, if it says so in a reader's words.
pub fn given_up(text: &str) -> Option<Vec<String>> {
    let folded = crate::words::fold(text);
    READERS.iter().find_map(|r| {
        r.given_up
            .iter()
            .find_map(|cue| named(&folded, cue, r))
            .filter(|w| !w.is_empty())
    })
}

/// Whether `older` says the user does what `gave_up` (from [`given_up`]) names, and gives
/// nothing up itself: every word of it, each as the same word or its form ("smoking",
/// "smokes"); in Chinese, Japanese or Korean letters, half its pieces.
pub fn ends(older: &str, gave_up: &[String]) -> bool {
    given_up(older).is_none() && ends_words(&words_of(older), gave_up)
}

/// The content words [`ends_words`] reads of a fact: "j'utilise" holds "utilise".
pub fn words_of(text: &str) -> Vec<String> {
    crate::language::content_words(text)
        .into_iter()
        .map(|w| w.rsplit('\'').next().unwrap_or_default().to_string())
        .collect()
}

/// [`ends`] over an older fact's [`words_of`], for one that gives nothing up.
pub fn ends_words(has: &[String], gave_up: &[String]) -> bool {
    let found = gave_up
        .iter()
        .filter(|w| has.iter().any(|h| same_word(w, h)))
        .count();
    if gave_up.iter().any(|w| w.chars().any(is_cjk)) {
        2 * found >= gave_up.len()
    } else {
        found == gave_up.len()
    }
}

/// The same word, or a form of it: one root ([`crate::words::same_root`]), or all but the last
/// letter of the shorter of at least four shared ("smoke", "smoking").
fn same_word(a: &str, b: &str) -> bool {
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let shorter = a.chars().count().min(b.chars().count());
    crate::words::same_root(a, b) || (common >= 4 && common + 1 >= shorter)
}

/// What `cue` names in `folded`, when `folded` says it: the words after it, before it ("…A"), or
/// inside it ("A…B"), nearest first; after "A +ing" only when the next word ends so ("stopped
/// smoking", not "stopped at a cafe"), at most [`NAMED_BY`] (or [`NAMED_BY_LETTERS`] letters).
fn named(folded: &str, cue: &str, r: &Reader) -> Option<Vec<String>> {
    let inside = r.lang.matched_inside_words();
    let (span, before) = match cue.split_once('…') {
        Some(("", last)) => {
            let at = find_phrase(folded, last, inside)?;
            (&folded[..at], true)
        }
        Some((first, last)) => {
            let start = find_phrase(folded, first, inside)? + first.len();
            let end = start + find_phrase(&folded[start..], last, inside)?;
            (&folded[start..end], false)
        }
        None => {
            let (cue, ending) = cue
                .split_once(" +")
                .map_or((cue, None), |(c, e)| (c, Some(e)));
            let at = find_phrase(folded, cue, inside)? + cue.len();
            let next = folded[at..].split_whitespace().next().unwrap_or_default();
            if ending.is_some_and(|e| {
                !next
                    .trim_end_matches(|c: char| !c.is_alphanumeric())
                    .ends_with(e)
            }) {
                return None;
            }
            (&folded[at..], false)
        }
    };
    let span = nearest_letters(span, before);
    let mut words: Vec<String> = crate::language::content_words(&span)
        .into_iter()
        .filter(|w| w != "user" && !w.chars().all(|c| c.is_ascii_digit()))
        .collect();
    if !span.chars().any(is_cjk) {
        if before {
            words.drain(..words.len().saturating_sub(NAMED_BY));
        } else {
            words.truncate(NAMED_BY);
        }
    }
    Some(words)
}

/// `span` cut to the [`NAMED_BY_LETTERS`] letters nearest the cue (it ends there when `before`)
/// when it is written in Chinese, Japanese or Korean letters; else whole.
fn nearest_letters(span: &str, before: bool) -> String {
    let trimmed = span.trim_matches(|c: char| !c.is_alphanumeric());
    if !trimmed.chars().any(is_cjk) {
        return span.to_string();
    }
    let letters: Vec<char> = trimmed.chars().collect();
    let n = letters.len().min(NAMED_BY_LETTERS);
    if before {
        letters[letters.len() - n..].iter().collect()
    } else {
        letters[..n].iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_was_given_up_ends_what_was_done_in_every_reader() {
        for (older, later) in [
            (
                "User smokes about ten cigarettes a day",
                "User quit smoking in 2022",
            ),
            (
                "User smokes about ten cigarettes a day",
                "User does not smoke anymore",
            ),
            (
                "User drinks coffee after lunch",
                "User no longer drinks coffee",
            ),
            (
                "Je fume un paquet par semaine.",
                "Je ne fume plus depuis janvier.",
            ),
            ("J'utilise Vim tous les jours.", "Je n'utilise plus Vim."),
            (
                "Tomo pastillas para dormir casi todas las noches.",
                "Ya no tomo pastillas para dormir.",
            ),
            ("Fumo dieci sigarette al giorno.", "Non fumo più."),
            ("Ho smesso di fumare.", "Ho smesso di fumare."),
            (
                "User drinks coffee every morning",
                "User stopped drinking coffee in 2021",
            ),
            ("Eu fumo todos os dias.", "Já não fumo."),
            (
                "Ich rauche zehn Zigaretten am Tag.",
                "Ich rauche nicht mehr.",
            ),
            ("Ik rook elke dag.", "Ik rook niet meer."),
            ("Saya merokok setiap hari.", "Saya tidak lagi merokok."),
            (
                "저는 담배를 하루에 열 개비 피워요.",
                "저는 담배를 끊었어요.",
            ),
            ("我每天抽烟。", "我戒烟了。"),
            ("我每天早上喝咖啡。", "我不再喝咖啡了。"),
            ("毎日タバコを吸います。", "タバコをやめました。"),
        ] {
            let gave = given_up(later);
            assert!(gave.is_some(), "{later}");
            let gave = gave.unwrap();
            if older != later {
                assert!(ends(older, &gave), "{later} → {gave:?} should end {older}");
            }
        }
    }

    #[test]
    fn a_thing_given_up_ends_nothing_else() {
        for (older, later) in [
            // Another thing of the same verb or topic.
            (
                "User loves coffee",
                "User no longer drinks coffee after 3pm",
            ),
            (
                "Tomo café cada mañana.",
                "Ya no tomo pastillas para dormir.",
            ),
            ("我每天喝茶。", "我不再喝咖啡了。"),
            ("User works at Google", "User quit their job at Skyscanner"),
            // Something given up, not done.
            ("User quit drinking in 2019", "User quit smoking in 2022"),
        ] {
            let gave = given_up(later).unwrap_or_default();
            assert!(!ends(older, &gave), "{later} → {gave:?} ends {older}");
        }
        for said in [
            // "Stopped" gives up a doing, not a place passed through.
            "User stopped at a cafe in Leith",
            "User stopped by their mom's house on Sunday",
            "User stopped in Lisbon for two nights",
            "User smokes about ten cigarettes a day",
            "User plays Quake",
            "Je fume un paquet par semaine.",
            "我每天抽烟。",
        ] {
            assert_eq!(given_up(said), None, "{said}");
        }
    }
}
