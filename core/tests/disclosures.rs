//! The rules' expected outcomes, kept as data (`tests/data/disclosures.jsonl`): for each case
//! (what the user typed, after what the assistant asked), every clause and its verdict — kept
//! as what, or the name of the rule that drops it. A rule change shows here every case it
//! moves. `LOCALM_BLESS=1 cargo test -p localm-core --test disclosures` writes the current
//! verdicts back to the file, to read in `git diff` before committing; with
//! `LOCALM_DISCLOSURES=FILE` as well, it writes the verdicts of another case file instead
//! (`scripts/explain-longmemeval.py` does this for LongMemEval's answer-bearing turns).

use localm_core::consolidate::disclose::{self, Said};
use localm_core::consolidate::rules::{Example, Rule, TABLE};
use localm_core::session::Line;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize)]
struct Case {
    /// Where the case comes from: a dataset ("longmemeval", "persona-valid", "xpersona-fr") or
    /// "hand" (written here, e.g. from a defect a user or a probe found).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    source: Option<String>,
    /// The rule the case is for, where it was added for one: an example where it fires or where
    /// it must not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rule: Option<String>,
    /// What the assistant said before, if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    assistant: Option<String>,
    user: String,
    /// Each clause and its verdict: "kept: <clause as kept>" or a rule's name.
    expect: Vec<(String, String)>,
    /// Each clause's rules that fired, in order (the one that dropped it last), beside `expect`.
    #[serde(default)]
    fired: Vec<Vec<String>>,
}

fn line(role: &str, content: &str) -> Line {
    Line {
        ts: None,
        role: role.into(),
        content: content.into(),
        origin: None,
        agent: None,
    }
}

/// Each clause of `case` with its verdict, and the rules that fired on each.
fn verdicts(case: &Case) -> (Vec<(String, String)>, Vec<Vec<String>>) {
    explain(case)
        .into_iter()
        .map(|v| {
            let outcome = match v.outcome {
                Ok(d) => format!("kept: {}", d.clause),
                Err(why) => why.rule.name().to_string(),
            };
            let fired = v.fired.iter().map(|r| r.name().to_string()).collect();
            ((v.clause, outcome), fired)
        })
        .unzip()
}

fn explain(case: &Case) -> Vec<disclose::Verdict> {
    let mut lines = Vec::new();
    if let Some(a) = &case.assistant {
        lines.push(line("assistant", a));
    }
    lines.push(line("user", &case.user));
    let said: Vec<Said> = lines
        .iter()
        .enumerate()
        .map(|(i, msg)| Said {
            session: "s",
            line: i + 1,
            msg,
        })
        .collect();
    disclose::explain(&said)
}

#[test]
fn every_case_keeps_and_drops_what_its_data_file_says() {
    let ours = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/disclosures.jsonl");
    let bless = std::env::var_os("LOCALM_BLESS").is_some();
    let path = match std::env::var_os("LOCALM_DISCLOSURES") {
        Some(other) if bless => std::path::PathBuf::from(other),
        _ => std::path::PathBuf::from(ours),
    };
    let text = std::fs::read_to_string(&path).unwrap();
    let mut cases: Vec<Case> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    if bless {
        let mut out = String::new();
        for c in &mut cases {
            (c.expect, c.fired) = verdicts(c);
            out.push_str(&serde_json::to_string(c).unwrap());
            out.push('\n');
        }
        std::fs::write(&path, out).unwrap();
        return;
    }
    assert!(cases.len() >= 40, "the file holds the cases");
    let unsourced: Vec<&str> = cases
        .iter()
        .filter(|c| c.source.is_none())
        .map(|c| c.user.as_str())
        .collect();
    assert!(
        unsourced.is_empty(),
        "cases without a source (a dataset, or \"hand\"): {unsourced:?}"
    );
    let mut moved = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let got = verdicts(c);
        if got != (c.expect.clone(), c.fired.clone()) {
            moved.push(format!(
                "case {} ({:?}):\n  expected {:?} fired {:?}\n  got      {:?} fired {:?}",
                i + 1,
                c.user,
                c.expect,
                c.fired,
                got.0,
                got.1
            ));
        }
    }
    assert!(
        moved.is_empty(),
        "{} case(s) moved:\n{}",
        moved.len(),
        moved.join("\n")
    );
}

/// The rules that fire on `e` (each that drops, keeps, rewrites, joins or revives), in the order
/// of its clauses.
fn fired(e: &Example) -> Vec<Rule> {
    let case = Case {
        source: None,
        rule: None,
        assistant: e.asked.map(str::to_string),
        user: e.said.to_string(),
        expect: Vec::new(),
        fired: Vec::new(),
    };
    explain(&case).into_iter().flat_map(|v| v.fired).collect()
}

#[test]
fn every_rule_fires_on_its_examples_and_not_on_its_near_misses() {
    let mut wrong = Vec::new();
    for row in TABLE {
        for e in row.fires {
            if !fired(e).contains(&row.rule) {
                wrong.push(format!(
                    "{} does not fire on {:?} ({})",
                    row.name, e.said, e.source
                ));
            }
        }
        for e in row.holds {
            if fired(e).contains(&row.rule) {
                wrong.push(format!("{} fires on its near miss {:?}", row.name, e.said));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
