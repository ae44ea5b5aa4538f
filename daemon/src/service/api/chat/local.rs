//! The turn on the local chat worker: the prompt (recall's block in the system message) goes to
//! the installed GGUF, and its reply comes back whole or as server-sent events from a pump task
//! the chat path owns. Also the canned reply of `/remember`, which needs no model.

use std::path::Path;
use std::sync::Arc;

use axum::Json;
use axum::body::{Body, Bytes};
use axum::response::{IntoResponse, Response};
use localm_core::chat;

use super::openai::{
    self, ChatRequest, DONE, Delta, ReplyId, Usage, chunk, completion, sse, usage_chunk,
};
use super::{Prepared, channel_body, failure, nonce, sse_response, turn_log, with_header};
use crate::chat::protocol::{Event, Finish, Request};
use crate::chat::supervisor::{ChatFailure, Turn};
use crate::service::state::Shared;

/// Generated tokens when the request does not say.
const DEFAULT_MAX_TOKENS: u32 = 512;
/// The most generated tokens one reply may ask for.
const MAX_TOKENS_CAP: u32 = 4096;

/// Start the turn on the worker with `model`, and answer whole or streamed.
pub(super) async fn generate(
    s: Arc<Shared>,
    p: Prepared,
    model: &Path,
    grammar: Option<String>,
) -> Response {
    let request = Request {
        messages: chat::prompt(&p.req.plain_messages(), &p.block),
        max_tokens: p.req.max_new_tokens(DEFAULT_MAX_TOKENS, MAX_TOKENS_CAP),
        temperature: p.req.temperature.unwrap_or(0.0).clamp(0.0, 2.0),
        top_p: p.req.top_p.unwrap_or(1.0),
        seed: p.req.seed.map_or_else(|| nonce() as u32, |x| x as u32),
        stop: p.req.stop.as_ref().map(|s| s.strings()).unwrap_or_default(),
        context: s.config().settings.chat_context,
        grammar,
    };
    let mut turn = match s.chat.start(model, &request).await {
        Ok(t) => t,
        Err(f) => return failure(&f),
    };
    // The first event decides the status: a prompt that cannot fit is a 400, streamed or not.
    let first = loop {
        match turn.next().await {
            Some(Ok(Event::Ready { .. })) => continue,
            Some(Ok(Event::TooLong(m))) => {
                s.chat.schedule_unload();
                return with_header(openai::too_long(&m), &p.header);
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

/// The next event: the one already read, else the worker's next.
async fn next(turn: &mut Turn, first: &mut Option<Next>) -> Next {
    match first.take() {
        Some(e) => e,
        None => turn.next().await,
    }
}

/// What `Turn::next` yields.
type Next = Option<Result<Event, ChatFailure>>;

/// A reply that needs no model (`/remember`), in the shape the request asked for.
pub(super) fn canned(req: &ChatRequest, r: &ReplyId, text: &str, header: &str) -> Response {
    if !req.stream {
        let body = completion(r, text, Finish::Stop, Usage::new(0, 0));
        return with_header(Json(body).into_response(), header);
    }
    let usage = req.wants_usage();
    let mut out = String::new();
    let delta = Delta {
        role: Some("assistant"),
        content: Some(text),
    };
    out.push_str(&sse(&chunk(r, delta, None, usage)));
    out.push_str(&sse(&chunk(r, Delta::default(), Some(Finish::Stop), usage)));
    if usage {
        out.push_str(&sse(&usage_chunk(r, Usage::new(0, 0))));
    }
    let mut out = out.into_bytes();
    out.extend_from_slice(DONE);
    with_header(sse_response(Body::from(out)), header)
}

async fn whole(s: Arc<Shared>, p: Prepared, mut turn: Turn, first: Next) -> Response {
    let mut first = Some(first);
    let mut text = String::new();
    let done = loop {
        match next(&mut turn, &mut first).await {
            Some(Ok(Event::Text(t))) => text.push_str(&t),
            Some(Ok(Event::Done {
                finish,
                prompt_tokens,
                completion_tokens,
            })) => break Ok((finish, Usage::new(prompt_tokens, completion_tokens))),
            Some(Ok(Event::Error(e) | Event::TooLong(e))) => break Err(ChatFailure::Failed(e)),
            Some(Ok(Event::Ready { .. })) => {}
            Some(Err(f)) => break Err(f),
            None => break Err(ChatFailure::Failed("the reply ended early".into())),
        }
    };
    s.chat.schedule_unload();
    let (finish, usage) = match done {
        Ok(d) => d,
        Err(f) => return with_header(failure(&f), &p.header),
    };
    turn_log::log_turn(&s, &p, &text).await;
    let body = completion(&p.reply, &text, finish, usage);
    with_header(Json(body).into_response(), &p.header)
}

fn stream(s: Arc<Shared>, p: Prepared, turn: Turn, first: Next) -> Response {
    let header = p.header.clone();
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(32);
    let shared = Arc::clone(&s);
    s.chat.tasks.spawn(pump(shared, p, turn, first, tx));
    with_header(sse_response(channel_body(rx)), &header)
}

/// The SSE pump: the worker's events as chunks, then the turn logged, then `[DONE]`.
async fn pump(
    s: Arc<Shared>,
    p: Prepared,
    mut turn: Turn,
    first: Next,
    tx: tokio::sync::mpsc::Sender<Bytes>,
) {
    let mut pending = Some(first);
    let usage = p.req.wants_usage();
    let r = &p.reply;
    let first = Delta {
        role: Some("assistant"),
        content: Some(""),
    };
    if tx
        .send(sse(&chunk(r, first, None, usage)).into())
        .await
        .is_err()
    {
        return;
    }
    let mut text = String::new();
    let mut ended_well = false;
    while let Some(event) = next(&mut turn, &mut pending).await {
        let line = match event {
            Ok(Event::Text(t)) => {
                text.push_str(&t);
                let delta = Delta {
                    content: Some(&t),
                    ..Delta::default()
                };
                sse(&chunk(r, delta, None, usage))
            }
            Ok(Event::Done {
                finish,
                prompt_tokens,
                completion_tokens,
            }) => {
                ended_well = true;
                let mut out = sse(&chunk(r, Delta::default(), Some(finish), usage));
                if usage {
                    let counts = Usage::new(prompt_tokens, completion_tokens);
                    out.push_str(&sse(&usage_chunk(r, counts)));
                }
                out
            }
            Ok(Event::Error(e) | Event::TooLong(e)) => {
                tracing::warn!("chat: generation failed: {e}");
                sse(&openai::error_body(true, "generation_failed", &e))
            }
            Ok(Event::Ready { .. }) => continue,
            Err(f) => {
                tracing::warn!("chat: generation failed: {f}");
                sse(&openai::error_body(true, "worker_crashed", &f.to_string()))
            }
        };
        // A client that left drops the receiver: dropping `turn` then cancels the reply.
        if tx.send(line.into()).await.is_err() {
            return;
        }
    }
    s.chat.schedule_unload();
    if ended_well {
        turn_log::log_turn(&s, &p, &text).await;
    }
    let _ = tx.send(Bytes::from_static(DONE)).await;
}
