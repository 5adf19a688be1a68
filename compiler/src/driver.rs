//! The three ways in — the `ivm_query!` macro, `build.rs`, and `ivmc
//! compile` — and the one pipeline behind them: parse, check, analyse,
//! plan, lower, emit.
//!
//! A rejected query still gets its struct and methods (with bodies that
//! cannot run) next to the `compile_error!`, so code that uses it reports
//! the real error rather than a cascade of missing items.

use proc_macro2::{Span, TokenStream};

use crate::emit;
use crate::ir::Program;
use crate::pipeline::{self, lower};
use crate::query::{Reader, UpdateModel};
use crate::sql;
use crate::sql::order::Keeping;
use crate::syntax;

/// Compiles the tokens of an `ivm_query!` invocation: the generated items,
/// or `compile_error!`s at the right spans (with the items' shape kept for
/// rejected queries).
pub fn compile_tokens(tokens: TokenStream) -> TokenStream {
    if let Some(literal) = sql_literal(&tokens) {
        let spans = sql::SpanMap::for_literal(literal.span());
        return match sql::parse(&literal.value(), &spans) {
            Ok(views) => {
                let mut out = TokenStream::new();
                for view in views {
                    out.extend(match compile_view(&view) {
                        Ok(code) => code,
                        Err(e) => e.to_compile_error(),
                    });
                }
                out
            }
            Err(e) => e.to_compile_error(),
        };
    }
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
        let report = pipeline::report(q);
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

/// The string literal of `ivm_query!(r#"CREATE TABLE ..."#)`: SQL.
fn sql_literal(tokens: &TokenStream) -> Option<syn::LitStr> {
    syn::parse2::<syn::LitStr>(tokens.clone()).ok()
}

/// Checks, plans and emits one SQL view: the rule's struct and the
/// view's struct around it, and for a view that reads nested views
/// (`docs/design.md#nested-sql`) each of those and the struct that keeps
/// them with the rule.
fn compile_view(view: &sql::View) -> Result<TokenStream, syn::Error> {
    let checked_before = view.checked_before_parts();
    if view.pieces.is_empty() {
        let (mut out, deletes, program) = rule_program(&view.item, &[], Reader::User)?;
        let keeping = Keeping::of(&program.change_tracking());
        out.extend(emit::sql_wrapper(
            &view.wrapper,
            deletes,
            Some(&program),
            keeping,
        ));
        return Ok(out);
    }
    let mut out = TokenStream::new();
    let mut rule_deletes = Vec::new();
    for (piece, checked_before) in view.pieces.iter().zip(&checked_before) {
        let (code, deletes, _) = rule_program(&piece.item, checked_before, Reader::Holder)?;
        out.extend(code);
        out.extend(emit::sql_nested_view(&piece.wrapper, deletes));
        rule_deletes.push(deletes);
    }
    let own = checked_before
        .last()
        .expect("the view's own rule is a part");
    let (code, deletes, program) = rule_program(&view.item, own, Reader::User)?;
    out.extend(code);
    rule_deletes.push(deletes);
    // The composite reports the changes of the view's own rule.
    let keeping = Keeping::of(&program.change_tracking());
    out.extend(emit::sql_composite(view, &rule_deletes, view.deletes));
    // The view's wrapper sees the composite as its rule, over the tables
    // of every part; a view with nested views runs on one worker when
    // sharded.
    let mut wrapper = view.wrapper.clone();
    wrapper.rule = emit::sql_composite_name(view);
    wrapper.tables = emit::sql_base_tables(view);
    out.extend(emit::sql_wrapper(&wrapper, view.deletes, None, keeping));
    Ok(out)
}

/// Checks, plans and emits a view's rule, given the relations whose
/// deletes the struct that holds it checks first and who reads its
/// result: its code, whether it takes deletes, and its program; or its
/// rejection.
fn rule_program(
    item: &syntax::ast::QueryItem,
    checked_before: &[String],
    reader: Reader,
) -> Result<(TokenStream, bool, Program), syn::Error> {
    let query = pipeline::sql_rule(item, checked_before, reader)?;
    let deletes = query.updates == UpdateModel::InsertDelete;
    let program = lower(&pipeline::report(query))?;
    Ok((emit::emit(&program), deletes, program))
}

/// Compiles SQL text (a `.sql` file) to formatted Rust source: for each
/// view, its rule's struct and the view's own.
///
/// On failure returns the errors; render them with
/// [`diagnostic::render`](crate::diagnostic::render) against the same text.
pub fn compile_sql_str(text: &str) -> Result<String, syn::Error> {
    let spans = sql::SpanMap::for_text(text);
    let views = sql::parse(text, &spans)?;
    to_file(all_or_errors(views.iter().map(compile_view))?)
}

/// Compiles one checked query to its generated items, or the error of
/// its rejection.
pub fn compile_query(query: crate::query::Query) -> Result<TokenStream, syn::Error> {
    lower(&pipeline::report(query)).map(|program| emit::emit(&program))
}

/// Compiles query text (an `.ivm` file, or a `.sql` file: text that
/// starts with `CREATE` is read as SQL) to formatted Rust source.
///
/// On failure returns the errors; render them with
/// [`diagnostic::render`](crate::diagnostic::render) against the same text.
pub fn compile_str(text: &str) -> Result<String, syn::Error> {
    if sql::looks_like_sql(text) {
        return compile_sql_str(text);
    }
    let file = syntax::parse_str(text)?;
    let queries = syntax::check(&file)?;
    to_file(all_or_errors(queries.into_iter().map(compile_query))?)
}

/// The code of every item, or the errors of all that failed.
fn all_or_errors(
    items: impl Iterator<Item = Result<TokenStream, syn::Error>>,
) -> Result<TokenStream, syn::Error> {
    let mut tokens = TokenStream::new();
    let mut errors: Option<syn::Error> = None;
    for item in items {
        match item {
            Ok(code) => tokens.extend(code),
            Err(e) => match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            },
        }
    }
    errors.map_or(Ok(tokens), Err)
}

fn to_file(tokens: TokenStream) -> Result<String, syn::Error> {
    emit::to_file_string(tokens).map_err(|e| {
        syn::Error::new(
            Span::call_site(),
            format!("internal error: generated code does not parse: {e}"),
        )
    })
}

/// The IR of every query in `text`, as `ivmc explain --ir` prints it.
pub fn ir_str(text: &str) -> Result<Vec<Result<Program, syn::Error>>, syn::Error> {
    Ok(pipeline::report_str(text)?.iter().map(lower).collect())
}
