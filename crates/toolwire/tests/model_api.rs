//! `ModelApi` and `TurnDecoder`: each provider's whole conversation with a model (request,
//! reply, stream, turn, results) through the one provider-independent API.

use serde_json::{Value, json};
use toolwire::provider::{DecodeErrorKind, Finish, ModelApi, TurnDecoder, TurnRequest, Usage};
use toolwire::{FailureKind, Provider, Receipt, ToolCall, ToolResult};

/// The providers a model is reached by.
fn apis() -> Vec<ModelApi> {
    Provider::ALL.into_iter().filter_map(Provider::model_api).collect()
}

fn api(provider: Provider) -> ModelApi {
    provider.model_api().expect("a provider a model is reached by")
}

/// A decoder fed `events`; every push must be accepted.
fn fed(provider: Provider, events: &[Value]) -> TurnDecoder {
    let mut decoder = api(provider).decoder();
    for event in events {
        decoder.push(&event.to_string()).expect("an event the provider sends");
    }
    decoder
}

/// A streamed turn with thinking, text, two calls and token counts, in each provider's
/// events (after each provider's streaming documentation).
fn stream(provider: Provider) -> Vec<Value> {
    match provider {
        Provider::OpenAi => vec![
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "reasoning_content": "Two cities."}}]}),
            json!({"choices": [{"index": 0, "delta": {"content": "Checking."}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}]}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1, "id": "call_b", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Rome\"}"}}]}}]}),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            json!({"choices": [], "usage": {"prompt_tokens": 40, "completion_tokens": 12}}),
        ],
        Provider::Responses => {
            let call = |i: u64, id: &str, city: &str| {
                json!({"type": "function_call", "id": format!("fc_{i}"), "call_id": id, "name": "get_weather",
                    "arguments": format!("{{\"city\":\"{city}\"}}"), "status": "completed"})
            };
            let output = json!([
                {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Two cities."}]},
                {"type": "message", "id": "msg_1", "role": "assistant", "content": [{"type": "output_text", "text": "Checking."}]},
                call(2, "call_a", "Oslo"),
                call(3, "call_b", "Rome"),
            ]);
            vec![
                json!({"type": "response.reasoning_summary_text.delta", "output_index": 0, "delta": "Two cities."}),
                json!({"type": "response.output_text.delta", "output_index": 1, "delta": "Checking."}),
                json!({"type": "response.output_item.added", "output_index": 2, "item": call(2, "call_a", "")}),
                json!({"type": "response.output_item.done", "output_index": 2, "item": call(2, "call_a", "Oslo")}),
                json!({"type": "response.output_item.added", "output_index": 3, "item": call(3, "call_b", "")}),
                json!({"type": "response.output_item.done", "output_index": 3, "item": call(3, "call_b", "Rome")}),
                json!({"type": "response.completed", "response": {"status": "completed", "output": output,
                    "usage": {"input_tokens": 40, "output_tokens": 12}}}),
            ]
        }
        Provider::Anthropic => {
            let tool = |index: u64, id: &str, city: &str| {
                [
                    json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": "get_weather", "input": {}}}),
                    json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": format!("{{\"city\":\"{city}\"}}")}}),
                    json!({"type": "content_block_stop", "index": index}),
                ]
            };
            let mut events = vec![
                json!({"type": "message_start", "message": {"content": [], "usage": {"input_tokens": 40, "output_tokens": 1}}}),
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Two cities."}}),
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig"}}),
                json!({"type": "content_block_stop", "index": 0}),
                json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
                json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Checking."}}),
                json!({"type": "content_block_stop", "index": 1}),
            ];
            events.extend(tool(2, "toolu_a", "Oslo"));
            events.extend(tool(3, "toolu_b", "Rome"));
            events.push(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 12}}));
            events.push(json!({"type": "message_stop"}));
            events
        }
        Provider::Gemini => {
            let chunk = |parts: Value| json!({"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}]});
            let mut last = chunk(
                json!([{"functionCall": {"id": "g_b", "name": "get_weather", "args": {"city": "Rome"}}}]),
            );
            last["candidates"][0]["finishReason"] = json!("STOP");
            last["usageMetadata"] = json!({"promptTokenCount": 40, "candidatesTokenCount": 12});
            vec![
                chunk(json!([{"text": "Two cities.", "thought": true}])),
                chunk(json!([{"text": "Checking."}])),
                chunk(
                    json!([{"functionCall": {"id": "g_a", "name": "get_weather", "args": {"city": "Oslo"}}, "thoughtSignature": "sig"}]),
                ),
                last,
            ]
        }
        other => panic!("{other} runs no model"),
    }
}

