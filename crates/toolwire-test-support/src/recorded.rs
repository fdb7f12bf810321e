//! The providers' recorded payloads: for each provider a turn with one call, one with
//! parallel calls, the closing turn, and a streamed turn (see `recorded/README.md`).

use std::path::PathBuf;

/// The text of the recorded payload `name` of `provider` (`openai`, `responses`, `anthropic`
/// or `gemini`), such as `stream.sse` or `normal.json`.
pub fn text(provider: &str, name: &str) -> String {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "recorded", provider, name].iter().collect();
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The events of `provider`'s recorded stream, each with its blank line.
pub fn events(provider: &str) -> Vec<String> {
    let text = text(provider, "stream.sse");
    text.split("\n\n").filter(|e| !e.trim().is_empty()).map(|e| format!("{e}\n\n")).collect()
}

/// The data of each event of `provider`'s recorded stream.
pub fn stream_data(provider: &str) -> Vec<String> {
    let text = text(provider, "stream.sse");
    text.lines().filter_map(|line| line.strip_prefix("data: ")).map(str::to_owned).collect()
}
