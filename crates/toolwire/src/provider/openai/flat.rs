//! OpenAI's legacy flat function, `{name, description, parameters, strict?}`: a shape that
//! describes tools and runs no model of its own.

use serde_json::Value;

use crate::dialect::Dialect;
use crate::provider::shapes::Definition;
use crate::provider::wire::Wire;

/// The flat function shape, as [`Provider::FlatFunction`](crate::Provider::FlatFunction)
/// picks it.
pub(in crate::provider) struct FlatFormat;

impl Wire for FlatFormat {
    fn name(&self) -> &'static str {
        "flat_function"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["flat"]
    }

    fn label(&self) -> &'static str {
        "OpenAI function"
    }

    fn title(&self) -> &'static str {
        "OpenAI function (the flat shape)"
    }

    fn dialect(&self, strict: bool) -> Dialect {
        super::dialect(strict)
    }

    fn describe(&self, def: &Definition<'_>) -> Value {
        Value::Object(super::describe::flat(def))
    }
}
