//! Consolidation: one pass distils durable facts and episodic summaries out of recent session
//! logs and folds them into the store with ADD / UPDATE / DELETE / NO_OP, behind the guards of
//! `plan`. The model runs with no lock held; the result is applied in one store transaction,
//! re-checked against the store as it is then. Privacy mode skips the pass without loading a model.

pub mod answer;
mod apply;
pub mod dates;
pub mod disclose;
mod elsewhere;
pub mod episodic;
pub mod grammar;
pub mod guard;
mod lexicon;
mod model;
mod neighbours;
pub mod parse;
pub mod pasted;
pub mod person;
pub mod plan;
pub mod prompt;
pub mod prune;
mod relative;
pub mod report;
pub mod rules;
pub mod summary;
mod things;
pub mod until;
mod verbatim;

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;

use chrono::{DateTime, Utc};

use self::apply::{Change, apply};
use self::model::Model;
use self::neighbours::Existing;
use self::plan::{Candidate, Planned};
use self::report::Unread;
use crate::language::Lang;
use crate::models::{Embedder, ModelError};
use crate::record::{Evidence, Kind, Record};
use crate::same_fact::{self, Overlap};
use crate::session::{self, Session};
use crate::settings::Mode;
use crate::store::state::SetAside;
use crate::store::{Snapshot, Store, StoreError};

pub use self::model::LoadGenerator;
pub use self::parse::MAX_CANDIDATES;
pub use self::report::{ModelUse, PassSummary, Report, Skipped, Status, Touched};

/// Importance of an episodic summary.
const EPISODIC_IMPORTANCE: f32 = 0.5;
#[cfg(test)]
const EXTRACT_TOKENS: usize = 400;
const DECIDE_TOKENS: usize = 120;
const SUMMARY_TOKENS: usize = 60;
const REWRITE_TOKENS: usize = 64;
/// The model's confidence in a fact rewritten from the user's own sentence.
const REWRITE_CONFIDENCE: f32 = 0.8;

/// How a pass finds candidate facts, for core's tests: the product always rewrites.
#[cfg(test)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Extraction {
    /// The user's self-disclosing sentences (found by rule), each rewritten as a fact by the
    /// model; by rule when the model's rewrite does not keep the user's words.
    #[default]
    Rewrite,
    /// The same sentences, rewritten by rule only (no model call for facts).
    Rule,
    /// The model reads the whole log and lists facts (the first design): lets a test hand the
    /// pass any candidate through its fake model.
    Free,
}

