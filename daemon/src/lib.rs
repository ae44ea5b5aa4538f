//! The `localm` program as a library: the CLI, the on-device models, and the I/O that needs a
//! runtime or a native library. `main.rs` is a thin shell over it; benches and tests use it too.
//!
//! **Invariant:** the rules live in `localm-core`; this crate only wires them to files, models,
//! the terminal, the daemon and its socket. Dependencies point one way: daemon → core.

pub mod backfill;
pub mod chat;
pub mod cli;
pub mod config;
pub mod exit;
pub mod mcp;
pub mod models;
pub mod paths;
pub mod process;
pub mod recall;
pub mod recall_cache;
pub mod service;
