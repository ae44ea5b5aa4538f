//! A streamed reply folded back into a whole one: localm always streams from the upstream (no
//! limit on how long a reply takes), and a client that asked for a whole reply gets the chunks
//! merged into one `chat.completion`: text fields concatenated, tool calls assembled by index,
//! log-probabilities appended, every other field as the upstream last sent it.

use serde_json::{Map, Value};

/// The chunks of one streamed reply, merged as they arrive.
#[derive(Debug, Default)]
pub struct Accumulator {
    top: Map<String, Value>,
    choices: Vec<(u64, Map<String, Value>)>,
}

/// Fields of a delta whose pieces are concatenated.
const TEXT: &[&str] = &["content", "refusal", "reasoning_content", "reasoning"];

impl Accumulator {
    /// Add one chunk (a `data:` payload, parsed).
    pub fn add(&mut self, chunk: &Value) {
        let Some(obj) = chunk.as_object() else { return };
        for (k, v) in obj {
            if k != "choices" && !(k == "usage" && v.is_null() && self.top.contains_key(k)) {
                self.top.insert(k.clone(), v.clone());
            }
        }
        for c in obj
            .get("choices")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let index = c.get("index").and_then(Value::as_u64).unwrap_or(0);
            let pos = match self.choices.iter().position(|(i, _)| *i == index) {
                Some(p) => p,
                None => {
                    self.choices.push((index, Map::new()));
                    self.choices.len() - 1
                }
            };
            let choice = &mut self.choices[pos].1;
            let Some(c) = c.as_object() else { continue };
            for (k, v) in c {
                match k.as_str() {
                    "delta" => {
                        let message = choice
                            .entry("message")
                            .or_insert_with(|| Value::Object(Map::new()));
                        if let (Some(m), Some(d)) = (message.as_object_mut(), v.as_object()) {
                            merge_delta(m, d);
                        }
                    }
                    "logprobs" if !v.is_null() => merge_logprobs(choice, v),
                    "finish_reason" if v.is_null() => {}
                    _ => {
                        choice.insert(k.clone(), v.clone());
                    }
                }
            }
        }
    }

    /// The whole reply: `chat.completion`, choices in index order, each with its message.
    pub fn finish(mut self) -> Value {
        self.top
            .insert("object".into(), Value::String("chat.completion".into()));
        self.choices.sort_by_key(|(i, _)| *i);
        let choices = self
            .choices
            .into_iter()
            .map(|(_, mut c)| {
                let message = c
                    .entry("message")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Some(m) = message.as_object_mut() {
                    m.entry("role")
                        .or_insert_with(|| Value::String("assistant".into()));
                    m.entry("content").or_insert(Value::Null);
                    // `index` only orders the pieces of a stream; a whole reply has none.
                    for call in m
                        .get_mut("tool_calls")
                        .and_then(Value::as_array_mut)
                        .into_iter()
                        .flatten()
                    {
                        if let Some(call) = call.as_object_mut() {
                            call.remove("index");
                        }
                    }
                }
                c.entry("finish_reason").or_insert(Value::Null);
                c.entry("logprobs").or_insert(Value::Null);
                Value::Object(c)
            })
            .collect();
        self.top.insert("choices".into(), Value::Array(choices));
        if self.top.get("usage").is_some_and(Value::is_null) {
            self.top.remove("usage");
        }
        Value::Object(self.top)
    }
}

fn merge_delta(message: &mut Map<String, Value>, delta: &Map<String, Value>) {
    for (k, v) in delta {
        if TEXT.contains(&k.as_str()) {
            if let Some(piece) = v.as_str() {
                match message.get_mut(k) {
                    Some(Value::String(s)) => s.push_str(piece),
                    _ => {
                        message.insert(k.clone(), Value::String(piece.into()));
                    }
                }
            } else if !message.contains_key(k) {
                message.insert(k.clone(), v.clone());
            }
        } else if k == "tool_calls" {
            let calls = message
                .entry("tool_calls")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let (Some(calls), Some(pieces)) = (calls.as_array_mut(), v.as_array()) {
                for piece in pieces {
                    merge_tool_call(calls, piece);
                }
            }
        } else if !v.is_null() {
            message.insert(k.clone(), v.clone());
        }
    }
}

