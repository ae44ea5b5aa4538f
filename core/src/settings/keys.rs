//! The settings `localm settings get/set` reads and writes by name, with the values each takes.

use std::path::{Path, PathBuf};

use super::{Mode, Settings, SettingsError};

/// Every setting `get`/`set` know, with a one-line description.
pub const KEYS: &[(&str, &str)] = &[
    (
        "mode",
        "session mode: privacy (writes nothing), log or full",
    ),
    (
        "memory_enabled",
        "the Memory switch: recall and automatic passes",
    ),
    (
        "memory_auto_consolidate",
        "distil sessions into memory automatically",
    ),
    (
        "memory_recall_in_privacy",
        "read-only recall in privacy mode",
    ),
    (
        "memory_recall_in_privacy_chat",
        "read-only recall in privacy mode, for chat",
    ),
    (
        "llm_model",
        "GGUF model for consolidation (a path, or default)",
    ),
    (
        "embedding_model",
        "sentence-transformers folder for embeddings (a path, or default)",
    ),
    (
        "chat_model",
        "GGUF model for chat replies (a path, or default: llm_model's)",
    ),
    (
        "chat_upstream",
        "OpenAI-compatible server for chat replies (a base URL such as http://127.0.0.1:8080/v1, or none)",
    ),
    (
        "cors_origins",
        "web pages that may call /v1/* from a browser (origins such as http://localhost:3000, comma-separated; * for any; or none)",
    ),
    (
        "listen",
        "TCP listener address when --listen is not given (127.0.0.1:8765; a non-loopback address requires the token on every request), or none",
    ),
    (
        "allowed_hosts",
        "extra Host names the TCP listener answers to, comma-separated (e.g. host.docker.internal), or none",
    ),
    (
        "chat_context",
        "the chat model's context in tokens (prompt + reply, 256-131072), or default: the model's, at most 8192",
    ),
];

const BOOL: &str = "true or false (also on/off, yes/no, 1/0)";
const MODE: &str = "privacy, log or full";
const PATH: &str = "an absolute path, or default";
const URL: &str = "an http:// or https:// base URL, or none";
const ORIGINS: &str = "origins such as http://localhost:3000 (scheme, host and port only), comma-separated, * for any, or none";
const ADDR: &str = "an address host:port (e.g. 127.0.0.1:8765 or 0.0.0.0:8765), or none";
const HOSTS: &str = "host names separated by commas (letters, digits, '-', '.'), or none";
const CONTEXT: &str = "a number of tokens from 256 to 131072, or default";

impl Settings {
    /// The value of setting `key` as text: booleans as true/false, model paths as the path or
    /// "default".
    pub fn get(&self, key: &str) -> Result<String, SettingsError> {
        let path = |p: &Option<PathBuf>| {
            p.as_deref()
                .map_or_else(|| "default".to_string(), |p| p.display().to_string())
        };
        Ok(match known(key)? {
            "mode" => self.mode.as_str().to_string(),
            "memory_enabled" => self.memory_enabled.to_string(),
            "memory_auto_consolidate" => self.memory_auto_consolidate.to_string(),
            "memory_recall_in_privacy" => self.memory_recall_in_privacy.to_string(),
            "memory_recall_in_privacy_chat" => self.memory_recall_in_privacy_chat.to_string(),
            "llm_model" => path(&self.llm_model),
            "embedding_model" => path(&self.embedding_model),
            "chat_model" => path(&self.chat_model),
            "chat_upstream" => self.chat_upstream.clone().unwrap_or_else(|| "none".into()),
            "cors_origins" if self.cors_origins.is_empty() => "none".into(),
            "cors_origins" => self.cors_origins.join(","),
            "listen" => self.listen.clone().unwrap_or_else(|| "none".into()),
            "allowed_hosts" if self.allowed_hosts.is_empty() => "none".into(),
            "allowed_hosts" => self.allowed_hosts.join(","),
            "chat_context" => self
                .chat_context
                .map_or_else(|| "default".into(), |n| n.to_string()),
            other => unreachable!("{other} is in KEYS but not handled"),
        })
    }

