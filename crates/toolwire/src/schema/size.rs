//! The size a schema may have: a cap on its JSON values, so a tool's schemas stay small enough
//! to check, compile and send.

use serde_json::Value;

use super::limits::escape;

/// The most JSON values (objects, arrays, strings, numbers, booleans, nulls) a parameter or
/// output schema may hold, as in the OpenAI Agents SDK.
pub(crate) const MAX_SCHEMA_NODES: usize = 100_000;

/// The deepest a parameter or output schema may nest, as in the OpenAI Agents SDK.
pub(crate) const MAX_SCHEMA_DEPTH: usize = 100;

/// Fails when `schema` holds more than [`MAX_SCHEMA_NODES`] values, naming the value where
/// the count passed the limit. `schema` must already be known to nest at most
/// [`MAX_SCHEMA_DEPTH`] deep.
pub(crate) fn check_schema_nodes(schema: &Value) -> Result<(), String> {
    let mut left = MAX_SCHEMA_NODES;
    let mut path = Vec::new();
    if within(schema, &mut left, &mut path) {
        return Ok(());
    }
    let at = if path.is_empty() { "(root)".to_owned() } else { path.concat() };
    Err(format!("{at}: the schema holds more than {MAX_SCHEMA_NODES} values, the limit"))
}

/// Spends one of `left` per value, in document order; when none is left, `path` holds the
/// pointer segments of the value that passed the limit.
fn within(value: &Value, left: &mut usize, path: &mut Vec<String>) -> bool {
    let Some(rest) = left.checked_sub(1) else { return false };
    *left = rest;
    let mut each = |segment: String, child: &Value| {
        path.push(segment);
        let fits = within(child, left, path);
        if fits {
            path.pop();
        }
        fits
    };
    match value {
        Value::Array(items) => {
            items.iter().enumerate().all(|(i, item)| each(format!("/{i}"), item))
        }
        Value::Object(map) => map.iter().all(|(key, item)| each(format!("/{}", escape(key)), item)),
        _ => true,
    }
}
