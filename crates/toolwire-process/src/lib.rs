//! Command tools for toolwire: a program run with arguments that a model chose, contained.
//!
//! - **No shell.** The argv is filled from [`Template`]s, one element per template, so a
//!   value never becomes two arguments or a shell command; a value starting with `-` in
//!   option position is refused ([`argv`]).
//! - **An environment allowlist**, a **timeout** and an **output limit** (stdout past it
//!   fails the call, stderr is cut at it); `::progress 2/5 copying` lines on stderr become
//!   progress events.
//! - **The process tree dies with the call**: the program leads a process group, killed
//!   whole when the call ends, times out or is aborted; a sandboxed one runs in a PID
//!   namespace of its own, whose every process dies with it.
//! - **A sandbox** ([`sandbox`]), on by default, the same under root: namespaces of its own,
//!   no capabilities, read everywhere, write only in the working folder, a private temporary
//!   folder and the write paths, toolwire's own files protected or hidden, no network,
//!   Landlock and seccomp, resource limits. It is applied by a [`launcher`] that the host runs
//!   first thing in `main`.
//!
//! ```no_run
//! use serde_json::json;
//! use toolwire::ToolContext;
//! use toolwire_process::{CommandSpec, CommandTool, Template};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! // First thing in `main`: a launcher applies the sandbox, then starts the program.
//! toolwire_process::launcher::run_if_requested();
//! let spec = CommandSpec::new("wc", vec![Template::parse("-c")?, Template::parse("--")?, Template::parse("{file}")?]);
//! let wc = CommandTool::new("wc", spec);
//! let result = wc.run(json!({"file": "Cargo.toml"}), ToolContext::default()).await;
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]

pub mod argv;
pub mod launcher;
mod resolve;
mod run;
pub mod sandbox;
mod spec;
mod template;

pub use resolve::program as resolve_program;
pub use run::CommandTool;
pub use spec::{CommandSpec, DEFAULT_OUTPUT_LIMIT, DEFAULT_TIMEOUT, MediaOutput};
pub use template::{Template, TemplateError};
