//! Guards that hold even when the model fails: plain rules that refuse a candidate fact or
//! summary (a repetition loop, the assistant's voice, a fragment, a fact about the assistant, a
//! copy of the prompt's example, an ungrounded guess), each with the reason shown to the user.

use std::collections::HashSet;

use super::lexicon::{ASSISTANT_OPENERS, FRAME_WORDS, VERBS};
pub use crate::refusal::Refusal;
use crate::words::{content_words, occurs_in, tokens as words};

/// A fact is grounded when at least this share of its content words occur in what the user typed.
pub const MIN_GROUNDED: f32 = 0.6;
/// A text is a copy of the example when at least this share of its content words occur only in
/// the prompt's examples, not in what the user typed.
pub const MAX_FROM_EXAMPLES: f32 = 0.5;
/// A word n-gram (n = 1..=4) repeated this many times in a row is a repetition loop.
pub const LOOP_REPEATS: usize = 3;
/// ... and so is one that occurs 3+ times and covers more than this share of the words.
pub const LOOP_COVER: f32 = 0.5;
/// Content words a text that does not start with "User" needs (and any summary).
pub const MIN_CONTENT_WORDS: usize = 3;

/// What the guards know about the session a candidate came from.
pub struct Context<'a> {
    /// Everything the user typed in the session(s) read (not tool output), recalled blocks
    /// already stripped.
    pub user_text: &'a str,
    /// What the assistant said in them.
    pub assistant_text: &'a str,
    /// The prompt's own few-shot example texts (inputs and outputs).
    pub examples: &'a [&'a str],
}

/// Why a semantic candidate must not be stored, if it must not.
pub fn refuse_fact(text: &str, cx: &Context) -> Option<Refusal> {
    repetition_loop(text)
        .or_else(|| wrong_voice(text))
        .or_else(|| fact_fragment(text))
        .or_else(|| about_assistant(text, cx))
        .or_else(|| example_copy(text, cx))
        .or_else(|| ungrounded(text, cx.user_text))
}

/// Why the user's own sentence in a language beyond English must not be stored, if it must not:
/// the guards that read any language (a loop, words the user never typed). Voice and fragments
/// are English rules, and no model wrote the text.
pub fn refuse_typed(text: &str, cx: &Context) -> Option<Refusal> {
    repetition_loop(text).or_else(|| ungrounded(text, cx.user_text))
}

/// Why a one-line episodic summary must not be stored, if it must not. Summaries describe the
/// whole session in the model's words, so they are not held to the grounding rule.
pub fn refuse_summary(text: &str, cx: &Context) -> Option<Refusal> {
    repetition_loop(text)
        .or_else(|| wrong_voice(text))
        .or_else(|| (content(text).len() < MIN_CONTENT_WORDS).then_some(Refusal::Fragment))
        .or_else(|| cut_off(text).then_some(Refusal::Fragment))
        .or_else(|| example_copy(text, cx))
        .or_else(|| summary_invents(text, cx).then_some(Refusal::Ungrounded))
}

/// Whether a summary stops mid-phrase: on a comma, or on a word that needs what follows ("She
/// was a big,", "… with the").
fn cut_off(text: &str) -> bool {
    let t = text.trim_end();
    t.ends_with([',', ';', ':', '-'])
        || t.split_whitespace().last().is_some_and(|w| {
            let w = crate::words::bare(w);
            super::lexicon::DANGLING.contains(&w.as_str())
                || matches!(w.as_str(), "of" | "to" | "for" | "with" | "from" | "that")
        })
}

/// Whether a summary holds a content word the user never typed in the session (its opening
/// verb and the frame words of `lexicon::FRAME` aside): "Drafted a new kitten" for a session
/// about adopting a cat.
fn summary_invents(text: &str, cx: &Context) -> bool {
    let typed = content_words(cx.user_text);
    content(text)
        .iter()
        .skip(1)
        .filter(|w| !super::lexicon::FRAME.contains(&w.as_str()))
        .any(|w| !occurs_in(w, &typed))
}

/// The content words of `text` without "user" (`content_words` keeps it from "User's").
fn content(text: &str) -> Vec<String> {
    let mut w = content_words(text);
    w.retain(|x| x != "user");
    w
}

