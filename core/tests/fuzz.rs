//! Fuzz targets, one per parser of outside input: the store's files (JSONL lines, `state.json`,
//! `.journal`, `memory.vec`) opened through `Store` as the CLI opens them, session logs,
//! `settings.json`, `jobs.json`, the model-reply reader and the legacy `chat-memory.md`. Inputs are
//! mutated seeds from `tests/fuzz-corpus/<target>/` (see `fuzz/mutate.rs`, and the mutator
//! shared with the HTTP target, tests/src/fuzz_mutate.rs). Every target checks
//! that nothing panics and that every error is one line; where a parse feeds a writer, that what
//! was read survives the write. `cargo test` runs 64 cases each; `scripts/fuzz` runs each for a
//! time budget with fresh seeds.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

#[path = "fuzz/clauses.rs"]
mod clauses;
#[path = "../../tests/src/fuzz_mutate.rs"]
mod fuzz_mutate;
#[path = "fuzz/mutate.rs"]
mod mutate;

use std::collections::BTreeMap;
use std::fmt::Display;
use std::fs;
use std::path::Path;

use chrono::{DateTime, FixedOffset, Utc};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use localm_core::consolidate::disclose::{self, Said};
use localm_core::consolidate::{self as consolidate, Pass, parse};
use localm_core::fact_text::normalize_fact;
use localm_core::jobs::{self, Job, Schedule, Task};
use localm_core::legacy::{LEGACY_FILE, parse_legacy};
use localm_core::manage::{self, Ctx};
use localm_core::record::{Kind, MAX_RECORDS, MAX_TEXT_CHARS, Record, Source};
use localm_core::same_fact::key as fact_key;
use localm_core::session;

/// Names of a secret in several scripts, for `secrets_and_readers`.
/// Every reader's given-up and tally cues, a "…" in one as a word between its parts.
fn cues() -> Vec<String> {
    localm_core::language::reader::READERS
        .iter()
        .flat_map(|r| {
            r.given_up
                .iter()
                .chain(r.tally.count)
                .chain(r.tally.order)
                .chain(r.requests)
                .chain(r.how_to)
        })
        .map(|c| c.replace('…', " fume ").replace('$', ""))
        .collect()
}

const SECRET_NAMES: &[&str] = &[
    "password",
    "contraseña",
    "Geheimzahl",
    "密码",
    "パスワード",
    "비밀번호",
    "пароль",
    "पासवर्ड",
    "הסיסמה",
    "รหัสผ่าน",
    "PIN",
    "mot de passe",
];
use localm_core::settings::{KEYS, Mode, Settings, resolve_mode};
use localm_core::store::archive::Archived;
use localm_core::store::corrections::Correction;
use localm_core::store::journal::{Entry, Journal, Phase};
use localm_core::store::jsonl;
use localm_core::store::vectors;
use localm_core::store::{
    ARCHIVE_FILE, CORRECTIONS_FILE, CORRUPT_SUFFIX, JOURNAL_FILE, LOCK_FILE, RECORDS_FILE,
    STATE_FILE, Store, StoreError, VECTORS_FILE,
};

use mutate::{Bytes, Corpus, config, input, mutants};

/// An error (or any message for people) must be one line with no control characters: it is
/// printed after `localm: error:` and logged as one field.
fn one_line(what: &str, e: &impl Display) -> Result<(), TestCaseError> {
    let s = e.to_string();
    prop_assert!(
        !s.chars().any(char::is_control),
        "{what} is not one plain line: {s:?}"
    );
    Ok(())
}

fn now() -> DateTime<Utc> {
    "2026-03-05T10:00:00Z".parse().unwrap()
}

/// Every file of a folder (the lock file aside, its content is the holder's), by name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let Ok(entries) = fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name != LOCK_FILE)
        .map(|name| {
            let bytes = fs::read(dir.join(&name)).unwrap();
            (name, bytes)
        })
        .collect()
}

/// The generation in `.journal`, 0 when there is none or it is unreadable.
fn generation(store: &Store) -> u64 {
    fs::read(store.path(JOURNAL_FILE))
        .ok()
        .and_then(|b| Journal::decode(&b).ok())
        .map_or(0, |j| j.generation)
}

