//! Named clients (`HttpOptions::users`): a request's token names its client, whose name is
//! the principal of its calls, on every path (2026-07-28 answered directly or by rmcp, and
//! a 2025-11-25 session); nothing the client sends besides its token changes it.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolwire::policy::Decision;
use toolwire::{Principal, Receipt, Registry, Tool, ToolResult};
use toolwire_mcp::server::{HttpOptions, McpServer, Users, serve_on};

use crate::common::{Send, in_session, open_session, rpc, send};

const V2026: &str = "2026-07-28";

/// `whoami` says who calls; `billing` runs for the client `finance` only.
fn registry(receipts: &Arc<Mutex<Vec<Receipt>>>) -> Registry {
    let whoami = Tool::define("whoami")
        .execute_sync(|_: Value, ctx| {
            let who = ctx.principal().map_or_else(|| "nobody".to_owned(), ToString::to_string);
            ToolResult::ok(json!({}), who)
        })
        .build()
        .expect("valid");
    let billing = Tool::define("billing")
        .execute_sync(|_: Value, _| ToolResult::ok(json!({}), "billed"))
        .build()
        .expect("valid");
    let kept = Arc::clone(receipts);
    Registry::builder()
        .register(whoami)
        .register(billing)
        .policy_sync(|tool, _, ctx| match (tool.name(), ctx.principal()) {
            ("billing", Some(who)) if *who == Principal::client("finance") => Decision::Allow,
            ("billing", _) => Decision::Deny("billing is for finance".into()),
            _ => Decision::Allow,
        })
        .on_receipt(move |receipt| kept.lock().expect("not poisoned").push(receipt.clone()))
        .seal()
        .expect("valid")
}

async fn serve(options: HttpOptions, receipts: &Arc<Mutex<Vec<Receipt>>>) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().expect("bound");
    // The server's own principal stands for calls whose transport proves none.
    let server = McpServer::new(registry(receipts)).principal(Principal::user("operator"));
    tokio::spawn(serve_on(listener, server, options));
    addr
}

fn users() -> Users {
    Users::new().add("finance", "tok-finance").add("ci", "tok-ci")
}

/// A 2026-07-28 `tools/call` of `tool` with `token`, extra headers and `_meta`.
async fn call(
    addr: std::net::SocketAddr,
    token: &str,
    tool: &str,
    extra: &[(&'static str, String)],
    meta: Value,
) -> Value {
    let mut headers = vec![
        ("Authorization", format!("Bearer {token}")),
        ("MCP-Protocol-Version", V2026.to_owned()),
        ("Mcp-Method", "tools/call".to_owned()),
        ("Mcp-Name", tool.to_owned()),
    ];
    headers.extend_from_slice(extra);
    let mut meta_all = json!({
        "io.modelcontextprotocol/protocolVersion": V2026,
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    if let (Some(all), Value::Object(more)) = (meta_all.as_object_mut(), meta) {
        all.extend(more);
    }
    let params = json!({"name": tool, "arguments": {"principal": "finance"}, "_meta": meta_all});
    let reply =
        send(addr, Send { headers, ..Send::default() }, &rpc(3, "tools/call", params)).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    reply.json()
}

fn text(reply: &Value) -> &str {
    reply["result"]["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_token_is_the_principal_on_both_2026_paths() {
    let receipts = Arc::default();
    for json_response in [true, false] {
        let options = HttpOptions::default().users(users()).json_response(json_response);
        let addr = serve(options, &receipts).await;
        let me = call(addr, "tok-finance", "whoami", &[], json!({})).await;
        assert_eq!(text(&me), "client finance", "json {json_response}: {me}");
        let billed = call(addr, "tok-finance", "billing", &[], json!({})).await;
        assert_eq!(billed["result"]["isError"], json!(false), "{billed}");

        // The ci client claims finance in a header, in _meta and in the arguments: refused.
        let claims =
            [("X-Toolwire-User", "finance".to_owned()), ("X-Forwarded-User", "finance".to_owned())];
        let meta = json!({"principal": "finance", "user": {"kind": "client", "name": "finance"}});
        let claimed = call(addr, "tok-ci", "billing", &claims, meta).await;
        assert_eq!(claimed["result"]["isError"], json!(true), "{claimed}");
        assert!(text(&claimed).contains("billing is for finance"), "{claimed}");
        assert_eq!(text(&call(addr, "tok-ci", "whoami", &claims, json!({})).await), "client ci");
    }
    let kept = receipts.lock().expect("not poisoned");
    let who: Vec<String> =
        kept.iter().filter_map(|r| r.principal.as_ref().map(ToString::to_string)).collect();
    assert!(who.iter().all(|w| w == "client finance" || w == "client ci"), "{who:?}");
    assert_eq!(who.len(), kept.len(), "every receipt names its client");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_s_calls_run_as_the_client_that_opened_it_and_tokens_are_checked() {
    let receipts = Arc::default();
    let addr = serve(HttpOptions::default().users(users()).bearer_token("shared"), &receipts).await;
    let finance = vec![("Authorization", "Bearer tok-finance".to_owned())];
    let session = open_session(addr, &finance).await;
    let mut headers = in_session(&session);
    headers.extend(finance);
    let params = json!({"name": "whoami", "arguments": {}});
    let reply =
        send(addr, Send { headers, ..Send::default() }, &rpc(5, "tools/call", params)).await;
    assert!(reply.body.contains("client finance"), "{reply:?}");

    // The shared token is accepted and names nobody: the server's own principal stands.
    let me = call(addr, "shared", "whoami", &[], json!({})).await;
    assert_eq!(text(&me), "user operator");
    let billed = call(addr, "shared", "billing", &[], json!({})).await;
    assert_eq!(billed["result"]["isError"], json!(true));

    // No token, a wrong one, or one a byte off: 401, and nothing runs.
    let before = receipts.lock().expect("not poisoned").len();
    for auth in [
        None,
        Some("Bearer tok-financ"),
        Some("Bearer TOK-FINANCE"),
        Some("Bearer tok-finance2"),
        Some("Basic tok-finance"),
        Some("Bearer finance"),
    ] {
        let headers = auth.map(|a| ("Authorization", a.to_owned())).into_iter().collect();
        let params = json!({"name": "billing", "arguments": {}});
        let reply =
            send(addr, Send { headers, ..Send::default() }, &rpc(6, "tools/call", params)).await;
        assert_eq!(reply.status, 401, "{auth:?}");
    }
    assert_eq!(receipts.lock().expect("not poisoned").len(), before);
}
