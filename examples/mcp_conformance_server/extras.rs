//! The suite's resources, prompts and completions, served by a plain rmcp handler.

use std::collections::HashSet;
use std::sync::Mutex;

use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, InputRequests, InputRequiredResult, InputResponses, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities,
    ServerConfig, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::media::{BYTES, PNG};

/// Resources, prompts and completions, and the resources a session subscribed to.
#[derive(Debug, Default)]
pub(crate) struct Extras {
    subscribed: Mutex<HashSet<String>>,
}

/// `value` as the rmcp type `T`; the fixed shapes below always fit.
fn typed<T: DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value)
        .map_err(|e| ErrorData::internal_error(format!("malformed reply: {e}"), None))
}

impl ServerHandler for Extras {
    fn get_info(&self) -> ServerConfig {
        let capabilities: ServerCapabilities = typed(json!({
            "resources": {"subscribe": true, "listChanged": false},
            "prompts": {"listChanged": false},
            "completions": {}
        }))
        .unwrap_or_default();
        ServerConfig::new(capabilities)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        typed(json!({"resources": [
            {"uri": "test://static-text", "name": "static-text", "description": "A static text resource", "mimeType": "text/plain"},
            {"uri": "test://static-binary", "name": "static-binary", "description": "A static binary resource", "mimeType": "application/octet-stream"},
            {"uri": "test://watched-resource", "name": "watched-resource", "description": "A resource to subscribe to", "mimeType": "text/plain"}
        ]}))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        typed(json!({"resourceTemplates": [{
            "uriTemplate": "test://template/{id}/data",
            "name": "template-data",
            "description": "Data for the resource with an id",
            "mimeType": "application/json"
        }]}))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let content = match uri.as_str() {
            "test://static-text" => {
                json!({"uri": uri, "mimeType": "text/plain", "text": "This is the content of the static text resource."})
            }
            "test://static-binary" => {
                json!({"uri": uri, "mimeType": "application/octet-stream", "blob": BYTES})
            }
            "test://watched-resource" => {
                json!({"uri": uri, "mimeType": "text/plain", "text": "Watched resource content"})
            }
            other => match template_id(other) {
                Some(id) => json!({
                    "uri": uri,
                    "mimeType": "application/json",
                    "text": json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
                }),
                None => {
                    return Err(ErrorData::resource_not_found(
                        format!("no resource {uri:?}"),
                        None,
                    ));
                }
            },
        };
        typed::<ReadResourceResult>(json!({"contents": [content]})).map(Into::into)
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions()?.insert(request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions()?.remove(&request.uri);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let argument = |name: &str, description: &str| json!({"name": name, "description": description, "required": true});
        typed(json!({"prompts": [
            {"name": "test_simple_prompt", "description": "A prompt without arguments"},
            {"name": "test_prompt_with_arguments", "description": "A prompt with two arguments",
             "arguments": [argument("arg1", "First test argument"), argument("arg2", "Second test argument")]},
            {"name": "test_prompt_with_embedded_resource", "description": "A prompt with an embedded resource",
             "arguments": [argument("resourceUri", "URI of the resource to embed")]},
            {"name": "test_prompt_with_image", "description": "A prompt with an image"},
            {"name": "test_input_required_result_prompt", "description": "A prompt that asks the client for its context first"}
        ]}))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name == "test_input_required_result_prompt" {
            return context_prompt(request.input_responses.as_ref());
        }
        let arguments = request.arguments.unwrap_or_default();
        let argument =
            |name: &str| arguments.get(name).and_then(Value::as_str).unwrap_or_default().to_owned();
        let text =
            |text: String| json!({"role": "user", "content": {"type": "text", "text": text}});
        let messages = match request.name.as_str() {
            "test_simple_prompt" => vec![text("This is a simple prompt for testing.".into())],
            "test_prompt_with_arguments" => vec![text(format!(
                "Prompt with arguments: arg1='{}', arg2='{}'",
                argument("arg1"),
                argument("arg2")
            ))],
            "test_prompt_with_embedded_resource" => vec![
                json!({"role": "user", "content": {"type": "resource", "resource": {
                    "uri": argument("resourceUri"),
                    "mimeType": "text/plain",
                    "text": "Embedded resource content for testing."
                }}}),
                text("Please process the embedded resource above.".into()),
            ],
            "test_prompt_with_image" => vec![
                json!({"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}}),
                text("Please analyze the image above.".into()),
            ],
            other => return Err(ErrorData::invalid_params(format!("no prompt {other:?}"), None)),
        };
        typed::<GetPromptResult>(json!({"messages": messages})).map(Into::into)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let typed_so_far = request.argument.value;
        let values: Vec<&str> = ["paris", "park", "party"]
            .into_iter()
            .filter(|v| v.starts_with(&typed_so_far))
            .collect();
        typed(json!({"completion": {"values": values, "total": values.len(), "hasMore": false}}))
    }
}

/// MCP 2026-07-28 (SEP-2322): a prompt that asks the client for input before it is given.
fn context_prompt(responses: Option<&InputResponses>) -> Result<GetPromptResponse, ErrorData> {
    let context = responses
        .and_then(|r| r.get("user_context"))
        .and_then(|answer| answer.pointer("/content/context"))
        .and_then(Value::as_str);
    let Some(context) = context else {
        let inputs: InputRequests = typed(json!({"user_context": {
            "method": "elicitation/create",
            "params": {
                "message": "What context should the prompt use?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {"context": {"type": "string"}},
                    "required": ["context"]
                }
            }
        }}))?;
        return Ok(InputRequiredResult::new(Some(inputs), None).into());
    };
    let text = format!("Answer with this context in mind: {context}");
    typed::<GetPromptResult>(json!({"messages": [
        {"role": "user", "content": {"type": "text", "text": text}}
    ]}))
    .map(Into::into)
}

impl Extras {
    fn subscriptions(&self) -> Result<std::sync::MutexGuard<'_, HashSet<String>>, ErrorData> {
        self.subscribed
            .lock()
            .map_err(|_| ErrorData::internal_error("the subscriptions are unavailable", None))
    }
}

/// The `{id}` of a `test://template/{id}/data` URI.
fn template_id(uri: &str) -> Option<&str> {
    uri.strip_prefix("test://template/")?
        .strip_suffix("/data")
        .filter(|id| !id.is_empty() && !id.contains('/'))
}
