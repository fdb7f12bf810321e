//! [`Tool`]: a defined tool, described to providers and executed safely.

pub(crate) mod annotations;
mod asks;
mod builder;
mod hints;
pub(crate) mod hooks;
mod task_support;

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

pub use annotations::Annotations;
pub use builder::ToolBuilder;
pub use hooks::Proposal;
pub use task_support::TaskSupport;

use crate::dialect::{CompileError, Compiled, Dialect, Dialects};
use crate::handler::Handler;
use crate::media::PartLimits;
use crate::provider::{Provider, Shapes, Source};
use crate::schema::{ArgumentLimits, CompiledSchema};
use hooks::Hooks;

/// A tool: a name, a description, a parameter schema and a handler.
///
/// A `Tool` is immutable once built and cheap to clone (one reference count). Its parameter
/// schema is compiled once, by [`ToolBuilder::build`]; each provider shape and each dialect is
/// computed on first use and kept, so a call clones no schema and no description.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), toolwire::DefineError> {
/// use serde_json::{json, Value};
/// use toolwire::{Tool, ToolContext, ToolResult};
///
/// let double = Tool::define("double")
///     .description("Double a number")
///     .parameters(json!({
///         "type": "object",
///         "properties": {"n": {"type": "number"}},
///         "required": ["n"]
///     }))
///     .execute_sync(|args: Value, _ctx: ToolContext| {
///         let n = args["n"].as_f64().unwrap_or(0.0);
///         ToolResult::ok(json!({"value": n * 2.0}), format!("{n} x 2 = {}", n * 2.0))
///     })
///     .build()?;
///
/// assert_eq!(double.schema()["function"]["name"], "double");
/// let result = double.execute(json!({"n": 21})).await;
/// assert_eq!(result.json(), &json!({"value": 42.0}));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Tool {
    inner: Arc<ToolInner>,
}

/// Everything a tool holds; shared by every clone.
pub(crate) struct ToolInner {
    pub(crate) name: Arc<str>,
    pub(crate) description: Option<String>,
    /// The parameters as written, shared with the dialects compiled from them.
    pub(crate) parameters: Arc<Value>,
    pub(crate) validator: CompiledSchema,
    /// The compiled output schema, if the tool declared one.
    pub(crate) output: Option<CompiledSchema>,
    pub(crate) limits: ArgumentLimits,
    /// How large its results' media parts may be.
    pub(crate) part_limits: PartLimits,
    /// Whether a bridge may run its calls as tasks.
    pub(crate) task_support: TaskSupport,
    /// Whether the handler may ask for input of its own.
    pub(crate) asks_for_input: bool,
    /// Marked `strict(true)`: optional properties may arrive as `null`.
    pub(crate) strict: bool,
    /// The parameters compiled for each dialect, on first use.
    pub(crate) dialects: Dialects,
    pub(crate) hooks: Hooks,
    pub(crate) shapes: Shapes,
    pub(crate) handler: Handler,
}

