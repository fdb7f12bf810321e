//! The integration tests of toolwire-mcp: its server, its client, and interop with the official SDK.
//!
//! One test binary for the crate: each file of this folder is a module of it, so the
//! dependency graph is linked once, not once per file.

// A test fails by panicking: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod client_support;
mod common;

mod client_calls;
mod client_config;
mod client_direct;
mod client_drift;
mod client_elicitation;
mod client_input;
mod client_pool;
mod client_tasks;
mod client_transports;
mod direct_calls;
mod http_guard;
mod http_sessions;
mod interop;
mod mrtr;
mod named_clients;
mod python_sdk;
mod revision_2026;
mod server_catalog;
mod server_peer;
mod server_settings;
mod tasks;
mod traces;
