//! Prints the self-disclosures the consolidation rules find in each session of a LongMemEval
//! JSONL file (the user's `has_answer` turns marked), with the rule's third-person rewrite: a
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
    let only = args.next();
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
            for (i, t) in s.as_array().into_iter().flatten().enumerate() {
                if t["role"] == "user" && t["has_answer"] == true {
                    println!("  [answer turn, line {}] {}", i + 1, t["content"]);
                }
            }
            for d in disclose::disclosures(&said) {
                println!("  + line {:2} {}", d.line, person::third_person(&d.clause));
            }
        }
    }
}
