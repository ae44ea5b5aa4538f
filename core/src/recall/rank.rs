//! Ranking: the relevance gate (`gate.rs`) applied to each fact, and the 0.5 / 0.3 / 0.2 blend
//! of relevance, recency and importance. A pure function of the records, their relevance
//! signals, the gates and `now`.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::constraint::Label;
use super::gate::Gates;
use super::given_up;
use super::identity::{Asked, Held};
use super::when;
use crate::record::{Kind, Record, Source};
use crate::same_fact;

pub const W_RELEVANCE: f32 = 0.5;
pub const W_RECENCY: f32 = 0.3;
pub const W_IMPORTANCE: f32 = 0.2;
/// Recency time constant for synthesized memories, in days.
pub const RECENCY_TAU_DAYS: f32 = 30.0;
/// At most this many facts are injected.
pub const MAX_FACTS: usize = 6;
/// Facts the first-person fallback brings in at most.
pub const FALLBACK_FACTS: usize = 2;
/// Standing constraints a request for advice brings in at most, beyond the facts the gate
/// lets through (they take their places among the six). Chosen on the tuning half.
pub const CONSTRAINT_FACTS: usize = 4;

/// Why a candidate was or was not let through the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Gate {
    /// Without embeddings: it holds enough of the query's word weight.
    SharedWord,
    /// With embeddings: cosine plus word share reach the model's threshold.
    Similar,
    /// Brought in by the first-person fallback.
    Fallback,
    /// A standing constraint on the advice the message asks for (`constraint.rs`).
    Constraint,
    /// It answers the identity question the message asks ("what's my name?": `identity.rs`).
    Answers,
    /// Not related enough to the query.
    Rejected,
    /// Related, but a fact said later states a newer value of the same thing (where the user
    /// lives, who they work for), or gives up what it says the user does ("User quit smoking" of
    /// "User smokes"): the older is not recalled beside it.
    Superseded,
    /// Not related enough on its own, but said later it gives up what a fact through the gate
    /// says the user does ("User quit smoking in 2022" for "do I smoke?"): it takes that
    /// fact's place.
    Replaces,
}

impl Gate {
    /// Whether the candidate may go into the block.
    pub fn lets_through(self) -> bool {
        !matches!(self, Gate::Rejected | Gate::Superseded)
    }
}

/// One record's signals for one query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Signals {
    /// The share of the query's word weight this fact holds, 0–1 (absolute, not relative to
    /// the best fact).
    pub share: f32,
    /// Cosine similarity, when the semantic signal is in use.
    pub cosine: Option<f32>,
    /// The fact's standing constraint, when it bears on the advice this message asks for.
    pub constraint: Option<Label>,
    /// The identity question the message asks, when this fact answers it.
    pub answers: Option<Asked>,
    /// The message asks when, and the fact carries a date (its relevance rises by
    /// [`when::DATED_BOOST`] once it is through the gate).
    pub dated: bool,
}

/// A scored candidate, for the result and `--explain`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scored {
    pub index: usize,
    pub relevance: f32,
    pub recency: f32,
    pub importance: f32,
    pub score: f32,
    pub gate: Gate,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cosine: Option<f32>,
    /// The share of the query's word weight the fact holds.
    pub share: f32,
    /// The fact's standing constraint, when it bears on the advice this message asks for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constraint: Option<Label>,
    /// The identity question the message asks, when this fact answers it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answers: Option<Asked>,
}

/// exp(−age / 30 days) for synth, measured from the last update or recall; 1 for user/import.
pub fn recency(r: &Record, now: DateTime<Utc>) -> f32 {
    if r.source != Source::Synth {
        return 1.0;
    }
    let last = r
        .last_recalled_at
        .map_or(r.updated_at, |t| t.max(r.updated_at));
    let age_days = (now - last).num_seconds().max(0) as f32 / 86_400.0;
    (-age_days / RECENCY_TAU_DAYS).exp()
}

/// Whether `r` is never recalled, whatever the query: it holds a secret (`crate::secret`; one
/// the user stored with `--force` stays listable, never injected into a prompt), or its time
/// ran out by `now` (`valid_until`; the next pass archives it).
pub fn withheld(r: &Record, now: DateTime<Utc>) -> bool {
    r.expired(now) || crate::secret::find(&r.text).is_some()
}

