//! [`Dialects`]: a tool's parameters compiled for each dialect, lazily, once each.

use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::{CompileError, Compiled, Dialect, compile};

/// The outcome of one compilation, as it is kept.
type Outcome = OnceLock<Result<Compiled, CompileError>>;

/// A schema compiled for a dialect on first use, and kept: a tool pays only for the dialects
/// it is described in.
#[derive(Debug)]
pub(crate) struct Dialects {
    source: Arc<Value>,
    openai_strict: Outcome,
    anthropic: Outcome,
    anthropic_strict: Outcome,
    gemini: Outcome,
    mcp: Outcome,
}

impl Dialects {
    /// Keeps `source`, compiling nothing yet.
    pub(crate) fn new(source: Arc<Value>) -> Self {
        Self {
            source,
            openai_strict: OnceLock::new(),
            anthropic: OnceLock::new(),
            anthropic_strict: OnceLock::new(),
            gemini: OnceLock::new(),
            mcp: OnceLock::new(),
        }
    }

    /// The schema compiled for `dialect`, compiled now if it is the first time.
    pub(crate) fn get(&self, dialect: Dialect) -> Result<&Compiled, &CompileError> {
        let outcome = match dialect {
            Dialect::OpenAiStrict => &self.openai_strict,
            Dialect::Anthropic => &self.anthropic,
            Dialect::AnthropicStrict => &self.anthropic_strict,
            Dialect::Gemini => &self.gemini,
            Dialect::Mcp => &self.mcp,
        };
        outcome.get_or_init(|| compile(&self.source, dialect)).as_ref()
    }
}
