//! The decomposition of a p-hierarchical query into free-dominated
//! q-hierarchical subqueries (*The Role of Semirings in Incremental View
//! Maintenance*, Proposition 12 and Algorithm 1).
//!
//! Atoms that share a bound variable belong to one subquery; an atom with
//! no bound variable is a subquery of its own. In a p-hierarchical query
//! each such group is free-dominated (its free variables occur in all its
//! atoms) and q-hierarchical, and the query is the join of the groups'
//! results over their free variables: the bottom layer of the two-layer
//! strategy.

use super::hypergraph::{Hypergraph, Mask, bit, members};
use super::variable_order::VariableOrder;

/// One free-dominated q-hierarchical subquery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subquery {
    /// Its atoms.
    pub atoms: Mask,
    /// Its free variables (the schema of its root view).
    pub free: Mask,
    /// Its bound variables, summed out inside the subquery.
    pub bound: Mask,
    /// Its canonical variable order.
    pub order: VariableOrder,
}

/// The groups of atoms connected through bound variables (*Answering
/// Conjunctive Queries with Aggregations under Updates* calls them
/// clusters), each as a mask of atoms, in order of their first atom.
pub fn clusters(hg: &Hypergraph) -> Vec<Mask> {
    let n = hg.atoms.len();
    let bound = hg.bound();
    let mut group: Vec<usize> = (0..n).collect();
    fn find(group: &mut [usize], i: usize) -> usize {
        if group[i] != i {
            let root = find(group, group[i]);
            group[i] = root;
        }
        group[i]
    }
    for v in members(bound) {
        let holders: Vec<usize> = members(hg.at(v)).collect();
        for w in holders.windows(2) {
            let (a, b) = (find(&mut group, w[0]), find(&mut group, w[1]));
            group[a.max(b)] = a.min(b);
        }
    }
    let leader: Vec<usize> = (0..n).map(|i| find(&mut group, i)).collect();
    (0..n)
        .filter(|&i| leader[i] == i)
        .map(|i| {
            (0..n)
                .filter(|&j| leader[j] == i)
                .fold(0, |m, j| m | bit(j))
        })
        .collect()
}

/// Splits the query into groups of atoms connected through bound variables.
///
/// Returns `None` when a group is not a free-dominated q-hierarchical
/// subquery, which happens exactly when the query is not p-hierarchical.
pub fn decompose(hg: &Hypergraph) -> Option<Vec<Subquery>> {
    let bound = hg.bound();
    let mut out: Vec<Subquery> = Vec::new();
    for atoms in clusters(hg) {
        let vars = members(atoms).fold(0, |m, a| m | hg.atoms[a]);
        let free = vars & hg.free;
        // Free-dominated: every free variable occurs in every atom.
        if members(atoms).any(|a| hg.atoms[a] & free != free) {
            return None;
        }
        let order = VariableOrder::canonical_over(hg, atoms, free)?;
        out.push(Subquery {
            atoms,
            free,
            bound: vars & bound,
            order,
        });
    }
    Some(out)
}
