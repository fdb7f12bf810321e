//! [`McpServer`] as an rmcp [`ServerHandler`]: tools from the registry, logging levels, and
//! the extras' resources, prompts and completions.

#![expect(deprecated, reason = "MCP logging is deprecated by SEP-2577 but still specified")]

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, DiscoverResult, GetPromptRequestParams, GetPromptResponse, GetTaskParams,
    GetTaskResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ResultType, ServerCapabilities, ServerConfig, SetLevelRequestMethod, SetLevelRequestParams,
    SubscribeRequestParams, TASKS_EXTENSION_ID, Tool as McpTool, ToolsCapability,
    UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use toolwire::{Provider, Tool};

use super::events::rank_of;
use super::{Extras, McpServer, call, mrtr, tasks, trace};

/// Sets `resultType: "complete"` on a result that lacks it, as MCP 2026-07-28 requires of
/// every result (rmcp drops it again for a client on an older revision). The extras' results
/// may be built from JSON, which leaves it out.
macro_rules! complete {
    ($result:expr) => {{
        let mut result = $result;
        result.result_type.get_or_insert(ResultType::COMPLETE);
        result
    }};
}

impl<H: Extras> ServerHandler for McpServer<H> {
    fn get_info(&self) -> ServerConfig {
        let extras = self.shared.extras.get_info();
        let mut capabilities = ServerCapabilities::default();
        capabilities.resources = extras.capabilities.resources;
        capabilities.prompts = extras.capabilities.prompts;
        capabilities.completions = extras.capabilities.completions;
        let mut tools = ToolsCapability::default();
        // A catalog's sessions are told when a search adds tools to their list.
        tools.list_changed = self.shared.search.is_some().then_some(true);
        capabilities.tools = Some(tools);
        capabilities.logging = Some(Default::default());
        let mut extensions = extras.capabilities.extensions.unwrap_or_default();
        extensions.insert(TASKS_EXTENSION_ID.to_owned(), Default::default());
        capabilities.extensions = Some(extensions);
        let mut info = ServerConfig::new(capabilities).with_server_info(self.shared.info.clone());
        if let Some(instructions) = &self.shared.instructions {
            info = info.with_instructions(instructions.clone());
        }
        info
    }

    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        let mut info = self.get_info();
        // There is no session to notify under 2026-07-28, and this server does not serve
        // `subscriptions/listen`: it promises no list changes and no resource subscriptions.
        if let Some(resources) = &mut info.capabilities.resources {
            resources.subscribe = None;
            resources.list_changed = None;
        }
        if let Some(prompts) = &mut info.capabilities.prompts {
            prompts.list_changed = None;
        }
        if let Some(tools) = &mut info.capabilities.tools {
            tools.list_changed = None;
        }
        Ok(DiscoverResult::from_server_info(self.supported_protocol_versions().into_owned(), info))
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // 2026-07-28 removed the method: each request sets its own level in `_meta`.
        if mrtr::is_stateless(&context) {
            return Err(ErrorData::method_not_found::<SetLevelRequestMethod>());
        }
        self.session.set_level(rank_of(request.level));
        Ok(())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let cursor = request.and_then(|r| r.cursor);
        self.page(cursor.as_deref(), self.catalog_search(&context))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(answer) = self.catalog_answer(&request, &context).await {
            return Ok(answer);
        }
        let version = || context.protocol_version().map(|version| version.as_str().to_owned());
        let Some((span, version)) = trace::call_span(&request.name, version, &context.meta) else {
            return call::call_tool(self, request, context).await;
        };
        let tool = request.name.clone();
        let call = call::call_tool(self, request, context);
        trace::observed(span, &tool, version.as_deref(), call).await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        tasks::get(self, request, context).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        tasks::update(self, request, context).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        tasks::cancel(self, request, context).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.shared.extras.complete(request, context).await.map(|result| complete!(result))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        Ok(match self.shared.extras.get_prompt(request, context).await? {
            GetPromptResponse::Complete(result) => GetPromptResponse::Complete(complete!(result)),
            other => other,
        })
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.shared.extras.list_prompts(request, context).await.map(|result| complete!(result))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.shared.extras.list_resources(request, context).await.map(|result| complete!(result))
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.shared
            .extras
            .list_resource_templates(request, context)
            .await
            .map(|result| complete!(result))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        Ok(match self.shared.extras.read_resource(request, context).await? {
            ReadResourceResponse::Complete(result) => {
                ReadResourceResponse::Complete(complete!(result))
            }
            other => other,
        })
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.shared.extras.subscribe(request, context).await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.shared.extras.unsubscribe(request, context).await
    }
}

impl<H: Extras> McpServer<H> {
    /// One page of the tools active for this server's state, from `cursor` (the position of
    /// the page's first tool, as the previous page's `nextCursor` gave it); with `search`, the
    /// session's catalog (see `catalog`).
    fn page(
        &self,
        cursor: Option<&str>,
        search: Option<&Tool>,
    ) -> Result<ListToolsResult, ErrorData> {
        let start = match cursor {
            None => 0,
            Some(text) => text.parse::<usize>().map_err(|_| {
                ErrorData::invalid_params(format!("invalid cursor {:?}", clip(text)), None)
            })?,
        };
        let mut active: Vec<&Tool> = self.active_tools().collect();
        if let Some(search) = search {
            active = self.catalog_tools(search, active);
        }
        let size = self.shared.page_size;
        let page = active.get(start..).unwrap_or_default();
        let tools = page
            .iter()
            .take(size)
            .filter_map(|tool| match serde_json::from_value::<McpTool>(tool.definition(Provider::Mcp).clone()) {
                Ok(described) => Some(described),
                Err(error) => {
                    tracing::warn!(tool = tool.name(), %error, "a tool's MCP shape is not an MCP tool; left out");
                    None
                }
            })
            .collect();
        let mut result = ListToolsResult::with_all_items(tools);
        let next = start + size;
        result.next_cursor = (next < active.len()).then(|| next.to_string());
        Ok(result)
    }

    fn active_tools(&self) -> impl Iterator<Item = &Tool> {
        self.shared.registry.tools().iter().filter(move |tool| self.lists(tool))
    }

    /// Whether `tool` is active for this server's state, so that it is listed.
    pub(crate) fn lists(&self, tool: &Tool) -> bool {
        let state = self.shared.active.as_ref();
        state.map_or_else(|| tool.is_active(&()), |active| active(tool))
    }
}

fn clip(text: &str) -> String {
    text.chars().take(64).collect()
}
