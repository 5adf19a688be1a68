//! Semijoins, `exists(..)` and `not exists(..)`, checked into an atom of the
//! rule and the queries behind it (`docs/design.md#semijoins`).
//!
//! The body of a semijoin is checked as a query of its own, over `Int`,
//! whose head is its correlated variables (those its atoms share with the
//! atoms of the rule): its count of derivations is non-zero exactly where
//! the semijoin holds. The rule reads the semijoin as an atom over the
//! correlated variables, of a relation of its own (`Origin::Semijoin`)
//! that the generated code keeps equal to the indicator. A `not exists`
//! also gets a domain: the values of the correlated variables in the
//! relation of the first atom of the rule that binds them all, so the
//! indicator of "not in the body" is finite (1 where the domain holds a
//! value and the body does not).
//!
//! Each update of a relation the body reads changes the count at one value
//! of the correlated variables per atom of that relation that binds them
//! all; through an atom that misses one, it may change the count at many
//! values, which the generated code reads from the body's `changes()`.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::{Ident, Type};

use super::ast::idents;
use super::ast::{self, ArgSyntax, Attribute, ExistsSyntax, QueryItem, Rule};
use super::errors::{Errors, unknown_relation};
use crate::query::{
    Arg, Atom, Column, DeleteCheck, Origin, Polarity, Query, Reader, Relation, Semijoin, VarId,
    type_string,
};

/// What the rule's check knows when it reaches its semijoins.
pub(super) struct Outer<'a> {
    /// The query item.
    pub item: &'a QueryItem,
    /// The declared relations, by name.
    pub relation_index: &'a HashMap<String, usize>,
    /// The rule's variables, by name, with whether some atom (or `let`)
    /// binds them: the variables a semijoin may correlate on.
    pub bound: HashMap<String, (VarId, Type)>,
    /// The atoms of the rule so far (none of them a semijoin).
    pub atoms: &'a [Atom],
    /// The checker of a query item, for the body and domain (each a query
    /// of its own).
    pub check_item: fn(&QueryItem, &mut Errors) -> Option<Query>,
}

/// A semijoin checked, not yet placed: the columns of its indicator
/// relation, the variables of the atom the rule reads it through, and the
/// semijoin's parts.
pub(super) struct Checked {
    /// The indicator relation's name.
    name: Ident,
    /// Its columns: the correlated variables.
    columns: Vec<Column>,
    /// The variables of the atom that reads it.
    pub vars: Vec<VarId>,
    /// `exists`, or `not exists` with its domain.
    polarity: Polarity,
    body: Box<Query>,
    /// Where it is written.
    pub span: Span,
}

impl Checked {
    /// Whether it is `not exists`.
    pub fn negated(&self) -> bool {
        matches!(self.polarity, Polarity::NotExists { .. })
    }

    /// The semijoin placed as the `index`-th of the query, read by atom
    /// `atom`: its indicator relation, the atom's variables and the
    /// semijoin.
    pub fn placed(self, index: usize, atom: usize) -> (Relation, Vec<VarId>, Semijoin) {
        let semijoin = Semijoin {
            polarity: self.polarity,
            atom,
            body: self.body,
            span: self.span,
        };
        let relation = Relation {
            name: self.name,
            docs: vec![format!(" The values where `{}` holds", semijoin.text())],
            columns: self.columns,
            origin: Origin::Semijoin(index),
            check: DeleteCheck::Own,
            keys: Vec::new(),
        };
        (relation, self.vars, semijoin)
    }
}

/// Checks the semijoins of a rule, in order; `None` for one with an error
/// (reported in `errors`).
pub(super) fn check_all(outer: &Outer<'_>, errors: &mut Errors) -> Vec<Checked> {
    let mut taken: Vec<String> = outer.relation_index.keys().cloned().collect();
    outer
        .item
        .rule
        .exists
        .iter()
        .enumerate()
        .filter_map(|(i, e)| check_one(outer, e, i, &mut taken, errors))
        .collect()
}

