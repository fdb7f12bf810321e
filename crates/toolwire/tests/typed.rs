//! Typed tools: schemas derived from Rust types, decoding with paths, outputs encoded.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolwire::typed::{decode, parameters_of};
use toolwire::{DefineErrorKind, FailureKind, Tool, ToolBuilder, ToolContext, TypedTool};

/// How hot.
#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// Where to look.
#[derive(Debug, Deserialize, JsonSchema)]
struct Place {
    /// The city, for example "Paris".
    city: String,
    /// An ISO country code.
    country: Option<String>,
}

/// The arguments of `forecast`.
#[derive(Debug, Deserialize, JsonSchema)]
struct ForecastArgs {
    place: Place,
    /// Days ahead, one per entry; `null` means "skip that day".
    days: Vec<Option<u8>>,
    unit: Option<Unit>,
}

#[derive(Serialize, JsonSchema)]
struct Forecast {
    city: String,
    temps: Vec<i32>,
}

struct ForecastTool;

impl TypedTool for ForecastTool {
    type Args = ForecastArgs;
    type Output = Forecast;
    type Error = String;

    fn name(&self) -> &str {
        "forecast"
    }

    fn description(&self) -> Option<&str> {
        Some("Forecast temperatures for a place")
    }

    fn output_schema(&self) -> Option<Value> {
        Some(parameters_of::<Forecast>())
    }

    async fn call(&self, args: ForecastArgs, ctx: ToolContext) -> Result<Forecast, String> {
        if args.place.city == "Atlantis" {
            return Err(format!("no forecast for {}", args.place.city));
        }
        let offset = ctx.state::<i32>().copied().unwrap_or(0);
        let city = match args.place.country {
            Some(country) => format!("{}, {country}", args.place.city),
            None => args.place.city,
        };
        let base = if args.unit == Some(Unit::Fahrenheit) { 70 } else { 21 };
        let temps = args.days.iter().flatten().map(|d| base + offset + i32::from(*d)).collect();
        Ok(Forecast { city, temps })
    }
}

#[test]
fn the_schema_comes_from_the_types_with_their_doc_comments() {
    let tool = Tool::from_typed(ForecastTool).unwrap();
    let params = tool.parameters();
    assert_eq!(params["type"], "object");
    assert!(params.get("$schema").is_none(), "providers do not want $schema");
    let required: Vec<&str> =
        params["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(
        required.contains(&"place") && required.contains(&"days") && !required.contains(&"unit")
    );
    let text = params.to_string();
    assert!(text.contains("The city, for example \\\"Paris\\\"."), "{text}");
    assert!(text.contains("Degrees Fahrenheit."), "{text}");
    assert_eq!(tool.description(), Some("Forecast temperatures for a place"));
    assert_eq!(tool.to_mcp()["outputSchema"]["properties"]["temps"]["type"], "array");
}

#[tokio::test]
async fn calls_decode_run_and_encode() {
    let tool = Tool::from_typed(ForecastTool).unwrap();
    let result = tool
        .execute(json!({"place": {"city": "Oslo", "country": "NO"}, "days": [1, null, 3], "unit": "fahrenheit"}))
        .state(Arc::new(2_i32))
        .await;
    assert_eq!(result.json(), &json!({"city": "Oslo, NO", "temps": [73, 75]}));

    let failed = tool.execute(json!({"place": {"city": "Atlantis"}, "days": []})).await;
    assert_eq!(failed.failure_kind(), Some(FailureKind::Handler));
    assert_eq!(failed.text(), Some("no forecast for Atlantis"));

    let invalid = tool.execute(json!({"place": {"city": 7}, "days": [300]})).await;
    assert_eq!(invalid.failure_kind(), Some(FailureKind::InvalidInput));
    let text = invalid.text().unwrap();
    assert!(text.contains("/place/city: 7 is not of type \"string\""), "{text}");
    assert!(text.contains("/days/0: 300 is greater than the maximum of 255"), "{text}");
}

#[test]
fn decoding_errors_name_the_path_of_the_field() {
    let error =
        decode::<ForecastArgs>(json!({"place": {"city": "x"}, "days": [1, "two"]})).unwrap_err();
    assert_eq!(error, "/days/1: invalid type: string \"two\", expected u8");
    let error = decode::<ForecastArgs>(json!({"days": []})).unwrap_err();
    assert_eq!(error, "(root): missing field `place`");
    let error =
        decode::<ForecastArgs>(json!({"place": {"city": "x"}, "days": [], "unit": "kelvin"}))
            .unwrap_err();
    assert!(error.starts_with("/unit: unknown variant `kelvin`"), "{error}");
}

#[tokio::test]
async fn a_result_that_breaks_the_output_schema_is_invalid_output() {
    struct Liar;
    impl TypedTool for Liar {
        type Args = Place;
        type Output = Value;
        type Error = String;
        fn name(&self) -> &str {
            "liar"
        }
        fn output_schema(&self) -> Option<Value> {
            Some(
                json!({"type": "object", "properties": {"temp": {"type": "number"}}, "required": ["temp"]}),
            )
        }
        async fn call(&self, _: Place, _: ToolContext) -> Result<Value, String> {
            Ok(json!({"temp": "warm"}))
        }
    }
    let result = Tool::from_typed(Liar).unwrap().execute(json!({"city": "x"})).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::InvalidOutput));
    assert!(result.text().unwrap().contains("/temp: \"warm\" is not of type \"number\""));
}

#[test]
fn arguments_that_are_not_an_object_are_a_setup_error() {
    struct Bare;
    impl TypedTool for Bare {
        type Args = String;
        type Output = ();
        type Error = String;
        fn name(&self) -> &str {
            "bare"
        }
        async fn call(&self, _: String, _: ToolContext) -> Result<(), String> {
            Ok(())
        }
    }
    let error = Tool::from_typed(Bare).unwrap_err();
    assert_eq!(error.kind(), DefineErrorKind::InvalidParameters);
    assert!(error.to_string().contains("/type: expected \"object\", got \"string\""), "{error}");
}

#[tokio::test]
async fn a_typed_tool_takes_hooks_through_its_builder() {
    let tool =
        ToolBuilder::from(ForecastTool)
            .authorize_sync(|args: &Value, _: &ToolContext| {
                if args["place"]["city"] == "Secret" { Err("classified") } else { Ok(()) }
            })
            .build()
            .unwrap();
    let denied = tool.execute(json!({"place": {"city": "Secret"}, "days": []})).await;
    assert_eq!(denied.failure_kind(), Some(FailureKind::Denied));
    assert!(tool.execute(json!({"place": {"city": "Rome"}, "days": [0]})).await.is_success());
}
