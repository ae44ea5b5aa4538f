//! Reading and writing JSONL files of one record type; a line that does not parse is kept aside,
//! never dropped.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A line that did not parse, kept byte for byte so it can be moved to the `.corrupt` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorruptLine {
    /// The file's name, e.g. `memory.jsonl`.
    pub file: String,
    /// 1-based line number in that file.
    pub line_no: usize,
    /// The line as it was on disk (it may not be UTF-8).
    pub bytes: Vec<u8>,
    pub reason: String,
}

impl CorruptLine {
    /// The line for display (invalid UTF-8 shown as U+FFFD).
    pub fn content(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.bytes)
    }
}

/// Parse every non-blank line of `bytes`; unparseable lines, invalid UTF-8 among them, are
/// returned beside the good ones, never repaired.
pub fn parse<T: DeserializeOwned>(file: &str, bytes: &[u8]) -> (Vec<T>, Vec<CorruptLine>) {
    let mut items = Vec::new();
    let mut corrupt = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let parsed = std::str::from_utf8(line)
            .map_err(|e| format!("invalid UTF-8: {e}"))
            .and_then(|text| serde_json::from_str::<T>(text).map_err(|e| e.to_string()));
        match parsed {
            Ok(item) => items.push(item),
            Err(reason) => corrupt.push(CorruptLine {
                file: file.to_string(),
                line_no: i + 1,
                bytes: line.to_vec(),
                reason,
            }),
        }
    }
    (items, corrupt)
}

/// Serialise `items` one JSON object a line.
pub fn render<T: Serialize>(items: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(items.len() * 256);
    for item in items {
        serde_json::to_writer(&mut out, item)
            .expect("our record types serialise: plain data, string keys, no custom Serialize");
        out.push(b'\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_lines_are_kept_aside_with_their_line_numbers() {
        let text = "{\"a\":1}\nnot json\n\n{\"a\":2}\n{\"a\":\n";
        let (items, bad): (Vec<serde_json::Value>, _) = parse("f.jsonl", text.as_bytes());
        assert_eq!(items.len(), 2);
        assert_eq!(bad.len(), 2);
        assert_eq!(bad[0].line_no, 2);
        assert_eq!(bad[0].content(), "not json");
        assert_eq!(bad[1].line_no, 5);
    }

    #[test]
    fn invalid_utf8_is_kept_aside_byte_for_byte() {
        let text = b"{\"a\":\"ok\"}\n{\"a\":\"caf\xe9\"}\n";
        let (items, bad): (Vec<serde_json::Value>, _) = parse("f.jsonl", text);
        assert_eq!(items.len(), 1);
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].bytes, b"{\"a\":\"caf\xe9\"}".to_vec());
        assert!(bad[0].reason.contains("UTF-8"), "{}", bad[0].reason);
    }
}