/// Rule 1: a word n-gram (n = 1..=4) repeated [`LOOP_REPEATS`] times in a row, or occurring
/// that often and covering more than [`LOOP_COVER`] of the words.
pub fn repetition_loop(text: &str) -> Option<Refusal> {
    let w = words(text);
    for n in 1..=4 {
        if w.len() < n * LOOP_REPEATS {
            break;
        }
        let mut counts: std::collections::HashMap<&[String], usize> = Default::default();
        for i in 0..=w.len() - n {
            let gram = &w[i..i + n];
            let in_a_row =
                (1..LOOP_REPEATS).all(|k| w.get(i + k * n..i + (k + 1) * n) == Some(gram));
            if in_a_row {
                return Some(Refusal::Loop);
            }
            *counts.entry(gram).or_default() += 1;
        }
        let covers = |c: usize| c >= LOOP_REPEATS && (c * n) as f32 > LOOP_COVER * w.len() as f32;
        if counts.values().any(|&c| covers(c)) {
            return Some(Refusal::Loop);
        }
    }
    None
}

/// Rule 2: an assistant's opener or any second-person pronoun (the assistant's voice), or any
/// first-person pronoun. Facts are "User …", summaries are "Debugged …". A word in capitals
/// ("ME", "US") is an acronym, not a pronoun; "mine" is not counted (a coal mine).
pub fn wrong_voice(text: &str) -> Option<Refusal> {
    let start = words(text).join(" ");
    let acronym = |x: &&str| crate::words::is_acronym(x);
    let w = words(
        &text
            .split_whitespace()
            .filter(|x| !acronym(x))
            .collect::<Vec<_>>()
            .join(" "),
    );
    let opener = ASSISTANT_OPENERS
        .iter()
        .any(|o| start == *o || start.starts_with(&format!("{o} ")));
    if opener
        || w.iter()
            .any(|x| crate::words::is_second_person_written_out(x))
    {
        Some(Refusal::AssistantVoice)
    } else if w
        .iter()
        .any(|x| x != "mine" && crate::words::is_any_first_person(x))
    {
        Some(Refusal::FirstPerson)
    } else {
        None
    }
}

/// Whether the text starts with the word "User" or "User's", as the extraction prompt asks.
fn starts_with_user(text: &str) -> bool {
    words(text)
        .first()
        .is_some_and(|w| w == "user" || w == "user's")
}

/// Rule 3: a fact needs at least one content word and must start with "User"/"User's" or hold
/// [`MIN_CONTENT_WORDS`] content words ("Guinea pig" is refused, "User is coeliac" passes).
pub fn fact_fragment(text: &str) -> Option<Refusal> {
    let n = content(text).len();
    let ok = n >= MIN_CONTENT_WORDS || (n >= 1 && starts_with_user(text));
    (!ok).then_some(Refusal::Fragment)
}

/// The capitalised words of `text` ("Sam", "Lisbon"), possessive cut, except "User" and "I".
fn names(text: &str) -> Vec<String> {
    text.replace('\u{2019}', "'")
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\''))
        .map(|w| w.strip_suffix("'s").unwrap_or(w))
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .filter(|w| !matches!(*w, "User" | "I"))
        .map(str::to_string)
        .collect()
}

/// Rule 4: a name in the candidate that the assistant used and the user never typed ("I'm Sam,
/// your assistant" → "User's name is Sam").
pub fn about_assistant(text: &str, cx: &Context) -> Option<Refusal> {
    let said: HashSet<String> = names(cx.assistant_text).into_iter().collect();
    // "Corey Schafer's" typed is "Schafer" named: the possessive is cut on both sides.
    let typed: HashSet<String> = words(cx.user_text)
        .into_iter()
        .map(|w| w.strip_suffix("'s").map(str::to_string).unwrap_or(w))
        .collect();
    names(text)
        .iter()
        .any(|n| said.contains(n) && !typed.contains(&n.to_lowercase()))
        .then_some(Refusal::AboutAssistant)
}

/// The content words of `text` that say something: "user" and the frame words left out.
fn substance(text: &str) -> Vec<String> {
    let mut w = content(text);
    w.retain(|x| !FRAME_WORDS.contains(&x.as_str()));
    w
}

