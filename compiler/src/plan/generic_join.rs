//! The binding order of a generic join (worst-case-optimal join): the
//! variables one at a time, each bound by intersecting the candidate lists
//! of the relations that hold it, every list keyed by that relation's
//! variables bound before.
//!
//! Used by the recompute strategy (all variables, over the atoms) and by
//! the materialized top join of cyclic two-layer queries (the variables a
//! new support value does not fix, over the other supports).

use crate::ir::{Candidates, VarId};

/// Binds `vars` after `fixed`, over relations with the given variables
/// (`skip` names one left out, the relation whose new tuple fixes
/// `fixed`). Each step is a variable with its candidate lists: a relation
/// that holds it, and that relation's variables bound before it.
///
/// The next variable is the one held by the most relations that already
/// share a bound variable, then by the most relations: the tightest
/// intersection first. Ties go to the lowest variable, so the order is
/// deterministic.
pub fn binding_order(
    relations: &[Vec<VarId>],
    skip: Option<usize>,
    fixed: &[VarId],
    vars: &[VarId],
) -> Vec<(VarId, Vec<Candidates>)> {
    let others: Vec<usize> = (0..relations.len()).filter(|&r| Some(r) != skip).collect();
    let mut bound: Vec<VarId> = fixed.to_vec();
    let mut rest: Vec<VarId> = vars
        .iter()
        .copied()
        .filter(|v| !bound.contains(v))
        .collect();
    let mut steps = Vec::new();
    while !rest.is_empty() {
        let (pos, &v) = rest
            .iter()
            .enumerate()
            .max_by_key(|&(_, &v)| {
                let holders = others.iter().filter(|&&r| relations[r].contains(&v));
                let tied = holders
                    .clone()
                    .filter(|&&r| relations[r].iter().any(|w| bound.contains(w)))
                    .count();
                (tied, holders.count(), std::cmp::Reverse(v))
            })
            .expect("non-empty");
        rest.remove(pos);
        let sources: Vec<Candidates> = others
            .iter()
            .filter(|&&r| relations[r].contains(&v))
            .map(|&r| {
                let key: Vec<VarId> = relations[r]
                    .iter()
                    .copied()
                    .filter(|w| bound.contains(w))
                    .collect();
                (r, key)
            })
            .collect();
        bound.push(v);
        steps.push((v, sources));
    }
    steps
}
