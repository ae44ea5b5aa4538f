//! The questions users ask first, who they are, where they live, what they do, what they are
//! working on, and the facts that answer them, both recognised by rule: "what is my name?"
//! shares no word with "User is Priya, a nurse in Leeds", so such a question brings in the
//! facts of its kind whatever their words. One table of cues per kind ([`KINDS`]), English, with
//! the first person of the languages memory keeps as typed.

use serde::Serialize;

use super::constraint::spaced;
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

const KINDS: &[Kind] = &[
    Kind {
        asked: Asked::Name,
        questions: &[
            "what is my name",
            "what's my name",
            "whats my name",
            "who am i",
            "do you know my name",
            "do you remember my name",
            "what am i called",
            "what do you call me",
            "what was my name",
        ],
        answers: &[
            "my name is",
            "user's name is",
            "user is called",
            "i am called",
            "i'm called",
            "me llamo",
            "je m'appelle",
            "mi chiamo",
            "ich heiße",
            "我叫",
            "我的名字",
        ],
    },
    Kind {
        asked: Asked::Home,
        questions: &[
            "where do i live",
            "where am i living",
            "where am i from",
            "where is my home",
            "where's my home",
            "which city do i live",
            "what city do i live",
            "where is my flat",
            "where's my flat",
            "where is my apartment",
            "where is my house",
            "where did i move",
        ],
        answers: &[
            "i live in",
            "i live on",
            "user lives",
            "lives in",
            "moved to",
            "i'm from",
            "i am from",
            "user is from",
            "grew up in",
            "flat is in",
            "house is in",
            "apartment is in",
            "home is in",
            "based in",
            "relocated to",
            "vivo en",
            "j'habite",
            "ich wohne",
            "住在",
        ],
    },
    Kind {
        asked: Asked::Work,
        questions: &[
            "what do i do",
            "what do i do for a living",
            "what do i do for work",
            "what is my job",
            "what's my job",
            "what do i work as",
            "what is my profession",
            "what's my profession",
            "what is my occupation",
            "who do i work for",
            "where do i work",
            "what's my job title",
            "what is my job title",
        ],
        answers: &[
            "i work",
            "user works",
            "works as",
            "works at",
            "works for",
            "my job",
            "user's job",
            "job is",
            "employed",
            "by profession",
            "my profession",
            "trabajo como",
            "je travaille",
            "ich arbeite",
            "lavoro come",
        ],
    },
    Kind {
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
    },
];

/// Words that may follow a question of [`KINDS`] and keep it that question ("what's my name
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

/// What the message asks of the user's identity, if it asks ("what's my name?", "where do I
/// live?"): a question of the table, as whole words, followed by nothing or by [`TAIL`] words.
pub fn asked(message: &str) -> Option<Asked> {
    let line = spaced(message).line;
    KINDS.iter().find_map(|k| {
        k.questions
            .iter()
            .any(|q| {
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
    let mut out: Vec<Asked> = KINDS
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
