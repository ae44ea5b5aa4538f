//! What every request handler shares: the data dir, the store, the settings and mode in force
//! (reloaded on SIGHUP or a change to settings.json), the recall cache and the pass runner.

use std::path::PathBuf;
use std::sync::RwLock;
use std::time::Instant;

use chrono::Utc;
use localm_core::manage::Ctx;
use localm_core::settings::{Mode, Settings, resolve_mode};
use localm_core::store::Store;

use super::recall::RecallCache;
use super::reinforce::Reinforcer;
use crate::passes::Passes;

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

pub struct Shared {
    pub data_dir: PathBuf,
    pub store: Store,
    pub recall: RecallCache,
    pub reinforcer: Reinforcer,
    pub passes: Passes,
    pub started: Instant,
    config: RwLock<Config>,
    sources: ModeSources,
}

impl Shared {
    /// Needs a tokio runtime (it starts the reinforcement writer).
    pub fn new(data_dir: PathBuf, sources: ModeSources, passes: Passes) -> anyhow::Result<Shared> {
        let config = load_config(&data_dir, &sources)?;
        let store = Store::new(&data_dir, "chat", "localm daemon");
        Ok(Shared {
            reinforcer: Reinforcer::start(store.clone()),
            store,
            data_dir,
            recall: RecallCache::default(),
            passes,
            started: Instant::now(),
            config: RwLock::new(config),
            sources,
        })
    }

    pub fn config(&self) -> Config {
        self.config
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Re-read settings.json. Returns the old and new config when something changed; a file that
    /// does not parse is reported and the running config is kept.
    pub fn reload(&self) -> anyhow::Result<Option<(Config, Config)>> {
        let fresh = load_config(&self.data_dir, &self.sources)?;
        let mut current = self.config.write().unwrap_or_else(|e| e.into_inner());
        if *current == fresh {
            return Ok(None);
        }
        let old = std::mem::replace(&mut *current, fresh.clone());
        if old.settings.embedding_model != fresh.settings.embedding_model {
            self.recall.forget_embedder();
        }
        Ok(Some((old, fresh)))
    }

    /// A manage context for an API caller, now, in the mode in force.
    pub fn ctx(&self, mode: Mode) -> Ctx<'_> {
        Ctx {
            store: &self.store,
            mode,
            legacy_file: self.data_dir.join("chat-memory.md"),
            now: Utc::now(),
            via: "api",
        }
    }
}

fn load_config(data_dir: &std::path::Path, sources: &ModeSources) -> anyhow::Result<Config> {
    let settings = Settings::load(data_dir)?;
    let mode = resolve_mode(sources.flag, sources.env.as_deref(), &settings)?;
    Ok(Config { settings, mode })
}
