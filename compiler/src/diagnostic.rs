//! Rendering spanned errors as file:line:col diagnostics with the offending
//! source line, the way rustc shows them. `build.rs` and `ivmc` use this; the
//! macro hands the same errors to rustc as `compile_error!`.

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config};

/// Renders every message of `error` against `source`, the text it was
/// parsed from, named `file_name` in the output.
///
/// ```
/// let text = "query Q { relation R(a: u32); Q(b) = R(a); }";
/// let err = ivm_compiler::pipeline::report_str(text).unwrap_err();
/// let shown = ivm_compiler::diagnostic::render(&err, "q.ivm", text);
/// assert!(shown.contains("q.ivm:1:33"));
/// assert!(shown.contains("head variable `b` is not bound"));
/// ```
pub fn render(error: &syn::Error, file_name: &str, source: &str) -> String {
    let file = SimpleFile::new(file_name, source);
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(source.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    // proc-macro2 reports 1-based lines and 0-based columns in characters.
    let offset = |lc: proc_macro2::LineColumn| -> Option<usize> {
        let start = *line_starts.get(lc.line.checked_sub(1)?)?;
        let line = &source[start..];
        let col = line
            .char_indices()
            .nth(lc.column)
            .map_or(line.len(), |(i, _)| i);
        Some(start + col)
    };
    let config = Config::default();
    let mut out = String::new();
    for e in error.clone() {
        let span = e.span();
        let mut diagnostic = Diagnostic::error().with_message(e.to_string());
        if let (Some(start), Some(end)) = (offset(span.start()), offset(span.end())) {
            let end = end.max(start);
            diagnostic = diagnostic.with_labels(vec![Label::primary((), start..end)]);
        } else {
            diagnostic = diagnostic.with_notes(vec![format!("in {file_name}")]);
        }
        match term::emit_into_string(&config, &file, &diagnostic) {
            Ok(s) => out.push_str(&s),
            Err(_) => out.push_str(&format!("error: {e}\n  --> {file_name}\n")),
        }
    }
    out
}
