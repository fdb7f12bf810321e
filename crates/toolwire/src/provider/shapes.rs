//! A tool's shapes: every provider's definition of it, each built on first use from the
//! fields they share.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::Provider;
use crate::dialect::{Dialect, Dialects};
use crate::tool::annotations::Annotations;

/// The fields every shape is built from.
pub(crate) struct Definition<'a> {
    pub(crate) name: &'a str,
    pub(crate) description: Option<&'a str>,
    pub(crate) parameters: &'a Value,
    /// The parameters as OpenAI's shapes carry them: strict-compiled for strict tools.
    pub(crate) openai_parameters: &'a Value,
    /// The parameters as Anthropic's shape carries them: strict-compiled for strict tools.
    pub(crate) anthropic_parameters: &'a Value,
    pub(crate) strict: Option<bool>,
    pub(crate) input_examples: &'a [Value],
    pub(crate) cache_control: Option<&'a Value>,
    pub(crate) output_schema: Option<&'a Value>,
    pub(crate) annotations: &'a Annotations,
}

/// What a tool's shapes are built from besides its name, description and parameters.
#[derive(Debug, Default)]
pub(crate) struct Extras {
    pub(crate) strict: Option<bool>,
    pub(crate) input_examples: Vec<Value>,
    pub(crate) cache_control: Option<Value>,
    pub(crate) output_schema: Option<Value>,
    pub(crate) annotations: Annotations,
}

/// The parts of a tool its shapes describe, lent when a shape is first built.
pub(crate) struct Source<'a> {
    pub(crate) name: &'a str,
    pub(crate) description: Option<&'a str>,
    pub(crate) parameters: &'a Value,
    pub(crate) dialects: &'a Dialects,
}

/// Every provider shape of one tool, each built on first use and kept: a shape never asked
/// for costs nothing.
#[derive(Debug, Default)]
pub(crate) struct Shapes {
    extras: Extras,
    /// By [`Provider::position`].
    cells: [OnceLock<Value>; Provider::ALL.len()],
}

impl Shapes {
    /// Keeps `extras`, building no shape yet.
    pub(crate) fn new(extras: Extras) -> Self {
        Self { extras, cells: Default::default() }
    }

    /// The tool's annotations.
    pub(crate) fn annotations(&self) -> &Annotations {
        &self.extras.annotations
    }

    /// The shape for `provider`, built now from `source` if it is the first time.
    pub(crate) fn get(&self, provider: Provider, source: &Source<'_>) -> &Value {
        let cell = &self.cells[provider.position()];
        cell.get_or_init(|| provider.wire().describe(&self.definition(source)))
    }

    /// The fields a shape is built from; a strict tool's OpenAI and Anthropic shapes carry
    /// its parameters compiled for their strict modes.
    fn definition<'a>(&'a self, source: &Source<'a>) -> Definition<'a> {
        let strict = self.extras.strict == Some(true);
        let schema_for = |dialect| {
            if !strict {
                return source.parameters;
            }
            // Built strict tools compiled for both dialects; the fallback is never taken.
            source.dialects.get(dialect).map_or(source.parameters, |compiled| &compiled.schema)
        };
        Definition {
            name: source.name,
            description: source.description,
            parameters: source.parameters,
            openai_parameters: schema_for(Dialect::OpenAiStrict),
            anthropic_parameters: schema_for(Dialect::AnthropicStrict),
            strict: self.extras.strict,
            input_examples: &self.extras.input_examples,
            cache_control: self.extras.cache_control.as_ref(),
            output_schema: self.extras.output_schema.as_ref(),
            annotations: &self.extras.annotations,
        }
    }
}

/// Starts a shape: `name`, then `description` when set.
pub(super) fn named(def: &Definition<'_>) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("name".into(), def.name.into());
    if let Some(description) = def.description {
        map.insert("description".into(), description.into());
    }
    map
}

/// Adds `strict` when it was set.
pub(super) fn with_strict(map: &mut Map<String, Value>, def: &Definition<'_>) {
    if let Some(strict) = def.strict {
        map.insert("strict".into(), strict.into());
    }
}