/// How a pass is run.
pub struct Pass<'a> {
    pub store: &'a Store,
    pub sessions_dir: PathBuf,
    pub mode: Mode,
    pub now: DateTime<Utc>,
    /// An id for this pass, recorded in the provenance of what it writes.
    pub pass_id: String,
    #[cfg(test)]
    pub extraction: Extraction,
    /// The caller's monotonic clock: how long since the pass began (core reads no clock).
    pub elapsed: &'a dyn Fn() -> Duration,
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
    Model(#[from] ModelError),
    /// The pass failed, and on no one log alone: nothing was set aside.
    #[error("the pass failed: {0}")]
    Failed(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The session text a pass reads: the unread lines of the sessions, oldest session first, about
/// 8,000 characters, and what the guards need to know about them.
struct Gathered<'s> {
    /// Rendered logs, oldest first (the free extraction's input, in core's tests).
    logs: Vec<String>,
    /// The lines read, with their session and line number.
    said: Vec<disclose::Said<'s>>,
    user_text: String,
    assistant_text: String,
    /// Sessions the facts come from.
    sessions: Vec<String>,
    /// How far each session was read (its new watermark).
    read_to: Vec<(String, usize)>,
    /// For each of `said`, its message's index in its log (the watermark's unit).
    said_at: Vec<usize>,
    /// What the budget left for the next pass.
    left: Unread,
}

/// Gather: the unread lines of the sessions, the oldest session first, within
/// [`prompt::SESSION_CHARS`]. A session the budget does not reach is left whole for the next
/// pass (counted in `left`): new chats never starve an older one.
fn gather<'s>(sessions: &'s [Session], snap: &Snapshot) -> Gathered<'s> {
    let mut g = Gathered {
        logs: Vec::new(),
        said: Vec::new(),
        user_text: String::new(),
        assistant_text: String::new(),
        sessions: Vec::new(),
        read_to: Vec::new(),
        said_at: Vec::new(),
        left: Unread::default(),
    };
    let mut budget = prompt::SESSION_CHARS;
    // Sessions come newest first; the oldest is read first.
    for s in sessions.iter().rev() {
        let mark = snap.state.sessions.get(&s.id).map_or(0, |m| m.lines_read);
        // Of a log read in part, `lines` starts at message `first`.
        let from = mark.saturating_sub(s.first);
        if from >= s.lines.len() {
            continue;
        }
        if budget < 200 {
            g.left.sessions += 1;
            g.left.messages += s.lines.len() - from;
            continue;
        }
        let new: Vec<&session::Line> = s.lines[from..].iter().collect();
        let log = prompt::render_log(&new, budget);
        g.read_to.push((s.id.clone(), s.first + s.lines.len()));
        if log.is_empty() {
            continue;
        }
        budget = budget.saturating_sub(log.chars().count() + 1);
        for l in new.iter().filter(|l| l.is_typed_by_user()) {
            g.user_text.push_str(&prompt::strip_recalled(&l.content));
            g.user_text.push('\n');
        }
        for l in new.iter().filter(|l| l.role == "assistant") {
            g.assistant_text.push_str(&l.content);
            g.assistant_text.push('\n');
        }
        g.sessions.push(s.id.clone());
        g.logs.push(log);
        let lines = s.lines[from..]
            .iter()
            .enumerate()
            .map(|(i, msg)| disclose::Said {
                session: &s.id,
                line: s.line_number(from + i),
                msg,
            });
        g.said.extend(lines);
        g.said_at.extend(s.first + from..s.first + s.lines.len());
    }
    g
}

/// A candidate fact and the disclosure it was rewritten from (none for free extraction).
struct Found {
    candidate: Candidate,
    from: Option<disclose::Disclosure>,
}

/// localm's version: a session log a pass failed on stays aside until another version reads it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What a pass decided before it writes: the changes, how far each log was read, the sessions
/// summarised.
struct Decided {
    changes: Vec<Change>,
    read_to: Vec<(String, usize)>,
    summarised: Vec<String>,
}

/// Run one pass. `embedder`, when installed, finds semantic neighbours.
///
/// No session log can stall memory: when the pass fails on a log's text (a panic in a rule, the
/// one failure a log's words can cause), that log is set aside, recorded in `state.json` and in
/// the report, and the pass runs again over the others. A set-aside log is read again by another
/// version of localm ([`VERSION`]).
pub fn run<'g>(
    pass: &Pass,
    load: LoadGenerator<'g>,
    embedder: Option<&dyn Embedder>,
) -> Result<Report, PassError> {
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
    let mut model = Model::new(load, pass.elapsed);
    let (mut report, mut sessions) = what_was_read(logs, &snap);
    let mut aside: Vec<(String, SetAside)> = Vec::new();
    let base = report.clone();
    let decided = loop {
        let mut tried = base.clone();
        match isolated(|| decide(pass, &sessions, &snap, embedder, &mut model, &mut tried)) {
            Ok(decided) => {
                report = tried;
                break decided?;
            }
            Err(why) => {
                let Some(at) = culprit(pass, &sessions, &snap, embedder, &mut model) else {
                    return Err(PassError::Failed(why));
                };
                let s = sessions.remove(at);
                let mark = SetAside {
                    version: VERSION.into(),
                    why: why.clone(),
                    at: pass.now,
                };
                aside.push((s.id.clone(), mark));
            }
        }
    };
    report.set_aside.extend(
        aside
            .iter()
            .map(|(id, a)| Skipped::because(id.clone(), a.why.clone())),
    );
    report.model = model.usage.clone();
    pass.store.write(|fresh: &mut Snapshot| {
        apply(
            pass,
            fresh,
            decided.changes,
            &decided.read_to,
            &decided.summarised,
            &aside,
            &mut report,
        );
        report.count_refusals();
        report.duration_ms = (pass.elapsed)().as_secs_f64() * 1e3;
        fresh.state.last_pass = Some(PassSummary::of(&report, pass.now, &pass.pass_id));
        Ok::<_, StoreError>(())
    })?;
    Ok(report)
}