/// Checks one semijoin, the `index`th of its rule: its relations, its
/// correlated variables, its body and, for a `not exists`, its domain, each
/// a query of its own. `taken` holds the relation names in use, the new
/// one added.
fn check_one(
    outer: &Outer<'_>,
    e: &ExistsSyntax,
    index: usize,
    taken: &mut Vec<String>,
    errors: &mut Errors,
) -> Option<Checked> {
    let before = errors.count();
    check_reads(outer, e, errors);
    if errors.count() > before {
        return None;
    }
    let correlated = correlated(outer, e);
    check_no_theta(outer, e, errors);
    if errors.count() > before {
        return None;
    }
    let name = relation_name(e, index, taken);
    let rel_name = Ident::new(&name, e.span);
    let body = check_body(outer, e, &name, &rel_name, &correlated, errors)?;
    let vars = correlated_vars(outer, e, &body, &correlated, errors);
    if errors.count() > before {
        return None;
    }
    let polarity = if e.negated {
        let correlation = Correlation {
            name: &name,
            correlated: &correlated,
            vars: &vars,
        };
        Polarity::NotExists {
            domain: check_domain(outer, e, &correlation, errors)?,
        }
    } else {
        Polarity::Exists
    };
    Some(Checked {
        name: rel_name,
        columns: correlated
            .iter()
            .map(|c| Column {
                name: c.clone(),
                ty: outer.bound[&c.to_string()].1.clone(),
            })
            .collect(),
        vars,
        polarity,
        body: Box::new(body),
        span: e.span,
    })
}

/// `exists` or `not exists`, as errors name the semijoin.
fn keyword(e: &ExistsSyntax) -> &'static str {
    if e.negated { "not exists" } else { "exists" }
}

/// Reports each relation the semijoin reads that the item does not
/// declare.
fn check_reads(outer: &Outer<'_>, e: &ExistsSyntax, errors: &mut Errors) {
    for atom in &e.atoms {
        let key = atom.relation.to_string();
        if !outer.relation_index.contains_key(&key) {
            errors.push(atom.relation.span(), unknown_relation(outer.item, &key));
        }
    }
}

/// The correlated variables: those the body's atoms (or its `let`s)
/// share with the rule's, in order of first occurrence inside. A `let`
/// correlates a value computed inside (SQL's `NOT EXISTS` on a column
/// that can be NULL: `{ let x: Option<i32> = Some(y) }`).
fn correlated(outer: &Outer<'_>, e: &ExistsSyntax) -> Vec<Ident> {
    let mut correlated: Vec<Ident> = Vec::new();
    for v in bound_inside(e) {
        if outer.bound.contains_key(&v.to_string()) && !correlated.iter().any(|c| c == v) {
            correlated.push(v.clone());
        }
    }
    correlated
}

/// The variables the semijoin's atoms and `let`s bind, in order.
fn bound_inside(e: &ExistsSyntax) -> impl Iterator<Item = &Ident> {
    let atoms = e
        .atoms
        .iter()
        .flat_map(|a| a.args.iter().filter_map(|a| a.var()));
    atoms.chain(
        e.exprs
            .iter()
            .filter_map(|x| x.binds.as_ref().map(|(v, _)| v)),
    )
}

/// Reports each condition inside that reads a variable of the rule no atom
/// inside binds: it would compare across the semijoin (a theta semijoin).
fn check_no_theta(outer: &Outer<'_>, e: &ExistsSyntax, errors: &mut Errors) {
    let word = keyword(e);
    let inside: Vec<String> = bound_inside(e).map(Ident::to_string).collect();
    for x in &e.exprs {
        let mut outside: Option<Ident> = None;
        idents(
            quote::ToTokens::to_token_stream(&x.expr),
            &mut |ident, standalone| {
                let name = ident.to_string();
                if standalone
                    && outside.is_none()
                    && outer.bound.contains_key(&name)
                    && !inside.contains(&name)
                {
                    outside = Some(ident.clone());
                }
            },
        );
        if let Some(v) = outside {
            errors.push(
                v.span(),
                format!(
                    "`{v}` is bound outside `{word}(..)` and by no atom inside it: a semijoin correlates through shared variables (equalities) only; comparing across it is not supported yet"
                ),
            );
        }
    }
}

