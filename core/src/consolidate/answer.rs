//! Answers as disclosures: the user's short reply to the assistant's question, read with the
//! question, as a first-person clause ("Do you have pets?" + "Yes, two dogs" → "I have two dogs";
//! "What's your favorite color?" + "Blue!" → "my favorite color is Blue"), and the object of a
//! question, which an "it" in the reply points at ("Have you tried pottery?" + "I loved it").
//!
//! A no is read with its question too, never inverted: "Do you have kids?" + "No kids, just a
//! cat called Miso" → "I have no kids, just a cat called Miso"; "Are you a morning person?" +
//! "Not at all." → "I'm not a morning person"; "Do you still smoke?" + "Not anymore, I quit in
//! 2022." → "I quit smoking in 2022" ("I used to" → "I don't smoke anymore"); "Do you drink coffee?" + "Never after 3pm." → "I never
//! drink coffee after 3pm". A hedge ("I don't think so", "not sure") or a long reply is left to
//! the clause rules (a reply that says "I …" is a disclosure of its own).

use super::lexicon::{
    FUTURE, LIKE_VERBS, NO, NO_AGAIN, NOT_A_NO, No, OPENERS, STOPPED, YES, YES_ALONE,
};
use crate::words::{bare, fold, tokens};

/// The longest reply (in words) read as a noun phrase answering a question.
const MAX_PHRASE_WORDS: usize = 6;

/// The last question the assistant asked in `text` (its last sentence ending in '?'), without
/// opening filler.
pub fn last_question(text: &str) -> Option<String> {
    let t = text.trim_end();
    if !t.ends_with('?') {
        return None;
    }
    let body = &t[..t.len() - 1];
    let start = body.rfind(['.', '!', '?', '\n']).map_or(0, |i| i + 1);
    let mut q: Vec<&str> = body[start..].split_whitespace().collect();
    while q
        .first()
        .is_some_and(|w| OPENERS.contains(&bare(w).as_str()))
    {
        q.remove(0);
    }
    (!q.is_empty()).then(|| q.join(" "))
}

/// The first sentence of the user's reply, trimmed of end punctuation.
fn first_sentence(reply: &str) -> &str {
    let t = reply.trim();
    let end = t.find(['.', '!', '?', '\n']).unwrap_or(t.len());
    t[..end].trim()
}

/// The reply after a yes-word, if it opens with one: `Some("")` for a bare yes. Only a plain yes
/// says the question's claim: "yes", "yeah", "definitely", … with anything after it, or "I do",
/// "I am", "I'm" standing alone. A reply with its own subject and verb ("I'm a night owl", "I am
/// retired") is its own fact, judged as itself by the clause rules.
fn after_yes(reply: &str) -> Option<String> {
    // Typographic apostrophes made plain in the reply itself, so every offset of the folded copy
    // is one of the text it cuts.
    let s = first_sentence(reply).replace('\u{2019}', "'");
    let lower = fold(&s);
    if YES_ALONE.contains(&lower.trim_end_matches([',', '!', '.'])) {
        return Some(String::new());
    }
    for y in YES {
        if lower == *y {
            return Some(String::new());
        }
        for sep in [" ", ", ", "! ", ". "] {
            let p = format!("{y}{sep}");
            if lower.starts_with(&p) {
                let rest = s[p.len()..].trim_start_matches([',', ' ', '!']).trim();
                // "Yes, I do." says no more than yes.
                let bare_rest = fold(rest);
                let said_nothing =
                    YES.contains(&bare_rest.as_str()) || YES_ALONE.contains(&bare_rest.as_str());
                return Some(if said_nothing {
                    String::new()
                } else {
                    rest.to_string()
                });
            }
        }
    }
    None
}

/// Whether `text` (folded) opens with the words `w`.
fn opens_with(text: &str, w: &str) -> bool {
    text.strip_prefix(w).is_some_and(|r| {
        r.chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric() && c != '\'')
    })
}

