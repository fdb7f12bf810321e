//! The stand-in of a tool that cannot be trusted or reached: it keeps the name, so a call
//! gets the reason rather than "unknown tool", and refuses every call.

use serde_json::json;
use toolwire::{FailureKind, Tool, ToolResult};

/// A tool named `name` whose every call fails as denied, saying `why`; `None` when the
/// name cannot be a tool's.
pub(crate) fn refusing(name: &str, why: String) -> Option<Tool> {
    let tool = Tool::define(name)
        .description(format!("Unavailable: {why}"))
        .parameters(json!({"type": "object"}))
        .execute_sync(move |_, _| ToolResult::failed(FailureKind::Denied, why.clone()))
        .build();
    tool.ok()
}
