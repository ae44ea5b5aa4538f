//! The persona benchmark's set and rules in Rust, the same as `scripts/bench-persona.py` (read its
//! docstring): the Synthetic-Persona-Chat slice in `tests/data/persona-chat`, a conversation as one
//! session log, content words, the same-word and match rules, disclosure, leakage and the scores.

use std::collections::BTreeSet;
use std::path::Path;

/// `core/src/recall/lexical.rs` STOP_WORDS (as `tests/data/consolidation-set/validate.py` copies
/// them), plus the contractions the persona rules leave out too.
const STOP: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as",
    "at", "be", "been", "before", "being", "but", "by", "can", "could", "did", "do", "does",
    "doing", "don't", "for", "from", "had", "has", "have", "having", "he", "her", "here", "him",
    "his", "how", "i", "i'm", "if", "in", "into", "is", "it", "it's", "its", "just", "let", "me",
    "mine", "more", "most", "my", "myself", "no", "not", "now", "of", "on", "once", "only", "or",
    "other", "our", "out", "over", "please", "same", "she", "should", "so", "some", "such", "tell",
    "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those",
    "through", "to", "too", "under", "until", "up", "us", "very", "was", "we", "were", "what",
    "what's", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would",
    "yes", "you", "your", "yours", "know", "remember", "think", "thing", "things", "really",
    "well", "get", "got", "okay", "ok", "hi", "hello", "thanks", "thank", "user", "way", "lot",
    "today", "one", "make", "go", "going", "say", "said", "see",
];
/// Left out of the persona rules only (bench-persona.py EXTRA_STOP).
const EXTRA_STOP: &[&str] = &[
    "i've", "i'd", "i'll", "you're", "you've", "you'd", "you'll", "we're", "we've", "they're",
    "that's", "there's", "it'll",
];

/// A fact leaks only when less than this share of its content words are in User 1's turns, and
/// (unless it matches a User 2 persona line) at least this share are User 2's only.
pub const LEAK_SHARE: f64 = 0.6;

/// Words in a set of content words.
pub type Words = BTreeSet<String>;

/// Content words: lower-case, stop words out, a trailing "'s" dropped (validate.py's rule).
pub fn content_words(text: &str) -> Words {
    let mut out = Words::new();
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '\'' || c == '+' || c == '#';
    for raw in text.split(|c: char| !is_word(c)) {
        let w = raw.trim_matches('\'').to_lowercase();
        let short = w.chars().count() < 2 && !w.chars().all(|c| c.is_ascii_digit());
        if w.is_empty() || short || STOP.contains(&w.as_str()) {
            continue;
        }
        let w = w.strip_suffix("'s").map(str::to_string).unwrap_or(w);
        if !EXTRA_STOP.contains(&w.as_str()) && w != "user" {
            out.insert(w);
        }
    }
    out
}

/// Equal, equal once one trailing 's' is dropped, or a shared prefix of max(4, shorter - 1) letters.
pub fn same_word(a: &str, b: &str) -> bool {
    if a == b || a.strip_suffix('s') == Some(b) || b.strip_suffix('s') == Some(a) {
        return true;
    }
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let need = 4.max(a.len().min(b.len()).saturating_sub(1));
    a.len() >= need && b.len() >= need && a[..need] == b[..need]
}

fn has_word(w: &str, ws: &Words) -> bool {
    ws.iter().any(|x| same_word(w, x))
}

/// At least half of the line's content words (and at least one) occur in the text's.
pub fn matches_line(text: &Words, line: &Words) -> bool {
    let hit = line.iter().filter(|w| has_word(w, text)).count();
    hit >= 1 && 2 * hit >= line.len()
}

/// A persona line and its content words.
pub struct Line {
    pub text: String,
    pub words: Words,
    /// User 1's turns, as one text, match it.
    pub disclosed: bool,
}

