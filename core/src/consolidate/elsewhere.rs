//! Clauses that lean on another turn: first-person clauses whose subject is the user but whose
//! meaning was said elsewhere ("I love the lyrics" — of what?, "I've been playing both
//! instruments" — which?, "I'm a much better cook" — than whom?). A reader of the store alone
//! cannot tell what they are about, so `disclose` drops them.

use super::lexicon::{
    AFTERWORDS, ASPECTS, CHILDHOOD, COMPARISONS, DANGLING, ELIDED_INFINITIVE, LIKING, QUANTIFIERS,
    STANDING_FOR,
};
use super::rules::Rule;

/// The rule by which `lower` (a clause's words, lower-cased and bare) leans on another turn, if
/// one does.
pub fn leans_elsewhere(lower: &[String]) -> Option<Rule> {
    let w: Vec<&str> = lower.iter().map(String::as_str).collect();
    let has = |x: &str| w.contains(&x);
    // "One time I was doing a stunt": an anecdote, a moment and not a fact.
    let anecdote = w.starts_with(&["one", "time"]);
    // "both instruments" with no "and" to say which two.
    let both = w
        .iter()
        .position(|x| *x == "both")
        .is_some_and(|i| i + 1 < w.len() && !w[i + 1..].contains(&"and"));
    let standing = w
        .iter()
        .enumerate()
        .any(|(i, x)| STANDING_FOR.contains(x) && (i == 0 || w[i - 1] != "of"));
    let joined = format!(" {} ", w.join(" "));
    let comparative = COMPARISONS
        .iter()
        .any(|(c, with)| joined.contains(&format!(" {c} ")) && !has(with));
    let mut end = w.len();
    while end > 1 && AFTERWORDS.contains(&w[end - 1]) {
        end -= 1;
    }
    let dangling = end > 0 && DANGLING.contains(&w[end - 1]);
    // "I've never met a bee farmer (before)": a reply to what the assistant said it is.
    let never_met = w
        .windows(3)
        .any(|t| t[0] == "never" && t[1] == "met" && matches!(t[2], "a" | "an"));
    // "I'm too scared": too much for what, said elsewhere.
    let too = w.len() >= 3
        && w[w.len() - 2] == "too"
        && matches!(w[w.len() - 3], "i'm" | "im" | "am" | "was" | "be");
    // "I have two of my own": of my own what?
    let own = w.ends_with(&["of", "my", "own"])
        && w.len() >= 4
        && (w[w.len() - 4].chars().all(|c| c.is_ascii_digit())
            || crate::words::number_value(w[w.len() - 4]).is_some()
            || QUANTIFIERS.contains(&w[w.len() - 4]));
    // "some more trails": more than the ones said before.
    let more = w
        .windows(2)
        .any(|p| matches!(p[0], "some" | "any" | "few" | "couple") && p[1] == "more");
    let elided =
        w.len() >= 2 && w[w.len() - 2] == "the" && ELIDED_INFINITIVE.contains(&w[w.len() - 1]);
    let childhood = w.len() <= 4
        && matches!(w.first(), Some(&"i"))
        && w.get(1) == Some(&"was")
        && w.last().is_some_and(|x| CHILDHOOD.contains(x));
    [
        (anecdote, Rule::Anecdote),
        (both, Rule::Both),
        (standing, Rule::StandsFor),
        (comparative, Rule::Comparison),
        (more, Rule::SomeMore),
        (elided, Rule::ElidedInfinitive),
        (childhood, Rule::Childhood),
        (dangling, Rule::CutOff),
        (never_met, Rule::NeverMet),
        (too, Rule::TooWhat),
        (own, Rule::OfMyOwn),
        (aspect(&w), Rule::Aspect),
    ]
    .into_iter()
    .find_map(|(fires, rule)| fires.then_some(rule))
}

/// "I love the story and the characters": a liking verb whose objects, after "the", are all
/// aspects of something, and nothing after them says of what.
fn aspect(w: &[&str]) -> bool {
    let Some(v) = w.iter().position(|x| LIKING.contains(x)) else {
        return false;
    };
    if w.get(v + 1) != Some(&"the") {
        return false;
    }
    let object = &w[v + 1..];
    let heads: Vec<&str> = object
        .split(|x| *x == "and" || *x == "or")
        .filter_map(|part| part.last().copied())
        .collect();
    !heads.is_empty() && heads.iter().all(|h| ASPECTS.contains(h))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leans(clause: &str) -> bool {
        let lower: Vec<String> = clause.split_whitespace().map(crate::words::bare).collect();
        leans_elsewhere(&lower).is_some()
    }

    #[test]
    fn a_clause_about_something_said_elsewhere_leans_on_it() {
        for clause in [
            "I love the lyrics",
            "I love the story and the characters",
            "I love the peace and quiet",
            "I liked the camaraderie",
            "I love the car chases",
            "I've been playing both instruments since I was a kid",
            "I like to add some walnuts or pecans to mine",
            "I'm a much better cook",
            "I'm hoping to go to some more trails this year",
            "One time I was doing a stunt for a movie",
            "I've never had the time",
            "I was a kid",
            "my favorite song is",
            "I do sometimes",
            "I've never met a bee farmer before",
            "I'm too scared",
            "I have two of my own",
            "I have similar taste in music",
            "I'm more into nonfiction",
            "I like the beats and lyrics",
        ] {
            assert!(leans(clause), "{clause}");
        }
    }

    #[test]
    fn a_clause_that_names_what_it_is_about_stands_alone() {
        for clause in [
            "I love the beach",
            "I love the color blue",
            "I miss the mountains",
            "I love the Harry Potter series",
            "I love the music of the Beatles",
            "I have both a cat and a dog",
            "I'm in a band with some friends of mine",
            "I like cats better than dogs",
            "I want to learn more about history",
            "I spend all my time with my kids",
            "I was a nurse for ten years",
            "my favorite song is Yellow",
            "I do yoga sometimes",
            "I've never met my father",
            "my parents still live in Mississauga and they're impossible to buy for",
            "I love helping people find the books they're looking for",
            "I'm too old to learn to skate",
            "I have a house of my own",
            "I have similar taste to my sister",
            "I'm more into nonfiction than fiction",
        ] {
            assert!(!leans(clause), "{clause}");
        }
    }
}
