//! The caller's application state, handed to hooks and handlers. Why it is a type-erased
//! value and not a generic parameter is told in the [`registry`](crate::registry) module docs.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// A type-erased, shared application state; cloning it is a reference-count bump.
#[derive(Clone, Default)]
pub(crate) struct State(Option<Arc<dyn Any + Send + Sync>>);

impl State {
    pub(crate) fn new<S: Any + Send + Sync>(state: Arc<S>) -> Self {
        Self(Some(state))
    }

    /// The state, if there is one, for conditions that downcast it.
    pub(crate) fn as_any(&self) -> Option<&dyn Any> {
        self.0.as_deref().map(|state| state as &dyn Any)
    }

    /// The state as `S`, if the caller gave one of that type.
    pub(crate) fn get<S: Any>(&self) -> Option<&S> {
        self.0.as_deref()?.downcast_ref()
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() { "State(..)" } else { "State(none)" })
    }
}