    /// Set `key` from text. Nothing changes if the key is unknown or the value does not fit.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SettingsError> {
        let key = known(key)?;
        let bad = |expected| SettingsError::BadValue {
            key: key.to_string(),
            value: value.to_string(),
            expected,
        };
        let flag = || parse_bool(value).ok_or_else(|| bad(BOOL));
        let path = || parse_path(value).ok_or_else(|| bad(PATH));
        match key {
            "mode" => self.mode = value.parse::<Mode>().map_err(|_| bad(MODE))?,
            "memory_enabled" => self.memory_enabled = flag()?,
            "memory_auto_consolidate" => self.memory_auto_consolidate = flag()?,
            "memory_recall_in_privacy" => self.memory_recall_in_privacy = flag()?,
            "memory_recall_in_privacy_chat" => self.memory_recall_in_privacy_chat = flag()?,
            "llm_model" => self.llm_model = path()?,
            "embedding_model" => self.embedding_model = path()?,
            "chat_model" => self.chat_model = path()?,
            "chat_upstream" => {
                self.chat_upstream = parse_url(value).ok_or_else(|| bad(URL))?;
            }
            "cors_origins" => {
                self.cors_origins = parse_origins(value).ok_or_else(|| bad(ORIGINS))?
            }
            "listen" => self.listen = parse_addr(value).ok_or_else(|| bad(ADDR))?,
            "allowed_hosts" => self.allowed_hosts = parse_hosts(value).ok_or_else(|| bad(HOSTS))?,
            "chat_context" => {
                self.chat_context = parse_context(value).ok_or_else(|| bad(CONTEXT))?
            }
            other => unreachable!("{other} is in KEYS but not handled"),
        }
        Ok(())
    }
}

/// The entry of KEYS named `key`.
fn known(key: &str) -> Result<&'static str, SettingsError> {
    KEYS.iter()
        .map(|(k, _)| *k)
        .find(|k| *k == key.trim())
        .ok_or_else(|| SettingsError::UnknownKey {
            key: key.to_string(),
            known: KEYS.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", "),
        })
}

fn parse_bool(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "on" | "yes" | "1" => Some(true),
        "false" | "off" | "no" | "0" => Some(false),
        _ => None,
    }
}

/// `Some(None)` for "default" or empty (clear), `Some(path)` for an absolute path, `None` for a
/// relative one (core does not know the caller's working folder).
/// A base URL (no trailing slash), or `Some(None)` for none/default/empty.
pub fn parse_url(value: &str) -> Option<Option<String>> {
    let v = value.trim();
    if v.is_empty() || v.eq_ignore_ascii_case("none") || v.eq_ignore_ascii_case("default") {
        return Some(None);
    }
    let rest = v
        .strip_prefix("http://")
        .or_else(|| v.strip_prefix("https://"));
    // A host is named (`http://` alone, `http://:8080/v1` name none).
    let host = rest.map(|r| r.split(['/', '?', '#']).next().unwrap_or_default());
    let ok = host.is_some_and(|h| !h.is_empty() && !h.starts_with(':') && !h.ends_with('@'))
        && !v.chars().any(|c| c.is_whitespace() || c.is_control());
    ok.then(|| Some(v.trim_end_matches('/').to_string()))
}

/// A comma-separated list of web origins (`scheme://host[:port]`, lower-cased, no path) or `*`;
/// none/empty is the empty list. `None` if any entry is not an origin.
pub fn parse_origins(value: &str) -> Option<Vec<String>> {
    let v = value.trim();
    if v.is_empty() || v.eq_ignore_ascii_case("none") {
        return Some(Vec::new());
    }
    let mut out: Vec<String> = Vec::new();
    for o in v.split(',').map(str::trim).filter(|o| !o.is_empty()) {
        let o = o.trim_end_matches('/').to_ascii_lowercase();
        let ok = o == "*"
            || o.split_once("://").is_some_and(|(scheme, host)| {
                matches!(scheme, "http" | "https")
                    && !host.is_empty()
                    && host.chars().all(|c| {
                        c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']')
                    })
            });
        if !ok {
            return None;
        }
        if !out.contains(&o) {
            out.push(o);
        }
    }
    Some(out)
}

/// Whether `origin` (a request's `Origin` header) is one of `allowed` (`*` allows any).
pub fn origin_allowed(allowed: &[String], origin: &str) -> bool {
    let origin = origin.trim_end_matches('/');
    allowed
        .iter()
        .any(|a| a == "*" || a.eq_ignore_ascii_case(origin))
}

