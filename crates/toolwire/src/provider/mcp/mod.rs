//! Model Context Protocol: a tool as a `tools/list` entry. An MCP client's model is reached
//! through its host, so this shape runs no model of its own.

use serde_json::Value;

use super::shapes::{Definition, named};
use super::wire::Wire;
use crate::dialect::Dialect;

/// The `tools/list` entry, as [`Provider::Mcp`](super::Provider::Mcp) picks it.
pub(super) struct Format;

impl Wire for Format {
    fn name(&self) -> &'static str {
        "mcp"
    }

    fn label(&self) -> &'static str {
        "MCP"
    }

    fn title(&self) -> &'static str {
        "MCP `tools/list`"
    }

    fn dialect(&self, _strict: bool) -> Dialect {
        Dialect::Mcp
    }

    fn describe(&self, def: &Definition<'_>) -> Value {
        tool(def)
    }
}

/// `{"name", "title"?, "description"?, "inputSchema", "outputSchema"?, "annotations"?}`.
fn tool(def: &Definition<'_>) -> Value {
    let mut map = named(def);
    if let Some(title) = &def.annotations.title {
        map.insert("title".into(), title.as_str().into());
    }
    map.insert("inputSchema".into(), def.parameters.clone());
    if let Some(output_schema) = def.output_schema {
        map.insert("outputSchema".into(), output_schema.clone());
    }
    if !def.annotations.is_empty() {
        let annotations = serde_json::to_value(def.annotations).unwrap_or(Value::Null);
        map.insert("annotations".into(), annotations);
    }
    Value::Object(map)
}
