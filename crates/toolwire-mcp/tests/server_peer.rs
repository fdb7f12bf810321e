//! `server::peer()`: a tool's handler reaches the session's client while its `tools/call`
//! runs, and nowhere else.

#![expect(deprecated, reason = "MCP sampling is deprecated by SEP-2577 but still specified")]

use rmcp::model::{
    CallToolRequestParams, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
};
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};
use toolwire::{Registry, Tool, ToolContext, ToolResult};
use toolwire_mcp::server::{McpServer, peer};

/// A client that declares sampling and answers every request with the prompt it got.
struct Sampler;

impl ClientHandler for Sampler {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"sampling": {}},
            "clientInfo": {"name": "sampler", "version": "1.0.0"}
        }))
        .expect("a valid client config")
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let asked = serde_json::to_value(&params.messages).expect("serializable messages");
        let prompt = asked.pointer("/0/content/text").and_then(Value::as_str).unwrap_or_default();
        let reply = json!({
            "role": "assistant",
            "content": {"type": "text", "text": format!("echo: {prompt}")},
            "model": "test-model"
        });
        Ok(serde_json::from_value(reply).expect("a valid sampling result"))
    }
}

/// A tool that asks the client's model through `peer()`.
fn ask_model() -> Tool {
    Tool::define("ask_model")
        .description("Ask the client's model")
        .execute(|_: Value, _: ToolContext| async move {
            let Some(peer) = peer() else { return ToolResult::failure("no peer") };
            let params = serde_json::from_value(json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "hello"}}],
                "maxTokens": 10
            }))
            .expect("valid sampling params");
            match peer.create_message(params).await {
                Ok(result) => {
                    let reply = serde_json::to_value(&result).expect("serializable result");
                    let text =
                        reply.pointer("/content/text").and_then(Value::as_str).unwrap_or_default();
                    ToolResult::ok(Value::Null, text)
                }
                Err(error) => ToolResult::failure(format!("sampling failed: {error}")),
            }
        })
        .build()
        .expect("a valid tool")
}

#[tokio::test]
async fn a_handler_reaches_the_client_during_a_call() {
    let registry = Registry::builder().register(ask_model()).seal().expect("unique names");
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = tokio::spawn(async move {
        let running = McpServer::new(registry).session().serve(server_io).await.expect("handshake");
        running.waiting().await.expect("a clean session");
    });
    let client = Sampler.serve(client_io).await.expect("handshake");
    let result = client.call_tool(CallToolRequestParams::new("ask_model")).await.expect("a result");
    let text = serde_json::to_value(&result.content).expect("serializable content");
    assert_eq!(result.is_error, Some(false), "{text}");
    assert_eq!(text.pointer("/0/text").and_then(Value::as_str), Some("echo: hello"));
    client.cancel().await.expect("a clean close");
    server.await.expect("the server task ends");
}

#[tokio::test]
async fn there_is_no_peer_outside_a_call() {
    assert!(peer().is_none());
    let result = ask_model().execute(json!({})).await;
    assert_eq!(result.text(), Some("no peer"));
}
