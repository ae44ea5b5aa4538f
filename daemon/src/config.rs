//! The one place the process environment's `LOCALM_*` variables are read: each read once (a
//! snapshot taken at first use) and handed out as typed values, bad values as one-line
//! [`ConfigError`]s. The mode in force resolves here too (flag > `LOCALM_MODE` > settings.json,
//! [`Config::load`]). A tidy test (core/tests/tidy.rs) fails when another file reads a
//! `LOCALM_*` variable.

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use localm_core::consolidate::Extraction;
use localm_core::settings::{Mode, Settings, resolve_mode};

/// The mode over settings.json (and under `--mode`).
pub const MODE: &str = "LOCALM_MODE";
/// Seconds a chat worker stays loaded with no turn.
pub const CHAT_IDLE: &str = "LOCALM_CHAT_IDLE";
/// The bearer token sent to `--chat-upstream`.
pub const CHAT_UPSTREAM_KEY: &str = "LOCALM_CHAT_UPSTREAM_KEY";
/// Seconds of upstream silence before a keep-alive comment on a relayed stream.
pub const CHAT_KEEPALIVE: &str = "LOCALM_CHAT_KEEPALIVE";
/// Forward llama.cpp's own log to `tracing` (`1`).
pub const LLAMA_LOG: &str = "LOCALM_LLAMA_LOG";
/// The hidden candidate-finding method of a pass (`rewrite`, `rule`, `free`).
pub const EXTRACTION: &str = "LOCALM_EXTRACTION";

/// A `LOCALM_*` value that cannot be used. Messages are one line and name the variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{name}={value:?} is not a whole number of seconds (at least 1)")]
    NotSeconds { name: &'static str, value: String },
    #[error("LOCALM_EXTRACTION must be rewrite, rule or free, not {0:?}")]
    Extraction(String),
}

impl From<ConfigError> for String {
    fn from(e: ConfigError) -> String {
        e.to_string()
    }
}

/// Every `LOCALM_*` variable of the environment (UTF-8 ones), read once.
fn snapshot() -> &'static HashMap<String, String> {
    static ENV: OnceLock<HashMap<String, String>> = OnceLock::new();
    ENV.get_or_init(|| {
        std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .filter(|(k, _)| k.starts_with("LOCALM_"))
            .collect()
    })
}

/// A `LOCALM_*` variable as set, `None` when unset (the shape `from_env` readers take).
pub fn var(name: &str) -> Option<String> {
    snapshot().get(name).cloned()
}

/// A set, non-blank `LOCALM_*` variable.
fn set(name: &str) -> Option<String> {
    var(name).filter(|v| !v.trim().is_empty())
}

/// Whole seconds, at least 1, from `get(name)`; `default` when unset or blank.
pub fn seconds(
    get: &impl Fn(&str) -> Option<String>,
    name: &'static str,
    default: Duration,
) -> Result<Duration, ConfigError> {
    match get(name).filter(|v| !v.trim().is_empty()) {
        None => Ok(default),
        Some(v) => match v.trim().parse::<u64>() {
            Ok(n) if n >= 1 => Ok(Duration::from_secs(n)),
            _ => Err(ConfigError::NotSeconds { name, value: v }),
        },
    }
}

/// `LOCALM_MODE` as set (resolved against the flag and the file by [`Config::load`]).
pub fn mode_env() -> Option<String> {
    var(MODE)
}

/// [`CHAT_IDLE`] in seconds when set to a positive whole number, else `default`.
pub fn chat_idle(default: Duration) -> Duration {
    var(CHAT_IDLE)
        .and_then(|v| v.parse().ok())
        .map_or(default, Duration::from_secs)
}

/// [`CHAT_KEEPALIVE`] in seconds when set to a positive whole number, else `default`.
pub fn chat_keepalive(default: Duration) -> Duration {
    var(CHAT_KEEPALIVE)
        .and_then(|v| v.parse().ok())
        .filter(|s| *s > 0)
        .map_or(default, Duration::from_secs)
}

/// [`CHAT_UPSTREAM_KEY`], trimmed, when set.
pub fn chat_upstream_key() -> Option<String> {
    var(CHAT_UPSTREAM_KEY).map(|k| k.trim().to_string())
}

/// Whether [`LLAMA_LOG`] asks for llama.cpp's log (set, not empty, not `0`).
pub fn llama_log() -> bool {
    var(LLAMA_LOG).is_some_and(|v| !v.is_empty() && v != "0")
}

/// [`EXTRACTION`], the default when unset or empty.
pub fn extraction() -> Result<Extraction, ConfigError> {
    match set(EXTRACTION) {
        Some(v) => Extraction::parse(&v).ok_or(ConfigError::Extraction(v)),
        None => Ok(Extraction::default()),
    }
}

/// The settings file and the mode resolved from it (flag > LOCALM_MODE > file).
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub settings: Settings,
    pub mode: Mode,
}

/// Where the mode comes from besides the settings file.
#[derive(Debug, Clone, Default)]
pub struct ModeSources {
    pub flag: Option<Mode>,
    pub env: Option<String>,
}

impl ModeSources {
    /// `--mode` (when given) and `LOCALM_MODE` as set.
    pub fn new(flag: Option<Mode>) -> ModeSources {
        ModeSources {
            flag,
            env: mode_env(),
        }
    }
}

impl Config {
    /// Read settings.json and resolve the mode in force from it and `sources`: the one way every
    /// command, the daemon and `localm mcp` decide, at each reload or tool call, what memory may
    /// do.
    pub fn load(data_dir: &Path, sources: &ModeSources) -> anyhow::Result<Config> {
        let settings = Settings::load(data_dir)?;
        let mode = resolve_mode(sources.flag, sources.env.as_deref(), &settings)?;
        Ok(Config { settings, mode })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_whole_and_positive_and_bad_values_name_the_variable() {
        let unset = |_: &str| None;
        assert_eq!(
            seconds(&unset, "LOCALM_X", Duration::from_secs(9)),
            Ok(Duration::from_secs(9))
        );
        let two = |_: &str| Some(" 2 ".to_string());
        assert_eq!(
            seconds(&two, "LOCALM_X", Duration::ZERO),
            Ok(Duration::from_secs(2))
        );
        for bad in ["0", "-1", "1.5", "soon"] {
            let get = |_: &str| Some(bad.to_string());
            let err = seconds(&get, "LOCALM_X", Duration::ZERO).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("LOCALM_X={bad:?} is not a whole number of seconds (at least 1)")
            );
        }
    }
}
