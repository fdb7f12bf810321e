//! [`CedarPolicy`]: a set of Cedar policies as a toolwire [`Policy`].

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::SystemTime;

use cedar_policy::{
    AuthorizationError, Authorizer, Context, Decision as CedarDecision, Effect, PolicyId,
    PolicySet, Request as CedarRequest, RestrictedExpression, ValidationMode, Validator,
};
use serde_json::{Map, Value, json};
use toolwire::policy::{Decision, Policy, Ruling};
use toolwire::{Request, Tool, ToolContext};

use crate::error::{CedarError, CedarErrorKind};
use crate::report::{Report, fits_action, fits_resource};
use crate::source::{self, Origin, Policies};
use crate::value;
use crate::world::World;

/// A set of Cedar policies that decides each call through a registry: set it with
/// [`RegistryBuilder::policy`](toolwire::RegistryBuilder::policy).
///
/// Each call is a Cedar request:
/// - **principal:** who calls, from [`ToolContext::principal`]: `User::"name"` (the
///   command's local user), `Client::"name"` (a network client that proved its name),
///   `Agent::"run id"`, or `Anonymous::""` when the host said nothing;
/// - **action:** `Action::"<tool name>"`, one action per tool, so that each tool's arguments
///   are typed exactly;
/// - **resource:** `Tool::"<tool name>"`, with `name`, `server` (the MCP server it comes
///   from, or `""`) and the hints `read_only`, `destructive`, `idempotent` and `open_world`
///   (an unset hint is MCP's cautious default);
/// - **context:** `input`, the call's arguments as the model sent them (after JSON Schema
///   validation), typed by the tool's schema; and `time`, a `datetime`.
///
/// What the policies decide:
/// - a satisfied `forbid` denies; its `@reason("...")` annotation, or else its id, is what
///   the model reads;
/// - a satisfied `permit` allows, unless one of the satisfied permits is annotated `@ask`:
///   then a human approves first, through toolwire's single-use approvals; `@ask("...")`
///   gives the question's text;
/// - no satisfied `permit`: denied, saying that no policy permits the call.
///
/// A policy's id is its `@id("...")` annotation, or its file and line (`policy.cedar:12`);
/// the receipt, the span and `toolwire log` name the policies that decided.
///
/// The registry's seal checks the policies against its tools ([`Policy::check`]): a
/// misspelt argument, an argument compared with a value of the wrong type, or a tool that
/// does not exist fails the seal, with the policy's line shown. A policy that cannot be
/// evaluated for a call fails closed when it is a `forbid`: the call is denied.
///
/// A clone shares the policies; [`reload`](Self::reload) replaces them for every clone, at
/// once, and only when the new text is valid.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use serde_json::json;
/// use toolwire::{Registry, Tool, ToolResult};
/// use toolwire_cedar::CedarPolicy;
///
/// let deploy = Tool::define("deploy")
///     .parameters(json!({"type": "object", "properties": {"env": {"type": "string"}}, "required": ["env"]}))
///     .execute_sync(|_, _| ToolResult::ok(json!({}), "deployed"))
///     .build()?;
/// let policy = CedarPolicy::from_text(r#"
///     @id("staging") permit(principal, action == Action::"deploy", resource)
///     when { context.input.env == "staging" };
///     @id("prod") @ask("deploy to production?")
///     permit(principal, action == Action::"deploy", resource)
///     when { context.input.env == "prod" };
/// "#)?;
/// let registry = Registry::builder().register(deploy).policy(policy).seal()?;
/// # let _ = registry; Ok(()) }
/// ```
#[derive(Clone)]
pub struct CedarPolicy {
    shared: Arc<Shared>,
}

struct Shared {
    origin: Origin,
    state: RwLock<Arc<State>>,
}

/// The policies in force, the tools they were checked against, and each tool's slice.
struct State {
    policies: Arc<Policies>,
    world: Option<Arc<World>>,
    /// Per tool, the policies whose scope can apply to it: Cedar builds and evaluates each
    /// policy of a set for every request, and a policy scoped to another action or tool is
    /// false for this one, so leaving it out changes no decision. Tools with the same slice
    /// share one set.
    slices: HashMap<String, Arc<Slice>>,
}

/// The policies that can apply to a tool.
struct Slice {
    set: PolicySet,
    /// Whether one of them may read `context.time`: making the time costs Cedar a parse of
    /// the text form of a `datetime`, a quarter of a decision, so it is left out when no
    /// policy could read it (judged on the text: any policy that mentions `time`).
    reads_time: bool,
}

impl State {
    fn new(policies: Arc<Policies>, world: Option<Arc<World>>) -> Self {
        let slices = world.as_deref().map(|w| slices(&policies, w)).unwrap_or_default();
        Self { policies, world, slices }
    }
}

