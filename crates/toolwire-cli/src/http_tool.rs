//! HTTP tools: a request to a URL template filled from the validated arguments (each value
//! percent-encoded, so it stays within its place in the URL), with headers from the
//! environment. Plain `http://` only: this build carries no TLS.
//!
//! A response whose `Content-Type` is an image, audio or a PDF becomes a content part of the
//! result (a PDF as a file named after the URL's last segment); its bytes are checked against
//! the type when the result is.

use std::sync::Arc;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;
use toolwire::ToolResult;
use toolwire::media::Part;

use crate::manifest::{HeaderSpec, HttpDef};

/// The MIME type of a response that becomes a content part: an image, audio or a PDF.
fn media_type(content_type: &str) -> Option<String> {
    let essence = content_type.split(';').next()?.trim().to_ascii_lowercase();
    let media = essence.starts_with("image/")
        || essence.starts_with("audio/")
        || essence == "application/pdf";
    media.then_some(essence)
}

/// The part a media response's `body` makes: a PDF is a file named after the URL's last
/// path segment.
fn media_part(mime: &str, url: &str, body: Vec<u8>) -> Part {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    let name = path.rsplit('/').find(|segment| !segment.is_empty() && !segment.contains(':'));
    Part::from_mime(name.unwrap_or("document.pdf"), mime, body)
}

/// An HTTP tool, ready to run calls.
#[derive(Debug, Clone)]
pub(crate) struct HttpTool {
    name: Arc<str>,
    def: Arc<HttpDef>,
    client: reqwest::Client,
}

impl HttpTool {
    /// The tool `name` sending `def`.
    pub(crate) fn new(name: &str, def: HttpDef) -> Self {
        // The agent crate builds reqwest with rustls and no provider of its own: install one
        // before any client is made, or making it fails.
        toolwire_agent::install_tls_provider();
        Self { name: Arc::from(name), def: Arc::new(def), client: reqwest::Client::new() }
    }

    /// Runs one call: arguments fill the URL, and for a method other than `GET`, `HEAD` and
    /// `DELETE` they are also sent as the JSON body.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future drops the request.
    pub(crate) async fn run(&self, args: Value) -> ToolResult {
        match self.send(&args).await {
            Ok(result) => result,
            Err(why) => ToolResult::failure(format!("{:?}: {why}", self.name)),
        }
    }

    async fn send(&self, args: &Value) -> Result<ToolResult, String> {
        let def = &self.def;
        let url = def.url.fill(args, encode).ok_or("an argument of the URL is missing")?;
        let mut request = self.client.request(def.method.clone(), &url).timeout(def.timeout);
        for (name, spec) in &def.headers {
            request = request.header(name, header_value(name, spec)?);
        }
        let has_body = !matches!(
            def.method,
            reqwest::Method::GET | reqwest::Method::HEAD | reqwest::Method::DELETE
        );
        if has_body {
            request = request.json(args);
        }
        let mut response = request
            .send()
            .await
            .map_err(|error| format!("{} {url} failed: {error}", def.method))?;
        let status = response.status();
        let media = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .and_then(media_type);
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|error| format!("reading the response failed: {error}"))?
        {
            body.extend_from_slice(&chunk);
            if body.len() as u64 > def.output_limit {
                return Err(format!("the response has more than {} bytes", def.output_limit));
            }
        }
        if status.is_success()
            && let Some(mime) = media
        {
            return Ok(ToolResult::from_parts(vec![media_part(&mime, &url, body)]));
        }
        let text = String::from_utf8_lossy(&body).into_owned();
        if !status.is_success() {
            return Err(format!("{} {url} answered {status}: {}", def.method, text.trim_end()));
        }
        let json = serde_json::from_str(&text).unwrap_or_else(|_| Value::String(text.clone()));
        Ok(ToolResult::ok(json, text))
    }
}

/// The value of the header `name`, read from the environment when the spec says so.
fn header_value(name: &str, spec: &HeaderSpec) -> Result<String, String> {
    match spec {
        HeaderSpec::Fixed(value) => Ok(value.clone()),
        HeaderSpec::Env { env, prefix } => {
            std::env::var(env).map(|value| format!("{prefix}{value}")).map_err(|_| {
                format!("the environment variable {env} for the header {name} is not set")
            })
        }
    }
}

/// Everything but RFC 3986's unreserved characters (`ALPHA / DIGIT / "-" / "." / "_" / "~"`)
/// is encoded, so a value cannot end its path segment or query part.
const NOT_UNRESERVED: &AsciiSet =
    &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// Percent-encodes one argument's text for its place in the URL.
fn encode(text: &str) -> String {
    utf8_percent_encode(text, NOT_UNRESERVED).to_string()
}