/// The name of the relation the rule reads the semijoin through:
/// `Exists<n>` or `NotExists<n>`, numbered on (`Exists1_2`) if a relation
/// has it; recorded in `taken`.
fn relation_name(e: &ExistsSyntax, index: usize, taken: &mut Vec<String>) -> String {
    let n = index + 1;
    let base = if e.negated {
        format!("NotExists{n}")
    } else {
        format!("Exists{n}")
    };
    let name = super::names::unused(&base, |n| taken.iter().any(|t| t == n));
    taken.push(name.clone());
    name
}

/// The attributes of a body or domain query: over `Int`, with the item's
/// `allow` and `updates` (under inserts only its counts only see inserts
/// too; a ring's negative ones included: `Int` is a ring, and takes them).
fn int_attrs(item: &QueryItem, span: Span) -> Vec<Attribute> {
    let mut attrs = vec![Attribute::Semiring {
        span,
        ty: Box::new(syn::parse_quote!(::ivm::semiring::Int)),
        classes: Vec::new(),
    }];
    for a in &item.attrs {
        match a {
            Attribute::AllowIntractable { .. } => {
                attrs.push(Attribute::AllowIntractable { span });
            }
            Attribute::Updates { model, .. } => attrs.push(Attribute::Updates {
                span,
                model: model.clone(),
            }),
            // The subquery's relations take the same deletes.
            Attribute::Deletes { mode, .. } => attrs.push(Attribute::Deletes {
                span,
                mode: mode.clone(),
            }),
            Attribute::Semiring { .. } | Attribute::Strategy { .. } => {}
        }
    }
    attrs
}

/// The body checked as a query of its own, over the relations it reads,
/// with the correlated variables as its head; named
/// `<Query><name>Count`.
fn check_body(
    outer: &Outer<'_>,
    e: &ExistsSyntax,
    name: &str,
    rel_name: &Ident,
    correlated: &[Ident],
    errors: &mut Errors,
) -> Option<Query> {
    let item = outer.item;
    let read: Vec<String> = e.atoms.iter().map(|a| a.relation.to_string()).collect();
    let body_item = QueryItem {
        attrs: int_attrs(item, e.span),
        docs: Vec::new(),
        vis: syn::Visibility::Inherited,
        query_token: item.query_token,
        name: item.name.clone(),
        dialect: item.dialect.clone(),
        relations: item
            .relations
            .iter()
            .filter(|r| read.contains(&r.name.to_string()))
            .cloned()
            .collect(),
        rule: Rule {
            head_name: rel_name.clone(),
            head: correlated.to_vec(),
            atoms: e.atoms.clone(),
            exprs: e.exprs.clone(),
            exists: Vec::new(),
        },
    };
    let mut body = (outer.check_item)(&body_item, errors)?;
    body.name = Ident::new(&format!("{}{name}Count", item.name), e.span);
    body.reader = Reader::Holder;
    Some(body)
}

/// The rule's variables the semijoin correlates on, in order; reports each
/// whose type differs between the body and the rule.
fn correlated_vars(
    outer: &Outer<'_>,
    e: &ExistsSyntax,
    body: &Query,
    correlated: &[Ident],
    errors: &mut Errors,
) -> Vec<VarId> {
    let word = keyword(e);
    let mut vars = Vec::new();
    for c in correlated {
        let (v, ty) = &outer.bound[&c.to_string()];
        let inner = body
            .variables
            .iter()
            .find(|x| x.name == *c)
            .expect("a correlated variable is bound inside");
        if type_string(&inner.ty) != type_string(ty) {
            errors.push(
                c.span(),
                format!(
                    "variable `{c}` is `{}` inside `{word}(..)` but `{}` in the rule: a variable joins columns of one type",
                    type_string(&inner.ty),
                    type_string(ty)
                ),
            );
        }
        vars.push(*v);
    }
    vars
}

