//! A PostgreSQL journal's URL takes `sslmode` (and `sslrootcert`): TLS is there for managed
//! servers that require it, and a TLS that cannot be had fails clearly. The throwaway test
//! server has no TLS.

use serde_json::json;
use toolwire::{Tool, ToolResult};
use toolwire_journal::{Journal, JournalErrorKind};

use crate::common;

/// `url` with the query parameter `param` added.
fn with_param(url: &str, param: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}{param}")
}

#[tokio::test]
async fn a_url_with_sslmode_disable_opens_the_test_server() {
    let url = with_param(&common::fresh_pg_database().await, "sslmode=disable");
    let journal = Journal::open(&url).await.expect("the journal opens without TLS");
    let echo = Tool::define("echo")
        .execute_sync(|args, _| ToolResult::ok(args, "echoed"))
        .build()
        .expect("the tool builds");
    let registry = common::registry(&journal, vec![echo]);
    let receipt = journal.invoke(&registry, "echo", json!({"x": 1})).call_id("c1").await;
    assert!(receipt.expect("journaled").result.is_success());
    journal.close().await;
}

#[tokio::test]
async fn sslmode_require_against_a_server_without_tls_fails_saying_so() {
    if std::env::var_os("TOOLWIRE_TEST_PG_URL").is_some() {
        eprintln!("TOOLWIRE_TEST_PG_URL is set: its server may have TLS; nothing to check");
        return;
    }
    let url = with_param(&common::fresh_pg_database().await, "sslmode=require");
    let error = Journal::open(&url).await.expect_err("no TLS on the test server");
    assert_eq!(error.kind(), JournalErrorKind::Unavailable);
    let text = error.to_string();
    assert!(text.contains("TLS") && text.contains("SSL"), "{text}");
    assert!(text.contains("sslmode"), "{text}");
    assert!(text.contains("server does not support TLS"), "{text}");
    assert!(!text.contains(&password(&url)), "the password leaked: {text}");
}

#[tokio::test]
async fn an_unknown_sslmode_is_refused_naming_it() {
    let url = with_param(&common::fresh_pg_database().await, "sslmode=sometimes");
    let error = Journal::open(&url).await.expect_err("an unknown sslmode");
    let text = error.to_string();
    assert!(text.contains("the URL cannot be used") && text.contains("\"sometimes\""), "{text}");
}

/// The password of a `postgres://user:password@host/db` URL.
fn password(url: &str) -> String {
    let userinfo = url.split_once("://").and_then(|(_, rest)| rest.split_once('@'));
    let password = userinfo.and_then(|(userinfo, _)| userinfo.split_once(':'));
    password.map(|(_, password)| password.to_owned()).unwrap_or_else(|| "\u{0}".to_owned())
}
