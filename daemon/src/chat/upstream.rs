//! Chat replies from an OpenAI-compatible server the user already runs (llama-server, Ollama,
//! vLLM, LM Studio, llama-cpp-python): the client's request, with recall's block in its system
//! message (`forwarded.rs`), is posted to `<base>/chat/completions` and always read as a
//! stream, line by line, so no reply is cut off for taking long; `<base>/models` is asked for
//! the model list. The bearer token (`LOCALM_CHAT_UPSTREAM_KEY`), when there is one, goes with
//! each request.

use std::io::BufRead;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;

/// How long connecting to the upstream may take (it is down, else).
const CONNECT: Duration = Duration::from_secs(10);
/// How long an upstream may take to start its answer (a CPU server on a long prompt is slow).
const START: Duration = Duration::from_secs(600);
/// How long the model list may take.
const MODELS: Duration = Duration::from_secs(10);
/// The most of one answer read.
const MAX_REPLY: u64 = 64 << 20;

/// What the upstream says, in order: its head once, then its lines, or why it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    Head {
        status: u16,
        content_type: String,
    },
    Line(String),
    /// Could not connect, or the answer broke off.
    Failed(String),
}

fn agent(start: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(CONNECT))
        .timeout_recv_response(Some(start))
        .build()
        .into()
}

/// The server chat replies come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upstream {
    /// Its base URL (`http://127.0.0.1:8080/v1`).
    pub base: String,
    /// The bearer token sent with each request.
    pub key: Option<String>,
}

impl Upstream {
    fn with_key<B>(&self, req: ureq::RequestBuilder<B>) -> ureq::RequestBuilder<B> {
        match &self.key {
            Some(key) => req.header("authorization", format!("Bearer {key}")),
            None => req,
        }
    }
}

/// POST `body` to `<base>/chat/completions` and send what the upstream says to `tx` as it
/// arrives; stops reading once `tx` is closed (the client left). Blocking.
pub fn forward(up: &Upstream, body: &Value, tx: &mpsc::Sender<Said>) {
    let base = &up.base;
    let req = up.with_key(
        agent(START)
            .post(format!("{base}/chat/completions"))
            .header("content-type", "application/json"),
    );
    let resp = match req.send(body.to_string()) {
        Ok(r) => r,
        Err(e) => {
            let _ = tx.blocking_send(Said::Failed(format!("{base}: {e}")));
            return;
        }
    };
    let head = Said::Head {
        status: resp.status().as_u16(),
        content_type: resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("application/json")
            .to_string(),
    };
    if tx.blocking_send(head).is_err() {
        return;
    }
    let reader = resp
        .into_body()
        .into_with_config()
        .limit(MAX_REPLY)
        .reader();
    for line in std::io::BufReader::new(reader).lines() {
        let said = match line {
            Ok(l) => Said::Line(l),
            Err(e) => Said::Failed(format!("{base}: the answer broke off: {e}")),
        };
        let failed = matches!(said, Said::Failed(_));
        if tx.blocking_send(said).is_err() || failed {
            return;
        }
    }
}

/// Why the upstream's model list could not be had. One line each, naming the URL.
#[derive(Debug, thiserror::Error)]
pub enum ModelsError {
    #[error("{base}: {source}")]
    Unreachable { base: String, source: ureq::Error },
    #[error("{base}/models answered {status}")]
    Status { base: String, status: u16 },
    #[error("{base}/models: {source}")]
    Read { base: String, source: ureq::Error },
    #[error("{base}/models: {source}")]
    NotJson {
        base: String,
        source: serde_json::Error,
    },
    #[error("{base}/models sent no model list")]
    NoList { base: String },
}

/// `GET <base>/models`: the upstream's model objects, as it sends them. Blocking.
pub fn models(up: &Upstream) -> Result<Vec<Value>, ModelsError> {
    let base = || up.base.clone();
    let mut resp = up
        .with_key(agent(MODELS).get(format!("{}/models", up.base)))
        .call()
        .map_err(|source| ModelsError::Unreachable {
            base: base(),
            source,
        })?;
    let status = resp.status().as_u16();
    if !(200..300).contains(&status) {
        return Err(ModelsError::Status {
            base: base(),
            status,
        });
    }
    let text = resp
        .body_mut()
        .read_to_string()
        .map_err(|source| ModelsError::Read {
            base: base(),
            source,
        })?;
    let v: Value = serde_json::from_str(&text).map_err(|source| ModelsError::NotJson {
        base: base(),
        source,
    })?;
    match v.get("data").and_then(Value::as_array) {
        Some(list) => Ok(list.clone()),
        None => Err(ModelsError::NoList { base: base() }),
    }
}

/// The JSON of an SSE `data:` line (`None` for other lines and for `[DONE]`).
pub fn data(line: &str) -> Option<Value> {
    let d = line.strip_prefix("data:")?.trim();
    serde_json::from_str(d).ok()
}

/// Whether `line` ends the stream.
pub fn is_done(line: &str) -> bool {
    line.strip_prefix("data:")
        .is_some_and(|d| d.trim() == "[DONE]")
}

/// The text a streamed chunk adds (`choices[0].delta.content`).
pub fn delta(chunk: &Value) -> Option<&str> {
    chunk["choices"][0]["delta"]["content"].as_str()
}

/// The reply text of a whole answer (`choices[0].message.content`).
pub fn content(whole: &Value) -> Option<&str> {
    whole["choices"][0]["message"]["content"].as_str()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn stream_lines_and_whole_answers_are_read() {
        let c = data(r#"data: {"choices":[{"delta":{"content":"Hel"}}]}"#).unwrap();
        assert_eq!(delta(&c), Some("Hel"));
        assert_eq!(data("data: [DONE]"), None);
        assert!(is_done("data: [DONE]") && is_done("data:[DONE]") && !is_done(""));
        assert_eq!(data(": keep-alive"), None);
        let w: Value =
            serde_json::from_str(r#"{"choices":[{"message":{"content":"Hello"}}]}"#).unwrap();
        assert_eq!(content(&w), Some("Hello"));
    }

    #[tokio::test]
    async fn an_upstream_that_is_down_says_why() {
        let (tx, mut rx) = mpsc::channel(4);
        // Port 9 (discard) on loopback: nothing listens in the test environment.
        let down = Upstream {
            base: "http://127.0.0.1:9/v1".into(),
            key: None,
        };
        let up = down.clone();
        let t = tokio::task::spawn_blocking(move || {
            forward(&up, &Value::Null, &tx);
        });
        assert!(matches!(rx.recv().await, Some(Said::Failed(_))));
        t.await.unwrap();
        let err = models(&down).unwrap_err();
        assert!(matches!(err, ModelsError::Unreachable { .. }), "{err}");
        assert!(
            err.to_string().starts_with("http://127.0.0.1:9/v1: "),
            "{err}"
        );
    }
}
