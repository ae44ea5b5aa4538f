//! `localm memory …` as a user types it: the real binary on a temp data dir.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::process::Stdio;
use std::time::Duration;

use localm_tests::Env;
use localm_tests::fixtures::{
    correction, hold_store_lock, record, with_evidence, write_settings, write_store_file,
};
use serde_json::Value;

fn add(env: &Env, text: &str) -> String {
    let out = env.log(&["memory", "add", text]).ok();
    // "remembered <id>: <text>"
    out.split_whitespace()
        .nth(1)
        .unwrap()
        .trim_end_matches(':')
        .to_string()
}

#[test]
fn add_list_show_forget_round_trip() {
    let env = Env::new();
    let id = add(&env, "Prefers tea over coffee");
    assert_eq!(id.len(), 8);
    let listed = env.run(&["memory", "list"]).ok();
    assert!(listed.starts_with("ID"), "{listed}");
    assert!(listed.contains(&id) && listed.contains("Prefers tea over coffee"));

    let shown = env.run(&["memory", "show", &id[..4]]).ok();
    assert!(shown.contains("source      user"), "{shown}");
    assert!(shown.contains("importance  0.80"), "{shown}");

    let recs = env.records();
    assert_eq!(recs.len(), 1);
    for key in [
        "id",
        "text",
        "kind",
        "source",
        "importance",
        "created_at",
        "updated_at",
    ] {
        assert!(recs[0].get(key).is_some(), "list --json has {key}");
    }
    assert_eq!(recs[0]["source"], "user");
    assert_eq!(recs[0]["kind"], "semantic");

    let out = env.run(&["memory", "forget", &id[..5], "-y"]).ok();
    assert!(out.contains(&format!("forgot {id}")), "{out}");
    assert!(env.records().is_empty());
    assert!(env.forgotten().is_empty(), "forget does not archive");
}

#[test]
fn show_prints_the_users_words_a_synth_fact_came_from() {
    let env = Env::new();
    let fact = with_evidence(
        record("b15c0001", "User adopted a beagle named Biscuit", "synth"),
        &[
            ("chat-2026-11-02", 3, "I adopted a beagle named Biscuit"),
            ("chat-2026-11-09", 12, "he chews\u{1b}[2J everything"),
        ],
    );
    write_store_file(&env, "memory.jsonl", &[fact]);
    let shown = env.run(&["memory", "show", "b15c"]).ok();
    let lines: Vec<&str> = shown.lines().collect();
    let evidence: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("evidence"))
        .copied()
        .collect();
    assert_eq!(
        evidence,
        [
            r#"evidence    "I adopted a beagle named Biscuit" (session chat-2026-11-02, line 3)"#,
            r#"evidence    "he chews\u{001B}[2J everything" (session chat-2026-11-09, line 12)"#,
        ],
        "{shown}"
    );
    // After the provenance line, which still names the pass and its sessions.
    let prov = lines
        .iter()
        .position(|l| l.starts_with("provenance"))
        .unwrap();
    assert!(lines[prov].contains("pass p0000001"), "{shown}");
    assert!(lines[prov + 1].starts_with("evidence"), "{shown}");
    assert!(
        !shown.contains('\u{1b}'),
        "no escape code reaches the terminal"
    );

    let json: Value =
        serde_json::from_str(&env.run(&["memory", "show", "b15c", "--json"]).ok()).unwrap();
    assert_eq!(
        json["provenance"]["evidence"],
        serde_json::json!([
            {"session": "chat-2026-11-02", "line": 3, "quote": "I adopted a beagle named Biscuit"},
            {"session": "chat-2026-11-09", "line": 12, "quote": "he chews\u{1b}[2J everything"},
        ])
    );
    // A fact with no evidence shows no evidence line.
    let id = add(&env, "Prefers tea over coffee");
    let plain = env.run(&["memory", "show", &id]).ok();
    assert!(!plain.contains("evidence"), "{plain}");
}

