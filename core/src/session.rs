//! Reading chat session logs (`sessions/<id>.jsonl`, one message a line): lines that do not
//! parse are skipped and counted, never fatal; only regular files are read (of one over the size
//! cap, its newest part), and anything else there (a link, a pipe, a device) is passed over.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Append `lines` to the log `dir/<name>.jsonl` in one write: the folder is created 0700 if
/// missing, the file 0600; a link or anything but a regular file there is refused. A write that
/// fails leaves the log as it was (a file it created is removed). `name` must
/// already be a checked session name (see `chat::session_name`).
pub fn append(dir: &Path, name: &str, lines: &[Line]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    crate::fsutil::create_private_dir(dir)?;
    let mut text = String::new();
    for l in lines {
        text.push_str(&serde_json::to_string(l).map_err(std::io::Error::other)?);
        text.push('\n');
    }
    let path = dir.join(format!("{name}.jsonl"));
    let open = |create: bool| {
        OpenOptions::new()
            .read(true)
            .append(true)
            .create_new(create)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path)
    };
    let (mut file, created) = match open(true) {
        Ok(f) => (f, true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => (open(false)?, false),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    // A write cut off before its line break (a crash, a full disk) must not swallow this one.
    if meta.len() > 0 {
        use std::os::unix::fs::FileExt;
        let mut last = [0u8];
        file.read_exact_at(&mut last, meta.len() - 1)?;
        if last != *b"\n" {
            text.insert(0, '\n');
        }
    }
    let written = file
        .write_all(text.as_bytes())
        .and_then(|()| file.sync_data());
    if written.is_err() {
        // A full disk, say: leave the log as it was, with no empty file and no torn line
        // (shortening a file needs no room).
        if created {
            let _ = std::fs::remove_file(&path);
        } else {
            let _ = file.set_len(meta.len());
        }
    }
    written
}

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
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Session {
    pub id: String,
    pub path: PathBuf,
    pub modified: DateTime<Utc>,
    pub lines: Vec<Line>,
    /// The line of the log each of `lines` was read from (1-based); empty when not read from a
    /// file.
    pub numbers: Vec<usize>,
    /// Lines that did not parse (a torn write, invalid UTF-8, not a message), among those read.
    pub skipped: usize,
    /// Messages before `lines[0]` in the log, not read: the log is over [`MAX_LOG_BYTES`] and
    /// only its newest part was read. A watermark counts messages from the log's start, so
    /// `lines[i]` is message `first + i`.
    pub first: usize,
    /// For each of `lines`, how many of the `skipped` lines came before it.
    pub skipped_before: Vec<usize>,
}

impl Session {
    /// The log line (1-based) that `lines[i]` was read from.
    pub fn line_number(&self, i: usize) -> usize {
        self.numbers.get(i).copied().unwrap_or(i + 1)
    }

    /// The unparsable lines a pass reports when the log's watermark is `messages_read`: those
    /// past the last message read and before the newest message, so each is reported once, by
    /// the pass that reads past it. One after the newest message waits for the next message
    /// (it may be the tail of a write that was cut off).
    pub fn skipped_since(&self, messages_read: usize) -> usize {
        let from = messages_read.saturating_sub(self.first);
        let (Some(&newest), true) = (self.skipped_before.last(), from < self.lines.len()) else {
            return 0;
        };
        let before = match from {
            0 => 0,
            _ => self.skipped_before.get(from - 1).copied().unwrap_or(0),
        };
        newest - before
    }
}

/// What one non-blank line of a log holds.
fn message(raw: &[u8]) -> Option<Option<Line>> {
    let text = std::str::from_utf8(raw).ok();
    if text.map_or(raw.iter().all(u8::is_ascii_whitespace), |t| {
        t.trim().is_empty()
    }) {
        return None;
    }
    Some(text.and_then(|t| serde_json::from_str::<Line>(t).ok()))
}

/// Parse a log's text.
pub fn parse(text: &str) -> (Vec<Line>, usize) {
    let (lines, _, skipped) = parse_numbered(text);
    (lines, skipped)
}

/// Parse a log's text, with the line (1-based) each message was read from.
pub fn parse_numbered(text: &str) -> (Vec<Line>, Vec<usize>, usize) {
    let s = parse_bytes(text.as_bytes(), 0);
    (s.lines, s.numbers, s.skipped)
}

/// Parse a log's bytes, whose first line is line `before + 1` of the log. A line that is not
/// UTF-8 or not a message is skipped and counted, and the lines around it are read; a last line
/// with no line break that does not parse is neither: a write may still be under way.
fn parse_bytes(bytes: &[u8], before: usize) -> Session {
    let mut s = Session::default();
    let mut offset = 0;
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        offset += raw.len() + 1;
        let unfinished = offset > bytes.len();
        match message(raw) {
            None => {}
            Some(Some(l)) => {
                s.lines.push(l);
                s.numbers.push(before + i + 1);
                s.skipped_before.push(s.skipped);
            }
            Some(None) if unfinished => {}
            Some(None) => s.skipped += 1,
        }
    }
    s
}

