//! Secrets named in any language: a secret's name from any reader (`language::reader`, "mi
//! contraseña", "Geheimzahl", "密码", "비밀번호") or from a language memory does not read
//! (`language::unread`, "пароль", "पासवर्ड"), then, in the same sentence and a few words on, a
//! value: a made-up string ("Girasol2024", "nabi1234"), three digits or more ("384756"), or any
//! word after a colon ("Passwort: Sonnenblume"). Every text is read with every language's
//! names, whatever language it is in: a secret is refused in any script.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::OnceLock;

use super::{Found, REDACTED, Secret};
use crate::language::Lang;
use crate::language::reader::{Named, READERS, is_grammar};
use crate::language::unread::{SECRET_LINKS, SECRET_NAMES};

/// How far after a name its value may start, in characters.
const WINDOW_CHARS: usize = 40;

/// Words right after a name that make it the name of something else ("password manager").
/// English puts these after the name; languages that put them before ("gestionnaire de mots
/// de passe") or join them ("Passwortmanager") never stand a name there.
const NOT_THE_SECRET: &[&str] = &["manager", "managers", "hint", "hints"];

/// Links in any script: a sign between a name and its value ("PIN = 4821", "пароль — …").
const SIGN_LINKS: &[&str] = &["=", "—", "-"];

/// How a name must stand in a word.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stands {
    /// A whole word (most spaced languages).
    Whole,
    /// Opening a word that goes on with an ending ("비밀번호는", "пароля", "şifrem").
    Opening,
    /// Anywhere (a language without spaces).
    Anywhere,
}

/// One name of a secret: its words, how they stand, what they name, and whether its value
/// needs a link (a name that goes on to the thing a code opens: "code de la …").
#[derive(Clone, Copy)]
struct Name {
    words: &'static str,
    stands: Stands,
    kind: Named,
    needs_link: bool,
}

/// Every reader's names and the unread languages', with how each stands.
fn names() -> impl Iterator<Item = Name> {
    let read = READERS.iter().flat_map(|r| {
        let stands = if r.lang.unspaced() {
            Stands::Anywhere
        } else if r.lang == Lang::Korean {
            Stands::Opening
        } else {
            Stands::Whole
        };
        r.secrets.names.iter().map(move |&(words, kind)| Name {
            words,
            // A name in Latin letters stands as a word even in a language without spaces
            // ("pin" of "helping" is none; "pin码" opens a word).
            stands: match latin_letters(words) {
                Some(true) => Stands::Whole,
                Some(false) => Stands::Opening,
                None => stands,
            },
            kind,
            needs_link: words
                .rsplit_once(' ')
                .is_some_and(|(_, last)| r.grammar.contains(&last)),
        })
    });
    // A Latin-script name opens a word ("şifrem"); another script's stands anywhere, since
    // Hebrew and Arabic write "the" and "my" onto the word ("הסיסמה") and Thai has no spaces.
    read.chain(SECRET_NAMES.iter().map(|&(words, kind)| {
        let latin = words
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == 'ş');
        Name {
            words,
            stands: if latin {
                Stands::Opening
            } else {
                Stands::Anywhere
            },
            kind,
            needs_link: false,
        }
    }))
}

/// Every language's links, read or not, and the signs.
fn links() -> &'static HashSet<&'static str> {
    static LINKS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    LINKS.get_or_init(|| {
        READERS
            .iter()
            .flat_map(|r| r.secrets.links.iter())
            .chain(SECRET_LINKS)
            .chain(SIGN_LINKS)
            .copied()
            .collect()
    })
}

/// Every name by its first letter, gathered once: the text is read once, each of its letters
/// looking up the few names that start with it.
fn by_first_letter() -> &'static HashMap<char, Vec<Name>> {
    static MAP: OnceLock<HashMap<char, Vec<Name>>> = OnceLock::new();
    MAP.get_or_init(|| {
        let mut m: HashMap<char, Vec<Name>> = HashMap::new();
        for name in names() {
            if let Some(c) = name.words.chars().next() {
                m.entry(c).or_default().push(name);
            }
        }
        m
    })
}