/// The ids of the two calls of [`stream`].
fn ids(provider: Provider) -> [&'static str; 2] {
    match provider {
        Provider::Anthropic => ["toolu_a", "toolu_b"],
        Provider::Gemini => ["g_a", "g_b"],
        _ => ["call_a", "call_b"],
    }
}

#[test]
fn every_providers_stream_reads_as_one_turn_with_text_thinking_calls_usage_and_finish() {
    for api in apis() {
        let provider = api.provider();
        let mut decoder = fed(provider, &stream(provider));
        assert_eq!(decoder.take_text(), "Checking.", "{provider}");
        let early = decoder.take_ready();
        decoder.end().unwrap_or_else(|e| panic!("{provider}: {e}"));
        let mut told = early.clone();
        told.extend(decoder.take_ready());
        let turn = decoder.finish();
        assert_eq!(turn.calls, told, "{provider}: every call told once, in order");
        let got: Vec<(&str, &Value)> =
            turn.calls.iter().map(|c| (c.call_id.as_str(), &c.arguments)).collect();
        let [a, b] = ids(provider);
        assert_eq!(
            got,
            [(a, &json!({"city": "Oslo"})), (b, &json!({"city": "Rome"}))],
            "{provider}"
        );
        assert_eq!(
            (turn.text.as_str(), turn.thinking.as_str()),
            ("Checking.", "Two cities."),
            "{provider}"
        );
        assert_eq!(turn.finish, Finish::ToolCalls, "{provider}");
        assert_eq!(turn.usage, Usage::new(Some(40), Some(12)), "{provider}");
        // The turn's messages read back as the same calls.
        let reply = match provider {
            Provider::OpenAi => json!({"choices": [{"message": turn.assistant[0]}]}),
            Provider::Responses => json!({"output": turn.assistant}),
            _ => turn.assistant[0].clone(),
        };
        assert_eq!(
            api.parse_calls(&reply).expect("the turn's own messages"),
            turn.calls,
            "{provider}"
        );
    }
}

#[test]
fn a_call_is_ready_before_the_stream_ends_for_every_provider() {
    for api in apis() {
        let provider = api.provider();
        let events = stream(provider);
        let mut decoder = api.decoder();
        let mut first_ready_at = None;
        for (i, event) in events.iter().enumerate() {
            decoder.push(&event.to_string()).expect("an event");
            if first_ready_at.is_none() && !decoder.take_ready().is_empty() {
                first_ready_at = Some(i);
            }
        }
        let at = first_ready_at.unwrap_or_else(|| panic!("{provider}: no call before the end"));
        assert!(at + 1 < events.len(), "{provider}: the first call came only with the last event");
    }
}

