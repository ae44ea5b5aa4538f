//! Reading chat session logs (`sessions/<id>.jsonl`, one message a line): lines that do not
//! parse are skipped and counted, never fatal.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// One logged message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line {
    #[serde(default)]
    pub ts: Option<DateTime<Utc>>,
    pub role: String,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

impl Line {
    /// A message the user typed in chat (not tool output, not the coder's).
    pub fn is_typed_by_user(&self) -> bool {
        self.role == "user" && self.origin.is_none() && self.agent.as_deref() != Some("coder")
    }
}

/// One session log as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub id: String,
    pub path: PathBuf,
    pub modified: DateTime<Utc>,
    pub lines: Vec<Line>,
    /// Lines that did not parse.
    pub skipped: usize,
}

/// Parse a log's text.
pub fn parse(text: &str) -> (Vec<Line>, usize) {
    let mut lines = Vec::new();
    let mut skipped = 0;
    for raw in text.lines() {
        if raw.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Line>(raw) {
            Ok(l) => lines.push(l),
            Err(_) => skipped += 1,
        }
    }
    (lines, skipped)
}

/// The session logs in `dir`, newest first by modification time. A missing folder is empty;
/// an unreadable file is skipped.
pub fn read_dir(dir: &Path) -> std::io::Result<Vec<Session>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut sessions = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        let Some(id) = path
            .file_stem()
            .and_then(|s| s.to_str())
            .map(str::to_string)
        else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let modified = entry
            .metadata()
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        let (lines, skipped) = parse(&text);
        sessions.push(Session {
            id,
            path,
            modified: DateTime::<Utc>::from(modified),
            lines,
            skipped,
        });
    }
    sessions.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.id.cmp(&b.id)));
    Ok(sessions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_lines_are_skipped_and_counted() {
        let text = "{\"role\":\"user\",\"content\":\"hi\"}\nnot json\n\n{\"role\":\"assistant\",\"content\":\"hello\",\"ts\":\"2026-01-01T00:00:00Z\"}\n{\"role\":1}\n";
        let (lines, skipped) = parse(text);
        assert_eq!(lines.len(), 2);
        assert_eq!(skipped, 2);
        assert!(lines[0].is_typed_by_user());
        assert!(!lines[1].is_typed_by_user());
    }

    #[test]
    fn tool_and_coder_lines_are_not_typed_by_the_user() {
        let (lines, _) = parse(
            "{\"role\":\"user\",\"content\":\"page\",\"origin\":\"tool\"}\n{\"role\":\"user\",\"content\":\"x\",\"agent\":\"coder\"}\n",
        );
        assert!(lines.iter().all(|l| !l.is_typed_by_user()));
    }
}
