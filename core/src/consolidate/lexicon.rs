//! The lexicon of consolidation's rules: every word list the rules that find, drop and rewrite
//! the user's self-disclosures read (disclose, relative, elsewhere, answer, person), the guards'
//! and the summaries', in one place, each with what it is for. The classes recall and the
//! secret detector share, the first and second person and the numbers, are `crate::words`'. A rule names the list it
//! matched, so "why was this dropped?" has an answer (`rules`).

// ---- disclose

// The first person and the numbers are `crate::words`' classes (`is_first_person`,
// `FIRST_PERSON_SUBJECTS`, `number_value`), shared with recall: defined once there.

/// Clause openings (after filler words) that are not disclosures: hedges, wishes, requests,
/// reactions and what the user is doing at this moment in the chat.
pub(crate) const NOT_A_DISCLOSURE: &[&str] = &[
    "i think",
    "i guess",
    "i bet",
    "i wonder",
    "i was wondering",
    "i want you",
    "i want to know",
    "i want to ask",
    "i wanted to ask",
    "i've been meaning to ask",
    "i meant to ask",
    "i was going to ask",
    "i want to see",
    "i want to hear",
    "i want to try",
    "i want to make sure",
    "i want it",
    "i want that",
    "i'd",
    "i'm off",
    "i'm done",
    "i'm meeting",
    "i'm heading",
    "i'm about to",
    "i'm on my way",
    "i'm doing",
    "i'm here",
    "i'm glad",
    "i'm sure",
    "i'm happy to",
    "i'm excited",
    "i'm so excited",
    "i'm up for",
    "i'm happy",
    "i'm lucky",
    "i'm impressed",
    "i'm jealous",
    "i'm watching",
    "i'm making",
    "i'm eating",
    "i'm having",
    "i'm sitting",
    "i'm waiting",
    "i'm drinking",
    "i'm listening",
    "i'm taking",
    "i'm reading",
    "i'm cooking",
    "i'm feeling",
    "i feel",
    "i felt",
    "i hear",
    "i heard",
    "i've heard",
    "i have heard",
    "i've never heard",
    "i can imagine",
    "i can see",
    "i can tell",
    "i forgot",
    "i wish",
    "i will",
    "i promise",
    "i believe",
    "i suppose",
    "i must say",
    "i have to",
    "i gotta",
    "i love to hear",
    "i love hearing",
    "i love talking",
    "i enjoyed talking",
    "i had fun",
    "i had a great",
    "i'm a big fan of both",
    "i would",
    "i could",
    "i should",
    "i don't know",
    "i dont know",
    "i'm not sure",
    "im not sure",
    "i have a question",
    "i see",
    "i hope",
    "i mean",
    "i tried",
    "i'm getting",
    "i keep getting",
    "i can't",
    "i cant",
    "i didn't know",
    "i appreciate",
    "i'm curious",
    "i'm asking",
    "i'll",
    "i'm sorry",
    "i know",
    "i understand",
    "i agree",
    "i love that",
    "i like that",
    "i apologize",
    "i apologise",
    "i ran",
    "i changed",
    "i fixed",
    "i did",
    "my question",
    "my bad",
    "sounds like",
    "seems like",
    "looks like",
    "remember",
    "note that",
    "store",
    "save",
];

/// Openings (as [`NOT_A_DISCLOSURE`]'s) that take up what the assistant offered: a reaction to
/// it ("I like the idea of velvet pillows", "I love the sound of the saffron gin fizz") or a
/// request to hear more of it. What the next clause says of it ("… since I just got my coffee
/// table from them") makes the two one fact, as after a request.
pub(crate) const TAKING_UP: &[&str] = &[
    "i like the idea",
    "i love the idea",
    "i especially like the idea",
    "i like the sound",
    "i love the sound",
    "i'm interested in learning more",
    "i'm interested in hearing more",
    "i'm interested in exploring more",
    "i'm open to",
];

/// Openings of a request that may carry a fact ("I'm looking for a screen protector for my
/// iPhone 13 Pro", "I need to add my Data Science certification"): kept unless what follows
/// names nothing but what is asked for ([`REQUEST_NOUNS`]).
pub(crate) const REQUEST_OPENINGS: &[&str] = &[
    "i need",
    "i'm looking for",
    "i am looking for",
    "i'm thinking",
    "i was thinking",
    "i've been thinking",
    "i'm trying",
    "i want",
    "i'd like",
    "i would like",
];

/// What a request asks for, naming nothing about the user ("I need some advice"): a request
/// whose object is one of these (after [`REQUEST_MODIFIERS`]) is dropped.
pub(crate) const REQUEST_NOUNS: &[&str] = &[
    "help",
    "advice",
    "tip",
    "tips",
    "idea",
    "ideas",
    "suggestion",
    "suggestions",
    "recommendation",
    "recommendations",
    "information",
    "info",
    "guidance",
    "resource",
    "resources",
    "way",
    "ways",
    "option",
    "options",
    "inspiration",
    "input",
    "feedback",
    "hand",
    "assistance",
    "answer",
    "answers",
    "example",
    "examples",
    "know",
    "understand",
    "figure",
    "something",
    "anything",
];

