//! Model Context Protocol `tools/list` entry.

use serde_json::Value;

use super::{Definition, named};

/// `{"name", "title"?, "description"?, "inputSchema", "outputSchema"?, "annotations"?}`.
pub(super) fn tool(def: &Definition<'_>) -> Value {
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
