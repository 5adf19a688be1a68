//! The syntax tree of a query file, exactly as written (with spans).

use proc_macro2::{Span, TokenTree};
use syn::{Ident, Lit, Type, Visibility};

/// A parsed `.ivm` file or macro input: one or more query items.
#[derive(Debug, Clone)]
pub struct File {
    /// The query items in source order.
    pub items: Vec<QueryItem>,
}

/// One `query Name { ... }` item with its attributes.
#[derive(Debug, Clone)]
pub struct QueryItem {
    /// `#[...]` attributes other than doc comments, in source order.
    pub attrs: Vec<Attribute>,
    /// Lines of the item's doc comment (`///`), without the leading slashes.
    pub docs: Vec<String>,
    /// `pub`, `pub(crate)`, or inherited.
    pub vis: Visibility,
    /// The span of the `query` keyword.
    pub query_token: Span,
    /// The query's name, which becomes the generated struct's name.
    pub name: Ident,
    /// The language it was written in (a SQL view lowers to an item).
    pub dialect: crate::query::Dialect,
    /// `relation` declarations in source order.
    pub relations: Vec<RelationDecl>,
    /// The query's single rule.
    pub rule: Rule,
}

/// An attribute on a query item.
#[derive(Debug, Clone)]
pub enum Attribute {
    /// `#[semiring(Path)]` or `#[semiring(Path, class, ...)]`.
    Semiring {
        /// Span of the whole attribute.
        span: Span,
        /// The semiring type as written.
        ty: Box<Type>,
        /// Class keywords stated for a user semiring.
        classes: Vec<Ident>,
    },
    /// `#[updates(insert_delete)]` or `#[updates(insert_only)]`.
    Updates {
        /// Span of the whole attribute.
        span: Span,
        /// The update model keyword.
        model: Ident,
    },
    /// `#[deletes(checked)]` or `#[deletes(trusted)]`.
    Deletes {
        /// Span of the whole attribute.
        span: Span,
        /// The keyword.
        mode: Ident,
    },
    /// `#[strategy(name)]` or `#[strategy(name(key = value, ...))]`.
    Strategy {
        /// Span of the whole attribute.
        span: Span,
        /// The strategy name.
        name: Ident,
        /// `key = value` parameters, e.g. `eps = 0.3`.
        params: Vec<(Ident, Lit)>,
    },
    /// `#[allow(intractable)]`.
    AllowIntractable {
        /// Span of the whole attribute.
        span: Span,
    },
}

impl Attribute {
    /// The span of the whole attribute, for duplicate-attribute errors.
    pub fn span(&self) -> Span {
        match self {
            Attribute::Semiring { span, .. }
            | Attribute::Updates { span, .. }
            | Attribute::Deletes { span, .. }
            | Attribute::Strategy { span, .. }
            | Attribute::AllowIntractable { span } => *span,
        }
    }
}

/// `relation Name(col: Type, ...);`
#[derive(Debug, Clone)]
pub struct RelationDecl {
    /// Doc comment lines.
    pub docs: Vec<String>,
    /// The relation's name.
    pub name: Ident,
    /// Its typed columns, in order.
    pub columns: Vec<ColumnDecl>,
    /// Its keys: sets of columns (by index) no two of its tuples share.
    /// The SQL front end fills them from `PRIMARY KEY` and `UNIQUE`; the
    /// rule language has no syntax for them yet.
    pub keys: Vec<Vec<usize>>,
}

/// One `name: Type` column of a relation.
#[derive(Debug, Clone)]
pub struct ColumnDecl {
    /// The column's name.
    pub name: Ident,
    /// The column's Rust type.
    pub ty: Type,
}

/// `Head(vars...) = Atom * { expr } * ...;`
#[derive(Debug, Clone)]
pub struct Rule {
    /// The head's name (free to choose; it names nothing in the output).
    pub head_name: Ident,
    /// The head (free) variables, in order.
    pub head: Vec<Ident>,
    /// The body's atoms, in order.
    pub atoms: Vec<AtomSyntax>,
    /// The body's `{ expr }` factors, in order.
    pub exprs: Vec<ExprSyntax>,
    /// The body's semijoins, `exists(..)` and `not exists(..)`, in order.
    pub exists: Vec<ExistsSyntax>,
}

