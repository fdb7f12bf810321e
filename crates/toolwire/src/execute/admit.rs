//! The checks a call's arguments pass before anyone acts on them: activation, limits, the
//! schema and the input parser.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::{Map, Value};

use super::outcome::{hook_panicked, inactive, invalid_input};
use crate::record::ToolResult;
use crate::schema::{ArgumentLimits, check_limits, drop_iteratively, drop_optional_nulls};
use crate::tool::Tool;

/// Checks `input` for a call of `tool` and returns the arguments the handler will get.
///
/// `limits` replaces the tool's own when given; `state` decides the `active` condition.
pub(super) fn admit(
    tool: &Tool,
    input: Value,
    limits: Option<ArgumentLimits>,
    state: Option<&dyn Any>,
) -> Result<Value, ToolResult> {
    let inner = tool.inner();
    match tool.activity(state) {
        Ok(true) => {}
        Ok(false) => {
            drop_iteratively(input);
            return Err(inactive(tool.name()));
        }
        Err(payload) => {
            drop_iteratively(input);
            return Err(hook_panicked(tool.name(), "active condition", payload));
        }
    }
    let args = if input.is_null() { Value::Object(Map::new()) } else { input };
    if let Err(why) = check_limits(&args, limits.unwrap_or(inner.limits)) {
        drop_iteratively(args);
        return Err(invalid_input(tool.name(), &why));
    }
    let mut args = args;
    if inner.strict {
        drop_optional_nulls(&mut args, &inner.parameters);
    }
    if !inner.hooks.skip_validation {
        inner.validator.validate(&args).map_err(|why| invalid_input(tool.name(), &why))?;
    }
    match &inner.hooks.parse_input {
        None => Ok(args),
        Some(parse) => match catch_unwind(AssertUnwindSafe(|| parse(args))) {
            Ok(parsed) => parsed.map_err(|why| invalid_input(tool.name(), &why)),
            Err(payload) => Err(hook_panicked(tool.name(), "input parser", payload)),
        },
    }
}
