//! The Cedar shape of a tool's arguments, read from its JSON Schema: which arguments a policy
//! can see, and as which Cedar type.

use serde_json::{Map, Value, json};

/// How deep nested objects and arrays are followed; deeper arguments are left out.
const MAX_DEPTH: usize = 32;

/// The Cedar type of one argument.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Shape {
    /// A JSON string.
    String,
    /// A JSON integer: Cedar's 64-bit `Long`.
    Long,
    /// A JSON boolean.
    Bool,
    /// A JSON number: Cedar's `decimal`, with four decimal places.
    Decimal,
    /// A JSON array whose items all have one shape.
    Set(Box<Shape>),
    /// A JSON object with declared properties.
    Record(Vec<Field>),
}

/// One declared property of an object.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Field {
    pub(crate) name: String,
    pub(crate) shape: Shape,
    /// Whether the arguments always carry it: required by the schema and never null.
    pub(crate) required: bool,
}

/// The fields of a tool's arguments, from its parameters schema: every property whose type
/// Cedar can hold. Properties with no single type (`anyOf` of several types, no `type`, an
/// array of mixed items) are left out, and so are those nested deeper than 32 levels.
pub(crate) fn input_fields(parameters: &Value) -> Vec<Field> {
    let root = parameters;
    match shape_of(root, root, 0) {
        Some((Shape::Record(fields), _)) => fields,
        _ => Vec::new(),
    }
}

/// The shape of `schema`, and whether it may be null.
fn shape_of(schema: &Value, root: &Value, depth: usize) -> Option<(Shape, bool)> {
    if depth > MAX_DEPTH {
        return None;
    }
    let object = schema.as_object()?;
    if let Some(target) = object.get("$ref").and_then(Value::as_str) {
        return shape_of(resolve(root, target)?, root, depth + 1);
    }
    if let Some(choices) = object.get("anyOf").or_else(|| object.get("oneOf")) {
        return one_of(choices.as_array()?, root, depth);
    }
    let (kind, nullable) = match object.get("type") {
        Some(Value::String(kind)) => (kind.as_str(), false),
        Some(Value::Array(kinds)) => {
            let named: Vec<&str> = kinds.iter().filter_map(Value::as_str).collect();
            let not_null: Vec<&str> = named.iter().copied().filter(|k| *k != "null").collect();
            match not_null.as_slice() {
                [kind] => (*kind, not_null.len() < named.len()),
                _ => return None,
            }
        }
        Some(_) => return None,
        None => (implied_type(object)?, false),
    };
    let shape = match kind {
        "string" => Shape::String,
        "integer" => Shape::Long,
        "boolean" => Shape::Bool,
        "number" => Shape::Decimal,
        "array" => {
            let items = object.get("items")?;
            Shape::Set(Box::new(shape_of(items, root, depth + 1)?.0))
        }
        "object" => Shape::Record(fields(object, root, depth)),
        _ => return None,
    };
    Some((shape, nullable))
}

/// An `anyOf` or `oneOf` that is one type or null (as `Option<T>` is written).
fn one_of(choices: &[Value], root: &Value, depth: usize) -> Option<(Shape, bool)> {
    let is_null = |choice: &Value| choice.get("type").and_then(Value::as_str) == Some("null");
    let others: Vec<&Value> = choices.iter().filter(|c| !is_null(c)).collect();
    match others.as_slice() {
        [only] => {
            let (shape, nullable) = shape_of(only, root, depth + 1)?;
            Some((shape, nullable || others.len() < choices.len()))
        }
        _ => None,
    }
}

/// The type a schema without `type` implies: strings for an `enum` or `const` of strings, an
/// object for `properties`.
fn implied_type(object: &Map<String, Value>) -> Option<&'static str> {
    let all_strings = |values: &[Value]| !values.is_empty() && values.iter().all(Value::is_string);
    if let Some(Value::Array(values)) = object.get("enum") {
        return all_strings(values).then_some("string");
    }
    if let Some(value) = object.get("const") {
        return value.is_string().then_some("string");
    }
    object.contains_key("properties").then_some("object")
}