/// The most of a log a pass reads: a longer log is read from its first whole line within this
/// many bytes of its end (its newest part). A pass reads about the newest 8,000 characters, and a
/// chat of this size would be some two million words.
pub const MAX_LOG_BYTES: u64 = 16 * 1024 * 1024;

/// Why a `.jsonl` entry in `sessions/` was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotRead {
    /// A symlink, FIFO, device, socket or folder: logs are regular files, and anything else could
    /// block the pass, never end, or be someone else's file.
    NotAFile,
    Unreadable(String),
}

impl std::fmt::Display for NotRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotRead::NotAFile => f.write_str("not a regular file (a link, pipe or device)"),
            NotRead::Unreadable(e) => write!(f, "cannot be read: {e}"),
        }
    }
}

/// A `.jsonl` entry in `sessions/` that was passed over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassedOver {
    /// Its name in `sessions/`.
    pub file: String,
    pub why: NotRead,
}

/// What `sessions/` held: the logs read, and the entries passed over with the reason.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Logs {
    /// Newest first by modification time.
    pub sessions: Vec<Session>,
    /// By file name.
    pub passed_over: Vec<PassedOver>,
}

/// The session logs in `dir`. A missing folder is empty. Only regular files are read, opened
/// without following a link and without waiting on a pipe, and of a log over [`MAX_LOG_BYTES`]
/// only its newest part; every other `.jsonl` entry is passed over with its reason. A file that
/// vanishes meanwhile is left out.
pub fn read_dir(dir: &Path) -> std::io::Result<Logs> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Logs::default()),
        Err(e) => return Err(e),
    };
    let mut logs = Logs::default();
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
        match read_log(&path) {
            Ok((read, modified)) => logs.sessions.push(Session {
                id,
                path,
                modified: DateTime::<Utc>::from(modified),
                ..read
            }),
            Err(Some(why)) => logs.passed_over.push(PassedOver {
                file: entry.file_name().to_string_lossy().into_owned(),
                why,
            }),
            Err(None) => {}
        }
    }
    logs.sessions
        .sort_by(|a, b| b.modified.cmp(&a.modified).then(a.id.cmp(&b.id)));
    logs.passed_over.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(logs)
}

/// One log's messages and modification time; `Err(None)` if it is gone.
fn read_log(path: &Path) -> Result<(Session, SystemTime), Option<NotRead>> {
    let gone_or = |e: std::io::Error| {
        (e.kind() != std::io::ErrorKind::NotFound).then(|| NotRead::Unreadable(e.to_string()))
    };
    // Look before opening: a device or FIFO is never opened, a link never followed.
    let meta = std::fs::symlink_metadata(path).map_err(gone_or)?;
    if !meta.file_type().is_file() {
        return Err(Some(NotRead::NotAFile));
    }
    // It may have been swapped since: the open itself refuses a link and cannot block.
    let (file, meta) = open_regular(path)?;
    let mut reader = std::io::BufReader::new(file);
    let head = match meta.len().checked_sub(MAX_LOG_BYTES) {
        Some(start) if start > 0 => skip_head(&mut reader, start).map_err(gone_or)?,
        _ => Head::default(),
    };
    // It may grow while read: a line cut off at the bound is an unfinished one.
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len().min(MAX_LOG_BYTES)).unwrap_or(0));
    reader
        .take(MAX_LOG_BYTES)
        .read_to_end(&mut bytes)
        .map_err(gone_or)?;
    let read = Session {
        first: head.messages,
        ..parse_bytes(&bytes, head.lines)
    };
    Ok((read, meta.modified().unwrap_or(SystemTime::UNIX_EPOCH)))
}