/// A fact the tests add; no mutated seed holds it.
fn probe(at: DateTime<Utc>) -> Record {
    Record::new(
        "f0220f02",
        "Fuzz probe fact",
        Kind::Semantic,
        Source::User,
        0.8,
        at,
    )
}

/// Parse `bytes` as lines of `T`: every non-blank line is an item or kept aside, errors are one
/// line, and the items come back equal through the writer.
fn lines_of<T>(file: &str, bytes: &[u8]) -> Result<(), TestCaseError>
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let (items, bad) = jsonl::parse::<T>(file, bytes);
    let non_blank = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .count();
    prop_assert_eq!(
        items.len() + bad.iter().map(|c| c.lines).sum::<usize>(),
        non_blank
    );
    for c in &bad {
        one_line("a corrupt line's reason", &c.reason)?;
        prop_assert!(!c.bytes.is_empty());
    }
    let written = jsonl::render(&items);
    let (again, bad_again) = jsonl::parse::<T>(file, &written);
    prop_assert!(
        bad_again.is_empty(),
        "a line read from {} does not read back once written: {:?}",
        file,
        bad_again
            .first()
            .map(|c| (c.content().into_owned(), c.reason.clone()))
    );
    prop_assert_eq!(again, items);
    Ok(())
}

/// The store files a case lays out: each missing, a seed, or a mutated seed.
fn store_file(corpus: &std::sync::Arc<Corpus>, name: &str) -> BoxedStrategy<Option<Bytes>> {
    let i = corpus.index(name);
    let seed = corpus.seeds[i].clone();
    prop_oneof![
        1 => Just(None),
        2 => Just(Some(Bytes(seed))),
        4 => mutants(corpus.clone(), Some(i)).prop_map(Some),
    ]
    .boxed()
}

fn journal_file() -> BoxedStrategy<Option<Bytes>> {
    prop_oneof![4 => Just(None), 3 => input("journal").prop_map(Some)].boxed()
}

/// A namespace folder: `memory.jsonl`, `.forgotten.jsonl`, `corrections.jsonl`, `state.json`,
/// `.journal`, each maybe missing or damaged.
fn store_layout() -> impl Strategy<Value = Vec<(&'static str, Option<Bytes>)>> {
    let corpus = Corpus::load("store");
    (
        store_file(&corpus, "memory.jsonl"),
        store_file(&corpus, "forgotten.jsonl"),
        store_file(&corpus, "corrections.jsonl"),
        store_file(&corpus, "state.json"),
        journal_file(),
    )
        .prop_map(|(m, f, c, s, j)| {
            vec![
                (RECORDS_FILE, m),
                (ARCHIVE_FILE, f),
                (CORRECTIONS_FILE, c),
                (STATE_FILE, s),
                (JOURNAL_FILE, j),
            ]
        })
}

/// Journals built from parts (so decode meets valid headers of every shape), then maybe damaged.
fn journal_bytes() -> BoxedStrategy<Bytes> {
    let names = prop::sample::select(vec![
        "memory.jsonl",
        ".forgotten.jsonl",
        "corrections.jsonl",
        "state.json",
        "memory.vec",
        "memory.jsonl.corrupt",
        ".journal",
        "x",
    ]);
    let entry = prop_oneof![
        (names.clone(), prop::collection::vec(any::<u8>(), 0..64)).prop_map(|(f, bytes)| {
            Entry::Write {
                file: f.to_string(),
                bytes,
            }
        }),
        names.prop_map(|f| Entry::Remove {
            file: f.to_string()
        }),
    ];
    let journal = (
        any::<u64>(),
        any::<bool>(),
        prop::collection::vec(entry, 0..5),
    )
        .prop_map(|(generation, done, entries)| Journal {
            generation,
            phase: if done { Phase::Done } else { Phase::Pending },
            entries,
        });
    prop_oneof![
        2 => journal.clone().prop_map(|j| Bytes(j.encode())),
        1 => (journal, prop::collection::vec(fuzz_mutate::mutation(), 1..4)).prop_map(|(j, ms)| {
            let mut b = j.encode();
            for m in &ms {
                m.apply(&mut b, &[] as &[&[u8]], &mutate::TOKENS);
            }
            Bytes(b)
        }),
        3 => input("journal"),
    ]
    .boxed()
}

