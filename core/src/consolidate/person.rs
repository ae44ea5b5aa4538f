//! A user's first-person clause in the third person, by rule ("I walk him every morning" →
//! "User walks him every morning"): the fact when the model's rewrite of a disclosure cannot be
//! trusted, and the check that a rewrite kept the user's words.

use std::collections::HashSet;

use super::lexicon::{
    CONJUGATION_ADVERBS, COORDINATED_VERBS, EXPANDED, HABITS, NOT_NAMES, SAME_IN_THE_PAST,
    UNCHANGED, WEEKDAYS,
};
use crate::words::{content_words, is_acronym, occurs_in};

/// "I'm Priya" / "I am Priya": the user's name, when the clause is a name alone.
fn name_of(clause: &str) -> Option<String> {
    let w: Vec<&str> = clause
        .split_whitespace()
        .map(|x| x.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-'))
        .collect();
    let rest: &[&str] = match w.as_slice() {
        [i, rest @ ..] if matches!(i.to_lowercase().as_str(), "i'm" | "im" | "i’m") => rest,
        [i, am, rest @ ..] if i.eq_ignore_ascii_case("i") && am.eq_ignore_ascii_case("am") => rest,
        [my, name, is, rest @ ..]
            if my.eq_ignore_ascii_case("my")
                && name.eq_ignore_ascii_case("name")
                && is.eq_ignore_ascii_case("is") =>
        {
            rest
        }
        _ => return None,
    };
    let name_like = |x: &&str| {
        x.chars().next().is_some_and(char::is_uppercase)
            && x.chars()
                .skip(1)
                .all(|c| c.is_lowercase() || c == '-' || c == '\'')
            && !NOT_NAMES.contains(x)
    };
    (!rest.is_empty() && rest.len() <= 2 && rest.iter().all(name_like))
        .then(|| format!("User's name is {}", rest.join(" ")))
}

/// Whether the model's `rewrite` keeps the shape of the rule's `ruled` (both of `clause`): no
/// passive the user did not write ("User is liked by camaraderie" for "I liked the
/// camaraderie"), "User's …" stays "User's …" ("User is New Kids on the Block" for "my
/// favorite is New Kids on the Block"), no "is …ing" the rule has not, and no word of the first
/// person left.
pub fn same_shape(rewrite: &str, ruled: &str, clause: &str) -> bool {
    let has_by = |t: &str| t.split_whitespace().any(|w| w.eq_ignore_ascii_case("by"));
    let possessive = |t: &str| t.starts_with("User's");
    // "User is loving …" for "I love …": a moment the user did not write.
    let progressive = |t: &str| {
        let w: Vec<String> = crate::words::tokens(t);
        w.windows(2)
            .filter(|p| matches!(p[0].as_str(), "is" | "i'm" | "am") && p[1].ends_with("ing"))
            .count()
    };
    // "… friends of mine": a first-person word the rewrite forgot ("the US team" has none).
    let first_person = rewrite
        .split_whitespace()
        .filter(|w| !is_acronym(w))
        .flat_map(crate::words::tokens)
        .any(|w| crate::words::is_any_first_person(&w));
    let count = |t: &str, of: &[&str]| {
        crate::words::tokens(t)
            .iter()
            .filter(|w| of.contains(&w.as_str()))
            .count()
    };
    // "listen to music, read books" for "dance, listen to music, and read books": a list
    // whose coordinator went lost an item with it.
    let coordinators = |t: &str| count(t, &["and", "or"]);
    // "User self-employed" for "User is self-employed": the verb went.
    let copulas = |t: &str| count(t, &["is", "are", "was", "were"]);
    // "User is responsible for …" for "I was responsible for …", "User realizes" for "I
    // realized": what was is not what is (LongMemEval).
    let past = |t: &str| {
        crate::words::tokens(t)
            .iter()
            .filter(|w| {
                matches!(w.as_str(), "was" | "were" | "had" | "did")
                    || (w.len() > 4 && w.ends_with("ed") && !w.ends_with("eed"))
            })
            .count()
    };
    (has_by(clause) || !has_by(rewrite))
        && coordinators(rewrite) >= coordinators(ruled)
        && (copulas(ruled) == 0 || copulas(rewrite) > 0)
        && past(rewrite) >= past(ruled)
        && possessive(rewrite) == possessive(ruled)
        && progressive(rewrite) <= progressive(ruled)
        && !first_person
}

/// Whether `fact` is the user's name as the rule writes it ("User's name is Priya"): a model
/// rewrite adds nothing to it.
pub fn is_name(fact: &str) -> bool {
    fact.starts_with("User's name is ")
}

/// `clause` with contractions and slang written out ("I don't" → "I do not").
fn expand(clause: &str) -> String {
    clause
        .split_whitespace()
        .map(|w| {
            let lower = w.to_lowercase().replace('’', "'");
            let core = lower.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '\'');
            let tail = &lower[core.len()..];
            match EXPANDED.iter().find(|(from, _)| *from == core) {
                Some((_, to)) => format!("{to}{tail}"),
                None => w.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `clause` with the user as "User": "I'm" → "User is", "I've" → "User has", "my" and "our" →
/// "User's" (or "their" once the clause is about "User"), "me" and "us" → "them", and the verb
/// after "I" in the third person. "we" after "User" is "they" (the user and whom the clause
/// names with them); a "we" before it stays, so the guard refuses the clause: who "we" are is
/// not in it.
pub fn third_person(clause: &str) -> String {
    if let Some(name) = name_of(clause) {
        return name;
    }
    let clause = expand(clause);
    let mut out: Vec<String> = Vec::new();
    let mut at = Conjugating::default();
    for w in clause.split_whitespace() {
        let lower = w.to_lowercase().replace('’', "'");
        if let Some(word) = at.coordinated(w, &lower) {
            out.push(word);
            continue;
        }
        if lower == "and" && at.present && !at.verb_next {
            at.and_verb = true;
        }
        // "likes to read and write": an infinitive's verbs stay plain.
        if lower == "to" {
            at.present = false;
        }
        if let Some(word) = at.word(w, &lower, &out) {
            out.push(word);
        }
    }
    let s = out.join(" ");
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => s,
    }
}

/// Where [`third_person`] is in its clause, word by word.
#[derive(Default)]
struct Conjugating {
    /// The next verb (after any adverbs) belongs to "User".
    verb_next: bool,
    /// User's verb was conjugated in the present: a verb after "and" shares it ("lives … and
    /// works").
    present: bool,
    /// Just past such an "and".
    and_verb: bool,
}

impl Conjugating {
    /// The word after "and" that shares User's present verb, conjugated (adverbs kept on the
    /// way), or None once past it.
    fn coordinated(&mut self, w: &str, lower: &str) -> Option<String> {
        if !self.and_verb {
            return None;
        }
        if is_adverb(lower) {
            return Some(w.to_string());
        }
        self.and_verb = false;
        COORDINATED_VERBS.contains(&lower).then(|| conjugate(w))
    }

    /// `w` as it reads with the user as "User" (None: it goes, an "I" after "and"), `out` being
    /// the clause so far.
    fn word(&mut self, w: &str, lower: &str, out: &[String]) -> Option<String> {
        let about_user = out.iter().any(|o| o.starts_with("User"));
        // "… and I walk him" → "… and walks him" once the clause is about "User".
        let after_and = about_user && out.last().is_some_and(|p| p == "and");
        match lower {
            "i" => {
                self.verb_next = true;
                return (!after_and).then(|| "User".into());
            }
            "am" if out.last().is_some_and(|p| p == "User") || after_and => {
                self.verb_next = false;
                return Some("is".into());
            }
            _ => {}
        }
        // "the US team": a word in capitals is an acronym, never "us".
        if let Some(p) = pronoun(lower, about_user, after_and).filter(|_| !is_acronym(w)) {
            return Some(p.into());
        }
        if !self.verb_next {
            return Some(w.to_string());
        }
        if is_adverb(lower) {
            return Some(w.to_string());
        }
        self.verb_next = false;
        Some(self.verb(w, lower, out))
    }

    /// User's verb `w`, in the third person.
    fn verb(&mut self, w: &str, lower: &str, out: &[String]) -> String {
        let plural_subject = out.len() >= 3 && out[out.len() - 2] == "and";
        // "I mostly read thrillers": after a habit, "read" is the present.
        let habit = out
            .last()
            .is_some_and(|p| HABITS.contains(&p.to_lowercase().as_str()));
        if plural_subject {
            w.to_string()
        } else if habit && SAME_IN_THE_PAST.contains(&lower) {
            self.present = true;
            format!("{w}s")
        } else {
            let c = conjugate(w);
            self.present = c != w;
            c
        }
    }
}

/// A first-person word as it reads with the user as "User", when the clause is `about_user`
/// already or the word comes `after_and` in such a clause.
fn pronoun(lower: &str, about_user: bool, after_and: bool) -> Option<&'static str> {
    Some(match lower {
        "i'm" | "im" if after_and => "is",
        "i've" | "ive" if after_and => "has",
        "i'm" | "im" => "User is",
        "i've" | "ive" => "User has",
        "i'd" => "User would",
        "i'll" => "User will",
        "we" if about_user => "they",
        "we're" if about_user => "they're",
        "we've" if about_user => "they've",
        "my" | "our" if about_user => "their",
        "my" | "our" => "User's",
        "ours" => "theirs",
        // "it took me 5 hours" → "it took User 5 hours": the first the clause names.
        "me" | "us" if !about_user => "User",
        "us" | "me" => "them",
        "myself" => "themself",
        "mine" => "theirs",
        _ => return None,
    })
}

/// An adverb between "I" and its verb: one of [`CONJUGATION_ADVERBS`], or a word in "-ly" that is not a verb
/// ("I especially like", not "I apply").
fn is_adverb(lower: &str) -> bool {
    const LY_VERBS: &[&str] = &[
        "apply", "reply", "supply", "rely", "multiply", "comply", "imply",
    ];
    CONJUGATION_ADVERBS.contains(&lower)
        || (lower.ends_with("ly") && lower.chars().count() > 4 && !LY_VERBS.contains(&lower))
}

/// A verb in the third person singular: "walk" → "walks", "watch" → "watches", "carry" →
/// "carries", "have" → "has", "do" → "does"; past forms and modals unchanged.
fn conjugate(verb: &str) -> String {
    let lower = verb.to_lowercase();
    // "need", "feed", "succeed" end in "ed" and are not past forms.
    let past = lower.ends_with("ed") && !lower.ends_with("eed") && lower != "shred";
    if UNCHANGED.contains(&lower.as_str()) || past || lower.ends_with("'t") {
        return match lower.as_str() {
            "don't" => "doesn't".into(),
            _ => verb.into(),
        };
    }
    match lower.as_str() {
        "have" => return "has".into(),
        "do" => return "does".into(),
        "am" | "are" => return "is".into(),
        "were" => return "was".into(),
        "go" => return "goes".into(),
        "workout" => return "works out".into(),
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

/// Words a time phrase is made of ("on Monday", "next week", "in December 2026", "tomorrow").
const TIME_WORDS: &[&str] = &[
    "on",
    "in",
    "at",
    "by",
    "next",
    "this",
    "coming",
    "tomorrow",
    "tonight",
    "today",
    "week",
    "weekend",
    "month",
    "year",
    "morning",
    "afternoon",
    "evening",
    "night",
    "the",
];

/// A time the user opened with, put after what it times, as a fact reads: "Monday User has a
/// night shift" → "User has a night shift on Monday", "in December 2026 User has three exams" →
/// "User has three exams in December 2026". Anything else is returned as it is.
pub fn time_last(text: &str) -> String {
    let Some(at) = text.find(" User ") else {
        return text.to_string();
    };
    let time = text[..at].trim().trim_end_matches(',');
    let words: Vec<String> = time.split_whitespace().map(crate::words::bare).collect();
    let is_time = !words.is_empty()
        && words.iter().all(|w| {
            TIME_WORDS.contains(&w.as_str())
                || WEEKDAYS.contains(&w.as_str())
                || crate::words::month(w).is_some()
                || w.chars().all(|c| c.is_ascii_digit())
        });
    if !is_time {
        return text.to_string();
    }
    let named = |w: &str| WEEKDAYS.contains(&w) || crate::words::month(w).is_some();
    let time = match words.as_slice() {
        [one] if WEEKDAYS.contains(&one.as_str()) => format!("on {time}"),
        [first, ..] if !named(first) => {
            let mut c = time.chars();
            c.next()
                .map_or_else(String::new, |f| f.to_lowercase().chain(c).collect())
        }
        _ => time.to_string(),
    };
    let rest = text[at + 1..].trim_end();
    let (rest, end) = match rest.strip_suffix(['.', '!']) {
        Some(r) => (r, &rest[r.len()..]),
        None => (rest, ""),
    };
    format!("{rest} {time}{end}")
}

/// The longest ending two forms of one word differ by past their shared start ("walk",
/// "walks"; "study", "studying").
const MAX_ENDING: usize = 3;

/// Whether `a` and `b` are one word in two forms: the same root (`words::same_root`) and no more
/// than [`MAX_ENDING`] letters apart at either end, so "storyteller" is not "story".
fn same_word(a: &str, b: &str) -> bool {
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let tail = |w: &str| w.chars().count() - common;
    crate::words::same_root(a, b) && tail(a) <= MAX_ENDING && tail(b) <= MAX_ENDING
}

/// Whether `fact` (a rewrite of `clause`) kept the user's words: at least 80% of its content
/// words are the clause's in some form (`same_word`, so "walks" meets "walk" and "storyteller"
/// does not meet "stories"), and it keeps at least 80% of the clause's (on their same root).
pub fn faithful(fact: &str, clause: &str) -> bool {
    let clause_words = content_words(clause);
    let fact_words = content_words(fact);
    if fact_words.is_empty() || clause_words.is_empty() {
        return false;
    }
    let from_clause = fact_words
        .iter()
        .filter(|w| clause_words.iter().any(|c| same_word(w, c)))
        .count();
    let kept: HashSet<&String> = clause_words
        .iter()
        .filter(|w| occurs_in(w, &fact_words))
        .collect();
    let distinct: HashSet<&String> = clause_words.iter().collect();
    from_clause * 5 >= fact_words.len() * 4 && kept.len() * 5 >= distinct.len() * 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_the_user_opened_with_goes_after_what_it_times() {
        for (text, want) in [
            (
                "Monday User has a night shift",
                "User has a night shift on Monday",
            ),
            (
                "On Friday User is flying to Berlin",
                "User is flying to Berlin on Friday",
            ),
            (
                "in December 2026 User has three exams",
                "User has three exams in December 2026",
            ),
            (
                "Next week User has three exams.",
                "User has three exams next week.",
            ),
            (
                "User has a night shift on Monday",
                "User has a night shift on Monday",
            ),
            ("Priya and User run a bakery", "Priya and User run a bakery"),
        ] {
            assert_eq!(time_last(text), want, "{text}");
        }
    }

    #[test]
    fn clauses_become_facts_about_the_user() {
        for (clause, fact) in [
            (
                "I just adopted a beagle named Biscuit and I walk him every morning before work",
                "User just adopted a beagle named Biscuit and walks him every morning before work",
            ),
            ("I'm coeliac", "User is coeliac"),
            (
                "it took me and my friends around 5 hours to move everything into the new apartment",
                "It took User and their friends around 5 hours to move everything into the new apartment",
            ),
            (
                "I mostly read thrillers and mysteries",
                "User mostly reads thrillers and mysteries",
            ),
            ("I read a lot last year", "User read a lot last year"),
            (
                "I workout four hours a day",
                "User works out four hours a day",
            ),
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
            ("I felt liberated", "User felt liberated"),
            ("I wanna keep bees", "User wants to keep bees"),
            (
                "I haven't done pottery yet",
                "User has not done pottery yet",
            ),
            ("I'm Priya", "User's name is Priya"),
            ("I am Dana", "User's name is Dana"),
            ("my name is Ana Lopes", "User's name is Ana Lopes"),
            ("I'm Scottish", "User is Scottish"),
            ("I am a nurse", "User is a nurse"),
            ("I also study languages", "User also studies languages"),
            ("I have two dogs", "User has two dogs"),
            ("I watch birds", "User watches birds"),
            ("I carry a Leica", "User carries a Leica"),
            (
                "tidepool is my little RSS reader",
                "Tidepool is User's little RSS reader",
            ),
            ("I don't drink coffee", "User does not drink coffee"),
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
    fn adverbs_coordinated_verbs_and_our_take_the_users_person() {
        for (clause, fact) in [
            // An adverb, not the verb ("User especiallies like", "User onces worked").
            (
                "I especially like jazz and tango",
                "User especially likes jazz and tango",
            ),
            (
                "I once worked on a lighthouse",
                "User once worked on a lighthouse",
            ),
            ("I apply to jobs", "User applies to jobs"),
            // The verb after "and" has "User" for its subject too.
            (
                "I live in the country and only listen to country music",
                "User lives in the country and only listens to country music",
            ),
            ("I like cats and dogs", "User likes cats and dogs"),
            // A word in capitals is an acronym, not a pronoun (persona-valid).
            (
                "I'm always rooting for the US team",
                "User is always rooting for the US team",
            ),
            // "our" is the user's too: the guard refuses a fact with "our" left in.
            (
                "I'm looking forward to our team hike at Mount Tamalpais",
                "User is looking forward to their team hike at Mount Tamalpais",
            ),
            (
                "our landlord told us to move out",
                "User's landlord told them to move out",
            ),
            (
                "I like to read and write poems",
                "User likes to read and write poems",
            ),
            (
                "I live in Leeds and work in York",
                "User lives in Leeds and works in York",
            ),
            // "we" after the user is the user and whom the clause names with them; "we" first
            // names no one, and stays for the guard to refuse.
            (
                "I went to a music festival with some friends, and we saw The Lumineers",
                "User went to a music festival with some friends, and they saw The Lumineers",
            ),
            (
                "we had a team-building event",
                "We had a team-building event",
            ),
        ] {
            assert_eq!(third_person(clause), fact, "{clause}");
        }
    }

    #[test]
    fn a_rewrite_with_an_acronym_keeps_its_shape() {
        let clause = "I'm always rooting for the US team";
        let ruled = third_person(clause);
        assert!(same_shape(
            "User is always rooting for the US team",
            &ruled,
            clause
        ));
        assert!(!same_shape("User is always rooting for us", &ruled, clause));
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
        assert!(same_shape(
            "User walks Biscuit",
            "User walks Biscuit",
            "I walk Biscuit"
        ));
        assert!(!same_shape(
            "User is liked by camaraderie",
            "User liked the camaraderie",
            "I liked the camaraderie"
        ));
        assert!(!same_shape(
            "User is New Kids on the Block",
            "User's favorite is New Kids on the Block",
            "my favorite is New Kids on the Block"
        ));
        // Words of the first person left in, or a moment for a habit.
        assert!(!same_shape(
            "User is in a band with some friends of mine",
            "User is in a band with some friends of theirs",
            "I'm in a band with some friends of mine"
        ));
        assert!(!same_shape(
            "User is loving the feeling of being free",
            "User loves the feeling of being free",
            "I love the feeling of being free"
        ));
        assert!(same_shape(
            "User is learning French",
            "User is learning French",
            "I'm learning French"
        ));
        // The verb dropped.
        assert!(!same_shape(
            "User self-employed",
            "User is self-employed",
            "I'm self-employed"
        ));
        // A list item dropped with its "and".
        assert!(!same_shape(
            "User likes to listen to music, read books",
            "User likes to dance, listen to music, and read books",
            "I like to dance, listen to music, and read books"
        ));
        // Half the disclosure dropped.
        assert!(!faithful("User adopted a dog", clause));
        // A word made from the user's into another ("stories" → "storyteller"; LongMemEval).
        assert!(!faithful(
            "User is a true crime and inspiring storyteller",
            "I'm really into true crime and inspiring stories"
        ));
        assert!(faithful(
            "User plays the guitar and studies the history of jazz",
            "I play the guitar and I'm studying the history of jazz"
        ));
        // Words the user never said added.
        assert!(!faithful(
            "User adopted a beagle named Biscuit in Lisbon with Marta and her jazz band",
            clause
        ));
    }

    #[test]
    fn a_rewrite_keeps_what_was_in_the_past() {
        // The past made present (LongMemEval), and the past kept.
        assert!(!same_shape(
            "User is responsible for managing a team of interns",
            "User was responsible for managing a team of interns",
            "I was responsible for managing a team of interns"
        ));
        assert!(!same_shape(
            "User realizes that they tend to swing between luxury and budget-friendly purchases",
            "User realized that User tends to swing between luxury and budget-friendly purchases",
            "I realized that I tend to swing between luxury and budget-friendly purchases"
        ));
        assert!(same_shape(
            "User finished a Revell F-15 Eagle kit",
            "User recently finished a Revell F-15 Eagle kit",
            "I recently finished a Revell F-15 Eagle kit"
        ));
    }
}
