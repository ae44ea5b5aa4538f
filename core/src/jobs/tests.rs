//! Jobs: names, next runs, the on-disk shape, and `update` under the lock.

use super::*;
use serde_json::json;

fn at(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

fn every(name: &str, every: &str) -> Job {
    Job::new(
        name,
        Task::Memory,
        Schedule::every(every).unwrap(),
        at("2026-03-01T12:00:00Z"),
    )
    .unwrap()
}

fn outcome(started: &str) -> RunOutcome {
    RunOutcome {
        started_at: at(started),
        finished_at: at(started) + chrono::TimeDelta::seconds(5),
        trigger: "schedule".into(),
        status: Status::Ok,
        reason: None,
        counts: Counts {
            added: 2,
            updated: 1,
            deleted: 0,
            proposed: 1,
            episodic: 3,
        },
    }
}

#[test]
fn names_are_1_to_64_safe_characters() {
    for good in ["distil", "a", "nightly.v2", "x_y-z", &"n".repeat(64)] {
        assert!(check_name(good).is_ok(), "{good:?}");
    }
    for bad in ["", "has space", "a/b", "né", "semi;colon", &"n".repeat(65)] {
        assert!(
            matches!(check_name(bad), Err(JobError::BadName(ref n)) if n == bad),
            "{bad:?}"
        );
    }
    let err = Job::new(
        "no good",
        Task::Memory,
        Schedule::every("1h").unwrap(),
        at("2026-03-01T12:00:00Z"),
    )
    .unwrap_err();
    assert!(err.to_string().contains("\"no good\""), "{err}");
}

#[test]
fn every_counts_from_the_last_start_else_creation() {
    let mut job = every("distil", "6h");
    assert_eq!(job.next_run(), at("2026-03-01T18:00:00Z"));
    job.last_run = Some(outcome("2026-03-01T19:30:00Z"));
    assert_eq!(job.next_run(), at("2026-03-02T01:30:00Z"));
}

#[test]
fn cron_counts_from_the_same_base() {
    let mut job = Job::new(
        "nightly",
        Task::Memory,
        Schedule::cron("0 3 * * *").unwrap(),
        at("2026-03-01T12:00:00Z"),
    )
    .unwrap();
    assert_eq!(job.next_run_in(&Utc), at("2026-03-02T03:00:00Z"));
    job.last_run = Some(outcome("2026-03-02T03:00:00Z"));
    assert_eq!(job.next_run_in(&Utc), at("2026-03-03T03:00:00Z"));
}

#[test]
fn cron_uses_the_local_zone_and_quarter_hours_agree_everywhere() {
    // Every real zone is offset by whole quarter hours, so this holds in any local zone.
    let job = Job::new(
        "q",
        Task::Memory,
        Schedule::cron("*/15 * * * *").unwrap(),
        at("2026-03-01T12:07:00Z"),
    )
    .unwrap();
    assert_eq!(job.next_run(), at("2026-03-01T12:15:00Z"));
    assert_eq!(job.next_run(), job.next_run_in(&Local));
}

#[test]
fn due_when_the_next_run_is_now_or_past() {
    let job = every("distil", "6h");
    assert!(!job.due(at("2026-03-01T17:59:59Z")));
    assert!(job.due(at("2026-03-01T18:00:00Z")));
    assert!(job.due(at("2026-03-05T00:00:00Z")));
    let never = Job {
        schedule: Schedule::Cron {
            cron: "broken".into(),
        },
        ..every("never", "1h")
    };
    assert!(!never.due(at("2100-01-01T00:00:00Z")));
}

#[test]
fn on_disk_shape_is_flat() {
    let file = JobsFile {
        jobs: vec![
            every("distil", "6h"),
            Job {
                last_run: Some(RunOutcome {
                    reason: Some("no new sessions".into()),
                    status: Status::Skipped,
                    ..outcome("2026-03-02T03:00:00Z")
                }),
                ..Job::new(
                    "n",
                    Task::Memory,
                    Schedule::cron("0 3 * * *").unwrap(),
                    at("2026-03-01T12:00:00Z"),
                )
                .unwrap()
            },
        ],
    };
    let value = serde_json::to_value(&file).unwrap();
    assert_eq!(
        value,
        json!({"jobs": [
            {"name": "distil", "task": "memory", "every_secs": 21600,
             "created_at": "2026-03-01T12:00:00Z"},
            {"name": "n", "task": "memory", "cron": "0 3 * * *",
             "created_at": "2026-03-01T12:00:00Z",
             "last_run": {"started_at": "2026-03-02T03:00:00Z",
                          "finished_at": "2026-03-02T03:00:05Z",
                          "trigger": "schedule", "status": "skipped",
                          "reason": "no new sessions",
                          "added": 2, "updated": 1, "deleted": 0, "proposed": 1, "episodic": 3}}
        ]})
    );
    let back: JobsFile = serde_json::from_value(value).unwrap();
    assert_eq!(back, file);
    let text = r#"{"jobs":[{"name":"distil","task":"memory","every_secs":21600,"created_at":"2026-03-01T12:00:00Z"}]}"#;
    let parsed: JobsFile = serde_json::from_str(text).unwrap();
    assert_eq!(parsed.jobs[0], every("distil", "6h"));
    assert_eq!(
        serde_json::from_str::<JobsFile>("{}").unwrap(),
        JobsFile::default()
    );
}

#[test]
fn a_job_needs_exactly_one_valid_schedule() {
    let cases = [
        r#"{"name":"a","task":"memory","created_at":"2026-03-01T12:00:00Z"}"#,
        r#"{"name":"a","task":"memory","every_secs":60,"cron":"0 3 * * *","created_at":"2026-03-01T12:00:00Z"}"#,
        r#"{"name":"a","task":"memory","every_secs":0,"created_at":"2026-03-01T12:00:00Z"}"#,
        r#"{"name":"a","task":"memory","cron":"0 25 * * *","created_at":"2026-03-01T12:00:00Z"}"#,
        r#"{"name":"a","task":"coffee","every_secs":60,"created_at":"2026-03-01T12:00:00Z"}"#,
    ];
    for text in cases {
        assert!(serde_json::from_str::<Job>(text).is_err(), "{text}");
    }
}

#[test]
fn add_remove_get_record_by_name() {
    let mut file = JobsFile::default();
    file.add(every("distil", "6h")).unwrap();
    assert!(matches!(
        file.add(every("distil", "1h")),
        Err(JobError::Duplicate(ref n)) if n == "distil"
    ));
    assert!(matches!(file.get("nope"), Err(JobError::NotFound(ref n)) if n == "nope"));
    assert!(matches!(
        file.record("nope", outcome("2026-03-01T18:00:00Z")),
        Err(JobError::NotFound(_))
    ));
    file.record("distil", outcome("2026-03-01T18:00:00Z"))
        .unwrap();
    assert_eq!(
        file.get("distil").unwrap().last_run,
        Some(outcome("2026-03-01T18:00:00Z"))
    );
    let removed = file.remove("distil").unwrap();
    assert_eq!(removed.name, "distil");
    assert!(matches!(file.remove("distil"), Err(JobError::NotFound(_))));
    let bad = Job {
        name: "bad name".into(),
        ..every("x", "1h")
    };
    assert!(matches!(file.add(bad), Err(JobError::BadName(_))));
    assert!(file.jobs.is_empty());
}

#[test]
fn update_writes_pretty_json_and_load_reads_it_back() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(load(dir.path()).unwrap(), JobsFile::default());
    let n = update(dir.path(), "test", |f| {
        f.add(every("distil", "6h"))?;
        Ok(f.jobs.len())
    })
    .unwrap();
    assert_eq!(n, 1);
    let text = std::fs::read_to_string(dir.path().join(FILE)).unwrap();
    assert!(
        text.contains("\n    {\n      \"name\": \"distil\""),
        "{text}"
    );
    assert!(text.contains("\"every_secs\": 21600"), "{text}");
    assert!(text.ends_with("}\n"));
    assert_eq!(load(dir.path()).unwrap().jobs, vec![every("distil", "6h")]);

    update(dir.path(), "test", |f| {
        f.record("distil", outcome("2026-03-01T18:00:00Z"))
    })
    .unwrap();
    assert_eq!(
        load(dir.path()).unwrap().get("distil").unwrap().last_run,
        Some(outcome("2026-03-01T18:00:00Z"))
    );
}

