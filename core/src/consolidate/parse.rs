//! Best-effort reading of a model's JSON reply: fenced, chatty, with trailing commas or single
//! quotes around it. A candidate that cannot be read is dropped, never guessed.

use serde_json::Value;

use super::plan::{Candidate, Decision, Op};
use crate::fact_text::normalize_fact;
use crate::record::Kind;
use crate::same_fact::key as fact_key;

/// Candidate facts considered per pass at most.
pub const MAX_CANDIDATES: usize = 12;

/// The candidates in an extraction reply (`{"facts": [{"text", "kind", "confidence"}]}`): at
/// most 12, each with readable text, duplicates dropped. `None` when the reply holds no object
/// with a `facts` list at all.
pub fn candidates(reply: &str) -> Option<Vec<Candidate>> {
    let v = extract_object(reply)?;
    let items = v.get("facts")?.as_array()?;
    let mut out: Vec<Candidate> = Vec::new();
    for item in items.iter().take(MAX_CANDIDATES) {
        let Some(text) = text_field(item, "text").and_then(|t| normalize_fact(t).ok()) else {
            continue;
        };
        if out.iter().any(|c| fact_key(&c.text) == fact_key(&text)) {
            continue;
        }
        let kind = match text_field(item, "kind") {
            Some("episodic") => Kind::Episodic,
            _ => Kind::Semantic,
        };
        // A model that leaves confidence out is taken as unsure.
        let confidence = unit_number(item.get("confidence")).unwrap_or(0.5);
        out.push(Candidate {
            text,
            kind,
            confidence,
        });
    }
    Some(out)
}

/// The verdict in a decision reply (`{"op", "target", "text", "confidence"}`).
pub fn decision(reply: &str) -> Option<Decision> {
    let v = extract_object(reply)?;
    let op = match text_field(&v, "op")?.to_ascii_uppercase().as_str() {
        "ADD" => Op::Add,
        "UPDATE" => Op::Update,
        "DELETE" => Op::Delete,
        "NO_OP" | "NOOP" | "NONE" => Op::NoOp,
        _ => return None,
    };
    Some(Decision {
        op,
        target: text_field(&v, "target").map(str::to_string),
        text: text_field(&v, "text").and_then(|t| normalize_fact(t).ok()),
        confidence: unit_number(v.get("confidence")).unwrap_or(0.5),
    })
}

/// The fact in a rewrite reply (`{"fact": "..."}`).
pub fn fact(reply: &str) -> Option<String> {
    extract_object(reply)
        .as_ref()
        .and_then(|v| text_field(v, "fact"))
        .and_then(|t| normalize_fact(t).ok())
}

/// The one-line summary in a summary reply (`{"summary": "..."}`).
pub fn summary(reply: &str) -> Option<String> {
    extract_object(reply)
        .as_ref()
        .and_then(|v| text_field(v, "summary"))
        .and_then(|t| normalize_fact(t).ok())
}

/// The first balanced JSON object in `reply`, repaired for the usual small-model slips
/// (code fences, prose around it, trailing commas), parsed.
pub fn extract_object(reply: &str) -> Option<Value> {
    let start = reply.find('{')?;
    let raw = balanced(&reply[start..])?;
    serde_json::from_str(&raw)
        .ok()
        .or_else(|| serde_json::from_str(&strip_trailing_commas(&raw)).ok())
}

/// The balanced `{…}` at the start of `s`, minding strings and escapes. If the reply was cut off
/// (the token budget ran out), it is cut back to the last element that closed inside a list
/// and the open brackets are closed, so a truncated list of facts keeps its whole items.
fn balanced(s: &str) -> Option<std::borrow::Cow<'_, str>> {
    let mut stack: Vec<char> = Vec::new();
    let mut strings = InString::default();
    // Where an element of a list last closed, and the brackets open at that point.
    let mut last_item: Option<(usize, Vec<char>)> = None;
    for (i, c) in s.char_indices() {
        if strings.feed(c) {
            continue;
        }
        match c {
            '{' | '[' => stack.push(c),
            '}' | ']' => {
                stack.pop();
                if stack.is_empty() {
                    return Some(std::borrow::Cow::Borrowed(&s[..i + 1]));
                }
                if stack.last() == Some(&'[') {
                    last_item = Some((i + 1, stack.clone()));
                }
            }
            _ => {}
        }
    }
    let (end, open) = last_item?;
    let mut repaired = s[..end].to_string();
    for c in open.iter().rev() {
        repaired.push(if *c == '{' { '}' } else { ']' });
    }
    Some(std::borrow::Cow::Owned(repaired))
}

fn strip_trailing_commas(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut strings = InString::default();
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !strings.feed(c) && c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}') | Some(']')) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Whether a left-to-right scan of JSON text is inside a string literal.
#[derive(Default)]
struct InString {
    open: bool,
    escaped: bool,
}

impl InString {
    /// Feed the next character; true if it belongs to a string literal (quotes included).
    fn feed(&mut self, c: char) -> bool {
        if self.open {
            match (self.escaped, c) {
                (true, _) => self.escaped = false,
                (false, '\\') => self.escaped = true,
                (false, '"') => self.open = false,
                _ => {}
            }
            return true;
        }
        self.open = c == '"';
        self.open
    }
}

/// A number in 0–1 from a JSON value that may be a number or a numeric string.
pub fn unit_number(v: Option<&Value>) -> Option<f32> {
    let x = match v? {
        Value::Number(n) => n.as_f64()? as f32,
        Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    (x.is_finite()).then_some(x.clamp(0.0, 1.0))
}

/// A non-empty trimmed string field.
pub fn text_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key)?
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messy_replies_table() {
        let cases: &[(&str, Option<&str>)] = &[
            (r#"{"a": 1}"#, Some(r#"{"a":1}"#)),
            ("```json\n{\"a\": 1}\n```", Some(r#"{"a":1}"#)),
            (
                "Sure! Here is the JSON:\n{\"a\": [1, 2,],}\nHope this helps.",
                Some(r#"{"a":[1,2]}"#),
            ),
            (
                r#"{"a": "brace } inside", "b": "quote \" inside"}"#,
                Some(r#"{"a":"brace } inside","b":"quote \" inside"}"#),
            ),
            (
                "{\"a\": {\"b\": 2}} trailing {\"c\": 3}",
                Some(r#"{"a":{"b":2}}"#),
            ),
            ("no json at all", None),
            ("{\"a\": 1", None),
            (
                "{\"facts\": [{\"text\": \"one\"}, {\"text\": \"two\"}, {\"text\": \"thr",
                Some(r#"{"facts":[{"text":"one"},{"text":"two"}]}"#),
            ),
            ("{'a': 1}", None),
            ("", None),
        ];
        for (reply, want) in cases {
            let got = extract_object(reply).map(|v| v.to_string());
            assert_eq!(got.as_deref(), *want, "{reply:?}");
        }
    }

    #[test]
    fn numbers_and_strings() {
        let v: Value = serde_json::json!({"c": "0.9", "d": 2, "t": "  x ", "e": ""});
        assert_eq!(unit_number(v.get("c")), Some(0.9));
        assert_eq!(unit_number(v.get("d")), Some(1.0));
        assert_eq!(unit_number(v.get("zz")), None);
        assert_eq!(text_field(&v, "t"), Some("x"));
        assert_eq!(text_field(&v, "e"), None);
    }
}
