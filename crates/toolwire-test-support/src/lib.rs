//! What the tests and benchmarks of toolwire's crates share, so that no crate reaches into
//! another's `tests/` folder: each is a dev-dependency's module, built once.
//!
//! - `spans` (feature `spans`): a `tracing` layer that keeps every span as it closes;
//! - `pg` (feature `postgres`): the throwaway PostgreSQL server of a test process;
//! - [`python`]: the official MCP Python SDK in a virtual environment of the target folder;
//! - [`recorded`]: each model provider's recorded replies and streams;
//! - `landlock` (feature `landlock`, Linux): a kernel without Landlock, for one process.
//!
//! Not published. A failed setup fails the test that asked for it: these panic where a
//! library would return an error.

#![forbid(unsafe_code)]
// Test support: a setup that cannot be done fails the test, by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[cfg(all(feature = "landlock", target_os = "linux"))]
pub mod landlock;
#[cfg(feature = "postgres")]
pub mod pg;
pub mod python;
pub mod recorded;
#[cfg(feature = "spans")]
pub mod spans;
