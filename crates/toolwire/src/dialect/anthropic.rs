//! Anthropic strict mode: closed objects, `oneOf` as `anyOf`, `allOf` merged into one schema
//! (closing its branches one by one would refuse every value), and its subset of keywords
//! (`minItems` of 0 or 1 only); other keywords move into the description. Recursive
//! references and more than 24 optional properties are refused.

use serde_json::{Map, Value, json};

use super::all_of::{self, Outcome, Refs};
use super::refs::{Budget, reject_cycles};
use super::tuples::open_tuples;
use super::walk::{children, guard, is_object_schema, keep_only, subschemas, unify_branches};
use super::{Changes, CompileError, CompileErrorKind, Dialect};

const DIALECT: Dialect = Dialect::AnthropicStrict;

/// The keywords Anthropic's strict mode accepts.
const ALLOWED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "allOf",
    "$ref",
    "$defs",
    "definitions",
    "description",
    "title",
    "format",
    "minItems",
];

/// The string formats it accepts.
const FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];

/// The most optional properties strict mode takes (per request; here, per tool).
const MAX_OPTIONAL: usize = 24;

pub(super) fn strict(schema: &Value, changes: &mut Changes) -> Result<Value, CompileError> {
    reject_cycles(schema, DIALECT)?;
    let mut root = schema.clone();
    if root.as_object_mut().is_some_and(|map| map.remove("$schema").is_some()) {
        changes.note("", "removed `$schema`");
    }
    let mut pass = Strict { source: schema, budget: Budget::new(DIALECT), changes };
    pass.visit(&mut root, "", 0)?;
    let optional = count_optional(&root, "", 0);
    if optional > MAX_OPTIONAL {
        let problem = format!("{optional} optional properties in all; the limit is {MAX_OPTIONAL}");
        return Err(CompileError::new(DIALECT, CompileErrorKind::LimitExceeded, "", problem));
    }
    Ok(root)
}

/// The properties not listed in their object's `required`, in the whole of `node`.
fn count_optional(node: &Value, path: &str, depth: usize) -> usize {
    let Value::Object(map) = node else { return 0 };
    if depth > super::walk::MAX_DEPTH {
        return 0;
    }
    let required = map.get("required").and_then(Value::as_array);
    let is_required = |name: &String| required.is_some_and(|names| names.iter().any(|n| n == name));
    let here = match map.get("properties") {
        Some(Value::Object(properties)) => properties.keys().filter(|n| !is_required(n)).count(),
        _ => 0,
    };
    let below: usize = subschemas(map, path)
        .into_iter()
        .map(|(at, child)| count_optional(child, &at, depth + 1))
        .sum();
    here + below
}

struct Strict<'a> {
    /// The schema as written, which references point into.
    source: &'a Value,
    budget: Budget,
    changes: &'a mut Changes,
}

impl Strict<'_> {
    fn visit(&mut self, node: &mut Value, path: &str, depth: usize) -> Result<(), CompileError> {
        guard(DIALECT, depth, path)?;
        let Value::Object(map) = node else { return Ok(()) };
        self.merge(map, path)?;
        rewrite(map, path, self.changes);
        children(map, path, |child, at| self.visit(child, at, depth + 1))?;
        if is_object_schema(map) && map.get("additionalProperties") != Some(&Value::Bool(false)) {
            map.insert("additionalProperties".into(), Value::Bool(false));
            self.changes.note(path, "set `additionalProperties: false`");
        }
        Ok(())
    }

    /// Merges an `allOf`, or a `$ref` beside keywords that constrain (which means the same),
    /// into its node. One that cannot be merged is kept, unless more than one of its parts is
    /// an object: closed one by one, they would refuse each other's properties.
    fn merge(&mut self, map: &mut Map<String, Value>, path: &str) -> Result<(), CompileError> {
        if all_of::constrains_beside_ref(map)
            && !map.contains_key("allOf")
            && let Some(reference) = map.remove("$ref")
        {
            map.insert("allOf".into(), json!([{"$ref": reference}]));
        }
        let refs = Refs { source: self.source, budget: &mut self.budget, inlining: &[] };
        let Outcome::Kept(why) = all_of::merge(map, path, refs, self.changes)? else {
            return Ok(());
        };
        if all_of::objects(map, self.source) > 1 {
            let problem = format!(
                "`allOf` cannot be made one schema ({why}), and strict mode would close each of \
                 its objects, refusing every value"
            );
            return Err(CompileError::new(DIALECT, CompileErrorKind::Unsupported, path, problem));
        }
        self.changes
            .note(path, format!("kept the `allOf`, which cannot be made one schema ({why})"));
        Ok(())
    }
}

fn rewrite(map: &mut Map<String, Value>, path: &str, changes: &mut Changes) {
    unify_branches(map, path, changes);
    open_tuples(map, path, changes);
    let min_items = map.get("minItems").and_then(Value::as_u64);
    if let Some(count) = min_items.filter(|&n| n > 1) {
        map.remove("minItems");
        changes.note(path, format!("removed `minItems: {count}`; only 0 or 1 is supported"));
    }
    let format = map.get("format").and_then(Value::as_str).map(str::to_owned);
    if let Some(format) = format.filter(|f| !FORMATS.contains(&f.as_str())) {
        map.remove("format");
        changes.note(path, format!("removed the unsupported format `{format}`"));
    }
    keep_only(map, path, ALLOWED, changes);
}