/// The reply's no, if it opens with one: what it says, and the rest of its first sentence
/// ("No, not anymore, I quit" → `Anymore`, "I quit"; "No, I don't." → `Not`, ""). A hedge or an
/// opening that answers nothing ("no problem", "No, I don't think so") is no no.
fn after_no(reply: &str) -> Option<(No, String)> {
    // Apostrophes made plain in the reply itself: every offset of the folded copy cuts it.
    let s = first_sentence(reply).replace('\u{2019}', "'");
    let lower = fold(&s);
    let mut kind: Option<No> = None;
    let mut at = 0;
    loop {
        let rest = lower[at..].trim_start_matches([',', ' ', '!', '.', ';']);
        at = lower.len() - rest.len();
        if NOT_A_NO.iter().any(|n| opens_with(rest, n)) {
            return None;
        }
        let Some((n, k)) = NO.iter().find(|(n, _)| opens_with(rest, n)) else {
            break;
        };
        // "No, not anymore": the stronger says it (any longer, then never, then not).
        kind = Some(match (kind, *k) {
            (Some(No::Anymore), _) | (_, No::Anymore) => No::Anymore,
            (Some(No::Never), _) | (_, No::Never) => No::Never,
            _ => No::Not,
        });
        at += n.len();
    }
    let rest = s[at..].trim_matches([',', ' ', '!', '.', ';']).to_string();
    let again = NO_AGAIN.iter().any(|n| opens_with(&fold(&rest), n));
    Some((kind?, if again { String::new() } else { rest }))
}

/// "smoke" → "smoking", "run" → "running", "play the piano" → "playing the piano".
fn gerund(phrase: &str) -> String {
    let (verb, rest) = phrase.split_once(' ').unwrap_or((phrase, ""));
    let c: Vec<char> = verb.chars().collect();
    let vowel = |x: char| "aeiou".contains(x);
    let ing = match c.as_slice() {
        [.., a, 'e'] if *a != 'e' => format!("{}ing", &verb[..verb.len() - 1]),
        [a, b, z] if !vowel(*a) && vowel(*b) && !vowel(*z) && !"wxy".contains(*z) => {
            format!("{verb}{z}ing")
        }
        _ => format!("{verb}ing"),
    };
    if rest.is_empty() {
        ing
    } else {
        format!("{ing} {rest}")
    }
}

/// What the reply says the user stopped, with when: "…, I quit in 2022" → "in 2022"
/// (`Some("")` for "I quit."), unless it names a thing of its own ("I quit my job").
fn stopped_when(reply: &str) -> Option<String> {
    let s = reply.replace('\u{2019}', "'");
    let lower = fold(&s);
    STOPPED.iter().find_map(|p| {
        let at = lower.match_indices(p).map(|(i, _)| i).find(|&i| {
            (i == 0 || !lower[..i].ends_with(char::is_alphanumeric)) && opens_with(&lower[i..], p)
        })?;
        let tail = &s[at + p.len()..];
        let end = tail
            .find(['.', '!', '?', ',', ';', '\n'])
            .unwrap_or(tail.len());
        let tail = tail[..end].trim();
        let first = tail.split_whitespace().next().map(bare);
        let a_time = first.as_deref().is_none_or(|f| {
            matches!(
                f,
                "in" | "last" | "about" | "around" | "back" | "when" | "after" | "years"
            ) || f.chars().all(|c| c.is_ascii_digit())
        });
        a_time.then(|| tail.to_string())
    })
}

/// A time or place after "never" ("Never after 3pm"): a short phrase opening with a preposition.
fn never_when(rest: &str) -> Option<&str> {
    let w = tokens(rest);
    let opens = w.first().is_some_and(|x| {
        matches!(
            x.as_str(),
            "after" | "before" | "on" | "at" | "in" | "during" | "when"
        )
    });
    (opens && w.len() <= MAX_PHRASE_WORDS).then_some(rest)
}