/// Gate and score every record; returned best first (gate-rejected ones last). `about_user`
/// says whether the message is about the user (the gate is lower then).
pub fn rank(
    records: &[Record],
    signals: &[Signals],
    gates: &Gates,
    about_user: bool,
    now: DateTime<Utc>,
) -> Vec<Scored> {
    let mut out: Vec<Scored> = records
        .iter()
        .zip(signals)
        .enumerate()
        .map(|(index, (r, s))| {
            let gate = match (gates.passes(s.share, s.cosine, about_user), s.cosine) {
                (false, _) if s.constraint.is_some() => Gate::Constraint,
                (false, _) if s.answers.is_some() => Gate::Answers,
                (false, _) => Gate::Rejected,
                (true, None) => Gate::SharedWord,
                (true, Some(_)) => Gate::Similar,
            };
            // Asked only of what would pass: the secret rules read every language.
            let gate = if gate != Gate::Rejected && withheld(r, now) {
                Gate::Rejected
            } else {
                gate
            };
            let relevance = gates.relevance(s.share, s.cosine)
                + if s.dated && gate != Gate::Rejected {
                    when::DATED_BOOST
                } else {
                    0.0
                };
            let recency = recency(r, now);
            let importance = r.importance.clamp(0.0, 1.0);
            Scored {
                index,
                relevance,
                recency,
                importance,
                score: W_RELEVANCE * relevance + W_RECENCY * recency + W_IMPORTANCE * importance,
                gate,
                cosine: s.cosine,
                share: s.share,
                constraint: s.constraint,
                answers: s.answers,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        (b.gate != Gate::Rejected)
            .cmp(&(a.gate != Gate::Rejected))
            .then(b.score.total_cmp(&a.score))
            .then(a.index.cmp(&b.index))
    });
    out
}

/// Facts an identity question brings in beyond the gate, at most: the strongest few, so a
/// store of many work facts does not crowd the block.
pub const ANSWER_FACTS: usize = 3;

/// At most [`ANSWER_FACTS`] answer-only candidates keep their gate, the best scored first.
pub fn cap_answers(ranked: &mut [Scored]) {
    let mut kept = 0;
    for s in ranked.iter_mut().filter(|s| s.gate == Gate::Answers) {
        if kept == ANSWER_FACTS {
            s.gate = Gate::Rejected;
        } else {
            kept += 1;
        }
    }
}

/// Of the candidates through the gate that state a value held one at a time (`held`: where the
/// user lives, who they work for), only the one said last of each kind stays, of two counts
/// of one thing the later, and a fact of what the user does is set aside by a later one that
/// gives it up (`gave_up`, `given_up.rs`), said later, through the gate or not (one that was not
/// takes its place: [`Gate::Replaces`]); the others are [`Gate::Superseded`]. A fact the user
/// typed is never set aside for one a pass wrote.
pub fn set_aside_superseded<'a>(
    records: &[Record],
    ranked: &mut [Scored],
    held: impl Fn(usize) -> Option<Held>,
    gave_up: impl Fn(usize) -> Option<&'a [String]>,
    now: DateTime<Utc>,
) {
    let through: Vec<usize> = (0..ranked.len())
        .filter(|&k| ranked[k].gate.lets_through())
        .collect();
    // What each counts, read once: the pairs below are many.
    let counted: Vec<same_fact::Counted> = through
        .iter()
        .map(|&k| same_fact::Counted::of(&records[ranked[k].index].text))
        .collect();
    // Whether the candidate at `through[n]` replaces the one at `through[k]`.
    let replaces = |n: usize, k: usize| {
        let (i, j) = (ranked[through[n]].index, ranked[through[k]].index);
        let (newer, older) = (&records[i], &records[j]);
        if newer.last_said() <= older.last_said()
            || (older.source.is_trusted() && !newer.source.is_trusted())
        {
            return false;
        }
        let one_value = held(i).is_some_and(|h| held(j) == Some(h))
            && newer.kind == Kind::Semantic
            && older.kind == Kind::Semantic
            && same_fact::key(&newer.text) != same_fact::key(&older.text);
        one_value || counted[n].newer_than(&counted[k])
    };
    // "User quit smoking in 2022", said later, ends "User smokes about ten cigarettes a day",
    // whether or not the question's words reach it. Who gave something up is found once, what
    // each candidate through the gate says read once.
    let givers: Vec<(usize, &[String])> = (0..ranked.len())
        .filter_map(|m| gave_up(ranked[m].index).map(|w| (m, w)))
        .filter(|&(m, _)| records[ranked[m].index].kind == Kind::Semantic)
        .collect();
    let ended_by = |k: usize| {
        let j = ranked[through[k]].index;
        let older = &records[j];
        if givers.is_empty() || gave_up(j).is_some() {
            return None;
        }
        let has = given_up::words_of(&older.text);
        givers.iter().find_map(|&(m, w)| {
            let newer = &records[ranked[m].index];
            // The older may be a session's summary ("Said they smoke …").
            (newer.last_said() > older.last_said()
                && (newer.source.is_trusted() || !older.source.is_trusted())
                && given_up::ends_words(&has, w))
            .then_some(m)
        })
    };
    let mut replaced = Vec::new();
    let mut replacing = Vec::new();
    for k in 0..through.len() {
        if let Some(m) = ended_by(k) {
            replaced.push(through[k]);
            replacing.push(m);
        } else if (0..through.len()).any(|n| replaces(n, k)) {
            replaced.push(through[k]);
        }
    }
    for k in replaced {
        ranked[k].gate = Gate::Superseded;
    }
    for m in replacing {
        if ranked[m].gate == Gate::Rejected && !withheld(&records[ranked[m].index], now) {
            ranked[m].gate = Gate::Replaces;
        }
    }
}

