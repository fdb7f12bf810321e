//! Balancing a turn: exactly one result for every call the model made.

use std::collections::{HashMap, VecDeque};

use crate::record::{CallId, Receipt, ToolCall};
use crate::record::{FailureKind, ToolResult};

/// The text of the result filled in for a call that has none.
pub const MISSING_RESULT: &str = "the call did not complete";

/// Returns exactly one receipt per call, in call order, so the provider conversation stays
/// balanced: an assistant turn with N calls gets N results.
///
/// Receipts are matched to calls by call id, and calls without an id by order among
/// themselves. (Every parser here gives each call an id, Gemini's included; a call made by
/// hand may have none.) A call with no receipt, for example because its turn was
/// cancelled, gets an [`Aborted`](FailureKind::Aborted) one saying [`MISSING_RESULT`];
/// receipts that match no call are dropped.
pub fn repair(calls: &[ToolCall], receipts: Vec<Receipt>) -> Vec<Receipt> {
    let mut by_id: HashMap<CallId, VecDeque<Receipt>> = HashMap::new();
    let mut unnamed = VecDeque::new();
    for receipt in receipts {
        match receipt.call_id.clone().filter(|id| !id.is_empty()) {
            Some(id) => by_id.entry(id).or_default().push_back(receipt),
            None => unnamed.push_back(receipt),
        }
    }
    calls
        .iter()
        .map(|call| {
            let found = if call.call_id.is_empty() {
                unnamed.pop_front()
            } else {
                by_id.get_mut(call.call_id.as_str()).and_then(VecDeque::pop_front)
            };
            found.unwrap_or_else(|| missing(call))
        })
        .collect()
}

/// The receipt of a call that has none.
fn missing(call: &ToolCall) -> Receipt {
    Receipt::never_ran(call, ToolResult::failed(FailureKind::Aborted, MISSING_RESULT))
}
