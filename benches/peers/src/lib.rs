//! toolwire measured side by side with the Rust tool runtimes its users already know.
//!
//! Each module builds the same tools on one runtime and calls them the way that runtime's
//! own documentation does:
//!
//! - [`toolwire_side`]: `Tool::execute`, and `Registry::invoke` with and without validation;
//! - [`toolnexus_side`]: `toolnexus` 0.23, `Toolkit::execute` and `Tool::call`;
//! - [`rig_side`]: `rig-core` 0.44, `DynamicTool` handlers kept in a name-keyed map, since 0.44
//!   has no `ToolSet`;
//! - [`rmcp_side`]: `rmcp` 3.x, `ToolRouter::call` in process, without a transport.
//!
//! The workloads are in [`workload`]; the benchmarks in `benches/`. Run them with
//! `cargo bench -p peers`; `BENCHMARKS.md` at the workspace root has the figures.

// The benchmarks' own code: a run that cannot set up stops, so it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod block;
pub mod concurrent;
pub mod rig_side;
pub mod rmcp_side;
pub mod toolnexus_side;
pub mod toolwire_side;
pub mod workload;
