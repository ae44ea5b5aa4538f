//! The clause rules' fuzz input: chats of user turns in any script, built from words the rules
//! listen for, characters whose case folds to another length ("İ", the Kelvin sign, "ẞ"),
//! typographic apostrophes, other scripts and arbitrary Unicode, with assistant turns (often a
//! question) around them; and a generator double for the whole pass that answers with the
//! caller's own guess (the rule's sentence), so every rule runs with no model.

use localm_core::models::{Generation, Generator, Message, ModelError};
use proptest::collection::vec;
use proptest::prelude::*;

/// Words and pieces the rules listen for, and text that has broken text handling elsewhere.
const PIECES: &[&str] = &[
    "I",
    "Ja, einen alten Dackel",
    "oui, deux chats",
    "有，两只猫",
    "はい、",
    "İ",
    "I'm",
    "I\u{2019}m",
    "I've",
    "my",
    "My",
    "me",
    "am",
    "was",
    "have",
    "had",
    "live",
    "work",
    "as",
    "a",
    "an",
    "the",
    "and",
    "but",
    "which",
    "who",
    "that",
    "it",
    "it's",
    "they",
    "she",
    "took",
    "called",
    "named",
    "favorite",
    "yes",
    "Yes,",
    "no",
    "not",
    "never",
    "really",
    "too",
    "also",
    "last month",
    "next week",
    "for the next two weeks",
    "until Friday",
    "in May",
    "since 2019",
    "5 years",
    "$800",
    "10:00 pm",
    "-",
    "\u{2013}",
    ",",
    ".",
    "?",
    "!",
    ";",
    ":",
    "(",
    ")",
    "\"",
    "'",
    "`",
    "```",
    "\n",
    "  ",
    "İ",
    "İstanbul",
    "İZMİR",
    "\u{212A}",
    "\u{2126}",
    "\u{212B}",
    "ẞ",
    "ß",
    "ǅ",
    "e\u{301}",
    "\u{200B}",
    "\u{200D}",
    "\u{FEFF}",
    "\u{202E}",
    "Ω",
    "我喜欢猫",
    "我是护士",
    "Привет",
    "Я живу в Москве",
    "مرحبا",
    "أنا طبيب",
    "שלום",
    "こんにちは",
    "🐈",
    "👩\u{200D}💻",
    "Ñandú",
    "Über",
    "Çà",
    "ﬁ",
    "ǰ",
    "ŉ",
    "ΐ",
    "Σ",
    "ς",
    "Ⅻ",
    "①",
    "User",
    "user's",
    "you",
    "your",
    "remember",
    "PIN",
    "password",
    "right now",
    "these days",
    "at the moment",
    "so",
    "because",
    "since",
    "though",
    "and I was wondering",
    "which is why",
    "my favorite",
    "is",
    "going to",
    "planning to",
    "for my",
    "with my",
    "our",
    "we",
    "both",
    "mine",
    "better",
    "some more",
    "one time",
    "when I was a kid",
    "too scared",
    "of my own",
    "some",
    "would",
    "if",
    "today",
    "what",
    "how",
    "can you",
    "please",
    "him",
    "her",
    "them",
];

/// Questions an assistant asks before a reply.
const QUESTIONS: &[&str] = &[
    "Do you have pets?",
    "Are you a morning person?",
    "What's your favorite color?",
    "Where do you live?",
    "Where are you from?",
    "How old are you?",
    "Have you tried pottery?",
    "Do you like jazz?",
    "Did you enjoy İstanbul?",
    "Tell me more.",
    // A reply beyond English is read with a question in its language (`verbatim::reply`).
    "Hast du Haustiere?",
    "As-tu des animaux ?",
    "¿Tienes mascotas?",
    "你有宠物吗？",
    "ペットを飼っていますか？",
    "너는 애완동물을 기르고 있니?",
];

fn piece() -> BoxedStrategy<String> {
    prop_oneof![
        6 => proptest::sample::select(PIECES).prop_map(str::to_string),
        1 => any::<String>().prop_map(|s| s.chars().take(12).collect()),
        1 => "[a-zA-Z]{1,10}",
    ]
    .boxed()
}

/// One turn: pieces joined by spaces (or not).
pub fn turn() -> BoxedStrategy<String> {
    vec((piece(), any::<bool>()), 1..40)
        .prop_map(|ps| {
            let mut t = String::new();
            for (p, spaced) in ps {
                if spaced && !t.is_empty() {
                    t.push(' ');
                }
                t.push_str(&p);
            }
            t
        })
        .boxed()
}

/// A chat: (role, content) in order, the user's turns with assistant turns around them.
pub fn chat() -> BoxedStrategy<Vec<(&'static str, String)>> {
    let assistant = prop_oneof![
        2 => proptest::sample::select(QUESTIONS).prop_map(str::to_string),
        1 => turn(),
    ];
    vec((proptest::option::of(assistant), turn()), 1..5)
        .prop_map(|pairs| {
            let mut out = Vec::new();
            for (a, u) in pairs {
                if let Some(a) = a {
                    out.push(("assistant", a));
                }
                out.push(("user", u));
            }
            out
        })
        .boxed()
}

/// Answers every call with the caller's guess at the reply (the rule's own sentence for a
/// rewrite, the worked example's shape for a decision), or nothing: the pass then falls back to
/// its rules, which is what this target is for.
pub struct Echo;

impl Generator for Echo {
    fn generate(
        &mut self,
        _messages: &[Message],
        _grammar: &str,
        _max_tokens: usize,
    ) -> Result<Generation, ModelError> {
        self.generate_drafted(_messages, _grammar, _max_tokens, None)
    }

    fn generate_drafted(
        &mut self,
        _messages: &[Message],
        _grammar: &str,
        _max_tokens: usize,
        draft: Option<&str>,
    ) -> Result<Generation, ModelError> {
        Ok(Generation {
            text: draft.unwrap_or_default().to_string(),
            prompt_tokens: 1,
            cached_tokens: 0,
            gen_tokens: 1,
            drafted_tokens: 0,
            prompt_ms: 0.0,
            gen_ms: 0.0,
        })
    }
}
