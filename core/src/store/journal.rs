//! The transaction journal (`.journal`): the one file whose atomic replacement commits a write
//! spanning several files, and the store's generation number. Its format, and what it says each
//! file holds; the protocol around it is in `store/mod.rs`.
//!
//! The file is one JSON header line, then the bytes of every written file, back to back:
//!
//! ```text
//! {"journal":1,"generation":7,"phase":"pending","entries":[{"write":{"file":"memory.jsonl","len":812}},{"remove":{"file":"memory.vec"}}],"checksum":…}
//! <812 bytes of memory.jsonl>
//! ```
//!
//! A pending journal holds a committed transaction's whole new files (text of facts among them)
//! until they are in place; a done one holds only the generation.

use serde::{Deserialize, Serialize};

use super::{
    ARCHIVE_FILE, CORRECTIONS_FILE, CORRUPT_SUFFIX, RECORDS_FILE, STATE_FILE, VECTORS_FILE,
};
use crate::id::Fnv;
use crate::printable::one_line;

/// The journal format this build writes and reads.
pub const FORMAT: u32 = 1;

/// Whether a journal's files are all in place yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Committed, its files perhaps not all in place: the next writer finishes it.
    Pending,
    /// Every file in place; only the generation is kept.
    Done,
}

/// What one transaction does to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// The file's whole new content.
    Write {
        file: String,
        bytes: Vec<u8>,
    },
    Remove {
        file: String,
    },
}

impl Entry {
    pub fn file(&self) -> &str {
        match self {
            Entry::Write { file, .. } | Entry::Remove { file } => file,
        }
    }
}

/// One transaction of the store, or (done) just its generation number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Journal {
    /// Raised by one for every transaction that changes a file; never lowered.
    pub generation: u64,
    pub phase: Phase,
    pub entries: Vec<Entry>,
}

/// Why a journal could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JournalError {
    #[error("{0}")]
    Bad(String),
    #[error("journal format {0} is newer than this build's")]
    Newer(u32),
}

#[derive(Serialize, Deserialize)]
struct Header {
    journal: u32,
    generation: u64,
    phase: Phase,
    #[serde(default)]
    entries: Vec<Head>,
    /// FNV-1a of the bytes after the header line.
    checksum: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Head {
    Write { file: String, len: usize },
    Remove { file: String },
}

impl Journal {
    /// What this journal says `file` holds once it is in place: `None` if it does not touch
    /// `file`, `Some(None)` if it removes it.
    pub fn outcome(&self, file: &str) -> Option<Option<&[u8]>> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.file() == file)
            .map(|e| match e {
                Entry::Write { bytes, .. } => Some(bytes.as_slice()),
                Entry::Remove { .. } => None,
            })
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut body = Vec::new();
        let mut heads = Vec::with_capacity(self.entries.len());
        for entry in &self.entries {
            heads.push(match entry {
                Entry::Write { file, bytes } => {
                    body.extend_from_slice(bytes);
                    Head::Write {
                        file: file.clone(),
                        len: bytes.len(),
                    }
                }
                Entry::Remove { file } => Head::Remove { file: file.clone() },
            });
        }
        let header = Header {
            journal: FORMAT,
            generation: self.generation,
            phase: self.phase,
            entries: heads,
            checksum: checksum(&body),
        };
        let mut out = serde_json::to_vec(&header).expect("the header is plain data");
        out.push(b'\n');
        out.extend_from_slice(&body);
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<Journal, JournalError> {
        let bad = |why: &str| JournalError::Bad(why.to_string());
        let end = bytes
            .iter()
            .position(|&b| b == b'\n')
            .ok_or_else(|| bad("no header line"))?;
        let (line, body) = (&bytes[..end], &bytes[end + 1..]);
        // The version first, so a newer layout is reported as newer rather than as unreadable.
        #[derive(Deserialize)]
        struct Version {
            journal: u32,
        }
        let version: Version = serde_json::from_slice(line).map_err(|e| bad(&one_line(e)))?;
        if version.journal > FORMAT {
            return Err(JournalError::Newer(version.journal));
        }
        let header: Header = serde_json::from_slice(line).map_err(|e| bad(&one_line(e)))?;
        // The next transaction is generation + 1; generations never wrap (readers rely on it).
        if header.generation == u64::MAX {
            return Err(bad("its generation is too large to follow"));
        }
        let total = header.entries.iter().try_fold(0usize, |sum, h| match h {
            Head::Write { len, .. } => sum.checked_add(*len),
            Head::Remove { .. } => Some(sum),
        });
        if total != Some(body.len()) {
            return Err(bad("its length does not match its header (cut short?)"));
        }
        if checksum(body) != header.checksum {
            return Err(bad("its checksum does not match"));
        }
        let mut rest = body;
        let mut entries = Vec::with_capacity(header.entries.len());
        for head in header.entries {
            let entry = match head {
                Head::Write { file, len } => {
                    let (bytes, after) = rest.split_at(len);
                    rest = after;
                    Entry::Write {
                        file,
                        bytes: bytes.to_vec(),
                    }
                }
                Head::Remove { file } => Entry::Remove { file },
            };
            let fits = match &entry {
                // A transaction writes only the store's own files: a damaged header naming
                // another (the checksum covers the body only) is refused, never written.
                Entry::Write { file, .. } => is_written_file(file),
                // `clear` removes whatever the folder holds.
                Entry::Remove { file } => is_plain_name(file),
            };
            if !fits {
                return Err(JournalError::Bad(format!(
                    "{:?} is not a file of the store's folder",
                    entry.file()
                )));
            }
            entries.push(entry);
        }
        Ok(Journal {
            generation: header.generation,
            phase: header.phase,
            entries,
        })
    }
}

