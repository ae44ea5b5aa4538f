//! The turn through `chat_upstream`: the augmented request is forwarded, the answer is passed
//! back as it comes (streamed or whole, with its status), and the turn is logged once a reply
//! arrived whole, by a logger task the chat path owns.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use localm_core::chat;
use serde_json::Value;

use super::openai::{DONE, error};
use super::{Prepared, channel_body, turn_log, with_header};
use crate::chat::upstream;
use crate::service::state::Shared;

/// Forward the turn to `base` and answer with what it says.
pub(super) async fn forward(
    s: Arc<Shared>,
    p: Prepared,
    base: String,
    original: &Value,
) -> Response {
    let sent = upstream::body(original, &chat::prompt(&p.req.plain_messages(), &p.block));
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
    let (logged_tx, logged_rx) = tokio::sync::oneshot::channel::<()>();
    s.chat.tasks.spawn(async move {
        if let Ok(Some(text)) = reading.await {
            turn_log::log_turn(&shared, &p, &text).await;
            if let Some(tx) = done_tx {
                let _ = tx.send(Bytes::from_static(DONE)).await;
            }
        }
        let _ = logged_tx.send(());
    });
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    let mut resp = if stream {
        Response::new(channel_body(rx))
    } else {
        let mut whole = Vec::new();
        while let Some(b) = rx.recv().await {
            whole.extend_from_slice(&b);
        }
        let _ = logged_rx.await;
        Response::new(Body::from(whole))
    };
    *resp.status_mut() = status;
    if let Ok(v) = HeaderValue::from_str(&content_type) {
        resp.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    with_header(resp, &header)
}
