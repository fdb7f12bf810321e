//! Tuples for dialects without `prefixItems`: the positions cannot be checked, but every tuple
//! the schema accepted is still accepted.

use serde_json::{Map, Value, json};

use super::Changes;
use super::walk::describe;

/// Replaces `prefixItems` by an `items` that takes any of the prefix's schemas (and the
/// schema of the items after them, if any), keeping the prefix in the description. A closed
/// tuple (`items: false`) keeps its length as `maxItems`.
pub(super) fn open_tuples(map: &mut Map<String, Value>, path: &str, changes: &mut Changes) {
    let Some(Value::Array(mut branches)) = map.remove("prefixItems") else { return };
    describe(map, &format!("prefixItems: {}", Value::Array(branches.clone())));
    let closed = match map.remove("items") {
        Some(Value::Bool(false)) => true,
        None | Some(Value::Bool(true)) => {
            changes.note(path, "removed `prefixItems`; kept in the description");
            return;
        }
        Some(rest) => {
            branches.push(rest);
            false
        }
    };
    if closed && !map.contains_key("maxItems") {
        map.insert("maxItems".into(), json!(branches.len()));
    }
    let items = match <[Value; 1]>::try_from(branches) {
        Ok([only]) => only,
        Err(branches) => json!({"anyOf": branches}),
    };
    map.insert("items".into(), items);
    changes.note(
        path,
        "`prefixItems` became an `items` that takes any of its schemas (the positions are not \
         checked); kept in the description",
    );
}