/// At most [`CONSTRAINT_FACTS`] constraints the message's advice bears on take places among the
/// first [`MAX_FACTS`] (the weakest gated facts move down to make room); constraint-only
/// candidates beyond them are rejected. A constraint through the gate on its own is one of them
/// ("un dessert aux cacahuètes" is close to "Je suis allergique aux arachides"): it is not pushed
/// down for constraint-only ones. The kinds in `order` (those the message names) go first, then
/// the best scored. `ranked` is best first, gate-rejected last.
pub fn make_room_for_constraints(ranked: &mut Vec<Scored>, order: &[Label]) {
    let place = |s: &Scored| {
        s.constraint
            .and_then(|l| order.iter().position(|o| *o == l))
            .unwrap_or(order.len())
    };
    let mut waiting: Vec<usize> = (0..ranked.len())
        .filter(|&k| ranked[k].constraint.is_some() && ranked[k].gate != Gate::Rejected)
        .collect();
    // Stable: within a kind, the better score (earlier in `ranked`) first.
    waiting.sort_by_key(|&k| place(&ranked[k]));
    let kept: Vec<usize> = waiting.iter().copied().take(CONSTRAINT_FACTS).collect();
    for &k in &waiting {
        if !kept.contains(&k) && ranked[k].gate == Gate::Constraint {
            ranked[k].gate = Gate::Rejected;
        }
    }
    if kept.is_empty() {
        return;
    }
    // Through the gate, in their order: the kept constraints among them keep their places, the
    // others take what room the kept constraints leave; the constraint-only ones follow.
    let mut room = MAX_FACTS.saturating_sub(kept.len());
    let (mut first, mut reserved, mut later, mut rejected) = (vec![], vec![], vec![], vec![]);
    for (k, s) in ranked.drain(..).enumerate() {
        if s.gate == Gate::Rejected {
            rejected.push(s);
        } else if kept.contains(&k) && s.gate == Gate::Constraint {
            reserved.push((kept.iter().position(|&c| c == k), s));
        } else if kept.contains(&k) {
            first.push(s);
        } else if room > 0 {
            room -= 1;
            first.push(s);
        } else {
            later.push(s);
        }
    }
    reserved.sort_by_key(|(at, _)| *at);
    ranked.extend(first);
    ranked.extend(reserved.into_iter().map(|(_, s)| s));
    ranked.extend(later);
    ranked.extend(rejected);
}

