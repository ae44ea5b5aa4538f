//! Fact text rules: one trimmed line, non-empty, at most 500 characters.

use crate::record::MAX_TEXT_CHARS;

/// Why a fact's text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    #[error("the fact is empty")]
    Empty,
    #[error("the fact is {chars} characters long; the limit is {MAX_TEXT_CHARS}")]
    TooLong { chars: usize },
}

/// Normalise a fact: line breaks and other control characters become spaces, runs of white space
/// collapse, ends are trimmed. Refuses an empty result or one over 500 characters.
pub fn normalize_fact(raw: &str) -> Result<String, TextError> {
    let mut out = String::with_capacity(raw.len());
    let mut pending_space = false;
    for ch in raw.chars() {
        if ch.is_whitespace() || ch.is_control() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(ch);
    }
    if out.is_empty() {
        return Err(TextError::Empty);
    }
    let chars = out.chars().count();
    if chars > MAX_TEXT_CHARS {
        return Err(TextError::TooLong { chars });
    }
    Ok(out)
}

/// The key two facts are compared by for "the same fact": case- and space-insensitive.
pub fn fact_key(text: &str) -> String {
    text.split_whitespace()
        .map(|w| w.to_lowercase())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_table() {
        let cases: &[(&str, Result<&str, TextError>)] = &[
            ("  Prefers tea  ", Ok("Prefers tea")),
            ("two\nlines\r\nhere", Ok("two lines here")),
            ("tab\tand\u{7}bell", Ok("tab and bell")),
            ("", Err(TextError::Empty)),
            (" \n\t ", Err(TextError::Empty)),
        ];
        for (input, want) in cases {
            assert_eq!(
                normalize_fact(input).as_deref().map_err(Clone::clone),
                want.clone(),
                "{input:?}"
            );
        }
    }

    #[test]
    fn limit_is_500_characters_not_bytes() {
        let ok = "é".repeat(500);
        assert_eq!(normalize_fact(&ok).unwrap().chars().count(), 500);
        let long = "é".repeat(501);
        assert_eq!(
            normalize_fact(&long),
            Err(TextError::TooLong { chars: 501 })
        );
    }

    #[test]
    fn fact_key_ignores_case_and_spacing() {
        assert_eq!(fact_key("Prefers  TEA"), fact_key("prefers tea"));
    }
}