/// Words before a request's object that say nothing of it ("some good tips").
pub(crate) const REQUEST_MODIFIERS: &[&str] = &[
    "some",
    "any",
    "a",
    "an",
    "the",
    "few",
    "good",
    "great",
    "best",
    "new",
    "more",
    "little",
    "bit",
    "quick",
    "different",
    "useful",
    "to",
    "your",
    "of",
    "couple",
    "other",
];

/// Obligations of [`NOT_FACTUAL`] that say something lasting when they name a thing ("I need to
/// renew my UK passport"), and only then.
pub(crate) const OBLIGATIONS: &[&str] = &["have to", "has to", "need to"];

/// Verbs right after "that" that make it a pronoun, the subject of what follows ("I thought that
/// was a great job"): after a [`COMPLEMENT_VERBS`] verb it points at a turn then, opening no
/// clause of the user's own.
pub(crate) const POINTED_VERBS: &[&str] = &[
    "is", "was", "were", "would", "will", "sounds", "sounded", "seems", "seemed", "must", "could",
    "can", "might", "should", "looks", "looked",
];

/// Verbs after which "that" opens a clause ("I've found that 1 tablespoon …"), not a pointing
/// word.
pub(crate) const COMPLEMENT_VERBS: &[&str] = &[
    "found",
    "find",
    "realized",
    "realised",
    "noticed",
    "learned",
    "learnt",
    "discovered",
    "decided",
    "know",
    "knew",
    "think",
    "thought",
    "believe",
    "said",
    "told",
    "read",
    "heard",
    "feel",
    "felt",
    "figured",
    "remember",
    "remembered",
    "mean",
    "guess",
    "hope",
    "saw",
    "see",
    "understand",
    "agree",
    "admit",
    "suspect",
    "doubt",
    "wish",
    "bet",
    "confident",
    "aware",
    "convinced",
];

/// Words that open an introductory phrase joined to the clause after its comma ("For my
/// sister's birthday, I got her a yellow dress"); a number does too ("Two years ago, …").
pub(crate) const INTRODUCTORY: &[&str] = &[
    "for",
    "in",
    "on",
    "at",
    "during",
    "after",
    "before",
    "last",
    "this",
    "next",
    "when",
    "while",
    "since",
    "over",
    "every",
    "back",
    "a",
    "about",
    "around",
    "yesterday",
    "recently",
    "earlier",
    "lately",
    "today",
    "as",
    "with",
];

/// Words anywhere in a clause that make it hypothetical, a request or not the user's present.
pub(crate) const NOT_FACTUAL: &[&str] = &[
    "if",
    "would",
    "could",
    "imagine",
    "suppose",
    "pretend",
    "hypothetically",
    "daydream",
    "someday",
    "sometime",
    "maybe",
    "can probably",
    "will probably",
    "probably will",
    "might",
    "may",
    "have to",
    "has to",
    "need to",
    "gotta",
    "gonna",
    "wanna",
    "hopefully",
    "please",
    "can you",
    "could you",
    "help me",
    "tell me",
    "show me",
    "let's say",
    "thanks",
    "thank you",
    "today",
    "tonight",
    "this morning",
    "this afternoon",
    "this evening",
    "my best",
    "imagined",
    "we can",
    "we could",
    "we should",
    "let's",
];

/// The words of [`NOT_FACTUAL`] that say the day: an event of the day is dated by them.
pub(crate) const THE_DAY: &[&str] = &[
    "today",
    "tonight",
    "this morning",
    "this afternoon",
    "this evening",
];

/// Verbs in the past that do not end in "-ed" ("I got back from …", "I went to …").
pub(crate) const PAST_VERBS: &[&str] = &[
    "got", "went", "did", "came", "had", "saw", "made", "took", "ran", "bought", "met", "ate",
    "drank", "won", "lost", "found", "gave", "left", "wrote", "spent", "sold", "paid", "built",
    "caught", "taught", "brought", "flew", "drove", "rode", "swam", "sang", "began", "heard",
    "threw", "held", "kept", "sent", "hit", "set", "put", "cut", "knit", "sewed", "grew",
];

/// Times that make "I'm going to …" a plan, besides a month (`words::MONTHS`; "may" only as
/// "May").
pub(crate) const FUTURE: &[&str] = &[
    "next", "tomorrow", "summer", "winter", "spring", "fall", "autumn", "weekend", "week", "year",
    "month", "soon",
];