/// Rule 5: the text appears word for word in an example (and not all its content words were
/// typed by the user), or [`MAX_FROM_EXAMPLES`] of its content words (frame words aside) occur
/// only in the examples.
pub fn example_copy(text: &str, cx: &Context) -> Option<Refusal> {
    let mine = substance(text);
    if mine.is_empty() {
        return None;
    }
    let typed = content_words(cx.user_text);
    let shown: Vec<String> = cx.examples.iter().flat_map(|e| content_words(e)).collect();
    let key = format!(" {} ", words(text).join(" "));
    let verbatim = cx
        .examples
        .iter()
        .any(|e| format!(" {} ", words(e).join(" ")).contains(&key));
    let all_typed = mine.iter().all(|w| occurs_in(w, &typed));
    let only_shown = mine
        .iter()
        .filter(|w| occurs_in(w, &shown) && !occurs_in(w, &typed))
        .count();
    let copied =
        (verbatim && !all_typed) || only_shown as f32 >= MAX_FROM_EXAMPLES * mine.len() as f32;
    copied.then_some(Refusal::ExampleCopy)
}

/// Rule 6: at least [`MIN_GROUNDED`] of the fact's content words ("user" and the frame words
/// never count) occur in what the user typed.
pub fn ungrounded(text: &str, user_text: &str) -> Option<Refusal> {
    let mine = substance(text);
    let typed = content_words(user_text);
    let found = mine.iter().filter(|w| occurs_in(w, &typed)).count();
    let grounded = !mine.is_empty() && found as f32 >= MIN_GROUNDED * mine.len() as f32;
    (!grounded).then_some(Refusal::Ungrounded)
}

/// The proper nouns (capitalised words after the first) and numbers of `text`, lower-cased.
fn specifics(text: &str) -> HashSet<String> {
    let first = text.split_whitespace().next().unwrap_or("");
    let named = names(text.strip_prefix(first).unwrap_or(text));
    let numbers = words(text)
        .into_iter()
        .filter(|w| w.chars().any(|c| c.is_ascii_digit()));
    named
        .into_iter()
        .map(|n| n.to_lowercase())
        .chain(numbers)
        .collect()
}

/// Rule 8: an UPDATE from `old` to `new` loses information — the new content words are a strict
/// subset of the old, or a proper noun or number of the old is dropped and none takes its place
/// ("walks Pickle every morning" → "walks the dog"; "Toronto" → "Edinburgh" is a change).
pub fn less_specific(new: &str, old: &str) -> bool {
    let n: HashSet<String> = content(new).into_iter().collect();
    let o: HashSet<String> = content(old).into_iter().collect();
    let (ns, os) = (specifics(new), specifics(old));
    let strict_subset = n.len() < o.len() && n.is_subset(&o);
    let dropped = !os.is_subset(&ns) && ns.is_subset(&os);
    strict_subset || dropped
}

/// Whether `w` (lower-cased) looks like a verb: a listed one, or an "-ed" or third-person "-s"
/// form (not "-ss", "-us", "-is", "'s"). Plural nouns look like verbs too; see [`split_compound`].
fn verb_like(w: &str) -> bool {
    VERBS.contains(&w)
        || (w.len() > 3 && w.ends_with("ed"))
        || (w.len() > 2
            && w.ends_with('s')
            && !["ss", "us", "is", "'s"].iter().any(|e| w.ends_with(e)))
}

/// A clause of a compound fact, as a fact of its own: "User …" kept, "runs Debian …" becomes
/// "User runs Debian …"; `None` when it is not a clause: a "User …" part needs a verb and a
/// content word (as in rule 3), any other part a verb first and 2 content words.
fn as_clause(part: &str) -> Option<String> {
    let part = part.trim().trim_end_matches([',', ';', '.']).trim();
    let n = content(part).len();
    let w = words(part);
    let first = w.first()?;
    if first == "user" || first == "user's" {
        let verb = w[1..].iter().any(|x| verb_like(x));
        return (verb && n >= 1).then(|| part.to_string());
    }
    (verb_like(first) && n >= 2).then(|| format!("User {part}"))
}

/// Split a candidate that packs two facts at "; ", ", and " or " and " when both sides are
/// clauses (see `as_clause`): "User uses tabs instead of spaces, and runs Debian on laptop" →
/// ["User uses tabs instead of spaces", "User runs Debian on laptop"]. Otherwise the text as is.
/// A known slip: a plural noun after "and" ("tea and cookies with milk") reads as a verb.
pub fn split_compound(text: &str) -> Vec<String> {
    for sep in ["; ", ", and ", " and "] {
        for (i, _) in text.match_indices(sep) {
            let (left, right) = (&text[..i], &text[i + sep.len()..]);
            if let (Some(l), Some(r)) = (as_clause(left), as_clause(right)) {
                let mut out = split_compound(&l);
                out.extend(split_compound(&r));
                return out;
            }
        }
    }
    vec![text.to_string()]
}

#[cfg(test)]
mod tests;
