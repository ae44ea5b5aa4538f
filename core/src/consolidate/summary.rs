//! A session's one-line summary by rule, for when the model's line fails the guards: one
//! sentence of what the user asked or said, in the user's own words turned to the third person
//! — "Asked for advice on how to keep their cameras organized", "Asked the assistant to
//! recommend a budgeting app", "Said they moved to Lisbon last year". Never a list of keywords,
//! never cut off mid-phrase, no content word the session does not contain.

use std::collections::HashSet;

use super::disclose;
use super::lexicon::{
    ASKING, CLAUSE_OPENERS, DANGLING, FILLER, FRAME, HANGING, NO, PLACEHOLDER_MARKS, REACTIONS, YES,
};
use crate::language::Lang;
use crate::language::reader::{self as lang_reader, Reader};
use crate::session::Session;
use crate::words::bare;

/// A summary is at most this long (the grammar's line for the model's is about as long).
pub const MAX_CHARS: usize = 100;

/// Fewer content words than this say too little to summarise a session.
const MIN_WORDS: usize = 3;

/// The summary of `s` by rule: the first of [`candidates`].
pub fn by_rule(s: &Session) -> Option<String> {
    candidates(s).into_iter().next()
}

/// Summaries of `s` by rule, best first: each question the user asked, as what they asked; then
/// each thing they said of themself; then each sentence of substance they typed. The pass takes
/// the first the guards let through.
pub fn candidates(s: &Session) -> Vec<String> {
    // A summary by rule is English: it reads the turns written in English, never another
    // language's words into an English sentence.
    // What the user pasted is not what they did.
    let typed: Vec<String> = s
        .lines
        .iter()
        .filter(|l| l.is_typed_by_user())
        .map(|l| super::pasted::without_pasted(&l.content))
        .filter(|t| crate::language::of(t) == Lang::English)
        .collect();
    let sentences: Vec<(String, bool)> = typed.iter().flat_map(|t| sentences(t)).collect();
    let asked = sentences
        .iter()
        .filter(|(_, q)| *q)
        .filter_map(|(q, _)| asked(q));
    let said: Vec<disclose::Said> = s
        .lines
        .iter()
        .enumerate()
        .map(|(i, msg)| disclose::Said {
            session: &s.id,
            line: i + 1,
            msg,
        })
        .collect();
    let disclosed = disclose::disclosures(&said)
        .into_iter()
        .filter(|d| d.lang == Lang::English)
        .map(|d| format!("Said {}", third_person(&d.clause)));
    // "Not anymore, I quit in 2022" answers the assistant: what it says is in the disclosures
    // ("Said they quit smoking in 2022"), never the reply as said.
    let plain = sentences
        .iter()
        .filter(|(t, q)| !q && !a_reply(t) && !small_talk(t))
        .map(|(t, _)| format!("Said {}", third_person(t)));
    let mut out: Vec<String> = Vec::new();
    for t in asked
        .chain(disclosed)
        .chain(plain)
        .filter(|t| !of_the_assistant(t))
    {
        if substantial(&t)
            && let Some(t) = finish(&t)
            && !out.contains(&t)
        {
            out.push(t);
        }
    }
    out
}

/// The summary of `s`, a session held in `reader`'s language, by rule: what the user first asked
/// the assistant to do, in their own words, quoted in the reader's frame ("A demandé : «
/// Explique-moi comment fonctionne un transistor. »", "问：“给我一个关于春天的成语。”"): a request,
/// a how-to question or one asking advice. Small talk ("hai animali domestici?", "et vous ?"),
/// one naming fewer than two things, one not in the reader's language (its turn) or in English,
/// one holding a secret or one too long for a line is passed over: none rather than a wrong
/// one. The model is not asked: its lines beyond English were mostly not true
/// (docs/benchmarks.md).
pub fn in_its_language(s: &Session, reader: &Reader) -> Option<String> {
    s.lines
        .iter()
        .filter(|l| l.is_typed_by_user())
        .map(|l| super::pasted::without_pasted(&l.content))
        .filter(|t| crate::language::of(t) == reader.lang)
        .find_map(|t| {
            super::verbatim::sentences(&t)
                .into_iter()
                .map(|x| lang_reader::without_opener(x, reader))
                .find(|x| asks_something(x, reader))
                .and_then(|x| {
                    let line = reader.summary_asked.replacen('…', x, 1);
                    (line.chars().count() <= MAX_CHARS).then_some(line)
                })
        })
}

