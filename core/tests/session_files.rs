//! What may sit in `sessions/` besides logs: a FIFO, links to files elsewhere or to a device, a
//! log over the size bound. A pass reads regular files only (of a long one, its newest part), and
//! never waits.
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
fn a_log_at_the_bound_is_read_whole() {
    let (_tmp, dir) = sessions_dir();
    assert_eq!(MAX_LOG_BYTES, 16 * MIB as u64);
    fs::write(dir.join("big.jsonl"), log_of(16 * MIB)).expect("big");
    let logs = read(&dir, || {});
    let big = logs
        .sessions
        .iter()
        .find(|s| s.id == "big")
        .expect("big is read");
    assert_eq!(
        (big.lines.len(), big.skipped, big.first),
        (16 * MIB / 128, 0, 0)
    );
    assert!(logs.passed_over.is_empty());
}

/// A log over the bound: its newest part is read from its first whole line, and a watermark
/// (messages from the log's start) means the same message as when the log was read whole.
#[test]
fn a_log_over_16_mib_is_read_from_its_newest_whole_line() {
    let (_tmp, dir) = sessions_dir();
    let mut log = b"torn \xe9\n\n".to_vec();
    log.extend(log_of(16 * MIB));
    // The bound falls inside a 128-byte line near the start: reading starts at the next one.
    let said = |i: usize| format!("{{\"role\":\"user\",\"content\":\"newest {i}\"}}\n");
    for i in 0..3 {
        log.extend(said(i).bytes());
    }
    log.extend(b"torn \xe9\n");
    log.extend(said(3).bytes());
    fs::write(dir.join("huge.jsonl"), &log).expect("huge");
    let logs = read(&dir, || {});
    assert!(logs.passed_over.is_empty(), "{:?}", logs.passed_over);
    let huge = logs
        .sessions
        .iter()
        .find(|s| s.id == "huge")
        .expect("huge is read");
    let total = 16 * MIB / 128 + 4;
    assert_eq!(
        session::parse(&String::from_utf8_lossy(&log)).0.len(),
        total
    );
    assert_eq!(
        huge.first + huge.lines.len(),
        total,
        "messages from the log's start"
    );
    assert!(huge.first > 0 && huge.lines.len() < total);
    let newest: Vec<&str> = huge.lines[huge.lines.len() - 4..]
        .iter()
        .map(|l| l.content.as_str())
        .collect();
    assert_eq!(newest, ["newest 0", "newest 1", "newest 2", "newest 3"]);
    // Numbers are lines of the whole file: two lines before the 128-byte ones, one torn after.
    let lines_in_file = 2 + 16 * MIB / 128 + 5;
    assert_eq!(huge.numbers.last(), Some(&lines_in_file));
    assert_eq!(
        huge.numbers[0],
        2 + huge.first + 1,
        "line of message `first`"
    );
    assert_eq!(huge.skipped, 1, "the torn line in the part read");
    assert_eq!(huge.skipped_since(total - 1), 1);
    assert_eq!(huge.skipped_since(total), 0);
    // A pass over it: the watermark is the message count of the whole log, and the next pass
    // reads only what is appended after.
    let (data, marks) = (dir.parent().expect("the data dir"), |data: &Path| {
        let store = localm_core::store::Store::new(data, "chat", "test");
        store.read().expect("the store reads").state.sessions["huge"].lines_read
    });
    assert_eq!(pass(data).lines_skipped, 1);
    assert_eq!(marks(data), total);
    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(dir.join("huge.jsonl"))
        .expect("huge.jsonl opens");
    std::io::Write::write_all(&mut file, said(4).as_bytes()).expect("an append");
    assert_eq!(pass(data).lines_skipped, 0);
    assert_eq!(marks(data), total + 1);
}

/// A model that answers nothing: the pass falls back to its rules (as in the fuzz target's
/// `Echo` with no draft). What is read and reported here does not depend on a model.
struct Silent;