/// Verbs of giving, whose first object is whom the thing was for ("I got him a bag of dog
/// food").
pub(crate) const GIVING: &[&str] = &[
    "got", "bought", "gave", "made", "sent", "ordered", "brought", "found", "picked", "baked",
    "knitted", "gifted",
];

/// What a plan of the moment does ("I'm going to take a break", "… to have a look"): not a plan
/// of a thing.
pub(crate) const PLAN_OF_THE_MOMENT: &[&str] = &[
    "bit", "break", "look", "try", "nap", "shower", "rest", "moment", "minute", "second", "while",
    "few", "lot", "little", "quick", "go", "chance",
];

/// Phrases of the moment cut from a clause ("I'm in high school right now").
pub(crate) const NOW: &[&str] = &[" right now", " at the moment", " these days"];

/// Filler a clause may open with; skipped before the opening is checked.
pub(crate) const FILLER: &[&str] = &[
    "and", "but", "so", "also", "oh", "ok", "okay", "well", "btw", "actually", "anyway", "just",
    "yeah", "yep", "yes", "no", "hey", "hi", "hello", "sorry", "ah", "fwiw", "because", "since",
    "though", "lol", "haha",
];

/// Clause-splitting words: a clause starts again after them ("so" and "since" only before a
/// subject of their own, see [`marked_splits`]).
pub(crate) const SPLIT_WORDS: &[&str] = &["since", "because", "but", "though", "although", "so"];

/// Subjects of another person that open a clause after "so" or "since" ("since it"); the
/// user's own are `words::FIRST_PERSON_SUBJECTS` and "my" ("so I", "so my").
pub(crate) const SPLIT_SUBJECTS: &[&str] = &[
    "my", "it", "it's", "its", "that", "that's", "he", "she", "they", "they're", "there", "this",
    "you",
];

pub(crate) use crate::language::en::{PASSING, PASSING_IDIOMS};

/// Degree words a state of the moment may carry ("just a little tired", "100% agree").
pub(crate) const INTENSIFIERS: &[&str] = &[
    "little",
    "bit",
    "pretty",
    "quite",
    "super",
    "totally",
    "kinda",
    "kind",
    "sort",
    "extremely",
    "too",
    "also",
    "always",
    "completely",
    "definitely",
    "absolutely",
    "big",
    "huge",
    "bad",
    "still",
];

/// Adverbs between "I" and its verb.
pub(crate) const ADVERBS: &[&str] = &[
    "just",
    "also",
    "really",
    "still",
    "now",
    "often",
    "usually",
    "never",
    "recently",
    "finally",
    "only",
    "mostly",
    "sometimes",
    "actually",
    "basically",
    "currently",
    "even",
    "already",
];

/// Auxiliaries and negations before a verb ("I don't find", "I've never had").
pub(crate) const AUXILIARIES: &[&str] = &[
    "do", "don't", "dont", "did", "didn't", "didnt", "does", "am", "was", "wasn't", "have",
    "haven't", "had", "hadn't", "not", "can", "can't", "will", "won't", "to",
];

/// Determiners that point at something named elsewhere ("that game").
pub(crate) const DEMONSTRATIVES: &[&str] = &["that", "this", "these", "those"];

/// Prepositions before a determiner ("a fan of that game").
pub(crate) const PREPOSITIONS: &[&str] = &[
    "of", "about", "in", "on", "with", "for", "to", "at", "from", "into", "by",
];

/// Quantifiers that end a clause when their noun was said before ("I have a few").
pub(crate) const ELIDED: &[&str] = &[
    "few", "several", "some", "many", "both", "any", "none", "lots", "one", "ones",
];

/// Nouns that say nothing without what they are of ("I'm a big fan", "I'm still a beginner").
pub(crate) const NEEDS_COMPLEMENT: &[&str] = &[
    "fan", "beginner", "member", "part", "expert", "novice", "amateur", "pro", "natural",
    "regular", "newbie", "opposite", "same",
];

/// Words that name nothing in particular ("a lot of different things").
pub(crate) const VAGUE: &[&str] = &[
    "lot",
    "lots",
    "different",
    "thing",
    "things",
    "stuff",
    "sort",
    "sorts",
    "kind",
    "kinds",
    "type",
    "types",
    "everything",
    "something",
    "anything",
    "various",
    "variety",
    "bunch",
    "do",
    "doing",
    "try",
    "trying",
    "much",
    "many",
    "all",
    "other",
    "others",
    "people",
];

/// Pronouns that need something to point at.
pub(crate) const POINTING: &[&str] = &[
    "it", "that", "this", "them", "those", "these", "there", "him", "her", "his", "hers", "their",
];

/// Words before a pronoun that are not what it points at ("almost all of her books").
pub(crate) const NOT_REFERENTS: &[&str] = &[
    "almost", "forward", "both", "each", "every", "few", "lots", "many", "several",
];

