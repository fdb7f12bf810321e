//! Where a change was made, as a pointer into the schema the user wrote.
//!
//! A compilation walks the schema it is rewriting, so the paths it notes can name nodes the
//! user never wrote: the children of an inlined `$ref` or of a merged `allOf`, or the `anyOf`
//! a `oneOf` became. [`locate`] maps such a path back onto the source schema.

use serde_json::Value;

/// How many references one path may pass through, so reference loops end.
const MAX_FOLLOWS: usize = 16;

/// The pointer in `source` that `path` (noted while compiling it) stands for: `anyOf` indices
/// past the written `anyOf` go back to the `oneOf` they came from, a path through an inlined
/// `$ref` goes on in the definition it points at, one through a merged `allOf` in the branch
/// (or the branch's definition) that has the next step, and what is left (a node the
/// compilation made) is reported at the nearest written node.
pub(super) fn locate(source: &Value, path: &str) -> String {
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let mut at = String::new();
    let mut node = source;
    let mut follows = 0;
    let mut i = 0;
    while let Some(&segment) = segments.get(i) {
        let next = segments.get(i + 1).copied();
        if let Some((written, child, used)) = step(node, segment, next) {
            at.push_str(&written);
            node = child;
            i += used;
            continue;
        }
        let found = referred(source, node).or_else(|| branch(source, node, segment, next));
        match found {
            Some((Place::At(pointer), target)) if follows < MAX_FOLLOWS => {
                pointer.clone_into(&mut at);
                node = target;
                follows += 1;
            }
            Some((Place::Below(written), target)) => {
                at.push_str(&written);
                node = target;
            }
            _ => break,
        }
    }
    at
}

/// Where a path goes on when its next step is not written at a node: at a pointer of its own,
/// or below the node.
enum Place<'a> {
    At(&'a str),
    Below(String),
}

/// What the local `$ref` of `node` points at.
fn referred<'a>(source: &'a Value, node: &'a Value) -> Option<(Place<'a>, &'a Value)> {
    let pointer = node.get("$ref")?.as_str()?.strip_prefix('#')?;
    Some((Place::At(pointer), source.pointer(pointer)?))
}

/// The branch of the `allOf` of `node` that `segment` (and `next`) steps into, or the
/// definition such a branch refers to.
fn branch<'a>(
    source: &'a Value,
    node: &'a Value,
    segment: &str,
    next: Option<&str>,
) -> Option<(Place<'a>, &'a Value)> {
    let branches = node.get("allOf")?.as_array()?;
    branches.iter().enumerate().find_map(|(i, branch)| {
        if step(branch, segment, next).is_some() {
            return Some((Place::Below(format!("/allOf/{i}")), branch));
        }
        referred(source, branch).filter(|(_, target)| step(target, segment, next).is_some())
    })
}

/// One step from `node` along `segment` (and, for `anyOf`, the index `next`): the written
/// pointer segments, the child, and how many segments were used.
fn step<'a>(
    node: &'a Value,
    segment: &str,
    next: Option<&str>,
) -> Option<(String, &'a Value, usize)> {
    if segment == "anyOf"
        && let Some(found) = any_of_step(node, next)
    {
        return Some(found);
    }
    let child = match node {
        Value::Object(map) => map.get(&segment.replace("~1", "/").replace("~0", "~"))?,
        Value::Array(items) => items.get(segment.parse::<usize>().ok()?)?,
        _ => return None,
    };
    Some((format!("/{segment}"), child, 1))
}

/// `anyOf/i` when the written `anyOf` has an `i`th branch, else the `oneOf` branch it was.
fn any_of_step<'a>(node: &'a Value, next: Option<&str>) -> Option<(String, &'a Value, usize)> {
    let index = next?.parse::<usize>().ok()?;
    let written = node.get("anyOf").and_then(Value::as_array).map_or(0, Vec::len);
    if index < written {
        return Some((format!("/anyOf/{index}"), node.get("anyOf")?.get(index)?, 2));
    }
    let from = index - written;
    Some((format!("/oneOf/{from}"), node.get("oneOf")?.get(from)?, 2))
}
