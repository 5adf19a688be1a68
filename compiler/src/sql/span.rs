//! Where in the SQL a mistake is: sqlparser's line/column locations turned
//! into the `proc_macro2::Span`s every other error of the compiler carries.
//!
//! In a `.sql` file (`build.rs`, `ivmc`) the spans are real: the text is
//! shadowed by a token stream with the same layout (each word a run of
//! `x`, every other visible character a `,`), whose tokens carry the line
//! and column of the SQL they stand for, so `diagnostic::render` points at
//! the SQL exactly as it does at rule-language text. Inside the macro, a
//! string literal has one span; errors point at the literal and their
//! message names the line and column inside it.

use std::str::FromStr;

use proc_macro2::{LineColumn, Span, TokenStream, TokenTree};

/// Turns SQL locations into spans.
pub struct SpanMap {
    /// Shadow tokens with the (start, end) of the SQL they cover, in text
    /// order; empty inside the macro.
    tokens: Vec<(LineColumn, LineColumn, Span)>,
    /// The span of the whole text (the macro's literal).
    whole: Span,
    /// Whether messages name the line and column themselves.
    in_literal: bool,
}

impl SpanMap {
    /// The spans of a `.sql` file's text.
    pub fn for_text(text: &str) -> SpanMap {
        let shadow: String = text
            .chars()
            .map(|c| {
                if c.is_whitespace() {
                    c
                } else if c.is_alphanumeric() || c == '_' {
                    'x'
                } else {
                    ','
                }
            })
            .collect();
        let mut tokens = Vec::new();
        if let Ok(stream) = TokenStream::from_str(&shadow) {
            flatten(stream, &mut tokens);
        }
        let whole = match (tokens.first(), tokens.last()) {
            (Some(first), Some(last)) => first.2.join(last.2).unwrap_or(first.2),
            _ => Span::call_site(),
        };
        SpanMap {
            tokens,
            whole,
            in_literal: false,
        }
    }

    /// The spans of SQL inside the macro's string literal at `literal`.
    pub fn for_literal(literal: Span) -> SpanMap {
        SpanMap {
            tokens: Vec::new(),
            whole: literal,
            in_literal: true,
        }
    }

    /// The span covering `location` (sqlparser's 1-based lines and
    /// columns), or the whole text when there is none to find.
    pub fn span(&self, location: sqlparser::tokenizer::Span) -> Span {
        let start = line_column(location.start);
        let end = line_column(location.end);
        let inside: Vec<Span> = self
            .tokens
            .iter()
            .filter(|(s, e, _)| *s >= start && (*e <= end || end <= start))
            .take_while(|(s, _, _)| end <= start || *s < end)
            .map(|t| t.2)
            .collect();
        match (inside.first(), inside.last()) {
            (Some(first), Some(last)) if end > start => first.join(*last).unwrap_or(*first),
            (Some(first), _) => *first,
            _ => self.whole,
        }
    }

    /// What a message adds to say where it is: nothing where the span
    /// says it, else ` (line L, column C of the SQL)`.
    pub fn at(&self, location: sqlparser::tokenizer::Span) -> String {
        if self.in_literal && location.start.line > 0 {
            format!(
                " (line {}, column {} of the SQL)",
                location.start.line, location.start.column
            )
        } else {
            String::new()
        }
    }

    /// A spanned error at `location`.
    pub fn error(
        &self,
        location: sqlparser::tokenizer::Span,
        message: impl std::fmt::Display,
    ) -> syn::Error {
        syn::Error::new(
            self.span(location),
            format!("{message}{}", self.at(location)),
        )
    }
}

fn line_column(l: sqlparser::tokenizer::Location) -> LineColumn {
    LineColumn {
        line: l.line as usize,
        column: (l.column as usize).saturating_sub(1),
    }
}

fn flatten(stream: TokenStream, out: &mut Vec<(LineColumn, LineColumn, Span)>) {
    for tree in stream {
        if let TokenTree::Group(g) = &tree {
            flatten(g.stream(), out);
            continue;
        }
        let span = tree.span();
        out.push((span.start(), span.end(), span));
    }
}
