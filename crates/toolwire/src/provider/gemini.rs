//! Gemini `functionDeclaration`.

use serde_json::Value;

use super::{Definition, named};

/// `{"name", "description"?, "parametersJsonSchema"}`.
///
/// Gemini's `parametersJsonSchema` takes JSON Schema as it is, so every valid parameter
/// schema is described faithfully. (Its other field, `parameters`, takes only an OpenAPI
/// subset and rejects many JSON Schema keywords.)
pub(super) fn function_declaration(def: &Definition<'_>) -> Value {
    let mut map = named(def);
    map.insert("parametersJsonSchema".into(), def.parameters.clone());
    Value::Object(map)
}
