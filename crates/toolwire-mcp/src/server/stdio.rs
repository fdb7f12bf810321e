//! Serving over stdio, for clients that start the server as a child process.

use rmcp::ServiceExt;

use super::{Extras, McpServer};

impl<H: Extras> McpServer<H> {
    /// Serves one session over this process's standard input and output until the client
    /// closes it.
    ///
    /// # Errors
    ///
    /// The I/O error that ended the session, or the client's failed handshake.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future ends the session; calls still running are dropped with it.
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        let running = self
            .session()
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| std::io::Error::other(format!("the MCP handshake failed: {e}")))?;
        running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| std::io::Error::other(format!("the MCP session failed: {e}")))
    }
}