/// `exists(Atom * { expr } * ...)` or `not exists(...)` in a rule body: a
/// factor that is 1 where the product inside has a derivation (0 where it
/// has none, for `not exists`), for the values of the variables it shares
/// with the rest of the rule.
#[derive(Debug, Clone)]
pub struct ExistsSyntax {
    /// `not exists`.
    pub negated: bool,
    /// The atoms inside, in order.
    pub atoms: Vec<AtomSyntax>,
    /// The `{ expr }` conditions inside, in order.
    pub exprs: Vec<ExprSyntax>,
    /// Span from `exists` (or `not`) to the closing parenthesis.
    pub span: Span,
}

/// `Relation(arg, ...)` in a rule body.
#[derive(Debug, Clone)]
pub struct AtomSyntax {
    /// The relation the atom reads.
    pub relation: Ident,
    /// What each column is bound to, by position.
    pub args: Vec<ArgSyntax>,
    /// Span from the relation name to the closing parenthesis.
    pub span: Span,
}

/// One argument of an atom.
#[derive(Debug, Clone)]
pub enum ArgSyntax {
    /// A variable.
    Var(Ident),
    /// A constant: an integer (possibly negative), a string, a character or
    /// a boolean.
    Const {
        /// The literal as written, with its sign.
        expr: Box<syn::Expr>,
        /// Its span.
        span: Span,
    },
    /// `_`: any value, summed out.
    Wildcard(Span),
    /// `Some(v)`: a column of type `Option<T>` that holds a value, bound to
    /// variable `v` of type `T` (a tuple whose column is `None` does not
    /// enter the atom).
    Some {
        /// The variable.
        var: Ident,
        /// From `Some` to the closing parenthesis.
        span: Span,
    },
}

impl ArgSyntax {
    /// The argument's span.
    pub fn span(&self) -> Span {
        match self {
            ArgSyntax::Var(v) => v.span(),
            ArgSyntax::Const { span, .. }
            | ArgSyntax::Wildcard(span)
            | ArgSyntax::Some { span, .. } => *span,
        }
    }

    /// The variable it binds, if any.
    pub fn var(&self) -> Option<&Ident> {
        match self {
            ArgSyntax::Var(v) | ArgSyntax::Some { var: v, .. } => Some(v),
            ArgSyntax::Const { .. } | ArgSyntax::Wildcard(_) => None,
        }
    }
}

/// `{ expr }` in a rule body: a condition (`bool`) or a lift (a payload);
/// or `{ let name: Type = expr }`, a computed column.
#[derive(Debug, Clone)]
pub struct ExprSyntax {
    /// The variable a `let` factor defines, with its type; `None` for a
    /// condition or a lift.
    pub binds: Option<(Ident, Type)>,
    /// The expression (of a `let`, its value).
    pub expr: syn::Expr,
    /// Span of the braces and what they hold.
    pub span: Span,
}

/// Calls `f` on every identifier of `stream`, with whether it stands as a
/// value of its own: not called (`f(..)`, `m!`), not a path segment, not a
/// field or method (`x.len`).
pub(crate) fn idents(stream: proc_macro2::TokenStream, f: &mut impl FnMut(&Ident, bool)) {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    let punct = |j: Option<usize>, c: char| {
        j.and_then(|j| tokens.get(j))
            .is_some_and(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == c))
    };
    for (i, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Group(g) => idents(g.stream(), f),
            TokenTree::Ident(ident) => {
                let called = matches!(
                    tokens.get(i + 1),
                    Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis
                );
                let standalone = !called
                    && !punct(i.checked_sub(1), '.')
                    && !punct(i.checked_sub(1), ':')
                    && !punct(Some(i + 1), ':')
                    && !punct(Some(i + 1), '!');
                f(ident, standalone);
            }
            _ => {}
        }
    }
}
