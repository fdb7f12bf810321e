//! Handlers: the user's function, erased once into one of two shapes.

use std::fmt::Display;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use crate::context::ToolContext;
use crate::record::{FailureKind, ToolResult};

/// A boxed handler future.
pub(crate) type BoxFuture = Pin<Box<dyn Future<Output = ToolResult> + Send + 'static>>;

/// What a handler may return: a [`ToolResult`], or a `Result<ToolResult, E>` whose error
/// becomes a failed result with the error's message as its text (an empty message stays
/// empty).
pub trait IntoToolResult {
    /// Converts the handler's return value into the result the caller sees.
    fn into_tool_result(self) -> ToolResult;
}

impl IntoToolResult for ToolResult {
    fn into_tool_result(self) -> ToolResult {
        self
    }
}

/// A result of that one part, such as an image.
impl IntoToolResult for crate::media::Part {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::from_parts(vec![self])
    }
}

/// A result of these parts, in order.
impl IntoToolResult for Vec<crate::media::Part> {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::from_parts(self)
    }
}

impl<E: Display> IntoToolResult for Result<ToolResult, E> {
    fn into_tool_result(self) -> ToolResult {
        self.unwrap_or_else(|error| ToolResult::failed(FailureKind::Handler, error.to_string()))
    }
}

/// A tool's function, with its generics erased.
#[derive(Clone)]
pub(crate) enum Handler {
    /// Runs to completion on the caller's task when first polled.
    Sync(Arc<dyn Fn(Value, ToolContext) -> ToolResult + Send + Sync>),
    /// Returns a future that is raced against the signal and the deadline.
    Async(Arc<dyn Fn(Value, ToolContext) -> BoxFuture + Send + Sync>),
}

impl Handler {
    pub(crate) fn from_sync<F, R>(f: F) -> Self
    where
        F: Fn(Value, ToolContext) -> R + Send + Sync + 'static,
        R: IntoToolResult,
    {
        Self::Sync(Arc::new(move |args, ctx| f(args, ctx).into_tool_result()))
    }

    pub(crate) fn from_async<F, Fut, R>(f: F) -> Self
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        Self::Async(Arc::new(move |args, ctx| {
            let fut = f(args, ctx);
            Box::pin(async move { fut.await.into_tool_result() })
        }))
    }
}