/// Pronoun subjects (with their verb) that open a clause about something else than the user.
pub(crate) const POINTING_SUBJECT: &[&str] = &[
    "it's", "its", "they", "they're", "theyre", "they've", "that's", "thats", "these", "those",
    "she", "she's", "shes", "he", "he's", "hes",
];

/// Words that may follow a clause's last object ("I love it so much", "I'd do that again").
pub(crate) const TRAILING: &[&str] = &[
    "too", "again", "sometime", "more", "lot", "so", "much", "as", "well", "anyway", "now",
    "someday", "once", "a", "bit", "all", "the", "time", "every", "day", "out", "up", "though",
    "also", "already", "yet", "lol", "haha", "anymore",
];

/// Clauses that start with these are questions even without a question mark.
pub(crate) const QUESTION_WORDS: &[&str] = &[
    "how", "what", "why", "where", "when", "which", "who", "is", "are", "do", "does", "can",
    "should", "any",
];

/// Adverbs that may stand before a subordinate opening (English's `subordinators`, "usually
/// when I'm feeling stressed", "especially if it rains": the rest of a sentence that was cut
/// off, not a fact on its own), beside [`ADVERBS`].
pub(crate) const FOCUS_ADVERBS: &[&str] = &[
    "especially",
    "particularly",
    "except",
    "mainly",
    "typically",
    "normally",
    "generally",
];

// ---- relative

/// Words before a thing's name that make it a place or a service, not the thing a relative
/// clause tells of ("something similar to X on Hulu, which I'm enjoying").
pub(crate) const NOT_THE_THING: &[&str] = &["on", "at", "in", "from", "via", "through"];

/// Verbs after "which I" that are no verb of the user's doing with the thing.
pub(crate) const NOT_A_DOING: &[&str] = &[
    "am", "was", "be", "been", "being", "will", "would", "could", "should", "might", "may", "can",
    "think", "guess", "hope", "want", "wish", "mean", "need",
];

// ---- elsewhere

/// Verbs of liking whose object may be an aspect of something named before.
pub(crate) const LIKING: &[&str] = &[
    "love",
    "loved",
    "like",
    "liked",
    "enjoy",
    "enjoyed",
    "miss",
    "missed",
    "hate",
    "hated",
    "adore",
    "appreciate",
    "dig",
];

/// Nouns that name an aspect of a thing, not the thing ("the story", "the food"): after "the",
/// with nothing after them, the thing is in another turn.
pub(crate) const ASPECTS: &[&str] = &[
    "beats",
    "melodies",
    "sounds",
    "tastes",
    "flavours",
    "smells",
    "songs",
    "vocals",
    "scene",
    "story",
    "stories",
    "plot",
    "characters",
    "character",
    "lyrics",
    "chases",
    "action",
    "camaraderie",
    "culture",
    "food",
    "people",
    "atmosphere",
    "vibe",
    "vibes",
    "energy",
    "peace",
    "quiet",
    "graphics",
    "gameplay",
    "soundtrack",
    "music",
    "ending",
    "writing",
    "acting",
    "setting",
    "challenge",
    "competition",
    "community",
    "sound",
    "taste",
    "flavor",
    "flavour",
    "flavors",
    "smell",
    "texture",
    "architecture",
    "beat",
    "melody",
    "rhythm",
    "colors",
    "design",
    "scenes",
    "idea",
    "concept",
    "style",
    "humor",
    "humour",
    "dialogue",
    "visuals",
    "effects",
];

/// Possessive pronouns standing for a noun said before ("… to mine"); "a friend of mine" names
/// its noun.
pub(crate) const STANDING_FOR: &[&str] = &["mine", "yours", "theirs", "ours", "hers"];

/// Comparisons with the word that says with what ("a much better cook" — than whom?,
/// "similar taste in music" — to whose?, "more into nonfiction" — than what?).
pub(crate) const COMPARISONS: &[(&str, &str)] = &[
    ("better", "than"),
    ("worse", "than"),
    ("similar", "to"),
    ("more into", "than"),
];

/// Words a clause cannot end on: the object or complement was cut off ("my favorite song is",
/// once its quoted title is gone; "I do sometimes"). Not prepositions: English strands them
/// ("they're impossible to buy for").
pub(crate) const DANGLING: &[&str] = &[
    "is", "are", "was", "were", "am", "be", "the", "a", "an", "my", "and", "or", "do", "does",
    "did", "can", "will", "have", "has",
];

/// Adverbs that may follow a cut-off clause's last word ("I do sometimes").
pub(crate) const AFTERWORDS: &[&str] = &["sometimes", "too", "often", "always", "though", "anyway"];

/// Nouns ending a clause whose infinitive was dropped ("I've never had the time").
pub(crate) const ELIDED_INFINITIVE: &[&str] = &[
    "time",
    "chance",
    "opportunity",
    "money",
    "energy",
    "patience",
];