/// One row of the set: User 1 is the user, User 2 the assistant.
pub struct Conversation {
    pub index: usize,
    pub id: String,
    /// (role, content) in order; role is "user" or "assistant".
    pub turns: Vec<(&'static str, String)>,
    /// User 1's persona lines with content words.
    pub user1: Vec<Line>,
    /// User 2's persona lines' content words (those with any).
    pub user2: Vec<Words>,
    pub user1_words: Words,
    pub user2_words: Words,
}

impl Conversation {
    /// The session log: one JSON line per turn, a minute apart from 2026-11-02T10:00:00Z.
    pub fn session_jsonl(&self) -> String {
        let mut out = String::new();
        for (k, (role, content)) in self.turns.iter().enumerate() {
            let ts = turn_ts(k).format("%Y-%m-%dT%H:%M:%SZ").to_string();
            let line = serde_json::json!({"ts": ts, "role": role, "content": content});
            out.push_str(&line.to_string());
            out.push('\n');
        }
        out
    }

    /// The session file's mtime: a minute after its last turn, at least 20 minutes ago (quiet, so
    /// the pass summarises it).
    pub fn session_mtime(&self) -> std::time::SystemTime {
        let last = turn_ts(self.turns.len().saturating_sub(1));
        let after = std::time::SystemTime::from(last) + std::time::Duration::from_secs(60);
        let quiet = std::time::SystemTime::now() - std::time::Duration::from_secs(1200);
        after.min(quiet)
    }

    /// Whether the fact leaks User 2's persona (bench-persona.py's rule): it matches no User 1
    /// line, User 1 did not say most of it, and it matches a User 2 line or is mostly User 2's.
    pub fn leaks(&self, fact: &Words) -> bool {
        if fact.is_empty() || self.user1.iter().any(|l| matches_line(fact, &l.words)) {
            return false;
        }
        let said1 = fact
            .iter()
            .filter(|w| has_word(w, &self.user1_words))
            .count();
        if said1 as f64 / fact.len() as f64 >= LEAK_SHARE {
            return false;
        }
        if self.user2.iter().any(|l| matches_line(fact, l)) {
            return true;
        }
        let only2 = fact
            .iter()
            .filter(|w| has_word(w, &self.user2_words) && !has_word(w, &self.user1_words))
            .count();
        only2 as f64 / fact.len() as f64 >= LEAK_SHARE
    }
}

/// Turn `k`'s time: a minute apart from 2026-11-02T10:00:00Z.
fn turn_ts(k: usize) -> chrono::DateTime<chrono::FixedOffset> {
    let start = chrono::DateTime::parse_from_rfc3339("2026-11-02T10:00:00Z").unwrap();
    start + chrono::Duration::minutes(k.try_into().unwrap())
}

/// RFC 4180 rows: quoted cells may hold commas, newlines and doubled quotes; CRLF or LF row ends.
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let (mut rows, mut row, mut cell) = (Vec::new(), Vec::new(), String::new());
    let (mut quoted, mut chars) = (false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => cell.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut cell)),
            (false, '\r') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => cell.push(c),
        }
    }
    if !cell.is_empty() || !row.is_empty() {
        row.push(cell);
        rows.push(row);
    }
    rows
}

/// "User 1: …" opens a user turn, "User 2: …" an assistant turn; other lines continue the last.
pub fn parse_turns(conversation: &str) -> Vec<(&'static str, String)> {
    let mut turns: Vec<(&'static str, String)> = Vec::new();
    for line in conversation.lines() {
        match speaker(line) {
            Some((role, rest)) => turns.push((role, rest.trim().to_string())),
            None if !line.trim().is_empty() => {
                if let Some((_, t)) = turns.last_mut() {
                    *t = format!("{t}\n{}", line.trim()).trim().to_string();
                }
            }
            None => {}
        }
    }
    turns.retain(|(_, t)| !t.is_empty());
    turns
}

/// `^\s*user\s*([12])\s*:\s*` case-insensitively: the role and the rest of the line.
fn speaker(line: &str) -> Option<(&'static str, &str)> {
    let l = line.trim_start();
    let head = l.get(..4)?;
    if !head.eq_ignore_ascii_case("user") {
        return None;
    }
    let rest = l[4..].trim_start();
    let role = match rest.chars().next()? {
        '1' => "user",
        '2' => "assistant",
        _ => return None,
    };
    rest[1..].trim_start().strip_prefix(':').map(|r| (role, r))
}

fn lines(cell: &str) -> impl Iterator<Item = &str> {
    cell.lines().map(str::trim).filter(|l| !l.is_empty())
}

/// The first `limit` conversations of `tests/data/persona-chat/<split>.csv`.
pub fn load(split: &str, limit: usize) -> Vec<Conversation> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/persona-chat")
        .join(format!("{split}.csv"));
    let text = std::fs::read_to_string(&path).expect("the persona-chat slice");
    let rows = parse_csv(&text);
    let col = |name: &str| rows[0].iter().position(|h| h == name).expect(name);
    let (p1, p2, conv) = (
        col("user 1 personas"),
        col("user 2 personas"),
        col("Best Generated Conversation"),
    );
    rows[1..]
        .iter()
        .take(limit)
        .enumerate()
        .map(|(index, r)| {
            let turns = parse_turns(&r[conv]);
            let said = |role: &str| {
                let t: Vec<&str> = turns
                    .iter()
                    .filter(|(r, _)| *r == role)
                    .map(|(_, t)| t.as_str())
                    .collect();
                content_words(&t.join(" "))
            };
            let (user1_words, user2_words) = (said("user"), said("assistant"));
            let user1 = lines(&r[p1])
                .map(|l| (l, content_words(l)))
                .filter(|(_, w)| !w.is_empty())
                .map(|(l, words)| Line {
                    text: l.to_string(),
                    disclosed: matches_line(&user1_words, &words),
                    words,
                })
                .collect();
            Conversation {
                index,
                id: format!("persona-{split}-{index:03}"),
                turns,
                user1,
                user2: lines(&r[p2])
                    .map(content_words)
                    .filter(|w| !w.is_empty())
                    .collect(),
                user1_words,
                user2_words,
            }
        })
        .collect()
}

