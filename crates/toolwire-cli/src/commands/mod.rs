//! One module per subcommand, or per group of them.

pub(crate) mod call;
pub(crate) mod check;
pub(crate) mod journaled;
pub(crate) mod resolve;
pub(crate) mod schema;
pub(crate) mod serve;
