//! `localm memory recall` and `localm memory backfill`: the chat turn's recall, run from the
//! terminal (never writes), and the embedding sweep, now.

use std::io::IsTerminal;
use std::sync::Arc;

use anyhow::Context as _;
use localm_core::models::Embedder;
use localm_core::recall::query::{Agent, ChatMessage, build_query};
use localm_core::recall::rank::Gate;
use localm_core::store::Store;

use super::Context;
use super::output::{self, print};
use crate::backfill;
use crate::exit::{Code, coded};
use crate::models::{self, embedder::BertEmbedder};
use crate::recall::{Answer, from_store, query_for};

/// The installed embedder, if any; one that fails to load is reported and treated as absent
/// (recall degrades to `no_embedder`).
pub fn load_embedder(ctx: &Context) -> Option<BertEmbedder> {
    models::load_embedder(&ctx.data_dir, &ctx.settings).unwrap_or_else(|e| {
        eprintln!("localm: warning: {e:#}; recall is lexical only");
        None
    })
}

pub fn run_recall(
    ctx: &Context,
    store: &Store,
    text: &str,
    as_json: bool,
    explain: bool,
) -> anyhow::Result<()> {
    let messages = [ChatMessage::user(text)];
    if build_query(&messages, Agent::Chat).is_none() {
        return Err(coded(Code::Usage, "the recall query is empty"));
    }
    let answer = match query_for(&ctx.settings, ctx.mode, &messages, Agent::Chat) {
        Err(why) => {
            eprintln!("localm: {why}: a chat turn gets no recall");
            Answer::skipped(why.to_string())
        }
        Ok(query) => {
            let read = from_store(store, &query, || load_embedder(ctx).map(Arc::new), explain)
                .with_context(|| format!("while reading the store in {}", store.dir().display()))?;
            output::warn_corrupt(&read.corrupt, false);
            if let Some(e) = read.vectors_error {
                eprintln!("localm: warning: {e}");
            }
            read.answer
        }
    };
    if as_json {
        output::json(&answer);
        return Ok(());
    }
    print(&human(&answer));
    Ok(())
}

fn human(answer: &Answer) -> String {
    let mut out = String::new();
    if let Some(d) = answer.degrade {
        out.push_str(&format!(
            "degrade: {} (recall fell back to lexical BM25)\n",
            d.as_str()
        ));
    }
    if answer.items.is_empty() {
        out.push_str("nothing recalled\n");
    } else {
        let rows: Vec<Vec<String>> = answer
            .items
            .iter()
            .enumerate()
            .map(|(i, it)| {
                vec![
                    format!("{}", i + 1),
                    it.id.clone(),
                    format!("{:.3}", it.score),
                    it.said_at.format("%Y-%m-%d").to_string(),
                    match it.constraint {
                        Some(c) => format!("{} (constraint: {})", it.text, c.as_str()),
                        None => it.text.clone(),
                    },
                ]
            })
            .collect();
        out.push_str(&output::table(&["#", "ID", "SCORE", "SAID", "TEXT"], &rows));
    }
    if let Some(gate) = &answer.gate {
        out.push('\n');
        out.push_str(&gate.describe());
        out.push('\n');
    }
    if let Some(candidates) = &answer.candidates {
        let rows: Vec<Vec<String>> = candidates
            .iter()
            .map(|e| {
                let (c, s) = (&e.candidate, &e.candidate.scored);
                vec![
                    e.id.clone(),
                    if c.chosen { "yes" } else { "" }.into(),
                    match (s.gate, s.constraint) {
                        (Gate::Constraint, Some(c)) => format!("constraint: {}", c.as_str()),
                        (Gate::Answers, _) => {
                            format!("answers: {}", s.answers.map_or("", |a| a.as_str()))
                        }
                        (g, _) => format!("{g:?}").to_lowercase(),
                    },
                    s.cosine.map_or("-".into(), |x| format!("{x:.3}")),
                    format!("{:.3}", s.share),
                    format!("{:.3}", s.relevance),
                    format!("{:.3}", s.recency),
                    format!("{:.2}", s.importance),
                    format!("{:.3}", s.score),
                    e.said_at.format("%Y-%m-%d").to_string(),
                    e.text.clone(),
                ]
            })
            .collect();
        out.push('\n');
        out.push_str(&output::table(
            &[
                "ID",
                "CHOSEN",
                "GATE",
                "COSINE",
                "SHARE",
                "RELEVANCE",
                "RECENCY",
                "IMPORTANCE",
                "SCORE",
                "SAID",
                "TEXT",
            ],
            &rows,
        ));
    }
    if !answer.block.is_empty() {
        out.push_str("\nblock:\n");
        out.push_str(&answer.block);
        out.push('\n');
    }
    out
}

pub fn run_backfill(ctx: &Context, store: &Store, limit: Option<usize>) -> anyhow::Result<()> {
    let path = models::embedder_path(&ctx.data_dir, &ctx.settings).ok_or_else(|| {
        coded(
            Code::Failure,
            "no embedding model installed: run `localm setup-embeddings` first",
        )
    })?;
    let bert = BertEmbedder::load(&path)?;
    let swept = backfill::sweep(
        store,
        &bert,
        limit.unwrap_or(usize::MAX),
        std::io::stderr().is_terminal(),
    )?;
    print(&format!(
        "embedded {} facts with {}; {} left without a vector\n",
        swept.embedded,
        bert.id(),
        swept.remaining
    ));
    Ok(())
}
