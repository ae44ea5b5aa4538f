//! Chat generation for `POST /v1/chat/completions`: the installed GGUF in a supervised worker
//! process (`worker.rs`, the child; `supervisor.rs`, the daemon's side), spoken to in JSON lines
//! (`protocol.rs`).

pub mod protocol;
pub mod supervisor;
pub mod upstream;
pub mod worker;