/// Childhood, stated alone ("I was a kid"): the rest of the sentence had the fact.
pub(crate) const CHILDHOOD: &[&str] = &["kid", "child", "teenager", "teen", "baby", "boy", "girl"];

/// Counts that are no number and stand for a noun said before ("a few of my own"), beside
/// `words::NUMBER_WORDS` ("two of my own").
pub(crate) const QUANTIFIERS: &[&str] = &["several", "few", "some", "many", "couple"];

// ---- answer

pub(crate) const YES: &[&str] = &[
    "yes",
    "yeah",
    "yep",
    "yup",
    "sure",
    "definitely",
    "absolutely",
    "of course",
    "indeed",
    "totally",
];

/// How a reply says no, longest first: what each says of the question's claim (`No::Not`: not
/// so; `No::Anymore`: not any longer; `No::Never`: never). Matched on the reply's opening words.
pub(crate) const NO: &[(&str, No)] = &[
    ("not anymore", No::Anymore),
    ("not any more", No::Anymore),
    ("no longer", No::Anymore),
    ("i used to", No::Anymore),
    ("not at all", No::Not),
    ("not really", No::Not),
    ("never", No::Never),
    ("nope", No::Not),
    ("nah", No::Not),
    ("no", No::Not),
];

/// What a no-reply says of the question's claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum No {
    Not,
    Anymore,
    Never,
}

/// Openings with a no-word that answer no question ("no problem", "not sure", "no way", which
/// may even mean yes), and hedges after a no ("I don't think so"): the reply is not read as no.
pub(crate) const NOT_A_NO: &[&str] = &[
    "no problem",
    "no worries",
    "no idea",
    "no thanks",
    "no thank",
    "no way",
    "no one",
    "nobody",
    "no matter",
    "not sure",
    "not yet",
    "not much",
    "never mind",
    "i don't think",
    "i do not think",
    "i don't know",
    "not that i know",
];

/// After a no, the reply saying so again ("No, I don't.", "No, I haven't."): nothing more.
pub(crate) const NO_AGAIN: &[&str] = &[
    "i don't",
    "i do not",
    "i haven't",
    "i have not",
    "i'm not",
    "i am not",
    "i didn't",
    "i did not",
    "not really",
    "not at all",
];

/// The marks of a template's placeholder ("[your name]", "{name}", "<city>").
pub(crate) const PLACEHOLDER_MARKS: [char; 6] = ['[', ']', '{', '}', '<', '>'];

/// Openings of a sentence that greets or reacts, never what a session was about ("Oh, that's
/// cool", "Hello, my name is …", "That sounds like a tough job").
pub(crate) const REACTIONS: &[&str] = &[
    "oh",
    "wow",
    "cool",
    "nice",
    "awesome",
    "great",
    "haha",
    "lol",
    "ok",
    "okay",
    "hi",
    "hello",
    "hey",
    "good morning",
    "good evening",
    "that's",
    "thats",
    "that is",
    "that sounds",
    "sounds",
    "it sounds",
    "interesting",
    "really",
    "thanks",
    "thank you",
    "yay",
    "aw",
    "aww",
    "ugh",
];

/// What a reply to "Do you still smoke?" says it stopped with: "I quit in 2022".
pub(crate) const STOPPED: &[&str] = &["i quit", "i stopped", "i gave up"];

/// A yes that is one only when nothing follows it: "I do." answers "Do you …?", but "I'm a night
/// owl" answers "Are you a morning person?" with a fact of its own.
pub(crate) const YES_ALONE: &[&str] = &["i do", "i am", "i have", "i did", "i'm", "we do"];

/// Filler a question may open with.
pub(crate) const OPENERS: &[&str] = &[
    "so", "and", "oh", "well", "ok", "okay", "also", "but", "hey",
];

/// Verbs of a "do you VERB X?" question that make a standing fact when answered yes.
pub(crate) const LIKE_VERBS: &[&str] = &[
    "like",
    "love",
    "enjoy",
    "play",
    "own",
    "speak",
    "watch",
    "read",
    "cook",
    "bake",
    "collect",
    "drive",
    "ride",
    "run",
    "swim",
    "hike",
    "paint",
    "draw",
    "sing",
    "knit",
    "garden",
    "fish",
    "travel",
    "study",
    "work",
    "teach",
    "practice",
    "listen",
    "follow",
    "use",
    "eat",
    "drink",
    "smoke",
    "prefer",
    "volunteer",
    "write",
];

// ---- person

