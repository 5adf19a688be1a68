//! The recompute baseline (`#[strategy(recompute)]`): updates only store
//! the tuple; reading the result evaluates the query from scratch with a
//! worst-case-optimal join (generic join).
//!
//! The evaluation picks one order of all the query's variables. For each
//! atom and each of its variables it builds, from the atom's relation, the
//! list of values of that variable that extend each value of the atom's
//! earlier variables. It then binds the variables one at a time, walking
//! the shortest of the candidate lists of the atoms that hold the variable
//! and checking the value in the others. The work is bounded by the AGM
//! bound of the query, O(N^ρ*), plus the O(N) to build the lists; each
//! derivation found adds its payload to its head tuple.

use super::Verdict;
use super::skeleton::skeleton;
use crate::ir::{Program, Recompute, Trigger, VarId};
use crate::query::Query;

/// Lowers any query to recompute on read.
pub fn lower(query: &Query, verdict: &Verdict) -> Program {
    let mut p = skeleton(query, verdict);
    let n = p.atoms.len();
    let mut bound: Vec<VarId> = Vec::new();
    let mut rest: Vec<VarId> = (0..p.vars.len()).collect();
    let mut steps = Vec::new();
    while !rest.is_empty() {
        // Next: the variable held by the most atoms that already share a
        // bound variable, then by the most atoms (the tightest
        // intersection first).
        let (pos, &v) = rest
            .iter()
            .enumerate()
            .max_by_key(|&(_, &v)| {
                let holders = (0..n).filter(|&a| p.atoms[a].vars.contains(&v));
                let tied = holders
                    .clone()
                    .filter(|&a| p.atoms[a].vars.iter().any(|w| bound.contains(w)))
                    .count();
                (tied, holders.count(), std::cmp::Reverse(v))
            })
            .expect("non-empty");
        rest.remove(pos);
        let sources: Vec<(usize, Vec<VarId>)> = (0..n)
            .filter(|&a| p.atoms[a].vars.contains(&v))
            .map(|a| {
                let key: Vec<VarId> = p.atoms[a]
                    .vars
                    .iter()
                    .copied()
                    .filter(|w| bound.contains(w))
                    .collect();
                (a, key)
            })
            .collect();
        bound.push(v);
        steps.push((v, sources));
    }
    p.triggers = (0..p.relations.len())
        .map(|relation| Trigger {
            relation,
            paths: Vec::new(),
        })
        .collect();
    p.output.recompute = Some(Recompute { steps });
    p
}
