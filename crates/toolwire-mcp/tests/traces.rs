//! A remote call's spans, as the OpenTelemetry conventions for MCP describe them: the
//! client's `tools/call {tool}` (kind CLIENT), the server's (kind SERVER) with the
//! invocation's `execute_tool` span inside it, and `error.type` `tool_error` on both for an
//! `isError` result; and each side's `mcp.{client,server}.operation.duration`.

use crate::common::serve;
use serde_json::{Value, json};
use toolwire::{Registry, Tool, ToolResult};
use toolwire_mcp::client::{ClientOptions, HttpConfig, RemoteServer, ServerSpec};
use toolwire_mcp::server::HttpOptions;
use toolwire_test_support::spans::{Closed, traced};

fn tools() -> Registry {
    let ok = Tool::define("ok").execute_sync(|args: Value, _| ToolResult::ok(args, "fine")).build();
    let bad = Tool::define("bad").execute_sync(|_: Value, _| ToolResult::failure("no")).build();
    Registry::builder()
        .register(ok.expect("valid"))
        .register(bad.expect("valid"))
        .seal()
        .expect("unique")
}

#[test]
fn a_remote_call_has_a_client_and_a_server_span_with_the_tool_span_inside() {
    let ((), spans) = traced(|| {
        // One thread, so that the server's tasks see the test's subscriber too.
        let runtime =
            tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        runtime.block_on(async {
            let addr = serve(tools(), HttpOptions::default()).await;
            let spec = ServerSpec::Http(HttpConfig::new(format!("http://{addr}/mcp")));
            let remote = RemoteServer::connect("ops", &spec, ClientOptions::new()).await;
            let remote = remote.expect("connects");
            let registry = Registry::builder().register_all(remote.import().tools).seal();
            let registry = registry.expect("unique");
            let ok = registry.invoke("ops__ok", json!({})).await;
            assert!(ok.result.is_success(), "{:?}", ok.result);
            let bad = registry.invoke("ops__bad", json!({})).await;
            assert!(!bad.result.is_success());
            remote.close().await;
        });
    });
    let named = |name: &str, kind: &str| -> Vec<Closed> {
        spans
            .iter()
            .filter(|s| {
                s.name == "tools/call"
                    && s.fields.get("otel.kind").map(String::as_str) == Some(kind)
            })
            .filter(|s| s.fields.get("gen_ai.tool.name").map(String::as_str) == Some(name))
            .cloned()
            .collect()
    };
    let (client_ok, server_ok) = (named("ok", "client"), named("ok", "server"));
    assert_eq!((client_ok.len(), server_ok.len()), (1, 1), "{spans:#?}");
    assert_eq!(client_ok[0].fields["otel.name"], "tools/call ok");
    assert_eq!(server_ok[0].fields["mcp.method.name"], "tools/call");
    assert!(!server_ok[0].fields.contains_key("error.type"));
    let tool =
        spans.iter().find(|s| s.name == "execute_tool" && s.fields["gen_ai.tool.name"] == "ok");
    let tool = tool.expect("the server's execute_tool span");
    assert_eq!(tool.parent.as_deref(), Some("tools/call"), "{tool:?}");
    assert_eq!(tool.parent_kind.as_deref(), Some("server"), "{tool:?}");
    let (client_bad, server_bad) = (named("bad", "client"), named("bad", "server"));
    assert_eq!(server_bad[0].fields["error.type"], "tool_error", "{server_bad:?}");
    assert_eq!(client_bad[0].fields["error.type"], "tool_error", "{client_bad:?}");
    // Each side measures the call, with the same attributes as its span.
    for (side, ok, bad) in
        [("client", &client_ok[0], &client_bad[0]), ("server", &server_ok[0], &server_bad[0])]
    {
        let metric = format!("mcp.{side}.operation.duration");
        for (span, error) in [(ok, None), (bad, Some("tool_error"))] {
            let [measured] = span.metrics.as_slice() else { panic!("one metric: {span:?}") };
            assert_eq!(measured["metric"], metric);
            assert_eq!(measured["mcp.method.name"], "tools/call");
            assert_eq!(measured["gen_ai.tool.name"], span.fields["gen_ai.tool.name"]);
            assert_eq!(measured.get("error.type").map(String::as_str), error, "{measured:?}");
            let seconds: f64 = measured["value"].parse().expect("seconds");
            assert!(seconds >= 0.0);
        }
    }
    assert!(server_ok[0].metrics[0].contains_key("mcp.protocol.version"), "{server_ok:?}");
}

/// Regression guard for the `otel` feature: the client's span and the server's are one
/// trace, the server's a child of the client's, through `traceparent` in `_meta`.
#[cfg(feature = "otel")]
mod one_trace {
    use std::sync::{Arc, Mutex};

    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry_sdk::error::OTelSdkResult;
    use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
    use serde_json::json;
    use toolwire::Registry;
    use toolwire_mcp::client::{ClientOptions, HttpConfig, RemoteServer, ServerSpec};
    use toolwire_mcp::server::HttpOptions;
    use tracing_subscriber::layer::SubscriberExt;

    use crate::common::serve;

    /// Keeps every span the SDK exports.
    #[derive(Debug, Clone, Default)]
    struct Kept(Arc<Mutex<Vec<SpanData>>>);

    impl SpanExporter for Kept {
        async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
            self.0.lock().expect("not poisoned").extend(batch);
            Ok(())
        }
    }

    #[test]
    fn a_remote_call_is_one_trace_across_the_mcp_hop() {
        let kept = Kept::default();
        let provider = SdkTracerProvider::builder().with_simple_exporter(kept.clone()).build();
        let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("test"));
        let subscriber = tracing_subscriber::registry().with(layer);
        let runtime =
            tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        tracing::subscriber::with_default(subscriber, || {
            // Other tests run at once: see `spans::traced`.
            std::thread::sleep(std::time::Duration::from_millis(5));
            tracing::callsite::rebuild_interest_cache();
            runtime.block_on(async {
                let addr = serve(super::tools(), HttpOptions::default()).await;
                let spec = ServerSpec::Http(HttpConfig::new(format!("http://{addr}/mcp")));
                let remote = RemoteServer::connect("ops", &spec, ClientOptions::new()).await;
                let remote = remote.expect("connects");
                let registry = Registry::builder().register_all(remote.import().tools).seal();
                let done = registry.expect("unique").invoke("ops__ok", json!({})).await;
                assert!(done.result.is_success(), "{:?}", done.result);
                remote.close().await;
            });
        });
        drop(runtime);
        let spans = kept.0.lock().expect("not poisoned").clone();
        let find = |name: &str| spans.iter().find(|s| s.name == name).cloned();
        let client = spans.iter().find(|s| s.name == "tools/call ok" && !s.parent_span_is_remote);
        let client = client.unwrap_or_else(|| panic!("no client span: {spans:#?}"));
        let server = spans.iter().find(|s| s.name == "tools/call ok" && s.parent_span_is_remote);
        let server =
            server.unwrap_or_else(|| panic!("no server span continuing the trace: {spans:#?}"));
        let client = client.clone();
        assert_eq!(server.span_context.trace_id(), client.span_context.trace_id());
        assert_eq!(server.parent_span_id, client.span_context.span_id());
        let tool = find("execute_tool ok").expect("the tool's span");
        assert_eq!(tool.span_context.trace_id(), client.span_context.trace_id(), "one trace");
    }
}
