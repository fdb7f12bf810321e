//! The Model Context Protocol bridge for toolwire: serve a [`Registry`] to any MCP
//! client, and import any MCP server's tools as toolwire [`Tool`](toolwire::Tool)s.
//!
//! Built on [`rmcp`], the official Rust SDK.

#![forbid(unsafe_code)]
#![warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod client;
pub mod server;

pub use toolwire::Registry;

/// Installs rustls's `ring` crypto provider as the process default, unless one is installed
/// already (the host's own wins). With the `rustls` feature, reqwest (which rmcp's HTTP client
/// uses) is built with TLS but no provider of its own, so every reqwest client in the program
/// needs one: the client calls this before it connects over HTTP, and a host that makes its
/// own reqwest clients should call it first. Without the feature it does nothing.
pub fn install_tls_provider() {
    #[cfg(feature = "rustls")]
    {
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}
