//! OpenAI's tool shapes: the Chat Completions tool, and the flat function inside it.

use serde_json::{Map, Value, json};

use crate::provider::shapes::{Definition, named, with_strict};

/// `{"name", "description"?, "parameters", "strict"?}`.
pub(in crate::provider) fn flat(def: &Definition<'_>) -> Map<String, Value> {
    let mut map = named(def);
    map.insert("parameters".into(), def.openai_parameters.clone());
    with_strict(&mut map, def);
    map
}

/// `{"type": "function", "function": {flat}}`.
pub(super) fn nested(def: &Definition<'_>) -> Value {
    json!({"type": "function", "function": flat(def)})
}
