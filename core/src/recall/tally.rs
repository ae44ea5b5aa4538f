//! Questions that add up what the user said over several sessions ("how many weddings have I
//! been to this year?", "which did I read first?"): no one fact answers them, so the facts
//! recalled for one come from as many sessions as the block holds, the best of each first.

use std::collections::HashSet;

use super::rank::Scored;
use crate::language::reader::{READERS, says_phrase};
use crate::record::Record;
use crate::same_fact;

/// Whether `message` asks the user to add up or order what they said over time: a count
/// ("how many", "combien", "多少") or an order ("which … first", "zuerst") of the readers', in
/// a question about the user (`about_user`; the caller leaves out one that asks of their
/// identity, which it has read already).
pub fn asked(message: &str, about_user: bool) -> bool {
    if !about_user {
        return false;
    }
    let folded = crate::words::fold(message);
    let question = message.contains(['?', '？']);
    READERS.iter().any(|r| {
        // Korean joins "몇" to its counter ("몇번"): matched inside words there.
        let says = |p: &&str| says_phrase(&folded, p, r.lang.matched_inside_words());
        r.tally.count.iter().any(says)
            || (question && r.tally.order.iter().any(|p| says_order(&folded, p, r)))
    })
}

/// Whether `folded` says the order phrase `p`; one ending in `$` only as a whole word where a
/// clause ends ("which did I visit first?", not "what's my first name?").
fn says_order(folded: &str, p: &str, r: &crate::language::reader::Reader) -> bool {
    let Some(word) = p.strip_suffix('$') else {
        return says_phrase(folded, p, r.lang.unspaced());
    };
    folded.match_indices(word).any(|(at, _)| {
        let before = folded[..at].chars().next_back();
        let after = folded[at + word.len()..].trim_start().chars().next();
        before.is_none_or(|c| !c.is_alphanumeric())
            && after.is_none_or(|c| matches!(c, '?' | '？' | ',' | ';' | '.'))
    })
}

/// The session a fact was last said in, or the fact itself when no pass wrote it (one the user
/// typed is a session of its own).
fn session_of(r: &Record) -> &str {
    r.provenance.sessions.last().unwrap_or(&r.id)
}

/// Put the best fact of each session first among those through the gate, each group in its
/// rank order: six facts from six sessions rather than four from one, for a question whose
/// answer is spread over them. A fact another one through the gate says again with more
/// ("… selling their old drum set" beside "… selling their old drum set, a 5-piece Pearl
/// Export") goes after both groups: it would count one thing twice.
pub fn spread_over_sessions(records: &[Record], ranked: &mut Vec<Scored>) {
    let (through, rejected): (Vec<Scored>, Vec<Scored>) =
        ranked.drain(..).partition(|s| s.gate.lets_through());
    // Each one's words, read once: the pairs are many.
    let words: Vec<HashSet<String>> = through
        .iter()
        .map(|s| same_fact::word_set(&records[s.index].text))
        .collect();
    // Another holds all its words: more of them, or the same and ranked before it.
    let said_again = |k: usize| {
        !words[k].is_empty()
            && words.iter().enumerate().any(|(j, other)| {
                j != k && words[k].is_subset(other) && (j < k || words[k].len() < other.len())
            })
    };
    let again: Vec<bool> = (0..through.len()).map(said_again).collect();
    let mut seen = HashSet::new();
    let (mut firsts, mut seconds, mut repeats) = (Vec::new(), Vec::new(), Vec::new());
    for (s, again) in through.into_iter().zip(again) {
        if again {
            repeats.push(s);
        } else if seen.insert(session_of(&records[s.index])) {
            firsts.push(s);
        } else {
            seconds.push(s);
        }
    }
    ranked.extend(firsts);
    ranked.extend(seconds);
    ranked.extend(repeats);
    ranked.extend(rejected);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_that_add_up_in_every_language() {
        for q in [
            "How many weddings have I attended this year?",
            "What is the total amount I spent on luxury items in the past few months?",
            "Which did I visit first, Lisbon or Porto?",
            "Combien de livres ai-je lus cette année ?",
            "¿Cuántos viajes hice este año?",
            "Quanti libri ho letto quest'anno?",
            "Quantos livros eu li este ano?",
            "Wie viele Bücher habe ich dieses Jahr gelesen?",
            "Hoeveel boeken heb ik dit jaar gelezen?",
            "Berapa buku yang saya baca tahun ini?",
            "올해 내가 책을 몇 권 읽었지?",
            "올해 콘서트에 몇번 갔어?",
            "我今年读了多少本书？",
            "今年、私は本を何冊読みましたか？",
        ] {
            assert!(asked(q, true), "{q}");
        }
    }

    #[test]
    fn near_misses_add_nothing_up() {
        for (q, about_user) in [
            // Not about the user.
            ("How many calories are in a banana?", false),
            // About the user, one fact answers it.
            ("What's my first name?", true),
            ("Where do I live?", true),
            ("I finished my first marathon.", true),
            ("My first car was a Fiat", true),
            ("Il mio primo libro", true),
        ] {
            assert!(!asked(q, about_user), "{q}");
        }
    }
}
