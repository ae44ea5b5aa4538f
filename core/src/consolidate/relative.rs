//! A fact the user tells in a relative clause about their own thing, inside a question or after
//! a clause that is no fact itself: "Can you recommend games similar to Celeste, which took me
//! 10 hours to complete?" says "It took me 10 hours to complete Celeste"; "… reminders for my gym
//! sessions, which I usually go to at 7:00 pm on Mondays?" says "I usually go to my gym sessions
//! at 7:00 pm on Mondays". The question is still a question; the clause is a disclosure of its
//! own, built only of the user's words.

use super::lexicon::{
    ADVERBS, INTENSIFIERS, NOT_A_DOING, NOT_FACTUAL, NOT_THE_THING, PREPOSITIONS,
};
use super::things::{comma_pieces, last_title, my_thing};
use crate::words::bare;

/// The statement a relative clause of `text` makes about the thing it follows, if it makes one.
pub fn told_of_the_thing(text: &str) -> Option<String> {
    let pieces = comma_pieces(text);
    for k in 1..pieces.len() {
        let lower: Vec<String> = pieces[k].split_whitespace().map(bare).collect();
        if !matches!(lower.first().map(String::as_str), Some("which" | "that")) {
            continue;
        }
        let Some(thing) = thing_at_end(pieces[k - 1]) else {
            continue;
        };
        // "… on Mondays, Wednesdays, and Fridays": a list goes on past the commas.
        let mut relative = pieces[k].trim().to_string();
        for p in &pieces[k + 1..] {
            let first = p.split_whitespace().find(|w| bare(w) != "and");
            if !first.is_some_and(|w| w.chars().next().is_some_and(char::is_uppercase)) {
                break;
            }
            relative = format!("{relative},{p}");
        }
        if let Some(s) = statement(&relative, &thing) {
            return Some(s);
        }
    }
    None
}

/// The user's thing that `piece` ends on: a title ("The Last of Us Part II") or "my …" ("my gym
/// sessions").
fn thing_at_end(piece: &str) -> Option<String> {
    let words: Vec<&str> = piece.split_whitespace().collect();
    let last = bare(words.last()?);
    if let Some((mine, _)) = my_thing(piece)
        && mine.rsplit(' ').next().is_some_and(|w| bare(w) == last)
    {
        return Some(mine);
    }
    // A title of several words, or a one-word name ("Celeste").
    let end = words[words.len() - 1].trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
    let named =
        words.len() >= 2 && end != "I" && end.chars().next().is_some_and(char::is_uppercase);
    let title = last_title(piece).or_else(|| named.then(|| end.to_string()))?;
    let n = title.split_whitespace().count();
    let ends_the_piece = title.rsplit(' ').next().is_some_and(|w| bare(w) == last);
    let before = words.len().checked_sub(n + 1).map(|i| bare(words[i]));
    if !ends_the_piece
        || before
            .as_deref()
            .is_some_and(|b| NOT_THE_THING.contains(&b))
    {
        return None;
    }
    // "a Korg B1": the article stays with the name.
    Some(match before.as_deref() {
        Some(a @ ("a" | "an" | "the")) => format!("{a} {title}"),
        _ => title,
    })
}

/// "which I usually go to at 7:00 pm" + "my gym sessions" → "I usually go to my gym sessions at
/// 7:00 pm"; "which took me 10 hours to complete" + "Celeste" → "It took me 10 hours to
/// complete Celeste".
fn statement(relative: &str, thing: &str) -> Option<String> {
    let words: Vec<&str> = relative.split_whitespace().collect();
    let lower: Vec<String> = words.iter().map(|w| bare(w)).collect();
    if lower.iter().any(|w| {
        crate::words::SECOND_PERSON.contains(&w.as_str()) || NOT_FACTUAL.contains(&w.as_str())
    }) {
        return None;
    }
    // "which took me 10 hours to complete": the thing is what the user completed.
    if lower.get(1).is_some_and(|w| w == "took")
        && lower.get(2).is_some_and(|w| w == "me" || w == "us")
    {
        let n = lower.len();
        let ends_on_a_verb = n >= 5 && lower[n - 2] == "to";
        return ends_on_a_verb.then(|| format!("It {} {thing}", words[1..].join(" ")));
    }
    let subject = lower.get(1)?;
    if !matches!(
        subject.as_str(),
        "i" | "i've" | "i'd" | "i'm" | "we" | "we've"
    ) {
        return None;
    }
    let mut v = 2;
    while lower
        .get(v)
        .is_some_and(|w| ADVERBS.contains(&w.as_str()) || INTENSIFIERS.contains(&w.as_str()))
    {
        v += 1;
    }
    let verb = lower.get(v)?;
    if NOT_A_DOING.contains(&verb.as_str()) {
        return None;
    }
    // "go to at 7:00 pm": the preposition left at the verb takes the thing; "got from a sports
    // store" takes its own object, and the thing goes before it.
    let stranded = lower
        .get(v + 1)
        .is_some_and(|p| PREPOSITIONS.contains(&p.as_str()))
        && lower
            .get(v + 2)
            .is_none_or(|w| PREPOSITIONS.contains(&w.as_str()) && w != "about");
    let at = if stranded { v + 2 } else { v + 1 };
    let at = at.min(words.len());
    let mut out: Vec<&str> = words[1..at].to_vec();
    out.push(thing);
    out.extend_from_slice(&words[at..]);
    (out.len() >= 3).then(|| {
        out.join(" ")
            .trim_end_matches([',', '.', '?', '!'])
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::told_of_the_thing;

    #[test]
    fn the_relative_clause_of_a_question_tells_of_the_users_thing() {
        let cases = [
            (
                "Can you recommend any games similar to Celeste, which took me 10 hours to complete",
                Some("It took me 10 hours to complete Celeste"),
            ),
            (
                "Can you suggest the best way to set reminders for my gym sessions, which I usually go to at 7:00 pm on Mondays, Wednesdays, and Fridays",
                Some(
                    "I usually go to my gym sessions at 7:00 pm on Mondays, Wednesdays, and Fridays",
                ),
            ),
            (
                "Do you have any recommendations for games similar to The Last of Us Part II, which I recently completed on both normal and hard difficulties",
                Some(
                    "I recently completed The Last of Us Part II on both normal and hard difficulties",
                ),
            ),
            (
                "Any tips for my new tennis racket, which I got from a sports store downtown",
                Some("I got my new tennis racket from a sports store downtown"),
            ),
            // A place or a service is not the thing; a wish or the assistant's word is no fact.
            (
                "Can you recommend something similar on Hulu, which I'm really enjoying",
                None,
            ),
            ("Any games like Celeste, which I would love to replay", None),
            ("Any games like Celeste, which you mentioned", None),
            (
                "I need a stand for a Korg B1, which I've had for about 3 years",
                Some("I've had a Korg B1 for about 3 years"),
            ),
            (
                "My renovations, which I estimate will cost around $20,000",
                Some("I estimate my renovations will cost around $20,000"),
            ),
            ("Can you recommend some games that I might enjoy", None),
        ];
        for (q, want) in cases {
            assert_eq!(told_of_the_thing(q).as_deref(), want, "{q}");
        }
    }
}