/// Whether `text` is a first-person question ("what is my name?", "do I have a cat").
pub fn is_first_person_question(text: &str) -> bool {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    let first_person = super::gate::is_about_user(&lower);
    let question = lower.trim_end().ends_with('?')
        || words.first().is_some_and(|w| {
            matches!(
                *w,
                "what"
                    | "who"
                    | "where"
                    | "when"
                    | "which"
                    | "how"
                    | "why"
                    | "do"
                    | "does"
                    | "did"
                    | "am"
                    | "is"
                    | "are"
                    | "can"
                    | "could"
                    | "should"
                    | "have"
                    | "was"
                    | "tell"
                    | "remind"
            )
        });
    first_person && question
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::gate::{DEFAULT, LEXICAL, MINILM_L6};

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn rec(source: Source, importance: f32, updated: &str) -> Record {
        Record {
            importance,
            ..Record::fixture("x", "t", source, at(updated))
        }
    }

    fn sig(share: f32, cosine: Option<f32>) -> Signals {
        Signals {
            share,
            cosine,
            constraint: None,
            answers: None,
            dated: false,
        }
    }

    fn gates_of(s: &[Scored]) -> Vec<Gate> {
        let mut v = s.to_vec();
        v.sort_by_key(|x| x.index);
        v.iter().map(|x| x.gate).collect()
    }

    #[test]
    fn recency_decays_for_synth_only() {
        let now = at("2026-03-31T00:00:00Z");
        let synth = rec(Source::Synth, 0.5, "2026-03-01T00:00:00Z");
        assert!(
            (recency(&synth, now) - (-1.0f32).exp()).abs() < 1e-4,
            "30 days = 1/e"
        );
        assert_eq!(
            recency(&rec(Source::User, 0.5, "2020-01-01T00:00:00Z"), now),
            1.0
        );
        assert_eq!(
            recency(&rec(Source::Import, 0.5, "2020-01-01T00:00:00Z"), now),
            1.0
        );
        let mut recalled = synth.clone();
        recalled.last_recalled_at = Some(now);
        assert_eq!(recency(&recalled, now), 1.0, "a recall refreshes recency");
    }

    #[test]
    fn blend_is_half_relevance_three_tenths_recency_one_fifth_importance() {
        let now = at("2026-03-01T00:00:00Z");
        let r = [rec(Source::User, 0.5, "2026-03-01T00:00:00Z")];
        let s = rank(&r, &[sig(0.0, Some(0.6))], &MINILM_L6, true, now);
        assert!((s[0].score - (0.5 * 0.6 + 0.3 * 1.0 + 0.2 * 0.5)).abs() < 1e-6);
        // Words add to meaning: relevance = cosine + 0.5 × share for MiniLM.
        let s = rank(&r, &[sig(0.4, Some(0.5))], &MINILM_L6, true, now);
        assert!((s[0].relevance - 0.7).abs() < 1e-6);
        // Without embeddings, relevance is the word share itself.
        let s = rank(&r, &[sig(0.4, None)], &LEXICAL, true, now);
        assert!((s[0].relevance - 0.4).abs() < 1e-6);
    }

    #[test]
    fn gate_depends_on_the_model_and_on_whom_the_message_is_about() {
        let now = at("2026-03-01T00:00:00Z");
        let r = vec![rec(Source::User, 0.5, "2026-03-01T00:00:00Z"); 4];
        let signals = [
            sig(0.0, Some(0.35)), // a paraphrase
            sig(0.3, Some(0.05)), // one shared word, unrelated meaning
            sig(0.8, Some(0.5)),  // words and meaning
            sig(0.0, Some(0.1)),  // nothing
        ];
        use Gate::{Rejected, Similar};
        assert_eq!(
            gates_of(&rank(&r, &signals, &MINILM_L6, true, now)),
            vec![Similar, Rejected, Similar, Rejected]
        );
        assert_eq!(
            gates_of(&rank(&r, &signals, &MINILM_L6, false, now)),
            vec![Rejected, Rejected, Similar, Rejected]
        );
        // An uncalibrated model is stricter: the paraphrase at 0.35 does not pass.
        assert_eq!(
            gates_of(&rank(&r, &signals, &DEFAULT, true, now)),
            vec![Rejected, Rejected, Similar, Rejected]
        );
        // Lexical: shares only.
        let lex = [sig(0.15, None), sig(0.3, None), sig(0.0, None)];
        assert_eq!(
            gates_of(&rank(&r[..3], &lex, &LEXICAL, true, now)),
            vec![Gate::SharedWord, Gate::SharedWord, Rejected]
        );
        assert_eq!(
            gates_of(&rank(&r[..3], &lex, &LEXICAL, false, now)),
            vec![Rejected, Rejected, Rejected]
        );
    }

    #[test]
    fn gated_candidates_come_first_then_by_score() {
        let now = at("2026-03-01T00:00:00Z");
        let r = vec![
            rec(Source::User, 1.0, "2026-03-01T00:00:00Z"),
            rec(Source::User, 0.1, "2026-03-01T00:00:00Z"),
            rec(Source::User, 0.9, "2026-03-01T00:00:00Z"),
        ];
        let s = rank(
            &r,
            &[sig(0.0, None), sig(0.5, None), sig(0.5, None)],
            &LEXICAL,
            true,
            now,
        );
        let order: Vec<usize> = s.iter().map(|x| x.index).collect();
        assert_eq!(order, vec![2, 1, 0]);
    }

    #[test]
    fn constraints_take_places_among_the_six_at_most_their_cap() {
        let now = at("2026-03-01T00:00:00Z");
        let r = vec![rec(Source::User, 0.5, "2026-03-01T00:00:00Z"); 12];
        // Seven facts through the gate, five constraints outside it.
        let mut signals: Vec<Signals> = (0..7).map(|_| sig(0.9, None)).collect();
        for label in [
            Label::Diet,
            Label::Diet,
            Label::Health,
            Label::Diet,
            Label::Budget,
        ] {
            signals.push(Signals {
                constraint: Some(label),
                ..sig(0.0, None)
            });
        }
        let mut ranked = rank(&r, &signals, &LEXICAL, true, now);
        assert_eq!(
            ranked.iter().filter(|s| s.gate == Gate::Constraint).count(),
            5
        );
        make_room_for_constraints(&mut ranked, &[Label::Budget]);
        let top: Vec<Gate> = ranked[..MAX_FACTS].iter().map(|s| s.gate).collect();
        let held = top.iter().filter(|g| **g == Gate::Constraint).count();
        assert_eq!(held, CONSTRAINT_FACTS.min(MAX_FACTS), "{top:?}");
        assert_eq!(
            ranked.iter().filter(|s| s.gate == Gate::Constraint).count(),
            CONSTRAINT_FACTS,
            "the others beyond the cap are rejected"
        );
        // The kind the message named goes first.
        let first = ranked.iter().find(|s| s.gate == Gate::Constraint).unwrap();
        assert_eq!(first.constraint, Some(Label::Budget));
    }

    /// A constraint through the gate on its own keeps its place among the six: it is not pushed
    /// down below constraint-only ones of its kind ("Tu peux me proposer un dessert aux
    /// cacahuètes ?" lost "Je suis allergique aux arachides." to four other allergies).
    #[test]
    fn a_constraint_through_the_gate_is_not_pushed_down() {
        let now = at("2026-03-01T00:00:00Z");
        let r = vec![rec(Source::User, 0.5, "2026-03-01T00:00:00Z"); 8];
        let mut signals = vec![sig(0.95, None), sig(0.9, None)];
        signals.push(Signals {
            constraint: Some(Label::Allergy),
            ..sig(0.8, None)
        });
        for _ in 0..5 {
            signals.push(Signals {
                constraint: Some(Label::Allergy),
                ..sig(0.0, None)
            });
        }
        let mut ranked = rank(&r, &signals, &LEXICAL, true, now);
        make_room_for_constraints(&mut ranked, &[Label::Allergy]);
        let top: Vec<usize> = ranked[..MAX_FACTS].iter().map(|s| s.index).collect();
        assert_eq!(
            &top[..3],
            &[0, 1, 2],
            "the gated ones keep their order: {top:?}"
        );
        assert_eq!(
            ranked.iter().filter(|s| s.gate == Gate::Constraint).count(),
            CONSTRAINT_FACTS - 1,
            "the one through the gate takes a constraint's place"
        );
    }

    #[test]
    fn first_person_questions() {
        for (q, want) in [
            ("what is my name?", true),
            ("Do I have a cat", true),
            ("remind me where I work", true),
            ("my printer is broken", false),
            ("what is the capital of France?", false),
            ("How tall is Everest?", false),
            ("how do I center a div in CSS?", false),
        ] {
            assert_eq!(is_first_person_question(q), want, "{q}");
        }
    }
}
