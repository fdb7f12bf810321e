//! Define a tool once, describe it to every LLM provider, and execute the calls a model makes
//! safely.
//!
//! A [`Tool`] has a name, a description, a JSON Schema for its arguments and a handler. It
//! describes itself in the wire shapes of OpenAI, Anthropic, Gemini and MCP, computed once.
//! A call validates the arguments, can be aborted through an [`AbortSignal`] or given a
//! deadline, can report progress, and can pause for a human and be resumed. A [`Registry`]
//! runs the calls of a whole model turn, authorized against the host's state, with a receipt
//! for each. Whatever happens, a call yields a [`ToolResult`] the model can read: errors, panics, aborts and
//! timeouts are values, never crashes.
//!
//! # Quick start
//!
//! ```
//! use std::time::Duration;
//! use serde_json::{json, Value};
//! use toolwire::{AbortController, FailureKind, Tool, ToolContext, ToolResult};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), toolwire::DefineError> {
//! // Define a tool.
//! let double = Tool::define("double")
//!     .description("Double a number")
//!     .parameters(json!({
//!         "type": "object",
//!         "properties": {"n": {"type": "number"}},
//!         "required": ["n"]
//!     }))
//!     .execute_sync(|args: Value, _ctx: ToolContext| {
//!         let n = args["n"].as_f64().unwrap_or(0.0);
//!         ToolResult::ok(json!({"value": n * 2.0}), format!("{n} x 2 = {}", n * 2.0))
//!     })
//!     .build()?;
//!
//! // Describe it to a provider.
//! assert_eq!(double.to_anthropic()["input_schema"]["required"], json!(["n"]));
//!
//! // Execute a call.
//! let result = double.execute(json!({"n": 21})).await;
//! assert_eq!(result.text(), Some("21 x 2 = 42"));
//!
//! // Bad arguments are a failed result the model can act on, and the handler never runs.
//! let bad = double.execute(json!({"n": "x"})).await;
//! assert_eq!(bad.failure_kind(), Some(FailureKind::InvalidInput));
//! assert!(bad.text().unwrap().contains("/n"));
//!
//! // Abort a slow call: the result comes back at once, and the handler's future is dropped.
//! let slow = Tool::define("slow")
//!     .execute(|_args, _ctx| async {
//!         tokio::time::sleep(Duration::from_secs(3600)).await;
//!         ToolResult::ok(json!({}), "done")
//!     })
//!     .build()?;
//! let ctl = AbortController::new();
//! let call = tokio::spawn(slow.execute(json!({})).signal(ctl.signal()).into_future());
//! ctl.abort_with("User cancelled");
//! assert_eq!(call.await.unwrap().text(), Some("User cancelled"));
//!
//! // Or give it a deadline.
//! let late = slow.execute(json!({})).timeout(Duration::from_millis(10)).await;
//! assert!(late.is_timed_out());
//! # Ok(())
//! # }
//! # use std::future::IntoFuture;
//! ```
//!
//! # Where to look next
//!
//! - [`Tool`] and [`ToolBuilder`]: defining and describing a tool.
//! - [`Execution`]: the options of a call, and the order of its steps.
//! - [`ToolContext`]: what a handler can read and report.
//! - [`suspend`]: pausing a call for a human with [`Request`] and resuming it with an
//!   [`Answer`].
//! - [`Registry`]: a sealed set of tools, invoked by name with a [`Receipt`] for every call,
//!   or many calls at once with [`Registry::dispatch`]; hooks such as
//!   [`authorize`](ToolBuilder::authorize) and [`active`](ToolBuilder::active) run in its
//!   pipeline, whose steps [`Execution`] lists.
//! - [`TypedTool`] and [`typed`]: tools over Rust types, with derived schemas.
//! - [`media`]: results that carry images, audio, files and resources as ordered
//!   [`Part`](media::Part)s, checked before anything is sent and rendered natively by each
//!   provider.
//! - [`provider`]: the calls in a model's reply, and the results back, for OpenAI, Anthropic
//!   and Gemini; names mapped across providers.
//! - [`dialect`]: one schema compiled for each provider's rules, with a report of the
//!   changes.
//! - [`ToolResult`] and [`FailureKind`]: what a call yields.
//! - [`telemetry`]: the `execute_tool` span of every call, as the OpenTelemetry GenAI
//!   conventions name it, its duration metric, and the trace link of a [`Receipt`].

#![forbid(unsafe_code)]

mod abort;
mod clock;
mod context;
pub mod dialect;
pub mod error;
mod execute;
mod handler;
pub mod media;
mod name;
mod pointer;
pub mod policy;
pub mod provider;
pub mod record;
pub mod registry;
mod schema;
mod state;
pub mod suspend;
pub mod tasks;
pub mod telemetry;
mod tls;
mod tool;
#[cfg(feature = "typed")]
pub mod typed;

pub use abort::{AbortController, AbortSignal, DEFAULT_ABORT_REASON};
pub use context::ToolContext;
pub use error::{DefineError, DefineErrorKind, SealError, SealErrorKind};
pub use execute::{CallOptions, ExecuteFuture, Execution};
pub use handler::IntoToolResult;
pub use provider::Provider;
pub use record::{
    Answer, CallId, FailureKind, InvocationId, Principal, PrincipalKind, Receipt, Request,
    ToolCall, ToolResult,
};
pub use registry::{
    DEFAULT_CONCURRENCY, DROPPED_CALL_TEXT, Dispatch, DispatchFuture, Invocation, InvokeFuture,
    Registry, RegistryBuilder,
};
pub use schema::ArgumentLimits;
pub use tls::install_tls_provider;
pub use tool::{Annotations, Proposal, TaskSupport, Tool, ToolBuilder};
#[cfg(feature = "typed")]
pub use typed::TypedTool;

/// Makes a [`TypedTool`] of a function: for `fn add`, it adds `AddTool` (pass it to
/// [`Tool::from_typed`]) and `AddArgs`. See [`typed`] for the trait.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), toolwire::DefineError> {
/// use serde_json::json;
/// use toolwire::{Tool, ToolContext, tool};
///
/// /// Add two numbers.
/// #[tool]
/// fn add(
///     /// The first number.
///     a: f64,
///     /// The second number.
///     b: f64,
/// ) -> f64 {
///     a + b
/// }
///
/// /// Say hello, once the caller's deadline allows.
/// #[tool]
/// async fn greet(name: String, ctx: ToolContext) -> Result<String, String> {
///     if ctx.signal().is_aborted() { Err("cancelled".into()) } else { Ok(format!("hello {name}")) }
/// }
///
/// let add = Tool::from_typed(AddTool)?;
/// assert_eq!(add.description(), Some("Add two numbers."));
/// assert_eq!(add.parameters()["properties"]["a"]["description"], "The first number.");
/// assert_eq!(add.execute(json!({"a": 1, "b": 2})).await.json(), &json!(3.0));
/// let greet = Tool::from_typed(GreetTool)?;
/// assert_eq!(greet.execute(json!({"name": "Ada"})).await.json(), &json!("hello Ada"));
/// # Ok(()) }
/// ```
#[cfg(feature = "macros")]
pub use toolwire_macros::tool;

/// What the code `#[tool]` generates refers to; not part of the API.
#[cfg(feature = "typed")]
#[doc(hidden)]
pub mod __private {
    pub use schemars;
    pub use serde;
}

/// The README's examples, compiled and run as doc tests so they stay true.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
