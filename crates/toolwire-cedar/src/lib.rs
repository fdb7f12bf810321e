//! Cedar policies for toolwire: rules on who calls which tool with which arguments, written
//! in [Cedar](https://www.cedarpolicy.com), checked against a schema made from the tools,
//! and decided in the registry's policy step.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
//! use serde_json::json;
//! use toolwire::{FailureKind, Principal, Registry, Tool, ToolResult};
//! use toolwire_cedar::CedarPolicy;
//!
//! let read_file = Tool::define("read_file")
//!     .parameters(json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}))
//!     .read_only(true)
//!     .execute_sync(|args, _| ToolResult::ok(args.clone(), "read"))
//!     .build()?;
//! let policy = CedarPolicy::from_text(r#"
//!     @id("docs") permit(principal, action == Action::"read_file", resource)
//!     when { context.input.path like "docs/*" };
//!     @id("no-traversal") @reason("paths may not climb out of docs/")
//!     forbid(principal, action == Action::"read_file", resource)
//!     when { context.input.path like "*..*" };
//! "#)?;
//! let registry = Registry::builder().register(read_file).policy(policy).seal()?;
//!
//! let ok = registry.invoke("read_file", json!({"path": "docs/a.md"})).principal(Principal::user("ada")).await;
//! assert!(ok.result.is_success());
//! let climb = registry.invoke("read_file", json!({"path": "docs/../secrets"})).await;
//! assert_eq!(climb.result.failure_kind(), Some(FailureKind::Denied));
//! assert_eq!(climb.policy.as_ref().map(|p| p.policies[0].as_ref()), Some("no-traversal"));
//! let elsewhere = registry.invoke("read_file", json!({"path": "etc/passwd"})).await;
//! assert_eq!(elsewhere.result.failure_kind(), Some(FailureKind::Denied));
//! # Ok::<_, Box<dyn std::error::Error>>(()) })?; Ok(()) }
//! ```
//!
//! A policy sees the arguments as the model sent them: `docs/../secrets` matches
//! `docs/*`, and so does a symbolic link under `docs/` that points elsewhere. Text rules
//! cannot resolve paths; pair a path rule with the tool's sandbox (`toolwire-process`'s
//! `read` list), which the kernel enforces on the resolved path. See [`CedarPolicy`] for the
//! request each call makes.

mod error;
mod policy;
mod report;
mod shape;
mod source;
mod value;
mod watch;
mod world;

pub use error::{CedarError, CedarErrorKind};
pub use policy::CedarPolicy;
pub use report::Report;
pub use watch::Watch;