fn checksum(bytes: &[u8]) -> u64 {
    let mut h = Fnv::new();
    h.write(bytes);
    h.finish()
}

/// A name inside the store's folder: no path separator, not `.` or `..`, at most the 255 bytes a
/// file name may have.
fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0'])
}

/// A file a transaction writes: a JSONL file, its `.corrupt` file, `state.json`, or
/// `memory.vec` (the vectors of records a write removed dropped).
fn is_written_file(name: &str) -> bool {
    let jsonl = [RECORDS_FILE, ARCHIVE_FILE, CORRECTIONS_FILE];
    name == STATE_FILE
        || name == VECTORS_FILE
        || jsonl
            .iter()
            .any(|f| name == *f || name.strip_suffix(CORRUPT_SUFFIX) == Some(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending() -> Journal {
        Journal {
            generation: 7,
            phase: Phase::Pending,
            entries: vec![
                Entry::Write {
                    file: "memory.jsonl".into(),
                    bytes: b"{\"a\":1}\n".to_vec(),
                },
                Entry::Write {
                    file: "memory.jsonl.corrupt".into(),
                    bytes: b"caf\xe9\n".to_vec(),
                },
                Entry::Remove {
                    file: "memory.vec".into(),
                },
                Entry::Write {
                    file: "state.json".into(),
                    bytes: Vec::new(),
                },
            ],
        }
    }

    #[test]
    fn round_trips_any_bytes() {
        let j = pending();
        assert_eq!(Journal::decode(&j.encode()).unwrap(), j);
        assert_eq!(j.outcome("memory.vec"), Some(None));
        assert_eq!(j.outcome("state.json"), Some(Some(&b""[..])));
        assert_eq!(j.outcome(".forgotten.jsonl"), None);
    }

    #[test]
    fn damage_is_refused_not_replayed() {
        let bytes = pending().encode();
        let cut = &bytes[..bytes.len() - 1];
        assert!(matches!(Journal::decode(cut), Err(JournalError::Bad(_))));
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert!(matches!(
            Journal::decode(&flipped),
            Err(JournalError::Bad(_))
        ));
        let escape = Journal {
            entries: vec![Entry::Remove {
                file: "../settings.json".into(),
            }],
            ..pending()
        };
        assert!(matches!(
            Journal::decode(&escape.encode()),
            Err(JournalError::Bad(_))
        ));
    }

    #[test]
    fn an_error_is_one_line_whatever_the_header_held() {
        let bytes = pending().encode();
        let text = String::from_utf8_lossy(&bytes).replacen("\"write\"", "\"a\\nb\"", 1);
        let Err(JournalError::Bad(why)) = Journal::decode(text.as_bytes()) else {
            panic!("decoded a journal with an unknown entry");
        };
        assert!(why.starts_with("unknown variant `a\\u{000A}b`"), "{why}");
    }

    /// Found by fuzzing: a `done` journal of generation 18446744073709551615 read fine, and the
    /// next write overflowed `generation + 1` (a panic in debug builds, a wrap to 0 in release).
    #[test]
    fn a_generation_with_no_successor_is_refused() {
        let last = Journal {
            generation: u64::MAX,
            phase: Phase::Done,
            entries: Vec::new(),
        };
        assert!(matches!(
            Journal::decode(&last.encode()),
            Err(JournalError::Bad(_))
        ));
        let almost = Journal {
            generation: u64::MAX - 1,
            ..last
        };
        assert_eq!(Journal::decode(&almost.encode()).unwrap(), almost);
    }

    /// Found by fuzzing: a pending journal whose header named `memememe…mory.jsonl.corrupt` (the
    /// checksum covers the body, not the header) read fine, then every write failed on "File name
    /// too long" while applying it, and the error did not say to move the journal aside.
    #[test]
    fn a_header_naming_a_file_no_transaction_writes_is_refused() {
        let named = |file: &str| Journal {
            entries: vec![Entry::Write {
                file: file.into(),
                bytes: b"x".to_vec(),
            }],
            ..pending()
        };
        for file in ["memosy.jsonl", ".lock", &"m".repeat(300)] {
            assert!(
                matches!(
                    Journal::decode(&named(file).encode()),
                    Err(JournalError::Bad(_))
                ),
                "{file}"
            );
        }
        let gone = Journal {
            entries: vec![Entry::Remove {
                file: "m".repeat(256),
            }],
            ..pending()
        };
        assert!(matches!(
            Journal::decode(&gone.encode()),
            Err(JournalError::Bad(_))
        ));
        for file in [
            ".forgotten.jsonl.corrupt",
            "corrections.jsonl",
            "state.json",
        ] {
            assert!(Journal::decode(&named(file).encode()).is_ok(), "{file}");
        }
    }

    #[test]
    fn a_newer_format_says_so() {
        let bytes = pending().encode();
        let text = String::from_utf8_lossy(&bytes).replacen("\"journal\":1", "\"journal\":2", 1);
        assert_eq!(
            Journal::decode(text.as_bytes()),
            Err(JournalError::Newer(2))
        );
    }
}
