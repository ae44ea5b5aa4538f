//! Exit codes, and how an error becomes one line on stderr and one of them.

use std::process::ExitCode;

use localm_core::fact_text::TextError;
use localm_core::manage::ManageError;
use localm_core::store::StoreError;
use localm_core::store::lock::LockError;

/// The exit codes `localm` uses; documented in the README.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// Anything else: an I/O error, an unreadable file.
    Failure = 1,
    /// Bad flags or values, an empty fact.
    Usage = 2,
    /// Refused in privacy mode.
    Privacy = 3,
    /// Another localm process holds the store lock.
    Busy = 4,
    /// Over a cap: 256 records, 500 characters.
    OverCap = 5,
    /// No such id, or a prefix matching several.
    NotFound = 6,
    /// A destructive command was not confirmed.
    NotConfirmed = 7,
    /// The text holds a secret (a PIN, a password, …) and `--force` was not given.
    Secret = 8,
}

/// An error the binary raises itself with a given code (e.g. not confirmed).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Coded {
    pub code: Code,
    pub message: String,
}

pub fn coded(code: Code, message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Coded {
        code,
        message: message.into(),
    })
}

/// Which code an error maps to: the first cause in its chain that says.
pub fn code_of(err: &anyhow::Error) -> Code {
    for cause in err.chain() {
        if let Some(c) = cause.downcast_ref::<Coded>() {
            return c.code;
        }
        if let Some(e) = cause.downcast_ref::<ManageError>() {
            return match e {
                ManageError::Privacy(_) => Code::Privacy,
                ManageError::Full
                | ManageError::Text(TextError::TooLong { .. })
                | ManageError::BulkTooLarge { .. }
                | ManageError::BulkTooManyLines { .. }
                | ManageError::Line {
                    source: TextError::TooLong { .. },
                    ..
                } => Code::OverCap,
                ManageError::Text(TextError::Empty)
                | ManageError::Line { .. }
                | ManageError::BadImportance(_)
                | ManageError::NothingToChange
                | ManageError::Duplicate { .. }
                | ManageError::UnknownBase { .. } => Code::Usage,
                ManageError::Secret(_)
                | ManageError::LineSecret { .. }
                | ManageError::ProposalSecret { .. } => Code::Secret,
                ManageError::NotFound { .. } | ManageError::Ambiguous { .. } => Code::NotFound,
                ManageError::Store(StoreError::Lock(LockError::Busy { .. })) => Code::Busy,
                ManageError::Stale { .. } | ManageError::Changed { .. } | ManageError::Store(_) => {
                    Code::Failure
                }
            };
        }
        if let Some(StoreError::Lock(LockError::Busy { .. })) = cause.downcast_ref::<StoreError>() {
            return Code::Busy;
        }
    }
    Code::Failure
}

/// Print `localm: error: …` (the whole chain on one line) and return the exit code.
pub fn report(err: &anyhow::Error) -> ExitCode {
    let code = code_of(err);
    let mut line = one_line(err);
    if code == Code::Busy {
        line.push_str("; nothing was changed, try again when it finishes");
    } else if disk_full_and_nothing_changed(err) {
        line.push_str("; the disk is full: free some space and run it again (nothing was changed)");
    }
    eprintln!("localm: error: {}", line.replace('\n', " "));
    ExitCode::from(code as u8)
}

/// A store write that failed for want of disk space, before anything changed (every store
/// error but `Unfinished` leaves the store as it was).
fn disk_full_and_nothing_changed(err: &anyhow::Error) -> bool {
    let full = err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::StorageFull)
    });
    let unfinished = err.chain().any(|c| {
        matches!(
            c.downcast_ref::<StoreError>(),
            Some(StoreError::Unfinished { .. })
        ) || matches!(
            c.downcast_ref::<ManageError>(),
            Some(ManageError::Store(StoreError::Unfinished { .. }))
        )
    });
    full && !unfinished
}

/// The error and its causes on one line, `a: b: c`, each said once: a message that already ends
/// with its cause (thiserror's `"…: {source}"`) is not followed by the cause again.
pub fn one_line(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if line.ends_with(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

/// A command line clap could not parse: help and version go to stdout with 0; anything else is
/// one line on stderr with exit 2.
pub fn usage(err: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match err.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = err.print();
            if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                ExitCode::from(Code::Usage as u8)
            } else {
                ExitCode::SUCCESS
            }
        }
        _ => {
            let rendered = err.render().to_string();
            let first = rendered
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("invalid arguments")
                .trim_start_matches("error: ");
            eprintln!("localm: error: {first} (see --help)");
            ExitCode::from(Code::Usage as u8)
        }
    }
}
