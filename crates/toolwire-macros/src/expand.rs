//! Generating the arguments struct, the tool struct and the `TypedTool` impl.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Ident, ItemFn};

use crate::signature::{Input, doc_text, inputs, returns};

pub(crate) fn tool(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new_spanned(attr, "#[tool] takes no arguments"));
    }
    let function: ItemFn = syn::parse2(item)
        .map_err(|e| syn::Error::new(e.span(), "#[tool] goes on a function: `fn` or `async fn`"))?;
    let sig = &function.sig;
    let inputs = inputs(sig)?;
    let returns = returns(&sig.output)?;
    let name = &sig.ident;
    let vis = &function.vis;
    let camel = camel(&name.to_string());
    let tool = format_ident!("{camel}Tool", span = name.span());
    let args = format_ident!("{camel}Args", span = name.span());
    let tool_name = name.to_string();
    let description = match doc_text(&function.attrs) {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    };
    let fields = inputs.iter().filter_map(|input| match input {
        Input::Model(p) => {
            let (docs, name, ty) = (&p.docs, &p.name, &p.ty);
            Some(quote!(#(#docs)* pub #name: #ty))
        }
        Input::Context => None,
    });
    let names: Vec<&Ident> = inputs
        .iter()
        .filter_map(|i| if let Input::Model(p) = i { Some(&p.name) } else { None })
        .collect();
    let call_args = inputs.iter().map(|input| match input {
        Input::Model(p) => {
            let name = &p.name;
            quote!(#name)
        }
        Input::Context => quote!(ctx.clone()),
    });
    let call = if sig.asyncness.is_some() {
        quote!(#name(#(#call_args),*).await)
    } else {
        quote!(#name(#(#call_args),*))
    };
    let body = if returns.fallible { call } else { quote!(::core::result::Result::Ok(#call)) };
    let (output, error) = (&returns.output, &returns.error);
    let args_doc = format!("The arguments of the `{tool_name}` tool.");
    let tool_doc =
        format!("The `{tool_name}` tool, made by `#[tool]`: pass it to `Tool::from_typed`.");
    let function = without_param_docs(function.clone());
    Ok(quote! {
        #function

        #[doc = #args_doc]
        #[derive(::toolwire::__private::serde::Deserialize, ::toolwire::__private::schemars::JsonSchema)]
        #[serde(crate = "::toolwire::__private::serde")]
        #[schemars(crate = "::toolwire::__private::schemars")]
        #vis struct #args {
            #(#fields,)*
        }

        #[doc = #tool_doc]
        #[derive(Debug, Clone, Copy, Default)]
        #vis struct #tool;

        impl ::toolwire::TypedTool for #tool {
            type Args = #args;
            type Output = #output;
            type Error = #error;

            fn name(&self) -> &str {
                #tool_name
            }

            fn description(&self) -> ::core::option::Option<&str> {
                #description
            }

            async fn call(
                &self,
                args: #args,
                ctx: ::toolwire::ToolContext,
            ) -> ::core::result::Result<#output, #error> {
                let #args { #(#names),* } = args;
                let _ = &ctx;
                #body
            }
        }
    })
}

/// The function as written, minus the doc comments on its parameters: they went into the
/// schema, and Rust does not allow them there.
fn without_param_docs(mut function: ItemFn) -> ItemFn {
    for input in &mut function.sig.inputs {
        if let syn::FnArg::Typed(arg) = input {
            arg.attrs.retain(|attr| !attr.path().is_ident("doc"));
        }
    }
    function
}

/// `get_weather` as `GetWeather`.
fn camel(name: &str) -> String {
    name.split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}
