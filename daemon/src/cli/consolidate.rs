//! `localm memory consolidate`: one consolidation pass now, printing what it added, updated,
//! deleted, proposed and skipped, and why.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context as _;
use chrono::Utc;
use localm_core::consolidate::rules::{Does, Rule};
use localm_core::consolidate::{self, LoadGenerator, Pass, Report, Status};
use localm_core::id::Fnv;
use localm_core::models::{Embedder, Generator, ModelError};
use localm_core::store::Store;

use super::Context;
use super::output::{self, print};
use crate::backfill;
use crate::exit::{Code, coded};
use crate::models::{self, llama::Llama};

pub fn run(ctx: &Context, as_json: bool, explain: bool) -> anyhow::Result<()> {
    // SIGTERM (the daemon stopping, or a user) abandons the model work at the next prompt chunk
    // or token: the pass then fails before its write, and the store is untouched. A SIGTERM that
    // lands during the write itself is noticed by nobody, so the write completes.
    let cancel = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGTERM, Arc::clone(&cancel))
        .context("cannot install the SIGTERM handler")?;
    match pass(ctx, cancel) {
        Ok(report) => {
            if as_json {
                output::json(&report);
            } else {
                print(&human(&report));
                if explain {
                    print(&explained(&report));
                }
            }
            Ok(())
        }
        Err(e) => {
            if as_json {
                output::json(&Report::error(format!("{e:#}")));
            }
            Err(e)
        }
    }
}

/// One pass now, with the installed model (its calls cancelled once `cancel` is set) and
/// embedder; then embed up to 64 new facts.
pub fn pass(ctx: &Context, cancel: Arc<AtomicBool>) -> anyhow::Result<Report> {
    let started = std::time::Instant::now();
    let store = Store::new(&ctx.data_dir, "chat", "localm memory consolidate");
    let model_path = models::llm_path(&ctx.data_dir, &ctx.settings);
    let load: LoadGenerator = Box::new(move || match model_path {
        Some(p) => {
            Llama::load(&p, None).map(|l| Box::new(l.cancelled_by(cancel)) as Box<dyn Generator>)
        }
        None => Err(ModelError(
            "no language model installed: run `localm setup-model`".into(),
        )),
    });
    // Privacy mode loads no model at all.
    let embedder = if ctx.mode.allows_writes() {
        super::recall::load_embedder(ctx)
    } else {
        None
    };
    let now = Utc::now();
    let mut h = Fnv::new();
    h.write(&now.timestamp_nanos_opt().unwrap_or_default().to_le_bytes());
    h.write(&std::process::id().to_le_bytes());
    let pass = Pass {
        store: &store,
        sessions_dir: ctx.data_dir.join("sessions"),
        mode: ctx.mode,
        now,
        pass_id: format!("p{:07x}", h.finish() >> 36),
        elapsed: &move || started.elapsed(),
    };
    let report = consolidate::run(&pass, load, embedder.as_ref().map(|e| e as &dyn Embedder))
        .map_err(|e| {
            coded(
                Code::Failure,
                format!("consolidation failed, nothing was changed: {e}"),
            )
        })?;
    if report.status == Status::Ok
        && let Some(e) = &embedder
        && let Err(err) = backfill::sweep(&store, e, localm_core::backfill::PER_PASS, false)
    {
        eprintln!("localm: warning: embedding new facts failed: {err:#}");
    }
    Ok(report)
}

