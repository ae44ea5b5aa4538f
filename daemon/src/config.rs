//! localm's configuration, resolved in one place: every `LOCALM_*` variable read once into a
//! typed [`Env`] (bad values are one-line [`ConfigError`]s at start), and the flags and
//! settings.json layered over it by [`Config::load`] — flag > environment > file, for every
//! setting that has more than one source. Only the entry point (`cli::run`) calls
//! [`Env::read`]; everything below it is handed the typed values (core/tests/tidy.rs fails when
//! another file reads a `LOCALM_*` variable or calls `Env::read`).
//!
//! Each setting and its sources, the first one set winning:
//!
//! | setting | flag | environment | settings.json | default |
//! |---|---|---|---|---|
//! | data dir | `--data-dir` | `LOCALM_DATA_DIR` (both read by clap) | — | the platform's (`paths`) |
//! | mode | `--mode` | `LOCALM_MODE` | `mode` | privacy |
//! | chat upstream | `--chat-upstream` | — | `chat_upstream` | none: the local worker |
//! | TCP listener | `--listen` | — | `listen` | off |
//! | automatic pass interval | — | `LOCALM_MEMORY_AUTO_INTERVAL` | — | 900 s |
//! | embedding sweep interval | — | `LOCALM_MEMORY_BACKFILL_INTERVAL` | — | 3600 s |
//! | header-read timeout | — | `LOCALM_HEADER_READ_TIMEOUT` (tests) | — | 10 s |
//! | body deadline | — | `LOCALM_BODY_READ_TIMEOUT` (tests) | — | 10 s |
//! | chat worker idle | — | `LOCALM_CHAT_IDLE` | — | 300 s |
//! | relay keep-alive | — | `LOCALM_CHAT_KEEPALIVE` | — | 15 s |
//! | upstream bearer token | — | `LOCALM_CHAT_UPSTREAM_KEY` | — | none |
//! | llama.cpp's own log | — | `LOCALM_LLAMA_LOG` (`1`) | — | off |
//! | candidate finding of a pass | — | `LOCALM_EXTRACTION` (hidden: `rewrite`, `rule`, `free`) | — | rewrite |
//!
//! Durations are whole seconds, at least 1. The rest of settings.json has one source, the file.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use localm_core::settings::{Mode, Settings, resolve_mode};

/// The mode over settings.json (and under `--mode`).
pub const MODE: &str = "LOCALM_MODE";
/// Seconds between automatic passes (at most one per interval).
pub const AUTO_INTERVAL: &str = "LOCALM_MEMORY_AUTO_INTERVAL";
/// Seconds between embedding sweeps.
pub const BACKFILL_INTERVAL: &str = "LOCALM_MEMORY_BACKFILL_INTERVAL";
/// The header-read timeout in seconds (for tests; not advertised).
pub const HEADER_READ: &str = "LOCALM_HEADER_READ_TIMEOUT";
/// The body deadline in seconds (for tests; not advertised).
pub const BODY_READ: &str = "LOCALM_BODY_READ_TIMEOUT";
/// Seconds an MCP-over-HTTP session may go without a request before it is closed and freed.
pub const MCP_SESSION_IDLE: &str = "LOCALM_MCP_SESSION_IDLE";
/// Seconds a chat worker stays loaded with no turn.
pub const CHAT_IDLE: &str = "LOCALM_CHAT_IDLE";
/// Seconds of upstream silence before a keep-alive comment on a relayed stream.
pub const CHAT_KEEPALIVE: &str = "LOCALM_CHAT_KEEPALIVE";
/// The bearer token sent to `--chat-upstream`.
pub const CHAT_UPSTREAM_KEY: &str = "LOCALM_CHAT_UPSTREAM_KEY";
/// Forward llama.cpp's own log to `tracing` (`1`).
pub const LLAMA_LOG: &str = "LOCALM_LLAMA_LOG";

/// A setting that cannot be used. Messages are one line and name the variable or the setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{name}={value:?} is not a whole number of seconds (at least 1)")]
    NotSeconds { name: &'static str, value: String },
    #[error("the listen setting {text:?} is not an address host:port: {why}")]
    Listen { text: String, why: String },
}

/// The timed work's intervals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Intervals {
    /// [`AUTO_INTERVAL`]: at most one automatic pass per this (15 minutes).
    pub auto: Duration,
    /// [`BACKFILL_INTERVAL`]: at most one embedding sweep per this (1 hour).
    pub backfill: Duration,
}

impl Default for Intervals {
    fn default() -> Intervals {
        Intervals {
            auto: Duration::from_secs(15 * 60),
            backfill: Duration::from_secs(60 * 60),
        }
    }
}

