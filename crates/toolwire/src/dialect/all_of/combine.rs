//! The parts of an `allOf` combined into one schema that accepts exactly the values every part
//! accepts. A keyword of one part is taken as it is, and one that parts repeat with the same
//! value once; otherwise `type`s and `enum`s intersect, `required`s join, bounds keep the
//! tighter one, and annotations the first. `properties` (each part's `additionalProperties`
//! standing in for the names it does not list) and `items` become an `allOf` of their own,
//! merged in turn when their node is compiled. Anything else that parts give different values,
//! or keywords that read each other coming from different parts, cannot be combined.

use serde_json::{Map, Value, json};

/// Keywords that describe and constrain nothing: the first part's is kept.
pub(super) const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "example",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];
/// Lower bounds: the greatest is kept.
const LOWER: &[&str] = &["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"];
/// Upper bounds: the least is kept.
const UPPER: &[&str] = &["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"];
/// Keywords whose meaning depends on what else is evaluated around them, which a merge changes.
const OPAQUE: &[&str] = &[
    "unevaluatedProperties",
    "unevaluatedItems",
    "$id",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
];
/// Keywords that read each other, so must all come from one part; the second keyword, when
/// given, is the one whose presence makes them read each other.
const GROUPS: &[(&[&str], Option<&str>)] = &[
    (&["if", "then", "else"], None),
    (&["contains", "minContains", "maxContains"], None),
    (&["anyOf", "oneOf"], None),
    (&["prefixItems", "items"], Some("prefixItems")),
    (&["properties", "patternProperties", "additionalProperties"], Some("patternProperties")),
];

/// One schema for all of `sources`, or why there is none.
pub(super) fn combine(sources: Vec<Map<String, Value>>) -> Result<Map<String, Value>, String> {
    check(&sources)?;
    let mut merged = objects(&sources);
    for source in sources {
        for (key, value) in source {
            if matches!(key.as_str(), "properties" | "additionalProperties") {
                continue;
            }
            match merged.get_mut(&key) {
                Some(have) => keyword(&key, have, value)?,
                None => {
                    merged.insert(key, value);
                }
            }
        }
    }
    Ok(merged)
}

/// Fails for what no merge can keep the meaning of.
fn check(sources: &[Map<String, Value>]) -> Result<(), String> {
    let has = |key: &str| sources.iter().any(|source| source.contains_key(key));
    if let Some(key) = OPAQUE.iter().find(|key| has(key)) {
        return Err(format!("`{key}` depends on what its branches evaluate"));
    }
    if sources.iter().any(|s| s.get("properties").is_some_and(|p| !p.is_object())) {
        return Err("a branch's `properties` is not an object".into());
    }
    for (group, trigger) in GROUPS {
        if trigger.is_some_and(|trigger| !has(trigger)) {
            continue;
        }
        let from = sources.iter().filter(|s| group.iter().any(|key| s.contains_key(*key)));
        if from.count() > 1 {
            return Err(format!("`{}` come from more than one branch", group.join("`, `")));
        }
    }
    Ok(())
}

/// The properties `source` lists.
fn listed(source: &Map<String, Value>) -> Option<&Map<String, Value>> {
    source.get("properties").and_then(Value::as_object)
}

/// The `properties` and `additionalProperties` of all `sources` together.
fn objects(sources: &[Map<String, Value>]) -> Map<String, Value> {
    let rest = |source: &Map<String, Value>| {
        source.get("additionalProperties").filter(|value| **value != Value::Bool(true)).cloned()
    };
    let mut names: Vec<&String> = Vec::new();
    for name in sources.iter().filter_map(listed).flat_map(|properties| properties.keys()) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let extra: Vec<Value> = sources.iter().filter_map(rest).collect();
    let additional = (!extra.is_empty()).then(|| all_of(extra));
    let mut merged = Map::new();
    if sources.iter().any(|source| source.contains_key("properties")) {
        let mut properties = Map::new();
        for name in names {
            let schema_in = |s| listed(s).and_then(|p| p.get(name)).cloned().or_else(|| rest(s));
            let schema = all_of(sources.iter().filter_map(schema_in).collect());
            let forbidden = schema == Value::Bool(false);
            if !(forbidden && additional == Some(Value::Bool(false))) {
                properties.insert(name.clone(), schema);
            }
        }
        merged.insert("properties".into(), Value::Object(properties));
    }
    if let Some(additional) = additional {
        merged.insert("additionalProperties".into(), additional);
    }
    merged
}

