//! `POST /v1/chat/completions` and `GET /v1/models`, in OpenAI's shapes: recall runs on every
//! turn and its block joins the system message, `X-Localm-Memory` says what it did, the reply
//! comes from the chat worker (whole, or streamed as server-sent events), and in log/full mode
//! the turn is appended to `sessions/<session>.jsonl`, which is what grows memory.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use localm_core::chat::{self, ChatRequest, InMessage};
use localm_core::manage::{self, Added};
use localm_core::record::Kind;
use localm_core::session;
use serde_json::{Value, json};

use super::apps;
use super::recall::{HEADER, Reinforce, recall_turn};
use crate::chat::protocol::{Event, Finish, Request};
use crate::chat::supervisor::ChatFailure;
use crate::chat::upstream;
use crate::models;
use crate::service::state::Shared;

/// Generated tokens when the request does not say.
const DEFAULT_MAX_TOKENS: u32 = 512;
/// The most generated tokens one reply may ask for.
const MAX_TOKENS_CAP: u32 = 4096;

/// An error in OpenAI's shape: `{"error": {"message", "type", "code"}}`.
fn error(status: StatusCode, code: &str, message: impl Into<String>) -> Response {
    let kind = if status.is_server_error() {
        "server_error"
    } else {
        "invalid_request_error"
    };
    let body = json!({"error": {"message": message.into(), "type": kind, "code": code}});
    let mut resp = (status, Json(body)).into_response();
    if status == StatusCode::SERVICE_UNAVAILABLE {
        resp.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    }
    resp
}

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

/// `GET /v1/models`: the chat model, when one is installed.
pub async fn models(State(s): State<Arc<Shared>>) -> Response {
    let config = s.config();
    let ids: Vec<String> = models::chat_path(&s.data_dir, &config.settings)
        .filter(|p| p.is_file())
        .map(|p| model_name(&p))
        .into_iter()
        .collect();
    let data = apps::with_nomemory(&ids);
    Json(json!({"object": "list", "data": data})).into_response()
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
    log_to: Option<String>,
    created: u64,
    id: String,
    model: String,
}