/// How long a listener waits for a request to arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadlines {
    /// [`HEADER_READ`]: how long a client has to send a complete request head, from accept or
    /// from the end of the previous response (so also how long a keep-alive connection may sit
    /// idle). Local clients send a head in microseconds; ten seconds forgives a stalled machine,
    /// and a closed keep-alive connection costs a local client one reconnect.
    pub header_read: Duration,
    /// [`BODY_READ`]: how long a request body may take to arrive in full, from the end of its
    /// head. The largest body (1 MiB) takes milliseconds on a local connection; ten seconds
    /// forgives a stalled machine.
    pub body_read: Duration,
    /// [`MCP_SESSION_IDLE`]: how long a `localm mcp --http` session may go without a request
    /// before it is closed and its memory freed (five minutes, rmcp's own default; a client that
    /// comes back later starts a new session).
    pub mcp_session_idle: Duration,
}

impl Default for Deadlines {
    fn default() -> Deadlines {
        Deadlines {
            header_read: Duration::from_secs(10),
            body_read: Duration::from_secs(10),
            mcp_session_idle: Duration::from_secs(300),
        }
    }
}

/// What the environment says of the chat path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatEnv {
    /// [`CHAT_IDLE`]: a worker idle this long is stopped, and its model's memory freed.
    pub idle: Duration,
    /// [`CHAT_KEEPALIVE`]: silence on a relayed stream longer than this gets a keep-alive
    /// comment.
    pub keepalive: Duration,
    /// [`CHAT_UPSTREAM_KEY`], trimmed: the bearer token sent upstream (none when unset or blank).
    pub upstream_key: Option<String>,
}

impl Default for ChatEnv {
    fn default() -> ChatEnv {
        ChatEnv {
            idle: Duration::from_secs(300),
            keepalive: Duration::from_secs(15),
            upstream_key: None,
        }
    }
}

/// Every `LOCALM_*` setting, typed. [`Env::default`] is what an empty environment gives.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Env {
    /// [`MODE`] as set: resolved against `--mode` and settings.json by [`Config::load`].
    pub mode: Option<String>,
    pub intervals: Intervals,
    pub deadlines: Deadlines,
    pub chat: ChatEnv,
    /// [`LLAMA_LOG`] set, not empty, not `0`.
    pub llama_log: bool,
}

impl Env {
    /// Read the process environment, once, at the entry point.
    pub fn read() -> Result<Env, ConfigError> {
        let vars: std::collections::HashMap<String, String> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .filter(|(k, _)| k.starts_with("LOCALM_"))
            .collect();
        Env::from_vars(|name| vars.get(name).cloned())
    }

    /// The settings from `get` (a variable's value, `None` when unset); the first bad value is
    /// the error.
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Result<Env, ConfigError> {
        let set = |name: &str| get(name).filter(|v| !v.trim().is_empty());
        let seconds = |name: &'static str, default: Duration| match set(name) {
            None => Ok(default),
            Some(v) => match v.trim().parse::<u64>() {
                Ok(n) if n >= 1 => Ok(Duration::from_secs(n)),
                _ => Err(ConfigError::NotSeconds { name, value: v }),
            },
        };
        let defaults = Env::default();
        Ok(Env {
            mode: get(MODE),
            intervals: Intervals {
                auto: seconds(AUTO_INTERVAL, defaults.intervals.auto)?,
                backfill: seconds(BACKFILL_INTERVAL, defaults.intervals.backfill)?,
            },
            deadlines: Deadlines {
                header_read: seconds(HEADER_READ, defaults.deadlines.header_read)?,
                body_read: seconds(BODY_READ, defaults.deadlines.body_read)?,
                mcp_session_idle: seconds(MCP_SESSION_IDLE, defaults.deadlines.mcp_session_idle)?,
            },
            chat: ChatEnv {
                idle: seconds(CHAT_IDLE, defaults.chat.idle)?,
                keepalive: seconds(CHAT_KEEPALIVE, defaults.chat.keepalive)?,
                upstream_key: set(CHAT_UPSTREAM_KEY).map(|k| k.trim().to_string()),
            },
            llama_log: get(LLAMA_LOG).is_some_and(|v| !v.is_empty() && v != "0"),
        })
    }
}

/// What overrides settings.json: the flags, and the environment's mode.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `--mode`.
    pub mode: Option<Mode>,
    /// [`MODE`] as set ([`Env::mode`]).
    pub env_mode: Option<String>,
    /// `--chat-upstream`.
    pub chat_upstream: Option<String>,
}

/// The settings file, and what is in force once the flags and the environment are laid over it.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub settings: Settings,
    /// `--mode` > `LOCALM_MODE` > `mode` > privacy.
    pub mode: Mode,
    /// `--chat-upstream` > `chat_upstream`; none: the local chat worker answers.
    pub chat_upstream: Option<String>,
}

impl Config {
    /// Read settings.json and lay `over` on it: the one way every command, the daemon (at each
    /// reload) and `localm mcp` (at each tool call) decide what is in force.
    pub fn load(data_dir: &Path, over: &Overrides) -> anyhow::Result<Config> {
        let settings = Settings::load(data_dir)?;
        let mode = resolve_mode(over.mode, over.env_mode.as_deref(), &settings)?;
        let chat_upstream = over
            .chat_upstream
            .clone()
            .or_else(|| settings.chat_upstream.clone());
        Ok(Config {
            settings,
            mode,
            chat_upstream,
        })
    }
}

