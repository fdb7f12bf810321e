//! The limits OpenAI documents for strict schemas, counted as the schema is walked.

use serde_json::{Map, Value};

use super::DIALECT;
use crate::dialect::{CompileError, CompileErrorKind};

/// The documented limits (November 2026).
const MAX_PROPERTIES: usize = 5_000;
const MAX_OBJECT_DEPTH: usize = 10;
const MAX_ENUM_VALUES: usize = 1_000;
const MAX_STRING_LENGTH: usize = 120_000;
/// A string enum with more values than this may have at most [`MAX_LONG_ENUM_LENGTH`]
/// characters in all.
const LONG_ENUM_VALUES: usize = 250;
const MAX_LONG_ENUM_LENGTH: usize = 15_000;

/// What the limits count.
#[derive(Debug, Default)]
pub(super) struct Totals {
    properties: usize,
    enum_values: usize,
    string_length: usize,
    pub(super) object_depth: usize,
}

impl Totals {
    /// Adds what `map` holds; fails at once for a long string enum that is too large.
    pub(super) fn count(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
    ) -> Result<(), CompileError> {
        if let Some(Value::Object(properties)) = map.get("properties") {
            self.properties += properties.len();
            self.string_length += properties.keys().map(String::len).sum::<usize>();
        }
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(defs)) = map.get(key) {
                self.string_length += defs.keys().map(String::len).sum::<usize>();
            }
        }
        if let Some(Value::String(value)) = map.get("const") {
            self.string_length += value.len();
        }
        let Some(Value::Array(values)) = map.get("enum") else { return Ok(()) };
        self.enum_values += values.len();
        let length = values.iter().filter_map(Value::as_str).map(str::len).sum::<usize>();
        self.string_length += length;
        let strings = values.iter().filter(|v| v.is_string()).count();
        if strings > LONG_ENUM_VALUES && length > MAX_LONG_ENUM_LENGTH {
            let problem = format!(
                "a string enum of {strings} values has {length} characters; past \
                 {LONG_ENUM_VALUES} values the limit is {MAX_LONG_ENUM_LENGTH}"
            );
            return Err(CompileError::new(DIALECT, CompileErrorKind::LimitExceeded, path, problem));
        }
        Ok(())
    }

    /// Fails when a total passes its limit.
    pub(super) fn check(&self) -> Result<(), CompileError> {
        let limits = [
            (self.properties, MAX_PROPERTIES, "object properties in all"),
            (self.object_depth, MAX_OBJECT_DEPTH, "levels of object nesting"),
            (self.enum_values, MAX_ENUM_VALUES, "enum values in all"),
            (self.string_length, MAX_STRING_LENGTH, "characters of names and enum values"),
        ];
        for (count, limit, what) in limits {
            if count > limit {
                return Err(CompileError::new(
                    DIALECT,
                    CompileErrorKind::LimitExceeded,
                    "",
                    format!("{count} {what}; the limit is {limit}"),
                ));
            }
        }
        Ok(())
    }
}
