//! Crash tests: a failure injected at every step (create, write, fsync, rename, folder fsync,
//! remove) of each multi-file operation, then the store reopened and its invariants checked; and
//! a reader run before every step of each.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;

use super::archive::Archived;
use super::atomic::{Step, hook};
use super::corrections::{Correction, CorrectionOp, CorrectionStatus};
use super::journal::{Journal, Phase};
use super::*;
use crate::manage::{self, Ctx};
use crate::pass_summary::PassSummary;
use crate::record::{MAX_RECORDS, Source};
use crate::settings::Mode;

fn now() -> DateTime<Utc> {
    "2026-03-01T12:00:00Z".parse().unwrap()
}

fn rec(id: &str, text: &str, source: Source) -> Record {
    Record::fixture(id, text, source, now())
}

fn open(dir: &Path) -> Store {
    Store::new(dir, "chat", "crash test").with_wait(Duration::from_millis(50))
}

fn ctx<'a>(store: &'a Store, dir: &Path) -> Ctx<'a> {
    Ctx {
        store,
        mode: Mode::Log,
        legacy_file: dir.join("chat-memory.md"),
        now: now(),
        via: "cli",
    }
}

fn ok(r: Result<Committed<()>, StoreError>) {
    r.unwrap();
}

/// A temp folder for one run. On tmpfs where there is one: the test counts fsyncs, it does not
/// need them to reach a disk, and a thousand runs of them on a real disk take minutes.
fn temp_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir()
        && let Ok(dir) = tempfile::tempdir_in(shm)
    {
        return dir;
    }
    tempfile::tempdir().unwrap()
}

/// How an operation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Ok,
    /// `StoreError::Unfinished`: committed, not all in place.
    Unfinished,
    Failed,
}

fn outcome<T, E: std::borrow::Borrow<StoreError>>(r: Result<T, E>) -> Outcome {
    match r {
        Ok(_) => Outcome::Ok,
        Err(e) if matches!(e.borrow(), StoreError::Unfinished { .. }) => Outcome::Unfinished,
        Err(_) => Outcome::Failed,
    }
}

fn manage_outcome<T>(r: Result<T, manage::ManageError>) -> Outcome {
    match r {
        Err(manage::ManageError::Store(e)) => outcome::<T, _>(Err(e)),
        Err(_) => Outcome::Failed,
        Ok(_) => Outcome::Ok,
    }
}

/// How an injected failure behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// The process dies at step N: that step and every later one fail, so nothing after it
    /// reaches the disk (a SIGKILL; the OS drops the lock).
    Crash,
    /// Step N fails with an I/O error and the process carries on (EIO, ENOSPC).
    Error,
}

/// Run `op` with `fault` at step `at` (1-based; `usize::MAX` for none). Returns what `op`
/// returned and how many steps it took.
fn with_fault<T>(at: usize, fault: Fault, op: impl FnOnce() -> T) -> (T, usize) {
    let seen = Rc::new(Cell::new(0usize));
    let counter = Rc::clone(&seen);
    hook::set(move |step: Step, path: &Path| {
        let n = counter.get() + 1;
        counter.set(n);
        if n == at || (fault == Fault::Crash && n > at) {
            return Err(io::Error::other(format!(
                "injected {fault:?} at step {n} ({step:?} {})",
                path.display()
            )));
        }
        Ok(())
    });
    let out = op();
    hook::clear();
    (out, seen.get())
}

/// One generation of the store: everything a reader sees.
#[derive(Debug, Clone, PartialEq)]
struct Generation {
    records: Vec<Record>,
    archive: Vec<Archived>,
    corrections: Vec<Correction>,
    state: State,
}

fn generation(store: &Store) -> Generation {
    let snap = store.read().expect("the store reads after a crash");
    Generation {
        records: snap.records,
        archive: snap.archive,
        corrections: snap.corrections,
        state: snap.state,
    }
}