/// The report as the logs open it (logs not read, bad lines the watermark has not passed, logs
/// set aside by this version), and the sessions the pass reads.
fn what_was_read(logs: session::Logs, snap: &Snapshot) -> (Report, Vec<Session>) {
    let mut report = Report::with_status(Status::Ok, None);
    report.logs_not_read = logs
        .passed_over
        .iter()
        .map(|p| Skipped::because(p.file.clone(), p.why.to_string()))
        .collect();
    // Each bad line once: those the watermark has not passed.
    report.lines_skipped = logs
        .sessions
        .iter()
        .map(|s| s.skipped_since(snap.state.sessions.get(&s.id).map_or(0, |m| m.lines_read)))
        .sum();
    let (held, sessions): (Vec<Session>, Vec<Session>) = logs.sessions.into_iter().partition(|s| {
        snap.state
            .sessions
            .get(&s.id)
            .and_then(|m| m.set_aside.as_ref())
            .is_some_and(|a| a.holds_for(VERSION))
    });
    report.set_aside = held.iter().map(|s| set_aside_row(&s.id, snap)).collect();
    (report, sessions)
}

/// A set-aside log as the report lists it: its session and why.
fn set_aside_row(id: &str, snap: &Snapshot) -> Skipped {
    let why = snap
        .state
        .sessions
        .get(id)
        .and_then(|m| m.set_aside.as_ref())
        .map_or_else(String::new, |a| a.why.clone());
    Skipped::because(id, why)
}

/// `f`, with a panic turned into its message (one line): the pass's rules read outside text,
/// and a failure there must cost one log, not every pass after it.
fn isolated<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a rule failed".into());
        let line: String = msg.split_whitespace().collect::<Vec<_>>().join(" ");
        format!(
            "a rule failed on this log: {}",
            crate::printable::one_line(&line)
        )
    })
}

/// Which of `sessions` the pass fails on: first each log's rules alone, with no model (where a
/// log's words can fail), then each log's whole pass.
fn culprit(
    pass: &Pass,
    sessions: &[Session],
    snap: &Snapshot,
    embedder: Option<&dyn Embedder>,
    model: &mut Model,
) -> Option<usize> {
    let rules_fail = |s: &Session| isolated(|| rules_only(s, snap)).is_err();
    sessions.iter().position(rules_fail).or_else(|| {
        sessions.iter().position(|s| {
            let mut scratch = Report::default();
            let alone = std::slice::from_ref(s);
            isolated(|| decide(pass, alone, snap, embedder, model, &mut scratch)).is_err()
        })
    })
}

/// A log's clause rules alone, with no model: its clauses' verdicts, each kept clause in the
/// third person and dated, how long it holds, and its summaries by rule.
fn rules_only(s: &Session, snap: &Snapshot) {
    let g = gather(std::slice::from_ref(s), snap);
    for v in disclose::explain(&g.said) {
        let _ = v.explained();
        if let Ok(d) = v.outcome {
            let text = person::third_person(&d.clause);
            if let Some(ts) = d.ts {
                let _ = dates::absolute(&text, ts);
                let _ = until::valid_until(&d.clause, ts);
            }
        }
    }
    let _ = summary::candidates(s);
}

/// Everything a pass decides over `sessions`, before it writes.
fn decide(
    pass: &Pass,
    sessions: &[Session],
    snap: &Snapshot,
    embedder: Option<&dyn Embedder>,
    model: &mut Model,
    report: &mut Report,
) -> Result<Decided, ModelError> {
    let mut g = gather(sessions, snap);
    report.sessions_read = g.read_to.len();
    if g.left.sessions > 0 {
        report.left_unread = Some(g.left);
        report.more_to_read = true;
    }
    #[cfg(test)]
    let found = extract(pass.extraction, &mut g, model, report)?;
    #[cfg(not(test))]
    let found = extract(&mut g, model, report)?;
    let examples = prompt::example_texts();
    let cx = guard::Context {
        user_text: &g.user_text,
        assistant_text: &g.assistant_text,
        examples: &examples,
    };
    let mut changes = decide_all(pass, snap, embedder, found, &cx, &g.sessions, model);
    let summarised = summarise_due(
        sessions,
        snap,
        pass.now,
        &examples,
        model,
        &mut changes,
        report,
    )?;
    Ok(Decided {
        changes,
        read_to: g.read_to,
        summarised,
    })
}

