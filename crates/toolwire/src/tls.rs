//! The process-wide TLS provider that the HTTPS clients of toolwire's other crates need.

/// Installs rustls's `ring` crypto provider as the process default, unless one is installed
/// already (the host's own wins).
///
/// toolwire-agent's model clients and toolwire-mcp's HTTP client use `reqwest` built with
/// rustls but without a provider of its own, so every `reqwest` client in such a program needs a
/// process default before it is built: those crates call this first, and a host that makes its
/// own `reqwest` clients should too. It is one function, here, so that every crate installs the
/// same provider. Without the `rustls` feature it does nothing.
pub fn install_tls_provider() {
    #[cfg(feature = "rustls")]
    {
        // An error means a provider is installed already, which is what we want.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}
