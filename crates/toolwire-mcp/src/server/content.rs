//! A [`ToolResult`] as an MCP `CallToolResult`.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;
use toolwire::media::Part;
use toolwire::{Tool, ToolResult};

use crate::parts;

/// The key under which a result's JSON carried MCP content blocks, before results had
/// parts; a stored result that still has it is served as those blocks.
#[deprecated(
    since = "0.1.0",
    note = "a result carries its content as parts: ToolResult::with_parts"
)]
pub const CONTENT_KEY: &str = "mcp_content";

/// The key [`CONTENT_KEY`] names, without the deprecation.
const LEGACY_KEY: &str = "mcp_content";

/// A successful result whose content is `blocks` (MCP content blocks as JSON: `text`,
/// `image`, `audio`, `resource`, `resource_link`), as [`Part`]s, served as those blocks as it
/// always was; `text` is no longer kept (it was never served over MCP).
///
/// A block that is not valid MCP content becomes a text part saying so.
///
/// ```
/// # #![allow(deprecated)]
/// use serde_json::json;
/// use toolwire_mcp::server::with_content;
///
/// let result = with_content(
///     vec![json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})],
///     "a tiny picture",
/// );
/// assert_eq!(result.parts().len(), 1);
/// ```
#[deprecated(
    since = "0.1.0",
    note = "build the parts with toolwire::media::Part and add them with ToolResult::with_parts"
)]
pub fn with_content(blocks: Vec<Value>, text: impl Into<String>) -> ToolResult {
    let _unused = text.into();
    let parts = blocks.into_iter().enumerate().map(|(i, block)| {
        serde_json::from_value::<Part>(block).unwrap_or_else(|error| {
            Part::text(format!("content block {i} is not valid MCP content: {error}"))
        })
    });
    ToolResult::from_parts(parts.collect())
}

/// The MCP result of `result`, a result of `tool`; a failure as an `isError` result with its
/// text.
///
/// A result with [`parts`](ToolResult::parts) is its text (when it has one) and then each part
/// as its block: an image, audio, an embedded resource, a resource link; a file is an
/// embedded resource under `toolwire://attachment/<name>`.
///
/// A success carries `structuredContent` only when its tool declares an `outputSchema`, with
/// its text beside it (or, for a result without text, its JSON serialized, as the
/// specification asks of structured content). Any other success is its text alone (its JSON
/// serialized when it has no text): clients show their models either the structured content
/// or the text, and without a schema a command tool's `{stdout, stderr, status}` would have
/// one model read JSON and another stdout.
pub(crate) fn call_result(result: &ToolResult, tool: Option<&Tool>) -> CallToolResult {
    if !result.is_success() {
        return CallToolResult::error(vec![ContentBlock::text(failure_text(result))]);
    }
    if let Some(blocks) = content_blocks(result.json()) {
        return CallToolResult::success(blocks);
    }
    let json = result.json();
    if !result.parts().is_empty() {
        let lead = result.text().filter(|text| !text.is_empty()).map(ContentBlock::text);
        let blocks = lead.into_iter().chain(result.parts().iter().map(parts::to_block));
        let mut call = CallToolResult::success(blocks.collect());
        if json.is_object() && tool.is_some_and(declares_output) {
            call.structured_content = Some(json.clone());
        }
        return call;
    }
    let text = match (result.text(), json.is_null()) {
        (Some(text), _) => text.to_owned(),
        (None, false) => json.to_string(),
        (None, true) => String::new(),
    };
    let mut call = CallToolResult::success(vec![ContentBlock::text(text)]);
    if json.is_object() && tool.is_some_and(declares_output) {
        call.structured_content = Some(json.clone());
    }
    call
}

/// Whether `tool` declares an `outputSchema` to MCP clients.
fn declares_output(tool: &Tool) -> bool {
    tool.to_mcp().get("outputSchema").is_some()
}

/// The text a model reads for a failed or pending result. A pending result shows its prompt
/// only: never its id, which would let a model forge an answer.
pub(crate) fn failure_text(result: &ToolResult) -> String {
    match result.pending_request() {
        Some(request) if request.kind == "approval" => {
            format!("awaiting approval: {}", request.prompt)
        }
        Some(request) => format!("awaiting input: {}", request.prompt),
        None => result.text().unwrap_or_default().to_owned(),
    }
}

/// The content blocks a result stored before results had parts carries under
/// `mcp_content`; a block that is not valid MCP content becomes a text block saying so.
fn content_blocks(json: &Value) -> Option<Vec<ContentBlock>> {
    let map = json.as_object().filter(|map| map.len() == 1)?;
    let blocks = map.get(LEGACY_KEY)?.as_array()?;
    let parsed = blocks
        .iter()
        .enumerate()
        .map(|(i, block)| {
            serde_json::from_value(block.clone()).unwrap_or_else(|error| {
                ContentBlock::text(format!("content block {i} is not valid MCP content: {error}"))
            })
        })
        .collect();
    Some(parsed)
}