#[test]
fn a_whole_reply_reads_as_the_same_turn_as_its_stream() {
    for api in apis() {
        let provider = api.provider();
        let mut decoder = fed(provider, &stream(provider));
        decoder.end().expect("a whole stream");
        let streamed = decoder.finish();
        let reply = match provider {
            Provider::OpenAi => {
                json!({"choices": [{"message": streamed.assistant[0], "finish_reason": "tool_calls"}],
                "usage": {"prompt_tokens": 40, "completion_tokens": 12}})
            }
            Provider::Responses => json!({"status": "completed", "output": streamed.assistant,
                "usage": {"input_tokens": 40, "output_tokens": 12}}),
            Provider::Anthropic => {
                let mut message = streamed.assistant[0].clone();
                message["stop_reason"] = json!("tool_use");
                message["usage"] = json!({"input_tokens": 40, "output_tokens": 12});
                message
            }
            _ => json!({"candidates": [{"content": streamed.assistant[0], "finishReason": "STOP"}],
                "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 12}}),
        };
        let whole = api.read_reply(&reply).unwrap_or_else(|e| panic!("{provider}: {e}"));
        assert_eq!(whole.calls, streamed.calls, "{provider}");
        assert_eq!((whole.finish, whole.usage), (Finish::ToolCalls, streamed.usage), "{provider}");
        assert_eq!(whole.text, streamed.text, "{provider}");
        // OpenAI's message does not carry its reasoning back; the others keep their thinking.
        if provider != Provider::OpenAi {
            assert_eq!(whole.thinking, streamed.thinking, "{provider}");
        }
    }
}

#[test]
fn a_stream_cut_short_is_a_cut_and_gives_only_its_complete_calls() {
    for api in apis() {
        let provider = api.provider();
        let events = stream(provider);
        // Everything up to the first call's completion, and not the stream's end.
        let mut decoder = api.decoder();
        let mut ready = Vec::new();
        for event in &events {
            decoder.push(&event.to_string()).expect("an event");
            ready.extend(decoder.take_ready());
            if !ready.is_empty() {
                break;
            }
        }
        let error = decoder.end().expect_err("no end-of-reply came");
        assert_eq!(error.kind(), DecodeErrorKind::Cut, "{provider}");
        assert!(error.is_cut());
        assert!(error.to_string().contains(api.title()), "{provider}: {error}");
        assert!(decoder.push("{}").is_err(), "{provider}: nothing is read after the end");
        let turn = decoder.finish();
        assert_eq!(turn.calls, ready, "{provider}: the cut turn holds its complete calls only");
        let reply = match provider {
            Provider::OpenAi => json!({"choices": [{"message": turn.assistant[0]}]}),
            Provider::Responses => json!({"output": turn.assistant}),
            _ => turn.assistant[0].clone(),
        };
        assert_eq!(api.parse_calls(&reply).expect("its messages"), ready, "{provider}: balanced");
    }
}

#[test]
fn an_error_the_provider_streams_is_a_provider_error_and_every_later_push_repeats_it() {
    let errors = [
        (Provider::OpenAi, json!({"error": {"message": "overloaded"}})),
        (Provider::Responses, json!({"type": "error", "message": "overloaded"})),
        (
            Provider::Anthropic,
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "overloaded"}}),
        ),
        (Provider::Gemini, json!({"error": {"code": 503, "message": "overloaded"}})),
    ];
    for (provider, event) in errors {
        let mut decoder = api(provider).decoder();
        let error = decoder.push(&event.to_string()).expect_err("an error event");
        assert_eq!(error.kind(), DecodeErrorKind::Provider, "{provider}");
        assert!(
            error.to_string().ends_with("reported an error: overloaded"),
            "{provider}: {error}"
        );
        let again = decoder.push(&stream(provider)[0].to_string()).expect_err("after an error");
        assert_eq!(again.to_string(), error.to_string());
        assert_eq!(decoder.end().expect_err("still failed").kind(), DecodeErrorKind::Provider);
    }
}

#[test]
fn data_that_is_not_json_is_an_invalid_reply_naming_the_api() {
    for api in apis() {
        let mut decoder = api.decoder();
        let error = decoder.push("{\"choices\": [").expect_err("not JSON");
        assert_eq!(error.kind(), DecodeErrorKind::InvalidReply);
        assert!(error.to_string().starts_with(api.title()), "{error}");
        assert!(std::error::Error::source(&error).is_some(), "the JSON error is kept");
        let whole = api.read_reply(&json!("a string")).expect_err("not a reply");
        assert_eq!(whole.kind(), DecodeErrorKind::InvalidReply, "{}", api.provider());
    }
}

