//! Reading and writing JSONL files of one record type; a line that does not parse is kept aside,
//! never dropped.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A line that did not parse, kept verbatim so it can be moved to the `.corrupt` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorruptLine {
    /// The file's name, e.g. `memory.jsonl`.
    pub file: String,
    /// 1-based line number in that file.
    pub line_no: usize,
    pub content: String,
    pub reason: String,
}

/// Parse every non-blank line of `text`; unparseable lines are returned beside the good ones.
pub fn parse<T: DeserializeOwned>(file: &str, text: &str) -> (Vec<T>, Vec<CorruptLine>) {
    let mut items = Vec::new();
    let mut corrupt = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<T>(line) {
            Ok(item) => items.push(item),
            Err(e) => corrupt.push(CorruptLine {
                file: file.to_string(),
                line_no: i + 1,
                content: line.to_string(),
                reason: e.to_string(),
            }),
        }
    }
    (items, corrupt)
}

/// Serialise `items` one JSON object a line.
pub fn render<T: Serialize>(items: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(items.len() * 256);
    for item in items {
        // Serialising our own plain data types cannot fail (no maps with non-string keys).
        if serde_json::to_writer(&mut out, item).is_ok() {
            out.push(b'\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_lines_are_kept_aside_with_their_line_numbers() {
        let text = "{\"a\":1}\nnot json\n\n{\"a\":2}\n{\"a\":\n";
        let (items, bad): (Vec<serde_json::Value>, _) = parse("f.jsonl", text);
        assert_eq!(items.len(), 2);
        assert_eq!(bad.len(), 2);
        assert_eq!(bad[0].line_no, 2);
        assert_eq!(bad[0].content, "not json");
        assert_eq!(bad[1].line_no, 5);
    }
}
