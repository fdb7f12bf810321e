//! Typed tools: a tool written as a Rust function over Rust types, its parameter schema
//! derived from the argument type with [`schemars`].
//!
//! [`TypedTool`] is the one trait to implement; [`Tool::from_typed`] turns any implementor
//! into a [`Tool`] that runs through the same pipeline as every other. The arguments are
//! validated against the derived schema, then decoded; a decoding error names the field's
//! path.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), toolwire::DefineError> {
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//! use serde_json::json;
//! use toolwire::{Tool, ToolContext, TypedTool};
//!
//! /// Arguments of `get_weather`.
//! #[derive(Deserialize, JsonSchema)]
//! struct WeatherArgs {
//!     /// The city, for example "Paris".
//!     city: String,
//!     /// How many days ahead, 1 to 7.
//!     days: Option<u8>,
//! }
//!
//! #[derive(Serialize)]
//! struct Forecast {
//!     city: String,
//!     temps: Vec<i32>,
//! }
//!
//! struct Weather;
//!
//! impl TypedTool for Weather {
//!     type Args = WeatherArgs;
//!     type Output = Forecast;
//!     type Error = std::convert::Infallible;
//!
//!     fn name(&self) -> &str {
//!         "get_weather"
//!     }
//!
//!     fn description(&self) -> Option<&str> {
//!         Some("The forecast for a city")
//!     }
//!
//!     async fn call(&self, args: WeatherArgs, _ctx: ToolContext) -> Result<Forecast, Self::Error> {
//!         let days = args.days.unwrap_or(1);
//!         Ok(Forecast { city: args.city, temps: vec![21; usize::from(days)] })
//!     }
//! }
//!
//! let tool = Tool::from_typed(Weather)?;
//! let city = &tool.parameters()["properties"]["city"];
//! assert_eq!(city["description"], "The city, for example \"Paris\".");
//! let result = tool.execute(json!({"city": "Oslo", "days": 2})).await;
//! assert_eq!(result.json(), &json!({"city": "Oslo", "temps": [21, 21]}));
//! # Ok(()) }
//! ```

use std::fmt::Display;
use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::ToolContext;
use crate::error::DefineError;
use crate::media::Part;
use crate::record::{FailureKind, ToolResult};
use crate::tool::Tool;

/// A tool over Rust types: decoded arguments in, a serializable output or an error out.
///
/// Implement it, then call [`Tool::from_typed`]. The handler's context is passed through,
/// so a typed tool can read its signal, deadline, answer and state like any other.
pub trait TypedTool: Send + Sync + 'static {
    /// The arguments; their JSON Schema is derived and published as the tool's parameters.
    type Args: DeserializeOwned + JsonSchema + Send + 'static;
    /// The output, serialized into the result's `json`; except three types, which are taken
    /// as they are: a [`ToolResult`], a [`Part`] (a result of that one
    /// part, such as an image) and a `Vec<Part>`.
    type Output: Serialize + Send + 'static;
    /// The error, whose message becomes the failed result's text.
    type Error: Display + Send + 'static;

    /// The name the model calls the tool by.
    fn name(&self) -> &str;

    /// What the tool does, in words the model reads.
    fn description(&self) -> Option<&str> {
        None
    }

    /// A JSON Schema of the output, published as MCP's `outputSchema` and checked against
    /// every successful result; for example `Some(schemars::schema_for!(Output).into())`.
    fn output_schema(&self) -> Option<Value> {
        None
    }

    /// Runs the tool.
    fn call(
        &self,
        args: Self::Args,
        ctx: ToolContext,
    ) -> impl Future<Output = Result<Self::Output, Self::Error>> + Send;
}

impl Tool {
    /// Builds a [`Tool`] from a [`TypedTool`], its parameters derived from `T::Args`.
    ///
    /// # Errors
    ///
    /// A [`DefineError`] when the name is invalid, or when `T::Args` is not a struct (its
    /// schema's root must be an object).
    pub fn from_typed<T: TypedTool>(tool: T) -> Result<Tool, DefineError> {
        crate::ToolBuilder::from(tool).build()
    }
}