#[test]
fn each_provider_says_where_a_turn_goes_and_how_it_authenticates() {
    let cases = [
        (Provider::OpenAi, "/chat/completions", ("authorization", "Bearer k"), "OPENAI_API_KEY"),
        (Provider::Responses, "/responses", ("authorization", "Bearer k"), "OPENAI_API_KEY"),
        (Provider::Anthropic, "/messages", ("x-api-key", "k"), "ANTHROPIC_API_KEY"),
        (Provider::Gemini, "/models/m:generateContent", ("x-goog-api-key", "k"), "GEMINI_API_KEY"),
    ];
    for (provider, endpoint, (header, value), variable) in cases {
        let api = api(provider);
        assert_eq!(api.endpoint("m", false), endpoint);
        let headers = api.headers(Some("k"));
        assert!(headers.iter().any(|(n, v)| (*n, v.as_str()) == (header, value)), "{headers:?}");
        assert!(!api.headers(None).iter().any(|(n, _)| *n == header), "no key, no key header");
        assert_eq!(api.key_variables()[0], variable);
        assert!(api.default_base_url().starts_with("https://"));
    }
    assert_eq!(
        api(Provider::Gemini).endpoint("m", true),
        "/models/m:streamGenerateContent?alt=sse"
    );
    assert_eq!(
        api(Provider::Anthropic).headers(None),
        [("anthropic-version", "2023-06-01".to_owned())]
    );
    let systems: Vec<&str> = apis().iter().map(|api| api.system_name()).collect();
    assert_eq!(systems, ["openai", "openai", "anthropic", "gcp.gemini"]);
}

#[test]
fn a_request_body_carries_the_model_system_tools_and_limit_in_each_providers_fields() {
    let messages = [json!({"role": "user", "content": "hi"})];
    let tools = [json!({"name": "t"})];
    let request = TurnRequest::new("m", &messages)
        .with_system("sys")
        .with_tools(&tools)
        .with_max_tokens(99)
        .streamed(false);
    let at = |provider, pointer: &str| api(provider).body(&request).pointer(pointer).cloned();
    assert_eq!(at(Provider::OpenAi, "/messages/0/content"), Some(json!("sys")));
    assert_eq!(at(Provider::OpenAi, "/max_completion_tokens"), Some(json!(99)));
    assert_eq!(at(Provider::OpenAi, "/stream_options"), None, "only a stream asks for usage");
    assert_eq!(at(Provider::Responses, "/instructions"), Some(json!("sys")));
    assert_eq!(at(Provider::Responses, "/max_output_tokens"), Some(json!(99)));
    assert_eq!(at(Provider::Anthropic, "/system"), Some(json!("sys")));
    assert_eq!(at(Provider::Anthropic, "/max_tokens"), Some(json!(99)));
    assert_eq!(at(Provider::Gemini, "/systemInstruction/parts/0/text"), Some(json!("sys")));
    assert_eq!(at(Provider::Gemini, "/tools/0/functionDeclarations/0/name"), Some(json!("t")));
    assert_eq!(at(Provider::Gemini, "/generationConfig/maxOutputTokens"), Some(json!(99)));
    for api in apis() {
        let body = api.body(&request);
        assert_eq!(body.get("stream").cloned().unwrap_or(json!(false)), json!(false));
    }
}

#[test]
fn results_and_user_messages_are_in_each_providers_shape() {
    let calls = [ToolCall::new("c1", "f", json!({})), ToolCall::new("c2", "f", json!({}))];
    let receipts = [
        Receipt::never_ran(&calls[0], ToolResult::ok(json!(null), "fine")),
        Receipt::never_ran(&calls[1], ToolResult::failed(FailureKind::Handler, "broke")),
    ];
    for api in apis() {
        let turn = api.render_turn("", &calls);
        let results = api.render_results(&turn, &receipts);
        let text = serde_json::to_string(&results).expect("JSON");
        assert!(text.contains("fine") && text.contains("broke"), "{}: {text}", api.provider());
        let user = api.user_message("hello");
        assert_eq!(user["role"], "user");
        assert!(user.to_string().contains("hello"));
    }
}

#[test]
fn providers_that_describe_tools_run_no_model() {
    assert!(Provider::Mcp.model_api().is_none());
    assert!(Provider::FlatFunction.model_api().is_none());
    assert_eq!(apis().len(), 4);
    for provider in Provider::ALL {
        assert_eq!(provider.as_str().parse::<Provider>(), Ok(provider));
        let written = serde_json::to_value(provider).expect("a name");
        assert_eq!(serde_json::from_value::<Provider>(written).ok(), Some(provider));
    }
    assert!(serde_json::from_value::<Provider>(json!("bard")).is_err());
}
