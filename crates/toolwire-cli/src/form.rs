//! A form that an MCP server asks the user to fill in (a form-mode elicitation, passed on as
//! a request whose `data` is the form's schema): asked field by field in the terminal, or
//! filled with its defaults for `--yes`.

use dialoguer::{Confirm, Input, Select};
use serde_json::{Map, Number, Value};
use toolwire::{Answer, Request};

use crate::exit::CliError;

/// The fields of `request`'s form, in the schema's order: `None` when it asks no field, and
/// is a plain yes or no.
pub(crate) fn fields(request: &Request) -> Option<&Map<String, Value>> {
    let schema = request.data.as_ref()?;
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return None;
    }
    schema.get("properties").and_then(Value::as_object).filter(|fields| !fields.is_empty())
}

/// The form filled with the schema's defaults, as `--yes` answers it. A required field with no
/// default cannot be filled so, and is named in the error.
///
/// # Errors
///
/// The required fields that have no default.
pub(crate) fn defaults(request: &Request) -> Result<Value, String> {
    let Some(fields) = fields(request) else { return Ok(Value::Object(Map::new())) };
    let content: Map<String, Value> = fields
        .iter()
        .filter_map(|(name, field)| Some((name.clone(), field.get("default")?.clone())))
        .collect();
    let missing: Vec<&str> =
        required(request).filter(|name| !content.contains_key(*name)).collect();
    if missing.is_empty() {
        return Ok(Value::Object(content));
    }
    Err(format!(
        "the form asks for {} with no default, which --yes cannot fill in: answer it in a \
         terminal, or with --call-id and `toolwire approvals answer ID --data JSON`",
        missing.join(", ")
    ))
}

/// Asks each field of the form in the terminal, after asking whether to answer at all; `n`
/// declines the whole form. An optional field left empty is left out.
///
/// # Errors
///
/// When the terminal cannot be read.
pub(crate) fn ask(request: &Request, fields: &Map<String, Value>) -> Result<Answer, CliError> {
    let terminal =
        |error: dialoguer::Error| CliError::usage(format!("cannot ask in the terminal: {error}"));
    let answer = Confirm::new()
        .with_prompt(format!("{} (fill in the form?)", request.prompt))
        .default(true)
        .interact_opt()
        .map_err(terminal)?;
    if answer != Some(true) {
        return Ok(Answer::decline(request.id.clone(), "declined in the terminal"));
    }
    let needed: Vec<&str> = required(request).collect();
    let mut content = Map::new();
    for (name, field) in fields {
        let value = ask_field(name, field, needed.contains(&name.as_str())).map_err(terminal)?;
        if let Some(value) = value {
            content.insert(name.clone(), value);
        }
    }
    Ok(Answer::accept(request.id.clone(), Value::Object(content)))
}

/// The names the form's schema lists as required.
fn required(request: &Request) -> impl Iterator<Item = &str> {
    let listed = request.data.as_ref().and_then(|schema| schema.get("required"));
    listed.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str)
}

/// One field, asked as its type says: a yes or no, a choice among its `enum`, a number, or a
/// text. `None` for an optional field left empty.
fn ask_field(name: &str, field: &Value, required: bool) -> Result<Option<Value>, dialoguer::Error> {
    let label = match field.get("title").or_else(|| field.get("description")) {
        Some(Value::String(title)) => format!("{name} ({title})"),
        _ => name.to_owned(),
    };
    let default = field.get("default");
    let kind = field.get("type").and_then(Value::as_str).unwrap_or("string");
    if kind == "boolean" {
        let default = default.and_then(Value::as_bool).unwrap_or(false);
        let chosen = Confirm::new().with_prompt(label).default(default).interact()?;
        return Ok(Some(Value::Bool(chosen)));
    }
    if let Some(choices) = field.get("enum").and_then(Value::as_array) {
        let shown: Vec<String> = choices.iter().map(shown).collect();
        let at = default.and_then(|d| choices.iter().position(|c| c == d)).unwrap_or(0);
        let picked = Select::new().with_prompt(label).items(&shown).default(at).interact()?;
        return Ok(choices.get(picked).cloned());
    }
    let mut input = Input::<String>::new().with_prompt(label).allow_empty(!required);
    if let Some(default) = default {
        input = input.default(shown(default));
    }
    let numeric = matches!(kind, "number" | "integer");
    let typed = input
        .validate_with(move |text: &String| -> Result<(), String> {
            match (numeric, text.is_empty()) {
                (true, false) => number(text, kind == "integer").map(drop),
                _ => Ok(()),
            }
        })
        .interact_text()?;
    if typed.is_empty() && !required {
        return Ok(None);
    }
    if numeric && let Ok(value) = number(&typed, kind == "integer") {
        return Ok(Some(value));
    }
    Ok(Some(Value::String(typed)))
}

/// `text` as a JSON number: a whole one when `integer`.
fn number(text: &str, integer: bool) -> Result<Value, String> {
    let text = text.trim();
    if integer {
        return text
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| format!("{text:?} is not a whole number"));
    }
    let parsed: f64 = text.parse().map_err(|_| format!("{text:?} is not a number"))?;
    Number::from_f64(parsed).map(Value::Number).ok_or_else(|| format!("{text:?} is not finite"))
}

/// A value as the user reads it: a string without its quotes.
fn shown(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}
