//! Prints the self-disclosures the consolidation rules find in each session of a LongMemEval
//! JSONL file (each clause kept (as the rule's third-person rewrite) or dropped by
//! which rule; `*` marks the user's `has_answer` turns: a
//! tool for tuning the rules without a model. `cargo run -p localm-core --example disclosures --
//! tests/data/longmemeval/tune.jsonl [QUESTION_ID]`

use std::io::BufRead;

use localm_core::consolidate::{disclose, person};
use localm_core::session::Line;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: disclosures FILE.jsonl [QUESTION_ID]");
    let only = args.next().filter(|a| a != "-");
    // LOCALM_ALL=1: every dropped clause, not only those of the turns that hold the answer.
    let all = std::env::var_os("LOCALM_ALL").is_some();
    let file = std::fs::File::open(&path).expect("open the file");
    for line in std::io::BufReader::new(file).lines() {
        let line = line.expect("read a line");
        let r: serde_json::Value = serde_json::from_str(&line).expect("a JSON record");
        let id = r["question_id"].as_str().unwrap_or_default();
        if only.as_deref().is_some_and(|o| o != id) {
            continue;
        }
        println!(
            "\n=== {id} [{}] {} -> {}",
            r["question_type"].as_str().unwrap_or_default(),
            r["question"],
            r["answer"]
        );
        for (k, s) in r["haystack_sessions"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let lines: Vec<Line> = s
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| Line {
                    ts: None,
                    role: t["role"].as_str().unwrap_or_default().to_string(),
                    content: t["content"].as_str().unwrap_or_default().to_string(),
                    origin: None,
                    agent: None,
                })
                .collect();
            let name = format!("s{k}");
            let said: Vec<disclose::Said> = lines
                .iter()
                .enumerate()
                .map(|(i, msg)| disclose::Said {
                    session: &name,
                    line: i + 1,
                    msg,
                })
                .collect();
            let answer_lines: Vec<usize> = s
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
                .filter(|(_, t)| t["role"] == "user" && t["has_answer"] == true)
                .map(|(i, _)| i + 1)
                .collect();
            for v in disclose::explain(&said) {
                let mark = if answer_lines.contains(&v.line) {
                    "*"
                } else {
                    " "
                };
                match v.outcome {
                    Ok(d) => println!("{mark} + {:2} {}", v.line, person::third_person(&d.clause)),
                    Err(why) if all || !mark.trim().is_empty() => println!(
                        "{mark} - {:2} {}  [{}{}]",
                        v.line,
                        v.clause,
                        why.rule.name(),
                        why.matched.map(|m| format!(" '{m}'")).unwrap_or_default()
                    ),
                    Err(_) => {}
                }
            }
        }
    }
}
