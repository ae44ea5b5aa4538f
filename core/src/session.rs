//! Reading chat session logs (`sessions/<id>.jsonl`, one message a line): lines that do not
//! parse are skipped and counted, never fatal; only regular files of bounded size are read, and
//! anything else there (a link, a pipe, a device, a huge file) is passed over with its reason.

use std::fs::{File, Metadata, OpenOptions};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Append `lines` to the log `dir/<name>.jsonl` in one write: the folder is created 0700 if
/// missing, the file 0600; a link or anything but a regular file there is refused. `name` must
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
    let mut file = OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(dir.join(format!("{name}.jsonl")))?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    file.write_all(text.as_bytes())?;
    file.sync_data()
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
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub id: String,
    pub path: PathBuf,
    pub modified: DateTime<Utc>,
    pub lines: Vec<Line>,
    /// The line of the log each of `lines` was read from (1-based); empty when not read from a
    /// file.
    pub numbers: Vec<usize>,
    /// Lines that did not parse.
    pub skipped: usize,
}

impl Session {
    /// The log line (1-based) that `lines[i]` was read from.
    pub fn line_number(&self, i: usize) -> usize {
        self.numbers.get(i).copied().unwrap_or(i + 1)
    }
}

/// Parse a log's text.
pub fn parse(text: &str) -> (Vec<Line>, usize) {
    let (lines, _, skipped) = parse_numbered(text);
    (lines, skipped)
}

/// Parse a log's text, with the line (1-based) each message was read from.
pub fn parse_numbered(text: &str) -> (Vec<Line>, Vec<usize>, usize) {
    let mut lines = Vec::new();
    let mut numbers = Vec::new();
    let mut skipped = 0;
    for (i, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Line>(raw) {
            Ok(l) => {
                lines.push(l);
                numbers.push(i + 1);
            }
            Err(_) => skipped += 1,
        }
    }
    (lines, numbers, skipped)
}

/// The most a log may hold to be read: a pass reads about the newest 8,000 characters, and a
/// chat of this size would be some two million words.
pub const MAX_LOG_BYTES: u64 = 16 * 1024 * 1024;

/// Why a `.jsonl` entry in `sessions/` was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotRead {
    /// A symlink, FIFO, device, socket or folder: logs are regular files, and anything else could
    /// block the pass, never end, or be someone else's file.
    NotAFile,
    /// Larger than [`MAX_LOG_BYTES`].
    TooLarge {
        bytes: u64,
    },
    NotUtf8,
    Unreadable(String),
}

impl std::fmt::Display for NotRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotRead::NotAFile => f.write_str("not a regular file (a link, pipe or device)"),
            NotRead::TooLarge { bytes } => write!(
                f,
                "{bytes} bytes, over the {} MiB a log may have",
                MAX_LOG_BYTES / 1024 / 1024
            ),
            NotRead::NotUtf8 => f.write_str("not UTF-8 text"),
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

/// The session logs in `dir`. A missing folder is empty. Only regular files of at most
/// [`MAX_LOG_BYTES`] are read, opened without following a link and without waiting on a pipe;
/// every other `.jsonl` entry is passed over with its reason. A file that vanishes meanwhile is
/// left out.
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
            Ok((text, modified)) => {
                let (lines, numbers, skipped) = parse_numbered(&text);
                logs.sessions.push(Session {
                    id,
                    path,
                    modified: DateTime::<Utc>::from(modified),
                    lines,
                    numbers,
                    skipped,
                });
            }
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

/// One log's text and modification time; `Err(None)` if it is gone.
fn read_log(path: &Path) -> Result<(String, SystemTime), Option<NotRead>> {
    let gone_or = |e: std::io::Error| {
        (e.kind() != std::io::ErrorKind::NotFound).then(|| NotRead::Unreadable(e.to_string()))
    };
    // Look before opening: a device or FIFO is never opened, a link never followed.
    let meta = std::fs::symlink_metadata(path).map_err(gone_or)?;
    if !meta.file_type().is_file() {
        return Err(Some(NotRead::NotAFile));
    }
    check_size(meta.len())?;
    // It may have been swapped since: the open itself refuses a link and cannot block.
    let (file, meta) = open_regular(path)?;
    check_size(meta.len())?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // And it may grow while read: read one byte past the bound at most.
    file.take(MAX_LOG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(gone_or)?;
    check_size(bytes.len() as u64)?;
    let text = String::from_utf8(bytes).map_err(|_| Some(NotRead::NotUtf8))?;
    Ok((text, meta.modified().unwrap_or(SystemTime::UNIX_EPOCH)))
}

fn check_size(bytes: u64) -> Result<(), Option<NotRead>> {
    if bytes > MAX_LOG_BYTES {
        return Err(Some(NotRead::TooLarge { bytes }));
    }
    Ok(())
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

    #[test]
    fn a_log_that_is_not_utf8_is_passed_over_with_its_reason() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("bad.jsonl"),
            b"{\"role\":\"user\",\"content\":\"caf\xe9\"}\n",
        )
        .unwrap();
        let logs = read_dir(dir.path()).unwrap();
        assert!(logs.sessions.is_empty());
        assert_eq!(logs.passed_over[0].why, NotRead::NotUtf8);
        assert_eq!(logs.passed_over[0].why.to_string(), "not UTF-8 text");
    }

    #[test]
    fn tool_and_coder_lines_are_not_typed_by_the_user() {
        let (lines, _) = parse(
            "{\"role\":\"user\",\"content\":\"page\",\"origin\":\"tool\"}\n{\"role\":\"user\",\"content\":\"x\",\"agent\":\"coder\"}\n",
        );
        assert!(lines.iter().all(|l| !l.is_typed_by_user()));
    }
}