/// The part of a long log before its newest [`MAX_LOG_BYTES`]: counted, not kept.
#[derive(Debug, Default)]
struct Head {
    lines: usize,
    messages: usize,
}

/// Read past the lines of `reader` that start before byte `start`, counting them and the
/// messages among them the way [`parse_bytes`] does, so that watermarks (which count messages
/// from the log's start) hold for the part read after. At most one line is held at a time, and
/// a line longer than [`MAX_LOG_BYTES`] is not held at all (it is not a message).
fn skip_head(reader: &mut impl BufRead, start: u64) -> std::io::Result<Head> {
    let mut head = Head::default();
    let mut at = 0u64;
    let mut line = Vec::new();
    while at < start {
        line.clear();
        let n = (&mut *reader)
            .take(MAX_LOG_BYTES)
            .read_until(b'\n', &mut line)? as u64;
        at += n;
        if line.last() != Some(&b'\n') {
            if n < MAX_LOG_BYTES {
                break; // the end, mid-line: the log was cut short meanwhile
            }
            at += reader.skip_until(b'\n')? as u64;
            head.lines += 1;
            continue;
        }
        head.lines += 1;
        if let Some(Some(_)) = message(&line[..line.len() - 1]) {
            head.messages += 1;
        }
    }
    Ok(head)
}

