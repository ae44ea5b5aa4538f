//! Settings: the session mode and the memory switches, read from `settings.json` and resolved
//! once (flag > environment > file > default), then passed explicitly.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use self::plugins::PluginState;

pub use self::keys::KEYS;

pub mod keys;
pub mod plugins;

/// The session mode. Memory only grows in `log` or `full`; `privacy` (the default) writes nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Privacy,
    Log,
    Full,
}

impl Mode {
    /// Whether memory may be written (added to, consolidated, reinforced) in this mode.
    pub fn allows_writes(self) -> bool {
        !matches!(self, Mode::Privacy)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Privacy => "privacy",
            Mode::Log => "log",
            Mode::Full => "full",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A mode name that is not one of privacy, log, full.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode {0:?}: expected privacy, log or full")]
pub struct BadMode(pub String);

impl FromStr for Mode {
    type Err = BadMode;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "privacy" => Ok(Mode::Privacy),
            "log" => Ok(Mode::Log),
            "full" => Ok(Mode::Full),
            _ => Err(BadMode(s.to_string())),
        }
    }
}

/// `settings.json` as stored. Unknown keys are kept as they were.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    #[serde(default)]
    pub mode: Mode,
    /// The Memory checkbox: recall (and the automatic pass) on or off.
    #[serde(default = "yes")]
    pub memory_enabled: bool,
    #[serde(default = "yes")]
    pub memory_auto_consolidate: bool,
    /// Read-only recall in privacy mode (off by default).
    #[serde(default)]
    pub memory_recall_in_privacy: bool,
    /// The per-surface switch for chat of `memory_recall_in_privacy`.
    #[serde(default = "yes")]
    pub memory_recall_in_privacy_chat: bool,
    /// A GGUF for consolidation, if not the installed default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm_model: Option<PathBuf>,
    /// A sentence-transformers folder for embeddings, if not the installed default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding_model: Option<PathBuf>,
    /// A GGUF for chat replies, if not the consolidation model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat_model: Option<PathBuf>,
    /// An OpenAI-compatible server chat replies come from instead (its base URL, `…/v1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat_upstream: Option<String>,
    /// Web origins (`http://host:port`, or `*`) whose pages may call `/v1/*` from a browser
    /// (CORS); empty, the default, answers no preflight.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cors_origins: Vec<String>,
    /// The TCP listener's address (`host:port`) when `--listen` is not given; a non-loopback
    /// one (reachable from containers) requires the bearer token on every request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listen: Option<String>,
    /// Host names the TCP listener also answers to (e.g. host.docker.internal), besides its
    /// address and localhost.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_hosts: Vec<String>,
    /// The chat model's context in tokens (prompt + reply); unset: the model's own, at most
    /// 8,192.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat_context: Option<u32>,
    /// Installed and enabled plugins, by name (see `plugins`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub plugins: BTreeMap<String, PluginState>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

fn yes() -> bool {
    true
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            mode: Mode::Privacy,
            memory_enabled: true,
            memory_auto_consolidate: true,
            memory_recall_in_privacy: false,
            memory_recall_in_privacy_chat: true,
            llm_model: None,
            embedding_model: None,
            chat_model: None,
            chat_upstream: None,
            cors_origins: Vec::new(),
            listen: None,
            allowed_hosts: Vec::new(),
            chat_context: None,
            plugins: BTreeMap::new(),
            extra: BTreeMap::new(),
        }
    }
}

/// `settings.json` could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not valid settings: {reason}")]
    Invalid { path: PathBuf, reason: String },
    #[error("LOCALM_MODE: {0}")]
    BadEnvMode(BadMode),
    #[error("unknown setting {key:?}: known settings are {known}")]
    UnknownKey { key: String, known: String },
    #[error("{key} cannot be {value:?}: expected {expected}")]
    BadValue {
        key: String,
        value: String,
        expected: &'static str,
    },
}

impl Settings {
    pub const FILE: &'static str = "settings.json";

    /// Read `<data dir>/settings.json`; a missing file is the defaults.
    pub fn load(data_dir: &Path) -> Result<Settings, SettingsError> {
        let path = data_dir.join(Self::FILE);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| SettingsError::Invalid {
                path,
                reason: crate::printable::one_line(e),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Settings::default()),
            Err(source) => Err(SettingsError::Read { path, source }),
        }
    }
}

