//! Reading a tool function's signature: its parameters and what it returns.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{
    Attribute, FnArg, GenericArgument, Ident, Pat, PathArguments, ReturnType, Signature, Type,
};

/// One parameter the model fills in.
pub(crate) struct Param {
    pub(crate) name: Ident,
    pub(crate) ty: Type,
    pub(crate) docs: Vec<Attribute>,
}

/// A parameter as the function takes it: from the model, or the call's context.
pub(crate) enum Input {
    Model(Box<Param>),
    Context,
}

/// What the function returns, as the tool's output and error.
pub(crate) struct Returns {
    pub(crate) output: TokenStream,
    pub(crate) error: TokenStream,
    pub(crate) fallible: bool,
}

/// Reads the parameters, refusing what a tool cannot be made of.
pub(crate) fn inputs(sig: &Signature) -> syn::Result<Vec<Input>> {
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(&sig.generics, "a #[tool] function cannot be generic"));
    }
    sig.inputs.iter().map(input).collect()
}

fn input(arg: &FnArg) -> syn::Result<Input> {
    let FnArg::Typed(arg) = arg else {
        return Err(syn::Error::new_spanned(arg, "#[tool] goes on free functions, not methods"));
    };
    if is_context(&arg.ty) {
        return Ok(Input::Context);
    }
    let Pat::Ident(pat) = &*arg.pat else {
        return Err(syn::Error::new_spanned(
            &arg.pat,
            "a #[tool] parameter must be a plain name, like `city: String`",
        ));
    };
    let docs = arg.attrs.iter().filter(|a| a.path().is_ident("doc")).cloned().collect();
    Ok(Input::Model(Box::new(Param { name: pat.ident.clone(), ty: (*arg.ty).clone(), docs })))
}

/// Whether `ty` names `ToolContext`, by any path.
fn is_context(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.path.segments.last().is_some_and(|s| s.ident == "ToolContext"))
}

/// Reads the return type: `Result<T, E>`, or a plain `T`, or nothing.
pub(crate) fn returns(output: &ReturnType) -> syn::Result<Returns> {
    let infallible = quote!(::core::convert::Infallible);
    let ReturnType::Type(_, ty) = output else {
        return Ok(Returns { output: quote!(()), error: infallible, fallible: false });
    };
    let Type::Path(path) = &**ty else {
        return Ok(Returns { output: quote!(#ty), error: infallible, fallible: false });
    };
    let Some(last) = path.path.segments.last().filter(|s| s.ident == "Result") else {
        return Ok(Returns { output: quote!(#ty), error: infallible, fallible: false });
    };
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return Err(syn::Error::new_spanned(ty, "write the result as `Result<T, E>`"));
    };
    let types: Vec<&Type> = args
        .args
        .iter()
        .filter_map(|arg| if let GenericArgument::Type(ty) = arg { Some(ty) } else { None })
        .collect();
    match types.as_slice() {
        [output, error] => {
            Ok(Returns { output: quote!(#output), error: quote!(#error), fallible: true })
        }
        _ => Err(syn::Error::new_spanned(
            ty,
            "write the result as `Result<T, E>`, with its error type",
        )),
    }
}

/// The text of the doc comments in `attrs`, lines joined, trimmed.
pub(crate) fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => {
                    Some(s.value().trim().to_owned())
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}
