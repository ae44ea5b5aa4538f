//! Chat replies from an OpenAI-compatible server the user already runs (llama-server, Ollama,
//! vLLM, LM Studio, llama-cpp-python): the client's request, with recall's block in its system
//! message (`forwarded.rs`), is posted to `<base>/chat/completions` and always read as a
//! stream, line by line, so no reply is cut off for taking long; `<base>/models` is asked for
//! the model list. The bearer token (`LOCALM_CHAT_UPSTREAM_KEY`), when there is one, goes with
//! each request.
//!
//! Each request reads on a thread of its own, never the runtime's blocking pool (which the
//! memory API needs), and at most [`RELAYS`] are in flight at once ([`Relays`]); the
//! [`InFlight`] a request hands back interrupts its read when dropped (the client left, the
//! relay gave up on a silent upstream), so a stalled upstream holds nothing past its caller.

use std::io::BufRead;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot};

/// How long connecting to the upstream may take (it is down, else).
const CONNECT: Duration = Duration::from_secs(10);
/// How long an upstream may take to start its answer (a CPU server on a long prompt is slow).
pub const START: Duration = Duration::from_secs(600);
/// How long an upstream that has started its reply may then stay silent (it is stalled, else).
pub const IDLE: Duration = Duration::from_secs(120);
/// How long the model list may take, whole.
const MODELS: Duration = Duration::from_secs(10);
/// The most of one answer read.
const MAX_REPLY: u64 = 64 << 20;
/// The most of an upstream's error answer passed on (the rest is dropped unread).
pub const MAX_ERROR: usize = 64 << 10;
/// Requests to the upstream in flight at once; past it, a 503.
pub const RELAYS: usize = 32;

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

/// The cap on requests in flight to the upstream, each on a thread of its own holding one
/// permit until it ends.
#[derive(Debug, Clone)]
pub struct Relays(Arc<Semaphore>);

impl Default for Relays {
    fn default() -> Relays {
        Relays(Arc::new(Semaphore::new(RELAYS)))
    }
}

/// Every permit is taken: the request is refused (503), not queued behind stalled ones.
#[derive(Debug, thiserror::Error)]
#[error("{RELAYS} requests to the chat upstream are already in flight; try again when one ends")]
pub struct Busy;

impl Relays {
    /// Run `work` on a new thread holding a permit, or refuse when none is free.
    fn run(&self, work: impl FnOnce() + Send + 'static) -> Result<(), Busy> {
        let permit: OwnedSemaphorePermit =
            Arc::clone(&self.0).try_acquire_owned().map_err(|_| Busy)?;
        std::thread::Builder::new()
            .name("localm-upstream".into())
            .spawn(move || {
                work();
                drop(permit);
            })
            .map(drop)
            .map_err(|e| {
                tracing::warn!("chat upstream: no thread for the request: {e}");
                Busy
            })
    }
}

/// A request in flight upstream. Dropping it shuts its connection down, which ends the
/// thread's blocking read at once.
#[derive(Debug)]
pub struct InFlight(Option<ureq::Agent>);

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(agent) = self.0.take() {
            agent.shutdown();
        }
    }
}

type Config = ureq::config::ConfigBuilder<ureq::typestate::AgentScope>;

/// An agent for one request (its own, so shutting it down touches nothing else).
fn agent(configure: impl FnOnce(Config) -> Config) -> ureq::Agent {
    configure(
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(CONNECT)),
    )
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

/// POST `body` to `<base>/chat/completions` on a thread of its own and send what the upstream
/// says to `tx` as it arrives. The thread stops at its next line once `tx` is closed, and at
/// once when the returned [`InFlight`] is dropped.
pub fn forward(
    relays: &Relays,
    up: &Upstream,
    body: Value,
    tx: mpsc::Sender<Said>,
) -> Result<InFlight, Busy> {
    let agent = agent(|c| c.timeout_recv_response(Some(START)));
    let (up, shared) = (up.clone(), agent.clone());
    relays.run(move || read_reply(&shared, &up, &body, &tx))?;
    Ok(InFlight(Some(agent)))
}

fn read_reply(agent: &ureq::Agent, up: &Upstream, body: &Value, tx: &mpsc::Sender<Said>) {
    let base = &up.base;
    let req = up.with_key(
        agent
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
    #[error("{}", Busy)]
    Busy,
}

/// `GET <base>/models` on a thread of its own (at most [`MODELS`] in all): the upstream's
/// model objects, as it sends them.
pub async fn models(relays: &Relays, up: &Upstream) -> Result<Vec<Value>, ModelsError> {
    let agent = agent(|c| c.timeout_global(Some(MODELS)));
    let (up, shared) = (up.clone(), agent.clone());
    let (tx, rx) = oneshot::channel();
    relays
        .run(move || {
            let _ = tx.send(list_models(&shared, &up));
        })
        .map_err(|_| ModelsError::Busy)?;
    let _stop = InFlight(Some(agent));
    rx.await.unwrap_or(Err(ModelsError::Busy))
}

fn list_models(agent: &ureq::Agent, up: &Upstream) -> Result<Vec<Value>, ModelsError> {
    let base = || up.base.clone();
    let mut resp = up
        .with_key(agent.get(format!("{}/models", up.base)))
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
        let relays = Relays::default();
        let call = forward(&relays, &down, Value::Null, tx).unwrap();
        assert!(matches!(rx.recv().await, Some(Said::Failed(_))));
        drop(call);
        let err = models(&relays, &down).await.unwrap_err();
        assert!(matches!(err, ModelsError::Unreachable { .. }), "{err}");
        assert!(
            err.to_string().starts_with("http://127.0.0.1:9/v1: "),
            "{err}"
        );
    }
}
