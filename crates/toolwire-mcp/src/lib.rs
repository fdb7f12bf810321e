//! The Model Context Protocol bridge for toolwire: serve a [`Registry`] to any MCP
//! client, and import any MCP server's tools as toolwire [`Tool`](toolwire::Tool)s.
//!
//! Built on [`rmcp`], the official Rust SDK.
//!
//! # Features
//!
//! Each part is a Cargo feature, as in rmcp; all are on by default.
//!
//! - `server`: the `server` module, a registry served to MCP clients;
//! - `client`: the `client` module, the tools of MCP servers imported as toolwire tools;
//! - `stdio`: standard input and output (`serve_stdio`; servers run as child processes);
//! - `server-http`: streamable HTTP for the server (`serve_http` and `router`, with axum);
//! - `client-http`: streamable HTTP for the client (servers reached over HTTP, with reqwest);
//! - `http`: both;
//! - `auth`: logging in to servers that need OAuth (`client::oauth`), on rmcp's `auth`;
//! - `rustls`: HTTPS for the client's HTTP connections, through rustls and `ring`.
//!
//! A program that only serves over stdio builds neither axum nor reqwest:
//!
//! ```toml
//! toolwire-mcp = { version = "0.1", default-features = false, features = ["server", "stdio"] }
//! ```

#![forbid(unsafe_code)]

#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "server")]
pub mod server;
#[cfg(any(feature = "client", feature = "server"))]
mod trace;
#[cfg(any(feature = "client", feature = "server"))]
mod trace_context;

#[cfg(any(feature = "client", feature = "server"))]
mod parts;
mod revision;

pub use revision::{Revision, UnknownRevision};
pub use toolwire::Registry;

/// Installs rustls's `ring` crypto provider as the process default, unless one is installed
/// already: the one function of the core, [`toolwire::install_tls_provider`], re-exported for
/// hosts that build their own `reqwest` clients beside this crate's.
pub use toolwire::install_tls_provider;
