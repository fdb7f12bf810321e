//! The application state handed to calls, kept with its type erased.

use std::any::Any;
use std::sync::Arc;

use serde_json::Value;
use toolwire::{Dispatch, Invocation, Provider, Registry};

type Apply<T> = Arc<dyn Fn(T) -> T + Send + Sync>;
type Definitions = Arc<dyn Fn(&Registry, Provider) -> Vec<Value> + Send + Sync>;

/// Hands the state to invocations and dispatches, and lists the tools active for it.
#[derive(Clone)]
pub(crate) struct AppState {
    invoke: Option<Apply<Invocation>>,
    dispatch: Option<Apply<Dispatch>>,
    definitions: Definitions,
}

impl AppState {
    /// No state: every call gets none, and the tools active without state are listed.
    pub(crate) fn none() -> Self {
        let definitions: Definitions = Arc::new(|registry, provider| {
            registry.definitions(provider, &()).into_iter().cloned().collect()
        });
        Self { invoke: None, dispatch: None, definitions }
    }

    pub(crate) fn new<S: Any + Send + Sync>(state: Arc<S>) -> Self {
        let (one, many, listed) = (Arc::clone(&state), Arc::clone(&state), state);
        Self {
            invoke: Some(Arc::new(move |call: Invocation| call.state(Arc::clone(&one)))),
            dispatch: Some(Arc::new(move |calls: Dispatch| calls.state(Arc::clone(&many)))),
            definitions: Arc::new(move |registry, provider| {
                registry.definitions(provider, &*listed).into_iter().cloned().collect()
            }),
        }
    }

    pub(crate) fn invocation(&self, call: Invocation) -> Invocation {
        match &self.invoke {
            Some(apply) => apply(call),
            None => call,
        }
    }

    pub(crate) fn dispatch(&self, calls: Dispatch) -> Dispatch {
        match &self.dispatch {
            Some(apply) => apply(calls),
            None => calls,
        }
    }

    pub(crate) fn definitions(&self, registry: &Registry, provider: Provider) -> Vec<Value> {
        (self.definitions)(registry, provider)
    }
}
