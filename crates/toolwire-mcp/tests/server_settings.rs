//! The settings of an `McpServer` (name, instructions, page size, ...) stay with the server
//! they were set on, whether or not it has been cloned or has made sessions.

use rmcp::{ServerHandler, ServiceExt};
use serde_json::json;
use toolwire::{Registry, Tool, ToolResult};
use toolwire_mcp::server::McpServer;

fn registry() -> Registry {
    let tool = |name: &str| {
        Tool::define(name)
            .description("Echo the arguments back")
            .execute_sync(|args, _| ToolResult::ok(args, "echoed"))
            .build()
            .expect("a valid tool")
    };
    Registry::builder().register(tool("one")).register(tool("two")).seal().expect("unique names")
}

#[test]
fn regression_a_setting_on_a_cloned_server_is_kept() {
    let server = McpServer::new(registry());
    let before = server.clone();
    let named = server.name("custom", "9.9.9").instructions("be brief");
    let info = named.get_info();
    assert_eq!(info.server_info.name, "custom");
    assert_eq!(info.server_info.version, "9.9.9");
    assert_eq!(info.instructions.as_deref(), Some("be brief"));
    // The clone made before keeps the settings it had.
    assert_eq!(before.get_info().server_info.name, "toolwire-mcp");
    assert_eq!(before.get_info().instructions, None);
}

#[test]
fn regression_a_setting_after_a_session_was_made_is_kept() {
    let server = McpServer::new(registry());
    let session = server.session();
    let named = server.name("after-session", "1.0.0");
    assert_eq!(named.get_info().server_info.name, "after-session");
    assert_eq!(session.get_info().server_info.name, "toolwire-mcp");
}

#[tokio::test]
async fn a_cloned_server_serves_its_own_settings() {
    let server = McpServer::new(registry());
    let _kept = server.clone();
    let paged = server.name("paged", "2.0.0").page_size(1);
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = paged.session().serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await.expect("handshake");
    let info = client.peer_info().expect("the server's info");
    let name = info.server_info.as_ref().map(|server| server.name.as_str());
    assert_eq!(name, Some("paged"));
    let page = client.list_tools(None).await.expect("tools/list");
    let names: Vec<_> = page.tools.iter().map(|tool| tool.name.to_string()).collect();
    assert_eq!(json!(names), json!(["one"]));
    assert_eq!(page.next_cursor.as_deref(), Some("1"));
    let _ = client.cancel().await;
}
