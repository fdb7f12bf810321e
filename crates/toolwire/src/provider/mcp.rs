//! Model Context Protocol `tools/list` entry.

use serde_json::Value;

use super::{Definition, named};

/// `{"name", "description"?, "inputSchema"}`.
pub(super) fn tool(def: &Definition<'_>) -> Value {
    let mut map = named(def);
    map.insert("inputSchema".into(), def.parameters.clone());
    Value::Object(map)
}
