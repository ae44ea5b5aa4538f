//! What may sit in `sessions/` besides logs: a FIFO, links to files elsewhere or to a device, a
//! log too large to be one. A pass reads regular files of bounded size only, and never waits.
#![cfg(unix)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use localm_core::session::{self, Logs, MAX_LOG_BYTES, NotRead, PassedOver};

const MIB: usize = 1024 * 1024;

/// A temp data dir with `sessions/` holding one good log, `good.jsonl`.
fn sessions_dir() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("a temp dir");
    let dir = tmp.path().join("sessions");
    fs::create_dir(&dir).expect("sessions/");
    fs::write(
        dir.join("good.jsonl"),
        "{\"role\":\"user\",\"content\":\"I live in Lyon\"}\n",
    )
    .expect("good.jsonl");
    (tmp, dir)
}

/// `sessions/` read in a thread, so that a read that blocks fails the test instead of hanging
/// it. `unblock` is called if it has not returned after a few seconds.
fn read(dir: &Path, unblock: impl FnOnce()) -> Logs {
    let (tx, rx) = mpsc::channel();
    let dir = dir.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(session::read_dir(&dir).expect("sessions/ can be listed"));
    });
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(logs) => logs,
        Err(_) => {
            unblock();
            panic!("reading sessions/ blocked for 10 s");
        }
    }
}

fn ids(logs: &Logs) -> Vec<&str> {
    logs.sessions.iter().map(|s| s.id.as_str()).collect()
}

fn passed(file: &str, why: NotRead) -> PassedOver {
    PassedOver {
        file: file.into(),
        why,
    }
}

#[test]
fn a_fifo_is_passed_over_not_waited_on() {
    let (_tmp, dir) = sessions_dir();
    let fifo = dir.join("pipe.jsonl");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let logs = read(&dir, || {
        // Let the blocked reader go: a writer opens the FIFO and closes it.
        let _ = fs::OpenOptions::new().write(true).open(&fifo);
    });
    assert_eq!(ids(&logs), ["good"]);
    assert_eq!(logs.passed_over, [passed("pipe.jsonl", NotRead::NotAFile)]);
}

#[test]
fn a_symlink_to_a_file_outside_is_not_followed() {
    let (tmp, dir) = sessions_dir();
    let outside = tmp.path().join("elsewhere.jsonl");
    fs::write(
        &outside,
        "{\"role\":\"user\",\"content\":\"my bank PIN is 1234\"}\n",
    )
    .expect("outside file");
    std::os::unix::fs::symlink(&outside, dir.join("link.jsonl")).expect("symlink");
    let logs = read(&dir, || {});
    assert_eq!(ids(&logs), ["good"]);
    assert_eq!(logs.passed_over, [passed("link.jsonl", NotRead::NotAFile)]);
}

#[test]
fn a_symlink_to_dev_zero_is_not_read() {
    let (_tmp, dir) = sessions_dir();
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.jsonl")).expect("symlink");
    let logs = read(&dir, || {});
    assert_eq!(ids(&logs), ["good"]);
    assert_eq!(logs.passed_over, [passed("zero.jsonl", NotRead::NotAFile)]);
    // Reading /dev/zero until the allocator gives up also ends in "not read", so look at what
    // it cost: this process (every test in this file) never needs more than a few dozen MiB.
    if let Some(peak) = peak_rss_mib() {
        assert!(peak < 512, "peak resident memory {peak} MiB");
    }
}

/// This process's peak resident memory (Linux's VmHWM), in MiB.
fn peak_rss_mib() -> Option<usize> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

/// Lines of exactly 128 bytes, `total` bytes in all.
fn log_of(total: usize) -> Vec<u8> {
    let head = "{\"role\":\"user\",\"content\":\"";
    let tail = "\"}\n";
    let pad = "x".repeat(128 - head.len() - tail.len());
    let line = format!("{head}{pad}{tail}");
    assert_eq!(line.len(), 128);
    let mut out = line.repeat(total / 128).into_bytes();
    out.resize(total, b'\n');
    out
}

#[test]
fn a_log_over_16_mib_is_passed_over_and_one_at_the_bound_is_read() {
    let (_tmp, dir) = sessions_dir();
    assert_eq!(MAX_LOG_BYTES, 16 * MIB as u64);
    fs::write(dir.join("big.jsonl"), log_of(16 * MIB)).expect("big");
    fs::write(dir.join("huge.jsonl"), log_of(16 * MIB + 1)).expect("huge");
    let logs = read(&dir, || {});
    let mut read_ids = ids(&logs);
    read_ids.sort();
    assert_eq!(read_ids, ["big", "good"]);
    let big = logs
        .sessions
        .iter()
        .find(|s| s.id == "big")
        .expect("big is read");
    assert_eq!((big.lines.len(), big.skipped), (16 * MIB / 128, 0));
    let bytes = 16 * MIB as u64 + 1;
    assert_eq!(
        logs.passed_over,
        [passed("huge.jsonl", NotRead::TooLarge { bytes })]
    );
}
