//! A stand-in for a model's API: a server on loopback that answers with canned streams
//! (OpenAI's, or Anthropic's or Gemini's, as the chunks are), and keeps what it was sent.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::thread::JoinHandle;

use serde_json::{Value, json};

/// One request the mock server got.
#[derive(Debug)]
pub(crate) struct Seen {
    /// The request line and the headers, as sent.
    pub head: String,
    /// The body.
    pub body: String,
}

/// A one-shot OpenAI-compatible server on a free loopback port: it answers each request with
/// the next of `replies` (each a list of SSE chunks) and keeps the requests it got.
pub(crate) fn mock_model(replies: Vec<Vec<Value>>) -> (String, JoinHandle<Vec<Seen>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    let url = format!("http://{}/v1", listener.local_addr().unwrap_or_else(|e| panic!("{e}")));
    let server = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for chunks in replies {
            let (mut stream, _) = listener.accept().unwrap_or_else(|e| panic!("{e}"));
            let mut reader = BufReader::new(stream.try_clone().unwrap_or_else(|e| panic!("{e}")));
            let (mut head, mut length) = (String::new(), 0);
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap_or_else(|e| panic!("{e}"));
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
                if line == "\r\n" || line.is_empty() {
                    break;
                }
                head.push_str(&line);
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap_or_else(|e| panic!("{e}"));
            seen.push(Seen { head, body: String::from_utf8_lossy(&body).into_owned() });
            let mut events: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
            // Only OpenAI's streams end with `[DONE]`; Anthropic's and Gemini's just end.
            if chunks.first().is_some_and(|chunk| chunk.get("choices").is_some()) {
                events.push_str("data: [DONE]\n\n");
            }
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                events.len()
            );
            stream.write_all(head.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
            stream.write_all(events.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        }
        seen
    });
    (url, server)
}

/// The bodies of the requests the mock model got, once it has answered all its replies.
pub(crate) fn bodies(server: JoinHandle<Vec<Seen>>) -> Vec<String> {
    let seen = server.join().unwrap_or_else(|_| panic!("the mock model failed"));
    seen.into_iter().map(|seen| seen.body).collect()
}

/// An OpenAI chat stream that calls `tool` once, as chunks.
pub(crate) fn calling(id: &str, tool: &str, arguments: &str) -> Vec<Value> {
    let call = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": id,
        "type": "function", "function": {"name": tool, "arguments": arguments}}]}}]});
    vec![call, json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})]
}

/// An OpenAI chat stream that says `text` and stops, as chunks.
pub(crate) fn saying(text: &str) -> Vec<Value> {
    vec![
        json!({"choices": [{"index": 0, "delta": {"content": text}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ]
}
