//! Bounding how long a client may take to send a request, and knowing which connections are
//! still sending one. A request body must arrive in full within the body deadline of its head
//! ([`DeadlineBody`]); the response body is wrapped only to learn when an answer ends
//! ([`AnsweringBody`]). Between those points a connection is "answering" and runs no deadline: an SSE
//! stream or a pass of minutes is never cut. A [`Registry`] of the connections still reading
//! lets the control socket close the one that has been reading longest when it needs the slot.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use tokio::sync::Notify;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The error a request body yields once its deadline has passed; the JSON extractor answers it
/// with a 408.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive within {} s of its head", .0.as_secs())]
pub struct BodyTimedOut(pub Duration);

impl BodyTimedOut {
    /// The body deadline's error, wherever it sits in `err`'s chain of sources.
    pub fn in_chain<'a>(err: &'a (dyn std::error::Error + 'static)) -> Option<&'a BodyTimedOut> {
        let mut cur = Some(err);
        while let Some(e) = cur {
            if let Some(t) = e.downcast_ref::<BodyTimedOut>() {
                return Some(t);
            }
            cur = e.source();
        }
        None
    }
}

/// One connection's reading state, shared by its task and its request and response bodies.
#[derive(Debug)]
pub struct Slot {
    /// `Some(t)`: reading a request (its head, its body, or waiting for the next one) since `t`.
    /// `None`: a request is being answered.
    reading_since: Mutex<Option<Instant>>,
    /// Told once when the listener takes this connection's place for a new one.
    pub evict: Notify,
    evicted: Mutex<bool>,
}

impl Slot {
    fn reading(&self) -> MutexGuard<'_, Option<Instant>> {
        self.reading_since
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the connection is reading a request (not answering one).
    pub fn is_reading(&self) -> bool {
        self.reading().is_some()
    }

    /// Told to close but answering by then: it may be chosen again later.
    pub fn spared(&self) {
        *self.evicted.lock().unwrap_or_else(PoisonError::into_inner) = false;
    }

    /// The request is read (or dropped unread): it is being answered.
    fn answering(&self) {
        *self.reading() = None;
    }

    /// The answer is over: the connection waits for its next request from now.
    fn reading_again(&self) {
        *self.reading() = Some(Instant::now());
    }
}

/// The open connections of one listener.
#[derive(Debug, Default)]
pub struct Registry {
    next: AtomicU64,
    slots: Mutex<HashMap<u64, Arc<Slot>>>,
}

/// A connection's place in its registry; leaves it on drop.
pub struct Entry {
    registry: Arc<Registry>,
    id: u64,
    pub slot: Arc<Slot>,
}

impl Drop for Entry {
    fn drop(&mut self) {
        self.registry.slots().remove(&self.id);
    }
}

impl Registry {
    fn slots(&self) -> MutexGuard<'_, HashMap<u64, Arc<Slot>>> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Register a connection just accepted: it is reading its first request.
    pub fn enter(self: &Arc<Registry>) -> Entry {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let slot = Arc::new(Slot {
            reading_since: Mutex::new(Some(Instant::now())),
            evict: Notify::new(),
            evicted: Mutex::new(false),
        });
        self.slots().insert(id, Arc::clone(&slot));
        Entry {
            registry: Arc::clone(self),
            id,
            slot,
        }
    }

    /// Tell the connection that has been reading a request the longest to close; false when
    /// every connection is answering one (those are never closed).
    pub fn evict_longest_reading(&self) -> bool {
        let slots = self.slots();
        let oldest = slots
            .values()
            .filter(|s| !*s.evicted.lock().unwrap_or_else(PoisonError::into_inner))
            .filter_map(|s| s.reading().map(|t| (t, s)))
            .min_by_key(|(t, _)| *t);
        match oldest {
            Some((_, s)) => {
                *s.evicted.lock().unwrap_or_else(PoisonError::into_inner) = true;
                s.evict.notify_one();
                true
            }
            None => false,
        }
    }
}

/// A request body that must end within its deadline, counted from the request head. It marks
/// its connection as answering once it ends or is dropped.
pub struct DeadlineBody<B> {
    inner: B,
    limit: Duration,
    deadline: Pin<Box<tokio::time::Sleep>>,
    slot: Arc<Slot>,
    ended: bool,
}

impl<B> DeadlineBody<B> {
    pub fn new(inner: B, limit: Duration, slot: Arc<Slot>) -> DeadlineBody<B> {
        DeadlineBody {
            inner,
            limit,
            deadline: Box::pin(tokio::time::sleep(limit)),
            slot,
            ended: false,
        }
    }

    fn end(&mut self) {
        if !self.ended {
            self.ended = true;
            self.slot.answering();
        }
    }
}

impl<B> Drop for DeadlineBody<B> {
    fn drop(&mut self) {
        self.end();
    }
}

impl<B> Body for DeadlineBody<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<BoxError>,
{
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = &mut *self;
        if this.ended {
            return Poll::Ready(None);
        }
        // Checked before every read, so a client trickling bytes is cut at the deadline too.
        if this.deadline.as_mut().poll(cx).is_ready() {
            this.end();
            return Poll::Ready(Some(Err(Box::new(BodyTimedOut(this.limit)))));
        }
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if this.inner.is_end_stream() {
                    this.end();
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => {
                this.end();
                Poll::Ready(Some(Err(e.into())))
            }
            Poll::Ready(None) => {
                this.end();
                Poll::Ready(None)
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.ended || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A response body that, when dropped (sent in full, or its client gone), marks its connection
/// as reading its next request.
pub struct AnsweringBody<B> {
    inner: B,
    slot: Arc<Slot>,
}

impl<B> AnsweringBody<B> {
    pub fn new(inner: B, slot: Arc<Slot>) -> AnsweringBody<B> {
        AnsweringBody { inner, slot }
    }
}

impl<B> Drop for AnsweringBody<B> {
    fn drop(&mut self) {
        self.slot.reading_again();
    }
}

impl<B> Body for AnsweringBody<B>
where
    B: Body<Data = Bytes> + Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_reading_connection_is_evicted_and_an_answering_one_never() {
        let r = Arc::new(Registry::default());
        let first = r.enter();
        std::thread::sleep(Duration::from_millis(2));
        let second = r.enter();
        first.slot.answering();
        assert!(r.evict_longest_reading());
        assert!(*second.slot.evicted.lock().unwrap());
        assert!(!*first.slot.evicted.lock().unwrap());
        // The only other connection is answering: nothing left to evict.
        assert!(!r.evict_longest_reading());
        first.slot.reading_again();
        assert!(r.evict_longest_reading());
        drop((first, second));
        assert!(r.slots().is_empty());
    }
}
