//! The `#[tool]` attribute: a typed tool from a function.

use serde::Serialize;
use serde_json::json;
use toolwire::{FailureKind, Tool, ToolContext, TypedTool, tool};

/// Convert a temperature.
#[tool]
fn convert(
    /// Degrees Celsius.
    celsius: f64,
    /// Round to whole degrees.
    round: Option<bool>,
) -> f64 {
    let f = celsius * 9.0 / 5.0 + 32.0;
    if round == Some(true) { f.round() } else { f }
}

#[derive(Serialize)]
struct Stock {
    sku: String,
    count: u32,
}

/// Look an item up, reading the warehouse from the caller's state.
#[tool]
async fn stock(sku: String, ctx: ToolContext) -> Result<Stock, String> {
    tokio::task::yield_now().await;
    let warehouse = ctx.state::<&'static str>().copied().unwrap_or("main");
    if sku.is_empty() {
        return Err(format!("no sku given for warehouse {warehouse}"));
    }
    Ok(Stock { sku: format!("{warehouse}:{sku}"), count: 3 })
}

#[tool]
fn undocumented() {}

#[test]
fn the_function_doc_and_parameter_docs_become_the_schema() {
    let tool = Tool::from_typed(ConvertTool).unwrap();
    assert_eq!(ConvertTool.name(), "convert");
    assert_eq!(tool.description(), Some("Convert a temperature."));
    let params = tool.parameters();
    assert_eq!(params["properties"]["celsius"]["description"], "Degrees Celsius.");
    assert_eq!(params["required"], json!(["celsius"]));
    let stock = Tool::from_typed(StockTool).unwrap();
    assert!(
        stock.parameters()["properties"].get("ctx").is_none(),
        "the context is not shown to the model"
    );
    assert_eq!(Tool::from_typed(UndocumentedTool).unwrap().description(), None);
}

#[tokio::test]
async fn sync_and_async_tools_run_and_fail_as_results() {
    let convert = Tool::from_typed(ConvertTool).unwrap();
    assert_eq!(convert.execute(json!({"celsius": 21.5, "round": true})).await.json(), &json!(71.0));
    let stock = Tool::from_typed(StockTool).unwrap();
    let found = stock.execute(json!({"sku": "A1"})).state(std::sync::Arc::new("east")).await;
    assert_eq!(found.json(), &json!({"sku": "east:A1", "count": 3}));
    let missing = stock.execute(json!({"sku": ""})).await;
    assert_eq!(missing.failure_kind(), Some(FailureKind::Handler));
    assert_eq!(missing.text(), Some("no sku given for warehouse main"));
    let invalid = stock.execute(json!({"sku": 5})).await;
    assert_eq!(invalid.failure_kind(), Some(FailureKind::InvalidInput));
    assert_eq!(
        Tool::from_typed(UndocumentedTool).unwrap().execute(json!({})).await.json(),
        &json!(null)
    );
}
