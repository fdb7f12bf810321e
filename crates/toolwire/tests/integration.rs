//! The integration tests of toolwire.
//!
//! One test binary for the crate: each file of this folder is a module of it, so the
//! dependency graph is linked once, not once per file.

// A test fails by panicking: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

mod abort;
mod approvals;
mod bad_input;
mod call_options;
mod catalog;
mod concurrency;
mod context;
mod decoders_robust;
mod define;
mod describe;
mod dialect;
mod dialect_paths;
mod dialect_regressions;
mod dispatch;
mod execute;
mod macro_ui;
mod macros;
mod media;
mod model_api;
mod observability;
mod panics;
mod parse_errors;
mod parser_regressions;
mod pending_render;
mod pipeline;
mod policy_record;
mod properties;
mod providers;
mod records;
mod registry;
mod regressions;
mod responses_parallel;
mod search;
mod signal_model;
mod streaming;
mod streaming_anthropic;
mod streaming_gemini;
mod streaming_openai;
mod suspend;
mod task_store;
mod timeout;
mod typed;
