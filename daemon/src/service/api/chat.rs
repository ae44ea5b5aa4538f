//! `POST /v1/chat/completions` and `GET /v1/models`, in OpenAI's shapes (`chat/openai.rs`):
//! recall runs on every turn and its block joins the system message, `X-Localm-Memory` says
//! what it did, the reply comes from the chat worker (`chat/local.rs`) or the upstream
//! (`chat/relay.rs`), whole or streamed as server-sent events, and in log/full mode the turn is
//! appended to `sessions/<session>.jsonl` (`chat/turn_log.rs`), which is what grows memory.

pub mod local;
pub mod openai;
pub mod relay;
pub mod turn_log;

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use localm_core::chat::conversation::Conversation;
use localm_core::chat::{self, json_format, task_prompt};
use localm_core::manage::{self, Added};
use localm_core::recall::query::ChatMessage;
use localm_core::record::Kind;
use serde::Deserialize;
use serde_json::{Value, json};

use super::apps;
use super::recall::{HEADER, Reinforce, recall_turn};
use crate::chat::supervisor::ChatFailure;
use crate::chat::upstream;
use crate::models;
use crate::service::state::Shared;
use openai::{ChatRequest, InMessage, ReplyId, error};

fn failure(f: &ChatFailure) -> Response {
    tracing::warn!("chat: generation failed: {f}");
    match f {
        ChatFailure::Busy => error(StatusCode::SERVICE_UNAVAILABLE, "busy", f.to_string()),
        ChatFailure::Crashed(_) => error(StatusCode::BAD_GATEWAY, "worker_crashed", f.to_string()),
        ChatFailure::Spawn(_) | ChatFailure::Failed(_) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "generation_failed",
            f.to_string(),
        ),
    }
}

/// `GET /v1/models`: the upstream's models (asked for each time) when there is one, and the
/// local chat model, when one is installed; each with its `+nomemory` twin, the model to pick
/// as an app's task model (no recall, not logged).
pub async fn models(State(s): State<Arc<Shared>>) -> Response {
    let config = s.config();
    let mut data: Vec<Value> = models::chat_path(&s.data_dir, &config.settings)
        .filter(|p| p.is_file())
        .map(|p| model_name(&p))
        .map(|id| json!({"id": id, "object": "model", "created": 0, "owned_by": "localm"}))
        .into_iter()
        .collect();
    if let Some(up) = upstream(&s) {
        match upstream::models(&s.relays, &up).await {
            Ok(theirs) => {
                let ours: Vec<Value> = std::mem::take(&mut data);
                data = theirs;
                for m in ours {
                    if !data.iter().any(|d| d["id"] == m["id"]) {
                        data.push(m);
                    }
                }
            }
            Err(e) if data.is_empty() => {
                return error(
                    StatusCode::BAD_GATEWAY,
                    "upstream_unreachable",
                    format!("the chat upstream did not list its models ({e}); check chat_upstream"),
                );
            }
            Err(e) => tracing::warn!("chat upstream: {e}"),
        }
    }
    let data = apps::with_nomemory(data);
    Json(json!({"object": "list", "data": data})).into_response()
}

/// The upstream in force (`--chat-upstream`, else the `chat_upstream` setting), with its key.
fn upstream(s: &Shared) -> Option<upstream::Upstream> {
    Some(upstream::Upstream {
        base: s.config().chat_upstream?,
        key: s.chat_env.upstream_key.clone(),
    })
}

fn model_name(path: &std::path::Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "localm".into())
}

/// What a turn needs once its request is read and recall has run.
struct Prepared {
    req: ChatRequest,
    header: String,
    block: String,
    /// Where the turn is logged, when it is (log/full mode, plugin on).
    log_to: Option<Conversation>,
    reply: ReplyId,
}

/// One request as the client sent it, read once: the body parsed once into `raw` (what the
/// relay forwards losslessly and the apps' hints are read from) and typed from that same value
/// (`req`), with the messages recall and the session rules read.
struct ChatTurn {
    raw: Value,
    req: ChatRequest,
    messages: Vec<ChatMessage>,
}

impl ChatTurn {
    /// The body, or the 400 that says why it is not a chat completion request.
    // The error is the response itself, returned to the client at once: boxing it would only
    // move the same bytes.
    #[allow(clippy::result_large_err)]
    fn read(body: &[u8]) -> Result<ChatTurn, Response> {
        let refuse = |e: serde_json::Error| {
            error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                format!("the request body is not a chat completion request: {e}"),
            )
        };
        let raw: Value = serde_json::from_slice(body).map_err(refuse)?;
        let req = ChatRequest::deserialize(&raw).map_err(refuse)?;
        let messages = req.chat_messages();
        Ok(ChatTurn { raw, req, messages })
    }

    /// The user's message this turn answers, as text ("" when the last message is not theirs).
    fn latest(&self) -> String {
        self.req
            .new_user_message()
            .map(InMessage::text)
            .unwrap_or_default()
    }

    /// The body to forward: as sent, but naming the upstream's own model id rather than its
    /// `+nomemory` twin.
    fn forwarded(mut self) -> (ChatRequest, Value) {
        if let Some(m) = self.raw.get("model").and_then(Value::as_str) {
            self.raw["model"] = Value::String(task_prompt::base_model(m).to_string());
        }
        (self.req, self.raw)
    }
}

/// Who answers a turn: the upstream, the local worker on the chat model, or nobody (a 503 once
/// recall has run, as a turn with no model always got).
enum Answerer {
    Upstream(upstream::Upstream),
    Local(std::path::PathBuf),
    NoModel,
}

