//! The product's own sentence vectors and candidate facts, for offline work such as training
//! the fact-worthiness head (`scripts/train-worthiness.py`).
//! `cargo run --release -p localm --example embed_lines -- MODEL_DIR < lines` prints, after a
//! header line `# model <id> dim <n>`, one line per input line: the unit-length vector recall
//! and consolidation compute for it (same pooling and normalisation), space-separated.
//! `... embed_lines -- --facts < conversations.jsonl` embeds nothing: each input line is one
//! conversation, a JSON array of `[role, text]` pairs ("user" / "assistant"); it prints one
//! JSON line `{"conversation": i, "clause": ..., "fact": ...}` per self-disclosure the pass
//! finds (`disclose::disclosures`), `fact` being the rule's rewrite (`person::third_person`,
//! normalised) that a pass stores when the model's rewrite is refused.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{Context as _, bail};
use localm::models::embedder::BertEmbedder;
use localm_core::consolidate::{disclose, person};
use localm_core::models::Embedder;
use localm_core::session::Line;

/// Lines embedded per model call.
const BATCH: usize = 32;

fn main() -> anyhow::Result<()> {
    let arg = std::env::args()
        .nth(1)
        .context("usage: embed_lines MODEL_DIR | --facts")?;
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if arg == "--facts" {
        for (i, line) in stdin.lock().lines().enumerate() {
            let line = line.context("while reading stdin")?;
            facts(i, &line, &mut out).with_context(|| format!("conversation {i}"))?;
        }
        return Ok(out.flush()?);
    }
    let model = BertEmbedder::load(&PathBuf::from(&arg))?;
    writeln!(out, "# model {} dim {}", model.id(), model.dim())?;
    let lines: Vec<String> = stdin
        .lock()
        .lines()
        .collect::<Result<_, _>>()
        .context("while reading stdin")?;
    for chunk in lines.chunks(BATCH) {
        let texts: Vec<&str> = chunk.iter().map(String::as_str).collect();
        let vectors = model.embed(&texts)?;
        if vectors.len() != texts.len() {
            bail!(
                "the model returned {} vectors for {} lines",
                vectors.len(),
                texts.len()
            );
        }
        for v in vectors {
            let row: Vec<String> = v.iter().map(|x| format!("{x:.6}")).collect();
            writeln!(out, "{}", row.join(" "))?;
        }
    }
    Ok(out.flush()?)
}

/// One conversation's self-disclosures and the rule's fact for each.
fn facts(i: usize, json: &str, out: &mut impl Write) -> anyhow::Result<()> {
    let turns: Vec<(String, String)> = serde_json::from_str(json).context("not [[role, text]]")?;
    let lines: Vec<Line> = turns
        .into_iter()
        .map(|(role, content)| Line {
            ts: None,
            role,
            content,
            origin: None,
            agent: None,
        })
        .collect();
    let said: Vec<disclose::Said> = lines
        .iter()
        .enumerate()
        .map(|(n, msg)| disclose::Said {
            session: "s",
            line: n + 1,
            msg,
        })
        .collect();
    for d in disclose::disclosures(&said) {
        let Ok(fact) = localm_core::fact_text::normalize_fact(&person::third_person(&d.clause))
        else {
            continue;
        };
        let row = serde_json::json!({"conversation": i, "clause": d.clause, "fact": fact});
        writeln!(out, "{row}")?;
    }
    Ok(())
}
