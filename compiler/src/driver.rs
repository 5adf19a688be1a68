//! The three ways in — the `ivm_query!` macro, `build.rs`, and `ivmc
//! compile` — and the one pipeline behind them: parse, check, analyse,
//! plan, lower, emit.
//!
//! A rejected query still gets its struct and methods (with bodies that
//! cannot run) next to the `compile_error!`, so code that uses it reports
//! the real error rather than a cascade of missing items.

use proc_macro2::{Span, TokenStream};

use crate::emit;
use crate::explain::{self, Report};
use crate::ir::Program;
use crate::plan;
use crate::syntax;

/// Lowers one checked and planned query to the IR, or gives the error of
/// its rejection (at the atoms of the witness, or at the attribute that
/// forced a strategy that does not apply).
pub fn lower(report: &Report) -> Result<Program, syn::Error> {
    match &report.plan {
        Ok(p) => plan::lower(&report.query, p, &report.verdict),
        Err(rejection) => Err(rejection.to_error()),
    }
}

/// Compiles the tokens of an `ivm_query!` invocation: the generated items,
/// or `compile_error!`s at the right spans (with the items' shape kept for
/// rejected queries).
pub fn compile_tokens(tokens: TokenStream) -> TokenStream {
    let file = match syntax::parse_tokens(tokens) {
        Ok(f) => f,
        Err(e) => return e.to_compile_error(),
    };
    let queries = match syntax::check(&file) {
        Ok(q) => q,
        Err(e) => return e.to_compile_error(),
    };
    let mut out = TokenStream::new();
    for q in queries {
        let report = explain::report(q);
        match lower(&report) {
            Ok(program) => out.extend(emit::emit(&program)),
            Err(e) => {
                out.extend(e.to_compile_error());
                out.extend(emit::fallback(&report.query));
            }
        }
    }
    out
}

/// Compiles one checked query to its generated items, or the error of
/// its rejection.
pub fn compile_query(query: crate::query::Query) -> Result<TokenStream, syn::Error> {
    lower(&explain::report(query)).map(|program| emit::emit(&program))
}

/// Compiles query text (an `.ivm` file) to formatted Rust source.
///
/// On failure returns the errors; render them with
/// [`diagnostic::render`](crate::diagnostic::render) against the same text.
pub fn compile_str(text: &str) -> Result<String, syn::Error> {
    let file = syntax::parse_str(text)?;
    let queries = syntax::check(&file)?;
    let mut tokens = TokenStream::new();
    let mut errors: Option<syn::Error> = None;
    for q in queries {
        match compile_query(q) {
            Ok(code) => tokens.extend(code),
            Err(e) => match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            },
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    emit::to_file_string(tokens).map_err(|e| {
        syn::Error::new(
            Span::call_site(),
            format!("internal error: generated code does not parse: {e}"),
        )
    })
}

/// The IR of every query in `text`, as `ivmc explain --ir` prints it.
pub fn ir_str(text: &str) -> Result<Vec<Result<Program, syn::Error>>, syn::Error> {
    Ok(explain::explain_str(text)?.iter().map(lower).collect())
}
