//! `ParseError`: it names its provider and kind, its path is always a JSON pointer, and it
//! is a `std::error::Error`.

use std::error::Error as _;

use serde_json::json;
use toolwire::Provider;
use toolwire::provider::{ParseErrorKind, anthropic, gemini, openai, responses};

#[test]
fn regression_parse_error_names_its_provider_and_kind() {
    let cases = [
        (
            openai::parse_calls(&json!("text")).unwrap_err(),
            Provider::OpenAi,
            ParseErrorKind::NotAReply,
            "",
        ),
        (
            openai::parse_calls(&json!({"tool_calls": [{"id": 7, "function": {"name": "x"}}]}))
                .unwrap_err(),
            Provider::OpenAi,
            ParseErrorKind::WrongType,
            "/tool_calls/0/id",
        ),
        (
            responses::parse_calls(&json!({"output": [{"type": "function_call", "name": "x"}]}))
                .unwrap_err(),
            Provider::Responses,
            ParseErrorKind::MissingField,
            "/output/0/call_id",
        ),
        (
            anthropic::parse_calls(&json!({"content": 3})).unwrap_err(),
            Provider::Anthropic,
            ParseErrorKind::WrongType,
            "/content",
        ),
        (
            gemini::parse_calls(&json!([{"functionCall": {"args": {}}}])).unwrap_err(),
            Provider::Gemini,
            ParseErrorKind::MissingField,
            "/0/functionCall/name",
        ),
    ];
    for (error, provider, kind, path) in cases {
        assert_eq!(
            (error.provider(), error.kind(), error.path()),
            (provider, kind, path),
            "{error}"
        );
        assert!(error.source().is_none());
    }
}

#[test]
fn regression_stream_errors_have_pointer_paths_not_call_numbers() {
    let mut stream = anthropic::CallAccumulator::default();
    stream.push(&json!({"type": "message_start", "message": {"content": [{"type": "tool_use", "id": "t"}]}}));
    let error = stream.finish().unwrap_err();
    assert_eq!(error.path(), "/message/content/0/name");
    assert!(error.path().starts_with('/'));
    assert_eq!(error.to_string(), "invalid Anthropic response: /message/content/0/name: missing");
}
