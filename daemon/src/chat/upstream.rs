//! Chat replies from an OpenAI-compatible server the user already runs (llama-server, Ollama,
//! vLLM, LM Studio): the request, with recall's block in its system message, is forwarded to
//! `<base>/chat/completions`, and the reply is passed back as it comes, streamed or whole.
//! `LOCALM_CHAT_UPSTREAM_KEY`, when set, is sent as the bearer token.

use std::io::BufRead;
use std::time::Duration;

use serde_json::Value;

/// How long an upstream may take to answer at all (a streamed reply may run longer).
const CONNECT_AND_HEAD: Duration = Duration::from_secs(30);
/// The most of a whole (non-streamed) reply read.
const MAX_REPLY: u64 = 16 << 20;

/// What the upstream answered.
pub struct Answer {
    pub status: u16,
    pub content_type: String,
}

/// The request body sent upstream: the client's, with `messages` replaced by the prompt (recall's
/// block in the system message) and localm's own fields removed.
pub fn body(original: &Value, messages: &[localm_core::engine::Message]) -> Value {
    let mut body = original.clone();
    if let Some(map) = body.as_object_mut() {
        map.remove("session");
        map.remove("agent");
        map.insert(
            "messages".into(),
            serde_json::to_value(messages).unwrap_or(Value::Null),
        );
    }
    body
}

/// POST `body` to `<base>/chat/completions` and hand every line of the answer to `on_line` as it
/// arrives (it returns `false` to stop reading: the client left). Blocking.
pub fn forward(
    base: &str,
    body: &Value,
    on_head: &mut dyn FnMut(&Answer),
    on_line: &mut dyn FnMut(&str) -> bool,
) -> Result<(), String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(CONNECT_AND_HEAD))
        .timeout_recv_response(Some(CONNECT_AND_HEAD))
        .build()
        .into();
    let mut req = agent
        .post(format!("{base}/chat/completions"))
        .header("content-type", "application/json");
    if let Ok(key) = std::env::var("LOCALM_CHAT_UPSTREAM_KEY") {
        req = req.header("authorization", format!("Bearer {}", key.trim()));
    }
    let resp = req
        .send(body.to_string())
        .map_err(|e| format!("{base}: {e}"))?;
    let answer = Answer {
        status: resp.status().as_u16(),
        content_type: resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("application/json")
            .to_string(),
    };
    on_head(&answer);
    let reader = resp
        .into_body()
        .into_with_config()
        .limit(MAX_REPLY)
        .reader();
    for line in std::io::BufReader::new(reader).lines() {
        let line = line.map_err(|e| format!("{base}: {e}"))?;
        if !on_line(&line) {
            break;
        }
    }
    Ok(())
}

/// The text a streamed chunk adds (`choices[0].delta.content`), if the line is one.
pub fn delta(line: &str) -> Option<String> {
    let data = line.strip_prefix("data:")?.trim();
    let v: Value = serde_json::from_str(data).ok()?;
    v["choices"][0]["delta"]["content"]
        .as_str()
        .map(str::to_string)
}

/// The reply text of a whole answer (`choices[0].message.content`).
pub fn content(whole: &str) -> Option<String> {
    let v: Value = serde_json::from_str(whole).ok()?;
    v["choices"][0]["message"]["content"]
        .as_str()
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_replaces_messages_and_localm_fields_stay_home() {
        let original: Value = serde_json::from_str(
            r#"{"model":"m","messages":[{"role":"user","content":"hi","origin":"tool"}],"session":"s","agent":"chat","temperature":0.2}"#,
        )
        .unwrap();
        let prompt = vec![localm_core::engine::Message {
            role: "system".into(),
            content: "BLOCK".into(),
        }];
        let b = body(&original, &prompt);
        assert_eq!(b["messages"][0]["content"], "BLOCK");
        assert!(b.get("session").is_none() && b.get("agent").is_none());
        assert_eq!(b["temperature"], 0.2);
        assert_eq!(b["model"], "m");
    }

    #[test]
    fn reply_text_from_chunks_and_whole_answers() {
        assert_eq!(
            delta(r#"data: {"choices":[{"delta":{"content":"Hel"}}]}"#).as_deref(),
            Some("Hel")
        );
        assert_eq!(delta("data: [DONE]"), None);
        assert_eq!(delta(""), None);
        assert_eq!(
            content(r#"{"choices":[{"message":{"content":"Hello"}}]}"#).as_deref(),
            Some("Hello")
        );
    }
}