#[test]
fn add_options_and_their_usage_errors() {
    let env = Env::new();
    env.log(&[
        "memory",
        "add",
        "Fixed the upload test",
        "--kind",
        "episodic",
        "--importance",
        "0.3",
    ])
    .ok();
    let r = &env.records()[0];
    assert_eq!(r["kind"], "episodic");
    assert!((r["importance"].as_f64().unwrap() - 0.3).abs() < 1e-6);
    // Episodic summaries are listed with --all only; JSON always has them.
    assert!(!env.run(&["memory", "list"]).ok().contains("upload"));
    assert!(
        env.run(&["memory", "list", "--all"])
            .ok()
            .contains("upload")
    );

    let cases: &[(&[&str], i32, &str)] = &[
        (&["memory", "add", "x", "--kind", "procedural"], 2, "--kind"),
        (
            &["memory", "add", "x", "--importance", "1.5"],
            2,
            "outside 0 to 1",
        ),
        (
            &["memory", "add", "x", "--importance", "lots"],
            2,
            "not a number",
        ),
        (&["memory", "add", "x", "--source", "synth"], 2, "--source"),
        (&["memory", "add", "   "], 2, "the fact is empty"),
        (&["memory", "add"], 2, "required"),
        (&["memory", "frobnicate"], 2, "frobnicate"),
    ];
    for (args, code, needle) in cases {
        let err = env.log(args).fails(*code);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    }
    let long = "a".repeat(501);
    let err = env.log(&["memory", "add", &long]).fails(5);
    assert!(
        err.contains("501 characters long; the limit is 500"),
        "{err}"
    );
    assert_eq!(env.records().len(), 1, "no refusal changed anything");
}

#[test]
fn the_257th_record_is_refused() {
    let env = Env::new();
    let lines: Vec<Value> = (0..256)
        .map(|i| record(&format!("{i:08x}"), &format!("fact {i}"), "user"))
        .collect();
    write_store_file(&env, "memory.jsonl", &lines);
    let err = env.log(&["memory", "add", "one too many"]).fails(5);
    assert!(err.contains("256 records"), "{err}");
    assert_eq!(env.records().len(), 256);
}

#[test]
fn privacy_mode_refuses_writes_but_allows_reading_forgetting_clearing() {
    let env = Env::new();
    let id = add(&env, "Lives in Oslo");
    write_store_file(
        &env,
        ".forgotten.jsonl",
        &[{
            let mut a = record("aaaa0000", "Archived fact", "synth");
            a["archived_at"] = "2026-02-01T00:00:00Z".into();
            a["reason"] = "evicted".into();
            a
        }],
    );
    for args in [
        vec!["memory", "add", "Likes jazz"],
        vec!["memory", "restore", "aaaa"],
        vec!["memory", "accept", "c1"],
        vec!["memory", "reject", "c1"],
    ] {
        let err = env.run(&args).fails(3);
        assert!(err.contains("refused in privacy mode"), "{args:?}: {err}");
    }
    let corr = env.run(&["memory", "corrections", "--json"]);
    assert_eq!(corr.code(), 0);
    let v: Value = serde_json::from_str(&corr.stdout()).unwrap();
    assert!(v["corrections"].as_array().unwrap().is_empty());
    assert!(corr.stderr().contains("privacy mode"));

    env.run(&["memory", "list"]).ok();
    env.run(&["memory", "show", &id]).ok();
    assert!(
        env.run(&["memory", "forgotten"])
            .ok()
            .contains("Archived fact")
    );
    env.run(&["memory", "forget", &id, "-y"]).ok();
    env.run(&["memory", "clear", "-y"]).ok();
    assert!(env.records().is_empty());
}

