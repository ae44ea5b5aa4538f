//! A turn in a language the English rules do not read: its sentences that speak of the user in
//! the first person, kept exactly as the user wrote them (never rewritten, never translated).
//! What counts as the first person is one row per language (`language::words`); the rest of the
//! rules (a question, a secret, too short, too long, a placeholder) are the English rules' own.

use super::rules::{Dropped, Rule};
use crate::language::Lang;
use crate::language::words::{self, Words, first_person, says_any, says_phrase};

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
    let row = words::of(lang);
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
fn verdict(s: &str, row: &Words) -> Result<(), Dropped> {
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
