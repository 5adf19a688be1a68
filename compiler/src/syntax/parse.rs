//! The parser: tokens or text in, [`ast::File`](super::ast::File) out.
//!
//! Parsing only checks the grammar; everything that needs the whole item
//! (names, arities, types) is left to [`check`](super::check).

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Ident, Lit, Token, Type, Visibility, braced, parenthesized};

use super::ast::{
    ArgSyntax, AtomSyntax, Attribute, ColumnDecl, ExistsSyntax, ExprSyntax, File, QueryItem,
    RelationDecl, Rule,
};

mod kw {
    syn::custom_keyword!(query);
    syn::custom_keyword!(relation);
}

/// Parses the tokens of an `ivm_query!` invocation.
pub fn parse_tokens(tokens: TokenStream) -> syn::Result<File> {
    syn::parse2(tokens)
}

/// Parses query text (an `.ivm` file's contents, or `ivmc explain -e TEXT`).
///
/// Spans in the result and in errors carry line and column numbers relative
/// to the start of `text`.
pub fn parse_str(text: &str) -> syn::Result<File> {
    // Tokenize first so a lexing error (an unclosed delimiter, a stray
    // character) is reported as such rather than as a grammar error.
    let tokens: TokenStream = text.parse().map_err(|e: proc_macro2::LexError| {
        syn::Error::new(
            e.span(),
            "cannot read the query text: a delimiter opened here is not closed, or a literal is malformed",
        )
    })?;
    parse_tokens(tokens)
}

/// Alias of [`parse_str`] for the contents of an `.ivm` file.
pub fn parse_file(contents: &str) -> syn::Result<File> {
    parse_str(contents)
}

impl Parse for File {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut items = Vec::new();
        while !input.is_empty() {
            items.push(input.parse()?);
        }
        if items.is_empty() {
            return Err(syn::Error::new(
                Span::call_site(),
                "no query here: write `query Name { relation R(a: u32); Q(a) = R(a); }`",
            ));
        }
        Ok(File { items })
    }
}

impl Parse for QueryItem {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let raw_attrs = input.call(syn::Attribute::parse_outer)?;
        let (docs, attrs) = split_attributes(raw_attrs)?;
        let vis: Visibility = input.parse()?;
        let lookahead = input.lookahead1();
        if !lookahead.peek(kw::query) {
            return Err(syn::Error::new(
                input.span(),
                "expected `query`: a query item reads `query Name { relation ...; Head(...) = ...; }`",
            ));
        }
        let query_token: kw::query = input.parse()?;
        let name: Ident = input.parse()?;
        let body;
        braced!(body in input);
        let mut relations = Vec::new();
        let mut rule: Option<Rule> = None;
        while !body.is_empty() {
            let inner_attrs = body.call(syn::Attribute::parse_outer)?;
            if body.peek(kw::relation) {
                let docs = doc_lines_only(inner_attrs, "a relation")?;
                if let Some(rule) = &rule {
                    return Err(syn::Error::new(
                        body.span(),
                        format!(
                            "relation declared after the rule `{}`: declare every relation before the rule",
                            rule.head_name
                        ),
                    ));
                }
                let mut decl: RelationDecl = body.parse()?;
                decl.docs = docs;
                relations.push(decl);
            } else {
                if let Some(attr) = inner_attrs.first() {
                    return Err(syn::Error::new(
                        attr.span(),
                        "attributes are not allowed on a rule: put them on the `query` item",
                    ));
                }
                if rule.is_some() {
                    return Err(syn::Error::new(
                        body.span(),
                        "a query has exactly one rule: write another `query` item for a second rule",
                    ));
                }
                if !body.peek(Ident::peek_any) {
                    return Err(syn::Error::new(
                        body.span(),
                        "expected `relation` or a rule such as `Q(a) = R(a, b) * S(b);`",
                    ));
                }
                rule = Some(body.parse()?);
            }
        }
        let rule = rule.ok_or_else(|| {
            syn::Error::new(
                name.span(),
                format!("query `{name}` has no rule: add one such as `Q(a) = R(a, b);` after the relations"),
            )
        })?;
        Ok(QueryItem {
            attrs,
            docs,
            vis,
            query_token: query_token.span,
            name,
            dialect: crate::query::Dialect::Rule,
            relations,
            rule,
        })
    }
}