#[test]
fn mode_precedence_flag_env_file() {
    let env = Env::new();
    write_settings(&env, &serde_json::json!({"mode": "log"}));
    env.run(&["memory", "add", "from the settings file"]).ok();
    let err = env
        .cmd(&["memory", "add", "env says privacy"])
        .env("LOCALM_MODE", "privacy")
        .output()
        .unwrap();
    assert_eq!(err.status.code(), Some(3));
    let ok = env
        .cmd(&["--mode", "log", "memory", "add", "flag beats env"])
        .env("LOCALM_MODE", "privacy")
        .output()
        .unwrap();
    assert!(ok.status.success());
    let bad = env
        .cmd(&["memory", "list"])
        .env("LOCALM_MODE", "loud")
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("LOCALM_MODE"));
    assert_eq!(env.records().len(), 2);

    fs::write(env.data_dir().join("settings.json"), "{mode: log").unwrap();
    let err = env.run(&["memory", "list"]).fails(1);
    assert!(err.contains("settings.json is not valid settings"), "{err}");
}

#[test]
fn a_bad_environment_value_stops_any_command_before_it_changes_anything() {
    let env = Env::new();
    write_settings(&env, &serde_json::json!({"mode": "log"}));
    for (name, value) in [
        ("LOCALM_CHAT_IDLE", "soon"),
        ("LOCALM_CHAT_KEEPALIVE", "0"),
        ("LOCALM_MEMORY_AUTO_INTERVAL", "-1"),
    ] {
        let out = env
            .cmd(&["memory", "add", "never saved"])
            .env(name, value)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}={value}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(name), "{stderr}");
    }
    assert!(env.records().is_empty());
}

#[test]
fn ids_accept_unique_prefixes_and_say_when_ambiguous_or_unknown() {
    let env = Env::new();
    write_store_file(
        &env,
        "memory.jsonl",
        &[
            record("abc00001", "one", "user"),
            record("abd00002", "two", "user"),
        ],
    );
    assert!(env.run(&["memory", "show", "abd"]).ok().contains("two"));
    let err = env.run(&["memory", "show", "ab"]).fails(6);
    assert!(err.contains("abc00001, abd00002"), "{err}");
    let err = env.run(&["memory", "forget", "zz", "-y"]).fails(6);
    assert!(err.contains("no fact has the id \"zz\""), "{err}");
}

#[test]
fn forget_and_clear_need_confirmation_without_a_terminal() {
    let env = Env::new();
    let id = add(&env, "Keep me");
    let err = env.run(&["memory", "forget", &id]).fails(7);
    assert!(err.contains("pass -y"), "{err}");
    let err = env.run(&["memory", "clear"]).fails(7);
    assert!(err.contains("pass -y"), "{err}");
    assert_eq!(env.records().len(), 1);
}

