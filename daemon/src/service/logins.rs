//! The browser's logins on the loopback listener, kept in memory (a restart logs out): one-time
//! login codes (minted over the owner-only socket for `localm open`, single use, 60 s) and the
//! sessions they turn into (the `localm_session` cookie).

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
    sessions: Mutex<VecDeque<String>>,
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

    /// Use `code` up. A new session when it was valid; `None` when it was wrong, used or expired.
    pub fn redeem(&self, code: &str, now: Instant) -> std::io::Result<Option<String>> {
        let valid = matches!(lock(&self.codes).remove(code), Some(expires) if expires > now);
        if !valid {
            return Ok(None);
        }
        let session = random_hex()?;
        let mut sessions = lock(&self.sessions);
        if sessions.len() >= MAX_SESSIONS {
            sessions.pop_front();
        }
        sessions.push_back(session.clone());
        Ok(Some(session))
    }

    /// Whether `value` is a live session.
    pub fn is_session(&self, value: &str) -> bool {
        lock(&self.sessions)
            .iter()
            .any(|s| constant_time_eq(s.as_bytes(), value.as_bytes()))
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
        assert!(logins.is_session(&session));
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
                logins.redeem(&c, t0).unwrap().unwrap()
            })
            .collect();
        assert!(
            !logins.is_session(&sessions[0]),
            "the oldest was logged out"
        );
        assert!(logins.is_session(&sessions[MAX_SESSIONS]));
    }
}
