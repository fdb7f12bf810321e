//! A tool's image through the agent loop, for each provider against a local mock server
//! replaying its recorded payloads: the next request carries it in the provider's native
//! form, and no text field carries its bytes; older images give way to stand-ins as
//! `keep_images` says; a part the provider would refuse never enters the history.

use serde_json::{Value, json};
use toolwire::media::{Part, PartKind};
use toolwire::{Provider, Registry, Tool, ToolResult};
use toolwire_agent::Agent;

use crate::common::{Mock, PROVIDERS, Reply, balanced, fixture};

/// A 1x1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];
const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGMAAQAABQABDQottAAAAABJRU5ErkJggg==";
const WAV: &[u8] = b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00";

/// `get_weather`, as the recorded payloads call it, answering with a chart and a sound.
fn charting() -> Registry {
    let tool = Tool::define("get_weather")
        .parameters(json!({"type": "object", "properties": {"location": {"type": "string"}}}))
        .execute_sync(|_, _| {
            ToolResult::ok(json!({"temp": 14}), "14 degrees; the chart:").with_parts(vec![
                Part::image("image/png", PNG.to_vec()),
                Part::audio("audio/wav", WAV.to_vec()),
            ])
        })
        .build()
        .expect("valid");
    Registry::builder().register(tool).seal().expect("registry")
}

/// Every string of `value` with its JSON pointer.
fn strings(value: &Value, at: String, out: &mut Vec<(String, String)>) {
    match value {
        Value::String(text) => out.push((at, text.clone())),
        Value::Array(items) => {
            items.iter().enumerate().for_each(|(i, v)| strings(v, format!("{at}/{i}"), out))
        }
        Value::Object(map) => map.iter().for_each(|(k, v)| strings(v, format!("{at}/{k}"), out)),
        _ => {}
    }
}

/// The pointers of the strings of `body` that hold the PNG's base64.
fn png_at(body: &Value) -> Vec<String> {
    let mut all = Vec::new();
    strings(body, String::new(), &mut all);
    all.into_iter().filter(|(_, text)| text.contains(PNG_BASE64)).map(|(at, _)| at).collect()
}

/// Where each provider's second request carries the image, and what is there.
fn native_image(provider: Provider, body: &Value) -> (String, Value) {
    let (at, field) = match provider {
        Provider::Anthropic => ("/messages/2/content/0/content/1", "/source/data"),
        Provider::Responses => ("/input/2/output/1", "/image_url"),
        Provider::Gemini => ("/contents/2/parts/0/functionResponse/parts/0", "/inlineData/data"),
        _ => ("/messages/4/content/1", "/image_url/url"),
    };
    let node = body.pointer(at).cloned().unwrap_or(Value::Null);
    (format!("{at}{field}"), node)
}

#[tokio::test]
async fn a_tools_image_reaches_the_next_request_as_an_image_for_every_provider() {
    for (provider, folder) in PROVIDERS {
        let replies = vec![
            Reply::json(fixture(folder, "normal.json")),
            Reply::json(fixture(folder, "final.json")),
        ];
        let mock = Mock::start(replies).await;
        let client = mock.client(provider).stream(false).build().expect("client");
        let agent = Agent::builder(client, charting()).system("be brief").build();
        let outcome = agent.run("What's the weather like?").await;
        assert!(outcome.is_finished(), "{folder}: {:?}", outcome.stop);
        assert!(
            balanced(provider, &outcome.state.messages),
            "{folder}: {:#?}",
            outcome.state.messages
        );

        let seen = mock.seen();
        let body = &seen[1].body;
        let (at, node) = native_image(provider, body);
        let expected_type = match provider {
            Provider::Anthropic => json!("image"),
            Provider::Responses => json!("input_image"),
            Provider::Gemini => Value::Null,
            _ => json!("image_url"),
        };
        assert_eq!(
            node.get("type").cloned().unwrap_or(Value::Null),
            expected_type,
            "{folder}: {node}"
        );
        assert_eq!(
            png_at(body),
            std::slice::from_ref(&at),
            "{folder}: the image's bytes are only at {at}: {body}"
        );
    }
}

#[tokio::test]
async fn a_part_the_provider_refuses_is_a_stand_in_in_the_receipt_and_the_history() {
    let mock = Mock::start(vec![
        Reply::json(fixture("anthropic", "normal.json")),
        Reply::json(fixture("anthropic", "final.json")),
    ])
    .await;
    let client = mock.client(Provider::Anthropic).stream(false).build().expect("client");
    let outcome = Agent::builder(client, charting()).build().run("weather?").await;
    let parts = outcome.receipts[0].result.parts();
    assert_eq!(parts[1].kind(), PartKind::Text, "the audio became a stand-in");
    let said = parts[1].as_text().unwrap_or_default();
    assert!(
        said.contains("audio audio/wav") && said.contains("Anthropic Messages takes no audio"),
        "{said}"
    );
    let sent = mock.seen()[1].body.to_string();
    assert!(sent.contains("Anthropic Messages takes no audio"), "{sent}");
    assert!(!sent.contains("UklGR"), "no audio bytes are sent: {sent}");
}

#[tokio::test]
async fn keep_images_sends_only_the_newest_images_in_full() {
    for (provider, folder) in PROVIDERS {
        let replies = vec![
            Reply::json(fixture(folder, "normal.json")),
            Reply::json(fixture(folder, "normal.json")),
            Reply::json(fixture(folder, "final.json")),
        ];
        let mock = Mock::start(replies).await;
        let client = mock.client(provider).stream(false).build().expect("client");
        let agent = Agent::builder(client, charting()).keep_images(1).build();
        let outcome = agent.run("weather twice?").await;
        assert!(outcome.is_finished(), "{folder}: {:?}", outcome.stop);
        let third = &mock.seen()[2].body;
        assert_eq!(png_at(third).len(), 1, "{folder}: one image in full: {third}");
        assert!(third.to_string().contains("an older image, not sent again"), "{folder}: {third}");
    }
}