/// Whether `sentence` (in `reader`'s language) asks the assistant for something worth a
/// summary: to do a thing, how to do one, or advice.
fn asks_something(sentence: &str, reader: &Reader) -> bool {
    let folded = crate::words::fold(sentence);
    let question = lang_reader::is_question(sentence, reader);
    // Advice is asked in a question that does not ask after the assistant ("puis-je vous
    // demander quelle est votre profession ?"); its words in a statement say no such thing
    // ("non ne ho idea", "potrei essere il tuo dogsitter").
    let advice = question
        && crate::recall::constraint::asks_advice(sentence)
        && lang_reader::says_any(sentence, reader, reader.you).is_none();
    let task = lang_reader::request_in(&folded, reader).is_some()
        || lang_reader::how_to_in(&folded, reader).is_some()
        || advice;
    // Its turn is in the reader's language (a sentence alone is short for the detector: "Dame
    // tres ideas de regalo para mi hermana…" reads as Portuguese); an English one is not.
    task && crate::language::of(sentence) != Lang::English
        && crate::secret::find(sentence).is_none()
        && crate::language::content_words(sentence).len() >= MIN_ASKED_WORDS
}

/// A request naming fewer things than this ("Dis-moi tout !") says nothing of what a session was
/// about.
const MIN_ASKED_WORDS: usize = 2;

/// Whether `sentence` opens with a yes or a no: a reply to the assistant's question.
fn a_reply(sentence: &str) -> bool {
    let folded = crate::words::fold(sentence);
    NO.iter().any(|(w, _)| opens(&folded, w)) || YES.iter().any(|w| opens(&folded, w))
}

/// Whether `folded` opens with the words `w` (not a longer word: "no" is not "nobody").
fn opens(folded: &str, w: &str) -> bool {
    folded
        .strip_prefix(w)
        .is_some_and(|r| r.chars().next().is_none_or(|c| !c.is_alphanumeric()))
}

/// Whether a summary line is about the assistant, not what the session was for: "Asked what
/// kind of truck the assistant drives", "Said they hope the assistant finds a job" ("Asked the
/// assistant to …" asks for what the session was for). The model's line is held to it too.
pub fn of_the_assistant(line: &str) -> bool {
    line.contains("the assistant") && !line.starts_with("Asked the assistant to ")
}

/// Whether `sentence` greets, reacts, or holds a template's placeholder ("Oh, that's cool",
/// "Hello, my name is (user 1 name)"): no line of what the session was about.
fn small_talk(sentence: &str) -> bool {
    let folded = crate::words::fold(sentence);
    REACTIONS.iter().any(|w| opens(&folded, w))
        || sentence.contains(PLACEHOLDER_MARKS)
        || ["user 1", "user 2", "user1", "user2"]
            .iter()
            .any(|p| folded.contains(p))
}

/// Whether the summary `text` only repeats one of `facts`: every content word it has past its
/// frame ("Said they …") is one of that fact's ("Said they're on Fedora" beside "User is on
/// Fedora"). A session's summary should say what its facts do not.
/// `facts` are given as their content words (`words::content_words`), read once per pass.
pub fn repeats_a_fact(text: &str, facts: &[HashSet<String>]) -> bool {
    let w = framed_words(text);
    !w.is_empty()
        && facts
            .iter()
            .any(|known| w.iter().all(|x| known.contains(x)))
}

