//! Model Context Protocol `tools/list` entry.

use serde_json::Value;

use super::{Definition, named};

/// `{"name", "description"?, "inputSchema", "outputSchema"?}`.
pub(super) fn tool(def: &Definition<'_>) -> Value {
    let mut map = named(def);
    map.insert("inputSchema".into(), def.parameters.clone());
    if let Some(output_schema) = def.output_schema {
        map.insert("outputSchema".into(), output_schema.clone());
    }
    Value::Object(map)
}
