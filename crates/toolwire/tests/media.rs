//! Results with content parts: built by handlers and typed tools, checked before anything is
//! sent, kept through serde, and rendered natively by every model provider with no base64 in
//! any text a model reads.

use serde_json::{Value, json};
use toolwire::media::{Part, PartKind, PartLimits};
use toolwire::provider::{anthropic, gemini, openai, responses};
use toolwire::{CallId, FailureKind, Provider, Receipt, Registry, Tool, ToolResult};

/// A real PNG: 1x1, transparent.
pub(crate) const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];
const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGMAAQAABQABDQottAAAAABJRU5ErkJggg==";
const PDF: &[u8] = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n";
const WAV: &[u8] = b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00";

fn chart_result() -> ToolResult {
    ToolResult::ok(json!({"points": 3}), "the chart").with_parts(vec![
        Part::image("image/png", PNG.to_vec()),
        Part::text("and its notes"),
        Part::file("report.pdf", "application/pdf", PDF.to_vec()),
        Part::audio("audio/wav", WAV.to_vec()),
    ])
}

fn receipt(result: ToolResult) -> Receipt {
    Receipt::new("chart", Some(CallId::from("call_1")), result)
}

/// Every string in `value`, with its JSON pointer.
fn strings(value: &Value, at: &str, out: &mut Vec<(String, String)>) {
    match value {
        Value::String(text) => out.push((at.to_owned(), text.clone())),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                strings(item, &format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                strings(item, &format!("{at}/{key}"), out);
            }
        }
        _ => {}
    }
}

/// Where `needle` occurs in `rendered`'s strings.
fn where_is(rendered: &Value, needle: &str) -> Vec<String> {
    let mut all = Vec::new();
    strings(rendered, "", &mut all);
    all.into_iter().filter(|(_, text)| text.contains(needle)).map(|(at, _)| at).collect()
}

#[tokio::test]
async fn a_handlers_parts_reach_the_receipt_in_order_and_share_their_bytes() {
    let tool = Tool::define("chart").execute_sync(|_, _| chart_result()).build().unwrap();
    let registry = Registry::builder().register(tool).seal().unwrap();
    let receipt = registry.invoke("chart", json!({})).call_id("c").await;
    assert!(receipt.result.is_success(), "{:?}", receipt.result.text());
    let kinds: Vec<PartKind> = receipt.result.parts().iter().map(Part::kind).collect();
    assert_eq!(kinds, [PartKind::Image, PartKind::Text, PartKind::File, PartKind::Audio]);
    let copy = receipt.clone();
    assert_eq!(
        copy.result.parts()[0].data().unwrap().as_ptr(),
        receipt.result.parts()[0].data().unwrap().as_ptr(),
        "a clone copies no media"
    );
}

#[tokio::test]
async fn a_receipt_with_parts_reads_back_byte_for_byte() {
    let receipt = receipt(chart_result());
    let stored = serde_json::to_string(&receipt).unwrap();
    let read: Receipt = serde_json::from_str(&stored).unwrap();
    assert_eq!(read, receipt);
    assert_eq!(&read.result.parts()[0].data().unwrap()[..], PNG);
    let value: Value = serde_json::from_str(&stored).unwrap();
    assert_eq!(
        value["result"]["parts"][0],
        json!({"type": "image", "mimeType": "image/png", "data": PNG_BASE64})
    );
    assert_eq!(value["result"]["parts"][2]["name"], "report.pdf");
}

#[test]
fn a_result_without_parts_serializes_as_the_seeds_say() {
    let value = serde_json::to_value(ToolResult::ok(json!(1), "one")).unwrap();
    assert_eq!(value, json!({"success": true, "json": 1, "text": "one"}));
}

#[test]
fn invalid_base64_in_a_stored_part_is_an_error_naming_the_field() {
    let stored = json!({"success": true, "json": null, "text": null,
        "parts": [{"type": "image", "mimeType": "image/png", "data": "not base64!"}]});
    let error = serde_json::from_value::<ToolResult>(stored).unwrap_err().to_string();
    assert!(error.contains("`data` is not valid base64"), "{error}");
    let unknown = json!({"success": true, "parts": [{"type": "video"}]});
    let error = serde_json::from_value::<ToolResult>(unknown).unwrap_err().to_string();
    assert!(error.contains("unknown content type \"video\""), "{error}");
}