/// Extract: the candidate facts of the gathered text. The clauses (answers built with their
/// question, relative times as dates) join the user's text the guards ground facts in:
/// answering "Do you have pets?" with "yes" says so, and "last weekend" said on 30 November
/// means November 2026.
fn extract(
    #[cfg(test)] extraction: Extraction,
    g: &mut Gathered,
    model: &mut Model,
    report: &mut Report,
) -> Result<Vec<Found>, ModelError> {
    if g.logs.is_empty() {
        return Ok(Vec::new());
    }
    #[cfg(test)]
    if extraction == Extraction::Free {
        let found = free_candidates(&g.logs.join("\n"), model, report)?;
        return Ok(found
            .into_iter()
            .map(|candidate| Found {
                candidate,
                from: None,
            })
            .collect());
    }
    let verdicts = disclose::explain(&g.said);
    let taken = read_up_to(&verdicts, g);
    report.more_to_read |= taken < verdicts.len();
    report.explained = verdicts[..taken].iter().map(|v| v.explained()).collect();
    let disclosures: Vec<disclose::Disclosure> = verdicts
        .into_iter()
        .take(taken)
        .filter_map(|v| v.outcome.ok())
        .collect();
    for d in &disclosures {
        // The clause as the fact will say it: its relative times as dates.
        let dated = d.ts.map(|ts| dates::absolute(&d.clause, ts));
        for t in std::iter::once(&d.clause).chain(dated.as_ref()) {
            g.user_text.push_str(t);
            g.user_text.push('\n');
        }
    }
    #[cfg(test)]
    let by_model = extraction == Extraction::Rewrite;
    #[cfg(not(test))]
    let by_model = true;
    rewritten(disclosures, by_model, model)
}

/// How many of `verdicts` this pass takes: up to the one that would be its 13th disclosure
/// ([`disclose::MAX_DISCLOSURES`]). When some are left, the watermarks stop there: that
/// session is read on next time from the message holding it (from the assistant's line before,
/// whose question a reply may answer), and the sessions after it are not read this pass. A
/// message with more than 12 disclosures of its own is read once, its first 12 taken.
fn read_up_to(verdicts: &[disclose::Verdict], g: &mut Gathered) -> usize {
    let mut kept = verdicts
        .iter()
        .enumerate()
        .filter(|(_, v)| v.outcome.is_ok());
    let Some((first, _)) = kept.next() else {
        return verdicts.len();
    };
    let Some((cut, next)) = kept.nth(disclose::MAX_DISCLOSURES - 1) else {
        return verdicts.len();
    };
    let same_message = verdicts[first].at == next.at;
    // The first verdict past the message: a message is taken whole or not at all.
    let (cut, resume) = if same_message {
        let past = verdicts[cut..]
            .iter()
            .position(|v| v.at != next.at)
            .map_or(verdicts.len(), |k| cut + k);
        (past, verdicts.get(past).map(|v| v.at))
    } else {
        let start = verdicts.iter().position(|v| v.at == next.at).unwrap_or(cut);
        (start, Some(next.at))
    };
    let Some(at) = resume else {
        return cut;
    };
    let session = g.said[at].session;
    let mut from = g.said_at[at];
    if at > 0 && g.said[at - 1].session == session && g.said[at - 1].msg.role == "assistant" {
        from = g.said_at[at - 1];
    }
    let later: Vec<&str> = g.said[at..]
        .iter()
        .map(|s| s.session)
        .filter(|s| *s != session)
        .collect();
    for (id, to) in &mut g.read_to {
        if id == session {
            *to = from;
        }
    }
    g.read_to.retain(|(id, _)| !later.contains(&id.as_str()));
    cut
}