/// A semijoin's correlation, what its domain is built from: the name of
/// the relation the rule reads it through, and the correlated variables
/// by name and in the rule.
struct Correlation<'a> {
    /// The relation's name (`NotExists<n>`).
    name: &'a str,
    /// The correlated variables, as written inside.
    correlated: &'a [Ident],
    /// The same variables, in the rule.
    vars: &'a [VarId],
}

/// An atom's columns: the variable each binds, and whether through
/// `Some(v)` (an `Option` column read where it holds a value); `None` for
/// a constant or `_`.
fn atom_columns(a: &Atom) -> Vec<Option<(VarId, bool)>> {
    match &a.local {
        Some(local) => local
            .args
            .iter()
            .map(|arg| match arg {
                Arg::Var(v) => Some((*v, false)),
                Arg::Some(v) => Some((*v, true)),
                _ => None,
            })
            .collect(),
        None => a.vars.iter().map(|&v| Some((v, false))).collect(),
    }
}

/// The domain of a `not exists`, checked as a query of its own: the
/// correlated columns of the first atom of the rule that binds them all
/// (an error when none does).
fn check_domain(
    outer: &Outer<'_>,
    e: &ExistsSyntax,
    correlation: &Correlation<'_>,
    errors: &mut Errors,
) -> Option<Box<Query>> {
    let item = outer.item;
    let Correlation {
        name,
        correlated,
        vars,
    } = *correlation;
    // An atom that binds each as a value, or else one that reads some as
    // `Some(v)` (columns that can be NULL, joined to each other), which the
    // domain reads so too.
    let binds = |a: &&Atom, unwrapped: bool| {
        let cols = atom_columns(a);
        vars.iter().all(|v| {
            cols.iter()
                .any(|c| c.is_some_and(|(w, some)| w == *v && (unwrapped || !some)))
        })
    };
    let Some(anchor) = (outer.atoms.iter().find(|a| binds(a, false)))
        .or_else(|| outer.atoms.iter().find(|a| binds(a, true)))
    else {
        let names: Vec<String> = correlated.iter().map(|c| format!("`{c}`")).collect();
        errors.push(
            e.span,
            format!(
                "{} correlates on {}, which no one atom of the rule binds together: its indicator would range over a product of domains; not supported yet",
                item.dialect.not_exists(),
                names.join(", ")
            ),
        );
        return None;
    };
    let source = anchor.local.as_ref().map_or(anchor.relation, |l| l.source);
    let decl = &item.relations[source];
    let cols = atom_columns(anchor);
    let args = cols
        .iter()
        .enumerate()
        .map(|(i, col)| match *col {
            Some((v, some))
                if vars.contains(&v) && cols[..i].iter().all(|w| w.is_none_or(|(w, _)| w != v)) =>
            {
                let c = &correlated[vars.iter().position(|w| *w == v).expect("correlated")];
                let var = Ident::new(&c.to_string(), anchor.span);
                if some {
                    ArgSyntax::Some {
                        var,
                        span: anchor.span,
                    }
                } else {
                    ArgSyntax::Var(var)
                }
            }
            _ => ArgSyntax::Wildcard(anchor.span),
        })
        .collect();
    let domain_item = QueryItem {
        attrs: int_attrs(item, anchor.span),
        docs: Vec::new(),
        vis: syn::Visibility::Inherited,
        query_token: item.query_token,
        name: item.name.clone(),
        dialect: item.dialect.clone(),
        relations: vec![decl.clone()],
        rule: Rule {
            head_name: Ident::new(&format!("{name}Domain"), anchor.span),
            head: correlated
                .iter()
                .map(|c| Ident::new(&c.to_string(), anchor.span))
                .collect(),
            atoms: vec![ast::AtomSyntax {
                relation: decl.name.clone(),
                args,
                span: anchor.span,
            }],
            exprs: Vec::new(),
            exists: Vec::new(),
        },
    };
    let mut domain = (outer.check_item)(&domain_item, errors)?;
    domain.name = Ident::new(&format!("{}{name}Domain", item.name), e.span);
    domain.reader = Reader::Holder;
    Some(Box::new(domain))
}