impl<T: TypedTool> From<T> for crate::ToolBuilder {
    /// A builder holding the typed tool's definition and handler, for adding hooks before
    /// [`build`](crate::ToolBuilder::build).
    fn from(tool: T) -> Self {
        let tool = Arc::new(tool);
        let mut builder = Tool::define(tool.name()).parameters(parameters_of::<T::Args>());
        if let Some(description) = tool.description() {
            builder = builder.description(description);
        }
        if let Some(schema) = tool.output_schema() {
            builder = builder.output_schema(schema);
        }
        builder.execute(move |args, ctx| {
            let tool = Arc::clone(&tool);
            async move { run(&*tool, args, ctx).await }
        })
    }
}

/// The JSON Schema of `A`, as tool parameters: without the `$schema` keyword, which no
/// provider wants.
pub fn parameters_of<A: JsonSchema>() -> Value {
    let mut schema: Value = schemars::schema_for!(A).into();
    if let Some(map) = schema.as_object_mut() {
        map.remove("$schema");
    }
    schema
}

/// Decodes `args` into `A`; an error names the path of the field that failed, as
/// `/path/to/field: message`.
///
/// # Errors
///
/// The message, when `args` does not decode into `A`.
pub fn decode<A: DeserializeOwned>(args: Value) -> Result<A, String> {
    serde_path_to_error::deserialize(args).map_err(|error| {
        let at = pointer(error.path());
        format!("{at}: {}", error.into_inner())
    })
}

/// `path` as a JSON pointer, or `(root)`.
fn pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        out.push('/');
        match segment {
            Segment::Seq { index } => out.push_str(&index.to_string()),
            Segment::Map { key } => out.push_str(&crate::pointer::escape(key)),
            Segment::Enum { variant } => out.push_str(variant),
            Segment::Unknown => out.push('?'),
        }
    }
    if out.is_empty() { "(root)".to_owned() } else { out }
}

/// Decodes, calls and encodes.
async fn run<T: TypedTool>(tool: &T, args: Value, ctx: ToolContext) -> ToolResult {
    let args = match decode::<T::Args>(args) {
        Ok(args) => args,
        Err(why) => {
            let text = format!("invalid arguments for {:?}: {why}", tool.name());
            return ToolResult::failed(FailureKind::InvalidInput, text);
        }
    };
    match tool.call(args, ctx).await {
        Ok(output) => match taken_as_is(output) {
            Ok(result) => result,
            Err(output) => encode(tool, *output),
        },
        Err(error) => ToolResult::failure(error.to_string()),
    }
}

/// The result an output of one of the types taken as they are makes, or the output back.
fn taken_as_is<O: Send + 'static>(output: O) -> Result<ToolResult, Box<O>> {
    use std::any::Any;
    let output: Box<dyn Any + Send> = Box::new(output);
    let output = match output.downcast::<ToolResult>() {
        Ok(result) => return Ok(*result),
        Err(output) => output,
    };
    let output = match output.downcast::<Part>() {
        Ok(part) => return Ok(ToolResult::from_parts(vec![*part])),
        Err(output) => output,
    };
    match output.downcast::<Vec<Part>>() {
        Ok(parts) => Ok(ToolResult::from_parts(*parts)),
        // It was an `O` when it went in, so it is one now.
        Err(output) => output.downcast::<O>().map_or_else(|_| unreachable_output(), Err),
    }
}

/// What [`taken_as_is`] cannot reach: a box that held an `O` holds one.
#[cold]
fn unreachable_output<O>() -> Result<ToolResult, Box<O>> {
    Ok(ToolResult::failed(FailureKind::InvalidOutput, "the tool's output changed type"))
}

/// The output serialized into a result's JSON.
fn encode<T: TypedTool>(tool: &T, output: T::Output) -> ToolResult {
    match serde_json::to_value(output) {
        Ok(json) => ToolResult::ok_json(json),
        Err(error) => {
            let text = format!("the output of {:?} cannot be encoded: {error}", tool.name());
            ToolResult::failed(FailureKind::InvalidOutput, text)
        }
    }
}