impl localm_core::models::Generator for Silent {
    fn generate(
        &mut self,
        _: &[localm_core::models::Message],
        _: &str,
        _: usize,
    ) -> Result<localm_core::models::Generation, localm_core::models::ModelError> {
        Ok(localm_core::models::Generation {
            text: String::new(),
            prompt_tokens: 1,
            cached_tokens: 0,
            gen_tokens: 0,
            drafted_tokens: 0,
            prompt_ms: 0.0,
            gen_ms: 0.0,
        })
    }
}

/// A pass over `sessions/` (its model answering nothing), and its report.
fn pass(data: &Path) -> localm_core::consolidate::Report {
    use localm_core::consolidate::{self, Pass};
    let store = localm_core::store::Store::new(data, "chat", "test");
    let pass = Pass {
        store: &store,
        sessions_dir: data.join("sessions"),
        mode: localm_core::settings::Mode::Log,
        now: "2026-03-01T12:00:00Z".parse().expect("a time"),
        pass_id: "p".into(),
        elapsed: &|| Duration::ZERO,
    };
    let silent = Box::new(|| Ok(Box::new(Silent) as Box<dyn localm_core::models::Generator>));
    consolidate::run(&pass, silent, None).expect("the pass runs")
}

/// A torn line is reported by the pass that reads past it, not by every pass after it; the
/// messages around it are read.
#[test]
fn a_torn_line_is_reported_once_and_the_log_read() {
    let (tmp, dir) = sessions_dir();
    let said = |text: &str| format!("{{\"role\":\"user\",\"content\":\"{text}\"}}\n");
    let mut log = said("My sister is called Ann").into_bytes();
    log.extend(b"{\"role\":\"user\",\"content\":\"caf\xe9\n");
    log.extend(said("I work at the bakery").bytes());
    fs::write(dir.join("torn.jsonl"), &log).expect("torn.jsonl");
    let first = pass(tmp.path());
    assert!(first.logs_not_read.is_empty(), "{:?}", first.logs_not_read);
    assert_eq!(first.lines_skipped, 1);
    assert_eq!(first.sessions_read, 2, "good and torn");
    let again = pass(tmp.path());
    assert_eq!(again.lines_skipped, 0, "reported once");
    log.extend(b"\xff\n");
    log.extend(said("I live in Oslo").bytes());
    fs::write(dir.join("torn.jsonl"), &log).expect("torn.jsonl grows");
    let third = pass(tmp.path());
    assert_eq!((third.lines_skipped, third.sessions_read), (1, 1));
}

/// A 64 KiB tmpfs of its own, unmounted on drop; `None` where mounting is not allowed (not
/// root): the test that needs it then says it did not run.
struct SmallDisk(tempfile::TempDir);

impl SmallDisk {
    fn mount() -> Option<SmallDisk> {
        let dir = tempfile::tempdir().expect("a temp dir");
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs"])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        mounted.then_some(SmallDisk(dir))
    }

    /// Write until no block is left.
    fn fill(&self) {
        use std::io::Write;
        let mut f = fs::File::create(self.0.path().join("filler")).expect("filler");
        while f.write_all(&[0u8; 4096]).is_ok() {}
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0.path()).status();
    }
}

/// On a full disk an append fails and leaves things as they were: no empty log for a new
/// session, and an old log without a torn line at its end.
#[test]
fn a_failed_append_leaves_no_empty_log_and_no_torn_line() {
    let Some(disk) = SmallDisk::mount() else {
        eprintln!("not run: mounting a tmpfs needs root");
        return;
    };
    let dir = disk.0.path().join("sessions");
    let line = |content: String| session::Line {
        ts: None,
        role: "user".into(),
        content,
        origin: None,
        agent: None,
    };
    session::append(&dir, "old", &[line("I live in Lyon".into())]).expect("room for one");
    let before = fs::read(dir.join("old.jsonl")).expect("old.jsonl");
    disk.fill();
    let long = line("x".repeat(64 * 1024));
    assert!(session::append(&dir, "new", std::slice::from_ref(&long)).is_err());
    assert!(!dir.join("new.jsonl").exists(), "no empty log left behind");
    assert!(session::append(&dir, "old", &[long]).is_err());
    let after = fs::read(dir.join("old.jsonl")).expect("old.jsonl");
    assert!(
        after == before,
        "the log is as it was: {} bytes, was {}",
        after.len(),
        before.len()
    );
}