/// Past forms (and modals) that stay as they are after "User".
pub(crate) const UNCHANGED: &[&str] = &[
    "was",
    "had",
    "got",
    "went",
    "flew",
    "came",
    "did",
    "made",
    "bought",
    "built",
    "left",
    "took",
    "became",
    "grew",
    "spent",
    "met",
    "began",
    "wrote",
    "ran",
    "sold",
    "found",
    "gave",
    "kept",
    "lost",
    "read",
    "said",
    "saw",
    "sent",
    "set",
    "taught",
    "thought",
    "told",
    "won",
    "can",
    "will",
    "must",
    "might",
    "may",
    "should",
    "could",
    "would",
    "used",
    "felt",
    "knew",
    "drew",
    "drove",
    "ate",
    "fell",
    "forgot",
    "froze",
    "hid",
    "hit",
    "held",
    "hurt",
    "lay",
    "led",
    "lent",
    "let",
    "lit",
    "meant",
    "paid",
    "put",
    "quit",
    "rode",
    "rang",
    "rose",
    "sang",
    "sat",
    "shot",
    "shut",
    "slept",
    "spoke",
    "stood",
    "stole",
    "struck",
    "swam",
    "swore",
    "threw",
    "understood",
    "woke",
    "wore",
    "brought",
    "caught",
    "chose",
    "cost",
    "cut",
    "dealt",
    "dug",
    "fed",
    "fought",
    "fled",
    "forgave",
    "heard",
    "bit",
    "bled",
    "blew",
    "broke",
    "bred",
    "burnt",
    "learnt",
    "dreamt",
    "spelt",
    "spilt",
    "sank",
    "sought",
    "shook",
    "shone",
    "slid",
    "spun",
    "split",
    "spread",
    "sprang",
    "stuck",
    "stung",
    "swept",
    "swung",
    "tore",
    "wept",
    "withdrew",
    "wound",
    "cannot",
];

/// Contractions and slang written out before the clause is put in the third person.
pub(crate) const EXPANDED: &[(&str, &str)] = &[
    ("wanna", "want to"),
    ("gonna", "going to"),
    ("gotta", "have to"),
    ("haven't", "have not"),
    ("havent", "have not"),
    ("hasn't", "has not"),
    ("don't", "do not"),
    ("dont", "do not"),
    ("doesn't", "does not"),
    ("didn't", "did not"),
    ("didnt", "did not"),
    ("can't", "cannot"),
    ("cant", "cannot"),
    ("won't", "will not"),
    ("isn't", "is not"),
    ("wasn't", "was not"),
    ("aren't", "are not"),
    ("ain't", "am not"),
    ("couldn't", "could not"),
    ("wouldn't", "would not"),
    ("shouldn't", "should not"),
    ("i'm", "I am"),
    ("im", "I am"),
    ("i've", "I have"),
    ("ive", "I have"),
    ("i'd", "I would"),
    ("i'll", "I will"),
    ("kinda", "kind of"),
    ("lotta", "lot of"),
    ("y'all", "you all"),
];

/// Words after "I'm" that are not a name though they are capitalised: nationalities, faiths,
/// languages and the like ("I'm Scottish").
pub(crate) const NOT_NAMES: &[&str] = &[
    "American",
    "British",
    "English",
    "Scottish",
    "Irish",
    "Welsh",
    "Canadian",
    "Australian",
    "French",
    "German",
    "Italian",
    "Spanish",
    "Portuguese",
    "Dutch",
    "Swedish",
    "Norwegian",
    "Danish",
    "Finnish",
    "Polish",
    "Russian",
    "Ukrainian",
    "Greek",
    "Turkish",
    "Chinese",
    "Japanese",
    "Korean",
    "Indian",
    "Pakistani",
    "Mexican",
    "Brazilian",
    "Argentinian",
    "African",
    "Nigerian",
    "Kenyan",
    "Egyptian",
    "Christian",
    "Catholic",
    "Muslim",
    "Jewish",
    "Hindu",
    "Buddhist",
    "Mormon",
    "Vegan",
    "Asian",
    "European",
    "Latino",
    "Latina",
    "Hispanic",
    "Texan",
    "Californian",
    "Republican",
    "Democrat",
    "Libertarian",
    "Gen",
    "Deaf",
    "Italian-American",
    "Filipino",
    "Vietnamese",
    "Thai",
    "Cuban",
    "Jamaican",
    "Swiss",
    "Austrian",
    "Belgian",
    "Israeli",
    "Iranian",
    "Iraqi",
    "Bangladeshi",
    "Colombian",
    "Peruvian",
    "Chilean",
];

/// Adverbs between "I" and its verb ("I just adopted", "I always prefer").
pub(crate) const CONJUGATION_ADVERBS: &[&str] = &[
    "just",
    "also",
    "always",
    "usually",
    "never",
    "still",
    "now",
    "really",
    "mostly",
    "often",
    "recently",
    "finally",
    "only",
    "mainly",
    "sometimes",
    "basically",
    "currently",
    "totally",
    "actually",
    "once",
    "ever",
    "even",
    "already",
];

