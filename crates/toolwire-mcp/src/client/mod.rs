//! Importing MCP servers' tools.
