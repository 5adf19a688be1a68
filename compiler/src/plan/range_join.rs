//! The range-join planner: the two-atom inequality join
//! `Q() = R(.., x, ..) * S(.., y, ..) * { x < y }` with each side's payloads
//! summed by its compared variable in a range-sum trie
//! (`ivm::__private::RangeSums`). An update to one side multiplies its
//! change by the other side's sum beyond its key (one walk down the trie,
//! O(log U) for keys of U values) into the materialized result, then adds
//! its change to its own side: no scan of the other atom, where the
//! first-order delta would visit every tuple it joins.

use proc_macro2::Span;
use syn::Ident;

use super::Verdict;
use super::names::snake_case;
use super::skeleton::skeleton;
use crate::analysis::InequalityJoin;
use crate::ir::{
    PathBody, Program, RangeStep, RangeSums, Reading, RelId, ResultMap, Trigger, push_map,
};
use crate::query::Query;

/// Lowers an inequality join.
pub fn lower(query: &Query, join: &InequalityJoin, verdict: &Verdict) -> Program {
    let mut p = skeleton(query, verdict);
    let op = if join.strict { "<" } else { "<=" };
    let (x, y) = (&p.vars[join.vars[0]].name, &p.vars[join.vars[1]].name);
    let result = push_map(
        &mut p.maps,
        Ident::new("result", Span::call_site()),
        format!(
            "The result: the ⊕ over pairs of `{}` and `{}` tuples with `{x} {op} {y}` of the product of their payloads.",
            p.atoms[join.atoms[0]].label, p.atoms[join.atoms[1]].label
        ),
        Vec::new(),
        ResultMap,
    );
    let sides = [0, 1].map(|i| {
        let (atom, var) = (join.atoms[i], join.vars[i]);
        let relation = &p.relations[p.atoms[atom].relation];
        let var_name = &p.vars[var].name;
        let name = Ident::new(
            &format!("{}_by_{}", snake_case(&relation.name.to_string()), var_name),
            Span::call_site(),
        );
        let doc = format!(
            "The payloads of `{}` summed by `{var_name}`, with the sums below and above any value.",
            p.atoms[atom].label
        );
        push_map(&mut p.maps, name, doc, vec![var], RangeSums { atom, var })
    });
    let factors = super::nullary::views(&mut p, join.factors);
    let reading = Reading::Result {
        map: result,
        scalars: factors.iter().map(|&(_, view)| view).collect(),
    };
    let relation_of: Vec<RelId> = p.atoms.iter().map(|a| a.relation).collect();
    p.triggers = Trigger::per_relation(p.relations.len(), &relation_of, |atom, _, _| {
        if let Some(&(_, view)) = factors.iter().find(|&&(a, _)| a == atom) {
            return super::nullary::path(view, atom);
        }
        let i = usize::from(join.atoms[1] == atom);
        PathBody::Range(RangeStep {
            own: sides[i],
            other: sides[1 - i],
            result,
            smaller: i == 0,
            strict: join.strict,
        })
    });
    p.finish(reading)
}
