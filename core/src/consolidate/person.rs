//! A user's first-person clause in the third person, by rule ("I walk him every morning" →
//! "User walks him every morning"): the fact when the model's rewrite of a disclosure cannot be
//! trusted, and the check that a rewrite kept the user's words.

use std::collections::HashSet;

use crate::recall::lexical::content_words;

/// Past forms (and modals) that stay as they are after "User".
const UNCHANGED: &[&str] = &[
    "was", "had", "got", "went", "flew", "came", "did", "made", "bought", "built", "left", "took",
    "became", "grew", "spent", "met", "began", "wrote", "ran", "sold", "found", "gave", "kept",
    "lost", "read", "said", "saw", "sent", "set", "taught", "thought", "told", "won", "can",
    "will", "must", "might", "may", "should", "could", "would", "used",
];

/// Adverbs between "I" and its verb ("I just adopted", "I always prefer").
const ADVERBS: &[&str] = &[
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
];

/// `clause` with the user as "User": "I'm" → "User is", "I've" → "User has", "my" → "User's"
/// (or "their" once the clause is about "User"), "me" → "them", and the verb after "I" in the
/// third person.
pub fn third_person(clause: &str) -> String {
    let words: Vec<&str> = clause.split_whitespace().collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len() + 1);
    // The next verb (after any adverbs) belongs to "User".
    let mut verb_next = false;
    for w in &words {
        let lower = w.to_lowercase().replace('’', "'");
        let about_user = out.iter().any(|o| o.starts_with("User"));
        // "… and I walk him" → "… and walks him" once the clause is about "User".
        let after_and = about_user && out.last().is_some_and(|p| p == "and");
        let mapped: String = match lower.as_str() {
            "i'm" | "im" if after_and => "is".into(),
            "i've" | "ive" if after_and => "has".into(),
            "i'm" | "im" => "User is".into(),
            "i've" | "ive" => "User has".into(),
            "i'd" => "User would".into(),
            "i'll" => "User will".into(),
            "i" => {
                verb_next = true;
                if after_and {
                    continue;
                }
                "User".into()
            }
            "am" if out.last().is_some_and(|p| p == "User") => "is".into(),
            "my" if about_user => "their".into(),
            "my" => "User's".into(),
            "me" => "them".into(),
            "myself" => "themself".into(),
            "mine" => "theirs".into(),
            _ if verb_next => {
                if ADVERBS.contains(&lower.as_str()) {
                    out.push((*w).to_string());
                    continue;
                }
                verb_next = false;
                let plural_subject = out.len() >= 3 && out[out.len() - 2] == "and";
                if plural_subject {
                    (*w).to_string()
                } else {
                    conjugate(w)
                }
            }
            _ => (*w).to_string(),
        };
        out.push(mapped);
    }
    let s = out.join(" ");
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => s,
    }
}

/// A verb in the third person singular: "walk" → "walks", "watch" → "watches", "carry" →
/// "carries", "have" → "has", "do" → "does"; past forms and modals unchanged.
fn conjugate(verb: &str) -> String {
    let lower = verb.to_lowercase();
    if UNCHANGED.contains(&lower.as_str()) || lower.ends_with("ed") || lower.ends_with("'t") {
        return match lower.as_str() {
            "don't" => "doesn't".into(),
            _ => verb.into(),
        };
    }
    match lower.as_str() {
        "have" => return "has".into(),
        "do" => return "does".into(),
        "am" => return "is".into(),
        "go" => return "goes".into(),
        _ => {}
    }
    if !lower.chars().all(|c| c.is_ascii_alphabetic()) {
        return verb.into();
    }
    let b = lower.as_bytes();
    let n = b.len();
    if ["s", "sh", "ch", "x", "z", "o"]
        .iter()
        .any(|e| lower.ends_with(e))
    {
        format!("{verb}es")
    } else if n > 1 && b[n - 1] == b'y' && !b"aeiou".contains(&b[n - 2]) {
        format!("{}ies", &verb[..verb.len() - 1])
    } else {
        format!("{verb}s")
    }
}

/// Whether `fact` (a rewrite of `clause`) kept the user's words: at least 80% of its content
/// words come from the clause, and it keeps at least 60% of the clause's (matched on their
/// first five letters, so "walks" meets "walk").
pub fn faithful(fact: &str, clause: &str) -> bool {
    let stem = |w: &String| w.chars().take(5).collect::<String>();
    let clause_words: HashSet<String> = content_words(clause).iter().map(stem).collect();
    let fact_words: Vec<String> = content_words(fact).iter().map(stem).collect();
    if fact_words.is_empty() || clause_words.is_empty() {
        return false;
    }
    let from_clause = fact_words
        .iter()
        .filter(|w| clause_words.contains(*w))
        .count();
    let kept: HashSet<&String> = fact_words
        .iter()
        .filter(|w| clause_words.contains(*w))
        .collect();
    from_clause * 5 >= fact_words.len() * 4 && kept.len() * 5 >= clause_words.len() * 3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_become_facts_about_the_user() {
        for (clause, fact) in [
            (
                "I just adopted a beagle named Biscuit and I walk him every morning before work",
                "User just adopted a beagle named Biscuit and walks him every morning before work",
            ),
            ("I'm coeliac", "User is coeliac"),
            (
                "my partner Ewan is Scottish",
                "User's partner Ewan is Scottish",
            ),
            (
                "I moved from Toronto to Edinburgh last month",
                "User moved from Toronto to Edinburgh last month",
            ),
            (
                "I always prefer concise ones",
                "User always prefers concise ones",
            ),
            ("I've got a Go service", "User has got a Go service"),
            ("I watch birds", "User watches birds"),
            ("I carry a Leica", "User carries a Leica"),
            (
                "tidepool is my little RSS reader",
                "Tidepool is User's little RSS reader",
            ),
            ("I don't drink coffee", "User doesn't drink coffee"),
            (
                "Ewan and I are flying to Toronto",
                "Ewan and User are flying to Toronto",
            ),
            (
                "annoyingly I'm left-handed",
                "Annoyingly User is left-handed",
            ),
        ] {
            assert_eq!(third_person(clause), fact, "{clause}");
        }
    }

    #[test]
    fn a_faithful_rewrite_keeps_the_users_words() {
        let clause = "I just adopted a beagle named Biscuit and I walk him every morning";
        assert!(faithful(
            "User adopted a beagle named Biscuit and walks him every morning",
            clause
        ));
        // The few-shot example instead of the user's words.
        assert!(!faithful(
            "User keeps two beehives on their allotment",
            clause
        ));
        // Half the disclosure dropped.
        assert!(!faithful("User adopted a dog", clause));
        // Words the user never said added.
        assert!(!faithful(
            "User adopted a beagle named Biscuit in Lisbon with Marta and her jazz band",
            clause
        ));
    }
}
