//! Setup errors: what went wrong while defining a tool.
//!
//! Call-time problems are never errors: they are failed [`ToolResult`](crate::ToolResult)s.

use std::fmt;

/// The longest tool name a setup error repeats.
const MAX_NAME_SHOWN: usize = 128;
/// The longest detail a setup error carries.
const MAX_DETAIL: usize = 8 * 1024;

/// What kind of setup mistake a [`DefineError`] reports. New kinds may be added.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DefineErrorKind {
    /// The name is not 1 to 64 characters of `a-z`, `A-Z`, `0-9`, `_` or `-`.
    InvalidName,
    /// The parameters are not a valid JSON Schema whose root is an object schema.
    InvalidParameters,
    /// An input example is not an object, or does not match the parameters.
    InvalidExample,
    /// The output schema is not a valid JSON Schema whose root is an object schema.
    InvalidOutputSchema,
    /// Neither `execute` nor `execute_sync` was called before `build`.
    MissingHandler,
}

/// A tool definition that cannot be built; returned by
/// [`ToolBuilder::build`](crate::ToolBuilder::build).
///
/// The message names the tool and what is wrong:
///
/// ```
/// use toolwire::{DefineErrorKind, Tool, ToolResult};
///
/// let err = Tool::define("get weather")
///     .execute_sync(|_, _| ToolResult::failure("unused"))
///     .build()
///     .unwrap_err();
/// assert_eq!(err.kind(), DefineErrorKind::InvalidName);
/// assert!(err.to_string().starts_with(r#"invalid tool name "get weather""#));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct DefineError {
    inner: Box<Inner>,
}

#[derive(Clone, PartialEq, Eq)]
struct Inner {
    kind: DefineErrorKind,
    tool: String,
    detail: String,
}

impl DefineError {
    pub(crate) fn new(kind: DefineErrorKind, tool: &str, detail: impl Into<String>) -> Self {
        // A name or detail may come from an untrusted peer (an imported MCP tool): keep the
        // message small whatever they hold.
        let tool = crate::record::clip(tool, MAX_NAME_SHOWN).into_owned();
        let detail: String = detail.into();
        let detail = crate::record::clip(&detail, MAX_DETAIL).into_owned();
        let inner = Inner { kind, tool, detail };
        Self { inner: Box::new(inner) }
    }

    /// What kind of mistake this is.
    pub fn kind(&self) -> DefineErrorKind {
        self.inner.kind
    }

    /// The name of the tool being defined, as given (cut short past 128 bytes).
    pub fn tool(&self) -> &str {
        &self.inner.tool
    }

    /// Whether the tool's name is invalid.
    pub fn is_invalid_name(&self) -> bool {
        self.kind() == DefineErrorKind::InvalidName
    }

    /// Whether the tool's parameter schema is invalid.
    pub fn is_invalid_parameters(&self) -> bool {
        self.kind() == DefineErrorKind::InvalidParameters
    }
}

impl fmt::Display for DefineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Inner { kind, tool, detail } = &*self.inner;
        match kind {
            DefineErrorKind::InvalidName => write!(f, "invalid tool name {tool:?}: {detail}"),
            DefineErrorKind::InvalidParameters => {
                write!(f, "invalid parameters for tool {tool:?}: {detail}")
            }
            DefineErrorKind::InvalidExample => {
                write!(f, "invalid input example for tool {tool:?}: {detail}")
            }
            DefineErrorKind::InvalidOutputSchema => {
                write!(f, "invalid output schema for tool {tool:?}: {detail}")
            }
            DefineErrorKind::MissingHandler => write!(f, "tool {tool:?} has no handler: {detail}"),
        }
    }
}

impl fmt::Debug for DefineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DefineError")
            .field("kind", &self.inner.kind)
            .field("tool", &self.inner.tool)
            .field("detail", &self.inner.detail)
            .finish()
    }
}

impl std::error::Error for DefineError {}

/// What kind of mistake a [`SealError`] reports. New kinds may be added.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SealErrorKind {
    /// Two or more registered tools have the same name.
    DuplicateNames,
    /// A catalog setting ([`defer_loading`](crate::RegistryBuilder::defer_loading)) names a
    /// tool that is not registered.
    UnknownNames,
    /// The registry's [`Policy`](crate::policy::Policy) refused the tools it was sealed with
    /// (see [`Policy::check`](crate::policy::Policy::check)), such as a Cedar policy that
    /// names an argument no tool has.
    Policy,
}

/// A registry that cannot be sealed; returned by
/// [`RegistryBuilder::seal`](crate::RegistryBuilder::seal).
///
/// ```
/// use toolwire::{Registry, SealErrorKind, Tool, ToolResult};
///
/// let tool = || Tool::define("add").execute_sync(|_, _| ToolResult::failure("")).build().unwrap();
/// let err = Registry::builder().register(tool()).register(tool()).seal().unwrap_err();
/// assert_eq!(err.kind(), SealErrorKind::DuplicateNames);
/// assert_eq!(err.to_string(), r#"duplicate tool names: "add" (registered 2 times)"#);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct SealError {
    kind: SealErrorKind,
    /// Each duplicated name, with how many times it was registered; or each unknown name,
    /// with 0.
    duplicates: Vec<(String, usize)>,
    /// Why the policy refused the tools.
    policy: Option<String>,
}

impl SealError {
    pub(crate) fn policy(why: String) -> Self {
        Self { kind: SealErrorKind::Policy, duplicates: Vec::new(), policy: Some(why) }
    }

    pub(crate) fn duplicates(duplicates: Vec<(String, usize)>) -> Self {
        Self { kind: SealErrorKind::DuplicateNames, duplicates, policy: None }
    }

    pub(crate) fn unknown(names: Vec<String>) -> Self {
        let names = names.into_iter().map(|name| (name, 0)).collect();
        Self { kind: SealErrorKind::UnknownNames, duplicates: names, policy: None }
    }

    /// What kind of mistake this is.
    pub fn kind(&self) -> SealErrorKind {
        self.kind
    }

    /// The names registered more than once, in registration order; or, for
    /// [`UnknownNames`](SealErrorKind::UnknownNames), the names no tool has, in the order
    /// given.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.duplicates.iter().map(|(name, _)| name.as_str())
    }
}

impl fmt::Display for SealError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(why) = &self.policy {
            return write!(f, "the registry's policy does not fit its tools: {why}");
        }
        if self.kind == SealErrorKind::UnknownNames {
            f.write_str("defer_loading names tools that are not registered: ")?;
            for (i, (name, _)) in self.duplicates.iter().enumerate() {
                let separator = if i == 0 { "" } else { ", " };
                write!(f, "{separator}{name:?}")?;
            }
            return Ok(());
        }
        f.write_str("duplicate tool names: ")?;
        for (i, (name, count)) in self.duplicates.iter().enumerate() {
            let separator = if i == 0 { "" } else { ", " };
            write!(f, "{separator}{name:?} (registered {count} times)")?;
        }
        Ok(())
    }
}

impl fmt::Debug for SealError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SealError")
            .field("kind", &self.kind)
            .field("duplicates", &self.duplicates)
            .field("policy", &self.policy)
            .finish()
    }
}

impl std::error::Error for SealError {
    /// A duplicate name has no underlying cause.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        None
    }
}
