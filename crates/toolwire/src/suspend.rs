//! Suspension (human in the loop): a tool parks a call with a [`Request`], the host answers it
//! with an [`Answer`], and the call runs again with that answer in its context.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), toolwire::DefineError> {
//! use serde_json::{json, Value};
//! use toolwire::{Answer, Request, Tool, ToolContext, ToolResult};
//!
//! let deploy = Tool::define("deploy")
//!     .asks_for_input(true)
//!     .execute_sync(|_args: Value, ctx: ToolContext| match ctx.answer() {
//!         None => ToolResult::pending(Request::new("input", "Which environment?")),
//!         Some(answer) if answer.ok => {
//!             let env = answer.data["env"].as_str().unwrap_or("unknown");
//!             ToolResult::ok(json!({"env": env}), format!("deployed to {env}"))
//!         }
//!         Some(answer) => ToolResult::failure(format!(
//!             "declined: {}",
//!             answer.reason.as_deref().unwrap_or("no reason")
//!         )),
//!     })
//!     .build()?;
//!
//! let first = deploy.execute(json!({})).await;
//! let request = first.pending_request().expect("the tool asks first");
//! let answer = Answer::accept(request.id.clone(), json!({"env": "staging"}));
//! let second = deploy.execute(json!({})).answer(answer).await;
//! assert_eq!(second.text(), Some("deployed to staging"));
//! # Ok(()) }
//! ```

pub use crate::record::{Answer, Request};
