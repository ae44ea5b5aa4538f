//! The one way the daemon starts a child process of its own binary that runs a model (a
//! consolidation pass, the embedding sweep, the chat worker), and the one description of how
//! such a child ended.
//!
//! A child inherits the daemon's environment (the data dir and mode the daemon resolved are
//! passed as flags; the `LOCALM_*` settings it needs, the child reads at its own start), dies
//! with its handle (`kill_on_drop`), and picks its own thread count at each model call from the
//! cores other processes left idle (`models::cpu_share`), so no thread policy is set here.

use std::ffi::OsStr;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Stdio};

/// `exe args…` with its stdin closed, killed when the returned command's child is dropped. Callers
/// choose stdout/stderr (piped to read a report, or inherited for logs).
pub fn model_process<I, S>(exe: &Path, args: I) -> tokio::process::Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = tokio::process::Command::new(exe);
    cmd.args(args).stdin(Stdio::null()).kill_on_drop(true);
    cmd
}

/// The name of a signal that ends a model process, with llama.cpp's abort said as such.
pub fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGABRT => "SIGABRT: llama.cpp aborted",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGTERM => "SIGTERM",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        _ => "signal",
    }
}

/// How a child ended, for a log line or an error: "killed by SIGKILL", "SIGABRT: llama.cpp
/// aborted", or the exit status.
pub fn describe(status: ExitStatus) -> String {
    match status.signal() {
        Some(libc::SIGABRT) => signal_name(libc::SIGABRT).into(),
        Some(s) => match signal_name(s) {
            "signal" => format!("killed by signal {s}"),
            name => format!("killed by {name}"),
        },
        None => status.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ending_is_described_in_words() {
        assert_eq!(
            describe(ExitStatus::from_raw(libc::SIGKILL)),
            "killed by SIGKILL"
        );
        assert_eq!(
            describe(ExitStatus::from_raw(libc::SIGABRT)),
            "SIGABRT: llama.cpp aborted"
        );
        assert_eq!(
            describe(ExitStatus::from_raw(libc::SIGUSR1)),
            "killed by signal 10"
        );
        assert_eq!(describe(ExitStatus::from_raw(1 << 8)), "exit status: 1");
    }
}
