//! The turn through `chat_upstream`: the client's request goes upstream losslessly (recall's
//! block in its system message, `chat::forwarded`), always streamed. A streamed reply is passed
//! back line by line by a pump task the chat path owns, with `: keep-alive` comments while the
//! upstream is silent; a whole one is folded from the stream (`chat::accumulate`). The turn is
//! logged once a reply arrived whole; an upstream that is down is a clear 502. The request's
//! [`InFlight`] lives as long as the answer does: when the client leaves, or the upstream stays
//! silent past `upstream::START` before its first line or `upstream::IDLE` after one, it is
//! dropped, which ends the upstream read.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Json;
use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio::sync::mpsc;

use super::openai::{DONE, error, error_body, sse};
use super::{Prepared, channel_body, sse_response, turn_log, with_header};
use crate::chat::accumulate::Accumulator;
use crate::chat::forwarded;
use crate::chat::upstream::{self, InFlight, Said, Upstream};
use crate::service::state::Shared;

/// How long the upstream may now stay silent: until its first line, `START`; after, `IDLE`.
fn patience(lines: bool) -> Duration {
    if lines {
        upstream::IDLE
    } else {
        upstream::START
    }
}

fn silent(limit: Duration) -> String {
    format!(
        "the chat upstream sent nothing for {} s; gave up on it",
        limit.as_secs()
    )
}

fn unreachable(why: &str) -> Response {
    error(
        StatusCode::BAD_GATEWAY,
        "upstream_unreachable",
        format!("the chat upstream did not answer ({why}); check chat_upstream"),
    )
}

/// Forward the turn to `up` and answer with what it says.
pub(super) async fn forward(
    s: Arc<Shared>,
    p: Prepared,
    up: Upstream,
    original: &Value,
) -> Response {
    let sent = forwarded::body(original, &p.block);
    let (tx, mut rx) = mpsc::channel::<Said>(64);
    let header = p.header.clone();
    let call = match upstream::forward(&s.relays, &up, sent, tx) {
        Ok(call) => call,
        Err(e) => {
            tracing::warn!("chat upstream: {e}");
            let busy = error(
                StatusCode::SERVICE_UNAVAILABLE,
                "upstream_busy",
                e.to_string(),
            );
            return with_header(busy, &header);
        }
    };
    if !p.req.stream {
        return with_header(whole(&s, &p, (call, rx)).await, &header);
    }
    // Wait a moment for the head, so an upstream's refusal keeps its status.
    let first = match tokio::time::timeout(s.chat_env.keepalive, rx.recv()).await {
        Ok(Some(Said::Head {
            status,
            content_type,
        })) if !(200..300).contains(&status) => {
            return with_header(passed(status, &content_type, &mut rx).await, &header);
        }
        Ok(Some(Said::Failed(e))) => {
            tracing::warn!("chat upstream: {e}");
            return with_header(unreachable(&e), &header);
        }
        Ok(None) => return with_header(unreachable("no answer"), &header),
        Ok(Some(said)) => Some(said),
        Err(_) => None,
    };
    let (out, body_rx) = mpsc::channel::<Bytes>(64);
    let shared = Arc::clone(&s);
    s.chat.tasks.spawn(pump(shared, p, first, (call, rx), out));
    with_header(sse_response(channel_body(body_rx)), &header)
}

/// The first [`upstream::MAX_ERROR`] bytes of an upstream's error answer (the rest is not
/// read), waiting no longer than [`upstream::IDLE`] for each line.
async fn error_text(rx: &mut mpsc::Receiver<Said>) -> String {
    let mut body = String::new();
    while let Ok(Some(said)) = tokio::time::timeout(upstream::IDLE, rx.recv()).await {
        if let Said::Line(l) = said {
            body.push_str(&l);
            body.push('\n');
            if body.len() >= upstream::MAX_ERROR {
                let mut end = upstream::MAX_ERROR;
                while !body.is_char_boundary(end) {
                    end -= 1;
                }
                body.truncate(end);
                break;
            }
        }
    }
    body
}

