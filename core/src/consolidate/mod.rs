//! Consolidation: one pass distils durable facts and episodic summaries out of recent session
//! logs and folds them into the store with ADD / UPDATE / DELETE / NO_OP, behind the guards of
//! `plan`. The model runs with no lock held; the result is applied in one store transaction,
//! re-checked against the store as it is then. Privacy mode skips the pass without loading a model.

mod apply;
pub mod disclose;
pub mod episodic;
pub mod grammar;
pub mod guard;
mod model;
mod neighbours;
pub mod parse;
pub mod person;
pub mod plan;
pub mod prompt;
pub mod prune;
pub mod report;

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Instant;

use chrono::{DateTime, Utc};

use self::apply::{Change, apply};
use self::model::Model;
use self::neighbours::Existing;
use self::plan::{Candidate, Planned};
use crate::engine::{Embedder, EngineError};
use crate::recall::lexical::content_words;
use crate::record::{Kind, Record};
use crate::session::{self, Session};
use crate::settings::Mode;
use crate::store::{Snapshot, Store, StoreError};

pub use self::model::LoadGenerator;
pub use self::parse::MAX_CANDIDATES;
pub use self::report::{ModelUse, PassSummary, Report, Skipped, Status, Touched};

/// Importance of an episodic summary.
const EPISODIC_IMPORTANCE: f32 = 0.5;
const EXTRACT_TOKENS: usize = 400;
const DECIDE_TOKENS: usize = 120;
const SUMMARY_TOKENS: usize = 60;
const REWRITE_TOKENS: usize = 64;
/// The model's confidence in a fact rewritten from the user's own sentence.
const REWRITE_CONFIDENCE: f32 = 0.8;

/// How a pass finds candidate facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Extraction {
    /// The user's self-disclosing sentences (found by rule), each rewritten as a fact by the
    /// model; by rule when the model's rewrite does not keep the user's words.
    #[default]
    Rewrite,
    /// The same sentences, rewritten by rule only (no model call for facts).
    Rule,
    /// The model reads the whole log and lists facts (the first design; measured against).
    Free,
}

impl Extraction {
    /// From its name (`rewrite`, `rule`, `free`).
    pub fn parse(name: &str) -> Option<Extraction> {
        match name {
            "rewrite" => Some(Extraction::Rewrite),
            "rule" => Some(Extraction::Rule),
            "free" => Some(Extraction::Free),
            _ => None,
        }
    }
}

/// How a pass is run.
pub struct Pass<'a> {
    pub store: &'a Store,
    pub sessions_dir: PathBuf,
    pub mode: Mode,
    pub now: DateTime<Utc>,
    /// An id for this pass, recorded in the provenance of what it writes.
    pub pass_id: String,
    pub extraction: Extraction,
}