/// The TCP listener's address: `--listen` > the `listen` setting > none.
pub fn listen(
    flag: Option<SocketAddr>,
    settings: &Settings,
) -> Result<Option<SocketAddr>, ConfigError> {
    match (flag, settings.listen.as_deref()) {
        (Some(addr), _) => Ok(Some(addr)),
        (None, Some(text)) => {
            text.parse::<SocketAddr>()
                .map(Some)
                .map_err(|e| ConfigError::Listen {
                    text: text.to_string(),
                    why: e.to_string(),
                })
        }
        (None, None) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only(name: &'static str, value: &'static str) -> impl Fn(&str) -> Option<String> {
        move |k| (k == name).then(|| value.to_string())
    }

    #[test]
    fn an_empty_environment_is_the_defaults() {
        let env = Env::from_vars(|_| None).unwrap();
        assert_eq!(env, Env::default());
        assert_eq!(env.intervals.auto, Duration::from_secs(900));
        assert_eq!(env.intervals.backfill, Duration::from_secs(3600));
        assert_eq!(env.chat.idle, Duration::from_secs(300));
        assert_eq!(env.chat.keepalive, Duration::from_secs(15));
        assert!(!env.llama_log && env.mode.is_none() && env.chat.upstream_key.is_none());
    }

    #[test]
    fn each_variable_lands_in_its_typed_value() {
        let vars = [
            (MODE, "log"),
            (AUTO_INTERVAL, "5"),
            (BACKFILL_INTERVAL, " 7 "),
            (HEADER_READ, "2"),
            (BODY_READ, "3"),
            (CHAT_IDLE, "11"),
            (CHAT_KEEPALIVE, "1"),
            (CHAT_UPSTREAM_KEY, " sk-1 "),
            (LLAMA_LOG, "1"),
        ];
        let env = Env::from_vars(|k| {
            vars.iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| v.to_string())
        })
        .unwrap();
        let s = Duration::from_secs;
        assert_eq!(env.mode.as_deref(), Some("log"));
        assert_eq!((env.intervals.auto, env.intervals.backfill), (s(5), s(7)));
        assert_eq!(
            (env.deadlines.header_read, env.deadlines.body_read),
            (s(2), s(3))
        );
        assert_eq!((env.chat.idle, env.chat.keepalive), (s(11), s(1)));
        assert_eq!(env.chat.upstream_key.as_deref(), Some("sk-1"));
        assert!(env.llama_log);
        assert!(!Env::from_vars(only(LLAMA_LOG, "0")).unwrap().llama_log);
        let blank = Env::from_vars(only(CHAT_UPSTREAM_KEY, "  ")).unwrap();
        assert_eq!(blank.chat.upstream_key, None);
    }

    #[test]
    fn bad_values_are_one_line_errors_naming_the_variable() {
        for name in [
            AUTO_INTERVAL,
            BACKFILL_INTERVAL,
            HEADER_READ,
            BODY_READ,
            CHAT_IDLE,
            CHAT_KEEPALIVE,
        ] {
            for bad in ["0", "-1", "1.5", "soon"] {
                let err = Env::from_vars(only(name, bad)).unwrap_err();
                assert_eq!(
                    err.to_string(),
                    format!("{name}={bad:?} is not a whole number of seconds (at least 1)")
                );
            }
        }
    }

    #[test]
    fn flags_win_over_the_environment_and_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = Settings {
            mode: Mode::Full,
            chat_upstream: Some("http://file/v1".into()),
            listen: Some("127.0.0.1:1".into()),
            ..Settings::default()
        };
        file.save(dir.path()).unwrap();
        let none = Config::load(dir.path(), &Overrides::default()).unwrap();
        assert_eq!(none.mode, Mode::Full);
        assert_eq!(none.chat_upstream.as_deref(), Some("http://file/v1"));
        let env = Overrides {
            env_mode: Some("log".into()),
            ..Overrides::default()
        };
        assert_eq!(Config::load(dir.path(), &env).unwrap().mode, Mode::Log);
        let flags = Overrides {
            mode: Some(Mode::Privacy),
            env_mode: Some("log".into()),
            chat_upstream: Some("http://flag/v1".into()),
        };
        let c = Config::load(dir.path(), &flags).unwrap();
        assert_eq!(c.mode, Mode::Privacy);
        assert_eq!(c.chat_upstream.as_deref(), Some("http://flag/v1"));

        let flag: SocketAddr = "127.0.0.1:2".parse().unwrap();
        assert_eq!(listen(Some(flag), &file), Ok(Some(flag)));
        assert_eq!(
            listen(None, &file),
            Ok(Some("127.0.0.1:1".parse().unwrap()))
        );
        assert_eq!(listen(None, &Settings::default()), Ok(None));
        let bad = Settings {
            listen: Some("nowhere".into()),
            ..Settings::default()
        };
        let err = listen(None, &bad).unwrap_err().to_string();
        assert!(
            err.starts_with("the listen setting \"nowhere\" is not an address host:port: "),
            "{err}"
        );
    }
}