/// What a no to `question` says of the user, as a first-person clause, never its inverse.
fn negated(question: &str, no: No, rest: &str, reply: &str) -> Option<String> {
    if let Some(q) = after(question, "do you have") {
        let what = object(q)?;
        // "Any plans for the weekend?" + "Not really": of the moment, no standing fact.
        if tokens(&what)
            .iter()
            .any(|w| w == "plans" || w == "plan" || FUTURE.contains(&w.as_str()))
        {
            return None;
        }
        // "No kids, just a cat called Miso": the thing asked said again is dropped, what the
        // user has instead kept ("just", "only", "but" and a short noun phrase).
        let asked = tokens(&what);
        let echoes = |t: &str| tokens(t).iter().any(|w| asked.contains(w));
        let tail = match rest.split_once(',') {
            Some((first, after)) if echoes(first) => after.trim(),
            None if echoes(rest) => "",
            _ => rest,
        };
        let instead = tail
            .split_once(' ')
            .filter(|(w, np)| matches!(bare(w).as_str(), "just" | "only") && noun_phrase(np));
        return Some(match instead {
            Some(_) => format!("I have no {what}, {tail}"),
            None => format!("I have no {what}"),
        });
    }
    if let Some(q) = after(question, "are you") {
        let what = object(q)?;
        let a = match q.split_whitespace().next().map(bare).as_deref() {
            Some("a") => "a ",
            Some("an") => "an ",
            _ => "",
        };
        return Some(format!("I'm not {a}{what}"));
    }
    if let Some(q) = after(question, "have you ever") {
        return object(q).map(|o| format!("I have never {o}"));
    }
    let (still, q) = match after(question, "do you still") {
        Some(q) => (true, q),
        None => (false, after(question, "do you")?),
    };
    let mut w = q.splitn(2, ' ');
    let verb = bare(w.next()?);
    if !LIKE_VERBS.contains(&verb.as_str()) {
        return None;
    }
    let doing = match w.next() {
        Some(o) => format!("{verb} {}", object(o)?),
        None => verb,
    };
    Some(match no {
        No::Never => match never_when(rest) {
            Some(when) => format!("I never {doing} {when}"),
            None => format!("I never {doing}"),
        },
        No::Anymore | No::Not if still || no == No::Anymore => match stopped_when(reply) {
            Some(when) if !when.is_empty() => format!("I quit {} {when}", gerund(&doing)),
            Some(_) => format!("I quit {}", gerund(&doing)),
            None => format!("I don't {doing} anymore"),
        },
        No::Not | No::Anymore => format!("I don't {doing}"),
    })
}

/// Whether `s` reads as a short noun phrase: a few words, no pronoun, no verb of its own.
fn noun_phrase(s: &str) -> bool {
    let w = tokens(s);
    let pronoun = |x: &String| {
        matches!(
            x.as_str(),
            "i" | "i'm"
                | "that's"
                | "it's"
                | "there's"
                | "what's"
                | "me"
                | "my"
                | "you"
                | "your"
                | "it"
                | "that"
                | "this"
                | "we"
                | "they"
                | "he"
                | "she"
                | "not"
                | "no"
                | "don't"
                | "is"
                | "are"
                | "was"
                | "do"
                | "does"
                | "have"
                | "has"
                | "think"
                | "guess"
                | "maybe"
        )
    };
    let preposition = w.first().is_some_and(|x| {
        matches!(
            x.as_str(),
            "for"
                | "in"
                | "on"
                | "at"
                | "since"
                | "about"
                | "with"
                | "to"
                | "from"
                | "every"
                | "like"
        )
    });
    !w.is_empty() && w.len() <= MAX_PHRASE_WORDS && !w.iter().any(pronoun) && !preposition
}

/// The words of `question` after `prefix` (matched case-insensitively on whole words).
fn after<'q>(question: &'q str, prefix: &str) -> Option<&'q str> {
    if fold(question).starts_with(&format!("{prefix} ")) {
        Some(question[prefix.len() + 1..].trim())
    } else {
        None
    }
}

/// The question's object with "any"/"ever" dropped ("any pets" → "pets").
fn object(rest: &str) -> Option<String> {
    let mut w: Vec<&str> = rest.split_whitespace().collect();
    while w
        .first()
        .is_some_and(|x| matches!(bare(x).as_str(), "any" | "ever" | "a" | "an" | "some"))
    {
        w.remove(0);
    }
    let o = w.join(" ");
    let o = o.trim_end_matches([',', '.']).to_string();
    // "Did you like it?" names nothing: "it" is in the turn before the question.
    let bad = tokens(&o).iter().any(|x| {
        matches!(
            x.as_str(),
            "you"
                | "your"
                | "yourself"
                | "i"
                | "me"
                | "my"
                | "it"
                | "that"
                | "this"
                | "them"
                | "those"
                | "these"
                | "him"
                | "her"
                | "there"
        )
    });
    (!o.is_empty() && !bad).then_some(o)
}

