//! Elicitation: a server asking the user for input in the middle of a call.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value};

/// A server's request for input from the user (MCP `elicitation/create`, form mode).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub struct Elicitation {
    /// The server that asks.
    pub server: String,
    /// What the server asks for, in words for the user.
    pub message: String,
    /// The JSON Schema of the answer: an object of primitive properties, each possibly with a
    /// `default`.
    pub schema: Value,
}

/// The user's reply to an [`Elicitation`].
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitationReply {
    /// The user answered; the value must match the requested schema.
    Accept(Value),
    /// The user refused to answer.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

impl ElicitationReply {
    /// Accepts with the `default` of every property of `schema` that has one: what a user who
    /// changes nothing in a prefilled form sends.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwire_mcp::client::ElicitationReply;
    ///
    /// let schema = json!({"type": "object", "properties": {
    ///     "name": {"type": "string", "default": "John Doe"},
    ///     "age": {"type": "integer", "default": 30},
    ///     "email": {"type": "string"}
    /// }});
    /// assert_eq!(
    ///     ElicitationReply::accept_defaults(&schema),
    ///     ElicitationReply::Accept(json!({"name": "John Doe", "age": 30}))
    /// );
    /// ```
    pub fn accept_defaults(schema: &Value) -> Self {
        let mut content = Map::new();
        let properties = schema.get("properties").and_then(Value::as_object);
        for (name, property) in properties.into_iter().flatten() {
            if let Some(default) = property.get("default") {
                content.insert(name.clone(), default.clone());
            }
        }
        Self::Accept(Value::Object(content))
    }
}

/// The future an elicitation handler returns.
pub type ElicitationFuture = Pin<Box<dyn Future<Output = ElicitationReply> + Send>>;

/// Answers elicitations on behalf of the user; set with
/// [`ClientOptions::on_elicitation`](super::ClientOptions::on_elicitation).
#[derive(Clone)]
pub(crate) struct ElicitationHandler(Arc<dyn Fn(Elicitation) -> ElicitationFuture + Send + Sync>);

impl ElicitationHandler {
    pub(crate) fn new<F, Fut>(handler: F) -> Self
    where
        F: Fn(Elicitation) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitationReply> + Send + 'static,
    {
        Self(Arc::new(move |request| Box::pin(handler(request))))
    }

    pub(crate) fn call(&self, request: Elicitation) -> ElicitationFuture {
        (self.0)(request)
    }

    /// Asks the handler the form elicitation `message` with `schema` from `server`; its reply
    /// as MCP's `ElicitResult`.
    pub(crate) async fn answer(
        &self,
        server: &str,
        message: String,
        schema: &rmcp::model::ElicitationSchema,
    ) -> rmcp::model::ElicitResult {
        use rmcp::model::{ElicitResult, ElicitationAction};
        let schema = serde_json::to_value(schema).unwrap_or_default();
        let request = Elicitation { server: server.to_owned(), message, schema };
        match self.call(request).await {
            ElicitationReply::Accept(content) => {
                ElicitResult::new(ElicitationAction::Accept).with_content(content)
            }
            ElicitationReply::Decline => ElicitResult::new(ElicitationAction::Decline),
            ElicitationReply::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        }
    }
}

impl fmt::Debug for ElicitationHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ElicitationHandler")
    }
}