/// Whether `text` has content words enough, past its frame.
fn substantial(text: &str) -> bool {
    framed_words(text).len() >= MIN_WORDS
}

/// The content words of `text` past its frame ("Said", "they", "the assistant").
fn framed_words(text: &str) -> Vec<String> {
    let mut w = crate::words::content_words(text);
    w.retain(|x| !FRAME.contains(&x.as_str()));
    w
}

/// What the user asked in `question` (without its '?'), when it opens like a question the
/// summary can say.
fn asked(question: &str) -> Option<String> {
    let mut words: Vec<&str> = question.split_whitespace().collect();
    // "By the way, what's …"
    if words.len() > 3 && words[..3].iter().map(|w| bare(w)).eq(["by", "the", "way"]) {
        words.drain(..3);
    }
    let start = words
        .iter()
        .position(|w| !FILLER.contains(&bare(w).as_str()))?;
    let words = &words[start..];
    let lower: Vec<String> = words.iter().map(|w| bare(w)).collect();
    for (opening, says) in ASKING {
        let n = opening.split_whitespace().count();
        if lower.len() > n && lower[..n].join(" ") == *opening {
            let rest = third_person(&words[n..].join(" "));
            let text = says.replace("{}", &rest);
            return substantial(&text).then_some(text);
        }
    }
    None
}

/// `text` with the user's and the assistant's pronouns in the third person: "I" → "they", "my"
/// → "their", "you" → "the assistant".
fn third_person(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let core = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '\u{2019}');
        let lower = core.to_lowercase().replace('\u{2019}', "'");
        let after_i = i > 0 && matches!(bare(words[i - 1]).as_str(), "i");
        let to = match lower.as_str() {
            "i" => "they",
            "i'm" | "im" => "they're",
            "i've" | "ive" => "they've",
            "i'd" => "they'd",
            "i'll" => "they'll",
            "me" => "them",
            "my" => "their",
            "mine" => "theirs",
            "myself" => "themself",
            "we" => "they",
            "we're" => "they're",
            "we've" => "they've",
            "our" => "their",
            "ours" => "theirs",
            "us" => "them",
            "you" | "u" | "yourself" => "the assistant",
            "your" | "yours" | "ur" => "the assistant's",
            "you're" => "the assistant is",
            "you've" => "the assistant has",
            "am" if after_i => "are",
            "was" if after_i => "were",
            _ => {
                out.push((*w).to_string());
                continue;
            }
        };
        out.push(w.replacen(core, to, 1));
    }
    out.join(" ")
}