#[test]
fn update_writes_nothing_when_nothing_changed_or_f_failed() {
    let dir = tempfile::tempdir().unwrap();
    update(dir.path(), "test", |f| Ok(f.jobs.len())).unwrap();
    assert!(!dir.path().join(FILE).exists(), "no change, no file");

    let err = update(dir.path(), "test", |f| {
        f.add(every("distil", "6h"))?;
        f.remove("missing").map(|_| ())
    })
    .unwrap_err();
    assert!(matches!(err, JobError::NotFound(_)));
    assert!(
        !dir.path().join(FILE).exists(),
        "a failed change is not written"
    );

    // A hand-formatted file with the same content is left as it was.
    let compact = r#"{"jobs":[{"name":"distil","task":"memory","every_secs":21600,"created_at":"2026-03-01T12:00:00Z"}]}"#;
    std::fs::write(dir.path().join(FILE), compact).unwrap();
    update(dir.path(), "test", |f| f.get("distil").map(|_| ())).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join(FILE)).unwrap(),
        compact
    );
}

#[test]
fn update_refuses_to_write_an_invalid_job_built_directly() {
    let dir = tempfile::tempdir().unwrap();
    let err = update(dir.path(), "test", |f| {
        f.jobs.push(Job {
            schedule: Schedule::Every { every_secs: 0 },
            ..every("zero", "1h")
        });
        Ok(())
    })
    .unwrap_err();
    assert!(matches!(err, JobError::BadEvery(_)), "{err}");
    assert!(!dir.path().join(FILE).exists());
}

