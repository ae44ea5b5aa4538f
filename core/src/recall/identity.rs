//! The questions users ask first, who they are, where they live, what they do, what they are
//! working on, and the facts that answer them, both recognised by rule: "what is my name?"
//! shares no word with "User is Priya, a nurse in Leeds", so such a question brings in the
//! facts of its kind whatever their words. The cues of name, home and work are every reader's
//! (`language::reader`, [`kinds`]); what the user is working on is asked in English only.

use serde::Serialize;

use std::sync::OnceLock;

use super::constraint::spaced;
use crate::language::reader::{Cues, Identity, READERS};
use crate::words::fold;

/// What an identity question asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Asked {
    Name,
    Home,
    Work,
    Projects,
}

impl Asked {
    pub fn as_str(self) -> &'static str {
        match self {
            Asked::Name => "name",
            Asked::Home => "home",
            Asked::Work => "work",
            Asked::Projects => "projects",
        }
    }
}

/// One kind: the questions that ask it (phrases of the folded message, whole words) and the
/// phrases of a fact that answer it.
struct Kind {
    asked: Asked,
    questions: &'static [&'static str],
    answers: &'static [&'static str],
}

/// The kinds only English asks (what the user is working on); the others are every reader's
/// ([`kinds`]).
const ENGLISH_ONLY: &[Kind] = &[Kind {
    asked: Asked::Projects,
    questions: &[
        "what am i working on",
        "what am i building",
        "what are my projects",
        "what's my project",
        "what is my project",
        "what project am i",
        "what am i making",
        "what side project",
    ],
    answers: &[
        "working on",
        "i'm building",
        "i am building",
        "user is building",
        "side project",
        "my project",
        "user's project",
        "i'm developing",
        "user is developing",
        "i'm writing a",
        "user is writing a",
    ],
}];

/// Words that may follow a question of [`kinds`] and keep it that question ("what's my name
/// again?", "where do I live now?"); any other word makes it another question ("who am I
/// talking to?", "where do I live stream from?").
const TAIL: &[&str] = &[
    "now",
    "again",
    "these",
    "currently",
    "exactly",
    "today",
    "then",
    "actually",
    "anyway",
    "please",
    "btw",
    "lol",
    "do",
    "you",
    "remember",
    "know",
    "and",
    "or",
    "right",
];

/// Every kind with its cues: each reader's name, home and work questions and answers (a
/// question's words as `tokens` gives them, "est-ce" two words), then [`ENGLISH_ONLY`].
fn kinds() -> &'static [Kind] {
    static KINDS: OnceLock<Vec<Kind>> = OnceLock::new();
    KINDS.get_or_init(|| {
        let gather = |pick: fn(&'static Identity) -> &'static Cues, asked: Asked| {
            let cues = || READERS.iter().map(move |r| pick(&r.identity));
            Kind {
                asked,
                questions: leak(cues().flat_map(|c| c.asked.iter()).map(|q| as_words(q))),
                answers: leak(cues().flat_map(|c| c.told.iter().copied())),
            }
        };
        let mut kinds = vec![
            gather(|i| &i.name, Asked::Name),
            gather(|i| &i.home, Asked::Home),
            gather(|i| &i.work, Asked::Work),
        ];
        kinds.extend(ENGLISH_ONLY.iter().map(|k| Kind { ..*k }));
        kinds
    })
}

/// A value the user holds one at a time, as a fact states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// Where they live now.
    Home,
    /// Who they work for.
    Employer,
}

/// Every reader's phrases of a value held one at a time, with what each states: a spaced one
/// with a space at each end (matched on whole words), one in letters without spaces as written.
fn one_at_a_time() -> &'static [(Held, String)] {
    static PHRASES: OnceLock<Vec<(Held, String)>> = OnceLock::new();
    PHRASES.get_or_init(|| {
        let as_matched = |p: &str| {
            if p.chars().any(crate::words::is_cjk) {
                p.to_string()
            } else {
                format!(" {p} ")
            }
        };
        READERS
            .iter()
            .flat_map(|r| {
                let o = &r.identity.one_at_a_time;
                let home = o.home.iter().map(|p| (Held::Home, *p));
                home.chain(o.employer.iter().map(|p| (Held::Employer, *p)))
            })
            .map(|(held, p)| (held, as_matched(p)))
            .collect()
    })
}