impl Parse for RelationDecl {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        input.parse::<kw::relation>()?;
        let name: Ident = input.parse()?;
        if !input.peek(syn::token::Paren) {
            return Err(syn::Error::new(
                input.span(),
                format!(
                    "expected `(` after `relation {name}`: declare its columns as `{name}(a: u32, b: u32)`"
                ),
            ));
        }
        let content;
        let parens = parenthesized!(content in input);
        let columns: Punctuated<ColumnDecl, Token![,]> =
            content.parse_terminated(ColumnDecl::parse, Token![,])?;
        if columns.is_empty() {
            return Err(syn::Error::new(
                parens.span.join(),
                format!(
                    "relation `{name}` has no columns: declare at least one, e.g. `{name}(a: u32)`"
                ),
            ));
        }
        if !input.peek(Token![;]) {
            return Err(syn::Error::new(
                input.span(),
                format!("expected `;` after the declaration of `{name}`"),
            ));
        }
        input.parse::<Token![;]>()?;
        Ok(RelationDecl {
            docs: Vec::new(),
            name,
            columns: columns.into_iter().collect(),
            keys: Vec::new(),
        })
    }
}

impl Parse for ColumnDecl {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        if !input.peek(Token![:]) {
            return Err(syn::Error::new(
                input.span(),
                format!("expected `:` and a type after column `{name}`, e.g. `{name}: u32`"),
            ));
        }
        input.parse::<Token![:]>()?;
        let ty: Type = input.parse()?;
        Ok(ColumnDecl { name, ty })
    }
}

impl Parse for Rule {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let head_name: Ident = input.parse()?;
        if !input.peek(syn::token::Paren) {
            return Err(syn::Error::new(
                input.span(),
                format!(
                    "expected `(` after `{head_name}`: the rule's head lists its free variables, e.g. `{head_name}(a) = ...` or `{head_name}() = ...`"
                ),
            ));
        }
        let content;
        parenthesized!(content in input);
        let head: Punctuated<Ident, Token![,]> =
            content.parse_terminated(Ident::parse, Token![,])?;
        if !input.peek(Token![=]) {
            return Err(syn::Error::new(
                input.span(),
                "expected `=` after the rule's head",
            ));
        }
        input.parse::<Token![=]>()?;
        let Body {
            atoms,
            exprs,
            exists,
        } = parse_body(input, true)?;
        if !input.peek(Token![;]) {
            return Err(syn::Error::new(
                input.span(),
                "expected `*` and another factor (an atom, `{ expr }` or `exists(..)`), or `;` to end the rule",
            ));
        }
        input.parse::<Token![;]>()?;
        if atoms.is_empty() {
            return Err(syn::Error::new(
                head_name.span(),
                "the rule's body has no atom: a query reads at least one relation",
            ));
        }
        Ok(Rule {
            head_name,
            head: head.into_iter().collect(),
            atoms,
            exprs,
            exists,
        })
    }
}

/// The factors of a product, as parsed.
struct Body {
    atoms: Vec<AtomSyntax>,
    exprs: Vec<ExprSyntax>,
    exists: Vec<ExistsSyntax>,
}

/// Whether `input` starts a semijoin: `exists(` or `not exists(`. The
/// words are keywords only there, so a relation may still be named
/// `exists` (`exists(a, b)` reads it: its arguments are no factors).
fn peek_exists(input: ParseStream) -> bool {
    fn starts(input: ParseStream) -> syn::Result<bool> {
        let mut word: Ident = input.parse()?;
        if word == "not" {
            word = input.parse()?;
        }
        if word != "exists" || !input.peek(syn::token::Paren) {
            return Ok(false);
        }
        let content;
        parenthesized!(content in input);
        // An atom of a relation named `exists` holds variables, constants
        // and `_`; a semijoin holds factors: an atom, `{ .. }`, `not ..`.
        Ok(content.peek(syn::token::Brace)
            || (content.peek(Ident) && (content.peek2(syn::token::Paren) || content.peek2(Ident))))
    }
    starts(&input.fork()).unwrap_or(false)
}

