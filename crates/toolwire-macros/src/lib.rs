//! `#[tool]`: turns a function into a [`TypedTool`](https://docs.rs/toolwire) implementation.
//!
//! Use it through `toolwire::tool`; see that crate's docs. The macro generates the trait
//! implementation and nothing else: an arguments struct, a unit struct for the tool, and the
//! `TypedTool` impl that calls the function.

mod expand;
mod signature;

use proc_macro::TokenStream;

/// Makes a typed tool of a free `fn` or `async fn`.
///
/// The function's doc comment becomes the tool's description, and each parameter's doc
/// comment its schema description. A parameter of type `ToolContext` receives the call's
/// context and is not shown to the model. The function returns `Result<T, E>` (`E: Display`)
/// or a plain `T`; `T` must be serializable.
///
/// For `fn get_weather(..)`, the macro adds `GetWeatherTool` (the tool: pass it to
/// `Tool::from_typed`) and `GetWeatherArgs` (its arguments).
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(attr.into(), item.into()).unwrap_or_else(syn::Error::into_compile_error).into()
}
