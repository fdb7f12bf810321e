//! Templates with `{name}` placeholders, filled from a call's validated arguments.
//!
//! An argv template is a list of these, one per argv element, so a value always stays one
//! element: no shell ever splits or interprets it. `{{` and `}}` are literal braces.

use serde_json::Value;

/// What is wrong with a template's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError(String);

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TemplateError {}

/// The template as it is written, with `{{` and `}}` for literal braces.
impl std::fmt::Display for Template {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for part in &self.parts {
            match part {
                Part::Text(text) => f.write_str(&text.replace('{', "{{").replace('}', "}}"))?,
                Part::Placeholder(name) => write!(f, "{{{name}}}")?,
            }
        }
        Ok(())
    }
}

/// One parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Placeholder(String),
}

impl Template {
    /// Parses `text`, or says what is wrong with it.
    ///
    /// ```
    /// use toolwire_process::Template;
    ///
    /// let template = Template::parse("--name={name}").unwrap();
    /// let filled = template.fill(&serde_json::json!({"name": "a b"}), str::to_owned);
    /// assert_eq!(filled.as_deref(), Some("--name=a b"));
    /// assert!(Template::parse("{unclosed").is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// An unclosed or unmatched brace, or a placeholder whose name is not a plain name.
    pub fn parse(text: &str) -> Result<Self, TemplateError> {
        Self::parse_text(text).map_err(TemplateError)
    }

    fn parse_text(text: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut text_part = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    text_part.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    text_part.push('}');
                }
                '{' => {
                    let name = placeholder_name(&mut chars, text)?;
                    parts.push(Part::Text(std::mem::take(&mut text_part)));
                    parts.push(Part::Placeholder(name));
                }
                '}' => {
                    return Err(format!("unmatched `}}` in {text:?} (write `}}}}` for a brace)"));
                }
                c => text_part.push(c),
            }
        }
        parts.push(Part::Text(text_part));
        parts.retain(|part| *part != Part::Text(String::new()));
        Ok(Self { parts })
    }

    /// The names of the placeholders, in order.
    pub fn placeholders(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|part| match part {
            Part::Placeholder(name) => Some(name.as_str()),
            Part::Text(_) => None,
        })
    }

    /// Whether the template has no placeholder.
    pub fn is_literal(&self) -> bool {
        self.placeholders().next().is_none()
    }

    /// The text of a template without placeholders; `None` when it has one.
    pub fn literal_text(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [] => Some(""),
            [Part::Text(text)] => Some(text),
            _ => None,
        }
    }

    /// The placeholder a template is made of alone, such as `{code}`; `None` when it has text
    /// or more than one.
    pub fn lone_placeholder(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [Part::Placeholder(name)] => Some(name),
            _ => None,
        }
    }

    /// The placeholders the filled text can begin with: those before the first text.
    pub fn leading_placeholders(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().map_while(|part| match part {
            Part::Placeholder(name) => Some(name.as_str()),
            Part::Text(_) => None,
        })
    }

    /// The placeholder whose value begins the text filled from `args`, with that value;
    /// `None` when the template begins with text, or every leading value is empty.
    pub fn leading_value(&self, args: &Value) -> Option<(&str, String)> {
        self.leading_placeholders().find_map(|name| {
            let text = value_text(args.get(name)?)?;
            (!text.is_empty()).then_some((name, text))
        })
    }

    /// Fills the template from `args`, each value passed through `encode`; `None` when a
    /// placeholder's argument is absent or null.
    pub fn fill(&self, args: &Value, encode: impl Fn(&str) -> String) -> Option<String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Placeholder(name) => out.push_str(&encode(&value_text(args.get(name)?)?)),
            }
        }
        Some(out)
    }
}

/// Reads a placeholder's name up to its `}`.
fn placeholder_name(chars: &mut impl Iterator<Item = char>, text: &str) -> Result<String, String> {
    let mut name = String::new();
    for c in chars {
        if c == '}' {
            check_name(&name, text)?;
            return Ok(name);
        }
        name.push(c);
    }
    Err(format!("unclosed `{{` in {text:?} (write `{{{{` for a brace)"))
}

/// A placeholder name must be a plain argument name.
fn check_name(name: &str, text: &str) -> Result<(), String> {
    let plain =
        !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    if plain {
        Ok(())
    } else {
        Err(format!(
            "bad placeholder `{{{name}` in {text:?}: expected `{{name}}` with a plain argument name"
        ))
    }
}

/// The text an argument becomes: a string as it is, anything else as JSON.
fn value_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    }
}
