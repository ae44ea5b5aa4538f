//! The named rules that drop a clause of what the user typed, each with the reason a user reads,
//! and the verdict on every clause a pass read: kept (as what) or dropped (by which rule, on
//! which listed word). `memory consolidate --explain` prints the verdicts; the pass report
//! carries them as `explained`.

use serde::{Deserialize, Serialize};

/// A rule that drops a clause. The order is the order `disclose` asks them in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The message talks about instructions or memory.
    Meta,
    /// A sentence that asks.
    Question,
    /// A secret (a PIN, a password, a key, a card or account number).
    Secret,
    TooShort,
    TooLong,
    /// A first-person word but no subject ("checking my email").
    NoSubject,
    /// Addressed to the assistant ("you").
    Addressed,
    /// Brackets or braces: a template placeholder or markup.
    Placeholder,
    /// "I'm going to …" with no time.
    PlanWithoutTime,
    /// Opens as a hedge, a wish, a reaction or the moment ("I think", "I'm glad").
    Opening,
    /// A request that names nothing but what it asks for ("I need some advice").
    RequestOnly,
    /// A word that makes it hypothetical or not lasting ("if", "would", "today").
    NotFactual,
    /// Opens with a question word.
    QuestionWord,
    /// "One time I …".
    Anecdote,
    /// "both …" without which two.
    Both,
    /// "mine", "yours": a noun said before.
    StandsFor,
    /// "better" without "than".
    Comparison,
    /// "some more …".
    SomeMore,
    /// "I've never had the time" (to do what?).
    ElidedInfinitive,
    /// "I was a kid", alone.
    Childhood,
    /// Ends where its object was cut off ("my favorite song is").
    CutOff,
    /// "I've never met a …": a reply to what the assistant is.
    NeverMet,
    /// "I'm too scared" (for what?).
    TooWhat,
    /// "two of my own" (own what?).
    OfMyOwn,
    /// "I love the lyrics" (of what?).
    Aspect,
    /// A state of the moment ("I'm fine").
    Passing,
    /// "I have a few": the noun was in the turn before.
    BareNoun,
    /// Ends on a word whose complement was left out.
    Elided,
    /// Nothing after the verb names anything.
    Vague,
    /// The verb alone ("I learned a lot").
    VerbAlone,
    /// Its subject is a pronoun for something said elsewhere ("they're great").
    PointingSubject,
    /// A favorite of a kind nobody named.
    FavoriteOfNothing,
    /// "that game": a determiner pointing at the turn before.
    Determiner,
    /// A pronoun with nothing to point at ("I drew it").
    Unresolved,
    /// Said already in this pass.
    Repeated,
    /// Its pronoun points into the clause before, and it is kept as one fact with it.
    WithTheClauseBefore,
}

impl Rule {
    /// The rule's name, as the report and the expected-outcome files spell it.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Meta => "meta",
            Rule::Question => "question",
            Rule::Secret => "secret",
            Rule::TooShort => "too_short",
            Rule::TooLong => "too_long",
            Rule::NoSubject => "no_subject",
            Rule::Addressed => "addressed",
            Rule::Placeholder => "placeholder",
            Rule::PlanWithoutTime => "plan_without_time",
            Rule::Opening => "opening",
            Rule::RequestOnly => "request_only",
            Rule::NotFactual => "not_factual",
            Rule::QuestionWord => "question_word",
            Rule::Anecdote => "anecdote",
            Rule::Both => "both",
            Rule::StandsFor => "stands_for",
            Rule::Comparison => "comparison",
            Rule::SomeMore => "some_more",
            Rule::ElidedInfinitive => "elided_infinitive",
            Rule::Childhood => "childhood",
            Rule::CutOff => "cut_off",
            Rule::NeverMet => "never_met",
            Rule::TooWhat => "too_what",
            Rule::OfMyOwn => "of_my_own",
            Rule::Aspect => "aspect",
            Rule::Passing => "passing",
            Rule::BareNoun => "bare_noun",
            Rule::Elided => "elided",
            Rule::Vague => "vague",
            Rule::VerbAlone => "verb_alone",
            Rule::PointingSubject => "pointing_subject",
            Rule::FavoriteOfNothing => "favorite_of_nothing",
            Rule::Determiner => "determiner",
            Rule::Unresolved => "unresolved",
            Rule::Repeated => "repeated",
            Rule::WithTheClauseBefore => "with_the_clause_before",
        }
    }

    /// Why the rule drops a clause, as a user reads it.
    pub fn why(self) -> &'static str {
        match self {
            Rule::Meta => "talks about instructions or memory",
            Rule::Question => "a question, not a statement",
            Rule::Secret => "holds a secret, which is never stored",
            Rule::TooShort => "too short to state a fact",
            Rule::TooLong => "too long to be one fact",
            Rule::NoSubject => "no subject of its own: a fragment of a sentence",
            Rule::Addressed => "addressed to the assistant",
            Rule::Placeholder => "a template placeholder or markup",
            Rule::PlanWithoutTime => "a moment in the chat, not a plan with a time",
            Rule::Opening => "opens as a hedge, a wish, a reaction or the moment",
            Rule::RequestOnly => "a request that says nothing about the user",
            Rule::NotFactual => "hypothetical, a request, or of today only",
            Rule::QuestionWord => "opens like a question",
            Rule::Anecdote => "an anecdote, not a standing fact",
            Rule::Both => "'both' without saying which",
            Rule::StandsFor => "a possessive standing for a noun said elsewhere",
            Rule::Comparison => "a comparison without its other half",
            Rule::SomeMore => "'more' than something said elsewhere",
            Rule::ElidedInfinitive => "what it had no time or chance for was said elsewhere",
            Rule::Childhood => "childhood alone: the fact was in the rest of the sentence",
            Rule::CutOff => "cut off before its object",
            Rule::NeverMet => "a reply to what the assistant said it is",
            Rule::TooWhat => "'too' much for something said elsewhere",
            Rule::OfMyOwn => "'of my own' without of what",
            Rule::Aspect => "an aspect of a thing named elsewhere",
            Rule::Passing => "a state of the moment",
            Rule::BareNoun => "the noun it needs was in another turn",
            Rule::Elided => "its complement was left out",
            Rule::Vague => "nothing after the verb names anything",
            Rule::VerbAlone => "the verb alone says nothing that lasts",
            Rule::PointingSubject => "its subject points at something said elsewhere",
            Rule::FavoriteOfNothing => "a favorite of a kind nobody named",
            Rule::Determiner => "'that …' points at another turn",
            Rule::Unresolved => "a pronoun with nothing to point at",
            Rule::Repeated => "said already in this pass",
            Rule::WithTheClauseBefore => {
                "kept as one fact with the clause before, which it points into"
            }
        }
    }

    /// The rule of a name ([`Rule::name`]).
    pub fn from_name(name: &str) -> Option<Rule> {
        ALL.iter().copied().find(|r| r.name() == name)
    }
}

