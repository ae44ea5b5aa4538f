//! The request body localm sends upstream: the client's own JSON, with recall's block in its
//! system message (core's rule picks which) and localm's own fields (`session`, `agent`,
//! `origin`) removed. Everything else — tools, tool calls, names, image parts,
//! `response_format`, `n`, `logprobs`, fields we do not know — is passed as the client sent it.
//! The reply is always streamed from the upstream, whatever the client asked.

use localm_core::chat;
use serde_json::{Map, Value, json};

/// The body for the upstream, from the client's `original` request.
pub fn body(original: &Value, block: &str) -> Value {
    let mut body = original.clone();
    let Some(map) = body.as_object_mut() else {
        return body;
    };
    map.remove("session");
    map.remove("agent");
    let client_streams = map.get("stream").and_then(Value::as_bool) == Some(true);
    map.insert("stream".into(), Value::Bool(true));
    if !client_streams {
        // Folded into the whole reply, with its counts.
        map.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if let Some(messages) = map.get_mut("messages").and_then(Value::as_array_mut) {
        for m in messages.iter_mut().filter_map(Value::as_object_mut) {
            m.remove("origin");
        }
        if !block.is_empty() {
            add_block(messages, block);
        }
    }
    body
}

fn add_block(messages: &mut Vec<Value>, block: &str) {
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m.get("role").and_then(Value::as_str).unwrap_or(""))
        .collect();
    let Some(i) = chat::block_target(roles) else {
        messages.insert(0, json!({"role": "system", "content": block}));
        return;
    };
    let Some(m) = messages.get_mut(i).and_then(Value::as_object_mut) else {
        return;
    };
    let content = m.entry("content").or_insert(Value::Null);
    match content {
        Value::String(s) => *s = chat::with_block(s, block),
        Value::Array(parts) => {
            let mut part = Map::new();
            part.insert("type".into(), "text".into());
            part.insert("text".into(), block.into());
            parts.push(Value::Object(part));
        }
        other => *other = Value::String(block.to_string()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_block_joins_the_clients_own_messages_and_the_rest_passes_untouched() {
        let original = json!({
            "model": "m", "session": "s", "agent": "chat", "n": 2, "logprobs": true,
            "response_format": {"type": "json_object"}, "x_unknown": {"a": [1, 2]},
            "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
            "messages": [
                {"role": "developer", "content": "be brief", "name": "dev"},
                {"role": "user", "content": [{"type": "text", "text": "what is this?"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}],
                 "origin": "tool"},
                {"role": "assistant", "content": null,
                 "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "42"}
            ]
        });
        let b = body(&original, "BLOCK");
        assert_eq!(b["messages"][0]["content"], "be brief\n\nBLOCK");
        assert_eq!(b["messages"][0]["name"], "dev");
        assert_eq!(b["messages"][0]["role"], "developer");
        assert!(b["messages"][1].get("origin").is_none());
        for k in [
            "model",
            "n",
            "logprobs",
            "response_format",
            "x_unknown",
            "tools",
        ] {
            assert_eq!(b[k], original[k], "{k}");
        }
        assert_eq!(
            b["messages"][1]["content"],
            original["messages"][1]["content"]
        );
        for i in [2, 3] {
            assert_eq!(b["messages"][i], original["messages"][i]);
        }
        assert!(b.get("session").is_none() && b.get("agent").is_none());
        assert_eq!(b["stream"], true);
        assert_eq!(b["stream_options"]["include_usage"], true);
    }

    #[test]
    fn without_a_system_message_the_block_leads_a_new_one() {
        let original = json!({"stream": true, "stream_options": {"include_usage": false},
            "messages": [{"role": "user", "content": "hi"}]});
        let b = body(&original, "BLOCK");
        assert_eq!(
            b["messages"][0],
            json!({"role": "system", "content": "BLOCK"})
        );
        assert_eq!(b["messages"][1], original["messages"][0]);
        assert_eq!(b["stream_options"], original["stream_options"]);
        let b = body(&original, "");
        assert_eq!(b["messages"], original["messages"]);
        let parts = json!({"messages": [{"role": "system", "content": [{"type": "text", "text": "a"}]},
            {"role": "user", "content": "hi"}]});
        let b = body(&parts, "BLOCK");
        assert_eq!(
            b["messages"][0]["content"][1],
            json!({"type": "text", "text": "BLOCK"})
        );
    }
}
