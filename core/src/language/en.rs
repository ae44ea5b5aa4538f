//! English, as memory reads it. The clause engine (`consolidate::disclose`) reads far more of
//! English than a reader's parts (its own lists are `consolidate::lexicon`'s); the parts every
//! language shares are defined here, and the engine reads its passing states and weekdays from
//! here too.

use super::Lang;
use super::reader::{Reader, Times, Unsaid};
use crate::words::{FIRST_PERSON_SUBJECTS, SECOND_PERSON, STOP_WORDS};

pub const READER: Reader = Reader {
    lang: Lang::English,
    first_person: FIRST_PERSON_SUBJECTS,
    first_person_openings: &["i'"],
    unsaid_subject: Unsaid::Said,
    you: SECOND_PERSON,
    listener_openers: &[
        "you know what",
        "guess what",
        "fun fact",
        "let me tell you",
        "i gotta tell you",
    ],
    passing: PASSING,
    grammar: STOP_WORDS,
    secret_names: &[
        "password",
        "passwords",
        "passcode",
        "passphrase",
        "pin",
        "pin code",
        "door code",
        "wifi key",
    ],
    times: Times {
        days: &[("today", 0), ("tonight", 0), ("tomorrow", 1)],
        weeks: &[("this week", 0), ("next week", 1)],
        weekdays: [
            &["monday"],
            &["tuesday"],
            &["wednesday"],
            &["thursday"],
            &["friday"],
            &["saturday"],
            &["sunday"],
        ],
        habits: &["every", "each", "usually", "always"],
    },
};

/// States of the moment: "I'm stuck" says nothing that lasts.
pub const PASSING: &[&str] = &[
    "fine",
    "good",
    "great",
    "back",
    "done",
    "sure",
    "lost",
    "confused",
    "stuck",
    "tired",
    "glad",
    "happy",
    "sorry",
    "ready",
    "busy",
    "bored",
    "curious",
    "excited",
    "worried",
    "afraid",
    "aware",
    "agree",
    "see",
    "wondering",
    "trying",
    "asking",
    "thinking",
    "guessing",
    "mad",
    "annoyed",
    "frustrated",
    "late",
    "home",
    "away",
    "free",
    "new",
    "confident",
    "fun",
    "interested",
    "well",
    "alright",
    "okay",
    "jealous",
    "impressed",
    "surprised",
    "appreciate",
    "welcome",
    "same",
    "nice",
    "cool",
    "true",
    "nervous",
    "scared",
    "serious",
];

/// The days of the week, from Monday.
pub const WEEKDAYS: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];