#[tokio::test]
async fn a_part_whose_bytes_contradict_its_mime_type_fails_the_call_naming_it() {
    let tool = Tool::define("liar")
        .execute_sync(|_, _| {
            ToolResult::from_parts(vec![
                Part::text("x"),
                Part::image("image/png", b"GIF89a....".to_vec()),
            ])
        })
        .build()
        .unwrap();
    let result = tool.execute(json!({})).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::InvalidOutput));
    let text = result.text().unwrap();
    assert!(
        text.contains(
            "part 1 (image image/png, 10 bytes) declares image/png but its bytes are image/gif"
        ),
        "{text}"
    );
    assert!(result.parts().is_empty());
}

#[tokio::test]
async fn a_part_or_a_result_over_its_limits_fails_before_anything_is_sent() {
    let big = || Part::image("image/png", [PNG, &[0u8; 2000]].concat());
    let tool = Tool::define("big")
        .part_limits(PartLimits::new(1000, 3000))
        .execute_sync(move |_, _| ToolResult::from_parts(vec![big()]))
        .build()
        .unwrap();
    let result = tool.execute(json!({})).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::InvalidOutput));
    assert!(result.text().unwrap().contains("more than the 1000 allowed per part"), "{result:?}");

    let tool = Tool::define("many")
        .part_limits(PartLimits::new(1000, 1500))
        .execute_sync(|_, _| {
            ToolResult::from_parts(vec![Part::text("a".repeat(900)), Part::text("b".repeat(900))])
        })
        .build()
        .unwrap();
    let result = tool.execute(json!({})).await;
    let text = result.text().unwrap();
    assert!(text.contains("the result's parts hold 1800 bytes"), "{text}");
}

#[test]
fn a_failure_carries_no_parts() {
    let failed = ToolResult::failure("no").with_parts(vec![Part::text("x")]);
    assert!(failed.parts().is_empty());
}

#[test]
fn anthropic_gets_image_and_document_blocks_and_a_stand_in_for_audio() {
    let message = anthropic::render_results(&[receipt(chart_result())]);
    let content = &message["content"][0]["content"];
    let types: Vec<&str> =
        content.as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["text", "image", "text", "document", "text"]);
    assert_eq!(
        content[1]["source"],
        json!({"type": "base64", "media_type": "image/png", "data": PNG_BASE64})
    );
    assert_eq!(content[3]["source"]["media_type"], "application/pdf");
    assert_eq!(content[3]["title"], "report.pdf");
    assert_eq!(
        content[4]["text"],
        format!(
            "[audio audio/wav, {} bytes: not shown, Anthropic Messages takes no audio]",
            WAV.len()
        )
    );
    assert_eq!(where_is(&message, PNG_BASE64), ["/content/0/content/1/source/data"]);
}

#[test]
fn responses_gets_input_image_and_input_file_items() {
    let items = responses::render_results(&[receipt(chart_result())]);
    let output = &items[0]["output"];
    let types: Vec<&str> =
        output.as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["input_text", "input_image", "input_text", "input_file", "input_text"]);
    assert_eq!(output[1]["image_url"], format!("data:image/png;base64,{PNG_BASE64}"));
    assert_eq!(output[3]["filename"], "report.pdf");
    assert!(
        output[3]["file_data"].as_str().unwrap().starts_with("data:application/pdf;base64,JVBERi0")
    );
    assert!(output[4]["text"].as_str().unwrap().contains("takes no audio"));
    assert_eq!(where_is(&json!(items), PNG_BASE64), ["/0/output/1/image_url"]);
}

#[test]
fn chat_completions_puts_the_media_in_a_user_message_after_the_tool_messages() {
    let plain = Receipt::new("plain", Some(CallId::from("call_2")), ToolResult::ok_json(json!(2)));
    let messages = openai::render_results(&[receipt(chart_result()), plain]);
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[0]["role"], "tool");
    assert_eq!(messages[0]["content"], "the chart\nand its notes");
    assert_eq!(messages[1], json!({"role": "tool", "tool_call_id": "call_2", "content": "2"}));
    let user = &messages[2];
    assert_eq!(user["role"], "user");
    let parts = user["content"].as_array().unwrap();
    assert!(parts[0]["text"].as_str().unwrap().contains("call call_1 (chart)"));
    assert_eq!(
        parts[1],
        json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG_BASE64}")}})
    );
    assert_eq!(parts[2]["type"], "file");
    assert_eq!(parts[3]["type"], "input_audio");
    assert_eq!(parts[3]["input_audio"]["format"], "wav");
    assert_eq!(where_is(&json!(messages), PNG_BASE64), ["/2/content/1/image_url/url"]);
}