/// Sentences of `text`, each with whether it asks.
fn sentences(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let at_end = chars.get(i + 1).is_none_or(|n| n.is_whitespace());
        if (matches!(c, '.' | '!' | '?') && at_end) || c == '\n' {
            let s = cur.trim().to_string();
            if !s.is_empty() {
                out.push((s, c == '?'));
            }
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    let s = cur.trim().to_string();
    if !s.is_empty() {
        out.push((s, false));
    }
    out
}

/// `text` as a summary: one line, at most [`MAX_CHARS`], never on a word that leaves it hanging
/// ("the", "of", "and"), no trailing punctuation. A longer one is cut only where a clause ends: at
/// a comma or before a word that opens a clause ([`CLAUSE_OPENERS`]: "… suggestions on
/// destinations | that are good for both solo and family trips"); with no such place in its
/// first 100 characters it is not a summary (the next candidate is tried).
fn finish(text: &str) -> Option<String> {
    let mut t: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    t.retain(|c| !matches!(c, '*' | '`' | '"' | '“' | '”' | '[' | ']' | '{' | '}'));
    if t.chars().count() > MAX_CHARS {
        let head: String = t.chars().take(MAX_CHARS + 1).collect();
        let opens = |i: usize| {
            let next = head[i + 1..].split(' ').next().unwrap_or_default();
            CLAUSE_OPENERS.contains(&bare(next).as_str())
        };
        let before_opener = head.rmatch_indices(' ').map(|(i, _)| i).find(|&i| opens(i));
        let cut = head.rfind(',').into_iter().chain(before_opener).max()?;
        if cut < MAX_CHARS / 3 {
            return None;
        }
        t = head[..cut].to_string();
    }
    loop {
        t = t
            .trim_end_matches(|c: char| !c.is_alphanumeric() && c != ')')
            .to_string();
        let Some((rest, last)) = t.rsplit_once(' ') else {
            break;
        };
        if !HANGING.contains(&bare(last).as_str()) && !DANGLING.contains(&bare(last).as_str()) {
            break;
        }
        t = rest.to_string();
    }
    substantial(&t).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::parse;

    fn session(turns: &[(&str, &str)]) -> Session {
        let text: String = turns
            .iter()
            .map(|(role, content)| {
                serde_json::json!({"role": role, "content": content}).to_string() + "\n"
            })
            .collect();
        let (lines, _) = parse(&text);
        Session {
            id: "s".into(),
            path: "s.jsonl".into(),
            modified: "2026-11-01T10:00:00Z".parse().unwrap(),
            lines,
            numbers: Vec::new(),
            skipped: 0,
            ..Session::default()
        }
    }

    fn in_lang(turns: &[(&str, &str)], lang: Lang) -> Option<String> {
        let reader = lang_reader::of(lang).expect("a read language");
        in_its_language(&session(turns), reader)
    }

    /// Issue #50: beyond English a session's summary is what the user asked the assistant for,
    /// in their words and their language's frame; small talk, questions about the assistant and
    /// a secret give none (hand-written, and XPersona's small talk: "hai animali domestici?").
    #[test]
    fn beyond_english_a_summary_quotes_what_was_asked() {
        for (turns, lang, want) in [
            (
                vec![
                    ("user", "Salut ! Ça va ?"),
                    ("assistant", "Très bien, et toi ?"),
                    ("user", "Explique-moi comment fonctionne un transistor."),
                ],
                Lang::French,
                Some("A demandé : « Explique-moi comment fonctionne un transistor. »"),
            ),
            (
                vec![("user", "Hola. ¿Qué puedo cenar esta noche sin gluten?")],
                Lang::Spanish,
                Some("Preguntó: «¿Qué puedo cenar esta noche sin gluten?»"),
            ),
            (
                vec![("user", "你好！给我一个关于春天的成语。")],
                Lang::Chinese,
                Some("问：“给我一个关于春天的成语。”"),
            ),
            (
                vec![("user", "京都でおすすめのお寺はありますか？")],
                Lang::Japanese,
                Some("質問：「京都でおすすめのお寺はありますか？」"),
            ),
            (
                vec![
                    ("user", "J'ai deux chiens. Et toi, tu as des animaux ?"),
                    ("assistant", "Je n'en ai pas."),
                    ("user", "Ah bon. Quoi de neuf ?"),
                ],
                Lang::French,
                None,
            ),
            (
                vec![("user", "Mein Passwort ist Sonne2024, ist das sicher genug?")],
                Lang::German,
                None,
            ),
            (vec![("user", "你喜欢什么音乐？")], Lang::Chinese, None),
            (
                vec![("user", "Ciao! Hai animali domestici? Io ho due gatti.")],
                Lang::Italian,
                None,
            ),
            // A sentence alone is short for the detector (this one reads as Portuguese): its
            // turn tells the language.
            (
                vec![(
                    "user",
                    "Hola. Dame tres ideas de regalo para mi hermana, que cumple treinta años.",
                )],
                Lang::Spanish,
                Some(
                    "Preguntó: «Dame tres ideas de regalo para mi hermana, que cumple treinta años.»",
                ),
            ),
            // An English sentence in a French turn is not quoted in a French line.
            (
                vec![(
                    "user",
                    "Salut ! Je prépare un dîner ce soir pour des amis. Any ideas for a vegetarian dinner?",
                )],
                Lang::French,
                None,
            ),
        ] {
            assert_eq!(in_lang(&turns, lang).as_deref(), want, "{turns:?}");
        }
    }

    fn of(user: &str) -> Option<String> {
        by_rule(&session(&[
            ("user", user),
            ("assistant", "Sure! Here are some ideas."),
        ]))
    }

    #[test]
    fn a_summary_says_what_the_user_asked_in_their_words() {
        for (user, want) in [
            (
                "I've been collecting vintage cameras for three months now. Do you have any advice on how to keep my cameras organized?",
                "Asked for advice on how to keep their cameras organized",
            ),
            (
                "Can you recommend any good budgeting apps? I spend a lot.",
                "Asked the assistant to recommend any good budgeting apps",
            ),
            (
                "how do I rotate nginx logs with logrotate?",
                "Asked how to rotate nginx logs with logrotate",
            ),
            (
                "By the way, what's a good music streaming service for ambient and lo-fi genres?",
                "Asked about a good music streaming service for ambient and lo-fi genres",
            ),
        ] {
            assert_eq!(of(user).as_deref(), Some(want), "{user}");
        }
    }

    #[test]
    fn without_a_question_it_says_what_the_user_said_of_themself() {
        assert_eq!(
            of("I moved to Lisbon last year and I teach chemistry there.").as_deref(),
            Some("Said they moved to Lisbon last year, and they teach chemistry there")
        );
        assert_eq!(of("ok thanks"), None);
    }

    /// The lines from persona chats, each no summary now; what the user said of
    /// themself is.
    #[test]
    fn greetings_reactions_and_questions_to_the_assistant_are_no_summary() {
        for user in [
            "Oh, that's cool.",
            "Hello, my name is (user 1 name).",
            "That sounds like a tough job.",
            "What kind of truck do you drive?",
            "Wow, nice. How are you doing today?",
            "It's nice to meet you too, Jane.",
            "I hope you can find a better job soon.",
            "I like to get mine from user1_shawarma_place.",
        ] {
            assert_eq!(of(user), None, "{user}");
        }
        assert_eq!(
            of("Oh, that's cool. I drive a truck for a living.").as_deref(),
            Some("Said they drive a truck for a living")
        );
    }

    #[test]
    fn a_reply_to_the_assistant_is_summarised_by_what_it_says() {
        // The written update case en-smoke: "Said Not anymore, they quit in 2022" before.
        let s = session(&[
            ("assistant", "Do you still smoke?"),
            ("user", "Not anymore, I quit in 2022."),
        ]);
        let all = candidates(&s);
        assert!(all.iter().all(|t| !t.contains("Not anymore")), "{all:?}");
        assert_eq!(
            all.first().map(String::as_str),
            Some("Said they quit smoking in 2022")
        );
    }

    #[test]
    fn a_summary_is_never_cut_off_nor_a_list_of_keywords() {
        let long = "Can you help me plan a two week trip through the north of Portugal, starting in Porto and ending in the Douro valley with a few days of hiking and some wine tasting along the way?";
        let got = of(long).unwrap();
        assert!(got.chars().count() <= MAX_CHARS, "{got}");
        let last = got.rsplit(' ').next().unwrap();
        assert!(
            !HANGING.contains(&last) && !DANGLING.contains(&last),
            "{got}"
        );
        assert!(
            got.starts_with("Asked the assistant to help them plan"),
            "{got}"
        );
        assert!(!got.contains("Talked about"), "{got}");
        // Cut where a clause ends, not inside a phrase ("… good for both solo").
        let long = "Can you give me some suggestions on destinations that are good for both solo and family travel, especially in Europe?";
        assert_eq!(
            of(long).as_deref(),
            Some("Asked the assistant to give them some suggestions on destinations")
        );
    }
}
