//! Serving a registry over MCP.
