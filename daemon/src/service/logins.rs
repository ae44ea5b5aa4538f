//! The browser's logins on the loopback listener, kept in memory (a restart logs out): one-time
//! login codes (minted over the owner-only socket for `localm open`, single use, 60 s) and the
//! sessions they turn into: the `localm_session` cookie, and the page key that only the page's
//! own origin holds (a URL fragment, then `sessionStorage`), since browsers send the cookie to
//! every port on 127.0.0.1.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use super::socket::random_hex;

/// How long a login code stays valid.
pub const CODE_TTL: Duration = Duration::from_secs(60);
/// Codes waiting to be used at once; minting past it drops the one closest to expiry.
const MAX_CODES: usize = 16;
/// Sessions kept at once; a new one past it logs the oldest out.
const MAX_SESSIONS: usize = 32;

/// The codes and sessions, and the loopback address the login URL names.
#[derive(Debug, Default)]
pub struct Logins {
    listen: OnceLock<SocketAddr>,
    /// Code → when it expires.
    codes: Mutex<HashMap<String, Instant>>,
    sessions: Mutex<VecDeque<BrowserSession>>,
}

/// A logged-in browser: the cookie's value and the page key that must come with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserSession {
    pub cookie: String,
    pub key: String,
}

impl Logins {
    /// Record the loopback listener's address (once, when it is bound).
    pub fn set_listen(&self, addr: SocketAddr) {
        let _ = self.listen.set(addr);
    }

    /// The loopback listener's address, if there is one.
    pub fn listen(&self) -> Option<SocketAddr> {
        self.listen.get().copied()
    }

    /// A fresh random code, valid once until `now + CODE_TTL`.
    pub fn mint(&self, now: Instant) -> std::io::Result<String> {
        let code = random_hex()?;
        let mut codes = lock(&self.codes);
        codes.retain(|_, expires| *expires > now);
        if codes.len() >= MAX_CODES
            && let Some(soonest) = codes
                .iter()
                .min_by_key(|(_, e)| **e)
                .map(|(k, _)| k.clone())
        {
            codes.remove(&soonest);
        }
        codes.insert(code.clone(), now + CODE_TTL);
        Ok(code)
    }

    /// Use `code` up. A new session (cookie and page key) when it was valid; `None` when it was
    /// wrong, used or expired.
    pub fn redeem(&self, code: &str, now: Instant) -> std::io::Result<Option<BrowserSession>> {
        let valid = matches!(lock(&self.codes).remove(code), Some(expires) if expires > now);
        if !valid {
            return Ok(None);
        }
        let session = BrowserSession {
            cookie: random_hex()?,
            key: random_hex()?,
        };
        let mut sessions = lock(&self.sessions);
        if sessions.len() >= MAX_SESSIONS {
            sessions.pop_front();
        }
        sessions.push_back(session.clone());
        Ok(Some(session))
    }

    /// Whether `cookie` is a live session.
    pub fn is_session(&self, cookie: &str) -> bool {
        self.find(cookie).is_some()
    }

    /// Whether `cookie` is a live session and `key` is its page key.
    pub fn key_matches(&self, cookie: &str, key: &str) -> bool {
        self.find(cookie)
            .is_some_and(|s| constant_time_eq(s.key.as_bytes(), key.as_bytes()))
    }

    fn find(&self, cookie: &str) -> Option<BrowserSession> {
        lock(&self.sessions)
            .iter()
            .find(|s| constant_time_eq(s.cookie.as_bytes(), cookie.as_bytes()))
            .cloned()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Compare secrets without stopping at the first differing byte.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_code_works_once_and_only_before_it_expires() {
        let logins = Logins::default();
        let t0 = Instant::now();
        let code = logins.mint(t0).unwrap();
        assert_eq!(code.len(), 64);
        let session = logins.redeem(&code, t0).unwrap().unwrap();
        assert!(logins.is_session(&session.cookie));
        assert_eq!(session.key.len(), 64);
        assert_ne!(session.key, session.cookie);
        assert!(logins.key_matches(&session.cookie, &session.key));
        assert!(!logins.key_matches(&session.cookie, "wrong"));
        assert!(!logins.key_matches(&session.cookie, ""));
        assert!(
            !logins.key_matches(&session.key, &session.key),
            "the key is no cookie"
        );
        assert_eq!(logins.redeem(&code, t0).unwrap(), None, "used twice");

        let late = logins.mint(t0).unwrap();
        assert_eq!(
            logins.redeem(&late, t0 + CODE_TTL).unwrap(),
            None,
            "expired"
        );
        assert_eq!(logins.redeem("wrong", t0).unwrap(), None);
        assert!(!logins.is_session("wrong"));
        assert!(!logins.is_session(""));
    }

    #[test]
    fn codes_and_sessions_are_bounded() {
        let logins = Logins::default();
        let t0 = Instant::now();
        let first = logins.mint(t0).unwrap();
        for _ in 0..MAX_CODES {
            logins.mint(t0 + Duration::from_secs(1)).unwrap();
        }
        assert_eq!(lock(&logins.codes).len(), MAX_CODES);
        assert_eq!(
            logins.redeem(&first, t0).unwrap(),
            None,
            "the oldest was dropped"
        );

        let sessions: Vec<String> = (0..=MAX_SESSIONS)
            .map(|_| {
                let c = logins.mint(t0).unwrap();
                logins.redeem(&c, t0).unwrap().unwrap().cookie
            })
            .collect();
        assert!(
            !logins.is_session(&sessions[0]),
            "the oldest was logged out"
        );
        assert!(logins.is_session(&sessions[MAX_SESSIONS]));
    }
}