/// What the user's `reply` to `question` says about them, as a first-person clause.
pub fn as_clause(question: &str, reply: &str) -> Option<String> {
    let phrase = first_sentence(reply);
    let phrase = phrase.trim_end_matches(['.', '!', ',']).trim();
    // "What's your favorite color?" + "Blue!"
    for p in [
        "what's your favorite",
        "what is your favorite",
        "what's your favourite",
        "what is your favourite",
    ] {
        if let Some(rest) = after(question, p) {
            let what = object(rest)?;
            // "My favorite is Alien", "Mine is purple, what's yours?": the thing named.
            let answer = [
                "My favorite is ",
                "My favourite is ",
                "Mine is ",
                "My favorite ",
            ]
            .iter()
            .find_map(|p| strip_prefix_folded(phrase, p))
            .unwrap_or(phrase);
            let answer = answer.split(',').next().unwrap_or(answer).trim();
            return (noun_phrase(answer) && !tokens(&what).iter().any(|w| w == "thing"))
                .then(|| format!("my favorite {what} is {answer}"));
        }
    }
    let asks = |q: &str| question.eq_ignore_ascii_case(q) || after(question, q).is_some();
    if asks("where do you live") {
        return noun_phrase(phrase).then(|| format!("I live in {phrase}"));
    }
    if asks("where are you from") {
        return noun_phrase(phrase).then(|| format!("I'm from {phrase}"));
    }
    if question.eq_ignore_ascii_case("how old are you") {
        let n = phrase.split_whitespace().next()?;
        return n
            .chars()
            .all(|c| c.is_ascii_digit())
            .then(|| format!("I'm {n} years old"));
    }
    if let Some((no, rest)) = after_no(reply) {
        return negated(question, no, &rest, reply);
    }
    let yes = after_yes(reply)?;
    // A yes with more than a noun phrase after it says "I …" itself: the clause rules read it.
    let detail = match yes.as_str() {
        "" => None,
        d if noun_phrase(d) => Some(d),
        _ => return None,
    };
    if let Some(rest) = after(question, "do you have") {
        let what = detail.map(str::to_string).or_else(|| object(rest))?;
        return Some(format!("I have {what}"));
    }
    if let Some(rest) = after(question, "are you") {
        let what = object(rest)?;
        let article = rest.split_whitespace().next().map(bare);
        let a = match article.as_deref() {
            Some("a") => "a ",
            Some("an") => "an ",
            _ => "",
        };
        return Some(format!("I'm {a}{what}"));
    }
    if let Some(rest) = after(question, "have you ever") {
        return object(rest).map(|o| format!("I have {o}"));
    }
    if let Some(rest) = after(question, "do you") {
        let mut w = rest.splitn(2, ' ');
        let verb = bare(w.next()?);
        if !LIKE_VERBS.contains(&verb.as_str()) {
            return None;
        }
        let what = detail.map(str::to_string).or_else(|| object(w.next()?))?;
        return Some(format!("I {verb} {what}"));
    }
    None
}

/// What a dangling "it"/"them"/"that" in a reply to `question` points at: the question's object
/// ("Have you tried pottery?" → "pottery").
pub fn referent(question: &str) -> Option<String> {
    for p in [
        "have you ever tried",
        "have you tried",
        "have you ever been to",
        "have you been to",
        "have you ever seen",
        "have you seen",
        "have you read",
        "have you heard of",
        "have you ever heard of",
        "do you like",
        "do you enjoy",
        "do you play",
        "do you watch",
        "do you know",
        "did you like",
        "did you enjoy",
        "what about",
        "how about",
    ] {
        if let Some(rest) = after(question, p) {
            return object(rest);
        }
    }
    None
}

/// The kind of thing `question` asks about, singular ("What kind of music do you like?" →
/// "music", "What kinds of workouts …" → "workout"): what a reply's bare "my favorite is …"
/// is a favorite of.
pub fn kind_asked(question: &str) -> Option<String> {
    let words: Vec<String> = question.split_whitespace().map(bare).collect();
    let at = words.windows(2).position(|w| {
        matches!(
            w[0].as_str(),
            "kind" | "kinds" | "type" | "types" | "sort" | "sorts"
        ) && w[1] == "of"
    })?;
    let noun = words.get(at + 2)?;
    if noun.is_empty() || !noun.chars().all(char::is_alphabetic) {
        return None;
    }
    let one = match noun.strip_suffix('s') {
        Some(stem) if stem.len() > 3 && !stem.ends_with('s') => stem,
        _ => noun.as_str(),
    };
    Some(one.to_string())
}