/// Each tool's slice of `policies`.
fn slices(policies: &Policies, world: &World) -> HashMap<String, Arc<Slice>> {
    let all: Vec<&cedar_policy::Policy> = policies.set.policies().collect();
    let mut shared: HashMap<Vec<usize>, Arc<Slice>> = HashMap::new();
    let mut slices = HashMap::with_capacity(world.tools.len());
    for (name, entry) in &world.tools {
        let members: Vec<usize> = (0..all.len())
            .filter(|&i| {
                fits_action(&all[i].action_constraint(), &entry.action)
                    && fits_resource(&all[i].resource_constraint(), &entry.resource)
            })
            .collect();
        let set = shared.entry(members).or_insert_with_key(|members| {
            let mut set = PolicySet::new();
            let mut reads_time = false;
            for &i in members {
                // The ids are unique in the whole set, so in any part of it.
                let _ = set.add(all[i].clone());
                reads_time |= all[i].to_cedar().is_none_or(|text| text.contains("time"));
            }
            Arc::new(Slice { set, reads_time })
        });
        slices.insert(name.clone(), Arc::clone(set));
    }
    slices
}

impl CedarPolicy {
    /// The policies of a `.cedar` file, or of every `.cedar` file in a folder (in name order).
    pub fn from_file(path: impl Into<PathBuf>) -> Result<Self, CedarError> {
        Self::load(Origin::Path(path.into()))
    }

    /// The policies of `text`, named `policy.cedar` in messages.
    pub fn from_text(text: impl Into<String>) -> Result<Self, CedarError> {
        Self::load(Origin::Text { name: "policy.cedar".into(), text: text.into() })
    }

    fn load(origin: Origin) -> Result<Self, CedarError> {
        let policies = Arc::new(source::parse(source::read(&origin)?)?);
        let state = RwLock::new(Arc::new(State::new(policies, None)));
        Ok(Self { shared: Arc::new(Shared { origin, state }) })
    }