/// `POST /v1/chat/completions`.
pub async fn completions(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let req: ChatRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                format!("the request body is not a chat completion request: {e}"),
            );
        }
    };
    if let Err(e) = req.validate() {
        return error(StatusCode::BAD_REQUEST, "invalid_request", e.to_string());
    }
    let raw: Value = serde_json::from_slice(&body).unwrap_or_default();
    let now = Utc::now();
    let session = match apps::session(&headers, &raw, &req.chat_messages(), now) {
        Ok(n) => n,
        Err(e) => return error(StatusCode::BAD_REQUEST, "invalid_session", e.to_string()),
    };
    // An app's own prompt (a title, tags…) or the `+nomemory` model: no recall, not logged.
    let background = apps::background(&raw, &req.chat_messages()).is_some();
    let config = s.config();
    let plugin = config.settings.memory_plugin_enabled() && !background;
    let latest = req.latest().map(InMessage::text).unwrap_or_default();
    let created = now.timestamp().max(0) as u64;
    let id = format!("chatcmpl-{:016x}", nonce());

    if plugin && let Some(fact) = chat::remember_command(&latest) {
        let reply = remember(&s, fact).await;
        let model = req.model.clone().unwrap_or_else(|| "localm".into());
        let header = localm_core::recall::Recall::none(None).header_value();
        return whole_or_stream(&req, &id, created, &model, &reply, &header);
    }

    // Recall, as the spec's table says: the plugin on, memory_enabled, the mode's rules, the
    // origin and coder rules.
    let (block, header) = if plugin {
        let messages = req.chat_messages();
        match recall_turn(
            &s,
            &messages,
            req.agent.unwrap_or_default(),
            false,
            Reinforce::Injected,
        )
        .await
        {
            Ok(answer) => (answer.block, answer.header),
            Err(e) => return error(e.status, e.code, e.message),
        }
    } else {
        (
            String::new(),
            localm_core::recall::Recall::none(None).header_value(),
        )
    };
    let upstream = s
        .chat_upstream
        .clone()
        .or_else(|| config.settings.chat_upstream.clone());
    if let Some(base) = upstream {
        let mut original = raw;
        if let Some(m) = original.get("model").and_then(Value::as_str) {
            let base = chat::task_prompt::base_model(m).to_string();
            original["model"] = Value::String(base);
        }
        let sent = upstream::body(&original, &chat::prompt(&req.messages, &block));
        let p = Prepared {
            log_to: (plugin && config.mode.allows_writes()).then_some(session),
            model: req.model.clone().unwrap_or_default(),
            req,
            header,
            block,
            created,
            id,
        };
        return forward(s, p, base, sent).await;
    }
    let Some(model_path) = models::chat_path(&s.data_dir, &config.settings) else {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "no_model",
            "no chat model is installed: run `localm setup-model` or set chat_model",
        );
    };
    let p = Prepared {
        log_to: (plugin && config.mode.allows_writes()).then_some(session),
        model: req.model.clone().unwrap_or_else(|| model_name(&model_path)),
        req,
        header,
        block,
        created,
        id,
    };
    let request = Request {
        messages: chat::prompt(&p.req.messages, &p.block),
        max_tokens: p.req.max_new_tokens(DEFAULT_MAX_TOKENS, MAX_TOKENS_CAP),
        temperature: p.req.temperature.unwrap_or(0.0).clamp(0.0, 2.0),
        top_p: p.req.top_p.unwrap_or(1.0),
        seed: p.req.seed.map_or_else(|| nonce() as u32, |x| x as u32),
        stop: p.req.stop.as_ref().map(|s| s.strings()).unwrap_or_default(),
        context: config.settings.chat_context,
    };
    let mut turn = match s.chat.start(&model_path, &request).await {
        Ok(t) => t,
        Err(f) => return failure(&f),
    };
    // The first event decides the status: a prompt that cannot fit is a 400, streamed or not.
    let first = loop {
        match turn.next().await {
            Some(Ok(Event::Ready { .. })) => continue,
            Some(Ok(Event::TooLong(m))) => {
                s.chat.schedule_unload();
                return with_header(apps::too_long(&m), &p.header);
            }
            other => break other,
        }
    };
    if p.req.stream {
        stream(s, p, turn, first)
    } else {
        whole(s, p, turn, first).await
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

/// A reply that needs no model (`/remember`), in the shape the request asked for.
fn whole_or_stream(
    req: &ChatRequest,
    id: &str,
    created: u64,
    model: &str,
    text: &str,
    header: &str,
) -> Response {
    if !req.stream {
        let body = completion(id, created, model, text, Finish::Stop, 0, 0);
        return with_header(Json(body).into_response(), header);
    }
    let usage = req.stream_options.as_ref().is_some_and(|o| o.include_usage);
    let mut out = String::new();
    out.push_str(&sse(&chunk(
        id,
        created,
        model,
        json!({"role": "assistant", "content": text}),
        None,
        usage,
    )));
    out.push_str(&sse(&chunk(
        id,
        created,
        model,
        json!({}),
        Some(Finish::Stop),
        usage,
    )));
    if usage {
        out.push_str(&sse(&usage_chunk(id, created, model, 0, 0)));
    }
    out.push_str("data: [DONE]\n\n");
    with_header(sse_response(Body::from(out)), header)
}

async fn whole(
    s: Arc<Shared>,
    p: Prepared,
    mut turn: crate::chat::supervisor::Turn,
    mut first: Option<Result<Event, ChatFailure>>,
) -> Response {
    let mut text = String::new();
    let done = loop {
        let event = match first.take() {
            Some(e) => Some(e),
            None => turn.next().await,
        };
        match event {
            Some(Ok(Event::Text(t))) => text.push_str(&t),
            Some(Ok(Event::Done {
                finish,
                prompt_tokens,
                completion_tokens,
            })) => break Ok((finish, prompt_tokens, completion_tokens)),
            Some(Ok(Event::Error(e) | Event::TooLong(e))) => break Err(ChatFailure::Failed(e)),
            Some(Ok(Event::Ready { .. })) => {}
            Some(Err(f)) => break Err(f),
            None => break Err(ChatFailure::Failed("the reply ended early".into())),
        }
    };
    s.chat.schedule_unload();
    let (finish, prompt_tokens, completion_tokens) = match done {
        Ok(d) => d,
        Err(f) => return with_header(failure(&f), &p.header),
    };
    log_turn(&s, &p, &text).await;
    let body = completion(
        &p.id,
        p.created,
        &p.model,
        &text,
        finish,
        prompt_tokens,
        completion_tokens,
    );
    with_header(Json(body).into_response(), &p.header)
}

fn stream(
    s: Arc<Shared>,
    p: Prepared,
    mut turn: crate::chat::supervisor::Turn,
    mut pending: Option<Result<Event, ChatFailure>>,
) -> Response {
    let header = p.header.clone();
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Bytes>(32);
    tokio::spawn(async move {
        let usage = p
            .req
            .stream_options
            .as_ref()
            .is_some_and(|o| o.include_usage);
        let (id, created, model) = (p.id.as_str(), p.created, p.model.as_str());
        let first = chunk(
            id,
            created,
            model,
            json!({"role": "assistant", "content": ""}),
            None,
            usage,
        );
        if tx.send(sse(&first).into()).await.is_err() {
            return;
        }
        let mut text = String::new();
        let mut ended_well = false;
        loop {
            let event = match pending.take() {
                Some(e) => e,
                None => match turn.next().await {
                    Some(e) => e,
                    None => break,
                },
            };
            let line = match event {
                Ok(Event::Text(t)) => {
                    text.push_str(&t);
                    sse(&chunk(
                        id,
                        created,
                        model,
                        json!({"content": t}),
                        None,
                        usage,
                    ))
                }
                Ok(Event::Done {
                    finish,
                    prompt_tokens,
                    completion_tokens,
                }) => {
                    ended_well = true;
                    let mut out = sse(&chunk(id, created, model, json!({}), Some(finish), usage));
                    if usage {
                        out.push_str(&sse(&usage_chunk(
                            id,
                            created,
                            model,
                            prompt_tokens,
                            completion_tokens,
                        )));
                    }
                    out
                }
                Ok(Event::Error(e) | Event::TooLong(e)) => {
                    tracing::warn!("chat: generation failed: {e}");
                    sse(
                        &json!({"error": {"message": e, "type": "server_error", "code": "generation_failed"}}),
                    )
                }
                Ok(Event::Ready { .. }) => continue,
                Err(f) => {
                    tracing::warn!("chat: generation failed: {f}");
                    sse(
                        &json!({"error": {"message": f.to_string(), "type": "server_error", "code": "worker_crashed"}}),
                    )
                }
            };
            // A client that left drops the receiver: dropping `turn` then cancels the reply.
            if tx.send(line.into()).await.is_err() {
                return;
            }
        }
        s.chat.schedule_unload();
        if ended_well {
            log_turn(&s, &p, &text).await;
        }
        let _ = tx.send(Bytes::from_static(b"data: [DONE]\n\n")).await;
    });
    let body = futures_util::stream::poll_fn(move |cx| {
        rx.poll_recv(cx).map(|o| o.map(Ok::<_, Infallible>))
    });
    with_header(sse_response(Body::from_stream(body)), &header)
}

/// The turn through `chat_upstream`: forward the augmented request, pass the answer back as it
/// comes (streamed or whole, with its status), and log the turn once a reply arrived whole.
async fn forward(s: Arc<Shared>, p: Prepared, base: String, sent: Value) -> Response {
    let (head_tx, head_rx) = tokio::sync::oneshot::channel::<(u16, String)>();
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Bytes>(64);
    let tx_done = tx.clone();
    let stream = p.req.stream;
    let header = p.header.clone();
    let shared = Arc::clone(&s);
    let reading = tokio::task::spawn_blocking(move || {
        let mut head_tx = Some(head_tx);
        let mut text = String::new();
        let mut whole = String::new();
        let mut ok = false;
        let mut complete = !stream;
        let result = upstream::forward(
            &base,
            &sent,
            &mut |a| {
                ok = (200..300).contains(&a.status);
                if let Some(h) = head_tx.take() {
                    let _ = h.send((a.status, a.content_type.clone()));
                }
            },
            &mut |line| {
                if stream {
                    if let Some(t) = upstream::delta(line) {
                        text.push_str(&t);
                    }
                    if line.trim() == "data: [DONE]" {
                        // Sent once the turn is logged, so a client that saw the end finds it.
                        complete = true;
                        return true;
                    }
                } else {
                    whole.push_str(line);
                    whole.push('\n');
                }
                tx.blocking_send(Bytes::from(format!("{line}\n"))).is_ok()
            },
        );
        if let Err(e) = &result {
            tracing::warn!("chat upstream: {e}");
        }
        if !stream {
            text = upstream::content(&whole).unwrap_or_default();
        }
        (result.is_ok() && ok && complete).then_some(text)
    });
    let Ok((status, content_type)) = head_rx.await else {
        let why = match reading.await {
            Ok(_) => "no answer".to_string(),
            Err(e) => e.to_string(),
        };
        return with_header(
            error(
                StatusCode::BAD_GATEWAY,
                "upstream_unreachable",
                format!("the chat upstream did not answer ({why}); check chat_upstream"),
            ),
            &header,
        );
    };
    let done_tx = stream.then(|| tx_done.clone());
    drop(tx_done);
    let logger = tokio::spawn(async move {
        if let Ok(Some(text)) = reading.await {
            log_turn(&shared, &p, &text).await;
            if let Some(tx) = done_tx {
                let _ = tx.send(Bytes::from_static(b"data: [DONE]\n\n")).await;
            }
        }
    });
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    let mut resp = if stream {
        let body = futures_util::stream::poll_fn(move |cx| {
            rx.poll_recv(cx).map(|o| o.map(Ok::<_, Infallible>))
        });
        Response::new(Body::from_stream(body))
    } else {
        let mut whole = Vec::new();
        while let Some(b) = rx.recv().await {
            whole.extend_from_slice(&b);
        }
        let _ = logger.await;
        Response::new(Body::from(whole))
    };
    *resp.status_mut() = status;
    if let Ok(v) = HeaderValue::from_str(&content_type) {
        resp.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    with_header(resp, &header)
}

/// Append the turn to its session log (log/full mode with the plugin on only).
async fn log_turn(s: &Arc<Shared>, p: &Prepared, reply: &str) {
    let Some(name) = p.log_to.clone() else { return };
    // Privacy may have been switched on while the reply was generated.
    if !s.config().mode.allows_writes() {
        return;
    }
    let Some(user) = p.req.latest().cloned() else {
        return;
    };
    let lines = chat::log_lines(&user, reply, p.req.agent, Utc::now());
    let dir = s.data_dir.join("sessions");
    let result = tokio::task::spawn_blocking(move || session::append(&dir, &name, &lines)).await;
    match result {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!("chat: could not log the turn: {e}"),
        Err(e) => tracing::warn!("chat: could not log the turn: {e}"),
    }
}

fn completion(
    id: &str,
    created: u64,
    model: &str,
    text: &str,
    finish: Finish,
    prompt_tokens: usize,
    completion_tokens: usize,
) -> Value {
    json!({
        "id": id, "object": "chat.completion", "created": created, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    })
}

fn chunk(
    id: &str,
    created: u64,
    model: &str,
    delta: Value,
    finish: Option<Finish>,
    usage: bool,
) -> Value {
    let mut c = json!({
        "id": id, "object": "chat.completion.chunk", "created": created, "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    });
    if usage {
        c["usage"] = Value::Null;
    }
    c
}

fn usage_chunk(id: &str, created: u64, model: &str, prompt: usize, completion: usize) -> Value {
    json!({
        "id": id, "object": "chat.completion.chunk", "created": created, "model": model,
        "choices": [],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    })
}

fn sse(v: &Value) -> String {
    format!("data: {v}\n\n")
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
