//! Mapping a server's reply, or the failure to get one, to a [`ToolResult`] the model reads.

use rmcp::ServiceError;
use rmcp::model::{CallToolResult, ContentBlock, ErrorCode, ServerResult};
use serde_json::Value;
use toolwire::{FailureKind, ToolResult};

use super::options::ClientOptions;
use crate::parts;

/// The call a reply answers, for the messages.
pub(crate) struct Call<'a> {
    pub(crate) server: &'a str,
    pub(crate) tool: &'a str,
    pub(crate) options: &'a ClientOptions,
}

/// The result of a `tools/call` reply.
pub(crate) fn from_reply(call: &Call<'_>, reply: ServerResult) -> ToolResult {
    match reply {
        ServerResult::CallToolResult(result) => bounded(call, result),
        // A reply without `content` decodes as an empty result: a success with nothing in it.
        ServerResult::EmptyResult(_) => ToolResult::ok_json(Value::Object(Default::default())),
        _ => ToolResult::failure(format!(
            "mcp server {:?} answered the call to {:?} with something other than a tool result",
            call.server, call.tool
        )),
    }
}

/// [`from_result`], unless the result is larger than the call's options allow.
pub(crate) fn bounded(call: &Call<'_>, result: CallToolResult) -> ToolResult {
    let limit = call.options.max_result_bytes;
    let size = json_size(&result);
    if size > limit {
        return ToolResult::failure(format!(
            "mcp server {:?} answered the call to {:?} with a result of {size} bytes, more than \
             the {limit} bytes allowed; the model does not read it",
            call.server, call.tool
        ));
    }
    from_result(call, result)
}

/// The length of `result`'s JSON, counted as it is written, without keeping it.
fn json_size(result: &CallToolResult) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing to a counter cannot fail, and a result that rmcp decoded serializes.
    let _ = serde_json::to_writer(&mut count, result);
    count.0
}

/// `isError: true` is a failure with the text.
///
/// A success of one plain text block (or none) carries that text, and `structuredContent` or
/// the content blocks as JSON. Any other success carries its blocks as [`Part`]s, in order,
/// with the same bytes (images, audio, resources and links, with their annotations and
/// `_meta`), no text of its own, and `structuredContent` as its JSON; a block that cannot be
/// read (base64 that does not decode, say) fails the call, naming the block.
fn from_result(call: &Call<'_>, result: CallToolResult) -> ToolResult {
    let text = texts(&result.content);
    if result.is_error == Some(true) {
        return ToolResult::failure(text.unwrap_or_else(|| "the tool reported an error".into()));
    }
    if !parts::is_plain_text(&result.content) {
        return with_parts(call, result);
    }
    let json = match result.structured_content {
        Some(structured) => structured,
        None => serde_json::to_value(&result.content).unwrap_or(Value::Null),
    };
    match text {
        Some(text) => ToolResult::ok(json, text),
        None => ToolResult::ok_json(json),
    }
}

/// A success whose content is its blocks as parts.
fn with_parts(call: &Call<'_>, result: CallToolResult) -> ToolResult {
    let mut read = Vec::with_capacity(result.content.len());
    for (index, block) in result.content.iter().enumerate() {
        match parts::from_block(index, block) {
            Ok(part) => read.push(part),
            Err(why) => {
                return ToolResult::failed(
                    FailureKind::InvalidOutput,
                    format!(
                        "mcp server {:?} answered the call to {:?} with a result that cannot be \
                         read: {why}",
                        call.server, call.tool
                    ),
                );
            }
        }
    }
    let json = result.structured_content.unwrap_or(Value::Null);
    ToolResult::ok_json(json).with_parts(read)
}

/// The text blocks, one per line; `None` when there is none.
fn texts(content: &[ContentBlock]) -> Option<String> {
    let texts: Vec<&str> =
        content.iter().filter_map(|block| block.as_text()).map(|t| t.text.as_str()).collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// The JSON-RPC error code the stdio transport's guard answers a message with when it is
/// longer than the connection takes (see `oversize.rs`).
pub(crate) const TOO_LARGE_CODE: i32 = -32_099;

/// The failure for a call that got no tool result.
pub(crate) fn from_error(call: &Call<'_>, error: ServiceError) -> ToolResult {
    let Call { server, tool, options } = call;
    match error {
        ServiceError::McpError(error) if error.code.0 == TOO_LARGE_CODE => {
            let size =
                error.data.as_ref().and_then(|data| data.get("size")).and_then(Value::as_u64);
            too_large(call, size)
        }
        ServiceError::McpError(error) => {
            let kind = if error.code == ErrorCode::INVALID_PARAMS {
                FailureKind::InvalidInput
            } else {
                FailureKind::Handler
            };
            let text = format!(
                "mcp server {server:?} rejected the call to {tool:?}: {} (json-rpc error {})",
                error.message, error.code.0
            );
            ToolResult::failed(kind, text)
        }
        ServiceError::Timeout { timeout }
            if timeout == options.max_duration && timeout != options.idle_timeout =>
        {
            let text = format!(
                "the call to {tool:?} on mcp server {server:?} ran past its cap of {timeout:?}; it was cancelled"
            );
            ToolResult::failed(FailureKind::TimedOut, text)
        }
        ServiceError::Timeout { timeout } => {
            let text = format!(
                "mcp server {server:?} sent nothing for {timeout:?} during the call to {tool:?} \
                 (idle timeout); it was cancelled"
            );
            ToolResult::failed(FailureKind::TimedOut, text)
        }
        ServiceError::TransportClosed => ToolResult::failure(format!(
            "the connection to mcp server {server:?} closed during the call to {tool:?}"
        )),
        ServiceError::Cancelled { reason } => {
            ToolResult::failed(FailureKind::Aborted, reason.unwrap_or_else(|| "cancelled".into()))
        }
        other if body_too_large(&other) => too_large(call, None),
        other => ToolResult::failure(format!(
            "the call to {tool:?} on mcp server {server:?} failed: {}",
            innermost(&other)
        )),
    }
}

/// The failure of a call that was not sent, its connection being closed.
pub(crate) fn not_sent(call: &Call<'_>) -> ToolResult {
    ToolResult::failure(format!(
        "the connection to mcp server {:?} is closed; the call to {:?} was not sent",
        call.server, call.tool
    ))
}

/// The failure of a call whose answer was longer than the connection takes: `size` is the
/// answer's length when the transport knew it.
pub(crate) fn too_large(call: &Call<'_>, size: Option<u64>) -> ToolResult {
    let Call { server, tool, options } = call;
    let limit = options.max_result_bytes;
    let what = size.map_or_else(
        || "a result larger than".to_owned(),
        |size| format!("an answer of {size} bytes, more than"),
    );
    ToolResult::failed(
        FailureKind::InvalidOutput,
        format!(
            "mcp server {server:?} answered the call to {tool:?} with {what} the {limit} bytes \
             allowed (its output_limit); the model does not read it"
        ),
    )
}

/// Whether a transport error says an HTTP body or an SSE event was larger than the
/// connection takes (rmcp words both so, and keeps their types generic).
fn body_too_large(error: &ServiceError) -> bool {
    let mut source: Option<&dyn std::error::Error> = Some(error);
    while let Some(error) = source {
        if error.to_string().contains("exceeded the maximum size of") {
            return true;
        }
        source = error.source();
    }
    false
}

/// The message of the innermost cause of `error`: what went wrong, without the names of the
/// Rust types it went through.
pub(crate) fn innermost(error: &(dyn std::error::Error + 'static)) -> String {
    let mut last = error;
    while let Some(source) = last.source() {
        last = source;
    }
    last.to_string()
}
