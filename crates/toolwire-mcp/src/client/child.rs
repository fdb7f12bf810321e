//! A server started as a child process, spoken to over its stdin and stdout, whose answers
//! are held to the connection's size limit by the [`Guard`]: an answer over it fails its call
//! at once, saying so.

use std::process::Stdio;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::process::{ChildStdin, ChildStdout};

use super::oversize::Guard;

/// How long a closed server may take to exit before it is sent SIGTERM, and then killed.
const EXIT_WAIT: Duration = Duration::from_secs(3);

/// The connection to a child process.
pub(crate) struct ChildTransport {
    child: Option<tokio::process::Child>,
    transport: AsyncRwTransport<RoleClient, Guard<ChildStdout>, ChildStdin>,
}

impl ChildTransport {
    /// Starts `command` with piped stdin and stdout (stderr goes to ours), each line it sends
    /// held to `max_line` bytes. The child is killed when the transport is dropped.
    pub(crate) fn spawn(
        mut command: tokio::process::Command,
        max_line: usize,
    ) -> std::io::Result<Self> {
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
        command.kill_on_drop(true);
        let mut child = command.spawn()?;
        let stdout = child.stdout.take().ok_or_else(|| std::io::Error::other("no stdout"))?;
        let stdin = child.stdin.take().ok_or_else(|| std::io::Error::other("no stdin"))?;
        let transport = AsyncRwTransport::new_client(Guard::new(stdout, max_line), stdin)
            .with_max_line_length(max_line);
        Ok(Self { child: Some(child), transport })
    }

    /// Closes its stdin and waits for it to exit; then SIGTERM, then SIGKILL, as the stdio
    /// transport of the MCP specification shuts a server down.
    async fn shut_down(&mut self) -> std::io::Result<()> {
        let Some(child) = self.child.as_mut() else { return Ok(()) };
        self.transport.close().await?;
        if tokio::time::timeout(EXIT_WAIT, child.wait()).await.is_ok() {
            self.child = None;
            return Ok(());
        }
        if let Some(pid) =
            child.id().and_then(|pid| rustix::process::Pid::from_raw(pid.cast_signed()))
        {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
            if tokio::time::timeout(EXIT_WAIT, child.wait()).await.is_ok() {
                self.child = None;
                return Ok(());
            }
        }
        let killed = child.kill().await;
        self.child = None;
        killed
    }
}

impl Transport<RoleClient> for ChildTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.transport.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.transport.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.shut_down()
    }
}