/// Whether `name` is in Latin letters alone (`Some(true)`), opens with them (`Some(false)`), or
/// neither (`None`).
fn latin_letters(name: &str) -> Option<bool> {
    let opens = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    opens.then(|| name.chars().all(|c| c.is_ascii() || !c.is_alphabetic()))
}

/// Every secret `text` names in any language.
pub(super) fn named(text: &str) -> Vec<Found> {
    // Every value is digits, letters with digits, or after a colon: a text with neither (most
    // facts) names no secret here, and costs one scan (recall asks this of every record).
    if !text.bytes().any(|b| b.is_ascii_digit()) && !text.contains([':', '：']) {
        return Vec::new();
    }
    let folded = crate::words::fold(text);
    let mut out: Vec<Found> = Vec::new();
    let by_first = by_first_letter();
    for (at, c) in folded.char_indices() {
        let Some(here) = by_first.get(&c) else {
            continue;
        };
        for name in here {
            if !folded[at..].starts_with(name.words) {
                continue;
            }
            let end = at + name.words.len();
            if !stands_so(&folded, at, end, name.stands) {
                continue;
            }
            let after = end + ending(&folded[end..], name.stands);
            let span = value_after(text, &folded, after, name.needs_link)
                .or_else(|| value_before(&folded, at));
            if let Some(span) = span
                && !out.iter().any(|f| f.span == span)
            {
                out.push(Found {
                    kind: match name.kind {
                        Named::Password => Secret::Password,
                        Named::Pin => Secret::Pin,
                        Named::Code => Secret::Passcode,
                    },
                    span,
                });
            }
        }
    }
    out
}

/// Whether the name at `at..end` of `folded` stands as `stands` asks.
fn stands_so(folded: &str, at: usize, end: usize, stands: Stands) -> bool {
    let before = folded[..at].chars().next_back();
    let after = folded[end..].chars().next();
    let apart = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    match stands {
        Stands::Anywhere => true,
        Stands::Opening => apart(before),
        Stands::Whole => apart(before) && apart(after),
    }
}

/// The bytes of a word's ending after a name that opens it ("는" of "비밀번호는").
fn ending(rest: &str, stands: Stands) -> usize {
    if stands != Stands::Opening {
        return 0;
    }
    rest.char_indices()
        .find(|(_, c)| !c.is_alphanumeric() || c.is_ascii_alphanumeric())
        .map_or(rest.len(), |(i, _)| i)
}

/// Whether `c` may stand inside a typed secret value.
fn in_value(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!@#$%^&*_-+=/".contains(c)
}

/// The span of the value that follows a name ending at `from`, if one stands within
/// [`WINDOW_CHARS`] and the same sentence.
fn value_after(text: &str, folded: &str, from: usize, needs_link: bool) -> Option<Range<usize>> {
    let rest = &text[from..];
    let limit = rest
        .char_indices()
        .nth(WINDOW_CHARS)
        .map_or(rest.len(), |(i, _)| i);
    let first = words_after(&folded[from..], 1);
    if first
        .first()
        .is_some_and(|w| NOT_THE_SECRET.contains(&w.as_str()))
    {
        return None;
    }
    let mut i = 0;
    while i < limit {
        let c = rest[i..].chars().next()?;
        if ends_a_sentence(rest, i, c) {
            return None;
        }
        // A value already blanked out is not one again.
        if rest[i..].starts_with(REDACTED) {
            i += REDACTED.len();
            continue;
        }
        let colon = rest[..i].trim_end().ends_with([':', '：']);
        let starts = if colon {
            c.is_alphanumeric()
        } else {
            in_value(c) && c != '-'
        };
        if !starts {
            i += c.len_utf8();
            continue;
        }
        let len = token_len(&rest[i..], colon);
        let token = rest[i..i + len].trim_end_matches(['.', ',', '!', '?', '-', '/', '=']);
        let gap = &folded[from..from + i];
        if is_value(token, gap, colon) && (!needs_link || colon || link_last(gap)) {
            return Some(from + i..from + i + token.len());
        }
        i += len.max(c.len_utf8());
    }
    None
}

