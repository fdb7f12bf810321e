//! [`ToolBuilder`]: the fluent definition of a tool.

use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use crate::context::ToolContext;
use crate::dialect::{Dialect, Dialects};
use crate::error::{DefineError, DefineErrorKind};
use crate::handler::{Handler, IntoToolResult};
use crate::media::PartLimits;
use crate::name::check_name;
use crate::provider::{Extras, Shapes};
use crate::schema::{
    self, ArgumentLimits, CompiledSchema, check_limits, check_schema_size, drop_iteratively,
};
use crate::tool::annotations::Annotations;
use crate::tool::hooks::Hooks;
use crate::tool::task_support::TaskSupport;
use crate::tool::{Tool, ToolInner};

/// Collects a tool's definition; made by [`Tool::define`], finished by [`ToolBuilder::build`].
#[must_use = "a builder does nothing until `build` is called"]
#[derive(Default)]
pub struct ToolBuilder {
    name: String,
    description: Option<String>,
    parameters: Option<Value>,
    strict: Option<bool>,
    input_examples: Vec<Value>,
    cache_control: Option<Value>,
    output_schema: Option<Value>,
    annotations: Annotations,
    pub(super) task_support: TaskSupport,
    pub(super) asks_for_input: bool,
    limits: ArgumentLimits,
    part_limits: PartLimits,
    hooks: Hooks,
    handler: Option<Handler>,
}

impl ToolBuilder {
    pub(crate) fn new(name: String) -> Self {
        Self { name, ..Self::default() }
    }

    /// Applies `set` to the hooks; the hook methods live in [`hooks`](super::hooks).
    /// Applies `set` to the annotations; their methods live in [`annotations`](super::annotations).
    pub(super) fn with_annotations(mut self, set: impl FnOnce(&mut Annotations)) -> Self {
        set(&mut self.annotations);
        self
    }

    pub(super) fn with_hooks(mut self, set: impl FnOnce(&mut Hooks)) -> Self {
        set(&mut self.hooks);
        self
    }

    /// What the tool does, in words the model reads to decide when to call it.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The JSON Schema of the arguments; its root must be `{"type": "object", ..}`.
    ///
    /// Defaults to `{"type": "object", "properties": {}}`.
    pub fn parameters(mut self, schema: Value) -> Self {
        self.parameters = Some(schema);
        self
    }

