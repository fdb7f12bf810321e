//! `mcp.json`: the shapes editors write are read, and every mistake names its server and
//! field.

use std::error::Error;

use toolwire_mcp::client::{ConfigErrorKind, HttpConfig, McpConfig, ServerSpec, StdioConfig};

fn error(text: &str) -> toolwire_mcp::client::ConfigError {
    McpConfig::from_json(text).expect_err("the config should be rejected")
}

#[test]
fn editor_shaped_mcp_json_is_read() {
    let config = McpConfig::from_json(
        r#"{"mcpServers": {
            "files": {"command": "npx", "args": ["-y", "server-files", "."], "env": {"DEBUG": "1"},
                      "alwaysAllow": ["read"]},
            "search": {"type": "http", "url": "https://127.0.0.1:8443/mcp",
                       "headers": {"Authorization": "Bearer secret"}},
            "old": {"command": "x", "disabled": true}
        }}"#,
    )
    .expect("valid");
    assert_eq!(config.len(), 2);
    let expected = StdioConfig::new("npx").arg("-y").arg("server-files").arg(".").env("DEBUG", "1");
    assert_eq!(config.get("files"), Some(&ServerSpec::Stdio(expected)));
    let expected =
        HttpConfig::new("https://127.0.0.1:8443/mcp").header("Authorization", "Bearer secret");
    assert_eq!(config.get("search"), Some(&ServerSpec::Http(expected)));
    assert_eq!(config.get("old"), None);
    let names: Vec<&str> = config.servers().map(|(name, _)| name).collect();
    assert_eq!(names, ["files", "search"]);
}

