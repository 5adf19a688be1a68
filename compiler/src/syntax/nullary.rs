//! Atoms that bind no variable: nullary factors.
//!
//! An atom whose columns are all constants and `_` (`R(1, _)`), or a
//! semijoin that shares no variable with the rule (an uncorrelated
//! `exists(..)`), contributes one value to every derivation: the sum of
//! the payloads of its matching tuples (for a semijoin, its indicator).
//! The result is that value times the rest of the rule.
//!
//! Rather than teach every strategy a relation without columns, such an
//! atom reads its tuples through a local step that gives each of them one
//! computed column, always `true` (`LetKind::Nullary`): the derived
//! relation then holds at most one entry, whose payload is exactly the
//! nullary factor, and the atom binds one variable that no other atom
//! reads. Every strategy already maintains such an atom (a cross product
//! with a one-entry relation), with its bounds in explain.

use syn::Ident;

use crate::query::{ExprFactor, Let, LetKind, LocalStep, Query, Variable};

/// Gives each atom of `query` that binds no variable its single-valued
/// column.
pub fn bind(mut query: Query) -> Query {
    for i in 0..query.atoms.len() {
        if !query.atoms[i].vars.is_empty() {
            continue;
        }
        let atom = &query.atoms[i];
        let written = atom.local.as_ref().map_or(atom.relation, |l| l.source);
        let relation = query.relations[written].name.to_string().to_lowercase();
        let name = super::names::unused(&format!("nullary_{relation}"), |n| {
            query.variables.iter().any(|v| v.name == n)
        });
        let span = atom.span;
        let var = query.variables.len();
        query.variables.push(Variable {
            name: Ident::new(&name, span),
            ty: syn::parse_quote!(bool),
        });
        let atom = &mut query.atoms[i];
        let local = atom.local.get_or_insert_with(|| LocalStep {
            source: atom.relation,
            args: Vec::new(),
            lets: Vec::new(),
            factors: Vec::new(),
        });
        local.lets.push(Let {
            var,
            value: ExprFactor {
                expr: syn::parse_quote!(true),
                vars: Vec::new(),
                span,
            },
            kind: LetKind::Nullary,
        });
        atom.vars.push(var);
    }
    query
}