/// Adverbs of habit: the verb after them is in the present ("I usually read").
pub(crate) const HABITS: &[&str] = &[
    "mostly",
    "usually",
    "often",
    "always",
    "sometimes",
    "generally",
    "normally",
    "rarely",
];

/// Verbs spelled the same in the present and the past ("I read").
pub(crate) const SAME_IN_THE_PAST: &[&str] = &["read", "set", "put", "cut", "hit", "let", "quit"];

/// Verbs in their plain form that, after "and", share User as subject ("I live in Leeds and
/// work in York"); any other word after "and" is left as it is ("I like cats and dogs").
pub(crate) const COORDINATED_VERBS: &[&str] = &[
    "love",
    "like",
    "enjoy",
    "hate",
    "play",
    "work",
    "live",
    "listen",
    "watch",
    "read",
    "write",
    "teach",
    "study",
    "own",
    "drive",
    "ride",
    "run",
    "cook",
    "bake",
    "make",
    "spend",
    "take",
    "go",
    "have",
    "do",
    "want",
    "collect",
    "volunteer",
    "sing",
    "dance",
    "paint",
    "draw",
    "travel",
    "use",
    "prefer",
    "help",
    "care",
    "raise",
    "grow",
    "build",
    "try",
];

// ---- guard

/// How the assistant opens a reply.
pub(crate) const ASSISTANT_OPENERS: &[&str] = &[
    "sure",
    "certainly",
    "of course",
    "as an ai",
    "as a language model",
    "here's",
    "here is",
    "great question",
];

/// Words of the fact's frame, not its substance: "User's name is Nadia" is grounded by "I'm
/// Nadia", "User lives in Lisbon" is a copy of the example for "Lisbon" alone.
pub(crate) const FRAME_WORDS: &[&str] = &["name", "named", "called", "live", "lived", "living"];

/// Auxiliaries and common irregular verbs; with "-ed" and "-s" forms, what a verb looks like.
pub(crate) const VERBS: &[&str] = &[
    "is", "are", "was", "were", "has", "have", "had", "does", "did", "can", "can't", "cannot",
    "will", "won't", "would", "could", "should", "may", "might", "must", "isn't", "doesn't",
    "didn't", "hasn't", "wasn't", "left", "met", "ran", "went", "made", "built", "bought", "wrote",
    "drove", "took", "got", "speaks", "knows",
];

// ---- episodic

// ---- dates

/// Articles that count one in a time ("a week ago", "an hour"), beside `words::NUMBER_WORDS`.
pub(crate) const ARTICLE_ONE: &[(&str, u32)] = &[("a", 1), ("an", 1)];

// ---- summary

/// Openings a summary leads with that are not the user's words (so not held to grounding).
pub(crate) const FRAME: &[&str] = &[
    "asked",
    "said",
    "assistant",
    "assistant's",
    "whether",
    "about",
    "they",
    "they're",
    "they've",
    "they'd",
    "they'll",
    "their",
    "theirs",
    "them",
    "themself",
];

/// Question openings, lower-case, and what the summary says in their place (`{}` = the rest).
pub(crate) const ASKING: &[(&str, &str)] = &[
    ("can you please", "Asked the assistant to {}"),
    ("could you please", "Asked the assistant to {}"),
    ("can you", "Asked the assistant to {}"),
    ("could you", "Asked the assistant to {}"),
    ("would you", "Asked the assistant to {}"),
    ("will you", "Asked the assistant to {}"),
    ("do you have any", "Asked for {}"),
    ("do you have", "Asked for {}"),
    ("are there any", "Asked about {}"),
    ("is there any", "Asked about {}"),
    ("is there a way to", "Asked how to {}"),
    ("do you think", "Asked whether {}"),
    ("do you know if", "Asked whether {}"),
    ("do you know", "Asked about {}"),
    ("how can i", "Asked how to {}"),
    ("how do i", "Asked how to {}"),
    ("how should i", "Asked how to {}"),
    ("how could i", "Asked how to {}"),
    ("how would i", "Asked how to {}"),
    ("how can we", "Asked how to {}"),
    ("how do we", "Asked how to {}"),
    ("what's the best way to", "Asked how best to {}"),
    ("what is the best way to", "Asked how best to {}"),
    ("what's a good way to", "Asked how to {}"),
    ("what is a good way to", "Asked how to {}"),
    ("what are some ways to", "Asked how to {}"),
    ("should i", "Asked whether to {}"),
    ("what's", "Asked about {}"),
    ("what is", "Asked about {}"),
    ("what are", "Asked about {}"),
    ("any", "Asked for {}"),
    ("how", "Asked how {}"),
    ("what", "Asked what {}"),
    ("where", "Asked where {}"),
    ("when", "Asked when {}"),
    ("which", "Asked which {}"),
    ("who", "Asked who {}"),
    ("why", "Asked why {}"),
];