impl Settings {
    /// Write `<data dir>/settings.json` atomically (0600), keeping unknown keys. A missing data
    /// dir is created 0700.
    pub fn save(&self, data_dir: &Path) -> std::io::Result<()> {
        crate::fsutil::create_private_dir(data_dir)?;
        let mut bytes = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        crate::store::atomic::write_atomic(&data_dir.join(Self::FILE), &bytes)
    }

    /// Whether a chat turn gets recall in `mode`: the Memory checkbox must be on, and privacy
    /// mode recalls only when the user opted into read-only recall for chat.
    pub fn recall_allowed(&self, mode: Mode) -> Result<(), &'static str> {
        if !self.memory_enabled {
            return Err("memory_enabled is off");
        }
        if mode == Mode::Privacy
            && !(self.memory_recall_in_privacy && self.memory_recall_in_privacy_chat)
        {
            return Err("privacy mode recalls nothing unless memory_recall_in_privacy is on");
        }
        Ok(())
    }
}

/// The mode in force: the `--mode` flag, else `LOCALM_MODE`, else the settings file, else privacy.
pub fn resolve_mode(
    flag: Option<Mode>,
    env: Option<&str>,
    file: &Settings,
) -> Result<Mode, SettingsError> {
    if let Some(mode) = flag {
        return Ok(mode);
    }
    if let Some(value) = env.filter(|v| !v.trim().is_empty()) {
        return value.parse().map_err(SettingsError::BadEnvMode);
    }
    Ok(file.mode)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_is_flag_then_env_then_file() {
        let file = Settings {
            mode: Mode::Full,
            ..Settings::default()
        };
        let cases = [
            (Some(Mode::Log), Some("privacy"), Mode::Log),
            (None, Some("log"), Mode::Log),
            (None, Some(" LOG "), Mode::Log),
            (None, Some(""), Mode::Full),
            (None, None, Mode::Full),
        ];
        for (flag, env, want) in cases {
            assert_eq!(
                resolve_mode(flag, env, &file).unwrap(),
                want,
                "{flag:?} {env:?}"
            );
        }
        assert_eq!(
            resolve_mode(None, None, &Settings::default()).unwrap(),
            Mode::Privacy
        );
        assert!(resolve_mode(None, Some("loud"), &file).is_err());
    }

    #[test]
    fn recall_is_allowed_by_mode_and_switches() {
        let mut s = Settings::default();
        assert!(s.recall_allowed(Mode::Log).is_ok());
        assert!(s.recall_allowed(Mode::Privacy).is_err());
        s.memory_recall_in_privacy = true;
        assert!(s.recall_allowed(Mode::Privacy).is_ok());
        s.memory_recall_in_privacy_chat = false;
        assert!(s.recall_allowed(Mode::Privacy).is_err());
        s.memory_enabled = false;
        assert!(s.recall_allowed(Mode::Full).is_err());
    }

    #[test]
    fn save_then_load_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let mut s: Settings = serde_json::from_str(r#"{"theme":"dark"}"#).unwrap();
        s.mode = Mode::Full;
        s.save(dir.path()).unwrap();
        let back = Settings::load(dir.path()).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn defaults_and_unknown_keys_survive() {
        let s: Settings = serde_json::from_str(r#"{"mode":"log","theme":"dark"}"#).unwrap();
        assert_eq!(s.mode, Mode::Log);
        assert!(s.memory_enabled && s.memory_auto_consolidate && !s.memory_recall_in_privacy);
        let back = serde_json::to_value(&s).unwrap();
        assert_eq!(back["theme"], "dark");
    }

    #[test]
    fn missing_file_is_defaults_and_bad_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Settings::load(dir.path()).unwrap(), Settings::default());
        std::fs::write(dir.path().join("settings.json"), "{mode:").unwrap();
        let err = Settings::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("settings.json is not valid settings"), "{err}");
        // serde quotes an unknown variant unescaped; the error stays one line.
        std::fs::write(dir.path().join("settings.json"), r#"{"mode":"a\nb"}"#).unwrap();
        let err = Settings::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("unknown variant `a\\u{000A}b`"), "{err}");
    }
}
