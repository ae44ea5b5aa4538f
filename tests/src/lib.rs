//! Helpers for the end-to-end tests: find the built `localm` binary and run it on a temp data dir.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub mod daemon;
pub mod fixtures;
pub mod persona;
pub mod recall_set;

/// The `localm` binary under test: `$LOCALM_BIN`, else `target/<profile>/localm` next to this
/// test executable (`scripts/test` builds it first).
pub fn bin() -> PathBuf {
    if let Some(p) = std::env::var_os("LOCALM_BIN") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().expect("current exe");
    // target/<profile>/deps/<test-binary>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("test binary lives in target/<profile>/deps");
    let bin = profile_dir.join("localm");
    assert!(
        bin.exists(),
        "{} not found: run `cargo build -p localm` (scripts/test does) or set LOCALM_BIN",
        bin.display()
    );
    bin
}

/// A temp data dir and a way to run `localm` against it, with a clean environment.
pub struct Env {
    pub dir: tempfile::TempDir,
}

impl Default for Env {
    fn default() -> Self {
        Self::new()
    }
}

impl Env {
    pub fn new() -> Env {
        Env {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// The lines of `sessions/<name>.jsonl` as JSON values (none when the log is absent).
    pub fn session_lines(&self, name: &str) -> Vec<serde_json::Value> {
        std::fs::read_to_string(
            self.data_dir()
                .join("sessions")
                .join(format!("{name}.jsonl")),
        )
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a session line is JSON"))
        .collect()
    }

    pub fn data_dir(&self) -> &Path {
        self.dir.path()
    }

    /// The store folder of the chat namespace.
    pub fn store_dir(&self) -> PathBuf {
        self.dir.path().join("memory").join("chat")
    }

    /// `localm ARGS` with `LOCALM_DATA_DIR` set to the temp dir and no `LOCALM_MODE`.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(bin());
        cmd.args(args)
            .env("LOCALM_DATA_DIR", self.dir.path())
            .env_remove("LOCALM_MODE")
            .env_remove("RUST_LOG")
            .stdin(std::process::Stdio::null());
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Run {
        Run(self.cmd(args).output().expect("run localm"))
    }

    /// Run in log mode (memory writes allowed).
    pub fn log(&self, args: &[&str]) -> Run {
        Run(self
            .cmd(args)
            .env("LOCALM_MODE", "log")
            .output()
            .expect("run localm"))
    }

    /// Write `sessions/<id>.jsonl`: each user line followed by a short assistant reply.
    pub fn write_session(&self, id: &str, user_lines: &[&str]) {
        let dir = self.dir.path().join("sessions");
        std::fs::create_dir_all(&dir).expect("sessions dir");
        let mut text = String::new();
        for line in user_lines {
            for (ts, role, content) in [
                ("2026-03-01T10:00:00Z", "user", *line),
                ("2026-03-01T10:00:05Z", "assistant", "Got it."),
            ] {
                text.push_str(
                    &serde_json::json!({"ts": ts, "role": role, "content": content}).to_string(),
                );
                text.push('\n');
            }
        }
        std::fs::write(dir.join(format!("{id}.jsonl")), text).expect("write the session");
    }

    /// The live records as JSON values (`memory list --json`).
    pub fn records(&self) -> Vec<serde_json::Value> {
        let out = self.run(&["memory", "list", "--json"]).ok();
        let v: serde_json::Value = serde_json::from_str(&out).expect("list --json is JSON");
        v["records"].as_array().cloned().unwrap_or_default()
    }

    /// The archived records as JSON values (`memory forgotten --json`).
    pub fn forgotten(&self) -> Vec<serde_json::Value> {
        let out = self.run(&["memory", "forgotten", "--json"]).ok();
        let v: serde_json::Value = serde_json::from_str(&out).expect("forgotten --json is JSON");
        v["forgotten"]
            .as_array()
            .cloned()
            .expect("a forgotten list")
    }
}

/// A finished run, with helpers that print everything when an expectation fails.
pub struct Run(pub Output);

impl Run {
    pub fn code(&self) -> i32 {
        self.0.status.code().unwrap_or(-1)
    }
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.0.stdout).into_owned()
    }
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.0.stderr).into_owned()
    }
    /// Expect success; returns stdout.
    pub fn ok(&self) -> String {
        assert_eq!(self.code(), 0, "expected success\n{}", self.describe());
        self.stdout()
    }
    /// Expect exit `code`; returns stderr.
    pub fn fails(&self, code: i32) -> String {
        assert_eq!(
            self.code(),
            code,
            "expected exit {code}\n{}",
            self.describe()
        );
        self.stderr()
    }
    pub fn describe(&self) -> String {
        format!(
            "exit: {:?}\nstdout:\n{}\nstderr:\n{}",
            self.0.status,
            self.stdout(),
            self.stderr()
        )
    }
}