/// What value held one at a time `fact` states, if one ("User moved to Leith", "Vivo en
/// Valencia", "Ich arbeite bei Zeiss"): of two facts stating one, the later replaces the other.
pub fn held(fact: &str) -> Option<Held> {
    let line = spaced(fact).line;
    let unspaced = fold(fact);
    one_at_a_time().iter().find_map(|(held, p)| {
        let says = if p.starts_with(' ') {
            line.contains(p.as_str())
        } else {
            in_order(&unspaced, p)
        };
        says.then_some(*held)
    })
}

/// Whether `text` holds the pieces of `phrase` in order, "…" standing for anything between
/// ("我在…上班": "我在百度上班", not "我妹妹在谷歌上班").
fn in_order(text: &str, phrase: &str) -> bool {
    let mut rest = text;
    phrase.split('…').all(|piece| match rest.find(piece) {
        Some(at) => {
            rest = &rest[at + piece.len()..];
            true
        }
        None => false,
    })
}

/// A gathered list, kept for the life of the process.
fn leak(items: impl Iterator<Item = &'static str>) -> &'static [&'static str] {
    Vec::leak(items.collect())
}

/// A question as the words `tokens` gives it ("où est-ce que j'habite" → "où est ce que
/// j'habite"); one in letters without spaces stays as written, matched inside the message.
fn as_words(q: &'static str) -> &'static str {
    if q.chars().any(crate::words::is_cjk) {
        return q;
    }
    String::leak(crate::words::tokens(q).join(" "))
}

/// What the message asks of the user's identity, if it asks ("what's my name?", "where do I
/// live?", "wie heiße ich?"): a question of the table, as whole words, followed by nothing or
/// by [`TAIL`] words; in Chinese, Japanese or Korean letters, anywhere in the message.
pub fn asked(message: &str) -> Option<Asked> {
    let line = spaced(message).line;
    let folded = fold(message);
    kinds().iter().find_map(|k| {
        k.questions
            .iter()
            .any(|q| {
                if q.chars().any(crate::words::is_cjk) {
                    return folded.contains(q);
                }
                let q = format!(" {q} ");
                line.match_indices(&q).any(|(at, _)| {
                    line[at + q.len()..]
                        .split_whitespace()
                        .next()
                        .is_none_or(|w| TAIL.contains(&w))
                })
            })
            .then_some(k.asked)
    })
}

/// The kinds of identity question a fact answers.
pub fn answers(fact: &str) -> Vec<Asked> {
    let line = spaced(fact).line;
    let unspaced = fold(fact);
    let mut out: Vec<Asked> = kinds()
        .iter()
        .filter(|k| {
            k.answers.iter().any(|a| {
                if a.chars().any(crate::words::is_cjk) {
                    unspaced.contains(a)
                } else {
                    line.contains(&format!(" {a} "))
                }
            })
        })
        .map(|k| k.asked)
        .collect();
    // "User is Priya, a nurse in Leeds": a name, and where they are.
    if let Some(rest) = line.strip_prefix(" user is ")
        && named_after_is(fact)
    {
        out.push(Asked::Name);
        if rest.contains(" in ") {
            out.push(Asked::Home);
        }
    }
    out.dedup();
    out
}

/// Whether `fact` opens "User is" followed by a name in capitals ("User is Priya, …"), not an
/// article or a lower-case word.
fn named_after_is(fact: &str) -> bool {
    let mut words = fact.split_whitespace();
    let (Some(user), Some(is), Some(next)) = (words.next(), words.next(), words.next()) else {
        return false;
    };
    user.eq_ignore_ascii_case("user")
        && is == "is"
        && next.chars().next().is_some_and(char::is_uppercase)
        && !matches!(next, "A" | "An" | "The")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_questions_and_their_near_misses() {
        for (q, want) in [
            ("What is my name?", Some(Asked::Name)),
            ("what's my name", Some(Asked::Name)),
            ("who am I?", Some(Asked::Name)),
            ("Where do I live?", Some(Asked::Home)),
            ("what do I do for a living?", Some(Asked::Work)),
            // Issue #50: "What do I do?" asks the work; "… about my cough" or "… for fun" do
            // not.
            ("What do I do?", Some(Asked::Work)),
            ("what do I do about my cough?", None),
            ("what do I do for fun", None),
            ("What am I working on these days?", Some(Asked::Projects)),
            ("what is a good name for my cat?", None),
            ("who am i talking to", None),
            ("where do i live stream from my phone?", None),
            ("what's my name again?", Some(Asked::Name)),
            ("What's the weather?", None),
        ] {
            assert_eq!(asked(q), want, "{q}");
        }
    }

    /// Issue #50: identity questions in every read language, and near misses that ask
    /// something else.
    #[test]
    fn identity_questions_in_every_read_language() {
        for (q, want) in [
            ("Où est-ce que j'habite ?", Some(Asked::Home)),
            ("Comment je m'appelle ?", Some(Asked::Name)),
            ("¿A qué me dedico?", Some(Asked::Work)),
            ("¿Cómo me llamo?", Some(Asked::Name)),
            ("Wie heiße ich?", Some(Asked::Name)),
            ("Come mi chiamo?", Some(Asked::Name)),
            ("Onde eu moro?", Some(Asked::Home)),
            ("Waar woon ik?", Some(Asked::Home)),
            ("Siapa nama saya?", Some(Asked::Name)),
            ("我叫什么名字？", Some(Asked::Name)),
            ("私の名前は何ですか？", Some(Asked::Name)),
            ("제 이름이 뭐예요?", Some(Asked::Name)),
            ("Which company do I work for?", Some(Asked::Work)),
            ("¿En qué empresa trabajo?", Some(Asked::Work)),
            (
                "Pour quelle entreprise est-ce que je travaille ?",
                Some(Asked::Work),
            ),
            ("Comment je m'appelle mon chat ?", None),
            ("我叫了外卖", None),
        ] {
            assert_eq!(asked(q), want, "{q}");
        }
        assert_eq!(answers("私の名前はさくらです"), [Asked::Name]);
        assert_eq!(answers("Ich wohne in Bremen"), [Asked::Home]);
        assert_eq!(answers("Me dedico a la enfermería"), [Asked::Work]);
        assert_eq!(answers("서울에 살고 있어요"), [Asked::Home]);
    }

    #[test]
    fn values_held_one_at_a_time() {
        for (fact, want) in [
            ("User moved to Leith in August 2026", Some(Held::Home)),
            ("User lives in Edinburgh", Some(Held::Home)),
            ("Me mudé a Valencia en septiembre.", Some(Held::Home)),
            ("J'habite à Lyon depuis cinq ans.", Some(Held::Home)),
            ("我住在上海", Some(Held::Home)),
            ("User works at Zeiss now", Some(Held::Employer)),
            (
                "Ahora trabajo en Glovo, en el equipo de datos.",
                Some(Held::Employer),
            ),
            ("Ich arbeite bei Zeiss in Jena", Some(Held::Employer)),
            ("我在百度上班", Some(Held::Employer)),
            // Someone else's home or work is not the user's.
            ("User's sister lives in Manchester", None),
            ("我妹妹在谷歌上班", None),
            ("Mein Bruder ist nach Berlin umgezogen", None),
            // Where from, what as, and a thing that lives somewhere are no such values.
            ("User is from Porto", None),
            ("User works as a nurse", None),
            ("User's sister Ana lives abroad", None),
        ] {
            assert_eq!(held(fact), want, "{fact}");
        }
    }

    #[test]
    fn facts_by_the_kind_of_question_they_answer() {
        assert_eq!(
            answers("User is Priya, a nurse in Leeds"),
            [Asked::Name, Asked::Home]
        );
        assert_eq!(answers("User's name is Priya"), [Asked::Name]);
        assert_eq!(answers("My name is Dara Whitlock"), [Asked::Name]);
        assert_eq!(answers("User moved to Edinburgh in May"), [Asked::Home]);
        assert_eq!(answers("User's new flat is in Leith"), [Asked::Home]);
        assert_eq!(answers("User works as a nurse"), [Asked::Work]);
        assert_eq!(
            answers("User is building a budgeting app in Rust"),
            [Asked::Projects]
        );
        assert!(answers("User's dog is called Rex").is_empty());
        assert!(answers("User is vegetarian").is_empty());
        assert_eq!(
            answers("me llamo Lucía y trabajo como enfermera"),
            [Asked::Name, Asked::Work]
        );
    }
}
