//! Chat generation for `POST /v1/chat/completions`: the installed GGUF in a supervised worker
//! process (`worker.rs`, the child; `supervisor.rs`, the daemon's side), spoken to in JSON lines
//! (`protocol.rs`), or from another OpenAI-compatible server (`upstream.rs`, with the body it is
//! sent in `forwarded.rs` and a streamed reply folded whole in `accumulate.rs`); the tasks a
//! turn leaves running are owned by `tasks.rs`.

pub mod accumulate;
pub mod forwarded;
pub mod protocol;
pub mod supervisor;
pub mod tasks;
pub mod upstream;
pub mod worker;