/// `Some(None)` for none/default/empty, `Some(addr)` for a socket address.
fn parse_addr(value: &str) -> Option<Option<String>> {
    let v = value.trim();
    if v.is_empty() || v.eq_ignore_ascii_case("none") || v.eq_ignore_ascii_case("default") {
        return Some(None);
    }
    v.parse::<std::net::SocketAddr>()
        .ok()
        .map(|a| Some(a.to_string()))
}

/// Host names, lower-cased; an empty list for none.
fn parse_hosts(value: &str) -> Option<Vec<String>> {
    let v = value.trim();
    if v.is_empty() || v.eq_ignore_ascii_case("none") {
        return Some(Vec::new());
    }
    v.split(',')
        .map(|h| h.trim().to_ascii_lowercase())
        .map(|h| {
            let ok = !h.is_empty()
                && h.len() <= 253
                && h.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
            ok.then_some(h)
        })
        .collect()
}

fn parse_context(value: &str) -> Option<Option<u32>> {
    let v = value.trim();
    if v.is_empty() || v.eq_ignore_ascii_case("default") {
        return Some(None);
    }
    v.parse::<u32>()
        .ok()
        .filter(|n| (256..=131_072).contains(n))
        .map(Some)
}

fn parse_path(value: &str) -> Option<Option<PathBuf>> {
    let v = value.trim();
    if v.is_empty() || v.eq_ignore_ascii_case("default") {
        return Some(None);
    }
    Path::new(v).is_absolute().then(|| Some(PathBuf::from(v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_upstream_takes_a_base_url_or_none() {
        let mut s = Settings::default();
        s.set("chat_upstream", "http://127.0.0.1:8080/v1/").unwrap();
        assert_eq!(s.chat_upstream.as_deref(), Some("http://127.0.0.1:8080/v1"));
        assert_eq!(s.get("chat_upstream").unwrap(), "http://127.0.0.1:8080/v1");
        assert!(s.set("chat_upstream", "ftp://x").is_err());
        assert!(s.set("chat_upstream", "http://a b").is_err());
        // No host: refused when set, not stored and refused at every start (#33).
        for bad in [
            "http://",
            "https://",
            "http:///v1",
            "http://:8080/v1",
            "http://?x",
        ] {
            assert!(s.set("chat_upstream", bad).is_err(), "{bad}");
        }
        assert_eq!(s.chat_upstream.as_deref(), Some("http://127.0.0.1:8080/v1"));
        s.set("chat_upstream", "none").unwrap();
        assert_eq!(s.chat_upstream, None);
    }

    #[test]
    fn listen_allowed_hosts_and_chat_context_are_checked() {
        let mut s = Settings::default();
        s.set("listen", "0.0.0.0:8765").unwrap();
        assert_eq!(s.get("listen").unwrap(), "0.0.0.0:8765");
        assert!(s.set("listen", "localhost").is_err());
        assert_eq!(s.listen.as_deref(), Some("0.0.0.0:8765"));
        s.set("allowed_hosts", "host.docker.internal, Box.LAN")
            .unwrap();
        assert_eq!(s.allowed_hosts, ["host.docker.internal", "box.lan"]);
        assert_eq!(
            s.get("allowed_hosts").unwrap(),
            "host.docker.internal,box.lan"
        );
        for bad in ["a b", "x,,y", "evil/host", "h:80"] {
            assert!(s.set("allowed_hosts", bad).is_err(), "{bad}");
        }
        s.set("allowed_hosts", "none").unwrap();
        assert!(s.allowed_hosts.is_empty());
        s.set("chat_context", "512").unwrap();
        assert_eq!(s.chat_context, Some(512));
        for bad in ["12", "0", "lots", "999999"] {
            assert!(s.set("chat_context", bad).is_err(), "{bad}");
        }
        s.set("chat_context", "default").unwrap();
        assert_eq!(s.chat_context, None);
    }

    #[test]
    fn cors_origins_take_origins_or_none() {
        let mut s = Settings::default();
        s.set(
            "cors_origins",
            "http://localhost:3000, HTTPS://App.example/ ,http://[::1]:8080",
        )
        .unwrap();
        assert_eq!(
            s.cors_origins,
            [
                "http://localhost:3000",
                "https://app.example",
                "http://[::1]:8080"
            ]
        );
        assert_eq!(
            s.get("cors_origins").unwrap(),
            "http://localhost:3000,https://app.example,http://[::1]:8080"
        );
        assert!(origin_allowed(&s.cors_origins, "http://localhost:3000"));
        assert!(origin_allowed(&s.cors_origins, "https://APP.example"));
        assert!(!origin_allowed(&s.cors_origins, "http://localhost:3001"));
        assert!(!origin_allowed(&s.cors_origins, "null"));
        for bad in [
            "localhost:3000",
            "http://a/path",
            "ftp://a",
            "http://",
            "http://a b",
        ] {
            let before = s.clone();
            assert!(s.set("cors_origins", bad).is_err(), "{bad}");
            assert_eq!(s, before);
        }
        s.set("cors_origins", "*").unwrap();
        assert!(origin_allowed(&s.cors_origins, "http://anything:1"));
        s.set("cors_origins", "none").unwrap();
        assert!(s.cors_origins.is_empty());
        assert!(!origin_allowed(&s.cors_origins, "http://localhost:3000"));
    }

    #[test]
    fn every_key_gets_and_sets_round_trip() {
        let mut s = Settings::default();
        for (key, _) in KEYS {
            let value = s.get(key).unwrap();
            s.set(key, &value).unwrap();
        }
        assert_eq!(s, Settings::default());
        let got: Vec<String> = KEYS.iter().map(|(k, _)| s.get(k).unwrap()).collect();
        assert_eq!(
            got,
            [
                "privacy", "true", "true", "false", "true", "default", "default", "default",
                "none", "none", "none", "none", "default"
            ]
        );
    }

    #[test]
    fn mode_is_case_insensitive_and_checked() {
        let mut s = Settings::default();
        s.set("mode", "FULL").unwrap();
        assert_eq!(s.mode, Mode::Full);
        assert_eq!(s.get("mode").unwrap(), "full");
        let err = s.set("mode", "loud").unwrap_err();
        assert_eq!(
            err.to_string(),
            "mode cannot be \"loud\": expected privacy, log or full"
        );
        assert_eq!(s.mode, Mode::Full);
    }

    #[test]
    fn booleans_take_the_usual_spellings() {
        let cases = [
            ("true", true),
            ("FALSE", false),
            ("on", true),
            ("Off", false),
            ("yes", true),
            ("no", false),
            ("1", true),
            (" 0 ", false),
        ];
        let mut s = Settings::default();
        for (value, want) in cases {
            s.set("memory_recall_in_privacy", value).unwrap();
            assert_eq!(s.memory_recall_in_privacy, want, "{value:?}");
            assert_eq!(s.get("memory_recall_in_privacy").unwrap(), want.to_string());
        }
        for bad in ["", "maybe", "2", "enabled"] {
            let err = s.set("memory_enabled", bad).unwrap_err();
            assert!(
                matches!(err, SettingsError::BadValue { ref key, ref value, .. }
                    if key == "memory_enabled" && value == bad),
                "{bad:?}"
            );
        }
        assert!(s.memory_enabled, "a refused value changes nothing");
    }

    #[test]
    fn model_paths_are_absolute_or_default() {
        let mut s = Settings::default();
        s.set("llm_model", "/models/smol.gguf").unwrap();
        assert_eq!(s.llm_model, Some(PathBuf::from("/models/smol.gguf")));
        assert_eq!(s.get("llm_model").unwrap(), "/models/smol.gguf");
        s.set("embedding_model", " /models/minilm ").unwrap();
        assert_eq!(s.get("embedding_model").unwrap(), "/models/minilm");
        s.set("llm_model", "default").unwrap();
        assert_eq!(s.llm_model, None);
        s.set("embedding_model", "").unwrap();
        assert_eq!(s.embedding_model, None);
        assert_eq!(s.get("embedding_model").unwrap(), "default");
        let err = s.set("llm_model", "models/smol.gguf").unwrap_err();
        assert_eq!(
            err.to_string(),
            "llm_model cannot be \"models/smol.gguf\": expected an absolute path, or default"
        );
    }

    #[test]
    fn unknown_keys_list_the_known_ones() {
        let mut s = Settings::default();
        for err in [
            s.get("theme").unwrap_err(),
            s.set("theme", "dark").unwrap_err(),
        ] {
            let msg = err.to_string();
            assert!(matches!(err, SettingsError::UnknownKey { .. }));
            assert!(
                msg.starts_with(
                    "unknown setting \"theme\": known settings are mode, memory_enabled,"
                ),
                "{msg}"
            );
            assert!(
                msg.ends_with("chat_upstream, cors_origins, listen, allowed_hosts, chat_context"),
                "{msg}"
            );
        }
        assert_eq!(s, Settings::default());
    }
}
