//! Filling a command's argv, and keeping arguments out of its options.
//!
//! An argv element that begins with a placeholder, before any literal `--` element, stands in
//! *option position*: a value starting with `-` there (`--output=/etc/passwd`) would be read
//! by the program as an option, not as the operand the manifest meant. Such a value is
//! refused unless the manifest puts `--` before the element, or lets that placeholder take
//! one (`allow_option_values`).

use serde_json::Value;
use toolwire::{FailureKind, ToolResult};

use crate::template::Template;

/// Which placeholders standing alone in option position may take a value starting with `-`
/// (`allow_option_values` in a manifest); any other is refused such a value, which the program
/// would read as an option.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum OptionValues {
    /// None of them: the default.
    #[default]
    None,
    /// Every one.
    All,
    /// Those named.
    Only(Vec<String>),
}

impl OptionValues {
    /// Whether the placeholder `name` may take a value starting with `-`.
    pub fn allows(&self, name: &str) -> bool {
        match self {
            OptionValues::None => false,
            OptionValues::All => true,
            OptionValues::Only(names) => names.iter().any(|allowed| allowed == name),
        }
    }
}

/// The argv element that ends a program's options, by the usual convention.
const END_OF_OPTIONS: &str = "--";

/// The longest part of a refused value that its error shows.
const SHOWN_VALUE: usize = 80;

/// The arguments of `program` (tool `tool`) filled from `values`; an element whose argument
/// is absent or null is left out.
///
/// # Errors
///
/// An invalid-input failure naming the tool, the placeholder and the value, when a value
/// starting with `-` lands in option position and its placeholder may not take one.
pub fn fill(
    tool: &str,
    program: &str,
    templates: &[Template],
    allowed: &OptionValues,
    values: &Value,
) -> Result<Vec<String>, ToolResult> {
    let mut options_ended = false;
    let mut argv = Vec::with_capacity(templates.len());
    for template in templates {
        let Some(text) = template.fill(values, str::to_owned) else { continue };
        if !options_ended
            && text.starts_with('-')
            && let Some((name, value)) = template.leading_value(values)
            && !allowed.allows(name)
        {
            return Err(refused(tool, program, name, &value));
        }
        options_ended |= template.literal_text() == Some(END_OF_OPTIONS);
        argv.push(text);
    }
    Ok(argv)
}

/// The placeholders of `templates` that stand alone in option position: each may begin an
/// element before the first literal `--`.
pub fn exposed(templates: &[Template]) -> impl Iterator<Item = &str> {
    templates
        .iter()
        .take_while(|template| template.literal_text() != Some(END_OF_OPTIONS))
        .flat_map(Template::leading_placeholders)
}

/// Whether a value that `schema` accepts may start with `-`; `false` only when the schema
/// says it cannot (an `enum` or `const` without one, a boolean, a number at least 0).
pub fn may_start_with_dash(schema: Option<&Value>) -> bool {
    let Some(schema) = schema.and_then(Value::as_object) else { return true };
    let dashed = |value: &Value| match value {
        Value::String(text) => text.starts_with('-'),
        other => other.to_string().starts_with('-'),
    };
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        return options.iter().any(dashed);
    }
    if let Some(value) = schema.get("const") {
        return dashed(value);
    }
    if schema.get("type").and_then(Value::as_str) == Some("boolean") {
        return false;
    }
    let at_least_zero =
        |key: &str| schema.get(key).and_then(Value::as_f64).is_some_and(|n| n >= 0.0);
    let numeric = matches!(schema.get("type").and_then(Value::as_str), Some("integer" | "number"));
    !(numeric && (at_least_zero("minimum") || at_least_zero("exclusiveMinimum")))
}

fn refused(tool: &str, program: &str, name: &str, value: &str) -> ToolResult {
    let mut shown: String = value.chars().take(SHOWN_VALUE).collect();
    if shown.len() < value.len() {
        shown.push('…');
    }
    ToolResult::failed(
        FailureKind::InvalidInput,
        format!(
            "refused the call of {tool:?}: the value {shown:?} of {{{name}}} starts with \"-\", \
             and {{{name}}} stands alone in option position in the argv, where {program:?} would \
             read it as an option; put \"--\" before it in the argv to pass it as an operand (if \
             {program:?} ends its options there), or set allow_option_values = [\"{name}\"] in [tool.command] if {program:?} should take it"
        ),
    )
}
