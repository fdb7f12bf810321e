//! The caller's application state, handed to hooks and handlers.
//!
//! # Why a type-erased value and not `Registry<S>` / `ToolContext<S>`
//!
//! The state is one `Arc<dyn Any + Send + Sync>`, set per call with `.state(Arc::new(app))`
//! and read back, typed, with [`ToolContext::state::<S>()`](crate::ToolContext::state). The
//! alternative, a generic `S` on `Tool`, `ToolContext` and `Registry`, would check the type at
//! compile time, but:
//!
//! - tools written by different crates, each for its own state type or none, could not share
//!   one registry, and a tool library would have to be generic over every host's state;
//! - every handler signature, even of tools that never read state, would carry the parameter;
//! - the core types that users name most (`Tool`, `ToolContext`) would stop being plain types.
//!
//! The price is a check at run time, once per access: a `TypeId` comparison. A handler that
//! asks for a type the caller did not give gets `None`, and a tool whose
//! [`active`](crate::ToolBuilder::active) condition needs a state it did not get counts as
//! inactive, so a mismatch is a readable failure, never a panic.

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