/// The pooled figures over the conversations played.
#[derive(Debug, Default)]
pub struct Scores {
    pub conversations: usize,
    pub disclosed_lines: usize,
    pub covered_disclosed: usize,
    pub facts: usize,
    pub leaked: usize,
    pub summarised: usize,
}

impl Scores {
    /// Add one conversation: its synth semantic facts and whether it got a summary.
    pub fn add(&mut self, c: &Conversation, facts: &[String], summarised: bool) {
        let facts: Vec<Words> = facts.iter().map(|f| content_words(f)).collect();
        self.conversations += 1;
        for l in c.user1.iter().filter(|l| l.disclosed) {
            self.disclosed_lines += 1;
            self.covered_disclosed += facts.iter().any(|f| matches_line(f, &l.words)) as usize;
        }
        self.facts += facts.len();
        self.leaked += facts.iter().filter(|f| c.leaks(f)).count();
        self.summarised += summarised as usize;
    }

    fn share(n: usize, d: usize) -> f64 {
        if d == 0 { 0.0 } else { n as f64 / d as f64 }
    }
    pub fn coverage_disclosed(&self) -> f64 {
        Self::share(self.covered_disclosed, self.disclosed_lines)
    }
    pub fn leakage(&self) -> f64 {
        Self::share(self.leaked, self.facts)
    }
    pub fn summary_share(&self) -> f64 {
        Self::share(self.summarised, self.conversations)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_keep_commas_newlines_and_quotes() {
        let rows = parse_csv("a,b\r\n\"x, \"\"y\"\"\nz\",2\r\n");
        assert_eq!(rows, vec![vec!["a", "b"], vec!["x, \"y\"\nz", "2"]]);
    }

    #[test]
    fn rules_match_the_script() {
        assert!(same_word("dogs", "dog") && same_word("musician", "music"));
        assert!(!same_word("cat", "car") && !same_word("baking", "bake"));
        let line = content_words("I love to bake cookies.");
        assert!(matches_line(&content_words("User bakes cookies"), &line));
        assert!(!matches_line(&content_words("User loves dogs"), &line));
        let t = parse_turns("User 1: Hi\nuser 2 : Hello\nIngredients:\n\n1 cup");
        assert_eq!(
            t,
            vec![
                ("user", "Hi".into()),
                ("assistant", "Hello\nIngredients:\n1 cup".into())
            ]
        );
    }

    #[test]
    fn the_slice_loads() {
        let v = load("valid", 80);
        assert_eq!(v.len(), 80);
        assert!(v.iter().all(|c| !c.user1.is_empty() && c.turns.len() > 4));
        // scripts/bench-persona.py counts the same on this slice.
        let lines: usize = v.iter().map(|c| c.user1.len()).sum();
        let disclosed = v.iter().flat_map(|c| &c.user1).filter(|l| l.disclosed);
        assert_eq!((lines, disclosed.count()), (360, 117));
    }
}