/// Decide: each candidate through the guards and the model's verdict, in order, one change per
/// candidate.
fn decide_all(
    pass: &Pass,
    snap: &Snapshot,
    embedder: Option<&dyn Embedder>,
    found: Vec<Found>,
    cx: &guard::Context,
    sessions: &[String],
    model: &mut Model,
) -> Vec<Change> {
    let mut changes: Vec<Change> = Vec::new();
    if found.is_empty() {
        return changes;
    }
    let vectors = pass.store.read_vectors().ok();
    let existing = Existing::new(snap, embedder, vectors.as_ref());
    for f in found {
        let quote = f.from.as_ref().map(|d| d.quote.as_str());
        let planned = plan::refuse_secret(&f.candidate.text, quote).unwrap_or_else(|| {
            let as_typed = f.from.as_ref().is_some_and(|d| d.lang != Lang::English);
            let planned = consider(&f.candidate, as_typed, &existing, cx, &changes, model);
            one_change_per_fact(planned, &f.candidate, &changes)
        });
        let (sessions, evidence) = match &f.from {
            Some(d) => (
                vec![d.session.clone()],
                vec![Evidence::new(&d.session, d.line, &d.quote)],
            ),
            None => (sessions.to_vec(), Vec::new()),
        };
        // The time the user gave it, from when they said it ("for the next two weeks").
        let valid_until = f.from.as_ref().and_then(|d| match d.lang {
            Lang::English => until::valid_until(&d.clause, d.ts?),
            lang => until::by_reader(&d.clause, crate::language::reader::of(lang)?, d.ts?),
        });
        changes.push(Change {
            planned,
            sessions,
            evidence,
            valid_until,
            said_at: f.from.as_ref().and_then(|d| d.ts),
        });
    }
    changes
}

/// Summarise: one line per quiet, unsummarised session — the model's when it passes the guards,
/// else one built by rule from what the user said (`episodic::by_rule`). Returns the sessions
/// asked (a session whose summary was refused is not asked again).
fn summarise_due(
    sessions: &[Session],
    snap: &Snapshot,
    now: DateTime<Utc>,
    examples: &[&str],
    model: &mut Model,
    changes: &mut Vec<Change>,
    report: &mut Report,
) -> Result<Vec<String>, ModelError> {
    let mut summarised: Vec<String> = Vec::new();
    // The facts' content words, read when a summary by rule first needs them (the summaries
    // this loop adds are not facts).
    let mut facts: Option<Vec<HashSet<String>>> = None;
    for s in episodic::due(sessions, &snap.state, now) {
        let typed = typed_text(s);
        let cx = guard::Context {
            user_text: &typed,
            assistant_text: "",
            examples,
        };
        // A summary is in the session's language or is not written: beyond English, what the
        // user asked, quoted, by rule (the prompts write English).
        let lang = crate::language::of(&typed);
        let text = if lang != Lang::English {
            crate::language::reader::of(lang).and_then(|r| summary::in_its_language(s, r))
        } else {
            match summarise(s, model, &cx)? {
                Ok(text) => Some(text),
                Err((text, why)) => {
                    let text = text.unwrap_or_else(|| format!("summary of session {}", s.id));
                    report.skipped.push(match why {
                        Why::Refused(r) => Skipped::refused(text, r),
                        Why::Other(why) => Skipped::because(text, why),
                    });
                    let passing: Vec<String> = summary::candidates(s)
                        .into_iter()
                        .map(|t| crate::secret::redact(&t))
                        .filter(|t| guard::refuse_summary(t, &cx).is_none())
                        .collect();
                    // The first that says more than a fact does; else the first (every session
                    // gets its line).
                    let facts = facts.get_or_insert_with(|| known_facts(snap, changes));
                    let fresh = passing
                        .iter()
                        .position(|t| !summary::repeats_a_fact(t, facts));
                    passing.into_iter().nth(fresh.unwrap_or(0))
                }
            }
        };
        if let Some(text) = text {
            // The session happened when its last message was written (else the log's
            // modification time): its relative times are dated from then.
            let said_at = s
                .lines
                .iter()
                .rev()
                .find_map(|l| l.ts)
                .unwrap_or(s.modified);
            changes.push(Change {
                planned: Planned::Add {
                    text: dates::absolute(&text, said_at),
                    kind: Kind::Episodic,
                    importance: EPISODIC_IMPORTANCE,
                },
                sessions: vec![s.id.clone()],
                evidence: Vec::new(),
                valid_until: None,
                said_at: Some(said_at),
            });
        }
        summarised.push(s.id.clone());
    }
    Ok(summarised)
}

