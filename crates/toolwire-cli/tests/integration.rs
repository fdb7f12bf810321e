//! The integration tests of the toolwire command.
//!
//! One test binary for the crate: each file of this folder is a module of it, so the
//! dependency graph is linked once, not once per file.

// A test fails by panicking: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

mod api_key;
mod bad_input;
mod call;
mod catalog;
mod commands;
mod crash;
mod escape;
mod help;
mod inbox;
mod inbox_browser;
mod journaled;
mod manifest_errors;
mod mcp_servers;
mod media;
mod oauth_login;
mod option_injection;
mod policy;
mod process_tree;
mod remote_questions;
mod sandbox_escape;
mod sdk_servers;
mod serve_shared;
mod terminal;
mod traces;
