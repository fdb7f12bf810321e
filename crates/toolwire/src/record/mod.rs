//! The records: plain data that every part of toolwire passes around, stores and translates.
//!
//! [`ToolCall`], [`Receipt`], [`ToolResult`], [`FailureKind`], [`InvocationId`], [`CallId`],
//! [`Request`] and [`Answer`] sit at the bottom of the crate: they depend on nothing above
//! them, so the registry, the provider modules, and the bridges built on toolwire (MCP, the
//! journal, the agent loop) all speak them without depending on each other.
//!
//! Each record implements `Serialize` and `Deserialize`, and a value read back equals the
//! value written, with one documented exception: a [`ToolResult`] on its own serializes in
//! the seeds' shape `{"success", "json", "text"}`, which does not say *why* a call failed.
//! A [`Receipt`] carries that reason beside its result, so a receipt read from storage keeps
//! it:
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use serde_json::json;
//! use toolwire::{FailureKind, Receipt, Registry, Tool, ToolResult};
//!
//! let tool = Tool::define("deny").execute_sync(|_, _| ToolResult::failure("no")).build()?;
//! let registry = Registry::builder().register(tool).seal()?;
//! let receipt = registry.invoke("missing", json!({})).call_id("call_1").await;
//!
//! let stored = serde_json::to_string(&receipt)?;
//! let read: Receipt = serde_json::from_str(&stored)?;
//! assert_eq!(read, receipt);
//! assert_eq!(read.result.failure_kind(), Some(FailureKind::UnknownTool));
//! # Ok(()) }
//! ```
//!
//! The records a user builds ([`ToolCall`], [`Receipt`], [`Request`], [`Answer`]) are
//! `#[non_exhaustive]`, so that a new field breaks no code outside toolwire: each is built
//! through its constructor and setters, never as a struct literal.
//!
//! ```compile_fail
//! # use toolwire::ToolCall;
//! fn copy(call: ToolCall) -> ToolCall {
//!     ToolCall { ..call } // E0639: outside toolwire, only a constructor builds one
//! }
//! ```
//!
//! ```compile_fail
//! # use toolwire::Receipt;
//! fn copy(receipt: Receipt) -> Receipt {
//!     Receipt { ..receipt }
//! }
//! ```
//!
//! ```compile_fail
//! # use toolwire::Request;
//! fn copy(request: Request) -> Request {
//!     Request { ..request }
//! }
//! ```
//!
//! ```compile_fail
//! # use toolwire::Answer;
//! fn copy(answer: Answer) -> Answer {
//!     Answer { ..answer }
//! }
//! ```

mod call;
mod id;
mod principal;
mod receipt;
mod result;
mod ruling;
mod suspend;
mod text;

pub use call::{CallId, ToolCall};
pub use id::{InvocationId, ParseIdError, ParseIdErrorKind};
pub use principal::{Principal, PrincipalKind};
pub use receipt::Receipt;
pub use result::{FailureKind, ToolResult};
pub use ruling::{PolicyOutcome, PolicyRecord};
pub use suspend::{Answer, Request};
pub(crate) use text::{clip, floor};