/// Every rule, in the order they are asked.
pub const ALL: &[Rule] = &[
    Rule::Meta,
    Rule::Question,
    Rule::Secret,
    Rule::TooShort,
    Rule::TooLong,
    Rule::NoSubject,
    Rule::Addressed,
    Rule::Placeholder,
    Rule::PlanWithoutTime,
    Rule::Opening,
    Rule::RequestOnly,
    Rule::NotFactual,
    Rule::QuestionWord,
    Rule::Anecdote,
    Rule::Both,
    Rule::StandsFor,
    Rule::Comparison,
    Rule::SomeMore,
    Rule::ElidedInfinitive,
    Rule::Childhood,
    Rule::CutOff,
    Rule::NeverMet,
    Rule::TooWhat,
    Rule::OfMyOwn,
    Rule::Aspect,
    Rule::Passing,
    Rule::BareNoun,
    Rule::Elided,
    Rule::Vague,
    Rule::VerbAlone,
    Rule::PointingSubject,
    Rule::FavoriteOfNothing,
    Rule::Determiner,
    Rule::Unresolved,
    Rule::Repeated,
    Rule::WithTheClauseBefore,
];

/// A clause dropped: the rule, and the listed word or phrase it matched, when a list decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    pub rule: Rule,
    pub matched: Option<&'static str>,
}

impl Dropped {
    pub fn by(rule: Rule) -> Dropped {
        Dropped {
            rule,
            matched: None,
        }
    }

    pub fn on(rule: Rule, matched: &'static str) -> Dropped {
        Dropped {
            rule,
            matched: Some(matched),
        }
    }
}

/// The verdict on one clause the pass read, as the report carries it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Explained {
    pub session: String,
    pub line: usize,
    /// The clause as split from the message.
    pub clause: String,
    /// The clause kept, as it goes to the rewrite (pronouns resolved, filler trimmed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
    /// The rule that dropped it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<Rule>,
    /// The rule's reason, for a reader.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The listed word or phrase the rule matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched: Option<String>,
}

impl Explained {
    pub fn kept(session: &str, line: usize, clause: &str, kept: &str) -> Explained {
        Explained {
            session: session.to_string(),
            line,
            clause: clause.to_string(),
            kept: Some(kept.to_string()),
            rule: None,
            why: None,
            matched: None,
        }
    }

    pub fn dropped(session: &str, line: usize, clause: &str, d: &Dropped) -> Explained {
        Explained {
            session: session.to_string(),
            line,
            clause: clause.to_string(),
            kept: None,
            rule: Some(d.rule),
            why: Some(d.rule.why().to_string()),
            matched: d.matched.map(str::to_string),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_listed_once_with_a_name_and_a_reason() {
        let mut names: Vec<&str> = ALL.iter().map(|r| r.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALL.len());
        for r in ALL {
            assert_eq!(Rule::from_name(r.name()), Some(*r));
            assert!(!r.why().is_empty());
            let json = serde_json::to_string(r).unwrap();
            assert_eq!(json, format!("\"{}\"", r.name()));
        }
    }
}
