//! The agent loop over [toolwire]: a model, a registry of tools, and the loop between
//! them, with real model clients for OpenAI Chat Completions, OpenAI Responses, Anthropic
//! Messages and Gemini.
//!
//! An [`Agent`] asks its [`ModelClient`] for a turn, runs the calls the model made through
//! the registry (policy, approvals, validation, deadlines and all), hands the results back,
//! and goes on until the model stops, a turn limit is reached, the model repeats itself, or
//! calls wait for a human. A call starts the moment its arguments are complete in the
//! stream, while the model is still writing the next one. A run that waits ends
//! [`Pending`](StopReason::Pending) with a serializable [`RunState`];
//! [`Agent::resume`] continues it with the answers, in this process or another.
//!
//! A registry that defers tools (see [`Registry::is_deferred`](toolwire::Registry::is_deferred);
//! from 100 tools, unless set otherwise) is offered as a catalog: each turn sends the loaded
//! tools and [`SEARCH_TOOL`], the agent answers each search itself, the tools found reach the
//! model in the provider's own form (see [`CatalogForm`](toolwire::provider::CatalogForm)),
//! and a call of a deferred tool that no earlier search of the run found is refused, its
//! receipt saying why. The finds are kept in [`RunState::found_tools`].
//!
//! Runs need a Tokio runtime with timers and I/O: calls run as Tokio tasks, and the HTTP
//! clients use Tokio's sockets.
//!
//! # Example
//!
//! A model client is anything that implements [`ModelClient`]; here a scripted one stands
//! in for [`HttpClient`].
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use serde_json::json;
//! use toolwire::{Provider, Registry, Tool, ToolCall, ToolResult};
//! use toolwire_agent::{Agent, BoxFuture, Error, ModelClient, ModelRequest, ModelTurn, TurnSink};
//!
//! /// Calls `add` once, then answers with the result it was given.
//! struct Scripted;
//!
//! impl ModelClient for Scripted {
//!     fn provider(&self) -> Provider { Provider::OpenAi }
//!     fn model(&self) -> &str { "scripted" }
//!     fn complete<'a>(&'a self, request: ModelRequest<'a>, sink: &'a mut dyn TurnSink)
//!         -> BoxFuture<'a, Result<ModelTurn, Error>> {
//!         Box::pin(async move {
//!             let last = request.messages.last().cloned().unwrap_or_default();
//!             if last["role"] == "tool" {
//!                 let text = format!("the sum is {}", last["content"].as_str().unwrap_or("?"));
//!                 sink.text(&text);
//!                 let assistant = vec![json!({"role": "assistant", "content": text})];
//!                 return Ok(ModelTurn::new(assistant, vec![]).with_text(text));
//!             }
//!             let call = ToolCall::new("call_1", "add", json!({"a": 2, "b": 3}));
//!             sink.call(&call);
//!             let assistant = vec![json!({"role": "assistant", "content": null, "tool_calls": [
//!                 {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{\"a\":2,\"b\":3}"}}]})];
//!             Ok(ModelTurn::new(assistant, vec![call]))
//!         })
//!     }
//! }
//!
//! let add = Tool::define("add")
//!     .execute_sync(|args, _| {
//!         let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
//!         ToolResult::ok(json!(null), sum.to_string())
//!     })
//!     .build()?;
//! let agent = Agent::builder(Scripted, Registry::builder().register(add).seal()?).build();
//!
//! let outcome = agent.run("what is 2 + 3?").await;
//! assert!(outcome.is_finished());
//! assert_eq!(outcome.text, "the sum is 5");
//! assert_eq!(outcome.receipts[0].result.text(), Some("5"));
//! // user, assistant with the call, the call's result, the answer.
//! assert_eq!(outcome.state.messages.len(), 4);
//! # Ok(()) }
//! ```
//!
//! With a real provider the client is an [`HttpClient`]:
//! `HttpClient::from_spec("anthropic:claude-sonnet-4-5")?.api_key_from_env().build()?`, and
//! `.base_url("http://127.0.0.1:8000/v1")` points an `openai:` client at any compatible server.
//!
//! # Traces
//!
//! A run is one `tracing` span, `invoke_agent`, and each model request a `chat` span inside
//! it, named and labelled as the OpenTelemetry GenAI conventions (semantic-conventions-genai
//! v0.1.0) describe an agent: `otel.name` (`chat {model}`), `otel.kind`,
//! `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`,
//! `gen_ai.conversation.id` (the run's id) and `gen_ai.response.finish_reasons`. The tool
//! calls' `execute_tool` spans are children of the request that made them. Token usage is
//! not recorded yet.
//!
//! # Where to look next
//!
//! - [`Agent`] and [`AgentBuilder`]: limits, events, the store of pending runs.
//! - [`RunStore`]: where pending runs wait. [`MemoryStore`] keeps them in this process; with
//!   the `journal` feature, a `toolwire_journal::Journal` keeps them in SQLite or PostgreSQL,
//!   where any process can answer their requests (`Journal::answer_run`) and
//!   [`Agent::resume_stored`] continues them, one resume at a time.
//! - [`RunOutcome`], [`StopReason`] and [`RunState`]: how a run ended, and resuming it.
//! - [`HttpClient`] and [`RetryPolicy`]: the providers over HTTP, with streaming, timeouts,
//!   retries that honour `Retry-After` and rate-limit headers, and cancellation.

#![forbid(unsafe_code)]

mod client;
mod error;
mod run;

pub use client::{
    BoxFuture, Finish, HttpClient, HttpClientBuilder, IgnoreTurn, ModelClient, ModelRequest,
    ModelTurn, RetryPolicy, TurnSink, Usage, parse_provider,
};
pub use error::{Error, ErrorKind};
pub use run::{
    Agent, AgentBuilder, AgentEvent, DEFAULT_MAX_CALLS_PER_TURN, DEFAULT_MAX_TURNS,
    DEFAULT_REPETITION_LIMIT, MemoryStore, PendingCall, PendingTurn, Run, RunOutcome, RunState,
    RunStore, StopReason, StoredRun,
};
/// The tool search a run offers when its registry defers tools, re-exported from the core.
pub use toolwire::registry::{SEARCH_TOOL, search_tool};

/// Installs rustls's `ring` crypto provider as the process default, unless one is installed
/// already: the one function of the core, [`toolwire::install_tls_provider`], re-exported for
/// hosts that build their own `reqwest` clients beside this crate's.
pub use toolwire::install_tls_provider;
