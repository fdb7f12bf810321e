//! Reading a command's output: stdout under a byte limit, and stderr, whose progress lines
//! become progress events.
//!
//! A command reports progress by writing lines like `::progress 2/5 copying` (or
//! `::progress 2` when it does not know the total) to stderr.

use std::future::Future;
use std::process::ExitStatus;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use toolwire::ToolContext;

use super::group::Group;

/// How long the output is still read once the program has exited: for what its last writes
/// left in the pipes. A background process still holding them after that is killed, with
/// the rest of the group, and what it wrote so far is kept.
pub(crate) const DRAIN: Duration = Duration::from_millis(150);

/// What a command left when it finished.
#[derive(Debug)]
pub(crate) struct Finished {
    /// How it exited.
    pub(crate) status: ExitStatus,
    /// What it wrote to stdout.
    pub(crate) stdout: Vec<u8>,
    /// What it wrote to stderr, without its progress lines, cut at the limit.
    pub(crate) stderr: String,
}

/// Waits for the program of `group` to exit, reading its output, and drains the pipes for
/// at most [`DRAIN`] after that: the call ends with the program, not with the last process
/// holding its stdout.
///
/// # Errors
///
/// When stdout passes `limit` bytes, or the program cannot be waited for.
///
/// # Cancel safety
///
/// Dropping the future drops the group, which kills every process in it.
pub(crate) async fn collect(
    mut group: Group,
    limit: u64,
    ctx: &ToolContext,
) -> Result<Finished, String> {
    let Some((stdout_pipe, stderr_pipe)) = group.pipes() else {
        return Err("the command's output was not captured".to_owned());
    };
    let (mut stdout, mut stderr) = (Vec::new(), String::new());
    let reading = async {
        let read_err = async {
            read_stderr(stderr_pipe, limit, ctx, &mut stderr).await;
            Ok(())
        };
        tokio::try_join!(read_limited(stdout_pipe, limit, &mut stdout), read_err).map(drop)
    };
    // On a flood, `?` returns, which drops the group and so stops it at once.
    let status = settle(&mut group, reading).await?;
    Ok(Finished { status, stdout, stderr })
}

/// The program's exit status once it has exited and `reading` has ended: at once when the
/// pipes close, or [`DRAIN`] after the exit, when the group still there is killed.
async fn settle(
    group: &mut Group,
    reading: impl Future<Output = Result<(), String>>,
) -> Result<ExitStatus, String> {
    tokio::pin!(reading);
    let status = tokio::select! {
        read = &mut reading => {
            read?;
            group.wait().await
        }
        status = group.wait() => {
            if let Ok(read) = tokio::time::timeout(DRAIN, &mut reading).await {
                read?;
            } else {
                group.kill();
                if let Ok(read) = tokio::time::timeout(DRAIN, &mut reading).await {
                    read?;
                }
            }
            status
        }
    };
    status.map_err(|error| format!("cannot wait for the command: {error}"))
}

async fn read_limited(
    stream: impl AsyncRead + Unpin,
    limit: u64,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let read = stream.take(limit.saturating_add(1)).read_to_end(out).await;
    read.map_err(|error| format!("cannot read the command's stdout: {error}"))?;
    if out.len() as u64 > limit {
        return Err(format!("the command wrote more than {limit} bytes to stdout"));
    }
    Ok(())
}

/// The longest line read as a progress report; a longer one is plain text.
const PROGRESS_LINE: usize = 4096;

/// Reads stderr to its end, whatever it holds (a line of any length, bytes that are not
/// UTF-8), keeping at most `limit` bytes of it: progress lines become progress events, the
/// rest is kept until the limit, and a note says when it was cut. The program is never left
/// blocked on a full pipe.
async fn read_stderr(
    mut stream: impl AsyncRead + Unpin,
    limit: u64,
    ctx: &ToolContext,
    kept: &mut String,
) {
    let mut text =
        Kept { bytes: Vec::new(), limit: usize::try_from(limit).unwrap_or(usize::MAX), cut: false };
    let mut line: Vec<u8> = Vec::new();
    let mut long = false;
    let mut chunk = vec![0u8; 8192];
    loop {
        let read = match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        for piece in chunk[..read].split_inclusive(|byte| *byte == b'\n') {
            if long {
                text.keep(piece);
            } else if line.len() + piece.len() <= PROGRESS_LINE {
                line.extend_from_slice(piece);
            } else {
                // Too long to be a progress report: plain text, kept as it comes.
                text.keep(&line);
                text.keep(piece);
                line.clear();
                long = true;
            }
            if piece.ends_with(b"\n") {
                text.line(std::mem::take(&mut line), ctx);
                long = false;
            }
        }
    }
    if !line.is_empty() {
        line.push(b'\n');
        text.line(line, ctx);
    }
    *kept = text.finish(limit);
}

/// The stderr kept: at most `limit` bytes.
struct Kept {
    bytes: Vec<u8>,
    limit: usize,
    cut: bool,
}

impl Kept {
    /// Keeps what fits of `bytes`.
    fn keep(&mut self, bytes: &[u8]) {
        let room = self.limit.saturating_sub(self.bytes.len());
        self.cut |= bytes.len() > room;
        self.bytes.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// A whole line (with its newline): a progress report, or text to keep.
    fn line(&mut self, line: Vec<u8>, ctx: &ToolContext) {
        let text = String::from_utf8_lossy(&line);
        match text.trim_end_matches(['\n', '\r']).strip_prefix("::progress ") {
            Some(report) => progress(report, ctx),
            None => self.keep(&line),
        }
    }

    /// The text kept, with a note when some was cut.
    fn finish(self, limit: u64) -> String {
        let mut text = String::from_utf8_lossy(&self.bytes).into_owned();
        if self.cut {
            text.push_str(&format!("\n[stderr cut at {limit} bytes]\n"));
        }
        text
    }
}

/// Reports `2/5 copying`, `2/5` or `2 copying` as progress.
fn progress(report: &str, ctx: &ToolContext) {
    let (count, message) = report.split_once(' ').unwrap_or((report, ""));
    let (done, total) = match count.split_once('/') {
        Some((done, total)) => (done.parse().ok(), total.parse().ok()),
        None => (count.parse().ok(), None),
    };
    if let Some(done) = done {
        ctx.progress(done, total, message.trim());
    }
}
