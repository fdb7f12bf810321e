//! The JSON paths Gemini names streamed arguments by (`PartialArg.jsonPath`, RFC 9535, such as
//! `$.foo.bar[0].data`): the subset of plain member names and array indexes, and setting a
//! value at one.

use serde_json::{Map, Value};

/// The largest array index a path may name; a stream of arguments never needs more.
const MAX_INDEX: usize = 4096;

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// Sets `value` at `path` under `root`, making the objects and arrays on the way. A string
/// is appended to the string already there when `append`.
pub(super) fn set(root: &mut Value, path: &str, value: Value, append: bool) -> Result<(), String> {
    let steps = parse(path).ok_or_else(|| format!("unreadable jsonPath {path:?}"))?;
    let Some((last, within)) = steps.split_last() else {
        return Err(format!("jsonPath {path:?} names no argument"));
    };
    let mut here = root;
    for step in within {
        here = slot(here, step)
            .ok_or_else(|| format!("jsonPath {path:?} crosses a value of another type"))?;
    }
    let target = slot(here, last)
        .ok_or_else(|| format!("jsonPath {path:?} crosses a value of another type"))?;
    match (target, value) {
        (Value::String(text), Value::String(more)) if append => text.push_str(&more),
        (target, value) => *target = value,
    }
    Ok(())
}

/// The value `step` names inside `here`, made (as null) when absent; `None` when `here` is
/// neither absent nor a container of the step's kind.
fn slot<'a>(here: &'a mut Value, step: &Step) -> Option<&'a mut Value> {
    match step {
        Step::Key(key) => {
            if here.is_null() {
                *here = Value::Object(Map::new());
            }
            Some(here.as_object_mut()?.entry(key.clone()).or_insert(Value::Null))
        }
        Step::Index(index) => {
            if here.is_null() {
                *here = Value::Array(Vec::new());
            }
            let items = here.as_array_mut()?;
            if items.len() <= *index {
                items.resize(index + 1, Value::Null);
            }
            items.get_mut(*index)
        }
    }
}

/// The steps of `path`, or `None` when it is outside the subset.
fn parse(path: &str) -> Option<Vec<Step>> {
    let mut rest = path.strip_prefix('$')?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        let (step, after) = if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            (Step::Key(after[..end].to_owned()), &after[end..])
        } else {
            bracket(rest.strip_prefix('[')?)?
        };
        if step == Step::Key(String::new()) {
            return None;
        }
        steps.push(step);
        rest = after;
    }
    Some(steps)
}

/// A bracketed step, `'name'`, `"name"` or `N`, after its `[`; and what follows its `]`.
fn bracket(inner: &str) -> Option<(Step, &str)> {
    if let Some(quote) = inner.chars().next().filter(|c| *c == '\'' || *c == '"') {
        let body = &inner[1..];
        let mut key = String::new();
        let mut chars = body.char_indices();
        while let Some((at, c)) = chars.next() {
            match c {
                '\\' => key.push(chars.next()?.1),
                c if c == quote => {
                    return Some((Step::Key(key), body[at + 1..].strip_prefix(']')?));
                }
                c => key.push(c),
            }
        }
        return None;
    }
    let end = inner.find(']')?;
    let index: usize = inner[..end].parse().ok().filter(|index| *index <= MAX_INDEX)?;
    Some((Step::Index(index), &inner[end + 1..]))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::set;

    #[test]
    fn paths_in_the_subset_set_values_and_join_strings() {
        let mut args = serde_json::Value::Null;
        assert!(set(&mut args, "$.trip.stops[1]['name']", json!("Os"), false).is_ok());
        assert!(set(&mut args, "$.trip.stops[1]['name']", json!("lo"), true).is_ok());
        assert!(set(&mut args, "$[\"a.b\"]", json!(true), false).is_ok());
        assert_eq!(args, json!({"trip": {"stops": [null, {"name": "Oslo"}]}, "a.b": true}));
        assert!(set(&mut args, "$.trip[0]", json!(1), false).is_err());
        assert!(set(&mut args, "trip", json!(1), false).is_err());
        assert!(set(&mut args, "$", json!(1), false).is_err());
        assert!(set(&mut args, "$.x[99999999]", json!(1), false).is_err());
    }
}