#[test]
fn a_malformed_file_is_reported_and_never_overwritten() {
    let malformed = [
        "{\"jobs\": [",
        r#"{"jobs":[{"name":"a","task":"memory","cron":"0 25 * * *","created_at":"2026-03-01T12:00:00Z"}]}"#,
        r#"{"jobs":[{"name":"a b","task":"memory","every_secs":60,"created_at":"2026-03-01T12:00:00Z"}]}"#,
        r#"{"jobs":[{"name":"a","task":"memory","every_secs":60,"created_at":"2026-03-01T12:00:00Z"},{"name":"a","task":"memory","every_secs":90,"created_at":"2026-03-01T12:00:00Z"}]}"#,
        // serde quotes an unknown variant as it is: the message must still be one line.
        r#"{"jobs":[{"name":"a","task":"a\nb\u001b[2J","every_secs":60,"created_at":"2026-03-01T12:00:00Z"}]}"#,
    ];
    for text in malformed {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        std::fs::write(&path, text).unwrap();
        assert!(
            matches!(load(dir.path()), Err(JobError::Invalid { .. })),
            "{text}"
        );
        let mut called = false;
        let err = update(dir.path(), "test", |f| {
            called = true;
            f.jobs.clear();
            Ok(())
        })
        .unwrap_err();
        assert!(!called, "f must not run on a file that did not parse");
        let msg = err.to_string();
        assert!(
            matches!(err, JobError::Invalid { .. }) && msg.contains("jobs.json is not a valid"),
            "{msg}"
        );
        assert!(!msg.chars().any(char::is_control), "{msg}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }
}

#[test]
fn io_failures_name_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let not_a_dir = dir.path().join("file");
    std::fs::write(&not_a_dir, "x").unwrap();
    let err = update(&not_a_dir, "test", |_| Ok(())).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, JobError::Io(_)), "{msg}");
    assert!(
        msg.starts_with("cannot create ") && msg.contains("file"),
        "{msg}"
    );
}