/// A product of factors (atoms, `{ expr }`, and, where `exists` is true,
/// semijoins), up to the first token that is not `*`.
fn parse_body(input: ParseStream, semijoins: bool) -> syn::Result<Body> {
    let (mut atoms, mut exprs, mut exists) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        if input.peek(syn::token::Brace) {
            let content;
            let braces = braced!(content in input);
            let binds = if content.peek(Token![let]) {
                Some(parse_let(&content)?)
            } else {
                None
            };
            let expr: syn::Expr = content.parse().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    format!(
                        "expected a Rust expression inside `{{ }}`, a condition or a lift: {e}"
                    ),
                )
            })?;
            if !content.is_empty() {
                return Err(content.error("expected `}` after the factor's expression"));
            }
            exprs.push(ExprSyntax {
                binds,
                expr,
                span: braces.span.join(),
            });
        } else if peek_exists(input) {
            let first = input.span();
            let negated = input.peek2(Ident);
            if negated {
                input.parse::<Ident>()?;
            }
            let word: Ident = input.parse()?;
            if !semijoins {
                return Err(syn::Error::new(
                    word.span(),
                    "`exists(..)` inside `exists(..)` is not supported yet: join the inner relations into one `exists(..)`",
                ));
            }
            let content;
            let parens = parenthesized!(content in input);
            let inner = parse_body(&content, false)?;
            if !content.is_empty() {
                return Err(content.error(
                    "expected `*` and another factor (an atom or `{ condition }`), or `)` to end `exists(..)`",
                ));
            }
            let span = first.join(parens.span.close()).unwrap_or(first);
            if inner.atoms.is_empty() {
                return Err(syn::Error::new(
                    span,
                    "`exists(..)` holds no atom: it reads at least one relation, as in `exists(S(b, _))`",
                ));
            }
            if let Some(e) = inner.exprs.iter().find(|e| e.binds.is_some()) {
                return Err(syn::Error::new(
                    e.span,
                    "a computed column (`let`) inside `exists(..)` is not supported yet: compare the columns in a condition instead",
                ));
            }
            exists.push(ExistsSyntax {
                negated,
                atoms: inner.atoms,
                exprs: inner.exprs,
                span,
            });
        } else {
            atoms.push(input.parse::<AtomSyntax>()?);
        }
        if !input.peek(Token![*]) {
            break;
        }
        input.parse::<Token![*]>()?;
    }
    Ok(Body {
        atoms,
        exprs,
        exists,
    })
}

impl Parse for AtomSyntax {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let relation: Ident = input
            .parse()
            .map_err(|e| syn::Error::new(e.span(), "expected an atom such as `R(a, b)`"))?;
        if !input.peek(syn::token::Paren) {
            return Err(syn::Error::new(
                input.span(),
                format!(
                    "expected `(` after `{relation}`: an atom binds variables by position, e.g. `{relation}(a, b)`"
                ),
            ));
        }
        let content;
        let parens = parenthesized!(content in input);
        let args: Punctuated<ArgSyntax, Token![,]> =
            content.parse_terminated(ArgSyntax::parse, Token![,])?;
        let span = relation
            .span()
            .join(parens.span.close())
            .unwrap_or_else(|| relation.span());
        Ok(AtomSyntax {
            relation,
            args: args.into_iter().collect(),
            span,
        })
    }
}

