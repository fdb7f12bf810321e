//! The agent loop behind `toolwire run`: a model client for PROVIDER:MODEL, driving the
//! manifest's registry, with its events streamed to the terminal.
//!
//! Wiring `toolwire-agent` in is a change to [`run`] alone: make its model client from the
//! [`ModelSpec`], run its loop over the registry, and print each event as it comes. Until
//! that crate is built in, [`run`] fails with a clear error.

use toolwire::Registry;

use crate::cli::RunArgs;
use crate::exit::{CliError, Exit};

/// The providers a model can come from.
const PROVIDERS: [&str; 4] = ["openai", "responses", "anthropic", "gemini"];

/// A model named on the command line as PROVIDER:MODEL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModelSpec {
    /// The provider, one of [`PROVIDERS`].
    pub(crate) provider: String,
    /// The provider's model name.
    pub(crate) model: String,
}

impl ModelSpec {
    /// Reads `PROVIDER:MODEL`.
    ///
    /// # Errors
    ///
    /// A usage error naming what was expected.
    pub(crate) fn parse(text: &str) -> Result<Self, CliError> {
        let (provider, model) = text
            .split_once(':')
            .filter(|(provider, model)| PROVIDERS.contains(provider) && !model.is_empty())
            .ok_or_else(|| {
                CliError::usage(format!(
                    "invalid --model {text:?}: expected PROVIDER:MODEL with a provider among {}",
                    PROVIDERS.join(", ")
                ))
            })?;
        Ok(Self { provider: provider.to_owned(), model: model.to_owned() })
    }
}

/// Runs the agent loop on `args.prompt` with `registry`'s tools.
///
/// # Errors
///
/// Always, for now: the agent loop is not built into this binary yet.
pub(crate) async fn run(_registry: Registry, args: RunArgs) -> Result<Exit, CliError> {
    let spec = ModelSpec::parse(&args.model)?;
    Err(CliError::usage(format!(
        "the agent loop is not built into this toolwire yet (it comes with the toolwire-agent crate); \
         it would run {}:{} for at most {} turns",
        spec.provider, spec.model, args.max_turns
    )))
}
