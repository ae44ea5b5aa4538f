//! The rules of localm memory: the on-disk store and its lock, settings, and recall ranking and
//! consolidation decisions, over one word model (`words`) and one same-fact rule (`same_fact`).
//!
//! **Invariant:** core reads no clock, environment or sockets and starts no runtime. Callers pass
//! `now`, the resolved settings and the data dir in; every rule here is testable without a model.

pub mod backfill;
pub mod chars;
pub mod chat;
pub mod consolidate;
pub mod fact_text;
pub mod fsutil;
pub mod id;
pub mod jobs;
pub mod language;
pub mod legacy;
pub mod manage;
pub mod message;
pub mod models;
pub mod pass_summary;
pub mod printable;
pub mod recall;
pub mod record;
pub mod refusal;
pub mod same_fact;
pub mod secret;
pub mod session;
pub mod settings;
pub mod store;
pub mod words;

pub use record::{Kind, Provenance, Record, Source};
pub use settings::{Mode, Settings};
pub use store::{Store, StoreError};
