//! The application state handed to calls, kept with its type erased.

use std::any::Any;
use std::sync::Arc;

use serde_json::Value;
use toolwire::{CallOptions, Provider, Registry, Tool};

type Definitions = Arc<dyn Fn(&Registry, Provider) -> Vec<Value> + Send + Sync>;
type Active = Arc<dyn Fn(&Tool) -> bool + Send + Sync>;

/// The state every call gets, as call options, and the loaded tools active for it (the
/// deferred ones are sent once found, see `catalog`).
#[derive(Clone)]
pub(crate) struct AppState {
    options: CallOptions,
    definitions: Definitions,
    active: Active,
}

impl AppState {
    /// No state: every call gets none, and the tools active without state are listed.
    pub(crate) fn none() -> Self {
        let definitions: Definitions = Arc::new(|registry, provider| {
            registry.loaded_definitions(provider, &()).into_iter().cloned().collect()
        });
        Self {
            options: CallOptions::new(),
            definitions,
            active: Arc::new(|tool| tool.is_active(&())),
        }
    }

    pub(crate) fn new<S: Any + Send + Sync>(state: Arc<S>) -> Self {
        let listed = Arc::clone(&state);
        let checked = Arc::clone(&state);
        Self {
            active: Arc::new(move |tool| tool.is_active(&*checked)),
            options: CallOptions::new().state(state),
            definitions: Arc::new(move |registry, provider| {
                registry.loaded_definitions(provider, &*listed).into_iter().cloned().collect()
            }),
        }
    }

    /// The options every call starts from: the state, if any.
    pub(crate) fn options(&self) -> CallOptions {
        self.options.clone()
    }

    pub(crate) fn definitions(&self, registry: &Registry, provider: Provider) -> Vec<Value> {
        (self.definitions)(registry, provider)
    }

    /// Whether `tool` is active for the state: a deferred tool that is not is neither found
    /// by a search nor sent.
    pub(crate) fn is_active(&self, tool: &Tool) -> bool {
        (self.active)(tool)
    }
}
