//! `localm chat-worker`: the child process that holds the chat model. It loads the GGUF once,
//! then serves one request at a time from stdin, streaming events to stdout, until stdin
//! closes. A llama.cpp abort ends this process only; the daemon fails that request and starts a
//! new worker for the next one. Each prompt is fitted to the context first (`core::chat::fit`:
//! oldest turns dropped, the reply capped), counted with the model's own tokenizer.

use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use anyhow::Context as _;
use localm_core::chat::cut_at_stop;
use localm_core::chat::fit::{FitError, fit};

use super::protocol::{CANCEL, DEFAULT_CONTEXT_CAP, Event, Finish, Request};
use crate::models::llama::{Llama, Sampling, StopReason};

/// The smallest context a worker runs with.
const MIN_CONTEXT: u32 = 256;

/// The context of a reply: the request's (`chat_context`), else the model's own at most
/// [`DEFAULT_CONTEXT_CAP`].
fn context_of(llama: &Llama, request: &Request) -> u32 {
    request
        .context
        .unwrap_or_else(|| llama.n_ctx_train().min(DEFAULT_CONTEXT_CAP))
        .max(MIN_CONTEXT)
}

/// Serve requests from stdin until it closes.
pub fn main(model: &Path, threads: Option<usize>) -> anyhow::Result<()> {
    let llama = Llama::load(model, threads).map_err(|e| anyhow::anyhow!(e.0))?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    send(
        &mut out,
        &Event::Ready {
            model: llama.name().to_string(),
        },
    )?;
    // A reader thread, so that `cancel` arrives while a reply is being generated.
    let cancel = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<Request>();
    let flag = Arc::clone(&cancel);
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if line.trim() == CANCEL {
                flag.store(true, Ordering::SeqCst);
                continue;
            }
            match serde_json::from_str::<Request>(&line) {
                Ok(r) => {
                    if tx.send(r).is_err() {
                        break;
                    }
                }
                Err(e) => tracing::warn!("chat worker: unreadable request: {e}"),
            }
        }
    });
    for request in rx {
        cancel.store(false, Ordering::SeqCst);
        let event = reply(&llama, &request, &cancel, &mut out)?;
        send(&mut out, &event)?;
    }
    Ok(())
}

/// Generate one reply, streaming its text; returns the closing event.
fn reply(
    llama: &Llama,
    request: &Request,
    cancel: &AtomicBool,
    out: &mut impl Write,
) -> anyhow::Result<Event> {
    // The worker fits the prompt, not the daemon: it has the model's tokenizer and chat
    // template, so the count is exact and costs no round trip.
    let n_ctx = context_of(llama, request);
    let fitted = match fit(&request.messages, n_ctx, request.max_tokens, |m| {
        llama.prompt_tokens(m)
    }) {
        Ok(f) => f,
        Err(e @ FitError::TooLong { .. }) => return Ok(Event::TooLong(e.to_string())),
        Err(e) => return Ok(Event::Error(e.to_string())),
    };
    if fitted.dropped_turns > 0 {
        tracing::debug!(
            dropped = fitted.dropped_turns,
            prompt = fitted.prompt_tokens,
            context = n_ctx,
            "chat worker: oldest turns dropped to fit the context"
        );
    }
    let sampling = Sampling {
        temperature: request.temperature,
        top_p: request.top_p,
        seed: request.seed,
        grammar: request.grammar.as_deref(),
    };
    // Text is held back while it could still be the start of a stop string.
    let hold = request.stop.iter().map(|s| s.len()).max().unwrap_or(1) - 1;
    let mut text = String::new();
    let mut sent = 0usize;
    let mut stopped_at_stop = false;
    let mut write_err: Option<std::io::Error> = None;
    let result = llama.chat(
        &fitted.messages,
        &sampling,
        fitted.max_tokens as usize,
        n_ctx,
        cancel,
        &mut |piece| {
            text.push_str(piece);
            let (upto, done) = match cut_at_stop(&text[sent..], &request.stop) {
                Some(at) => (sent + at, true),
                None => (floor_char(&text, text.len().saturating_sub(hold)), false),
            };
            if upto > sent {
                if let Err(e) = send(out, &Event::Text(text[sent..upto].to_string())) {
                    write_err = Some(e);
                    return false;
                }
                sent = upto;
            }
            if done {
                stopped_at_stop = true;
                text.truncate(upto);
            }
            !done && !cancel.load(Ordering::SeqCst)
        },
    );
    if let Some(e) = write_err {
        return Err(e).context("writing to the daemon");
    }
    match result {
        Ok((g, why)) => {
            if sent < text.len() {
                send(out, &Event::Text(text[sent..].to_string()))?;
            }
            let finish = match why {
                StopReason::MaxTokens if !stopped_at_stop => Finish::Length,
                _ => Finish::Stop,
            };
            Ok(Event::Done {
                finish,
                prompt_tokens: g.prompt_tokens,
                completion_tokens: g.gen_tokens,
            })
        }
        Err(e) => Ok(Event::Error(e.to_string())),
    }
}

/// The largest char boundary of `s` at or below `i`.
fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn send(out: &mut impl Write, event: &Event) -> std::io::Result<()> {
    let mut line = serde_json::to_string(event).map_err(std::io::Error::other)?;
    line.push('\n');
    out.write_all(line.as_bytes())?;
    out.flush()
}
