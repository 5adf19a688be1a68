//! Atoms with a local step (`docs/design.md#local-steps-and-theta-factors`)
//! lowered to plain atoms over derived relations.
//!
//! An atom with constants, `_`, a repeated variable or factors of its own
//! reads its relation through a local step: a tuple enters the atom if it
//! matches the constants and repeated columns, with its payload times the
//! atom's factors, projected on the atom's variables. That is a relation of
//! its own, the atom's *derived relation*, whose columns are the atom's
//! variables; the atom reads it as a plain atom. So the analysis, the
//! verdict and every strategy see the query they already handle, and only
//! the relation's update path feeds the derived relation (`ir::PathBody::
//! Feed`).

use syn::Ident;

use crate::query::{Arg, Column, DeleteCheck, ExprFactor, LocalStep, Origin, Query, Relation};

/// Places each factor on its atom (the first that holds all its variables,
/// found by the checker; a factor with none is a theta factor of the
/// query) and gives every atom with a local step its derived relation.
pub fn derive(mut query: Query, factors: Vec<(Option<usize>, ExprFactor)>) -> Query {
    for (home, factor) in factors {
        let Some(home) = home else {
            query.theta.push(factor);
            continue;
        };
        let atom = &mut query.atoms[home];
        let local = atom.local.get_or_insert_with(|| LocalStep {
            source: atom.relation,
            args: atom.vars.iter().map(|&v| Arg::Var(v)).collect(),
            lets: Vec::new(),
            factors: Vec::new(),
        });
        local.factors.push(factor);
    }
    // A variable that only this atom and its factors read is summed out in
    // the local step, as `_` is: it is no part of the derived relation.
    for i in 0..query.atoms.len() {
        if query.atoms[i].local.is_none() {
            continue;
        }
        let read_elsewhere = |v: usize| {
            query.head.contains(&v)
                || query.theta.iter().any(|f| f.vars.contains(&v))
                || query
                    .atoms
                    .iter()
                    .enumerate()
                    .any(|(j, a)| j != i && a.vars.contains(&v))
        };
        let kept: Vec<usize> = query.atoms[i]
            .vars
            .iter()
            .copied()
            .filter(|&v| read_elsewhere(v))
            .collect();
        // An atom whose variables nothing else reads (`Q() = R(x, _) *
        // {..}`) keeps its first one: the derived relation then has one
        // column, not none, and the root sums over it.
        if kept.is_empty() {
            query.atoms[i].vars.truncate(1);
        } else {
            query.atoms[i].vars = kept;
        }
    }
    for i in 0..query.atoms.len() {
        let Some(local) = &query.atoms[i].local else {
            continue;
        };
        let source = &query.relations[local.source];
        // `R` read by atom 2 is `R2`; `Exists1` (a semijoin's) is `Exists1_2`.
        let glue = if source
            .name
            .to_string()
            .ends_with(|c: char| c.is_ascii_digit())
        {
            "_"
        } else {
            ""
        };
        let base = format!("{}{glue}{}", source.name, i + 1);
        let name = super::names::unused(&base, |n| query.relations.iter().any(|r| r.name == n));
        let mut docs = vec![format!(
            " The tuples of `{}` that enter `{}`",
            source.name,
            query.atom_label(i)
        )];
        for l in &local.lets {
            docs.push(format!(" with `{}`", query.let_text(l)));
        }
        for f in &local.factors {
            docs.push(format!(" times `{}`", f.text()));
        }
        let relation = Relation {
            name: Ident::new(&name, source.name.span()),
            docs,
            columns: query.atoms[i]
                .vars
                .iter()
                .map(|&v| Column {
                    name: query.variables[v].name.clone(),
                    ty: query.variables[v].ty.clone(),
                })
                .collect(),
            origin: Origin::Local(i),
            check: DeleteCheck::Own,
            keys: Vec::new(),
        };
        query.relations.push(relation);
        query.atoms[i].relation = query.relations.len() - 1;
    }
    query
}
