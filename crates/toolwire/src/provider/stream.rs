//! What the streaming accumulators share: calls assembled piece by piece, keyed by the
//! provider's index, finished in index order.

use std::collections::BTreeMap;

use serde_json::Value;

use super::parse::ParseError;
use crate::registry::ToolCall;

/// One call as far as it has streamed.
#[derive(Debug, Default, Clone)]
pub(super) struct Partial {
    pub(super) id: Option<String>,
    pub(super) name: Option<String>,
    pub(super) arguments: String,
}

/// Calls under assembly, by the provider's index.
#[derive(Debug, Default, Clone)]
pub(super) struct Partials {
    by_index: BTreeMap<u64, Partial>,
}

impl Partials {
    pub(super) fn at(&mut self, index: u64) -> &mut Partial {
        self.by_index.entry(index).or_default()
    }

    /// The finished calls, in index order. A call without a name cannot be answered, so it is
    /// an error; a call without an id gets an empty one when `ids_optional`.
    pub(super) fn finish(
        self,
        provider: &'static str,
        ids_optional: bool,
    ) -> Result<Vec<ToolCall>, ParseError> {
        let mut calls = Vec::with_capacity(self.by_index.len());
        for (index, partial) in self.by_index {
            let at = format!("call {index}");
            let name = partial
                .name
                .ok_or_else(|| ParseError::new(provider, at.clone(), "no name was streamed"))?;
            let id = match partial.id {
                Some(id) => id,
                None if ids_optional => String::new(),
                None => return Err(ParseError::new(provider, at, "no id was streamed")),
            };
            calls.push(ToolCall::from_json_text(id, name, &partial.arguments));
        }
        Ok(calls)
    }
}

/// The unsigned integer at `value[key]`.
pub(super) fn index(value: &Value, key: &str) -> Option<u64> {
    value.get(key).and_then(Value::as_u64)
}

/// The string at `value[key]`.
pub(super) fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}