/// One schema for all of `parts`: the one part that constrains, or their `allOf`.
fn all_of(parts: Vec<Value>) -> Value {
    let open = |part: &Value| *part == Value::Bool(true) || *part == json!({});
    let first = parts.first().cloned().unwrap_or(Value::Bool(true));
    let mut kept: Vec<Value> = Vec::new();
    for part in parts.into_iter().filter(|part| !open(part)) {
        if part == Value::Bool(false) {
            return part;
        }
        if !kept.contains(&part) {
            kept.push(part);
        }
    }
    match kept.len() {
        0 => first,
        1 => kept.pop().unwrap_or(first),
        _ => json!({"allOf": kept}),
    }
}

/// Combines `value` into `have`, both given for `key`.
fn keyword(key: &str, have: &mut Value, value: Value) -> Result<(), String> {
    if *have == value || ANNOTATIONS.contains(&key) {
        return Ok(());
    }
    match key {
        "type" => *have = types(have, &value)?,
        "enum" => *have = common_values(have, &value)?,
        "required" => join(have, value)?,
        "uniqueItems" => *have = Value::Bool(*have == true || value == true),
        "items" if have.is_array() || value.is_array() => return Err(differ(key, have, &value)),
        "items" => *have = all_of(vec![have.take(), value]),
        _ if LOWER.contains(&key) => *have = bound(key, have, value, f64::max)?,
        _ if UPPER.contains(&key) => *have = bound(key, have, value, f64::min)?,
        _ => return Err(differ(key, have, &value)),
    }
    Ok(())
}

fn differ(key: &str, have: &Value, value: &Value) -> String {
    format!("its branches give `{key}` different values ({have} and {value})")
}

/// The types both `have` and `value` allow; an integer is a number.
fn types(have: &Value, value: &Value) -> Result<Value, String> {
    let names = |types: &Value| -> Option<Vec<String>> {
        match types {
            Value::String(name) => Some(vec![name.clone()]),
            Value::Array(names) => names.iter().map(|n| n.as_str().map(str::to_owned)).collect(),
            _ => None,
        }
    };
    let (Some(a), Some(b)) = (names(have), names(value)) else {
        return Err(differ("type", have, value));
    };
    let within = |name: &String, other: &[String]| {
        other.contains(name) || (name == "integer" && other.iter().any(|o| o == "number"))
    };
    let mut common: Vec<String> = a.iter().filter(|name| within(name, &b)).cloned().collect();
    for name in b.iter().filter(|name| within(name, &a)) {
        if !common.contains(name) {
            common.push(name.clone());
        }
    }
    match <[String; 1]>::try_from(common) {
        Ok([only]) => Ok(Value::String(only)),
        Err(common) if common.is_empty() => Err("its branches allow no common type".into()),
        Err(common) => Ok(json!(common)),
    }
}

/// The values of `have` that `value` lists too.
fn common_values(have: &Value, value: &Value) -> Result<Value, String> {
    let (Some(a), Some(b)) = (have.as_array(), value.as_array()) else {
        return Err(differ("enum", have, value));
    };
    let common: Vec<Value> = a.iter().filter(|v| b.contains(v)).cloned().collect();
    if common.is_empty() {
        return Err("its branches' `enum`s share no value".into());
    }
    Ok(Value::Array(common))
}

/// Adds the names of `value` that `have` lacks.
fn join(have: &mut Value, value: Value) -> Result<(), String> {
    let (Value::Array(names), Value::Array(more)) = (&mut *have, &value) else {
        return Err(differ("required", have, &value));
    };
    for name in more {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    Ok(())
}

/// The tighter of two bounds, as `pick` chooses.
fn bound(
    key: &str,
    have: &Value,
    value: Value,
    pick: fn(f64, f64) -> f64,
) -> Result<Value, String> {
    let (Some(a), Some(b)) = (have.as_f64(), value.as_f64()) else {
        return Err(differ(key, have, &value));
    };
    Ok(if pick(a, b) == a { have.clone() } else { value })
}