/// Every file in the folder and its bytes (the lock file aside: it holds no fact).
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for e in entries {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if name != LOCK_FILE {
            out.insert(name, fs::read(e.path()).unwrap());
        }
    }
    out
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// One multi-file operation to cut short.
struct Scenario {
    name: &'static str,
    /// Fill the store as it is before the operation.
    setup: fn(&Path),
    /// The operation, and how it says it ended.
    op: fn(&Path) -> Outcome,
    /// Facts that must be live or archived exactly once in both generations.
    kept: fn() -> Vec<String>,
    /// Bytes of an unreadable line that must be on disk exactly once (in its file or in the
    /// `.corrupt` beside it), whatever happened.
    corrupt_line: Option<&'static str>,
    /// The operation erases facts (clear): the new generation keeps none.
    erases: bool,
}

const BERLIN: &str = "User lives in Berlin";
const PARIS: &str = "User lives in Paris";
const BROKEN: &str = "{\"id\": \"broken line with a fact";

fn accept_setup(dir: &Path) {
    let s = open(dir);
    ok(s.write(|snap| {
        snap.records.push(rec("aaaa0001", BERLIN, Source::User));
        snap.records
            .push(rec("aaaa0002", "User has a cat", Source::User));
        snap.corrections.push(Correction {
            id: "cccc0001".into(),
            target: "aaaa0001".into(),
            op: CorrectionOp::Update,
            old_text: BERLIN.into(),
            new_text: Some(PARIS.into()),
            confidence: 0.95,
            status: CorrectionStatus::Pending,
            created_at: now(),
            provenance: Default::default(),
        });
        // Left false so accept's legacy import also writes state.json: four files change.
        snap.state.legacy_imported = false;
        Ok(())
    }));
}

fn accept_op(dir: &Path) -> Outcome {
    let s = open(dir);
    manage_outcome(manage::accept(&ctx(&s, dir), "cccc0001"))
}

fn pass_setup(dir: &Path) {
    let s = open(dir);
    ok(s.write(|snap| {
        for i in 0..MAX_RECORDS {
            let mut r = rec(&format!("{i:08x}"), &fact(i), Source::Synth);
            r.importance = 0.5;
            snap.records.push(r);
        }
        Ok(())
    }));
    let path = s.path(RECORDS_FILE);
    let mut bytes = fs::read(&path).unwrap();
    bytes.extend_from_slice(BROKEN.as_bytes());
    bytes.push(b'\n');
    fs::write(&path, bytes).unwrap();
}

fn fact(i: usize) -> String {
    format!("Synthesised fact number {i}")
}

/// What a consolidation pass writes at the cap: one record evicted, one decayed (both to the
/// archive), a new one added, a watermark moved, and a bad line moved aside.
fn pass_op(dir: &Path) -> Outcome {
    let s = open(dir);
    outcome(s.write(|snap| {
        let evicted = snap.records.remove(0);
        snap.archive_record(evicted, ArchiveReason::Evicted, now());
        let decayed = snap.records.remove(0);
        snap.archive_record(decayed, ArchiveReason::Decayed, now());
        snap.records
            .push(rec("ffff0001", "A new synthesised fact", Source::Synth));
        snap.state.sessions.insert(
            "s1".into(),
            state::SessionMark {
                lines_read: 12,
                summarised_at: None,
                set_aside: None,
            },
        );
        Ok::<_, StoreError>(())
    }))
}

fn restore_setup(dir: &Path) {
    let s = open(dir);
    ok(s.write(|snap| {
        snap.records
            .push(rec("aaaa0002", "User has a cat", Source::User));
        snap.archive_record(
            rec("aaaa0001", BERLIN, Source::Synth),
            ArchiveReason::Evicted,
            now(),
        );
        snap.state.legacy_imported = true;
        Ok(())
    }));
}

fn restore_op(dir: &Path) -> Outcome {
    let s = open(dir);
    manage_outcome(manage::restore(&ctx(&s, dir), "aaaa0001"))
}