impl Parse for ArgSyntax {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(Token![_]) {
            let underscore: Token![_] = input.parse()?;
            return Ok(ArgSyntax::Wildcard(underscore.span));
        }
        if input.peek(Ident) && input.peek2(syn::token::Paren) {
            return parse_some(input);
        }
        if input.peek(Ident) && !input.peek(syn::LitBool) {
            return Ok(ArgSyntax::Var(input.parse()?));
        }
        let span = input.span();
        let negative = input.peek(Token![-]);
        if negative {
            input.parse::<Token![-]>()?;
        }
        let lit: syn::Lit = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected a variable, `_`, or a constant (an integer, a string, a character or a boolean)",
            )
        })?;
        let ok = match &lit {
            syn::Lit::Int(_) => true,
            syn::Lit::Str(_) | syn::Lit::Char(_) | syn::Lit::Bool(_) => !negative,
            _ => false,
        };
        if !ok {
            return Err(syn::Error::new(
                lit.span(),
                "a constant in an atom is an integer (possibly negative), a string, a character or a boolean",
            ));
        }
        let expr: syn::Expr = if negative {
            syn::parse_quote!(-#lit)
        } else {
            syn::parse_quote!(#lit)
        };
        Ok(ArgSyntax::Const {
            expr: Box::new(expr),
            span,
        })
    }
}

/// `Some(v)`: an `Option` column that holds a value, bound to `v`.
fn parse_some(input: ParseStream) -> syn::Result<ArgSyntax> {
    let some: Ident = input.parse()?;
    if some != "Some" {
        return Err(syn::Error::new(
            some.span(),
            format!("expected a variable, `_`, a constant or `Some(v)`, found a call of `{some}`"),
        ));
    }
    let content;
    let paren = parenthesized!(content in input);
    let var: Ident = content.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            "`Some(..)` in an atom binds one variable, as in `Some(v)`",
        )
    })?;
    if !content.is_empty() {
        return Err(content.error("`Some(..)` in an atom binds one variable, as in `Some(v)`"));
    }
    let span = some.span().join(paren.span.close()).unwrap_or(some.span());
    Ok(ArgSyntax::Some { var, span })
}

/// Separates doc comments from the query attributes and parses the latter.
fn split_attributes(raw: Vec<syn::Attribute>) -> syn::Result<(Vec<String>, Vec<Attribute>)> {
    let mut docs = Vec::new();
    let mut attrs = Vec::new();
    let mut errors: Option<syn::Error> = None;
    for attr in raw {
        if let Some(line) = doc_line(&attr) {
            docs.push(line);
            continue;
        }
        match parse_attribute(&attr) {
            Ok(a) => attrs.push(a),
            Err(e) => match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            },
        }
    }
    match errors {
        Some(e) => Err(e),
        None => Ok((docs, attrs)),
    }
}

/// Accepts only doc comments (on a relation) and returns their lines.
fn doc_lines_only(raw: Vec<syn::Attribute>, what: &str) -> syn::Result<Vec<String>> {
    let mut docs = Vec::new();
    for attr in raw {
        match doc_line(&attr) {
            Some(line) => docs.push(line),
            None => {
                return Err(syn::Error::new(
                    attr.span(),
                    format!(
                        "only doc comments are allowed on {what}: move this attribute to the `query` item"
                    ),
                ));
            }
        }
    }
    Ok(docs)
}

