//! Anthropic's tool shape.

use serde_json::Value;

use crate::provider::shapes::{Definition, named, with_strict};

/// `{"name", "description"?, "input_schema", "input_examples"?, "strict"?, "cache_control"?}`.
pub(super) fn tool(def: &Definition<'_>) -> Value {
    let mut map = named(def);
    map.insert("input_schema".into(), def.anthropic_parameters.clone());
    if !def.input_examples.is_empty() {
        map.insert("input_examples".into(), Value::Array(def.input_examples.to_vec()));
    }
    with_strict(&mut map, def);
    if let Some(cache_control) = def.cache_control {
        map.insert("cache_control".into(), cache_control.clone());
    }
    Value::Object(map)
}
