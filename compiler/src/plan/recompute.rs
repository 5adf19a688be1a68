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
use crate::ir::{Program, Reading, Recompute, Trigger, VarId};
use crate::query::Query;

/// Lowers any query to recompute on read.
pub fn lower(query: &Query, verdict: &Verdict) -> Program {
    let mut p = skeleton(query, verdict);
    let atoms: Vec<Vec<VarId>> = p.atoms.iter().map(|a| a.vars.clone()).collect();
    let all: Vec<VarId> = (0..p.vars.len()).collect();
    let steps = super::generic_join::binding_order(&atoms, None, &[], &all);
    p.triggers = (0..p.relations.len())
        .map(|relation| Trigger {
            relation,
            paths: Vec::new(),
        })
        .collect();
    let reading = Reading::Recompute(Recompute { steps });
    p.finish(reading)
}
