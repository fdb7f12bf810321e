//! The work every runtime is given: the tools, their schemas and the arguments a model sends.
//!
//! Arguments are JSON text, as a provider delivers them, so every runtime pays for parsing
//! them the way its own API asks for.

use serde_json::{Value, json};

/// The name of the trivial sync tool of workload (a).
pub const ADD: &str = "add";
/// The name of the 2 KB order tool of workload (b).
pub const ORDER: &str = "create_order";
/// The name of the tool that sleeps 10 ms, for workload (c).
pub const SLEEP: &str = "sleep";
/// The name of the tool that never finishes and ignores its signal, for workload (d).
pub const HANG: &str = "hang";

/// How long the tool of workload (c) sleeps.
pub const SLEEP_FOR: std::time::Duration = std::time::Duration::from_millis(10);
/// How many concurrent calls workload (c) makes.
pub const CONCURRENT_CALLS: usize = 10_000;
/// How many tools workload (e) registers.
pub const CATALOG_SIZE: usize = 1_000;

/// A small object schema: two required numbers.
pub fn add_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "a": {"type": "number", "description": "The first addend."},
            "b": {"type": "number", "description": "The second addend."}
        },
        "required": ["a", "b"],
        "additionalProperties": false
    })
}

/// The arguments of a call of [`ADD`].
pub fn add_args() -> String {
    r#"{"a": 2, "b": 40}"#.to_owned()
}

/// What every runtime's [`ADD`] handler does: the sum, as JSON.
pub fn add(args: &Value) -> Value {
    let a = args.get("a").and_then(Value::as_f64).unwrap_or(0.0);
    let b = args.get("b").and_then(Value::as_f64).unwrap_or(0.0);
    json!({ "sum": a + b })
}

/// The schema of an order: a customer with an address, line items, shipping and notes.
pub fn order_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "order_id": {"type": "string", "pattern": "^ORD-[0-9]{6}$"},
            "customer": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "minLength": 1, "maxLength": 200},
                    "email": {"type": "string", "maxLength": 320},
                    "phone": {"type": "string"},
                    "address": {
                        "type": "object",
                        "properties": {
                            "street": {"type": "string"},
                            "city": {"type": "string"},
                            "postcode": {"type": "string"},
                            "country": {"type": "string", "enum": ["GB", "FR", "DE", "US", "NL"]}
                        },
                        "required": ["street", "city", "postcode", "country"],
                        "additionalProperties": false
                    }
                },
                "required": ["name", "email", "address"],
                "additionalProperties": false
            },
            "items": {
                "type": "array",
                "minItems": 1,
                "maxItems": 100,
                "items": {
                    "type": "object",
                    "properties": {
                        "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
                        "title": {"type": "string"},
                        "quantity": {"type": "integer", "minimum": 1, "maximum": 1000},
                        "unit_price": {"type": "number", "minimum": 0},
                        "tags": {"type": "array", "items": {"type": "string"}}
                    },
                    "required": ["sku", "quantity", "unit_price"],
                    "additionalProperties": false
                }
            },
            "shipping": {
                "type": "object",
                "properties": {
                    "method": {"type": "string", "enum": ["standard", "express", "pickup"]},
                    "instructions": {"type": "string", "maxLength": 500}
                },
                "required": ["method"]
            },
            "gift": {"type": "boolean"},
            "notes": {"type": "string", "maxLength": 2000}
        },
        "required": ["order_id", "customer", "items", "shipping"],
        "additionalProperties": false
    })
}

/// The arguments of a call of [`ORDER`]: a valid order of about 2 KB.
pub fn order_args() -> String {
    let items: Vec<Value> = (0..14)
        .map(|i| {
            json!({
                "sku": format!("SKU-{:04}", 1000 + i),
                "title": format!("Stainless steel item number {i}"),
                "quantity": 1 + i,
                "unit_price": 4.99 + f64::from(i),
                "tags": ["kitchen", "steel"]
            })
        })
        .collect();
    json!({
        "order_id": "ORD-004217",
        "customer": {
            "name": "Ada Lovelace",
            "email": "ada@example.com",
            "phone": "+44 20 7946 0958",
            "address": {
                "street": "12 St James's Square",
                "city": "London",
                "postcode": "SW1Y 4JH",
                "country": "GB"
            }
        },
        "items": items,
        "shipping": {"method": "express", "instructions": "Leave with the concierge at the front desk."},
        "gift": false,
        "notes": "Please wrap the fragile items separately and include the invoice in the box."
    })
    .to_string()
}

/// What every runtime's [`ORDER`] handler does: the order's total.
pub fn order_total(args: &Value) -> Value {
    let total: f64 = args
        .get("items")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|item| {
                    let quantity = item.get("quantity").and_then(Value::as_f64).unwrap_or(0.0);
                    let price = item.get("unit_price").and_then(Value::as_f64).unwrap_or(0.0);
                    quantity * price
                })
                .sum()
        })
        .unwrap_or(0.0);
    json!({ "total": total })
}

/// One entry of the catalog of workload (e).
#[derive(Debug, Clone)]
pub struct CatalogEntry {
    /// The tool's name.
    pub name: String,
    /// The tool's description.
    pub description: String,
    /// The tool's parameters.
    pub schema: Value,
}

/// `n` distinct tools with small, realistic schemas.
pub fn catalog(n: usize) -> Vec<CatalogEntry> {
    (0..n)
        .map(|i| CatalogEntry {
            name: format!("tool_{i:04}"),
            description: format!("Looks up record {i} in the inventory and returns its fields."),
            schema: json!({
                "type": "object",
                "properties": {
                    "id": {"type": "string", "description": "The record's id."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                    "fields": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["id"]
            }),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_is_about_two_kilobytes() {
        let len = order_args().len();
        assert!((1800..=2400).contains(&len), "the order is {len} bytes");
    }

    #[test]
    fn handlers_compute_what_they_say() {
        let args: Value = serde_json::from_str(&add_args()).expect("json");
        assert_eq!(add(&args), json!({"sum": 42.0}));
        let order: Value = serde_json::from_str(&order_args()).expect("json");
        let total = order_total(&order)["total"].as_f64().expect("number");
        assert!(total > 0.0);
    }
}
