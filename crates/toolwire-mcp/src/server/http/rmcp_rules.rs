//! The rules of rmcp 3.11 that the direct path ([`super::direct`]) copies, so that a call it
//! answers gets what rmcp would answer: each names the rmcp source it follows. rmcp keeps
//! them private; `Cargo.toml` pins `rmcp = "~3.11"` while these copies exist, and the direct
//! path's tests send every kind of request to both paths and compare the replies.

use http::StatusCode;
use rmcp::ErrorData;
use rmcp::model::{ErrorCode, RequestId, ServerJsonRpcMessage, ServerResult};

/// A tool's error on 2026-07-28: a missing resource is invalid params. Follows
/// `src/handler/server.rs` (the `tools/call` arm of `ServerHandler::handle_request`).
pub(super) fn reworded(mut error: ErrorData) -> ErrorData {
    if error.code == ErrorCode::RESOURCE_NOT_FOUND {
        error.code = ErrorCode::INVALID_PARAMS;
    }
    error
}

/// The HTTP status of a JSON-RPC error on 2026-07-28 (a request whose `_meta` is whole).
/// Follows `jsonrpc_http_status` in `src/transport/streamable_http_server/tower.rs`.
pub(super) fn status(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::HEADER_MISMATCH => StatusCode::BAD_REQUEST,
        ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

/// A tool's error as its JSON-RPC message, with its HTTP status.
pub(super) fn error_message(error: ErrorData, id: RequestId) -> (ServerJsonRpcMessage, StatusCode) {
    let error = reworded(error);
    let status = status(error.code);
    (ServerJsonRpcMessage::error(error, Some(id)), status)
}

/// A result as its JSON-RPC message, with the cache hints rmcp adds. Follows
/// `ServerResult::fill_missing_cache_hints` as `src/service/server.rs` calls it on each
/// response.
pub(super) fn result_message(
    result: impl Into<ServerResult>,
    id: RequestId,
) -> ServerJsonRpcMessage {
    let mut result = result.into();
    result.fill_missing_cache_hints();
    ServerJsonRpcMessage::response(result, id)
}
