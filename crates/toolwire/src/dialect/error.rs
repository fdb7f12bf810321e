//! [`CompileError`]: what a dialect cannot express, and where.

use std::fmt;

use super::Dialect;

/// What kind of problem a [`CompileError`] reports. New kinds may be added.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompileErrorKind {
    /// The root is not an object schema (or, for OpenAI strict mode, is an `anyOf`).
    NotObjectRoot,
    /// A keyword or construct the dialect cannot express, such as a node without a type.
    Unsupported,
    /// One of the provider's documented limits is passed, such as its nesting or enum limits.
    LimitExceeded,
    /// A reference is recursive, which the dialect cannot express.
    Recursive,
    /// A reference does not point at a part of the schema.
    BadReference,
    /// Compiling would make a schema too large or too deep to send, for example by inlining.
    TooLarge,
}

/// A schema the dialect cannot express.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    dialect: Dialect,
    kind: CompileErrorKind,
    path: String,
    problem: String,
}

impl CompileError {
    pub(crate) fn new(
        dialect: Dialect,
        kind: CompileErrorKind,
        path: &str,
        problem: impl Into<String>,
    ) -> Self {
        Self { dialect, kind, path: path.to_owned(), problem: problem.into() }
    }

    /// The same error, reported at `path`.
    pub(super) fn at(self, path: String) -> Self {
        Self { path, ..self }
    }

    /// What kind of problem this is.
    pub fn kind(&self) -> CompileErrorKind {
        self.kind
    }

    /// The dialect that cannot express the schema.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Where the problem is, as a JSON pointer.
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.path.is_empty() { "(root)" } else { &self.path };
        write!(f, "cannot express the schema for {:?}: {at}: {}", self.dialect, self.problem)
    }
}

impl std::error::Error for CompileError {}
