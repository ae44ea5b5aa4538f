//! Text shown to a person as it is, hiding nothing: `visible` escapes every control, format or
//! invisible character as `\u{XXXX}` for the terminal, and `one_line` makes a parser's error,
//! which may quote the file it refused, one printable line.

use std::borrow::Cow;

use crate::chars::{is_format, is_invisible, kept_in_emoji};

/// `text` for a terminal: every control, format or invisible character (bar the joiners of an
/// emoji sequence, which `fact_text::normalize_fact` keeps too) is shown as `\u{XXXX}`, so a fact stored
/// before they were removed cannot hide text, reorder a line or move the cursor. A backslash is
/// left as it is.
pub fn visible(text: &str) -> Cow<'_, str> {
    let hidden = |c: char| c.is_control() || is_format(c) || is_invisible(c);
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        if hidden(ch) && !kept_in_emoji(prev, ch, chars.peek().copied()) {
            out.push_str(&format!("\\u{{{:04X}}}", ch as u32));
            prev = None;
        } else {
            out.push(ch);
            prev = Some(ch);
        }
    }
    Cow::Owned(out)
}

/// A parser's message as one printable line. serde quotes the input it refused without escaping
/// it ("unknown variant `a<newline>b`"), so a file could otherwise split an error over several
/// lines or send escape codes to the terminal; those characters are shown as [`visible`] shows
/// them.
pub fn one_line(message: impl std::fmt::Display) -> String {
    visible(&message.to_string()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chars::INVISIBLE;

    #[test]
    fn one_line_escapes_what_a_parser_quoted() {
        let e = serde_json::from_str::<crate::record::Kind>(r#""a\nb\u001b[2J""#).unwrap_err();
        assert_eq!(
            one_line(e),
            "unknown variant `a\\u{000A}b\\u{001B}[2J`, expected `semantic` or `episodic` at line 1 column 15"
        );
    }

    #[test]
    fn visible_escapes_what_a_terminal_would_hide() {
        for (c, name) in INVISIBLE {
            let shown = visible(&format!("tea{c}cup")).into_owned();
            assert_eq!(shown, format!("tea\\u{{{:04X}}}cup", *c as u32), "{name}");
        }
        let cases: &[(&str, &str)] = &[
            (
                "bell\u{7} and esc\u{1B}[2J",
                "bell\\u{0007} and esc\\u{001B}[2J",
            ),
            ("line\nbreak\r", "line\\u{000A}break\\u{000D}"),
            ("\u{0600}12", "\\u{0600}12"),
            (
                "Café, 👩\u{200D}💻, ❤\u{FE0F}",
                "Café, 👩\u{200D}💻, ❤\u{FE0F}",
            ),
            ("C:\\path", "C:\\path"),
        ];
        for (input, want) in cases {
            assert_eq!(visible(input), *want, "{input:?}");
        }
        assert!(matches!(visible("plain"), Cow::Borrowed("plain")));
    }

    #[test]
    fn a_stored_fact_shows_as_it_is() {
        for raw in [
            "Prefers tea",
            "Likes 👨\u{200D}👩\u{200D}👧 and ❤\u{FE0F}\u{200D}🔥",
        ] {
            let stored = crate::fact_text::normalize_fact(raw).unwrap();
            assert_eq!(visible(&stored), stored);
        }
    }
}
