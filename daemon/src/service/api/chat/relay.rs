//! The turn through `chat_upstream`: the client's request goes upstream losslessly (recall's
//! block in its system message, `chat::forwarded`), always streamed. A streamed reply is passed
//! back line by line by a pump task the chat path owns, with `: keep-alive` comments while the
//! upstream is silent; a whole one is folded from the stream (`chat::accumulate`). The turn is
//! logged once a reply arrived whole; an upstream that is down is a clear 502.

use std::sync::Arc;

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
use crate::chat::upstream::{self, Said, Upstream};
use crate::service::state::Shared;

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
    let reader = tokio::task::spawn_blocking(move || upstream::forward(&up, &sent, &tx));
    drop(reader);
    let header = p.header.clone();
    if !p.req.stream {
        return with_header(whole(&s, &p, rx).await, &header);
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
    s.chat.tasks.spawn(pump(shared, p, first, rx, out));
    with_header(sse_response(channel_body(body_rx)), &header)
}

/// An upstream's non-2xx answer, passed back with its status and body.
async fn passed(status: u16, content_type: &str, rx: &mut mpsc::Receiver<Said>) -> Response {
    let mut body = String::new();
    while let Some(said) = rx.recv().await {
        if let Said::Line(l) = said {
            body.push_str(&l);
            body.push('\n');
        }
    }
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    if let Ok(v) = HeaderValue::from_str(content_type) {
        resp.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    resp
}

/// A whole reply: the upstream's stream folded into one completion (or its whole answer, if
/// it sent one anyway), the turn logged, then the answer.
async fn whole(s: &Arc<Shared>, p: &Prepared, mut rx: mpsc::Receiver<Said>) -> Response {
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
    while let Some(said) = rx.recv().await {
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

/// The SSE pump: the upstream's lines as they come, `: keep-alive` while it is silent, the turn
/// logged once its `[DONE]` arrived, then `[DONE]` (so a client that saw the end finds it).
async fn pump(
    s: Arc<Shared>,
    p: Prepared,
    mut first: Option<Said>,
    mut rx: mpsc::Receiver<Said>,
    out: mpsc::Sender<Bytes>,
) {
    let every = s.chat_env.keepalive;
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
            Some(Said::Head { status, .. }) if (200..300).contains(&status) => continue,
            Some(Said::Head { status, .. }) => {
                let mut why = String::new();
                while let Some(Said::Line(l)) = rx.recv().await {
                    why.push_str(&l);
                }
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