/// An upstream's non-2xx answer, passed back with its status and (at most 64 KiB of) its body.
async fn passed(status: u16, content_type: &str, rx: &mut mpsc::Receiver<Said>) -> Response {
    let body = error_text(rx).await;
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    if let Ok(v) = HeaderValue::from_str(content_type) {
        resp.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    resp
}

/// A whole reply: the upstream's stream folded into one completion (or its whole answer, if
/// it sent one anyway), the turn logged, then the answer.
async fn whole(
    s: &Arc<Shared>,
    p: &Prepared,
    (_call, mut rx): (InFlight, mpsc::Receiver<Said>),
) -> Response {
    let (status, content_type) = match rx.recv().await {
        Some(Said::Head {
            status,
            content_type,
        }) => (status, content_type),
        Some(Said::Failed(e)) => {
            tracing::warn!("chat upstream: {e}");
            return unreachable(&e);
        }
        _ => return unreachable("no answer"),
    };
    if !(200..300).contains(&status) {
        return passed(status, &content_type, &mut rx).await;
    }
    let streamed = content_type.starts_with("text/event-stream");
    let mut acc = Accumulator::default();
    let mut raw = String::new();
    let mut done = !streamed;
    let mut lines = false;
    loop {
        let limit = patience(lines);
        let said = match tokio::time::timeout(limit, rx.recv()).await {
            Ok(Some(said)) => said,
            Ok(None) => break,
            Err(_) => {
                tracing::warn!("chat upstream: {}", silent(limit));
                return error(StatusCode::BAD_GATEWAY, "upstream_failed", silent(limit));
            }
        };
        lines = true;
        match said {
            Said::Line(l) if streamed => {
                if upstream::is_done(&l) {
                    done = true;
                } else if let Some(chunk) = upstream::data(&l) {
                    if chunk.get("error").is_some() {
                        return error(
                            StatusCode::BAD_GATEWAY,
                            "upstream_failed",
                            chunk["error"].to_string(),
                        );
                    }
                    acc.add(&chunk);
                }
            }
            Said::Line(l) => {
                raw.push_str(&l);
                raw.push('\n');
            }
            Said::Failed(e) => {
                tracing::warn!("chat upstream: {e}");
                return error(StatusCode::BAD_GATEWAY, "upstream_failed", e);
            }
            Said::Head { .. } => {}
        }
    }
    if !done {
        return error(
            StatusCode::BAD_GATEWAY,
            "upstream_failed",
            "the chat upstream's reply ended before [DONE]",
        );
    }
    let answer = if streamed {
        acc.finish()
    } else {
        match serde_json::from_str::<Value>(&raw) {
            Ok(v) => v,
            Err(e) => {
                return error(
                    StatusCode::BAD_GATEWAY,
                    "upstream_failed",
                    format!("the chat upstream's answer is not JSON: {e}"),
                );
            }
        }
    };
    let text = upstream::content(&answer).unwrap_or_default().to_string();
    turn_log::log_turn(s, p, &text).await;
    Json(answer).into_response()
}

/// An upstream's whole (non-SSE) answer to a streamed request: read to its end (waiting no
/// longer than `upstream::IDLE` for a line), then sent as one `chat.completion.chunk` and
/// `[DONE]`, the turn logged; anything but a JSON object is the client's error event.
async fn whole_as_stream(
    s: &Arc<Shared>,
    p: &Prepared,
    rx: &mut mpsc::Receiver<Said>,
    out: &mpsc::Sender<Bytes>,
) {
    let mut raw = String::new();
    let mut broke = None;
    loop {
        match tokio::time::timeout(upstream::IDLE, rx.recv()).await {
            Ok(Some(Said::Line(l))) => {
                raw.push_str(&l);
                raw.push('\n');
            }
            Ok(Some(Said::Head { .. })) => {}
            Ok(Some(Said::Failed(e))) => {
                broke = Some(e);
                break;
            }
            Ok(None) => break,
            Err(_) => {
                broke = Some(silent(upstream::IDLE));
                break;
            }
        }
    }
    let chunk = match (broke, serde_json::from_str::<Value>(&raw)) {
        (None, Ok(whole)) if whole.is_object() => as_chunk(whole),
        (Some(e), _) => return fail_stream(out, &e).await,
        _ => {
            let e = "the chat upstream answered a streamed request with neither a stream nor a JSON completion";
            return fail_stream(out, e).await;
        }
    };
    let text = chunk["choices"][0]["delta"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    if out.send(sse(&chunk).into()).await.is_err() {
        return;
    }
    turn_log::log_turn(s, p, &text).await;
    let _ = out.send(Bytes::from_static(DONE)).await;
}

async fn fail_stream(out: &mpsc::Sender<Bytes>, e: &str) {
    tracing::warn!("chat upstream: {e}");
    let _ = out
        .send(sse(&error_body(true, "upstream_failed", e)).into())
        .await;
}

/// A whole `chat.completion` as the one chunk of a stream: each choice's `message` is its
/// `delta` (tool calls numbered by `index`).
fn as_chunk(mut whole: Value) -> Value {
    whole["object"] = "chat.completion.chunk".into();
    if let Some(choices) = whole.get_mut("choices").and_then(Value::as_array_mut) {
        for choice in choices.iter_mut().filter_map(Value::as_object_mut) {
            let mut delta = choice
                .remove("message")
                .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
            if let Some(calls) = delta.get_mut("tool_calls").and_then(Value::as_array_mut) {
                for (i, call) in calls.iter_mut().enumerate() {
                    if let Some(call) = call.as_object_mut() {
                        call.insert("index".into(), i.into());
                    }
                }
            }
            choice.insert("delta".into(), delta);
        }
    }
    whole
}

/// The SSE pump: the upstream's lines as they come, `: keep-alive` while it is silent, the turn
/// logged once its `[DONE]` arrived, then `[DONE]` (so a client that saw the end finds it).
async fn pump(
    s: Arc<Shared>,
    p: Prepared,
    mut first: Option<Said>,
    (_call, mut rx): (InFlight, mpsc::Receiver<Said>),
    out: mpsc::Sender<Bytes>,
) {
    let every = s.chat_env.keepalive;
    // When the upstream last said something, and whether it has sent a line yet.
    let (mut heard, mut lines) = (Instant::now(), false);
    let mut text = String::new();
    // Whether the client's stream is between events (a comment there needs its own blank line).
    let mut between = true;
    // Whether a chunk carried a finish_reason (the reply is whole even if `[DONE]` never comes).
    let mut finished = false;
    loop {
        let said = match first.take() {
            Some(s) => Some(s),
            None => match tokio::time::timeout(every, rx.recv()).await {
                Ok(s) => s,
                Err(_) if heard.elapsed() >= patience(lines) => {
                    let e = silent(patience(lines));
                    tracing::warn!("chat upstream: {e}");
                    let _ = out
                        .send(sse(&error_body(true, "upstream_failed", &e)).into())
                        .await;
                    return;
                }
                Err(_) => {
                    let comment: &'static [u8] = if between {
                        b": keep-alive\n\n"
                    } else {
                        b": keep-alive\n"
                    };
                    if out.send(Bytes::from_static(comment)).await.is_err() {
                        return;
                    }
                    continue;
                }
            },
        };
        let line = match said {
            None if finished => {
                // Closed after a finish_reason but without `[DONE]`: a whole reply all the same.
                turn_log::log_turn(&s, &p, &text).await;
                let _ = out.send(Bytes::from_static(DONE)).await;
                return;
            }
            None => {
                // Closed mid-reply: incomplete, not logged, and the client is told.
                let e = "the chat upstream broke off the reply (no finish_reason, no [DONE]); see its log";
                tracing::warn!("chat upstream: {e}");
                let _ = out
                    .send(sse(&error_body(true, "upstream_failed", e)).into())
                    .await;
                return;
            }
            Some(Said::Head {
                status,
                content_type,
            }) if (200..300).contains(&status) => {
                if content_type.starts_with("text/event-stream") {
                    continue;
                }
                // A whole answer to a streamed request: passed on as one chunk, not verbatim.
                whole_as_stream(&s, &p, &mut rx, &out).await;
                return;
            }
            Some(Said::Head { status, .. }) => {
                let why = error_text(&mut rx).await.replace('\n', "");
                let message = format!("the chat upstream answered {status}: {why}");
                let _ = out
                    .send(sse(&error_body(true, "upstream_failed", &message)).into())
                    .await;
                return;
            }
            Some(Said::Failed(e)) => {
                tracing::warn!("chat upstream: {e}");
                let _ = out
                    .send(sse(&error_body(true, "upstream_failed", &e)).into())
                    .await;
                return;
            }
            Some(Said::Line(l)) => l,
        };
        (heard, lines) = (Instant::now(), true);
        if upstream::is_done(&line) {
            turn_log::log_turn(&s, &p, &text).await;
            let _ = out.send(Bytes::from_static(DONE)).await;
            return;
        }
        if let Some(chunk) = upstream::data(&line) {
            if let Some(t) = upstream::delta(&chunk) {
                text.push_str(t);
            }
            finished |= chunk["choices"]
                .as_array()
                .is_some_and(|cs| cs.iter().any(|c| !c["finish_reason"].is_null()));
        }
        between = line.is_empty();
        // A client that left closes the body: the reader stops at its next line.
        if out.send(Bytes::from(format!("{line}\n"))).await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn a_whole_answer_becomes_one_chunk() {
        let whole = json!({"id": "c1", "object": "chat.completion", "choices": [{"index": 0,
            "message": {"role": "assistant", "content": "hi", "tool_calls": [{"id": "t"}]},
            "finish_reason": "stop"}]});
        let c = as_chunk(whole);
        assert_eq!(c["object"], "chat.completion.chunk");
        assert_eq!(c["choices"][0]["delta"]["content"], "hi");
        assert_eq!(c["choices"][0]["delta"]["tool_calls"][0]["index"], 0);
        assert_eq!(c["choices"][0]["finish_reason"], "stop");
        assert!(c["choices"][0].get("message").is_none());
    }
}
