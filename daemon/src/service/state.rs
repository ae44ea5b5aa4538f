//! The daemon's state, shared by every request handler, the event loop and the shutdown: the
//! data dir, the store, the settings and mode in force (reloaded on SIGHUP or a change to
//! settings.json), the recall cache, the reinforcement writer and the pass runner.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::Instant;

use chrono::Utc;
use localm_core::manage::Ctx;
use localm_core::models::Embedder;
use localm_core::recall::query::Query;
use localm_core::recall::{self, Input, Recall};
use localm_core::settings::Mode;
use localm_core::store::{Store, StoreError};

use super::logins::Logins;
use super::passes::PassRunner;
use super::reinforce::Reinforcer;
use crate::chat::supervisor::ChatWorker;
use crate::models;
use crate::recall::Answer;
use crate::recall_cache::RecallCache;

use crate::config::{ChatEnv, Config, Overrides};

/// Threads of the runtime's blocking pool (store work, query embedding).
pub const BLOCKING_THREADS: usize = 8;
/// Store writes that may wait on the blocking pool at once: half of it, so reads never queue
/// behind writers waiting (up to about 2 s each) for a lock another process holds.
pub const WRITERS: usize = BLOCKING_THREADS / 2;

pub struct Shared {
    pub data_dir: PathBuf,
    pub store: Store,
    pub recall: RecallCache,
    pub reinforcer: Reinforcer,
    pub passes: PassRunner,
    /// The chat model's worker process.
    pub chat: ChatWorker,
    /// What the environment says of the chat path (the relay's keep-alive, the upstream's key).
    pub chat_env: ChatEnv,
    /// The cap on requests in flight to the chat upstream, each on a thread of its own.
    pub relays: crate::chat::upstream::Relays,
    /// Permits for store writes on the blocking pool ([`WRITERS`]).
    pub writers: tokio::sync::Semaphore,
    pub started: Instant,
    /// The browser's login codes and sessions for the loopback listener.
    pub logins: Arc<Logins>,
    config: Arc<RwLock<Config>>,
    overrides: Overrides,
}

impl Shared {
    /// Needs a tokio runtime (it starts the reinforcement writer).
    pub fn new(
        data_dir: PathBuf,
        overrides: Overrides,
        passes: PassRunner,
        chat_env: ChatEnv,
    ) -> anyhow::Result<Shared> {
        let config = Arc::new(RwLock::new(Config::load(&data_dir, &overrides)?));
        let store = Store::new(&data_dir, "chat", "localm daemon");
        // The writer asks at the moment of writing, so a batch queued before privacy mode was
        // switched on is not written after it.
        let in_force = Arc::clone(&config);
        let writes_allowed = move || read(&in_force).mode.allows_writes();
        Ok(Shared {
            reinforcer: Reinforcer::start(store.clone(), writes_allowed),
            store,
            data_dir,
            recall: RecallCache::default(),
            chat: ChatWorker::new(passes.exe().to_path_buf(), chat_env.idle),
            chat_env,
            relays: crate::chat::upstream::Relays::default(),
            passes,
            writers: tokio::sync::Semaphore::new(WRITERS),
            started: Instant::now(),
            logins: Arc::default(),
            config,
            overrides,
        })
    }

    pub fn config(&self) -> Config {
        read(&self.config).clone()
    }

    /// Re-read settings.json. Returns the old and new config when something changed; a file that
    /// does not parse is reported and the running config is kept.
    pub fn reload(&self) -> anyhow::Result<Option<(Config, Config)>> {
        let fresh = Config::load(&self.data_dir, &self.overrides)?;
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

    /// Whether recall would embed the query this turn (an embedding model is installed), which
    /// takes tens of milliseconds: callers on the async thread move that to the blocking pool.
    pub fn recall_embeds(&self) -> bool {
        models::embedder_path(&self.data_dir, &self.config().settings).is_some()
    }

    /// One turn's recall over the cached store. Writes nothing (reinforcement is the caller's).
    pub fn recall(&self, query: &Query, explain: bool) -> Result<Answer, StoreError> {
        let cached = self.recall.store(&self.store)?;
        if cached.records.is_empty() {
            return Ok(Answer::new(Recall::none(None), &[], explain));
        }
        let embedder = self.recall.embedder(models::embedder_path(
            &self.data_dir,
            &self.config().settings,
        ));
        let result = recall::run(&Input {
            records: &cached.records,
            index: &cached.index,
            vectors: cached.vectors.as_ref(),
            embedder: embedder.as_deref().map(|e| e as &dyn Embedder),
            query,
            now: Utc::now(),
        });
        Ok(Answer::new(result, &cached.records, explain))
    }
}

fn read(config: &RwLock<Config>) -> std::sync::RwLockReadGuard<'_, Config> {
    config.read().unwrap_or_else(|e| e.into_inner())
}