fn doc_line(attr: &syn::Attribute) -> Option<String> {
    if !attr.path().is_ident("doc") {
        return None;
    }
    match &attr.meta {
        syn::Meta::NameValue(nv) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

const ATTRIBUTE_HELP: &str = "the attributes of a query are `#[semiring(...)]`, `#[updates(...)]`, `#[strategy(...)]` and `#[allow(intractable)]`";

fn parse_attribute(attr: &syn::Attribute) -> syn::Result<Attribute> {
    let span = attr.span();
    let Some(name) = attr.path().get_ident().map(Ident::to_string) else {
        return Err(syn::Error::new(
            attr.path().span(),
            format!("unknown attribute: {ATTRIBUTE_HELP}"),
        ));
    };
    let needs_list = |example: &str| {
        syn::Error::new(
            span,
            format!("`#[{name}]` needs an argument, e.g. `{example}`"),
        )
    };
    match name.as_str() {
        "semiring" => {
            if !matches!(attr.meta, syn::Meta::List(_)) {
                return Err(needs_list("#[semiring(ivm::semiring::Int)]"));
            }
            attr.parse_args_with(|input: ParseStream| {
                let ty: Type = input.parse()?;
                let mut classes = Vec::new();
                while input.peek(Token![,]) {
                    input.parse::<Token![,]>()?;
                    if input.is_empty() {
                        break;
                    }
                    classes.push(input.parse::<Ident>()?);
                }
                if !input.is_empty() {
                    return Err(
                        input.error("expected `,` and a semiring class such as `positive`, or `)`")
                    );
                }
                Ok(Attribute::Semiring {
                    span,
                    ty: Box::new(ty),
                    classes,
                })
            })
        }
        "updates" => {
            if !matches!(attr.meta, syn::Meta::List(_)) {
                return Err(needs_list("#[updates(insert_only)]"));
            }
            attr.parse_args_with(|input: ParseStream| {
                let model: Ident = input.parse()?;
                if !input.is_empty() {
                    return Err(input.error(
                        "`#[updates(...)]` takes one keyword: `insert_delete` or `insert_only`",
                    ));
                }
                Ok(Attribute::Updates { span, model })
            })
        }
        "deletes" => {
            if !matches!(attr.meta, syn::Meta::List(_)) {
                return Err(needs_list("#[deletes(trusted)]"));
            }
            attr.parse_args_with(|input: ParseStream| {
                let mode: Ident = input.parse()?;
                if !input.is_empty() {
                    return Err(
                        input.error("`#[deletes(...)]` takes one keyword: `checked` or `trusted`")
                    );
                }
                Ok(Attribute::Deletes { span, mode })
            })
        }
        "strategy" => {
            if !matches!(attr.meta, syn::Meta::List(_)) {
                return Err(needs_list("#[strategy(first_order)]"));
            }
            attr.parse_args_with(|input: ParseStream| {
                let name: Ident = input.parse()?;
                let mut params = Vec::new();
                if input.peek(syn::token::Paren) {
                    let content;
                    parenthesized!(content in input);
                    while !content.is_empty() {
                        let key: Ident = content.parse()?;
                        content.parse::<Token![=]>()?;
                        let value: Lit = content.parse()?;
                        params.push((key, value));
                        if content.is_empty() {
                            break;
                        }
                        content.parse::<Token![,]>()?;
                    }
                }
                if !input.is_empty() {
                    return Err(input.error(
                        "`#[strategy(...)]` takes one strategy, e.g. `ivm_eps(eps = 0.5)`",
                    ));
                }
                Ok(Attribute::Strategy { span, name, params })
            })
        }
        "allow" => {
            let arg: Ident = attr.parse_args().map_err(|_| {
                syn::Error::new(
                    span,
                    "the only `allow` a query takes is `#[allow(intractable)]`",
                )
            })?;
            if arg != "intractable" {
                return Err(syn::Error::new(
                    arg.span(),
                    format!(
                        "unknown `allow({arg})`: the only `allow` a query takes is `#[allow(intractable)]`"
                    ),
                ));
            }
            Ok(Attribute::AllowIntractable { span })
        }
        other => Err(syn::Error::new(
            attr.path().span(),
            format!("unknown attribute `{other}`: {ATTRIBUTE_HELP}"),
        )),
    }
}

/// `let name: Type =` at the start of a `{ let name: Type = expr }`
/// factor, up to its value.
fn parse_let(input: ParseStream) -> syn::Result<(Ident, Type)> {
    input.parse::<Token![let]>()?;
    let name: Ident = input.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            "expected the computed variable's name after `let`, as in `{ let y: i64 = a + b }`",
        )
    })?;
    if !input.peek(Token![:]) {
        return Err(syn::Error::new(
            input.span(),
            format!(
                "expected `:` and the type of `{name}`: a computed variable states its type, as in `{{ let {name}: i64 = ... }}`"
            ),
        ));
    }
    input.parse::<Token![:]>()?;
    let ty: Type = input.parse()?;
    if !input.peek(Token![=]) {
        return Err(syn::Error::new(
            input.span(),
            format!("expected `=` and the value of `{name}`"),
        ));
    }
    input.parse::<Token![=]>()?;
    Ok((name, ty))
}