/// The content words of each fact the store holds and the pass adds or rewrites: what a summary
/// by rule should not repeat.
fn known_facts(snap: &Snapshot, changes: &[Change]) -> Vec<HashSet<String>> {
    let planned = changes.iter().filter_map(|c| match &c.planned {
        Planned::Add {
            text,
            kind: Kind::Semantic,
            ..
        }
        | Planned::Update { text, .. } => Some(text.as_str()),
        _ => None,
    });
    let held = snap
        .records
        .iter()
        .filter(|r| r.kind == Kind::Semantic)
        .map(|r| r.text.as_str());
    planned
        .chain(held)
        .map(|t| crate::words::content_words(t).into_iter().collect())
        .collect()
}

/// The model lists facts from the whole log.
#[cfg(test)]
fn free_candidates(
    log: &str,
    model: &mut Model,
    report: &mut Report,
) -> Result<Vec<Candidate>, ModelError> {
    let reply = model.generate(
        &prompt::extract(log),
        &grammar::candidates(),
        EXTRACT_TOKENS,
    )?;
    Ok(parse::candidates(&reply.text).unwrap_or_else(|| {
        report.skipped.push(Skipped::because(
            reply.text.chars().take(80).collect::<String>(),
            "unreadable model reply",
        ));
        Vec::new()
    }))
}

/// Each self-disclosure as a fact: the model's rewrite when it keeps the user's words, else
/// the rule's (`by_model` false: the rule's only); relative times made absolute by the line's
/// time.
fn rewritten(
    disclosures: Vec<disclose::Disclosure>,
    by_model: bool,
    model: &mut Model,
) -> Result<Vec<Found>, ModelError> {
    let mut out: Vec<Found> = Vec::new();
    for d in disclosures {
        // Beyond English the fact is the user's sentence as typed: no English rule or prompt
        // rewrites it, and no English date word is read into it.
        if d.lang != Lang::English {
            if let Ok(text) = crate::fact_text::normalize_fact(&d.clause) {
                push_found(&mut out, text, d);
            }
            continue;
        }
        let ruled = person::third_person(&d.clause);
        let text = if by_model && !person::is_name(&ruled) {
            // The rule's own sentence is most of the model's reply: a guess that saves decoding.
            let reply = model.generate_drafted(
                &prompt::rewrite(&d.clause),
                &grammar::fact(),
                REWRITE_TOKENS,
                Some(&prompt::fact_reply(&ruled)),
            )?;
            parse::fact(&reply.text)
                .filter(|f| {
                    person::faithful(f, &d.clause) && person::same_shape(f, &ruled, &d.clause)
                })
                .unwrap_or(ruled)
        } else {
            ruled
        };
        let text = match d.ts {
            Some(ts) => dates::absolute(&text, ts),
            None => text,
        };
        let text = person::time_last(&text);
        let Ok(text) = crate::fact_text::normalize_fact(&text) else {
            continue;
        };
        push_found(&mut out, text, d);
    }
    Ok(out)
}

/// `text`, from `d`, as a candidate unless one with the same key is there already.
fn push_found(out: &mut Vec<Found>, text: String, d: disclose::Disclosure) {
    if !out
        .iter()
        .any(|f| same_fact::key(&f.candidate.text) == same_fact::key(&text))
    {
        out.push(Found {
            candidate: Candidate {
                text,
                kind: Kind::Semantic,
                confidence: REWRITE_CONFIDENCE,
            },
            from: Some(d),
        });
    }
}

/// Decide one candidate: guards that need no model first, then the model's verdict. A
/// candidate `as_typed` (the user's sentence in a language beyond English) keeps its words: the
/// model chooses what to do with it, never new text.
fn consider(
    c: &Candidate,
    as_typed: bool,
    existing: &Existing,
    cx: &guard::Context,
    earlier: &[Change],
    model: &mut Model,
) -> Planned {
    if let Some(planned) = refused_or_repeated(c, as_typed, cx, earlier) {
        return planned;
    }
    let neighbours = existing.neighbours(c);
    if let Some(planned) = known_already(c, existing.snap, &neighbours) {
        return planned;
    }
    if neighbours.is_empty() {
        return Planned::Add {
            text: c.text.clone(),
            kind: c.kind,
            importance: plan::synth_importance(c.confidence),
        };
    }
    ask_the_model(c, as_typed, existing.snap, cx, &neighbours, model)
}

