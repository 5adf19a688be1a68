//! The checker's errors: every mistake of a file is collected and
//! reported together, each at its span.

use proc_macro2::Span;

use super::ast;

/// The errors found so far, combined into one `syn::Error`.
#[derive(Default)]
pub(super) struct Errors(Option<syn::Error>);

impl Errors {
    /// Records one more error, at `span`.
    pub(super) fn push(&mut self, span: Span, message: impl std::fmt::Display) {
        let e = syn::Error::new(span, message);
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    /// How many errors were recorded: a check compares it before and after
    /// to tell whether it found any.
    pub(super) fn count(&self) -> usize {
        self.0.as_ref().map_or(0, |e| e.into_iter().count())
    }

    /// All the errors as one, or `Ok` when there were none.
    pub(super) fn finish(self) -> syn::Result<()> {
        match self.0 {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The error for an atom of `item` over `key`, which it does not declare.
pub(super) fn unknown_relation(item: &ast::QueryItem, key: &str) -> String {
    let declared: Vec<String> = item
        .relations
        .iter()
        .map(|r| format!("`{}`", r.name))
        .collect();
    let hint = if declared.is_empty() {
        format!("declare it with `relation {key}(...);`")
    } else {
        format!(
            "declared relations are {}; declare it with `relation {key}(...);`",
            declared.join(", ")
        )
    };
    format!(
        "unknown relation `{key}` in {}: {hint}",
        item.dialect.subject(&item.name)
    )
}
