//! Why a guard refused a candidate fact or summary: one kind per rule of
//! `consolidate::guard`, with the text shown to the user, counted by kind in the pass report.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The rule that refused a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    /// Rule 1: a word n-gram repeated (the model looping).
    Loop,
    /// Rule 2: an assistant's opener or a second-person pronoun.
    AssistantVoice,
    /// Rule 2: a first-person pronoun.
    FirstPerson,
    /// Rule 3: too few content words to say anything about the user.
    Fragment,
    /// Rule 4: a name the assistant used and the user never typed.
    AboutAssistant,
    /// Rule 5: copied from the prompt's few-shot examples.
    ExampleCopy,
    /// Rule 6: too few of its words occur in what the user typed.
    Ungrounded,
    /// A secret (a PIN, a password, a key, a card or account number: `crate::secret`), never
    /// stored.
    Secret,
}

/// How many candidates each rule refused in one pass (kinds that refused nothing are absent).
pub type RefusalCounts = BTreeMap<Refusal, usize>;

impl Refusal {
    /// The reason as the user reads it (in `skipped` lines and reports).
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::Loop => "a repetition loop",
            Refusal::AssistantVoice => "written in the assistant's voice",
            Refusal::FirstPerson => "written as 'I' or 'we', not about the user",
            Refusal::Fragment => "a fragment that says nothing about the user",
            Refusal::AboutAssistant => "about the assistant, not the user",
            Refusal::ExampleCopy => "copied from the prompt's example, not the user's chat",
            Refusal::Ungrounded => "not grounded in the user's own words",
            Refusal::Secret => "holds a secret (a PIN, password, key, card or account number)",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