/// `text` after `prefix`, matched without regard to case (on a folded copy whose offsets are
/// the text's own).
fn strip_prefix_folded<'t>(text: &'t str, prefix: &str) -> Option<&'t str> {
    fold(text)
        .starts_with(&fold(prefix))
        .then(|| &text[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kind_a_question_asks_about() {
        for (q, want) in [
            ("What kind of music do you like?", Some("music")),
            (
                "That's great! What kind of workouts do you like to do?",
                Some("workout"),
            ),
            ("What types of books do you read?", Some("book")),
            ("What do you like to do?", None),
            ("Any kind of 3D printing?", None),
        ] {
            assert_eq!(kind_asked(q).as_deref(), want, "{q}");
        }
    }

    #[test]
    fn answers_become_first_person_clauses() {
        for (q, a, want) in [
            (
                "Do you have pets?",
                "Yes, two dogs",
                Some("I have two dogs"),
            ),
            ("Do you have any pets?", "Yes, I do.", Some("I have pets")),
            (
                "Do you have any pets?",
                "No, not really.",
                Some("I have no pets"),
            ),
            (
                "Do you have pets?",
                "Yes, I love animals and I have a cat",
                None,
            ),
            (
                "What's your favorite color?",
                "Blue!",
                Some("my favorite color is Blue"),
            ),
            ("What is your favorite thing to do?", "Reading", None),
            ("Are you a teacher?", "Yes", Some("I'm a teacher")),
            ("Do you play chess?", "Yep!", Some("I play chess")),
            ("Do you think so?", "Yes", None),
            ("Where are you from?", "Ohio", Some("I'm from Ohio")),
            ("Where do you live?", "Leith", Some("I live in Leith")),
            ("How old are you?", "34", Some("I'm 34 years old")),
            (
                "Have you ever been to Japan?",
                "Yes!",
                Some("I have been to Japan"),
            ),
            ("Do you like your job?", "Yes", None),
        ] {
            let got = last_question(q).and_then(|q| as_clause(&q, a));
            assert_eq!(got.as_deref(), want, "{q} / {a}");
        }
    }

    /// A no with its question, never inverted. Sources: the replies (tried as a new
    /// user would), Synthetic-Persona-Chat replies (persona) and near misses by hand.
    #[test]
    fn a_no_is_read_with_its_question_never_inverted() {
        for (q, a, want) in [
            // The issue's.
            (
                "Do you still smoke?",
                "Not anymore, I quit in 2022.",
                Some("I quit smoking in 2022"),
            ),
            (
                "Do you still smoke?",
                "I used to, but not since March.",
                Some("I don't smoke anymore"),
            ),
            (
                "Do you have kids?",
                "No kids, just a cat called Miso.",
                Some("I have no kids, just a cat called Miso"),
            ),
            (
                "Are you a morning person?",
                "Not at all.",
                Some("I'm not a morning person"),
            ),
            (
                "Do you drink coffee?",
                "Never after 3pm.",
                Some("I never drink coffee after 3pm"),
            ),
            // Persona.
            (
                "Do you like math class?",
                "No, I hate it!",
                Some("I don't like math class"),
            ),
            (
                "Do you have any pets?",
                "No, I don't have any pets.",
                Some("I have no pets"),
            ),
            (
                "Have you ever been to Italy?",
                "No, I haven't. I really want to go though.",
                Some("I have never been to Italy"),
            ),
            (
                "Do you still play?",
                "No, not anymore. I'm too old and slow for that now.",
                Some("I don't play anymore"),
            ),
            ("Do you work?", "No, I'm a student.", Some("I don't work")),
        ] {
            let got = last_question(q).and_then(|q| as_clause(&q, a));
            assert_eq!(got.as_deref(), want, "{q} / {a}");
        }
    }

    #[test]
    fn a_no_with_what_stopped_and_near_misses() {
        for (q, a, want) in [
            // By hand.
            (
                "Do you still play football?",
                "Not anymore, I stopped last year.",
                Some("I quit playing football last year"),
            ),
            ("Do you still run?", "Nope, I quit.", Some("I quit running")),
            // Near misses: a hedge, an opening that answers nothing, a plan of the moment, a
            // question about someone else, a verb that makes no standing fact (persona).
            (
                "Do you want to have children of your own someday?",
                "No, I don't think so.",
                None,
            ),
            ("Do you need any help?", "No, I'm good.", None),
            (
                "Do you have any plans for the weekend?",
                "Not really, I'm just going to relax.",
                None,
            ),
            ("Are you close with them?", "Not really.", None),
            ("Do you play chess?", "No problem, I can teach you.", None),
            (
                "Do you still play?",
                "No, I quit my job.",
                Some("I don't play anymore"),
            ),
        ] {
            let got = last_question(q).and_then(|q| as_clause(&q, a));
            assert_eq!(got.as_deref(), want, "{q} / {a}");
        }
    }

    #[test]
    fn the_last_question_and_its_object() {
        assert_eq!(
            last_question("That's cool. So, have you tried pottery?").as_deref(),
            Some("have you tried pottery")
        );
        assert_eq!(last_question("Nice to meet you."), None);
        assert_eq!(
            referent("have you tried pottery").as_deref(),
            Some("pottery")
        );
        assert_eq!(referent("what do you do"), None);
    }
}