/// A tool-call piece joins the call of its `index`: `id`, `type` and `function.name` as sent,
/// `function.arguments` concatenated.
fn merge_tool_call(calls: &mut Vec<Value>, piece: &Value) {
    let Some(piece) = piece.as_object() else {
        return;
    };
    let index = piece
        .get("index")
        .and_then(Value::as_u64)
        .unwrap_or(calls.len() as u64);
    let pos = calls
        .iter()
        .position(|c| c.get("index").and_then(Value::as_u64) == Some(index));
    let call = match pos {
        Some(p) => &mut calls[p],
        None => {
            calls.push(Value::Object(Map::new()));
            let last = calls.len() - 1;
            &mut calls[last]
        }
    };
    let Some(call) = call.as_object_mut() else {
        return;
    };
    for (k, v) in piece {
        if k == "function" {
            let f = call
                .entry("function")
                .or_insert_with(|| Value::Object(Map::new()));
            let (Some(f), Some(pf)) = (f.as_object_mut(), v.as_object()) else {
                continue;
            };
            for (fk, fv) in pf {
                match (fk.as_str(), fv.as_str(), f.get_mut(fk)) {
                    ("arguments", Some(more), Some(Value::String(s))) => s.push_str(more),
                    _ => {
                        f.insert(fk.clone(), fv.clone());
                    }
                }
            }
        } else if !v.is_null() {
            call.insert(k.clone(), v.clone());
        }
    }
}

/// `logprobs.content` (and `refusal`) arrays of the pieces, appended in order.
fn merge_logprobs(choice: &mut Map<String, Value>, piece: &Value) {
    let lp = choice
        .entry("logprobs")
        .or_insert_with(|| Value::Object(Map::new()));
    let (Some(lp), Some(piece)) = (lp.as_object_mut(), piece.as_object()) else {
        return;
    };
    for (k, v) in piece {
        match (lp.get_mut(k), v.as_array()) {
            (Some(Value::Array(have)), Some(more)) => have.extend(more.iter().cloned()),
            _ => {
                lp.insert(k.clone(), v.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn chunks_fold_into_one_completion_with_tool_calls_and_logprobs() {
        let mut a = Accumulator::default();
        for c in [
            json!({"id": "c1", "object": "chat.completion.chunk", "created": 5, "model": "m",
                   "system_fingerprint": "fp", "choices": [{"index": 0,
                   "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]}),
            json!({"id": "c1", "choices": [{"index": 0, "delta": {"content": "Let me ",
                   "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                   "function": {"name": "get_weather", "arguments": "{\"ci"}}]},
                   "logprobs": {"content": [{"token": "a"}]}, "finish_reason": null}]}),
            json!({"id": "c1", "choices": [{"index": 0, "delta": {"content": "check.",
                   "tool_calls": [{"index": 0, "function": {"arguments": "ty\": \"Leith\"}"}}]},
                   "logprobs": {"content": [{"token": "b"}]}, "finish_reason": null}],
                   "usage": null}),
            json!({"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            json!({"id": "c1", "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}}),
        ] {
            a.add(&c);
        }
        let whole = a.finish();
        assert_eq!(
            whole,
            json!({"id": "c1", "object": "chat.completion", "created": 5, "model": "m",
                   "system_fingerprint": "fp",
                   "choices": [{"index": 0, "finish_reason": "tool_calls",
                       "logprobs": {"content": [{"token": "a"}, {"token": "b"}]},
                       "message": {"role": "assistant", "content": "Let me check.",
                           "tool_calls": [{"id": "call_1", "type": "function",
                               "function": {"name": "get_weather",
                                            "arguments": "{\"city\": \"Leith\"}"}}]}}],
                   "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}})
        );
    }

    #[test]
    fn several_choices_stay_apart() {
        let mut a = Accumulator::default();
        a.add(&json!({"choices": [{"index": 1, "delta": {"content": "b"}}]}));
        a.add(&json!({"choices": [{"index": 0, "delta": {"content": "a"}}]}));
        a.add(
            &json!({"choices": [{"index": 1, "delta": {"content": "b"}, "finish_reason": "stop"}]}),
        );
        let w = a.finish();
        assert_eq!(w["choices"][0]["message"]["content"], "a");
        assert_eq!(w["choices"][1]["message"]["content"], "bb");
        assert_eq!(w["choices"][1]["finish_reason"], "stop");
        assert!(w.get("usage").is_none());
    }
}