/// A value named as one before its name, by any reader's `before` word: "use hunter2 as the
/// password", "nimm Sonne42 als Passwort", "用panda2024作为密码". One grammar word may stand
/// between ("as my PIN").
fn value_before(folded: &str, at: usize) -> Option<Range<usize>> {
    static BEFORE: OnceLock<Vec<&'static str>> = OnceLock::new();
    let before = BEFORE.get_or_init(|| {
        READERS
            .iter()
            .flat_map(|r| r.secrets.before.iter().copied())
            .collect()
    });
    let mut head = folded[..at].trim_end();
    if let Some((rest, last)) = head.rsplit_once(char::is_whitespace)
        && !before.contains(&last)
        && is_grammar(last)
    {
        head = rest.trim_end();
    }
    let word = before.iter().find(|b| {
        head.strip_suffix(**b).is_some_and(|rest| {
            // A word in letters of a spaced language stands alone; "作为", "로" join.
            !b.chars().all(|c| c.is_ascii_alphabetic()) || rest.ends_with(char::is_whitespace)
        })
    })?;
    let head = head[..head.len() - word.len()].trim_end();
    let start = head
        .char_indices()
        .rev()
        .find(|&(_, c)| !(in_value(c) || c == '.'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let token = head[start..].trim_end_matches(['.', ',']);
    is_value(token, "", false).then(|| start..start + token.len())
}

/// The first `n` words of `s`.
fn words_after(s: &str, n: usize) -> Vec<String> {
    s.split_whitespace()
        .take(n)
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
        .collect()
}

/// Whether `c`, at byte `i` of `rest`, ends a sentence.
fn ends_a_sentence(rest: &str, i: usize, c: char) -> bool {
    match c {
        '\n' | '。' | '！' | '？' | '!' | '?' => true,
        '.' => rest[i + 1..].chars().next().is_none_or(char::is_whitespace),
        _ => false,
    }
}

/// The bytes of the token that starts `s`: a value's characters, or, after a colon, any letters
/// and digits.
fn token_len(s: &str, colon: bool) -> usize {
    let mut end = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let dot = c == '.' && next.is_some_and(|n| n.is_ascii_alphanumeric());
        let ok = in_value(c) || dot || (colon && c.is_alphanumeric());
        if !ok {
            break;
        }
        end = i + c.len_utf8();
    }
    end
}

/// Whether `token` is a secret's value, `gap` (folded) standing between the name and it.
fn is_value(token: &str, gap: &str, colon: bool) -> bool {
    let letters = token.chars().filter(|c| c.is_alphabetic()).count();
    let digits = token.chars().filter(char::is_ascii_digit).count();
    let n = token.chars().count();
    if colon && n >= 3 && (letters > 0 || digits >= 3) {
        return true;
    }
    if letters > 0 && digits > 0 {
        return n >= 4;
    }
    if letters > 0 || digits < 3 || digits != token.chars().filter(|c| *c != '-').count() {
        return false;
    }
    let year = digits == 4 && (token.starts_with("19") || token.starts_with("20"));
    !year || linked_straight(gap)
}

/// Whether one of the last two words of `gap` is a link ("… de la porte est ", "… est le ").
fn link_last(gap: &str) -> bool {
    gap.split_whitespace()
        .rev()
        .take(2)
        .any(|w| links().contains(w) || w.ends_with([':', '：']))
}

/// Whether `gap` is nothing, or one link ("ist", "是", "는"), or a colon.
fn linked_straight(gap: &str) -> bool {
    let words: Vec<&str> = gap.split_whitespace().collect();
    match words.as_slice() {
        [] => true,
        [one] => {
            links().contains(one)
                || one.ends_with([':', '：'])
                || (one.chars().count() <= 2 && !one.is_ascii())
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_year_is_a_value_only_straight_after_its_name() {
        assert!(linked_straight(" ist "));
        assert!(linked_straight("是"));
        assert!(!linked_straight(" ist seit "));
        assert!(is_value("1987", " ist ", false));
        assert!(!is_value("2019", " ist seit ", false));
        assert!(is_value("kotaro2019", " ist seit ", false));
        assert!(!is_value("12", "", false));
        assert!(!is_value("EC-Karte", "", false));
    }
}
