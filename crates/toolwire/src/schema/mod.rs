//! Parameter schemas: checked against the JSON Schema meta-schema and compiled once, when a
//! tool is built; then used to validate every call's arguments.

mod check;
mod compile;
mod limits;
mod nulls;
mod size;

pub(crate) use check::{check_parameters, type_name};
pub(crate) use compile::CompiledSchema;
pub use limits::ArgumentLimits;
pub(crate) use limits::{HeldValue, check_limits, drop_iteratively};
pub(crate) use nulls::drop_optional_nulls;
pub(crate) use size::check_schema_size;

/// The parameters a tool gets when it declares none.
pub(crate) fn empty_object() -> serde_json::Value {
    serde_json::json!({"type": "object", "properties": {}})
}