impl Tool {
    /// Starts defining a tool called `name`, the name the model calls it by.
    pub fn define(name: impl Into<String>) -> ToolBuilder {
        ToolBuilder::new(name.into())
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The tool's description, if it has one.
    pub fn description(&self) -> Option<&str> {
        self.inner.description.as_deref()
    }

    /// The tool's name, shared: cloning it is a reference-count bump.
    pub fn shared_name(&self) -> Arc<str> {
        Arc::clone(&self.inner.name)
    }

    /// The hints set with [`ToolBuilder::title`], [`read_only`](ToolBuilder::read_only),
    /// [`destructive`](ToolBuilder::destructive), [`idempotent`](ToolBuilder::idempotent) and
    /// [`open_world`](ToolBuilder::open_world).
    pub fn annotations(&self) -> &Annotations {
        self.inner.shapes.annotations()
    }

    /// Whether the tool was declared [`idempotent`](ToolBuilder::idempotent).
    pub fn is_idempotent(&self) -> bool {
        self.annotations().idempotent_hint == Some(true)
    }

    /// Whether the tool has an approval rule of its own
    /// ([`needs_approval`](ToolBuilder::needs_approval) or a rule function).
    pub(crate) fn has_approval_rule(&self) -> bool {
        self.inner.hooks.approval.is_some()
    }

    /// The server the tool comes from, set with [`ToolBuilder::server`], if any.
    pub fn server(&self) -> Option<&str> {
        self.inner.hooks.server.as_deref()
    }

    /// The grouping declared with [`ToolBuilder::kind`], if any.
    pub fn kind(&self) -> Option<&str> {
        self.inner.hooks.kind.as_deref()
    }

    /// Whether the tool was marked with [`ToolBuilder::as_intent`].
    pub fn is_intent(&self) -> bool {
        self.inner.hooks.as_intent
    }

    /// Whether the tool is active for the application state `state`: always, unless it has
    /// an [`active`](ToolBuilder::active) condition, which then decides.
    pub fn is_active<S: Any>(&self, state: &S) -> bool {
        self.is_active_for(Some(state))
    }

    /// Whether the tool is active for `state`; a condition that panics counts as inactive.
    pub(crate) fn is_active_for(&self, state: Option<&dyn Any>) -> bool {
        self.activity(state).unwrap_or(false)
    }

    /// The tool's `active` condition for `state`, with a panic caught.
    pub(crate) fn activity(&self, state: Option<&dyn Any>) -> std::thread::Result<bool> {
        match &self.inner.hooks.active {
            None => Ok(true),
            Some(active) => {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| active(state)))
            }
        }
    }

    /// The JSON Schema of the tool's arguments.
    pub fn parameters(&self) -> &Value {
        &self.inner.parameters
    }

    /// The default description: the OpenAI Chat Completions shape, as [`Tool::to_openai`].
    pub fn schema(&self) -> &Value {
        self.to_openai()
    }

    /// `{"type": "function", "function": {"name", "description"?, "parameters", "strict"?}}`.
    pub fn to_openai(&self) -> &Value {
        self.definition(Provider::OpenAi)
    }

    /// `{"name", "description"?, "parameters", "strict"?}`.
    pub fn to_flat_function(&self) -> &Value {
        self.definition(Provider::FlatFunction)
    }

    /// `{"name", "description"?, "input_schema", "input_examples"?, "strict"?,
    /// "cache_control"?}`.
    pub fn to_anthropic(&self) -> &Value {
        self.definition(Provider::Anthropic)
    }

    /// An OpenAI Responses function tool: `{"type": "function", "name", "description"?,
    /// "parameters", "strict"}`.
    pub fn to_responses(&self) -> &Value {
        self.definition(Provider::Responses)
    }

    /// A Gemini `functionDeclaration`: `{"name", "description"?, "parametersJsonSchema"}`.
    pub fn to_gemini(&self) -> &Value {
        self.definition(Provider::Gemini)
    }

    /// An MCP `tools/list` entry: `{"name", "description"?, "inputSchema", "outputSchema"?}`.
    pub fn to_mcp(&self) -> &Value {
        self.definition(Provider::Mcp)
    }

    /// How large its results' parts may be; see [`ToolBuilder::part_limits`].
    pub fn part_limits(&self) -> PartLimits {
        self.inner.part_limits
    }

    /// The size and nesting limits its arguments are checked against.
    pub fn limits(&self) -> ArgumentLimits {
        self.inner.limits
    }

    /// The parameters compiled for `dialect`, with the report of what changed; computed on
    /// first use and kept (a strict tool's OpenAI and Anthropic strict ones when it was built).
    ///
    /// # Errors
    ///
    /// What the dialect cannot express in the parameters.
    pub fn compiled(&self, dialect: Dialect) -> Result<&Compiled, &CompileError> {
        self.inner.dialects.get(dialect)
    }

    /// The tool described in `provider`'s wire shape, built on first use and kept.
    pub fn definition(&self, provider: Provider) -> &Value {
        let inner = &*self.inner;
        let source = Source {
            name: &inner.name,
            description: inner.description.as_deref(),
            parameters: &inner.parameters,
            dialects: &inner.dialects,
        };
        inner.shapes.get(provider, &source)
    }

    pub(crate) fn inner(&self) -> &ToolInner {
        &self.inner
    }
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.inner.name)
            .field("description", &self.inner.description)
            .field("parameters", &self.inner.parameters)
            .finish_non_exhaustive()
    }
}