/// Words a summary cannot end on, besides [`DANGLING`].
pub(crate) const HANGING: &[&str] = &[
    "of",
    "to",
    "for",
    "with",
    "in",
    "on",
    "at",
    "from",
    "by",
    "about",
    "into",
    "that",
    "which",
    "who",
    "their",
    "them",
    "they",
    "very",
    "so",
    "but",
    "if",
    "as",
    "than",
    "like",
    "any",
    "some",
    "this",
    "these",
    "those",
    "such",
    "how",
    "what",
    "where",
    "when",
    "whether",
    "just",
    "really",
    "also",
    "especially",
    "more",
    "most",
];

/// Words that open a clause of their own: a summary too long for its line may be cut before one,
/// and what comes before stays whole.
pub(crate) const CLAUSE_OPENERS: &[&str] = &[
    "that", "which", "who", "whose", "where", "because", "since", "when", "while", "whenever",
    "if", "unless", "although", "though", "but", "so", "as", "before", "after", "until",
];

// ---- until

/// Words that put a bounded clause in the past ("I was in Paris for two weeks", "I've been
/// vegetarian for two years"): a duration that has run bounds nothing.
pub(crate) const PAST_MARKERS: &[&str] = &[
    "was", "were", "had", "did", "i've", "ive", "we've", "been", "used", "went", "left", "took",
    "spent", "kept", "stayed", "lived", "worked", "waited", "ago", "past", "since", "came", "saw",
    "made",
];

/// Openings that say a clause holds now or from now ("I'm", "I'll", "I have to"): "this week"
/// bounds only such a clause.
pub(crate) const PRESENT_MARKERS: &[&str] = &[
    "i'm",
    "im",
    "i am",
    "we're",
    "we are",
    "i'll",
    "ill",
    "i will",
    "we'll",
    "i have to",
    "i need to",
    "i must",
    "i can't",
    "i cannot",
    "i won't",
];

/// Counts a duration may give in words besides [`NUMBER_WORDS`] ("a couple of days", "the next
/// few weeks").
pub(crate) const MORE_COUNTS: &[(&str, u32)] = &[("couple", 2), ("few", 3)];

/// Words for people: what "it" never points at ("… with my brother, I loved it").
pub(crate) const PEOPLE: &[&str] = &[
    "brother",
    "sister",
    "mom",
    "mum",
    "mother",
    "dad",
    "father",
    "parents",
    "wife",
    "husband",
    "partner",
    "boyfriend",
    "girlfriend",
    "fiance",
    "fiancee",
    "friend",
    "son",
    "daughter",
    "kid",
    "child",
    "baby",
    "family",
    "cousin",
    "aunt",
    "uncle",
    "grandma",
    "grandmother",
    "grandpa",
    "grandfather",
    "niece",
    "nephew",
    "colleague",
    "coworker",
    "co-worker",
    "boss",
    "manager",
    "neighbor",
    "neighbour",
    "roommate",
    "teacher",
    "doctor",
    "therapist",
    "coach",
    "mentor",
];

/// What "As a …, I" names that the user is not ("as a result", "as a kid": a time of life).
pub(crate) const NOT_WHAT_I_AM: &[&str] = &[
    "result",
    "matter",
    "whole",
    "rule",
    "side",
    "kid",
    "child",
    "teen",
    "teenager",
    "boy",
    "girl",
    "baby",
    "youngster",
    "reminder",
    "bonus",
    "gift",
    "treat",
    "favor",
    "favour",
    "joke",
    "start",
    "backup",
    "precaution",
    "thanks",
    "token",
    "way",
    "note",
    "consequence",
    "compromise",
    "test",
    "bit",
];

/// Titles written with a full stop that does not end the sentence ("Dr. Patel", "Mrs. Lee").
pub(crate) const TITLES: &[&str] = &[
    "Dr", "Mr", "Mrs", "Ms", "Mx", "Prof", "St", "Jr", "Sr", "Mt", "Capt", "Rev", "Gen", "Lt",
];

/// Words that end a possession's name ("my iPhone 13 Pro for work", "my closet this weekend").
pub(crate) const NOT_IN_A_NAME: &[&str] = &[
    "and",
    "or",
    "but",
    "that",
    "which",
    "who",
    "is",
    "are",
    "was",
    "were",
    "has",
    "have",
    "to",
    "because",
    "so",
    "if",
    "when",
    "since",
    "i",
    "me",
    "it",
    "as",
    "than",
    "like",
    "now",
    "this",
    "these",
    "those",
    "next",
    "last",
    "every",
    "today",
    "tonight",
    "tomorrow",
    "yesterday",
];

pub(crate) use crate::language::en::WEEKDAYS;

/// Words that open the end of a bounded time ("until Friday", "through March").
pub(crate) const UNTIL: &[&str] = &["until", "till", "til", "through", "thru"];
