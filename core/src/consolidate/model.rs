//! The pass's model: loaded on first use (a pass with nothing to do loads none), with the calls,
//! tokens and time it used counted for the report.

use std::time::Duration;

use super::report::ModelUse;
use crate::models::{Generation, Generator, Message, ModelError};

/// Loads the generator on first use, so a pass with nothing to do loads no model.
pub type LoadGenerator<'g> = Box<dyn FnOnce() -> Result<Box<dyn Generator + 'g>, ModelError> + 'g>;

pub(super) struct Model<'g, 'c> {
    load: Option<LoadGenerator<'g>>,
    /// The pass's clock (the caller's), for the load time.
    elapsed: &'c dyn Fn() -> Duration,
    loaded: Option<Box<dyn Generator + 'g>>,
    pub(super) usage: ModelUse,
}

impl<'g, 'c> Model<'g, 'c> {
    pub(super) fn new(load: LoadGenerator<'g>, elapsed: &'c dyn Fn() -> Duration) -> Model<'g, 'c> {
        Model {
            load: Some(load),
            elapsed,
            loaded: None,
            usage: ModelUse::default(),
        }
    }

    pub(super) fn generate(
        &mut self,
        messages: &[Message],
        grammar: &str,
        max: usize,
    ) -> Result<Generation, ModelError> {
        self.generate_drafted(messages, grammar, max, None)
    }

    /// [`Model::generate`] with a guess at the reply ([`Generator::generate_drafted`]).
    pub(super) fn generate_drafted(
        &mut self,
        messages: &[Message],
        grammar: &str,
        max: usize,
        draft: Option<&str>,
    ) -> Result<Generation, ModelError> {
        let generator = match &mut self.loaded {
            Some(g) => g,
            None => {
                let load = self
                    .load
                    .take()
                    .ok_or_else(|| ModelError("the model could not be loaded".into()))?;
                let t = (self.elapsed)();
                let g = self.loaded.insert(load()?);
                self.usage.load_ms = ((self.elapsed)() - t).as_secs_f64() * 1e3;
                g
            }
        };
        let g = generator.generate_drafted(messages, grammar, max, draft)?;
        self.usage.calls += 1;
        self.usage.prompt_tokens += g.prompt_tokens;
        self.usage.cached_tokens += g.cached_tokens;
        self.usage.gen_tokens += g.gen_tokens;
        self.usage.drafted_tokens += g.drafted_tokens;
        self.usage.prompt_ms += g.prompt_ms;
        self.usage.gen_ms += g.gen_ms;
        Ok(g)
    }
}