/// What the guards that need no store decide of `c`, if anything: meta or refused text, or a
/// near-duplicate of another candidate of this pass.
fn refused_or_repeated(
    c: &Candidate,
    as_typed: bool,
    cx: &guard::Context,
    earlier: &[Change],
) -> Option<Planned> {
    let skip = |why: &str| Planned::Skip {
        text: c.text.clone(),
        why: why.into(),
    };
    if plan::is_meta(&c.text) {
        return Some(skip("reads as an instruction, not a fact about the user"));
    }
    let refused = if as_typed {
        guard::refuse_typed(&c.text, cx)
    } else {
        guard::refuse_fact(&c.text, cx)
    };
    if let Some(refusal) = refused {
        return Some(Planned::Refused {
            text: c.text.clone(),
            refusal,
        });
    }
    let mut planned_texts = earlier.iter().filter_map(|ch| match &ch.planned {
        Planned::Add { text, .. } | Planned::Update { text, .. } => Some(text.as_str()),
        _ => None,
    });
    if planned_texts.any(|t| same_fact::same(&c.text, t, None)) {
        return Some(skip("a near-duplicate of another candidate"));
    }
    None
}

/// Whether the store knows `c` already: a near-duplicate of a neighbour or of any record, or an
/// overlap with a neighbour that the rules decide.
fn known_already(
    c: &Candidate,
    snap: &Snapshot,
    neighbours: &[(&Record, Option<f32>)],
) -> Option<Planned> {
    let known = |r: &Record, why: &str| Planned::Known {
        target: r.id.clone(),
        text: c.text.clone(),
        why: why.into(),
    };
    for (r, cos) in neighbours {
        if same_fact::same(&c.text, &r.text, *cos) {
            return Some(known(r, &format!("a near-duplicate of {}", r.id)));
        }
        if let Some(planned) = overlap(c, r) {
            return Some(planned);
        }
    }
    snap.records
        .iter()
        .find(|r| same_fact::same(&c.text, &r.text, None))
        .map(|r| known(r, &format!("already in memory as {}", r.id)))
}

/// The model's ADD/UPDATE/DELETE/NO_OP for `c` beside its `neighbours`, through the plan's rules.
fn ask_the_model(
    c: &Candidate,
    as_typed: bool,
    snap: &Snapshot,
    cx: &guard::Context,
    neighbours: &[(&Record, Option<f32>)],
    model: &mut Model,
) -> Planned {
    let skip = |why: &str| Planned::Skip {
        text: c.text.clone(),
        why: why.into(),
    };
    let pairs: Vec<(String, String)> = neighbours
        .iter()
        .map(|(r, _)| (r.id.clone(), r.text.clone()))
        .collect();
    let ids: Vec<String> = pairs.iter().map(|(id, _)| id.clone()).collect();
    // The small model mostly copies its worked example's shape and the candidate's text.
    let reply = match model.generate_drafted(
        &prompt::decide(&c.text, &pairs),
        &grammar::decision(&ids),
        DECIDE_TOKENS,
        Some(&prompt::decision_reply(&ids[0], &c.text)),
    ) {
        Ok(r) => r,
        Err(e) => return skip(&format!("the model failed: {e}")),
    };
    // A reply that cannot be read never loses the candidate: the rules found it new enough to
    // ask about, so it is added beside its neighbours, as an unsure UPDATE keeps both facts.
    let Some(d) = parse::decision(&reply.text) else {
        return Planned::Add {
            text: c.text.clone(),
            kind: c.kind,
            importance: plan::synth_importance(c.confidence),
        };
    };
    let records: Vec<&Record> = neighbours.iter().map(|(r, _)| *r).collect();
    // The model's own new text passes the same guards as a candidate; when it does not, the
    // candidate (which did) is the new text.
    let d = match &d.text {
        Some(t)
            if as_typed
                || guard::refuse_fact(t, cx).is_some()
                || crate::secret::find(t).is_some() =>
        {
            plan::Decision {
                text: Some(c.text.clone()),
                ..d
            }
        }
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
        Planned::Add { .. }
        | Planned::Skip { .. }
        | Planned::Refused { .. }
        | Planned::Known { .. } => None,
    }
}

