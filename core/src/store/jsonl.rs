//! Reading and writing JSONL files of one record type; a line that does not parse is kept aside,
//! never dropped.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::printable::one_line;

/// A file's first this many unreadable lines are reported one by one; after that, consecutive
/// unreadable lines (and blank lines among them) are kept as one [`CorruptLine`], so that a file
/// of junk costs about its own size in memory, not a hundred bytes more per line.
pub const SINGLE_LINES: usize = 100;

/// A line that did not parse, kept byte for byte so it can be moved to the `.corrupt` file; past
/// [`SINGLE_LINES`], a run of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorruptLine {
    /// The file's name, e.g. `memory.jsonl`.
    pub file: String,
    /// 1-based number of its (first) line in that file.
    pub line_no: usize,
    /// The number of its last line: `line_no` unless it is a run.
    pub last_line_no: usize,
    /// How many unreadable lines it holds: 1 unless it is a run (blank lines are not counted).
    pub lines: usize,
    /// The line as it was on disk (it may not be UTF-8); for a run, every byte from its first
    /// line to the end of its last, line breaks included.
    pub bytes: Vec<u8>,
    /// Why its (first) line did not parse.
    pub reason: String,
}

impl CorruptLine {
    /// The line for display (invalid UTF-8 shown as U+FFFD).
    pub fn content(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.bytes)
    }
}

/// Parse every non-blank line of `bytes`; unparseable lines, invalid UTF-8 among them, are
/// returned beside the good ones, never repaired and never dropped. Beyond the bytes given, the
/// unreadable lines cost at most one copy of their bytes.
pub fn parse<T: DeserializeOwned>(file: &str, bytes: &[u8]) -> (Vec<T>, Vec<CorruptLine>) {
    let mut items = Vec::new();
    let mut corrupt = Vec::new();
    let mut run: Option<Run> = None;
    let mut offset = 0;
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let start = offset;
        offset += raw.len() + 1;
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let parsed = std::str::from_utf8(line)
            .map_err(|e| format!("invalid UTF-8: {e}"))
            .and_then(|text| serde_json::from_str::<T>(text).map_err(one_line));
        match parsed {
            Ok(item) => {
                if let Some(run) = run.take() {
                    corrupt.push(run.into_line(file, bytes));
                }
                items.push(item);
            }
            Err(reason) if corrupt.len() < SINGLE_LINES => corrupt.push(CorruptLine {
                file: file.to_string(),
                line_no: i + 1,
                last_line_no: i + 1,
                lines: 1,
                bytes: line.to_vec(),
                reason,
            }),
            Err(reason) => match &mut run {
                Some(run) => {
                    run.end = start + line.len();
                    run.last_line_no = i + 1;
                    run.lines += 1;
                }
                None => {
                    run = Some(Run {
                        start,
                        end: start + line.len(),
                        line_no: i + 1,
                        last_line_no: i + 1,
                        lines: 1,
                        reason,
                    })
                }
            },
        }
    }
    if let Some(run) = run {
        corrupt.push(run.into_line(file, bytes));
    }
    (items, corrupt)
}

/// Consecutive unreadable lines being gathered: where they are in the file, not a copy.
struct Run {
    start: usize,
    end: usize,
    line_no: usize,
    last_line_no: usize,
    lines: usize,
    reason: String,
}

impl Run {
    fn into_line(self, file: &str, bytes: &[u8]) -> CorruptLine {
        CorruptLine {
            file: file.to_string(),
            line_no: self.line_no,
            last_line_no: self.last_line_no,
            lines: self.lines,
            bytes: bytes[self.start..self.end].to_vec(),
            reason: self.reason,
        }
    }
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
    fn past_the_single_lines_consecutive_bad_lines_are_one_run() {
        let mut text = String::new();
        for i in 0..SINGLE_LINES {
            text.push_str(&format!("bad {i}\n"));
        }
        let first = SINGLE_LINES + 1;
        // A run across a blank line and CRLF endings, a good line, a run of one, a good line,
        // and a run at the end without a final newline.
        text.push_str("junk a\r\n\njunk b\r\njunk c\n{\"a\":1}\njunk d\n{\"a\":2}\njunk e\njunk f");
        let (items, bad): (Vec<serde_json::Value>, _) = parse("f.jsonl", text.as_bytes());
        assert_eq!(items.len(), 2);
        assert_eq!(bad.len(), SINGLE_LINES + 3);
        assert!(bad[..SINGLE_LINES].iter().all(|c| c.lines == 1));
        let runs: Vec<(usize, usize, usize, &[u8])> = bad[SINGLE_LINES..]
            .iter()
            .map(|c| (c.line_no, c.last_line_no, c.lines, c.bytes.as_slice()))
            .collect();
        assert_eq!(
            runs,
            [
                (first, first + 3, 3, &b"junk a\r\n\njunk b\r\njunk c"[..]),
                (first + 5, first + 5, 1, &b"junk d"[..]),
                (first + 7, first + 8, 2, &b"junk e\njunk f"[..]),
            ]
        );
        assert!(
            bad[SINGLE_LINES].reason.contains("expected"),
            "{:?}",
            bad[SINGLE_LINES]
        );
        let counted: usize = bad.iter().map(|c| c.lines).sum();
        assert_eq!(counted, SINGLE_LINES + 6);
    }

    #[test]
    fn a_reason_is_one_line_whatever_the_line_held() {
        let (items, bad): (Vec<crate::record::Kind>, _) =
            parse("f.jsonl", b"\"semantic\"\n\"a\\nb\"\n");
        assert_eq!(items.len(), 1);
        assert!(
            bad[0].reason.starts_with("unknown variant `a\\u{000A}b`"),
            "{}",
            bad[0].reason
        );
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