/// The declared properties of an object schema that Cedar can hold.
fn fields(object: &Map<String, Value>, root: &Value, depth: usize) -> Vec<Field> {
    let Some(Value::Object(properties)) = object.get("properties") else { return Vec::new() };
    let required: Vec<&str> = match object.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    properties
        .iter()
        .filter_map(|(name, schema)| {
            let (shape, nullable) = shape_of(schema, root, depth + 1)?;
            let required = !nullable && required.contains(&name.as_str());
            Some(Field { name: name.clone(), shape, required })
        })
        .collect()
}

/// The schema a local `$ref` (`#/$defs/...`, `#/definitions/...`) points at.
fn resolve<'a>(root: &'a Value, target: &str) -> Option<&'a Value> {
    let pointer = target.strip_prefix('#')?;
    root.pointer(pointer)
}

/// The Cedar JSON schema type of `shape`.
pub(crate) fn cedar_type(shape: &Shape) -> Value {
    match shape {
        Shape::String => json!({"type": "String"}),
        Shape::Long => json!({"type": "Long"}),
        Shape::Bool => json!({"type": "Boolean"}),
        Shape::Decimal => json!({"type": "Extension", "name": "decimal"}),
        Shape::Set(item) => json!({"type": "Set", "element": cedar_type(item)}),
        Shape::Record(fields) => record_type(fields),
    }
}

/// The Cedar JSON schema record type of `fields`.
pub(crate) fn record_type(fields: &[Field]) -> Value {
    let attributes: Map<String, Value> = fields
        .iter()
        .map(|field| {
            let mut ty = cedar_type(&field.shape);
            if let Value::Object(ty) = &mut ty {
                ty.insert("required".into(), Value::Bool(field.required));
            }
            (field.name.clone(), ty)
        })
        .collect();
    json!({"type": "Record", "attributes": attributes})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(name: &str, shape: Shape, required: bool) -> Field {
        Field { name: name.into(), shape, required }
    }

    #[test]
    fn reads_types_required_and_nullable_properties() {
        let schema = json!({
            "type": "object",
            "properties": {
                "env": {"type": "string", "enum": ["staging", "prod"]},
                "replicas": {"type": "integer"},
                "ratio": {"type": ["number", "null"]},
                "dry_run": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "mixed": {"type": ["string", "integer"]},
                "anything": {},
                "target": {"$ref": "#/$defs/Target"},
                "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "level": {"enum": ["low", "high"]}
            },
            "required": ["env", "ratio", "target", "maybe"],
            "$defs": {"Target": {"type": "object", "properties": {"host": {"type": "string"}}, "required": ["host"]}}
        });
        let mut fields = input_fields(&schema);
        fields.sort_by(|a, b| a.name.cmp(&b.name));
        let expected = vec![
            field("dry_run", Shape::Bool, false),
            field("env", Shape::String, true),
            field("level", Shape::String, false),
            field("maybe", Shape::Long, false),
            field("ratio", Shape::Decimal, false),
            field("replicas", Shape::Long, false),
            field("tags", Shape::Set(Box::new(Shape::String)), false),
            field("target", Shape::Record(vec![field("host", Shape::String, true)]), true),
        ];
        assert_eq!(fields, expected);
    }

    #[test]
    fn a_self_referencing_schema_stops_at_the_depth_limit() {
        let schema = json!({
            "type": "object",
            "properties": {"node": {"$ref": "#"}},
        });
        let fields = input_fields(&schema);
        let mut depth = 0;
        let mut level = fields;
        while let Some(Field { shape: Shape::Record(inner), .. }) = level.into_iter().next() {
            depth += 1;
            level = inner;
        }
        assert!(depth > 0 && depth <= MAX_DEPTH, "{depth}");
    }
}
