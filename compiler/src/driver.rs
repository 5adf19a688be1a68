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
use crate::plan::{
    cluster_crown, crown, first_order, ivm_eps, recompute, storage, two_layer, view_tree,
};
use crate::query::{Strategy, UpdateModel};
use crate::syntax;

/// Compiles one checked and planned query to tokens, or explains why not.
pub fn lower(report: &Report) -> Result<Program, syn::Error> {
    let q = &report.query;
    let v = &report.verdict;
    let span = q.strategy.map_or(q.span, |s| s.span);
    let Some(strategy) = v.strategy else {
        return Err(syn::Error::new(span, rejection_message(report)));
    };
    let mut program = lower_strategy(report, strategy, span)?;
    storage::keep_only_what_is_read(&mut program);
    Ok(program)
}

/// The chosen strategy's planner.
fn lower_strategy(report: &Report, strategy: Strategy, span: Span) -> Result<Program, syn::Error> {
    let q = &report.query;
    let v = &report.verdict;
    match strategy {
        Strategy::ViewTree => view_tree::lower(q, &report.analysis, v).ok_or_else(|| {
            syn::Error::new(span, "internal error: a view tree was chosen for a query without a canonical variable order")
        }),
        Strategy::TwoLayer => two_layer::lower(q, &report.analysis, v).ok_or_else(|| {
            syn::Error::new(span, format!(
                "query `{}` is p-hierarchical but cyclic: the two-layer strategy over a tree decomposition is not implemented yet; `#[strategy(first_order)]` maintains it in {} per update",
                q.name,
                crate::plan::verdict::power(crate::analysis::width::first_order_exponent(&report.analysis.hypergraph).to_f64())
            ))
        }),
        Strategy::Crown => crown::lower(q, &report.analysis, v).ok_or_else(|| {
            syn::Error::new(span, "internal error: CROWN was chosen for a query without a free-connex join tree")
        }),
        Strategy::ClusterCrown => cluster_crown::lower(q, &report.analysis, v).ok_or_else(|| {
            syn::Error::new(span, "internal error: the max-max strategy was chosen for a query whose clusters have no join tree")
        }),
        Strategy::FirstOrder => Ok(first_order::lower(q, v)),
        Strategy::Recompute => Ok(recompute::lower(q, v)),
        Strategy::IvmEps { eps } => match &report.analysis.triangle {
            Some(t) => Ok(ivm_eps::lower(q, t, Some(eps), v)),
            None => Err(syn::Error::new(span, "internal error: IVMε was chosen for a query that is not a triangle count")),
        },
        Strategy::Factorized => match &report.analysis.triangle {
            Some(t) => Ok(ivm_eps::lower(q, t, None, v)),
            None => Err(syn::Error::new(span, "internal error: the factorized baseline was chosen for a query that is not a triangle count")),
        },
    }
}

/// The message of a rejection: what is wrong, the witness, the lower bound
/// and what to do.
pub fn rejection_message(report: &Report) -> String {
    let q = &report.query;
    let v = &report.verdict;
    let mut msg = format!(
        "query `{}` cannot be maintained efficiently: {}",
        q.name, v.reason
    );
    if let Some(w) = &v.witness {
        msg.push_str(&format!("\n  witness: {w}"));
    }
    if v.update_time != crate::plan::verdict::NOT_APPLICABLE {
        let updates = match q.updates {
            UpdateModel::InsertDelete => "inserts and deletes",
            UpdateModel::InsertOnly => "inserts only",
        };
        msg.push_str(&format!(
            "\n  lower bound: {} (under {updates} over `{}`; {})",
            v.update_time, q.semiring.name, v.source
        ));
    }
    if let Some(h) = &v.hint {
        msg.push_str(&format!("\n  help: {h}"));
    }
    msg
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
        let report = explain::report(q);
        match lower(&report) {
            Ok(program) => tokens.extend(emit::emit(&program)),
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
