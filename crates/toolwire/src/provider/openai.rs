//! OpenAI function shapes: nested (Chat Completions) and flat.

use serde_json::{Map, Value, json};

use super::{Definition, named, with_strict};

/// `{"name", "description"?, "parameters", "strict"?}`.
pub(super) fn flat(def: &Definition<'_>) -> Map<String, Value> {
    let mut map = named(def);
    map.insert("parameters".into(), def.parameters.clone());
    with_strict(&mut map, def);
    map
}

/// `{"type": "function", "function": {flat}}`.
pub(super) fn nested(def: &Definition<'_>) -> Value {
    json!({"type": "function", "function": flat(def)})
}