/// `POST /v1/chat/completions`.
pub async fn completions(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let turn = match ChatTurn::read(&body) {
        Ok(t) => t,
        Err(resp) => return resp,
    };
    let config = s.config();
    let local_model = models::chat_path(&s.data_dir, &config.settings).filter(|p| p.is_file());
    // With an upstream, a request naming the local model's id is still served locally.
    let asks_local = local_model.as_deref().map(model_name).is_some_and(|n| {
        turn.req.model.as_deref().map(task_prompt::base_model) == Some(n.as_str())
    });
    let answerer = match upstream(&s).filter(|_| !asks_local) {
        Some(up) => Answerer::Upstream(up),
        None => match models::chat_path(&s.data_dir, &config.settings) {
            Some(path) => Answerer::Local(path),
            None => Answerer::NoModel,
        },
    };
    let relay = matches!(answerer, Answerer::Upstream(_));
    if let Err(e) = turn.req.validate(relay) {
        return error(StatusCode::BAD_REQUEST, "invalid_request", e.to_string());
    }
    // The local model follows `response_format` with a grammar (refused before recall runs when
    // it cannot); the upstream gets it as sent.
    let grammar = if relay {
        None
    } else {
        match json_format::grammar(turn.raw.get("response_format")) {
            Ok(g) => g,
            Err(e) => return error(StatusCode::BAD_REQUEST, "invalid_request", e.to_string()),
        }
    };
    let now = Utc::now();
    let session = match apps::session(&headers, &turn.raw, &turn.messages, now) {
        Ok(n) => n,
        Err(e) => return error(StatusCode::BAD_REQUEST, "invalid_session", e.to_string()),
    };
    // An app's own prompt (a title, tags…) or a `+nomemory` model: no recall, not logged.
    let background = apps::background(&turn.raw, &turn.messages).is_some();
    let plugin = config.settings.memory_plugin_enabled() && !background;
    let reply = |model: String| ReplyId {
        id: format!("chatcmpl-{:016x}", nonce()),
        created: now.timestamp().max(0) as u64,
        model: turn.req.model.clone().unwrap_or(model),
    };

    if plugin && let Some(fact) = chat::remember_command(&turn.latest()) {
        let text = remember(&s, fact).await;
        let header = localm_core::recall::Recall::none(None).header_value();
        return local::canned(&turn.req, &reply("localm".into()), &text, &header);
    }

    // Recall, as the spec's table says: the plugin on, memory_enabled, the mode's rules, the
    // origin and coder rules.
    let (block, header) = if plugin {
        let agent = turn.req.agent.unwrap_or_default();
        match recall_turn(&s, &turn.messages, agent, false, Reinforce::Injected).await {
            Ok(answer) => (answer.block, answer.header),
            Err(e) => return error(e.status, e.code, e.message),
        }
    } else {
        (
            String::new(),
            localm_core::recall::Recall::none(None).header_value(),
        )
    };
    let log_to = (plugin && config.mode.allows_writes()).then_some(session);
    // The upstream's reply names the model the client asked for (or none); the local one's,
    // else the installed model's.
    let model = match &answerer {
        Answerer::Local(path) => model_name(path),
        Answerer::Upstream(_) | Answerer::NoModel => String::new(),
    };
    let reply = reply(model);
    let (req, original) = turn.forwarded();
    let p = Prepared {
        reply,
        req,
        header,
        block,
        log_to,
    };
    match answerer {
        Answerer::Upstream(up) => relay::forward(s, p, up, &original).await,
        Answerer::Local(path) => local::generate(s, p, &path, grammar).await,
        Answerer::NoModel => error(
            StatusCode::SERVICE_UNAVAILABLE,
            "no_model",
            "no chat model is installed: run `localm setup-model` or set chat_model",
        ),
    }
}

/// Store a `/remember` fact as the user's, and the reply that says what happened.
async fn remember(s: &Arc<Shared>, fact: &str) -> String {
    let mode = s.config().mode;
    if !mode.allows_writes() {
        return "Not remembered: privacy mode is on, and memory writes nothing in privacy mode. \
                Switch to log or full mode to save facts."
            .into();
    }
    if fact.is_empty() {
        return "Nothing to remember: write the fact after /remember, e.g. \
                \"/remember I prefer tea\"."
            .into();
    }
    let fact = fact.to_string();
    let shared = Arc::clone(s);
    let Ok(_permit) = s.writers.acquire().await else {
        return "Not remembered: the daemon is stopping.".into();
    };
    let added = tokio::task::spawn_blocking(move || {
        manage::add(&shared.ctx(mode), &fact, Kind::Semantic, None)
    })
    .await;
    match added {
        Ok(Ok(c)) => match c.value {
            Added::New(r) => format!("Remembered: {}", r.text),
            Added::Existing(r) => format!("Already remembered: {}", r.text),
        },
        Ok(Err(e)) => format!("Not remembered: {e}"),
        Err(e) => format!("Not remembered: {e}"),
    }
}

fn sse_response(body: Body) -> Response {
    let mut resp = Response::new(body);
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}

fn with_header(mut resp: Response, value: &str) -> Response {
    if let Ok(v) = HeaderValue::from_str(value) {
        resp.headers_mut().insert(HEADER, v);
    }
    resp
}

/// A number that differs between calls (response ids, default seeds).
fn nonce() -> u64 {
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    localm_core::id::fnv1a32(&t.to_le_bytes()) as u64 ^ (t << 20)
}

/// A response body fed by `rx`, chunk by chunk, until every sender is gone.
fn channel_body(mut rx: tokio::sync::mpsc::Receiver<Bytes>) -> Body {
    let stream = futures_util::stream::poll_fn(move |cx| {
        rx.poll_recv(cx)
            .map(|o| o.map(Ok::<_, std::convert::Infallible>))
    });
    Body::from_stream(stream)
}