#[test]
fn a_field_of_the_wrong_type_names_the_server_and_the_field() {
    let err = error(r#"{"mcpServers": {"files": {"command": "x", "args": ["a", 3]}}}"#);
    assert_eq!(err.kind(), ConfigErrorKind::InvalidField);
    assert_eq!(err.server(), Some("files"));
    assert_eq!(err.field(), Some("args[1]"));
    assert_eq!(
        err.to_string(),
        r#"mcp.json: server "files": field "args[1]": expected a string, got a number"#
    );

    let err = error(r#"{"mcpServers": {"files": {"command": "x", "env": {"A": true}}}}"#);
    assert_eq!(err.field(), Some("env.A"));
    let err = error(r#"{"mcpServers": {"files": {"command": "x", "env": []}}}"#);
    assert_eq!(
        err.to_string(),
        r#"mcp.json: server "files": field "env": expected an object, got an array"#
    );
}

#[test]
fn a_server_without_command_or_url_is_a_missing_field() {
    let err = error(r#"{"mcpServers": {"empty": {"args": []}}}"#);
    assert_eq!(err.kind(), ConfigErrorKind::MissingField);
    assert_eq!((err.server(), err.field()), (Some("empty"), Some("command")));
    assert!(err.to_string().contains("needs a \"command\" (stdio) or a \"url\" (http)"), "{err}");

    let err = error(r#"{"mcpServers": {"web": {"type": "http"}}}"#);
    assert_eq!((err.kind(), err.field()), (ConfigErrorKind::MissingField, Some("url")));
}

#[test]
fn conflicting_or_unsupported_transports_are_rejected_by_field() {
    let err = error(r#"{"mcpServers": {"both": {"command": "x", "url": "http://127.0.0.1/mcp"}}}"#);
    assert_eq!((err.server(), err.field()), (Some("both"), Some("url")));
    let err =
        error(r#"{"mcpServers": {"legacy": {"type": "sse", "url": "http://127.0.0.1/sse"}}}"#);
    assert_eq!(err.field(), Some("type"));
    assert!(err.to_string().contains("legacy sse transport is not supported"), "{err}");
    let err = error(r#"{"mcpServers": {"odd": {"type": "carrier-pigeon", "command": "x"}}}"#);
    assert_eq!(err.field(), Some("type"));
    let err = error(r#"{"mcpServers": {"ftp": {"url": "ftp://127.0.0.1/mcp"}}}"#);
    assert_eq!((err.server(), err.field()), (Some("ftp"), Some("url")));
}

#[test]
fn bad_headers_name_the_header() {
    let err = error(
        r#"{"mcpServers": {"web": {"url": "http://127.0.0.1/mcp", "headers": {"Bad Name": "v"}}}}"#,
    );
    assert_eq!((err.server(), err.field()), (Some("web"), Some("headers.Bad Name")));
    let err = error(
        r#"{"mcpServers": {"web": {"url": "http://127.0.0.1/mcp", "headers": {"Mcp-Session-Id": "s"}}}}"#,
    );
    assert_eq!(err.field(), Some("headers.Mcp-Session-Id"));
    assert!(err.to_string().contains("set by the transport itself"), "{err}");
}

#[test]
fn malformed_files_say_what_is_wrong() {
    let err = error("{not json");
    assert_eq!(err.kind(), ConfigErrorKind::Syntax);
    assert!(err.to_string().starts_with("mcp.json: not valid JSON: "), "{err}");
    assert!(err.source().is_some());
    let err = error(r#"{"servers": {}}"#);
    assert_eq!(err.kind(), ConfigErrorKind::Shape);
    let err = error(r#"{"mcpServers": {"x": "npx server"}}"#);
    assert_eq!(err.to_string(), r#"mcp.json: server "x": expected an object, got a string"#);
}

#[test]
fn a_missing_file_is_an_io_error_naming_the_path() {
    let err = McpConfig::from_path("/nonexistent/mcp.json").expect_err("missing");
    assert_eq!(err.kind(), ConfigErrorKind::Io);
    assert!(err.to_string().contains("/nonexistent/mcp.json"), "{err}");
}

#[test]
fn an_oauth_object_is_read_as_editors_write_it() {
    let config = McpConfig::from_json(
        r#"{"mcpServers": {"docs": {"url": "https://docs.example/mcp", "oauth": {
            "clientId": "my-app", "clientSecret": "s3cr3t", "scopes": "docs:read docs:write",
            "callbackPort": 8765, "clientMetadataUrl": "https://app.example/client.json",
            "trustedHosts": ["login.example"]}}}}"#,
    )
    .expect("valid");
    let Some(ServerSpec::Http(http)) = config.get("docs") else { panic!("an http server") };
    let oauth = http.oauth.as_ref().expect("oauth settings");
    assert_eq!(oauth.client_id.as_deref(), Some("my-app"));
    assert_eq!(oauth.client_secret.as_deref(), Some("s3cr3t"));
    assert_eq!(oauth.scopes, ["docs:read", "docs:write"]);
    assert_eq!(oauth.redirect_port, Some(8765));
    assert_eq!(oauth.client_metadata_url.as_deref(), Some("https://app.example/client.json"));
    assert_eq!(oauth.trusted_hosts, ["login.example"]);
    assert!(!format!("{config:?}").contains("s3cr3t"), "Debug redacts the client secret");
    let snake = McpConfig::from_json(
        r#"{"mcpServers": {"d": {"url": "https://d.example/mcp", "oauth": {"client_id": "a", "scopes": ["x"]}}}}"#,
    )
    .expect("snake case");
    let Some(ServerSpec::Http(http)) = snake.get("d") else { panic!("an http server") };
    assert_eq!(http.oauth.as_ref().and_then(|o| o.client_id.as_deref()), Some("a"));
}

#[test]
fn a_bad_oauth_object_names_the_server_and_the_setting() {
    let cases = [
        (r#""oauth": "yes""#, "oauth"),
        (r#""oauth": {"clientID": "a"}"#, "oauth.clientID"),
        (r#""oauth": {"clientId": 3}"#, "oauth.clientId"),
        (r#""oauth": {"clientId": ""}"#, "oauth.clientId"),
        (r#""oauth": {"callbackPort": 70000}"#, "oauth.callbackPort"),
        (r#""oauth": {"scopes": [1]}"#, "oauth.scopes[0]"),
        (
            r#""oauth": {"clientMetadataUrl": "http://app.example/c.json"}"#,
            "oauth.clientMetadataUrl",
        ),
    ];
    for (oauth, field) in cases {
        let text =
            format!(r#"{{"mcpServers": {{"docs": {{"url": "https://d.example/mcp", {oauth}}}}}}}"#);
        let err = error(&text);
        assert_eq!(err.kind(), ConfigErrorKind::InvalidField, "{oauth}: {err}");
        assert_eq!(err.server(), Some("docs"), "{oauth}");
        assert_eq!(err.field(), Some(field), "{oauth}: {err}");
    }
}