/// Words the rules may write into a kept clause that the user did not type: the first person an
/// answer or a possession is said in ("I have …", "I'm …", "my favorite … is …"), the joins
/// ("…, and …"), the frames of a relative clause ("It took me …"), and a no read with its
/// question ("Never." to "Do you have pets?" → "I have no pets"; "I don't … anymore", "I quit
/// …").
const WRITTEN_BY_RULE: &[&str] = &[
    "i", "i'm", "have", "has", "my", "is", "am", "and", "a", "an", "favorite", "live", "in",
    "from", "years", "old", "it", "took", "me", "to", "the", "of", "for", "no", "not", "never",
    "don't", "anymore", "quit",
];

/// Every kept clause of `chat` says only words of the user's turn it came from, of the
/// assistant's turn before it, or [`WRITTEN_BY_RULE`].
fn kept_words_are_the_users(chat: &[(&str, String)]) -> Result<(), TestCaseError> {
    let lines: Vec<session::Line> = chat
        .iter()
        .map(|(role, content)| session::Line {
            ts: Some(now()),
            role: (*role).into(),
            content: content.clone(),
            origin: None,
            agent: None,
        })
        .collect();
    let said: Vec<Said> = lines
        .iter()
        .enumerate()
        .map(|(i, msg)| Said {
            session: "s",
            line: i + 1,
            msg,
        })
        .collect();
    for v in disclose::explain(&said) {
        let _ = v.explained();
        let Ok(d) = &v.outcome else { continue };
        let at = v.at;
        // A quote or code mark ends a word, in the rules as here.
        let words = |t: &str| {
            localm_core::words::tokens(&t.replace(['"', '`', '\u{201C}', '\u{201D}'], " "))
        };
        let mut allowed = words(&lines[at].content);
        if at > 0 {
            allowed.extend(words(&lines[at - 1].content));
        }
        for w in words(&d.clause) {
            // A form of a word said ("smoking" of "smoke": "I quit smoking").
            let a_form = allowed.iter().any(|a| localm_core::words::same_root(a, &w));
            prop_assert!(
                allowed.contains(&w) || WRITTEN_BY_RULE.contains(&w.as_str()) || a_form,
                "kept {:?} from {:?}: {:?} is not the user's",
                d.clause,
                lines[at].content,
                w
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    /// `memory.jsonl`, `.forgotten.jsonl` and `corrections.jsonl` line by line.
    #[test]
    fn store_lines(bytes in input("store")) {
        lines_of::<Record>(RECORDS_FILE, &bytes.0)?;
        lines_of::<Archived>(ARCHIVE_FILE, &bytes.0)?;
        lines_of::<Correction>(CORRECTIONS_FILE, &bytes.0)?;
    }

    /// A damaged namespace folder opened as the CLI opens it: a read, a write adding a fact, a
    /// read, a write changing nothing. What read fine is still there, lines that did not parse
    /// are in `<file>.corrupt` byte for byte, and the folder then stays as it is.
    #[test]
    fn store_dir(layout in store_layout()) {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path(), "chat", "fuzz");
        fs::create_dir_all(store.dir()).unwrap();
        for (name, bytes) in &layout {
            if let Some(bytes) = bytes {
                fs::write(store.path(name), &bytes.0).unwrap();
            }
        }
        let had_journal = layout.iter().any(|(n, b)| *n == JOURNAL_FILE && b.is_some());
        let before = files(store.dir());
        let first = match store.read() {
            Ok(snap) => snap,
            Err(e) => {
                one_line("a read error", &e)?;
                let err = store.write(|_| Ok::<_, StoreError>(())).err();
                prop_assert!(err.is_some(), "read failed ({e}) but a write went ahead");
                one_line("a write error", &err.unwrap())?;
                if !had_journal {
                    prop_assert_eq!(files(store.dir()), before, "a refused write changed files");
                }
                return Ok(());
            }
        };
        let generation_before = generation(&store);
        let added = store.write(|snap| {
            snap.records.push(probe(now()));
            Ok::<_, StoreError>(())
        });
        let moved = match added {
            Ok(c) => c.corrupt_moved,
            Err(e) => {
                one_line("a write error", &e)?;
                return Err(TestCaseError::fail(format!("read fine but the write failed: {e}")));
            }
        };
        prop_assert!(generation(&store) > generation_before, "the generation did not grow");
        let second = store.read().unwrap();
        prop_assert!(second.corrupt.is_empty(), "left unread: {:?}", second.corrupt);
        let mut want = first.records.clone();
        want.push(probe(now()));
        prop_assert_eq!(&second.records, &want);
        prop_assert_eq!(&second.archive, &first.archive);
        prop_assert_eq!(&second.corrections, &first.corrections);
        prop_assert_eq!(&second.state, &first.state);
        // The lines read as unreadable are in the .corrupt files (a pending journal may have put
        // lines there before; a settled journal's own lines are read from the files it wrote).
        for line in &moved {
            let aside = fs::read(store.path(&format!("{}{CORRUPT_SUFFIX}", line.file))).unwrap();
            let mut want = line.bytes.clone();
            want.push(b'\n');
            prop_assert!(
                aside.windows(want.len()).any(|w| w == want.as_slice()),
                "line {} of {} is not in its .corrupt file",
                line.line_no,
                line.file
            );
        }
        let settled = files(store.dir());
        store.write(|_| Ok::<_, StoreError>(())).unwrap();
        prop_assert_eq!(files(store.dir()), settled, "a write changing nothing changed files");
    }

    /// `.journal` on its own: a journal that reads is one the writer would write again.
    #[test]
    fn journal(bytes in journal_bytes()) {
        match Journal::decode(&bytes.0) {
            Ok(j) => {
                let plain = |f: &str| {
                    !f.is_empty() && f != "." && f != ".." && !f.contains(['/', '\\', '\0'])
                };
                prop_assert!(j.entries.iter().all(|e| plain(e.file())));
                prop_assert_eq!(Journal::decode(&j.encode()).unwrap(), j);
            }
            Err(e) => one_line("a journal error", &e)?,
        }
    }

    /// `memory.vec`: what decodes encodes to the same bytes; through the store, a bad sidecar is
    /// an error for readers and started afresh by the writer.
    #[test]
    fn vectors(bytes in input("vectors")) {
        match vectors::decode(&bytes.0) {
            Ok(entries) => prop_assert_eq!(vectors::encode(&entries), bytes.0.clone()),
            Err(e) => one_line("a vectors error", &e)?,
        }
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path(), "chat", "fuzz");
        fs::create_dir_all(store.dir()).unwrap();
        fs::write(store.path(VECTORS_FILE), &bytes.0).unwrap();
        let read = store.read_vectors();
        if let Err(e) = &read {
            one_line("a vectors read error", e)?;
        }
        let kept = store
            .update_vectors(|_, entries| {
                entries.retain(|e| e.id != "3fa91c2e");
                entries.len()
            })
            .unwrap();
        let after = store.read_vectors().unwrap();
        prop_assert_eq!(after.entries.len(), kept);
        if let Ok(read) = read {
            let want: Vec<_> = read.entries.into_iter().filter(|e| e.id != "3fa91c2e").collect();
            // Compared as bytes: a vector may hold NaN, which equals nothing.
            prop_assert_eq!(vectors::encode(&after.entries), vectors::encode(&want));
        }
    }

    /// `sessions/<id>.jsonl`: every non-blank line is a message or counted as skipped, a message
    /// survives JSON, and the folder reader agrees with the parser or says why not, in one line.
    #[test]
    fn session_logs(bytes in input("sessions")) {
        let text = bytes.text();
        let (lines, skipped) = session::parse(&text);
        let non_blank = text.lines().filter(|l| !l.trim().is_empty()).count();
        // An unparsable last line with no line break is unfinished: neither read nor counted.
        let unfinished = usize::from(!text.ends_with('\n') && lines.len() + skipped < non_blank);
        prop_assert_eq!(lines.len() + skipped + unfinished, non_blank);
        for line in &lines {
            let _ = line.is_typed_by_user();
            let json = serde_json::to_string(line).unwrap();
            prop_assert_eq!(&serde_json::from_str::<session::Line>(&json).unwrap(), line);
        }
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("s1.jsonl"), &bytes.0).unwrap();
        let logs = session::read_dir(tmp.path()).unwrap();
        // Every intact line is read, a torn one among them or not.
        prop_assert!(logs.passed_over.is_empty());
        prop_assert_eq!(logs.sessions.len(), 1);
        let read = &logs.sessions[0];
        match std::str::from_utf8(&bytes.0) {
            Ok(text) => {
                let (lines, skipped) = session::parse(text);
                prop_assert_eq!(&read.lines, &lines);
                prop_assert_eq!(read.skipped, skipped);
            }
            Err(_) => {
                // A line with invalid UTF-8 is one more bad line, never a lost good one.
                let good = bytes.0.split(|&b| b == b'\n').filter_map(|l| std::str::from_utf8(l).ok()).filter_map(|l| serde_json::from_str::<session::Line>(l).ok()).count();
                prop_assert_eq!(read.lines.len(), good);
            }
        }
    }

    /// The clause rules over chats in any script: no panic, and every kept clause in the user's
    /// own words; then the whole pass over the same chat as a session log, its model answering
    /// with the rules' own sentences: it ends Ok with no log set aside (a set-aside log is a rule
    /// that failed on it).
    #[test]
    fn clause_rules(chat in clauses::chat()) {
        kept_words_are_the_users(&chat)?;
        let tmp = tempfile::tempdir().unwrap();
        let sessions = tmp.path().join("sessions");
        fs::create_dir_all(&sessions).unwrap();
        let log: String = chat
            .iter()
            .map(|(role, content)| {
                serde_json::json!({"ts": "2026-03-01T09:00:00Z", "role": role, "content": content})
                    .to_string()
                    + "\n"
            })
            .collect();
        fs::write(sessions.join("fuzz.jsonl"), log).unwrap();
        let store = Store::new(tmp.path(), "chat", "fuzz");
        let pass = Pass {
            store: &store,
            sessions_dir: sessions,
            mode: Mode::Log,
            now: now(),
            pass_id: "fuzz".into(),
            elapsed: &|| std::time::Duration::ZERO,
        };
        let report = consolidate::run(
            &pass,
            Box::new(|| Ok(Box::new(clauses::Echo) as Box<dyn localm_core::models::Generator>)),
            None,
        )
        .unwrap();
        prop_assert!(report.set_aside.is_empty(), "a rule failed: {:?}", report.set_aside);
    }

    /// Secrets and the readers (what passes, points elsewhere or dangles too, how long it holds) over any text
    /// around a secret's name in any script: no panic, every span a slice of the text, nothing
    /// found again in the redacted text, and every content word a word of the text.
    #[test]
    fn secrets_and_readers(
        head in "\\PC{0,30}",
        name in prop::sample::select(SECRET_NAMES),
        tail in "\\PC{0,40}",
    ) {
        let text = format!("{head}{name}{tail}");
        for f in localm_core::secret::find_all(&text) {
            prop_assert!(text.get(f.span.clone()).is_some(), "{:?} in {:?}", f.span, text);
        }
        let redacted = localm_core::secret::redact(&text);
        prop_assert_eq!(localm_core::secret::find(&redacted), None, "{:?}", redacted);
        let folded = text.to_lowercase();
        for w in localm_core::language::content_words(&text) {
            let piece = w.chars().next().is_some_and(|c| folded.contains(c));
            prop_assert!(piece, "{:?} from {:?}", w, text);
        }
        let words = localm_core::words::fold(&text);
        for r in localm_core::language::reader::READERS {
            let rest = localm_core::language::reader::without_opener(&text, r);
            prop_assert!(text.ends_with(rest));
            // What passes, points elsewhere or dangles, read over any text.
            for entry in r.passing.iter().chain(r.pointing) {
                let _ = localm_core::language::reader::says_entry(&words, entry, r);
            }
            let _ = localm_core::language::reader::dangling_end(&words, r);
            // How long it holds, by the reader's time and intention words.
            let _ = consolidate::until::by_reader(&text, r, said_at());
        }
        let _ = consolidate::until::valid_until(&text, said_at());
        // Every text has a language, whatever its script (the readers' votes over any words).
        let _ = localm_core::language::of(&text);
        let _ = localm_core::language::of(&format!("{tail} {name} {head} {name}"));
    }

    /// What was given up, questions that add up and requests, over any text around every
    /// reader's cue in any script: no panic, every word named is the text's, and a blanked
    /// request keeps the text's offsets.
    #[test]
    fn given_up_and_tally(
        head in "\\PC{0,30}",
        cue in prop::sample::select(cues()),
        tail in "\\PC{0,40}",
    ) {
        let text = format!("{head}{cue}{tail}");
        let _ = localm_core::recall::tally::asked(&text, true);
        let folded = text.to_lowercase();
        if let Some(words) = localm_core::recall::given_up::given_up(&text) {
            for w in &words {
                let piece = w.chars().next().is_some_and(|c| folded.contains(c));
                prop_assert!(piece, "{:?} from {:?}", w, text);
            }
            let _ = localm_core::recall::given_up::ends(&tail, &words);
        }
        // A request blanked keeps every offset: the same length as the text folded.
        let blanked = localm_core::language::reader::without_requests(&text);
        prop_assert_eq!(blanked.len(), localm_core::words::fold(&text).len());
        let _ = localm_core::recall::gate::is_about_user(&text);
    }

    /// `settings.json`: loaded settings answer every key, and save then load gives them back
    /// (and the same bytes again on a second save).
    #[test]
    fn settings(bytes in input("settings")) {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join(Settings::FILE), &bytes.0).unwrap();
        let settings = match Settings::load(tmp.path()) {
            Ok(s) => s,
            Err(e) => return one_line("a settings error", &e),
        };
        for (key, _) in KEYS {
            settings.get(key).unwrap();
        }
        let _ = settings.recall_allowed(Mode::Privacy);
        prop_assert_eq!(resolve_mode(None, None, &settings).unwrap(), settings.mode);
        settings.save(tmp.path()).unwrap();
        let saved = fs::read(tmp.path().join(Settings::FILE)).unwrap();
        let back = Settings::load(tmp.path()).unwrap();
        prop_assert_eq!(&back, &settings);
        back.save(tmp.path()).unwrap();
        prop_assert_eq!(fs::read(tmp.path().join(Settings::FILE)).unwrap(), saved);
    }

    /// `jobs.json`: loaded jobs describe themselves and find their next run in any time zone; a
    /// job added and removed through the locked update leaves the others as they were.
    #[test]
    fn jobs(bytes in input("jobs")) {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join(jobs::FILE), &bytes.0).unwrap();
        let file = match jobs::load(tmp.path()) {
            Ok(f) => f,
            Err(e) => return one_line("a jobs error", &e),
        };
        let east = FixedOffset::east_opt(14 * 3600).unwrap();
        for job in &file.jobs {
            one_line("a schedule's description", &job.schedule.describe())?;
            let _ = job.next_run_in(&Utc);
            let _ = job.next_run_in(&east);
            let _ = job.due(now());
        }
        let probe = Job::new("fuzz-probe", Task::Memory, Schedule::every("6h").unwrap(), now())
            .unwrap();
        let added = jobs::update(tmp.path(), "fuzz", |f| f.add(probe.clone()));
        if let Err(e) = added {
            one_line("a jobs error", &e)?;
            prop_assert!(file.jobs.iter().any(|j| j.name == "fuzz-probe"), "{}", e);
            return Ok(());
        }
        let mut want = file.clone();
        want.jobs.push(probe);
        prop_assert_eq!(&jobs::load(tmp.path()).unwrap(), &want);
        jobs::update(tmp.path(), "fuzz", |f| f.remove("fuzz-probe")).unwrap();
        prop_assert_eq!(jobs::load(tmp.path()).unwrap(), file);
    }

    /// The model's replies: whatever they hold, what is taken from them is valid fact text with
    /// a confidence in 0–1, at most 12 candidates, no two the same fact.
    #[test]
    fn model_reply(bytes in input("model-reply")) {
        let reply = bytes.text();
        let fact = |t: &str| -> Result<(), TestCaseError> {
            prop_assert_eq!(normalize_fact(t), Ok(t.to_string()));
            Ok(())
        };
        if let Some(candidates) = parse::candidates(&reply) {
            prop_assert!(candidates.len() <= parse::MAX_CANDIDATES);
            for (i, c) in candidates.iter().enumerate() {
                fact(&c.text)?;
                prop_assert!((0.0..=1.0).contains(&c.confidence), "{}", c.confidence);
                prop_assert!(candidates[..i].iter().all(|o| fact_key(&o.text) != fact_key(&c.text)));
            }
        }
        if let Some(d) = parse::decision(&reply) {
            prop_assert!((0.0..=1.0).contains(&d.confidence), "{}", d.confidence);
            if let Some(t) = &d.text {
                fact(t)?;
            }
        }
        if let Some(s) = parse::summary(&reply) {
            fact(&s)?;
        }
        if let Some(v) = parse::extract_object(&reply) {
            prop_assert!(v.is_object());
            prop_assert!(parse::extract_object(&v.to_string()).is_some());
        }
    }

    /// `chat-memory.md`: every fact taken is valid fact text, and the first write in log mode
    /// imports each of them once (at most the cap), beside the fact being added.
    #[test]
    fn legacy_import(bytes in input("legacy")) {
        let text = bytes.text();
        let facts = parse_legacy(&text);
        prop_assert!(facts.len() <= text.lines().count());
        for f in &facts {
            prop_assert_eq!(normalize_fact(f), Ok(f.clone()));
            prop_assert!(f.chars().count() <= MAX_TEXT_CHARS);
        }
        let tmp = tempfile::tempdir().unwrap();
        let legacy_file = tmp.path().join(LEGACY_FILE);
        fs::write(&legacy_file, &bytes.0).unwrap();
        let store = Store::new(tmp.path(), "chat", "fuzz");
        let ctx = Ctx {
            store: &store,
            mode: Mode::Log,
            legacy_file,
            now: now(),
            via: "cli",
        };
        let added = manage::add(&ctx, "Fuzz probe fact", Kind::Semantic, None);
        if std::str::from_utf8(&bytes.0).is_err() {
            let e = added.err();
            prop_assert!(e.is_some(), "a legacy file that is not UTF-8 was imported");
            return one_line("an import error", &e.unwrap());
        }
        let mut want: Vec<String> = Vec::new();
        for f in facts {
            if !want.iter().any(|w| fact_key(w) == fact_key(&f)) {
                want.push(f);
            }
        }
        if let Err(e) = added {
            // The file alone fills the store: the add is refused and nothing is written.
            prop_assert!(want.len() >= MAX_RECORDS, "{}", e);
            prop_assert!(store.read().unwrap().records.is_empty());
            return one_line("an add error", &e);
        }
        let imported = |store: &Store| -> Vec<String> {
            store
                .read()
                .unwrap()
                .records
                .iter()
                .filter(|r| r.source == Source::Import)
                .map(|r| r.text.clone())
                .collect()
        };
        prop_assert_eq!(imported(&store), want.clone());
        // Once: the next write imports nothing more.
        manage::add(&ctx, "Another probe fact", Kind::Episodic, None).unwrap();
        prop_assert_eq!(imported(&store), want);
    }
}

/// A fixed moment a fuzzed clause is said at (a Monday).
fn said_at() -> DateTime<Utc> {
    DateTime::from_timestamp(1_764_493_200, 0).unwrap_or_default()
}
