//! What a policy is checked and evaluated against, made from a registry's tools: the Cedar
//! schema (one action per tool, its arguments typed as `context.input`), the tool entities
//! with their server and hints, and each tool's argument shape.

use std::collections::{HashMap, HashSet};
use std::str::FromStr;

use cedar_policy::{
    Entities, Entity, EntityId, EntityTypeName, EntityUid, RestrictedExpression, Schema,
};
use serde_json::{Map, Value, json};
use toolwire::{Principal, PrincipalKind, Tool};

use crate::error::{CedarError, CedarErrorKind};
use crate::shape::{Field, input_fields, record_type};

/// The entity type of a principal of each kind, and of a call with none.
pub(crate) const PRINCIPAL_TYPES: [&str; 4] = ["User", "Client", "Agent", "Anonymous"];
/// The entity type of a tool.
pub(crate) const TOOL_TYPE: &str = "Tool";

/// The compiled tools.
#[derive(Debug)]
pub(crate) struct World {
    pub(crate) schema: Schema,
    pub(crate) entities: Entities,
    pub(crate) tools: HashMap<String, ToolEntry>,
    principal_types: Vec<EntityTypeName>,
    /// The Cedar schema as JSON, for those who want to read it.
    pub(crate) schema_json: Value,
}

/// One tool: its action, its entity, and the shape of its arguments.
#[derive(Debug)]
pub(crate) struct ToolEntry {
    pub(crate) action: EntityUid,
    pub(crate) resource: EntityUid,
    pub(crate) fields: Vec<Field>,
    /// Top-level arguments the policy cannot see (no single Cedar type).
    pub(crate) hidden: Vec<String>,
}

impl World {
    /// Compiles `tools`.
    pub(crate) fn new(tools: &[Tool]) -> Result<Self, CedarError> {
        let schema_error = |e: &dyn std::fmt::Display| {
            CedarError::new(CedarErrorKind::Schema, format!("the Cedar schema of the tools: {e}"))
        };
        let mut actions = Map::new();
        let mut entries = HashMap::new();
        for tool in tools {
            let parameters = tool.parameters();
            let fields = input_fields(parameters);
            let declared = parameters.get("properties").and_then(Value::as_object);
            let hidden = declared
                .map(|props| {
                    props
                        .keys()
                        .filter(|k| !fields.iter().any(|f| &f.name == *k))
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            let context = json!({"type": "Record", "attributes": {
                "input": record_type(&fields),
                "time": {"type": "Extension", "name": "datetime"},
            }});
            actions.insert(
                tool.name().to_owned(),
                json!({"appliesTo": {
                    "principalTypes": PRINCIPAL_TYPES,
                    "resourceTypes": [TOOL_TYPE],
                    "context": context,
                }}),
            );
            let action = uid("Action", tool.name()).map_err(|e| schema_error(&e))?;
            let resource = uid(TOOL_TYPE, tool.name()).map_err(|e| schema_error(&e))?;
            entries.insert(tool.name().to_owned(), ToolEntry { action, resource, fields, hidden });
        }
        let principals: Map<String, Value> =
            PRINCIPAL_TYPES.iter().map(|name| ((*name).to_owned(), json!({}))).collect();
        let mut entity_types = principals;
        entity_types.insert(
            TOOL_TYPE.to_owned(),
            json!({"shape": {"type": "Record", "attributes": {
                "name": {"type": "String"},
                "server": {"type": "String"},
                "read_only": {"type": "Boolean"},
                "destructive": {"type": "Boolean"},
                "idempotent": {"type": "Boolean"},
                "open_world": {"type": "Boolean"},
            }}}),
        );
        let schema_json = json!({"": {"entityTypes": entity_types, "actions": actions}});
        let schema = Schema::from_json_value(schema_json.clone()).map_err(|e| schema_error(&e))?;
        let tool_entities = tools.iter().map(tool_entity).collect::<Result<Vec<_>, _>>();
        let tool_entities = tool_entities.map_err(|e| schema_error(&e))?;
        let entities =
            Entities::from_entities(tool_entities, Some(&schema)).map_err(|e| schema_error(&e))?;
        let principal_types = PRINCIPAL_TYPES
            .iter()
            .map(|name| EntityTypeName::from_str(name).map_err(|e| schema_error(&e)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(World { schema, entities, tools: entries, principal_types, schema_json })
    }

    /// The entity of the call's principal: `User::"name"`, `Client::"name"`,
    /// `Agent::"name"`, or `Anonymous::""` for a call with none.
    pub(crate) fn principal(&self, principal: Option<&Principal>) -> EntityUid {
        let (index, name) = match principal {
            Some(p) => match p.kind() {
                PrincipalKind::User => (0, p.name()),
                PrincipalKind::Client => (1, p.name()),
                PrincipalKind::Agent => (2, p.name()),
                // A kind this crate does not know yet is treated as no principal.
                _ => (3, ""),
            },
            None => (3, ""),
        };
        let ty = self.principal_types[index].clone();
        EntityUid::from_type_name_and_id(ty, EntityId::new(name))
    }
}

/// `Type::"id"`.
fn uid(ty: &str, id: &str) -> Result<EntityUid, String> {
    let ty = EntityTypeName::from_str(ty).map_err(|e| e.to_string())?;
    Ok(EntityUid::from_type_name_and_id(ty, EntityId::new(id)))
}

/// A tool's entity: its name, its server (empty for none) and its hints, each unset hint at
/// MCP's cautious default (not read-only, destructive, not idempotent, open world).
fn tool_entity(tool: &Tool) -> Result<Entity, String> {
    let hints = tool.annotations();
    let flag =
        |hint: Option<bool>, default: bool| RestrictedExpression::new_bool(hint.unwrap_or(default));
    let attrs = HashMap::from([
        ("name".to_owned(), RestrictedExpression::new_string(tool.name().to_owned())),
        (
            "server".to_owned(),
            RestrictedExpression::new_string(tool.server().unwrap_or("").to_owned()),
        ),
        ("read_only".to_owned(), flag(hints.read_only_hint, false)),
        ("destructive".to_owned(), flag(hints.destructive_hint, true)),
        ("idempotent".to_owned(), flag(hints.idempotent_hint, false)),
        ("open_world".to_owned(), flag(hints.open_world_hint, true)),
    ]);
    let uid = uid(TOOL_TYPE, tool.name())?;
    Entity::new(uid, attrs, HashSet::new()).map_err(|e| e.to_string())
}