    /// Asks providers that support it for strict schema adherence. Appears in the OpenAI,
    /// flat and Anthropic shapes only when set. With `true`, those shapes carry the
    /// parameters compiled for each provider's strict mode (see [`crate::dialect`]), `build`
    /// fails if they cannot be, and the `null`s that strict mode sends for optional
    /// properties are dropped before the arguments are validated.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = Some(strict);
        self
    }

    /// Example arguments, shown to Anthropic models as `input_examples`. Each must be an
    /// object that matches the parameters.
    pub fn input_examples(mut self, examples: Vec<Value>) -> Self {
        self.input_examples = examples;
        self
    }

    /// Anthropic prompt-cache control, for example `{"type": "ephemeral"}`; appears only in the
    /// Anthropic shape.
    pub fn cache_control(mut self, cache_control: Value) -> Self {
        self.cache_control = Some(cache_control);
        self
    }

    /// The JSON Schema of the tool's structured output (its results' `json`), published as
    /// MCP's `outputSchema`. A successful result whose payload does not match it becomes a
    /// [`FailureKind::InvalidOutput`](crate::FailureKind::InvalidOutput) failure. Its root
    /// must be an object schema, as MCP requires.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Bounds the size and nesting of the arguments this tool accepts; calls beyond them fail
    /// with [`FailureKind::InvalidInput`](crate::FailureKind::InvalidInput) before the schema is
    /// consulted. Defaults to [`ArgumentLimits::DEFAULT`]: 64 levels and 1 MiB.
    pub fn limits(mut self, limits: ArgumentLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Bounds the media parts of this tool's results (see [`media`](crate::media)): a result
    /// with a part or a total over them, or a part whose bytes contradict its declared MIME
    /// type, becomes a [`FailureKind::InvalidOutput`](crate::FailureKind::InvalidOutput)
    /// failure that names the part. Defaults to [`PartLimits::default`]: 20 MiB per part and
    /// 32 MiB per result.
    pub fn part_limits(mut self, limits: PartLimits) -> Self {
        self.part_limits = limits;
        self
    }

    /// Sets an async handler. It runs as a future that is dropped when the call is aborted or
    /// times out, so it stops at its next `.await`.
    ///
    /// The handler may return a [`ToolResult`](crate::ToolResult) or a
    /// `Result<ToolResult, E: Display>`.
    pub fn execute<F, Fut, R>(mut self, handler: F) -> Self
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        self.handler = Some(Handler::from_async(handler));
        self
    }

    /// Sets a sync handler. It runs on the caller's task when the call is first polled, so it
    /// cannot be interrupted: keep it short, and use [`ToolBuilder::execute`] for slow work.
    /// A result that arrives after the signal fired, or after the deadline, is replaced by the
    /// aborted or timed-out result.
    pub fn execute_sync<F, R>(mut self, handler: F) -> Self
    where
        F: Fn(Value, ToolContext) -> R + Send + Sync + 'static,
        R: IntoToolResult,
    {
        self.handler = Some(Handler::from_sync(handler));
        self
    }

    /// Checks the definition and compiles the parameter schema. Provider shapes and dialects
    /// are computed on first use, except that a strict tool is compiled for OpenAI's and
    /// Anthropic's strict modes here.
    ///
    /// # Errors
    ///
    /// A [`DefineError`] naming the tool when the name is not `^[a-zA-Z0-9_-]{1,64}$`, the
    /// parameters are not a valid object schema (or hold more than 100,000 JSON values, or
    /// nest deeper than 100 levels), an input example does not match them, a strict tool's
    /// parameters cannot be made strict, or no handler was set.
    pub fn build(self) -> Result<Tool, DefineError> {
        let name = self.name;
        let fail = |kind, detail| DefineError::new(kind, &name, detail);
        check_name(&name).map_err(|d| fail(DefineErrorKind::InvalidName, d))?;
        let parameters = self.parameters.unwrap_or_else(schema::empty_object);
        if let Err(why) = check_nesting(&parameters, &self.input_examples, self.limits) {
            drop_iteratively(parameters);
            self.input_examples.into_iter().for_each(drop_iteratively);
            return Err(fail(why.0, why.1));
        }
        schema::check_parameters(&parameters)
            .map_err(|d| fail(DefineErrorKind::InvalidParameters, d))?;
        let validator = CompiledSchema::compile(&parameters)
            .map_err(|d| fail(DefineErrorKind::InvalidParameters, d))?;
        check_examples(&self.input_examples, &validator)
            .map_err(|d| fail(DefineErrorKind::InvalidExample, d))?;
        let output = compile_output(self.output_schema.as_ref())
            .map_err(|d| fail(DefineErrorKind::InvalidOutputSchema, d))?;
        let handler = self.handler.ok_or_else(|| {
            fail(
                DefineErrorKind::MissingHandler,
                "call execute or execute_sync before build".into(),
            )
        })?;
        let parameters = Arc::new(parameters);
        let dialects = Dialects::new(Arc::clone(&parameters));
        let strict = self.strict == Some(true);
        if strict {
            for dialect in [Dialect::OpenAiStrict, Dialect::AnthropicStrict] {
                dialects.get(dialect).map_err(|e| {
                    fail(DefineErrorKind::InvalidParameters, format!("cannot be made strict: {e}"))
                })?;
            }
        }
        let shapes = Shapes::new(Extras {
            strict: self.strict,
            input_examples: self.input_examples,
            cache_control: self.cache_control,
            output_schema: self.output_schema,
            annotations: self.annotations,
        });
        let inner = ToolInner {
            name: name.into(),
            description: self.description,
            parameters,
            validator,
            output,
            limits: self.limits,
            part_limits: self.part_limits,
            task_support: self.task_support,
            asks_for_input: self.asks_for_input,
            strict,
            dialects,
            hooks: self.hooks,
            shapes,
            handler,
        };
        Ok(Tool { inner: Arc::new(inner) })
    }
}

/// Checks and compiles an output schema, like a parameter schema.
fn compile_output(schema: Option<&Value>) -> Result<Option<CompiledSchema>, String> {
    let Some(schema) = schema else { return Ok(None) };
    check_limits(schema, SCHEMA_LIMITS)?;
    check_schema_size(schema)?;
    schema::check_parameters(schema)?;
    CompiledSchema::compile(schema).map(Some)
}

/// Rejects a parameter schema or an example nested too deeply to check without risking the
/// stack; the schema may be nested [`SCHEMA_LIMITS`] deep, examples as deep as arguments.
fn check_nesting(
    parameters: &Value,
    examples: &[Value],
    limits: ArgumentLimits,
) -> Result<(), (DefineErrorKind, String)> {
    let invalid = |d| (DefineErrorKind::InvalidParameters, d);
    check_limits(parameters, SCHEMA_LIMITS).map_err(invalid)?;
    check_schema_size(parameters).map_err(invalid)?;
    for (index, example) in examples.iter().enumerate() {
        check_limits(example, limits)
            .map_err(|d| (DefineErrorKind::InvalidExample, format!("example {index}: {d}")))?;
    }
    Ok(())
}

/// How large and deep a parameter or output schema may be as JSON, checked first so that the
/// walks after it are safe; [`check_schema_size`] then caps its values and subschema depth.
const SCHEMA_LIMITS: ArgumentLimits =
    ArgumentLimits { max_depth: 128, max_bytes: 16 * 1024 * 1024 };

/// Every example must be an object that the parameters accept.
fn check_examples(examples: &[Value], validator: &CompiledSchema) -> Result<(), String> {
    for (index, example) in examples.iter().enumerate() {
        validator.validate(example).map_err(|why| format!("example {index}: {why}"))?;
    }
    Ok(())
}

impl std::fmt::Debug for ToolBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolBuilder")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("has_handler", &self.handler.is_some())
            .finish_non_exhaustive()
    }
}