/// Whether every prerequisite of every test must be there: `LOCALM_REQUIRE_MODELS` set (not
/// empty, not `0`), as `scripts/test` and CI do.
/// The secret phrasings of core's probe (`core/src/secret/phrasings.tsv`: 20 in each read
/// language, 14 in languages memory does not read), for the doors' own tests.
pub fn secret_phrasings() -> Vec<&'static str> {
    include_str!("../../core/src/secret/phrasings.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t').map(|(_, text)| text))
        .collect()
}

pub fn required() -> bool {
    std::env::var_os("LOCALM_REQUIRE_MODELS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// A test's prerequisite (a model, a tool, root) is missing: fail when [`required`], else note
/// `skipped: WHY` so the caller can return.
pub fn skip(why: &str) {
    assert!(!required(), "{why}; LOCALM_REQUIRE_MODELS is set");
    eprintln!("skipped: {why}");
}

/// A test model's path: `$VAR`, else `test-models/NAME` in the workspace. `None` (and a note)
/// when absent, unless [`required`], then it fails.
pub fn test_model(var: &str, name: &str) -> Option<PathBuf> {
    let path = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../test-models")
            .join(name)
    });
    if path.exists() {
        return Some(path);
    }
    skip(&format!(
        "{} not found (run scripts/fetch-test-models)",
        path.display()
    ));
    None
}

/// all-MiniLM-L6-v2, the real embedding model the tests use.
pub fn embed_model() -> Option<PathBuf> {
    test_model("LOCALM_TEST_EMBED_MODEL", "all-MiniLM-L6-v2")
}

/// multilingual-e5-small, rebuilt from PyPI wheels by `scripts/fetch-test-models`.
pub fn e5_model() -> Option<PathBuf> {
    test_model("LOCALM_TEST_E5_MODEL", "multilingual-e5-small")
}

/// SmolLM2-135M-Instruct Q4_1, the real generation model the tests use.
pub fn llm_model() -> Option<PathBuf> {
    test_model("LOCALM_TEST_LLM_MODEL", "SmolLM2-135M-Instruct.Q4_1.gguf")
}

/// A data dir with the memory plugin on, `mode` set and the real test GGUF installed with
/// `setup-model`; `None` when the model is missing (see [`llm_model`]).
pub fn model_env(mode: &str) -> Option<Env> {
    let model = llm_model()?;
    let env = Env::new();
    env.run(&["plugin", "install", "memory"]).ok();
    env.run(&["settings", "set", "mode", mode]).ok();
    env.log(&["setup-model", "--from", model.to_str()?]).ok();
    Some(env)
}

/// The Python that has the official client packages (`scripts/lib/py-clients.sh` makes it):
/// `$LOCALM_TEST_PYTHON`. `None` (and a note) when unset, unless `LOCALM_REQUIRE_MODELS` is set
/// (as `scripts/test` does), then it fails.
pub fn test_python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("LOCALM_TEST_PYTHON").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    skip(
        "LOCALM_TEST_PYTHON is not set: run scripts/test, or source scripts/lib/py-clients.sh and \
         run `py_clients target/py-clients mcp==2.3.0`",
    );
    None
}

/// `localm memory recall Q --json` in log mode, read as JSON.
pub fn recall_json(env: &Env, q: &str) -> serde_json::Value {
    let out = env.log(&["memory", "recall", q, "--json"]).ok();
    serde_json::from_str(&out).expect("recall --json is JSON")
}

/// The texts of the facts a `recall --json` answer injected, in rank order.
pub fn recalled_texts(v: &serde_json::Value) -> Vec<String> {
    v["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["text"].as_str().expect("a text").to_string())
        .collect()
}