/// Why a pass failed (nothing was written).
#[derive(Debug, thiserror::Error)]
pub enum PassError {
    #[error("cannot read session logs in {path}: {source}")]
    Sessions {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the model failed: {0}")]
    Model(#[from] EngineError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Run one pass. `embedder`, when installed, finds semantic neighbours.
pub fn run<'g>(
    pass: &Pass,
    load: LoadGenerator<'g>,
    embedder: Option<&dyn Embedder>,
) -> Result<Report, PassError> {
    let started = Instant::now();
    if !pass.mode.allows_writes() {
        return Ok(Report::with_status(
            Status::Skipped,
            Some("privacy mode: memory writes nothing".into()),
        ));
    }
    let snap = pass.store.read()?;
    let logs = session::read_dir(&pass.sessions_dir).map_err(|source| PassError::Sessions {
        path: pass.sessions_dir.clone(),
        source,
    })?;
    let sessions = logs.sessions;
    let mut model = Model::new(load);
    let mut report = Report::with_status(Status::Ok, None);
    report.logs_not_read = logs
        .passed_over
        .iter()
        .map(|p| Skipped {
            text: p.file.clone(),
            why: p.why.to_string(),
        })
        .collect();
    report.lines_skipped = sessions.iter().map(|s| s.skipped).sum();

    // Facts: the newest unread lines of the newest sessions, about 8,000 characters.
    let mut budget = prompt::SESSION_CHARS;
    let mut parts: Vec<String> = Vec::new();
    let (mut user_text, mut assistant_text) = (String::new(), String::new());
    let mut read_to: Vec<(String, usize)> = Vec::new();
    let mut fact_sessions: Vec<String> = Vec::new();
    let mut new_lines: Vec<&session::Line> = Vec::new();
    for s in &sessions {
        if budget < 200 {
            break;
        }
        let from = snap.state.sessions.get(&s.id).map_or(0, |m| m.lines_read);
        if from >= s.lines.len() {
            continue;
        }
        let new: Vec<&session::Line> = s.lines[from..].iter().collect();
        let log = prompt::render_log(&new, budget);
        read_to.push((s.id.clone(), s.lines.len()));
        if log.is_empty() {
            continue;
        }
        budget = budget.saturating_sub(log.chars().count() + 1);
        for l in new.iter().filter(|l| l.is_typed_by_user()) {
            user_text.push_str(&prompt::strip_recalled(&l.content));
            user_text.push('\n');
        }
        for l in new.iter().filter(|l| l.role == "assistant") {
            assistant_text.push_str(&l.content);
            assistant_text.push('\n');
        }
        fact_sessions.push(s.id.clone());
        parts.push(log);
        new_lines.extend(new);
    }
    report.sessions_read = read_to.len();
    let mut changes: Vec<Change> = Vec::new();
    let examples = prompt::example_texts();
    if !parts.is_empty() {
        parts.reverse();
        let candidates = match pass.extraction {
            Extraction::Free => free_candidates(&parts.join("\n"), &mut model, &mut report)?,
            Extraction::Rewrite | Extraction::Rule => {
                let by_model = pass.extraction == Extraction::Rewrite;
                rewritten(&disclose::disclosures(&new_lines), by_model, &mut model)?
            }
        };
        let vectors = pass.store.read_vectors().ok();
        let existing = Existing::new(&snap, embedder, vectors.as_ref());
        let cx = guard::Context {
            user_text: &user_text,
            assistant_text: &assistant_text,
            examples: &examples,
        };
        for c in candidates {
            let planned =
                one_change_per_fact(consider(&c, &existing, &cx, &changes, &mut model), &changes);
            changes.push(Change {
                planned,
                sessions: fact_sessions.clone(),
                evidence: Vec::new(),
            });
        }
    }

    // Episodes: one line per quiet, unsummarised session.
    let due = episodic::due(&sessions, &snap.state, pass.now);
    let mut summarised: Vec<String> = Vec::new();
    for s in due {
        let cx = guard::Context {
            user_text: &typed_text(s),
            assistant_text: "",
            examples: &examples,
        };
        match summarise(s, &mut model, &cx) {
            Ok(Ok(text)) => {
                changes.push(Change {
                    planned: Planned::Add {
                        text,
                        kind: Kind::Episodic,
                        importance: EPISODIC_IMPORTANCE,
                    },
                    sessions: vec![s.id.clone()],
                    evidence: Vec::new(),
                });
                summarised.push(s.id.clone());
            }
            Ok(Err((text, why))) => {
                report.skipped.push(Skipped {
                    text: text.unwrap_or_else(|| format!("summary of session {}", s.id)),
                    why: why.into(),
                });
                // Asked once: a session whose summary was refused is not asked again.
                summarised.push(s.id.clone());
            }
            Err(e) => return Err(e.into()),
        }
    }

    report.model = model.usage.clone();
    pass.store.write(|fresh: &mut Snapshot| {
        apply(pass, fresh, changes, &read_to, &summarised, &mut report);
        report.duration_ms = started.elapsed().as_secs_f64() * 1e3;
        fresh.state.last_pass = Some(PassSummary::of(&report, pass.now, &pass.pass_id));
        Ok::<_, StoreError>(())
    })?;
    Ok(report)
}

/// The model lists facts from the whole log.
fn free_candidates(
    log: &str,
    model: &mut Model,
    report: &mut Report,
) -> Result<Vec<Candidate>, EngineError> {
    let reply = model.generate(
        &prompt::extract(log),
        &grammar::candidates(),
        EXTRACT_TOKENS,
    )?;
    Ok(parse::candidates(&reply.text).unwrap_or_else(|| {
        report.skipped.push(Skipped {
            text: reply.text.chars().take(80).collect(),
            why: "unreadable model reply".into(),
        });
        Vec::new()
    }))
}

/// Each self-disclosure as a fact: the model's rewrite when it keeps the user's words, else
/// the rule's (`by_model` false: the rule's only).
fn rewritten(
    disclosures: &[String],
    by_model: bool,
    model: &mut Model,
) -> Result<Vec<Candidate>, EngineError> {
    let mut out: Vec<Candidate> = Vec::new();
    for clause in disclosures {
        let ruled = person::third_person(clause);
        let text = if by_model {
            let reply =
                model.generate(&prompt::rewrite(clause), &grammar::fact(), REWRITE_TOKENS)?;
            parse::fact(&reply.text)
                .filter(|f| person::faithful(f, clause))
                .unwrap_or(ruled)
        } else {
            ruled
        };
        let Ok(text) = crate::text::normalize_fact(&text) else {
            continue;
        };
        if !out
            .iter()
            .any(|c| crate::text::fact_key(&c.text) == crate::text::fact_key(&text))
        {
            out.push(Candidate {
                text,
                kind: Kind::Semantic,
                confidence: REWRITE_CONFIDENCE,
            });
        }
    }
    Ok(out)
}

/// Decide one candidate: guards that need no model first, then the model's verdict.
fn consider(
    c: &Candidate,
    existing: &Existing,
    cx: &guard::Context,
    earlier: &[Change],
    model: &mut Model,
) -> Planned {
    let snap = existing.snap;
    let skip = |why: &str| Planned::Skip {
        text: c.text.clone(),
        why: why.into(),
    };
    if plan::is_meta(&c.text) {
        return skip("reads as an instruction, not a fact about the user");
    }
    if let Some(why) = guard::refuse_fact(&c.text, cx) {
        return skip(why);
    }
    let planned_texts = earlier.iter().filter_map(|ch| match &ch.planned {
        Planned::Add { text, .. } | Planned::Update { text, .. } => Some(text.as_str()),
        _ => None,
    });
    for t in planned_texts {
        if plan::near_duplicate(&c.text, t, None) {
            return skip("a near-duplicate of another candidate");
        }
    }
    let neighbours = existing.neighbours(c);
    for (r, cos) in &neighbours {
        if plan::near_duplicate(&c.text, &r.text, *cos) {
            return skip(&format!("a near-duplicate of {}", r.id));
        }
        if let Some(planned) = overlap(c, r) {
            return planned;
        }
    }
    if let Some(r) = snap
        .records
        .iter()
        .find(|r| guard::same_across_kinds(&c.text, [r.text.as_str()]))
    {
        return skip(&format!("already in memory as {}", r.id));
    }

    if neighbours.is_empty() {
        return Planned::Add {
            text: c.text.clone(),
            kind: c.kind,
            importance: plan::synth_importance(c.confidence),
        };
    }
    let pairs: Vec<(String, String)> = neighbours
        .iter()
        .map(|(r, _)| (r.id.clone(), r.text.clone()))
        .collect();
    let ids: Vec<String> = pairs.iter().map(|(id, _)| id.clone()).collect();
    let reply = match model.generate(
        &prompt::decide(&c.text, &pairs),
        &grammar::decision(&ids),
        DECIDE_TOKENS,
    ) {
        Ok(r) => r,
        Err(e) => return skip(&format!("the model failed: {e}")),
    };
    let Some(d) = parse::decision(&reply.text) else {
        return skip("unreadable model reply");
    };
    let records: Vec<&Record> = neighbours.iter().map(|(r, _)| *r).collect();
    // The model's own new text passes the same guards as a candidate; when it does not, the
    // candidate (which did) is the new text.
    let d = match &d.text {
        Some(t) if guard::refuse_fact(t, cx).is_some() => plan::Decision {
            text: Some(c.text.clone()),
            ..d
        },
        _ => d,
    };
    plan::decide(c, &d, &records, &snap.corrections)
}

/// The fact a planned change would change or propose to change.
fn target(p: &Planned) -> Option<&str> {
    match p {
        Planned::Update { target, .. }
        | Planned::Delete { target }
        | Planned::Propose { target, .. } => Some(target),
        Planned::Add { .. } | Planned::Skip { .. } => None,
    }
}

/// A pass changes (or proposes to change) one fact once: a second candidate aimed at a fact an
/// earlier one already changes is skipped, so one session never leaves two rival corrections.
fn one_change_per_fact(planned: Planned, earlier: &[Change]) -> Planned {
    match target(&planned) {
        Some(t) if earlier.iter().any(|c| target(&c.planned) == Some(t)) => Planned::Skip {
            text: match &planned {
                Planned::Update { text, .. } => text.clone(),
                Planned::Propose { new_text, .. } => new_text.clone().unwrap_or_default(),
                _ => t.to_string(),
            },
            why: format!("{t} is already changed by this pass"),
        },
        _ => planned,
    }
}

/// A candidate that overlaps `r` collapses into it: one that says less than `r` is known; one
/// that says `r` and more updates a synth `r`, or, beside a fact the user typed, keeps only its
/// new part.
fn overlap(c: &Candidate, r: &Record) -> Option<Planned> {
    let words = |t: &str| -> HashSet<String> { content_words(t).into_iter().collect() };
    let (cand, known) = (words(&c.text), words(&r.text));
    if cand.is_empty() || known.is_empty() {
        return None;
    }
    if cand.is_subset(&known) {
        return Some(Planned::Skip {
            text: c.text.clone(),
            why: format!("already known, in more words, as {}", r.id),
        });
    }
    if !known.is_subset(&cand) {
        return None;
    }
    if !r.source.is_trusted() {
        return Some(Planned::Update {
            target: r.id.clone(),
            text: c.text.clone(),
        });
    }
    let new_part = guard::split_compound(&c.text)
        .into_iter()
        .find(|part| !words(part).is_subset(&known))?;
    Some(Planned::Add {
        text: new_part,
        kind: c.kind,
        importance: plan::synth_importance(c.confidence),
    })
}

/// Everything the user typed in `s`, recalled blocks left out.
fn typed_text(s: &Session) -> String {
    s.lines
        .iter()
        .filter(|l| l.is_typed_by_user())
        .map(|l| prompt::strip_recalled(&l.content) + "\n")
        .collect()
}

/// A refused summary: its text when there was one, and why.
type Refused = (Option<String>, &'static str);

/// The session's one-line summary, or why there is none.
fn summarise(
    s: &Session,
    model: &mut Model,
    cx: &guard::Context,
) -> Result<Result<String, Refused>, EngineError> {
    let lines: Vec<&session::Line> = s.lines.iter().collect();
    let log = prompt::render_log(&lines, prompt::SESSION_CHARS / 2);
    let reply = model.generate(
        &prompt::summarise(&log),
        &grammar::summary(),
        SUMMARY_TOKENS,
    )?;
    let Some(text) = parse::summary(&reply.text) else {
        return Ok(Err((None, "unreadable model reply")));
    };
    if plan::is_meta(&text) {
        return Ok(Err((
            Some(text),
            "reads as an instruction, not what the user did",
        )));
    }
    Ok(match guard::refuse_summary(&text, cx) {
        Some(why) => Err((Some(text), why)),
        None => Ok(text),
    })
}

#[cfg(test)]
mod tests;