#[test]
fn chat_completions_without_media_is_one_tool_message_per_call_as_before() {
    let messages = openai::render_results(&[Receipt::new(
        "a",
        Some(CallId::from("c")),
        ToolResult::ok(json!(1), "one"),
    )]);
    assert_eq!(messages, [json!({"role": "tool", "tool_call_id": "c", "content": "one\n1"})]);
}

#[test]
fn gemini_gets_inline_data_parts_in_its_function_response() {
    let content = gemini::render_results(&[receipt(chart_result())]);
    let response = &content["parts"][0]["functionResponse"];
    assert_eq!(response["response"], json!({"output": "the chart\nand its notes"}));
    let parts = response["parts"].as_array().unwrap();
    assert_eq!(parts[0], json!({"inlineData": {"mimeType": "image/png", "data": PNG_BASE64}}));
    assert_eq!(parts[1]["inlineData"]["mimeType"], "application/pdf");
    assert_eq!(parts[1]["inlineData"]["displayName"], "report.pdf");
    assert_eq!(parts[2]["inlineData"]["mimeType"], "audio/wav");
    assert_eq!(
        where_is(&content, PNG_BASE64),
        ["/parts/0/functionResponse/parts/0/inlineData/data"]
    );
}

#[test]
fn an_image_over_a_providers_limit_becomes_a_stand_in_and_fit_says_so_in_the_result() {
    let huge = [PNG, &vec![0u8; 6 << 20]].concat();
    let mut result = ToolResult::from_parts(vec![Part::image("image/png", huge)]);
    let api = Provider::Anthropic.model_api().unwrap();
    let stand_ins = api.fit(&mut result);
    assert_eq!(stand_ins.len(), 1);
    assert!(
        stand_ins[0].contains("more than the 5.0 MiB Anthropic Messages takes per image"),
        "{}",
        stand_ins[0]
    );
    assert_eq!(result.parts()[0].kind(), PartKind::Text);
    let openai = Provider::OpenAi.model_api().unwrap();
    assert!(openai.admit(&Part::image("image/png", PNG.to_vec())).is_ok());
}

#[test]
fn no_provider_shows_a_model_base64_in_text() {
    let receipts = [receipt(chart_result())];
    for provider in Provider::ALL {
        let Some(api) = provider.model_api() else { continue };
        let rendered = json!(api.render_results(&[], &receipts));
        let mut all = Vec::new();
        strings(&rendered, "", &mut all);
        for (at, text) in all {
            let base64_inside = text.contains(PNG_BASE64) || text.contains("JVBERi0");
            let is_data = at.ends_with("/data")
                || at.ends_with("/url")
                || at.ends_with("image_url")
                || at.ends_with("file_data");
            assert!(!base64_inside || is_data, "{provider}: base64 in the text at {at}");
        }
    }
}

#[cfg(feature = "typed")]
mod typed {
    use super::*;
    use toolwire::{ToolContext, TypedTool};

    struct Screenshot;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct NoArgs {}

    impl TypedTool for Screenshot {
        type Args = NoArgs;
        type Output = Part;
        type Error = std::convert::Infallible;

        fn name(&self) -> &str {
            "screenshot"
        }

        async fn call(&self, _: NoArgs, _: ToolContext) -> Result<Part, Self::Error> {
            Ok(Part::image("image/png", PNG.to_vec()))
        }
    }

    #[tokio::test]
    async fn a_typed_tool_returning_a_part_gives_a_result_of_that_part() {
        let tool = Tool::from_typed(Screenshot).unwrap();
        let result = tool.execute(json!({})).await;
        assert!(result.json().is_null());
        assert_eq!(result.parts().len(), 1);
        assert_eq!(&result.parts()[0].data().unwrap()[..], PNG);
    }
}

#[cfg(feature = "macros")]
mod macro_tools {
    use super::*;
    use toolwire::tool;

    /// Draws a chart of `points` points.
    #[tool]
    fn chart(points: u32) -> Vec<Part> {
        vec![Part::text(format!("{points} points")), Part::image("image/png", PNG.to_vec())]
    }

    #[tokio::test]
    async fn a_tool_function_returning_parts_gives_a_result_of_those_parts() {
        let tool = Tool::from_typed(ChartTool).unwrap();
        let result = tool.execute(json!({"points": 3})).await;
        assert!(result.is_success(), "{:?}", result.text());
        assert_eq!(result.parts()[0].as_text(), Some("3 points"));
        assert_eq!(result.parts()[1].kind(), PartKind::Image);
    }
}