fn clear_setup(dir: &Path) {
    accept_setup(dir);
    let s = open(dir);
    ok(s.write(|snap| {
        snap.archive_record(
            rec("bbbb0001", "User once lived in Rome", Source::User),
            ArchiveReason::Evicted,
            now(),
        );
        snap.state.legacy_imported = true;
        snap.state.last_pass = Some(PassSummary {
            reason: Some(BERLIN.into()),
            ..Default::default()
        });
        Ok(())
    }));
    fs::write(s.path(VECTORS_FILE), BERLIN).unwrap();
    fs::write(s.path("memory.jsonl.corrupt"), format!("{BROKEN}\n")).unwrap();
}

fn clear_op(dir: &Path) -> Outcome {
    outcome(open(dir).clear())
}

fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "accept",
            setup: accept_setup,
            op: accept_op,
            kept: || vec![BERLIN.into(), "User has a cat".into()],
            corrupt_line: None,
            erases: false,
        },
        Scenario {
            name: "pass at the cap",
            setup: pass_setup,
            op: pass_op,
            kept: || (0..MAX_RECORDS).map(fact).collect(),
            corrupt_line: Some(BROKEN),
            erases: false,
        },
        Scenario {
            name: "restore",
            setup: restore_setup,
            op: restore_op,
            kept: || vec![BERLIN.into(), "User has a cat".into()],
            corrupt_line: None,
            erases: false,
        },
        Scenario {
            name: "clear",
            setup: clear_setup,
            op: clear_op,
            kept: || {
                vec![
                    BERLIN.into(),
                    "User has a cat".into(),
                    "User once lived in Rome".into(),
                ]
            },
            corrupt_line: None,
            erases: true,
        },
    ]
}

/// The generations before and after `sc`'s operation, run without a fault.
fn before_and_after(sc: &Scenario) -> (Generation, Generation, usize) {
    let dir = temp_dir();
    (sc.setup)(dir.path());
    let before = generation(&open(dir.path()));
    let (result, steps) = with_fault(usize::MAX, Fault::Crash, || (sc.op)(dir.path()));
    assert_eq!(result, Outcome::Ok, "{}", sc.name);
    (before, generation(&open(dir.path())), steps)
}

/// Check the store in `dir` after `sc`'s operation was cut short: a reader sees the old or the new
/// generation whole, the next write settles the store to that same generation, and no fact and no
/// unreadable line is lost or doubled.
fn check(sc: &Scenario, dir: &Path, old: &Generation, new: &Generation, what: &str) -> bool {
    let store = open(dir);
    let seen = generation(&store);
    let is_new = if seen == *old {
        false
    } else if seen == *new {
        true
    } else {
        panic!(
            "{what}: a reader sees neither the old generation nor the new one:\n{seen:#?}\nold:\n{old:#?}\nnew:\n{new:#?}\nfiles: {:?}",
            files(store.dir()).keys().collect::<Vec<_>>()
        );
    };
    ok(store.write(|_| Ok(())));
    assert_eq!(
        generation(&store),
        seen,
        "{what}: the next write settled to another generation than readers saw"
    );
    let on_disk = files(store.dir());
    let left: Vec<&String> = on_disk.keys().filter(|n| atomic::is_temp_name(n)).collect();
    assert!(
        left.is_empty(),
        "{what}: temp files left after settling: {left:?}"
    );
    assert!(
        !pending_journal(dir),
        "{what}: the journal is still pending after settling"
    );
    if sc.erases && is_new {
        for text in (sc.kept)() {
            for (name, bytes) in &on_disk {
                assert!(
                    !contains(bytes, &text),
                    "{what}: cleared, but {text:?} is still in {name}"
                );
            }
        }
    } else {
        for text in (sc.kept)() {
            let n = seen.records.iter().filter(|r| r.text == text).count()
                + seen
                    .archive
                    .iter()
                    .filter(|a| a.record.text == text)
                    .count();
            assert_eq!(n, 1, "{what}: {text:?} is live or archived {n} times");
        }
    }
    if let Some(line) = sc.corrupt_line {
        let n: usize = [
            RECORDS_FILE.to_string(),
            format!("{RECORDS_FILE}{CORRUPT_SUFFIX}"),
        ]
        .iter()
        .filter_map(|f| on_disk.get(f))
        .map(|bytes| {
            bytes
                .split(|b| *b == b'\n')
                .filter(|l| *l == line.as_bytes())
                .count()
        })
        .sum();
        assert_eq!(n, 1, "{what}: the unreadable line is on disk {n} times");
    }
    is_new
}

