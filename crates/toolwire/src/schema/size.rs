//! The size a schema may have: caps on its JSON values and on how deep its subschemas nest,
//! so a tool's schemas stay small enough to check, compile and send.

use serde_json::Value;

use crate::pointer::escape;

/// The most JSON values (objects, arrays, strings, numbers, booleans, nulls) a parameter or
/// output schema may hold, as in the OpenAI Agents SDK.
pub(crate) const MAX_SCHEMA_NODES: usize = 100_000;

/// The deepest subschemas of a parameter or output schema may nest (the root is level 1), as
/// in the OpenAI Agents SDK.
pub(crate) const MAX_SCHEMA_DEPTH: usize = 100;

/// Keywords whose value is a map of subschemas.
const MAPS: [&str; 5] =
    ["properties", "$defs", "definitions", "patternProperties", "dependentSchemas"];
/// Keywords whose value is a subschema or a list of them.
const NESTS: [&str; 14] = [
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "anyOf",
    "oneOf",
    "allOf",
    "prefixItems",
    "unevaluatedItems",
    "unevaluatedProperties",
];

/// Fails when `schema` is too large: more than [`MAX_SCHEMA_NODES`] values, or subschemas
/// nested deeper than [`MAX_SCHEMA_DEPTH`]; the message names the limit and where it was
/// passed. `schema` must already be known to nest shallowly enough as JSON to be walked.
pub(crate) fn check_schema_size(schema: &Value) -> Result<(), String> {
    check_schema_nodes(schema)?;
    let mut path = Vec::new();
    if shallow(schema, 1, &mut path) {
        return Ok(());
    }
    Err(format!("{}: subschemas nested deeper than {MAX_SCHEMA_DEPTH} levels", pointer(&path)))
}

/// Whether the subschemas of `schema`, at `level`, nest no deeper than [`MAX_SCHEMA_DEPTH`];
/// when they do, `path` holds the pointer segments of the first one too deep.
fn shallow(schema: &Value, level: usize, path: &mut Vec<String>) -> bool {
    if level > MAX_SCHEMA_DEPTH {
        return false;
    }
    let Value::Object(map) = schema else { return true };
    let mut each = |segment: String, child: &Value| {
        path.push(segment);
        let fits = shallow(child, level + 1, path);
        if fits {
            path.pop();
        }
        fits
    };
    let under_maps = MAPS.iter().filter_map(|key| Some((*key, map.get(*key)?.as_object()?)));
    for (key, children) in under_maps {
        for (name, child) in children {
            if !each(format!("/{key}/{}", escape(name)), child) {
                return false;
            }
        }
    }
    for key in NESTS {
        let fits = match map.get(key) {
            Some(Value::Array(list)) => {
                list.iter().enumerate().all(|(i, child)| each(format!("/{key}/{i}"), child))
            }
            Some(child) => each(format!("/{key}"), child),
            None => true,
        };
        if !fits {
            return false;
        }
    }
    true
}

/// `segments` as a JSON pointer, `(root)` when empty.
fn pointer(segments: &[String]) -> String {
    if segments.is_empty() { "(root)".to_owned() } else { segments.concat() }
}

/// Fails when `schema` holds more than [`MAX_SCHEMA_NODES`] values, naming the value where
/// the count passed the limit.
fn check_schema_nodes(schema: &Value) -> Result<(), String> {
    let mut left = MAX_SCHEMA_NODES;
    let mut path = Vec::new();
    if within(schema, &mut left, &mut path) {
        return Ok(());
    }
    Err(format!(
        "{}: the schema holds more than {MAX_SCHEMA_NODES} values, the limit",
        pointer(&path)
    ))
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