    fn state(&self) -> Arc<State> {
        Arc::clone(&self.shared.state.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn set_state(&self, state: State) {
        *self.shared.state.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(state);
    }

    /// Checks the policies against `tools` and keeps them for the calls to come: the same
    /// check a registry's seal runs. Returns what `toolwire check` prints: the tools no
    /// policy permits, and the arguments no policy can see.
    pub fn check_tools(&self, tools: &[Tool]) -> Result<Report, CedarError> {
        let world = Arc::new(World::new(tools)?);
        let policies = self.state().policies.clone();
        validate(&policies, &world)?;
        let report = Report::new(&policies, &world);
        self.set_state(State::new(policies, Some(world)));
        Ok(report)
    }

    /// Reads the policies again from their file or folder and, if they parse and fit the
    /// tools they were checked against, puts them in force for every clone at once; else
    /// keeps the ones in force and says why. Returns how many policies are in force.
    pub fn reload(&self) -> Result<usize, CedarError> {
        let policies = Arc::new(source::parse(source::read(&self.shared.origin)?)?);
        let world = self.state().world.clone();
        if let Some(world) = &world {
            validate(&policies, world)?;
        }
        let count = policies.order.len();
        self.set_state(State::new(policies, world));
        Ok(count)
    }

    pub(crate) fn origin(&self) -> &Origin {
        &self.shared.origin
    }

    /// The file or folder the policies come from, if they come from one.
    pub fn path(&self) -> Option<&std::path::Path> {
        match &self.shared.origin {
            Origin::Path(path) => Some(path),
            Origin::Text { .. } => None,
        }
    }

    /// The ids of the policies in force, in the order their files list them.
    pub fn ids(&self) -> Vec<String> {
        self.state().policies.order.iter().map(ToString::to_string).collect()
    }

    /// The Cedar schema made from the tools of the last check, in Cedar's JSON schema
    /// format, if the policies were checked.
    pub fn schema(&self) -> Option<Value> {
        self.state().world.as_ref().map(|world| world.schema_json.clone())
    }

    /// Decides one call.
    fn judge(&self, tool: &Tool, args: &Value, ctx: &ToolContext) -> Ruling {
        let state = self.state();
        let Some(world) = &state.world else {
            return deny(
                "the Cedar policy was never checked against its tools (seal a registry with it)",
            );
        };
        let (Some(entry), Some(slice)) =
            (world.tools.get(tool.name()), state.slices.get(tool.name()))
        else {
            return deny(&format!(
                "the Cedar policy was not checked with the tool {:?}",
                tool.name()
            ));
        };
        let empty = Map::new();
        let input = match value::record(&entry.fields, args.as_object().unwrap_or(&empty)) {
            Ok(input) => input,
            Err(why) => return deny(&format!("the Cedar policy cannot read the call: {why}")),
        };
        let mut pairs = vec![("input".to_owned(), input)];
        if slice.reads_time {
            let now = humantime::format_rfc3339_millis(SystemTime::now()).to_string();
            pairs.push(("time".to_owned(), RestrictedExpression::new_datetime(now)));
        }
        let principal = world.principal(ctx.principal());
        // The request is not checked against the schema again: the context is made from the
        // same shapes the schema was, and the policies were checked against it at seal. A
        // mistake here would make a policy fail to evaluate, which grants nothing and, for a
        // forbid, denies (below).
        let request = Context::from_pairs(pairs).map_err(|e| e.to_string()).and_then(|context| {
            let (action, resource) = (entry.action.clone(), entry.resource.clone());
            CedarRequest::new(principal, action, resource, context, None).map_err(|e| e.to_string())
        });
        let request = match request {
            Ok(request) => request,
            Err(why) => return deny(&format!("the Cedar request for this call is invalid: {why}")),
        };
        let response = Authorizer::new().is_authorized(&request, &slice.set, &world.entities);
        let policies = &state.policies;
        // A forbid that could not be evaluated might have denied: fail closed.
        for error in response.diagnostics().errors() {
            let AuthorizationError::PolicyEvaluationError(failed) = error;
            let id = failed.policy_id();
            if policies.set.policy(id).is_some_and(|p| p.effect() == Effect::Forbid) {
                let why = format!("policy `{id}` could not be evaluated: {}", failed.inner());
                return Ruling::from(Decision::Deny(why)).by([id.to_string()]);
            }
        }
        let mut reasons: Vec<&PolicyId> = response.diagnostics().reason().collect();
        reasons.sort_by_key(|id| policies.order.iter().position(|o| o == *id));
        let ids: Vec<String> = reasons.iter().map(ToString::to_string).collect();
        match response.decision() {
            CedarDecision::Deny if reasons.is_empty() => {
                let who = ctx
                    .principal()
                    .map_or_else(|| "an anonymous caller".to_owned(), ToString::to_string);
                deny(&format!("no policy permits {who} to call {:?}", tool.name()))
            }
            CedarDecision::Deny => {
                let first = reasons[0];
                let why = policies
                    .reason(first)
                    .map_or_else(|| format!("denied by policy `{first}`"), str::to_owned);
                Ruling::from(Decision::Deny(why)).by(ids)
            }
            CedarDecision::Allow => {
                let asks: Vec<&PolicyId> =
                    reasons.iter().copied().filter(|id| policies.ask(id).is_some()).collect();
                let Some(first) = asks.first() else {
                    return Ruling::from(Decision::Allow).by(ids);
                };
                let prompt = match policies.ask(first) {
                    Some(text) if !text.is_empty() => text.to_owned(),
                    _ => format!("allow a call of {:?}?", tool.name()),
                };
                let asked: Vec<String> = asks.iter().map(ToString::to_string).collect();
                let data = json!({"tool": tool.name(), "arguments": args, "policies": asked});
                Ruling::from(Decision::Ask(Request::new("approval", prompt).data(data))).by(asked)
            }
        }
    }
}

/// A denial decided by no policy.
fn deny(why: &str) -> Ruling {
    Ruling::from(Decision::Deny(why.to_owned()))
}

/// Validates `policies` against the tools' schema, strictly: every problem, each located.
fn validate(policies: &Policies, world: &World) -> Result<(), CedarError> {
    let validator = Validator::new(world.schema.clone());
    let result = validator.validate(&policies.set, ValidationMode::Strict);
    let errors: Vec<CedarError> = result
        .validation_errors()
        .map(|error| {
            let span = source::first_span(error);
            let mut message = error.to_string();
            if let Some(help) = miette::Diagnostic::help(error) {
                message = format!("{message} ({help})");
            }
            CedarError::new(CedarErrorKind::Validate, message)
                .at(policies.place(error.policy_id(), Some(span)))
        })
        .collect();
    match CedarError::all(errors) {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

impl Policy for CedarPolicy {
    fn decide(&self, tool: &Tool, args: &Value, ctx: &ToolContext) -> Ruling {
        self.judge(tool, args, ctx)
    }

    fn check(&self, tools: &[Tool]) -> Result<(), String> {
        self.check_tools(tools).map(drop).map_err(|e| e.to_string())
    }
}

impl std::fmt::Debug for CedarPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.state();
        f.debug_struct("CedarPolicy")
            .field("origin", &self.shared.origin)
            .field("policies", &state.policies.order.len())
            .field("checked", &state.world.is_some())
            .finish()
    }
}