/// On a real terminal (a pty from `script`), forget asks and honours the answer.
#[test]
fn forget_asks_on_a_terminal() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        localm_tests::skip("no `script` command to make a pty (Debian package bsdutils)");
        return;
    }
    let env = Env::new();
    let id = add(&env, "Keep me");
    let run = |answer: &str| {
        let cmd = format!("{} memory forget {id}", localm_tests::bin().display());
        let mut child = std::process::Command::new("script")
            .args(["-qec", &cmd, "/dev/null"])
            .env("LOCALM_DATA_DIR", env.data_dir())
            .env_remove("LOCALM_MODE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(answer.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let no = run("n\n");
    assert_eq!(no.status.code(), Some(7), "{no:?}");
    assert!(String::from_utf8_lossy(&no.stdout).contains("It is deleted, not archived"));
    assert_eq!(env.records().len(), 1);
    let yes = run("y\n");
    assert!(yes.status.success(), "{yes:?}");
    assert!(env.records().is_empty());
}

#[test]
fn a_locked_store_is_reported_with_its_holder_and_left_unchanged() {
    let env = Env::new();
    let id = add(&env, "Existing fact");
    let before = fs::read(env.store_dir().join("memory.jsonl")).unwrap();
    let lock = hold_store_lock(&env, "test-holder consolidate");
    let started = std::time::Instant::now();
    let err = env.log(&["memory", "add", "Blocked fact"]).fails(4);
    assert!(
        started.elapsed() >= Duration::from_millis(1500),
        "waited about 2 s"
    );
    assert!(
        err.contains(&format!(
            "pid {} (test-holder consolidate)",
            std::process::id()
        )),
        "{err}"
    );
    assert!(err.contains("nothing was changed"), "{err}");
    env.run(&["memory", "clear", "-y"]).fails(4);
    env.run(&["memory", "forget", &id, "-y"]).fails(4);
    // Reading needs no lock.
    assert!(env.run(&["memory", "list"]).ok().contains("Existing fact"));
    assert_eq!(
        fs::read(env.store_dir().join("memory.jsonl")).unwrap(),
        before
    );
    drop(lock);
    env.log(&["memory", "add", "Unblocked fact"]).ok();
}

#[test]
fn two_processes_writing_at_once_lose_nothing() {
    let env = Env::new();
    let per_writer = 15;
    std::thread::scope(|s| {
        for w in 0..2 {
            let env = &env;
            s.spawn(move || {
                for i in 0..per_writer {
                    env.log(&["memory", "add", &format!("writer {w} fact {i}")])
                        .ok();
                }
            });
        }
    });
    let texts: Vec<String> = env
        .records()
        .iter()
        .map(|r| r["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(texts.len(), 2 * per_writer, "{texts:?}");
    for w in 0..2 {
        for i in 0..per_writer {
            assert!(texts.contains(&format!("writer {w} fact {i}")));
        }
    }
}

#[test]
fn a_process_killed_mid_write_leaves_the_previous_store_intact() {
    let env = Env::new();
    // A store near the cap makes each write large enough to be caught mid-way.
    let lines: Vec<Value> = (0..200)
        .map(|i| {
            record(
                &format!("{i:08x}"),
                &format!("{i} {}", "padding ".repeat(50)),
                "user",
            )
        })
        .collect();
    write_store_file(&env, "memory.jsonl", &lines);
    for round in 0..25u64 {
        let mut child = env
            .cmd(&["memory", "add", &format!("killed writer {round}")])
            .env("LOCALM_MODE", "log")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(500 * (round % 10)));
        let _ = child.kill();
        let _ = child.wait();
        // Whatever moment it died at, the store is whole: every line parses.
        let text = fs::read_to_string(env.store_dir().join("memory.jsonl")).unwrap();
        for line in text.lines() {
            serde_json::from_str::<Value>(line).expect("a whole record");
        }
        let n = text.lines().count();
        assert!((200..=200 + round as usize + 1).contains(&n), "{n}");
    }
    let listed = env.run(&["memory", "list"]);
    assert_eq!(listed.code(), 0);
    assert!(
        !listed.stderr().contains("unreadable"),
        "{}",
        listed.stderr()
    );
    assert!(!env.store_dir().join("memory.jsonl.corrupt").exists());
    // A temp file left by a dead writer and a stale lock do not block the next writer.
    fs::write(
        env.store_dir().join(".memory.jsonl.tmp-999999"),
        "half a rec",
    )
    .unwrap();
    fs::write(env.store_dir().join(".lock"), "pid=999999\ncommand=dead\n").unwrap();
    env.log(&["memory", "add", "after the crash"]).ok();
    assert!(env.records().iter().any(|r| r["text"] == "after the crash"));
}

#[test]
fn a_corrupt_line_is_reported_and_survives_in_the_corrupt_file() {
    let env = Env::new();
    add(&env, "Good fact");
    let path = env.store_dir().join("memory.jsonl");
    let mut text = fs::read_to_string(&path).unwrap();
    text.push_str("{\"id\": \"half a line\n");
    fs::write(&path, text).unwrap();

    let listed = env.run(&["memory", "list"]);
    assert!(listed.ok().contains("Good fact"));
    assert!(
        listed
            .stderr()
            .contains("1 unreadable line in memory.jsonl (line 2)"),
        "{}",
        listed.stderr()
    );

    let added = env.log(&["memory", "add", "Another fact"]);
    added.ok();
    assert!(
        added.stderr().contains("moved 1 unreadable line"),
        "{}",
        added.stderr()
    );
    let aside = fs::read_to_string(env.store_dir().join("memory.jsonl.corrupt")).unwrap();
    assert_eq!(aside, "{\"id\": \"half a line\n");
    assert_eq!(env.records().len(), 2);
}

#[test]
fn forgotten_and_restore_reach_only_the_archive() {
    let env = Env::new();
    let live = add(&env, "Live fact");
    let mut a = record("feed0001", "Evicted fact", "user");
    a["archived_at"] = "2026-02-01T00:00:00Z".into();
    a["reason"] = "evicted".into();
    write_store_file(&env, ".forgotten.jsonl", &[a]);
    let listed = env.run(&["memory", "forgotten"]).ok();
    assert!(
        listed.contains("feed0001") && listed.contains("evicted"),
        "{listed}"
    );
    env.log(&["memory", "restore", &live]).fails(6);
    let out = env.log(&["memory", "restore", "feed"]).ok();
    assert!(out.contains("restored feed0001"), "{out}");
    assert_eq!(env.records().len(), 2);
    assert!(
        env.run(&["memory", "forgotten"])
            .ok()
            .contains("nothing archived")
    );
}

#[test]
fn corrections_accept_and_reject() {
    let env = Env::new();
    write_store_file(
        &env,
        "memory.jsonl",
        &[
            record("aaaa0001", "Works at Acme", "user"),
            record("aaaa0002", "Owns a cat", "import"),
        ],
    );
    write_store_file(
        &env,
        "corrections.jsonl",
        &[
            correction(
                "c0000001",
                "aaaa0001",
                "update",
                "Works at Acme",
                Some("Works at Initech"),
            ),
            correction("c0000002", "aaaa0002", "delete", "Owns a cat", None),
            correction("c0000003", "gone0000", "delete", "Vanished", None),
        ],
    );
    let listed = env.log(&["memory", "corrections"]).ok();
    assert!(
        listed.contains("Works at Acme  →  Works at Initech"),
        "{listed}"
    );
    assert!(!listed.contains("Vanished"), "orphan pruned: {listed}");
    let json: Value =
        serde_json::from_str(&env.log(&["memory", "corrections", "--json"]).ok()).unwrap();
    assert_eq!(json["corrections"].as_array().unwrap().len(), 2);

    let out = env.log(&["memory", "accept", "c0000001"]).ok();
    assert!(out.contains("now reads: Works at Initech"), "{out}");
    let out = env.log(&["memory", "reject", "c0000002"]).ok();
    assert!(out.contains("dismissed c0000002"), "{out}");

    let texts: Vec<Value> = env.records().iter().map(|r| r["text"].clone()).collect();
    assert_eq!(texts, vec!["Works at Initech", "Owns a cat"]);
    let archive = env.run(&["memory", "forgotten"]).ok();
    assert!(
        archive.contains("Works at Acme") && archive.contains("superseded"),
        "{archive}"
    );
    assert!(
        env.log(&["memory", "corrections"])
            .ok()
            .contains("no corrections waiting")
    );
    env.log(&["memory", "accept", "c0000002"]).fails(6);
    let raw = fs::read_to_string(env.store_dir().join("corrections.jsonl")).unwrap();
    assert!(
        raw.contains("dismissed"),
        "a rejection is remembered: {raw}"
    );
}

#[test]
fn clear_leaves_no_fact_text_anywhere_on_disk() {
    let env = Env::new();
    add(&env, "Secret alpha fact");
    let mut a = record("feed0001", "Secret archived fact", "user");
    a["archived_at"] = "2026-02-01T00:00:00Z".into();
    a["reason"] = "evicted".into();
    write_store_file(&env, ".forgotten.jsonl", &[a]);
    write_store_file(
        &env,
        "corrections.jsonl",
        &[correction(
            "c1",
            "x",
            "update",
            "Secret old",
            Some("Secret new"),
        )],
    );
    fs::write(
        env.store_dir().join("memory.jsonl.corrupt"),
        "Secret corrupt\n",
    )
    .unwrap();
    let out = env.run(&["memory", "clear", "-y"]).ok();
    assert!(
        out.contains("erased 1 facts, 1 archived, 1 corrections"),
        "{out}"
    );
    for entry in fs::read_dir(env.store_dir()).unwrap() {
        let bytes = fs::read(entry.unwrap().path()).unwrap();
        assert!(!String::from_utf8_lossy(&bytes).contains("Secret"));
    }
    assert!(env.records().is_empty());
}

/// #22, item 2: `memory.jsonl` a symlink into a synced folder. clear used to print "erased 2
/// facts … no fact text is left on disk" and exit 0 while `memory list` still showed both; now it
/// refuses in one line naming the link, changes nothing, and works once the file is put back.
#[test]
fn clear_through_a_symlinked_store_file_refuses_and_changes_nothing() {
    let env = Env::new();
    add(&env, "Secret alpha fact");
    add(&env, "Secret beta fact");
    let synced = env.data_dir().join("Synced");
    fs::create_dir(&synced).unwrap();
    let link = env.store_dir().join("memory.jsonl");
    let target = synced.join("memory.jsonl");
    fs::rename(&link, &target).unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    assert_eq!(env.records().len(), 2, "list reads through the link");

    let err = env.run(&["memory", "clear", "-y"]).fails(1);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert!(err.contains(&target.display().to_string()), "{err}");
    assert!(err.contains("changed nothing"), "{err}");
    assert_eq!(env.records().len(), 2, "nothing changed");
    assert!(fs::symlink_metadata(&link).unwrap().is_symlink());

    fs::remove_file(&link).unwrap();
    fs::rename(&target, &link).unwrap();
    let out = env.run(&["memory", "clear", "-y"]).ok();
    assert!(out.contains("erased 2 facts"), "{out}");
    assert!(env.records().is_empty());
}

#[test]
fn legacy_chat_memory_is_imported_once_in_log_mode() {
    let env = Env::new();
    fs::write(
        env.data_dir().join("chat-memory.md"),
        "# Memory\n- My name is Ada\n- I use vim\n",
    )
    .unwrap();
    env.run(&["memory", "list"]).ok();
    assert!(env.records().is_empty(), "reading imports nothing");
    add(&env, "Likes jazz");
    let recs = env.records();
    let imported: Vec<&Value> = recs.iter().filter(|r| r["source"] == "import").collect();
    assert_eq!(imported.len(), 2);
    let ada = imported[0]["id"].as_str().unwrap().to_string();
    env.run(&["memory", "forget", &ada, "-y"]).ok();
    add(&env, "Likes blues");
    assert_eq!(env.records().len(), 3, "not imported a second time");
}

#[test]
fn help_and_completions() {
    let env = Env::new();
    let help = env.run(&["memory", "--help"]).ok();
    for cmd in [
        "list",
        "show",
        "add",
        "forget",
        "forgotten",
        "restore",
        "corrections",
        "accept",
        "reject",
        "clear",
    ] {
        assert!(help.contains(cmd), "{cmd} in help");
    }
    let bash = env.run(&["completions", "bash"]).ok();
    assert!(bash.contains("_localm") && bash.contains("forgotten"));
    env.run(&["completions", "tcsh"]).fails(2);
}

#[test]
fn job_commands_check_their_input() {
    let env = Env::new();
    env.run(&["job", "add", "j", "--every", "6h"]).fails(2);
    env.run(&["job", "add", "j", "--memory"]).fails(2);
    env.run(&["job", "add", "j", "--memory", "--every", "soon"])
        .fails(2);
    env.run(&["job", "add", "j", "--memory", "--cron", "not cron"])
        .fails(2);
    env.run(&["job", "add", "bad name!", "--memory", "--every", "6h"])
        .fails(2);
    env.run(&["job", "add", "j", "--memory", "--every", "6h"])
        .ok();
    env.run(&["job", "add", "j", "--memory", "--every", "6h"])
        .fails(2);
    env.run(&["job", "add", "n", "--memory", "--cron", "0 3 * * *"])
        .ok();
    let l = env.run(&["job", "list"]).ok();
    assert!(
        l.contains("every 6h") && l.contains("cron 0 3 * * *"),
        "{l}"
    );
    // A manual run records its outcome too.
    let out = env.run(&["job", "run", "j"]).ok();
    assert!(out.contains("skipped"), "{out}");
    let v: Value = serde_json::from_str(&env.run(&["job", "list", "--json"]).ok()).unwrap();
    assert_eq!(v["jobs"][0]["last_run"]["trigger"], "manual");
    env.run(&["job", "run", "zzz"]).fails(6);
}

#[test]
fn settings_get_set_validate_keys_and_values() {
    let env = Env::new();
    assert_eq!(env.run(&["settings", "get", "mode"]).ok().trim(), "privacy");
    env.run(&["settings", "set", "mode", "FULL"]).ok();
    assert_eq!(env.run(&["settings", "get", "mode"]).ok().trim(), "full");
    env.run(&["settings", "set", "mode", "loud"]).fails(2);
    env.run(&["settings", "set", "memory_enabled", "off"]).ok();
    assert_eq!(
        env.run(&["settings", "get", "memory_enabled"]).ok().trim(),
        "false"
    );
    env.run(&["settings", "set", "memory_enabled", "maybe"])
        .fails(2);
    let err = env.run(&["settings", "set", "colour", "blue"]).fails(2);
    assert!(err.contains("mode"), "lists the known keys: {err}");
    env.run(&["settings", "get", "colour"]).fails(2);
    let all = env.run(&["settings"]).ok();
    assert!(all.contains("memory_auto_consolidate"), "{all}");
}

#[test]
fn status_tells_where_things_stand() {
    let env = Env::new();
    let s = env.run(&["status"]).ok();
    for want in [
        "privacy",
        "not running",
        "not installed",
        "0 of 256",
        "never",
    ] {
        assert!(s.contains(want), "{want}: {s}");
    }
    env.run(&["plugin", "install", "memory"]).ok();
    env.log(&["memory", "add", "Prefers tea"]).ok();
    let v: Value = serde_json::from_str(&env.log(&["status", "--json"]).ok()).unwrap();
    assert_eq!(v["records"], 1);
    assert_eq!(v["records_by"]["user/semantic"], 1);
    assert_eq!(v["memory_plugin"], true);
    assert_eq!(v["mode"], "log");
}

/// A small tmpfs of its own, unmounted on drop; `None` where mounting is not allowed (not
/// root), and the test that needs it says it did not run.
struct SmallDisk(tempfile::TempDir);

impl SmallDisk {
    fn mount() -> Option<SmallDisk> {
        let dir = tempfile::tempdir().unwrap();
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs"])
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        mounted.then_some(SmallDisk(dir))
    }

    /// Fill it: write until the disk has no block left.
    fn fill(&self) -> std::path::PathBuf {
        use std::io::Write;
        let path = self.0.path().join("filler");
        let mut f = fs::File::create(&path).unwrap();
        let block = [0u8; 4096];
        while f.write_all(&block).is_ok() {}
        let _ = f.sync_all();
        path
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.0.path())
            .status();
    }
}

/// On a full disk, deleting either works or says in one line what to do, the error said once;
/// the lock is had all the same (writing who holds it is not needed). Once space is freed, it
/// works.
#[test]
fn forget_and_clear_on_a_full_disk_say_what_to_do_once() {
    let Some(disk) = SmallDisk::mount() else {
        eprintln!("not run: mounting a tmpfs needs root");
        return;
    };
    let env = Env {
        dir: tempfile::tempdir_in(disk.0.path()).unwrap(),
    };
    let tea = add(&env, "Prefers tea over coffee");
    add(&env, "Lives in Lyon");
    // With no lock file (a first change, or one removed), taking the lock makes it, which needs
    // no block; writing its holder line does.
    let lock = env.store_dir().join(".lock");
    fs::remove_file(&lock).expect("the store's lock file");
    let filler = disk.fill();
    for args in [
        ["memory", "forget", &tea, "-y"],
        ["memory", "clear", "-y", ""],
    ] {
        let args: Vec<&str> = args.into_iter().filter(|a| !a.is_empty()).collect();
        let run = env.log(&args);
        let err = run.stderr();
        assert_eq!(run.code(), 1, "{}", run.describe());
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert_eq!(
            err.matches("No space left on device").count(),
            1,
            "said once: {err}"
        );
        assert!(!err.contains("lock file"), "the lock is had: {err}");
        assert!(
            err.trim_end().ends_with(
                "the disk is full: free some space and run it again (nothing was changed)"
            ),
            "{err}"
        );
        assert_eq!(env.records().len(), 2, "nothing was changed");
    }
    fs::remove_file(filler).unwrap();
    env.log(&["memory", "forget", &tea, "-y"]).ok();
    assert_eq!(env.records().len(), 1);
}

/// The phrasings a user writes a secret in (issue 44): each refused with exit 8 (not 2, the
/// usage code), one line naming the kind and `--force`, nothing stored; near misses are facts.
#[test]
fn a_secret_in_other_words_is_refused_with_its_own_exit_code() {
    let env = Env::new();
    for (text, kind) in [
        ("Password hunter2", "a password"),
        ("my password hunter2", "a password"),
        ("My PIN is four eight two one", "a PIN"),
        ("My mother's maiden name is Smith", "a security answer"),
        (
            "My first pet's name was Fluffy, that's my security answer",
            "a security answer",
        ),
        (
            "My Netflix login is bob@example.com / Hunter2!",
            "a password",
        ),
    ] {
        let err = env.log(&["memory", "add", text]).fails(8);
        assert!(
            err.contains(kind) && err.contains("--force"),
            "{text}: {err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    }
    assert!(env.records().is_empty(), "nothing stored");
    for text in [
        "my password manager is Bitwarden",
        "I changed my PIN yesterday",
        "I forgot my password again",
        "I use 1Password",
        "my mother's name is Anna",
        "my first pet was a hamster",
    ] {
        env.log(&["memory", "add", text]).ok();
    }
    assert_eq!(env.records().len(), 6);
    // Forced, the user's own choice stands.
    env.log(&["memory", "add", "--force", "Password hunter2"])
        .ok();
    assert_eq!(env.records().len(), 7);
}

/// Issue #50's probe through `memory add`: every phrasing of a secret in the read languages and
/// in scripts memory does not read is refused with exit 8, nothing stored.
#[test]
fn a_secret_in_any_script_is_refused_by_memory_add() {
    let env = Env::new();
    for text in localm_tests::secret_phrasings() {
        let err = env.log(&["memory", "add", text]).fails(8);
        assert!(err.contains("--force"), "{text}: {err}");
    }
    assert!(env.records().is_empty(), "nothing stored");
}

/// A correction an older version proposed with a secret in it cannot be accepted: exit 8,
/// nothing changed, and the line says to reject it.
#[test]
fn accepting_a_correction_that_holds_a_secret_is_refused() {
    let env = Env::new();
    write_store_file(
        &env,
        "memory.jsonl",
        &[record("aaaa0001", "Banks with Monzo", "user")],
    );
    write_store_file(
        &env,
        "corrections.jsonl",
        &[correction(
            "c0000001",
            "aaaa0001",
            "update",
            "Banks with Monzo",
            Some("Banks with Monzo, PIN 7781"),
        )],
    );
    let err = env.log(&["memory", "accept", "c0000001"]).fails(8);
    assert!(err.contains("a PIN") && err.contains("reject it"), "{err}");
    assert_eq!(env.records()[0]["text"], "Banks with Monzo");
    env.log(&["memory", "reject", "c0000001"]).ok();
}
