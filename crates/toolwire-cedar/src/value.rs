//! A call's arguments as a Cedar record, typed by the tool's [`Shape`]: what a policy reads
//! as `context.input`.

use cedar_policy::RestrictedExpression;
use serde_json::{Map, Value};

use crate::shape::{Field, Shape};

/// The largest magnitude Cedar's `decimal` holds (922337203685477.5807).
const DECIMAL_LIMIT: f64 = 922_337_203_685_477.0;

/// The record of `args` with `fields`: each declared argument that is present and not null,
/// converted to its Cedar type. Arguments the schema does not declare are left out. An
/// argument Cedar cannot hold exactly (an integer beyond 64 bits, a number with more than
/// four decimal places) is an error naming its path, so that the call is refused rather
/// than judged on a rounded value.
pub(crate) fn record(
    fields: &[Field],
    args: &Map<String, Value>,
) -> Result<RestrictedExpression, String> {
    record_at(fields, args, "")
}

fn record_at(
    fields: &[Field],
    object: &Map<String, Value>,
    path: &str,
) -> Result<RestrictedExpression, String> {
    let mut pairs = Vec::with_capacity(fields.len());
    for field in fields {
        let Some(value) = object.get(&field.name).filter(|v| !v.is_null()) else { continue };
        let here = format!("{path}/{}", field.name);
        pairs.push((field.name.clone(), convert(&field.shape, value, &here)?));
    }
    RestrictedExpression::new_record(pairs).map_err(|e| format!("{}: {e}", shown(path)))
}

fn convert(shape: &Shape, value: &Value, path: &str) -> Result<RestrictedExpression, String> {
    let wrong = |expected: &str| format!("argument {} is not {expected}", shown(path));
    match shape {
        Shape::String => match value {
            Value::String(text) => Ok(RestrictedExpression::new_string(text.clone())),
            _ => Err(wrong("a string")),
        },
        Shape::Bool => {
            value.as_bool().map(RestrictedExpression::new_bool).ok_or_else(|| wrong("a boolean"))
        }
        Shape::Long => match value {
            Value::Number(n) => n.as_i64().map(RestrictedExpression::new_long).ok_or_else(|| {
                format!("argument {} ({n}) is outside Cedar's 64-bit integers", shown(path))
            }),
            _ => Err(wrong("an integer")),
        },
        Shape::Decimal => match value.as_f64() {
            Some(number) => decimal(number, path),
            None => Err(wrong("a number")),
        },
        Shape::Set(item) => match value {
            Value::Array(items) => {
                let converted: Result<Vec<_>, _> = items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| convert(item, v, &format!("{path}/{i}")))
                    .collect();
                Ok(RestrictedExpression::new_set(converted?))
            }
            _ => Err(wrong("an array")),
        },
        Shape::Record(fields) => match value {
            Value::Object(object) => record_at(fields, object, path),
            _ => Err(wrong("an object")),
        },
    }
}

/// `number` as a Cedar `decimal`, if it has at most four decimal places and fits.
fn decimal(number: f64, path: &str) -> Result<RestrictedExpression, String> {
    let text = format!("{number:.4}");
    let exact = text.parse::<f64>().is_ok_and(|back| back == number);
    if !number.is_finite() || number.abs() >= DECIMAL_LIMIT || !exact {
        return Err(format!(
            "argument {} ({number}) cannot be held exactly by Cedar's decimal (four decimal \
             places, below 922337203685477)",
            shown(path)
        ));
    }
    Ok(RestrictedExpression::new_decimal(text))
}

/// A JSON pointer for messages; the root is `/`.
fn shown(path: &str) -> &str {
    if path.is_empty() { "/" } else { path }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(schema: Value) -> Vec<Field> {
        crate::shape::input_fields(&schema)
    }

    #[test]
    fn numbers_cedar_cannot_hold_exactly_are_errors_naming_the_argument() {
        let schema = json!({"type": "object", "properties": {
            "n": {"type": "integer"}, "x": {"type": "number"}, "list": {"type": "array", "items": {"type": "number"}}
        }});
        let fields = fields(schema);
        let ok = json!({"n": -5, "x": 2.5, "list": [1, 0.0001]});
        assert!(record(&fields, ok.as_object().unwrap()).is_ok());
        for (args, path) in [
            (json!({"n": 18446744073709551615u64}), "/n"),
            (json!({"x": 0.00001}), "/x"),
            (json!({"x": 1e300}), "/x"),
            (json!({"list": [1, 2.123456]}), "/list/1"),
        ] {
            let err = record(&fields, args.as_object().unwrap()).unwrap_err();
            assert!(err.contains(path), "{err}");
        }
    }
}