fn human(r: &Report) -> String {
    let mut out = String::new();
    if r.status == Status::Skipped {
        out.push_str(&format!(
            "skipped: {}\n",
            r.reason.as_deref().unwrap_or("nothing to do")
        ));
        return out;
    }
    let m = &r.model;
    let rate = |tokens: usize, ms: f64| {
        if ms > 0.0 {
            tokens as f64 / ms * 1e3
        } else {
            0.0
        }
    };
    out.push_str(&format!(
        "read {} session(s) in {:.1} s; model: {} call(s), {} prompt tokens ({} kept from a shared prefix, the rest at {:.0}/s), {} generated ({} of them guessed ahead, {:.0}/s)\n",
        r.sessions_read,
        r.duration_ms / 1e3,
        m.calls,
        m.prompt_tokens,
        m.cached_tokens,
        rate(m.prompt_tokens.saturating_sub(m.cached_tokens), m.prompt_ms),
        m.gen_tokens,
        m.drafted_tokens,
        rate(m.gen_tokens, m.gen_ms),
    ));
    for s in &r.logs_not_read {
        let name = localm_core::printable::visible(&s.text);
        out.push_str(&format!("not read: sessions/{name}: {}\n", s.why));
    }
    for s in &r.set_aside {
        let name = localm_core::printable::visible(&s.text);
        out.push_str(&format!(
            "set aside: sessions/{name}.jsonl: {} (the other logs were read; another version of localm reads it again)\n",
            s.why
        ));
    }
    let mut rows: Vec<Vec<String>> = Vec::new();
    for (what, list) in [
        ("added", &r.added),
        ("updated", &r.updated),
        ("deleted", &r.deleted),
        ("proposed", &r.proposed),
        ("episodic", &r.episodic),
        ("archived", &r.archived),
    ] {
        for t in list {
            rows.push(vec![what.into(), t.id.clone(), t.text.clone()]);
        }
    }
    for s in &r.skipped {
        rows.push(vec![
            "skipped".into(),
            String::new(),
            format!("{} ({})", s.text, s.why),
        ]);
    }
    if rows.is_empty() {
        out.push_str("nothing new\n");
    } else {
        out.push_str(&output::table(&["WHAT", "ID", "TEXT"], &rows));
    }
    if let Some(left) = r.left_unread {
        out.push_str(&format!(
            "left unread: {} session(s), {} message(s), newer than those read: the next pass reads them\n",
            left.sessions, left.messages
        ));
    } else if r.more_to_read {
        out.push_str("more to read: the next pass reads on where this one stopped\n");
    }
    if !r.refusals.is_empty() {
        let kinds: Vec<String> = r
            .refusals
            .iter()
            .map(|(refusal, n)| format!("{n} {refusal}"))
            .collect();
        out.push_str(&format!("refused by the guards: {}\n", kinds.join("; ")));
    }
    out
}

/// Every clause the pass read, one a line: where it was said, and kept as what (by which rules)
/// or dropped by which rule (on which listed word) and why, after which others.
fn explained(r: &Report) -> String {
    use localm_core::printable::visible;
    if r.explained.is_empty() {
        return "explain: no clause of yours was read\n".into();
    }
    let names = |rules: &[Rule]| {
        rules
            .iter()
            .map(|r| r.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = String::from("explain: each clause of yours the pass read\n");
    for e in &r.explained {
        let at = format!("{}:{}", visible(&e.session), e.line);
        match (&e.kept, e.rule) {
            (Some(kept), _) => {
                let typed = e
                    .language
                    .as_deref()
                    .map(|l| format!("  [{l}: kept as typed]"))
                    .unwrap_or_default();
                let by = if e.fired.is_empty() {
                    String::new()
                } else {
                    format!("  [rules: {}]", names(&e.fired))
                };
                out.push_str(&format!("  kept     {at}  {}{typed}{by}\n", visible(kept)));
            }
            (None, Some(rule)) => {
                let on = e
                    .matched
                    .as_deref()
                    .map(|m| format!(" on '{m}'"))
                    .unwrap_or_default();
                let before = e.fired.split_last().map_or(&[][..], |(_, b)| b);
                let after = if before.is_empty() {
                    String::new()
                } else {
                    format!("  (after {})", names(before))
                };
                // A clause joined to the one before is in that fact, not dropped.
                let verdict = if rule.row().does == Does::Join {
                    "joined "
                } else {
                    "dropped"
                };
                out.push_str(&format!(
                    "  {verdict}  {at}  {}  [{}{on}: {}]{after}\n",
                    visible(&e.clause),
                    rule.name(),
                    rule.why()
                ));
            }
            (None, None) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use localm_core::consolidate::report::{Refusal, Skipped};

    use super::*;

    #[test]
    fn the_guards_refusals_are_counted_by_kind() {
        let mut r = Report::with_status(Status::Ok, None);
        r.skipped = vec![
            Skipped::refused("User user user user", Refusal::Loop),
            Skipped::refused("User is user is user is", Refusal::Loop),
            Skipped::refused("Sure, here you go", Refusal::AssistantVoice),
            Skipped::because("User likes tea", "already known"),
        ];
        r.count_refusals();
        let out = human(&r);
        assert!(
            out.contains(
                "refused by the guards: 2 a repetition loop; 1 written in the assistant's voice\n"
            ),
            "{out}"
        );
        assert!(out.contains("User likes tea (already known)"), "{out}");
    }
}
