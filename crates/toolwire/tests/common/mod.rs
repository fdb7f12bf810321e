//! Helpers shared by the behaviour tests.

use std::sync::{Arc, Mutex};

use toolwire::{AbortSignal, Tool, ToolContext, ToolResult};

/// The signal a handler received, kept for the test to inspect.
#[derive(Clone, Default)]
pub(crate) struct KeptSignal(Arc<Mutex<Option<AbortSignal>>>);

impl KeptSignal {
    /// The signal the handler was given; panics if the handler has not run.
    pub(crate) fn get(&self) -> AbortSignal {
        self.0.lock().unwrap().clone().expect("the handler ran")
    }
}

/// A tool named `name` whose handler keeps its signal and never finishes.
pub(crate) fn signal_keeper(name: &str) -> (Tool, KeptSignal) {
    let kept = KeptSignal::default();
    let slot = kept.clone();
    let tool = Tool::define(name)
        .execute(move |_, ctx: ToolContext| {
            *slot.0.lock().unwrap() = Some(ctx.signal().clone());
            std::future::pending::<ToolResult>()
        })
        .build()
        .unwrap();
    (tool, kept)
}
