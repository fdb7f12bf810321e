//! The Model Context Protocol bridge for [toolwire](toolwire): serve a [`Registry`] to any MCP
//! client, and import any MCP server's tools as toolwire [`Tool`](toolwire::Tool)s.
//!
//! Built on [`rmcp`], the official Rust SDK.

#![forbid(unsafe_code)]
#![warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod client;
pub mod server;

pub use toolwire::Registry;
