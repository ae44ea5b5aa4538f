//! The legacy flat `chat-memory.md`: one fact a line or bullet, imported once (source `import`).

use crate::fact_text::normalize_fact;

/// The file name in the data dir.
pub const LEGACY_FILE: &str = "chat-memory.md";

/// The facts in a legacy file: bullets and numbering stripped, headings, blank lines, rules and
/// lines that are not a valid fact (too long) skipped.
pub fn parse_legacy(text: &str) -> Vec<String> {
    let mut facts = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.chars().all(|c| "-*_=".contains(c)) {
            continue;
        }
        let body = strip_marker(line);
        if let Ok(fact) = normalize_fact(body) {
            facts.push(fact);
        }
    }
    facts
}

fn strip_marker(line: &str) -> &str {
    for bullet in ["- [ ] ", "- [x] ", "- ", "* ", "+ ", "• "] {
        if let Some(rest) = line.strip_prefix(bullet) {
            return rest;
        }
    }
    let digits = line.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 {
        let rest = &line[digits..];
        for sep in [". ", ") "] {
            if let Some(rest) = rest.strip_prefix(sep) {
                return rest;
            }
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bullets_numbers_and_headings() {
        let text = "# Memory\n\n- Name is Ada\n* Uses vim\n3. Lives in Oslo\n---\nplain fact\n+   spaced   out  \n";
        assert_eq!(
            parse_legacy(text),
            vec![
                "Name is Ada",
                "Uses vim",
                "Lives in Oslo",
                "plain fact",
                "spaced out"
            ]
        );
    }
}
