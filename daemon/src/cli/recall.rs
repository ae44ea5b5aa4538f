//! `localm memory recall` and `localm memory backfill`: the chat turn's recall, run from the
//! terminal (never writes), and the embedding sweep, now.

use std::io::IsTerminal;

use anyhow::Context as _;
use chrono::Utc;
use localm_core::engine::Embedder;
use localm_core::recall::lexical::LexicalIndex;
use localm_core::recall::query::{Agent, ChatMessage, build_query};
use localm_core::recall::{Recall, plan_semantic, recall};
use localm_core::store::Store;
use serde_json::json;

use super::Context;
use super::output::{self, print};
use crate::backfill;
use crate::exit::{Code, coded};
use crate::json::exact;
use crate::models::{self, embedder::Bert};

/// Load the installed embedder, if any. A model that fails to load is reported and treated as
/// absent (recall degrades to `no_embedder`).
pub fn load_embedder(ctx: &Context) -> Option<Bert> {
    let path = models::embedder_path(&ctx.data_dir, &ctx.settings)?;
    match Bert::load(&path) {
        Ok(b) => Some(b),
        Err(e) => {
            eprintln!("localm: warning: {e:#}; recall is lexical only");
            None
        }
    }
}

pub fn run_recall(
    ctx: &Context,
    store: &Store,
    text: &str,
    as_json: bool,
    explain: bool,
) -> anyhow::Result<()> {
    let query = build_query(&[ChatMessage::user(text)], Agent::Chat)
        .ok_or_else(|| coded(Code::Usage, "the recall query is empty"))?;
    let (result, records) = match ctx.settings.recall_allowed(ctx.mode) {
        Err(why) => {
            eprintln!("localm: {why}: a chat turn gets no recall");
            (Recall::none(None), Vec::new())
        }
        Ok(()) => {
            let snap = store
                .read()
                .with_context(|| format!("while reading the store in {}", store.dir().display()))?;
            output::warn_corrupt(&snap.corrupt, false);
            let vectors = match store.read_vectors() {
                Ok(v) => Some(v),
                Err(e) => {
                    eprintln!("localm: warning: {e}");
                    None
                }
            };
            let embedder = load_embedder(ctx);
            let index = LexicalIndex::new(snap.records.iter().map(|r| r.text.as_str()));
            let sem = plan_semantic(
                &snap.records,
                vectors.as_ref(),
                embedder.as_ref().map(|e| e as &dyn Embedder),
                &query.text,
            );
            let result = recall(&snap.records, &index, &sem, &query, Utc::now());
            (result, snap.records)
        }
    };
    if as_json {
        let mut v = json!({
            "block": result.block,
            "items": exact(&result.items),
            "degrade": result.degrade.map(|d| d.as_str()),
            "header": result.header_value(),
        });
        if explain {
            let candidates: Vec<serde_json::Value> = result
                .candidates
                .iter()
                .map(|c| {
                    let r = &records[c.scored.index];
                    let mut v = exact(c);
                    v["id"] = json!(r.id);
                    v["text"] = json!(r.text);
                    v
                })
                .collect();
            v["candidates"] = json!(candidates);
        }
        output::json(&v);
        return Ok(());
    }
    let mut out = String::new();
    if let Some(d) = result.degrade {
        out.push_str(&format!(
            "degrade: {} (recall fell back to lexical BM25)\n",
            d.as_str()
        ));
    }
    if result.items.is_empty() {
        out.push_str("nothing recalled\n");
    } else {
        let rows: Vec<Vec<String>> = result
            .items
            .iter()
            .enumerate()
            .map(|(i, it)| {
                vec![
                    format!("{}", i + 1),
                    it.id.clone(),
                    format!("{:.3}", it.score),
                    it.text.clone(),
                ]
            })
            .collect();
        out.push_str(&output::table(&["#", "ID", "SCORE", "TEXT"], &rows));
    }
    if explain {
        let rows: Vec<Vec<String>> = result
            .candidates
            .iter()
            .map(|c| {
                let s = &c.scored;
                let r = &records[s.index];
                vec![
                    r.id.clone(),
                    if c.chosen { "yes" } else { "" }.into(),
                    format!("{:?}", s.gate).to_lowercase(),
                    s.cosine.map_or("-".into(), |x| format!("{x:.3}")),
                    format!("{:.3}", s.relevance),
                    format!("{:.3}", s.recency),
                    format!("{:.2}", s.importance),
                    format!("{:.3}", s.score),
                    r.text.clone(),
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
                "RELEVANCE",
                "RECENCY",
                "IMPORTANCE",
                "SCORE",
                "TEXT",
            ],
            &rows,
        ));
    }
    if !result.block.is_empty() {
        out.push_str("\nblock:\n");
        out.push_str(&result.block);
        out.push('\n');
    }
    print(&out);
    Ok(())
}

pub fn run_backfill(ctx: &Context, store: &Store, limit: Option<usize>) -> anyhow::Result<()> {
    let path = models::embedder_path(&ctx.data_dir, &ctx.settings).ok_or_else(|| {
        coded(
            Code::Failure,
            "no embedding model installed: run `localm setup-embeddings` first",
        )
    })?;
    let bert = Bert::load(&path)?;
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