/// Open `path` for reading if it is a regular file: a symlink is refused by the open itself
/// (O_NOFOLLOW) and a FIFO opens without waiting for a writer (O_NONBLOCK), then is refused by
/// the check on the opened file.
fn open_regular(path: &Path) -> Result<(File, Metadata), Option<NotRead>> {
    let mut opts = OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = match opts.open(path) {
        Ok(f) => f,
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(Some(NotRead::NotAFile)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(None),
        Err(e) => return Err(Some(NotRead::Unreadable(e.to_string()))),
    };
    let meta = file
        .metadata()
        .map_err(|e| Some(NotRead::Unreadable(e.to_string())))?;
    if !meta.file_type().is_file() {
        return Err(Some(NotRead::NotAFile));
    }
    Ok((file, meta))
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

    /// A FIFO or a link swapped in after `read_dir` looked: the open itself must refuse it, and
    /// must not wait for a writer. Run in a thread so a blocking open fails instead of hanging.
    #[cfg(unix)]
    #[test]
    fn the_open_refuses_a_fifo_and_a_link_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.jsonl");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let target = dir.path().join("target.jsonl");
        std::fs::write(&target, "{\"role\":\"user\",\"content\":\"hi\"}\n").unwrap();
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&target, &link).unwrap();

        let (tx, rx) = std::sync::mpsc::channel();
        let (f, l) = (fifo.clone(), link.clone());
        std::thread::spawn(move || {
            let _ = tx.send((open_regular(&f).err(), open_regular(&l).err()));
        });
        let Ok((fifo_err, link_err)) = rx.recv_timeout(std::time::Duration::from_secs(10)) else {
            let _ = OpenOptions::new().write(true).open(&fifo);
            panic!("opening a FIFO blocked");
        };
        assert_eq!(fifo_err, Some(Some(NotRead::NotAFile)));
        assert_eq!(link_err, Some(Some(NotRead::NotAFile)));
        assert!(open_regular(&target).is_ok());
    }

    #[test]
    fn append_writes_lines_a_pass_reads_and_refuses_links() {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("sessions");
        let line = |role: &str| Line {
            ts: None,
            role: role.into(),
            content: "hi".into(),
            origin: None,
            agent: None,
        };
        append(&logs, "s1", &[line("user"), line("assistant")]).unwrap();
        append(&logs, "s1", &[line("user")]).unwrap();
        let text = std::fs::read_to_string(logs.join("s1.jsonl")).unwrap();
        assert_eq!(parse(&text).0.len(), 3);
        let (_, numbers, _) = parse_numbered(
            "\n{\"role\":\"user\",\"content\":\"a\"}\nnot json\n{\"role\":\"user\",\"content\":\"b\"}\n",
        );
        assert_eq!(
            numbers,
            [2, 4],
            "a message's number is its line in the file"
        );
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(logs.join("s1.jsonl"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), logs.join("s2.jsonl")).unwrap();
        assert!(append(&logs, "s2", &[line("user")]).is_err());
        assert!(!dir.path().join("elsewhere").exists());
    }

    const MSG: &str = "{\"role\":\"user\",\"content\":\"hi\"}\n";

    #[test]
    fn a_torn_line_is_skipped_and_every_other_line_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = MSG.as_bytes().to_vec();
        log.extend_from_slice(b"{\"role\":\"user\",\"content\":\"caf\xe9\"}\n");
        log.extend_from_slice(MSG.as_bytes());
        std::fs::write(dir.path().join("torn.jsonl"), log).unwrap();
        let logs = read_dir(dir.path()).unwrap();
        assert!(logs.passed_over.is_empty(), "{:?}", logs.passed_over);
        let s = &logs.sessions[0];
        assert_eq!((s.lines.len(), s.skipped), (2, 1));
        assert_eq!(s.numbers, [1, 3]);
    }

    #[test]
    fn an_unfinished_last_line_is_not_counted_as_bad() {
        let text = format!("{MSG}{{\"role\":\"us");
        assert_eq!(parse(&text), (vec![parse(MSG).0[0].clone()], 0));
        let done = format!("{MSG}{{\"role\":\"us\n");
        assert_eq!(parse(&done).1, 1);
    }

    /// Bad lines are reported once: by the pass that reads past them.
    #[test]
    fn skipped_since_counts_the_bad_lines_past_the_watermark_once() {
        // messages 0, 1, 2; bad lines before 1 (one) and before 2 (two), and one after 2.
        let text = format!("{MSG}torn\n{MSG}x\n\ny\n{MSG}z\n");
        let s = parse_bytes(text.as_bytes(), 0);
        assert_eq!((s.lines.len(), s.skipped), (3, 4));
        let seen: Vec<usize> = (0..=4).map(|read| s.skipped_since(read)).collect();
        assert_eq!(seen, [3, 3, 2, 0, 0]);
        // Read in part, from message 10 of the log on.
        let tail = Session { first: 10, ..s };
        assert_eq!(tail.skipped_since(11), 3);
        assert_eq!(tail.skipped_since(12), 2);
        assert_eq!(tail.skipped_since(13), 0);
    }

    #[test]
    fn an_append_after_a_cut_off_write_starts_on_its_own_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.jsonl"), format!("{MSG}{{\"role\":\"us")).unwrap();
        let line = Line {
            ts: None,
            role: "user".into(),
            content: "still here".into(),
            origin: None,
            agent: None,
        };
        append(dir.path(), "s", std::slice::from_ref(&line)).unwrap();
        let text = std::fs::read_to_string(dir.path().join("s.jsonl")).unwrap();
        let (lines, skipped) = parse(&text);
        assert_eq!(lines.last(), Some(&line));
        assert_eq!((lines.len(), skipped), (2, 1));
    }

    #[test]
    fn tool_and_coder_lines_are_not_typed_by_the_user() {
        let (lines, _) = parse(
            "{\"role\":\"user\",\"content\":\"page\",\"origin\":\"tool\"}\n{\"role\":\"user\",\"content\":\"x\",\"agent\":\"coder\"}\n",
        );
        assert!(lines.iter().all(|l| !l.is_typed_by_user()));
    }
}
