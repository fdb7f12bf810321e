//! The repetition guard: a model that keeps making the same call is stopped; and the
//! refusal of a call the agent will not run.

use std::collections::HashMap;
use std::sync::Arc;

use toolwire::{FailureKind, Receipt, ToolCall, ToolResult};

/// Counts each distinct call (tool and arguments) over a run.
#[derive(Debug, Default)]
pub(crate) struct Guard {
    limit: u32,
    seen: HashMap<(Arc<str>, String), u32>,
    /// The first call that went over the limit, and how often it was made.
    pub(crate) tripped: Option<(String, u32)>,
}

impl Guard {
    /// A guard that allows each distinct call `limit` times; 0 allows any number.
    pub(crate) fn new(limit: u32) -> Self {
        Self { limit, ..Self::default() }
    }

    /// Counts `call`; the receipt of a refusal when it went over the limit.
    pub(crate) fn admit(&mut self, call: &ToolCall) -> Option<Receipt> {
        if self.limit == 0 {
            return None;
        }
        let key = (Arc::clone(&call.tool), call.arguments.to_string());
        let times = self.seen.entry(key).or_default();
        *times += 1;
        if *times <= self.limit {
            return None;
        }
        let times = *times;
        self.tripped.get_or_insert_with(|| (call.tool.to_string(), times));
        let text = format!(
            "not run: {:?} was called with the same arguments {times} times, more than the limit of {}",
            &*call.tool, self.limit
        );
        Some(refusal(call, text))
    }
}

/// The receipt of a call the agent refused to run, saying why.
pub(crate) fn refusal(call: &ToolCall, text: String) -> Receipt {
    let mut receipt = Receipt::never_ran(call, ToolResult::failed(FailureKind::Denied, text));
    receipt.call_id = Some(call.call_id.clone());
    receipt
}