/// A pass changes (or proposes to change) one fact once, so one session never leaves two rival
/// corrections: a second update of a synth fact an earlier candidate already changes adds the
/// candidate as a fact of its own ("User has been eyeing a Cordoba ukulele" is not lost to the
/// drum set it was aimed at); any other second change is skipped.
fn one_change_per_fact(planned: Planned, c: &Candidate, earlier: &[Change]) -> Planned {
    let Some(t) = target(&planned).map(str::to_string) else {
        return planned;
    };
    if !earlier
        .iter()
        .any(|e| target(&e.planned) == Some(t.as_str()))
    {
        return planned;
    }
    let text = match planned {
        Planned::Update { .. } => {
            return Planned::Add {
                text: c.text.clone(),
                kind: c.kind,
                importance: plan::synth_importance(c.confidence),
            };
        }
        Planned::Propose { new_text, .. } => new_text.unwrap_or_default(),
        _ => t.clone(),
    };
    Planned::Skip {
        text,
        why: format!("{t} is already changed by this pass"),
    }
}

/// A candidate that overlaps `r` collapses into it: one that says less than `r` is known; one
/// that says `r` and more updates a synth `r`, or, beside a fact the user typed, keeps only its
/// new part.
fn overlap(c: &Candidate, r: &Record) -> Option<Planned> {
    match same_fact::overlap(&c.text, &r.text) {
        Overlap::Apart => None,
        Overlap::SaysLess => Some(Planned::Known {
            target: r.id.clone(),
            text: c.text.clone(),
            why: format!("already known, in more words, as {}", r.id),
        }),
        Overlap::SaysMore if !r.source.is_trusted() => Some(Planned::Update {
            target: r.id.clone(),
            text: c.text.clone(),
        }),
        Overlap::SaysMore => {
            let new_part = guard::split_compound(&c.text)
                .into_iter()
                .find(|part| same_fact::overlap(part, &r.text) != Overlap::SaysLess)?;
            Some(Planned::Add {
                text: new_part,
                kind: c.kind,
                importance: plan::synth_importance(c.confidence),
            })
        }
    }
}

/// Everything the user typed in `s`, recalled blocks left out.
fn typed_text(s: &Session) -> String {
    s.lines
        .iter()
        .filter(|l| l.is_typed_by_user())
        .map(|l| pasted::without_pasted(&prompt::strip_recalled(&l.content)) + "\n")
        .collect()
}

/// Why a summary was refused: a guard, or another reason.
enum Why {
    Refused(guard::Refusal),
    Other(&'static str),
}

/// A refused summary: its text when there was one, and why.
type Refused = (Option<String>, Why);

/// The session's one-line summary, or why there is none.
fn summarise(
    s: &Session,
    model: &mut Model,
    cx: &guard::Context,
) -> Result<Result<String, Refused>, ModelError> {
    let lines: Vec<&session::Line> = s.lines.iter().collect();
    let log = prompt::render_for_summary(&lines);
    let reply = model.generate(
        &prompt::summarise(&log),
        &grammar::summary(),
        SUMMARY_TOKENS,
    )?;
    let Some(text) = parse::summary(&reply.text) else {
        return Ok(Err((None, Why::Other("unreadable model reply"))));
    };
    if plan::is_meta(&text) {
        return Ok(Err((
            Some(text),
            Why::Other("reads as an instruction, not what the user did"),
        )));
    }
    if crate::secret::find(&text).is_some() {
        let refused = Why::Refused(guard::Refusal::Secret);
        return Ok(Err((Some(crate::secret::redact(&text)), refused)));
    }
    if summary::of_the_assistant(&text) {
        return Ok(Err((
            Some(text),
            Why::Other("about the assistant, not what the session was for"),
        )));
    }
    Ok(match guard::refuse_summary(&text, cx) {
        Some(refusal) => Err((Some(text), Why::Refused(refusal))),
        None => Ok(text),
    })
}

#[cfg(test)]
mod tests;