#[test]
fn a_reader_at_any_step_of_a_write_sees_one_generation() {
    for sc in scenarios() {
        let (old, new, _) = before_and_after(&sc);
        let dir = temp_dir();
        (sc.setup)(dir.path());
        // A reader without the lock, run just before each step the writer takes.
        let seen = Rc::new(std::cell::RefCell::new(Vec::new()));
        let log = Rc::clone(&seen);
        let reader = open(dir.path());
        let (o, n) = (old.clone(), new.clone());
        let name = sc.name;
        hook::set(move |step: Step, path: &Path| {
            let g = generation(&reader);
            let what = format!("{name}, read before {step:?} {}", path.display());
            assert!(g == o || g == n, "{what}: neither generation:\n{g:#?}");
            log.borrow_mut().push(g == n);
            Ok(())
        });
        let result = (sc.op)(dir.path());
        hook::clear();
        assert_eq!(result, Outcome::Ok, "{}", sc.name);
        let seen = seen.borrow();
        let first_new = seen.iter().position(|n| *n).unwrap_or(seen.len());
        assert!(
            seen[first_new..].iter().all(|n| *n),
            "{}: a reader saw the new generation, then the old one again: {seen:?}",
            sc.name
        );
    }
}

/// A copy of the folder as a crash left it.
fn copy_dir(from: &Path) -> tempfile::TempDir {
    let to = temp_dir();
    let src = open(from);
    let dst = open(to.path());
    fs::create_dir_all(dst.dir()).unwrap();
    for (name, bytes) in files(src.dir()) {
        fs::write(dst.path(&name), bytes).unwrap();
    }
    to
}

fn pending_journal(dir: &Path) -> bool {
    fs::read(open(dir).path(JOURNAL_FILE))
        .ok()
        .is_some_and(|b| Journal::decode(&b).unwrap().phase == Phase::Pending)
}

#[test]
fn a_failure_at_any_step_leaves_one_whole_generation() {
    let mut points = 0;
    for sc in scenarios() {
        let (old, new, steps) = before_and_after(&sc);
        assert_ne!(old, new, "{}: the operation changes the store", sc.name);
        assert!(steps >= 10, "{}: only {steps} steps", sc.name);
        let mut settle_points = 0;
        for fault in [Fault::Crash, Fault::Error] {
            for at in 1..=steps {
                let dir = temp_dir();
                (sc.setup)(dir.path());
                let (result, _) = with_fault(at, fault, || (sc.op)(dir.path()));
                let what = format!("{} with {fault:?} at step {at} of {steps}", sc.name);
                // Before the next write settles the store, a reader already sees the generation
                // the error promised: none changed after a plain failure, the new one otherwise.
                let seen_new = generation(&open(dir.path())) == new;
                match result {
                    Outcome::Ok | Outcome::Unfinished => {
                        assert!(seen_new, "{what}: {result:?} but the change is not there")
                    }
                    Outcome::Failed => {
                        assert!(!seen_new, "{what}: failed but the change is there")
                    }
                }
                // The next writer crashes too, at each step of its settling, before the one
                // after it settles the store.
                if fault == Fault::Crash && pending_journal(dir.path()) {
                    for again in 1.. {
                        let copy = copy_dir(dir.path());
                        let (_, taken) = with_fault(again, Fault::Crash, || {
                            open(copy.path()).write(|_| Ok::<_, StoreError>(()))
                        });
                        let what = format!("{what}, then at step {again} of settling");
                        assert_eq!(check(&sc, copy.path(), &old, &new, &what), seen_new);
                        settle_points += 1;
                        if taken < again {
                            break;
                        }
                    }
                }
                assert_eq!(check(&sc, dir.path(), &old, &new, &what), seen_new);
                points += 1;
            }
        }
        eprintln!(
            "{}: {steps} steps, each failed as a crash and as an error; {settle_points} crashes while settling",
            sc.name
        );
        points += settle_points;
    }
    eprintln!("{points} injected failures checked");
}
