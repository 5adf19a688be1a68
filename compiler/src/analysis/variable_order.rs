//! Canonical free-top variable orders (papers/001 section 5.1): a forest
//! with one node per variable, each variable dominating the ones below it,
//! free variables on top, every atom's variables on one root-to-leaf path
//! and each atom hung below its lowest variable.
//!
//! Such an order exists exactly for q-hierarchical queries; the view-tree
//! strategy turns it into views, one per variable.

use super::hypergraph::{Hypergraph, Mask, bit, members, subset};

/// A variable order over some atoms of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariableOrder {
    /// One node per variable of the covered atoms, indexed by variable; the
    /// variables outside them have `present == false`.
    pub nodes: Vec<OrderNode>,
    /// The root variables, in increasing index order.
    pub roots: Vec<usize>,
}

/// A variable's place in a [`VariableOrder`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OrderNode {
    /// Whether the variable is part of this order.
    pub present: bool,
    /// The variable above it, if any.
    pub parent: Option<usize>,
    /// The variables directly below it, in increasing index order.
    pub children: Vec<usize>,
    /// The atoms whose lowest variable this is.
    pub atoms: Vec<usize>,
}

impl VariableOrder {
    /// The canonical free-top order of the whole query, if it is
    /// q-hierarchical (`None` otherwise).
    pub fn canonical(hg: &Hypergraph) -> Option<VariableOrder> {
        let all = members_mask(hg.atoms.len());
        VariableOrder::canonical_over(hg, all, hg.free)
    }

    /// The canonical free-top order of the subquery made of the atoms in
    /// `atoms`, with free variables `free`; `None` if that subquery is not
    /// q-hierarchical.
    pub fn canonical_over(hg: &Hypergraph, atoms: Mask, free: Mask) -> Option<VariableOrder> {
        let at = |v: usize| hg.at(v) & atoms;
        let vars = members(atoms).fold(0, |m, a| m | hg.atoms[a]);
        // Ties between variables with equal atom sets: free first, then by
        // index. `rank` is the position in that tie order.
        let rank = |v: usize| (free & bit(v) == 0, v);
        let above = |x: usize, y: usize| {
            let (ax, ay) = (at(x), at(y));
            x != y && subset(ay, ax) && (ax != ay || rank(x) < rank(y))
        };
        let mut nodes = vec![OrderNode::default(); hg.var_count()];
        for y in members(vars) {
            nodes[y].present = true;
            let candidates: Vec<usize> = members(vars).filter(|&x| above(x, y)).collect();
            // The ancestors form a chain; the parent is the lowest of them.
            let parent = candidates
                .iter()
                .copied()
                .find(|&p| candidates.iter().all(|&c| c == p || above(c, p)));
            if !candidates.is_empty() && parent.is_none() {
                return None;
            }
            // A free variable below a bound one breaks free-top.
            if let Some(p) = parent
                && free & bit(y) != 0
                && free & bit(p) == 0
            {
                return None;
            }
            nodes[y].parent = parent;
        }
        for y in members(vars) {
            if let Some(p) = nodes[y].parent {
                nodes[p].children.push(y);
            }
        }
        for a in members(atoms) {
            let vs: Vec<usize> = members(hg.atoms[a]).collect();
            // The atom's variables must be one chain; hang it below the
            // lowest.
            let lowest = vs
                .iter()
                .copied()
                .find(|&l| vs.iter().all(|&v| v == l || above(v, l)))?;
            nodes[lowest].atoms.push(a);
        }
        let roots = members(vars)
            .filter(|&v| nodes[v].parent.is_none())
            .collect();
        Some(VariableOrder { nodes, roots })
    }

    /// The variables from `var` up to its root, `var` first.
    pub fn path_to_root(&self, var: usize) -> Vec<usize> {
        let mut path = vec![var];
        let mut at = var;
        while let Some(p) = self.nodes[at].parent {
            path.push(p);
            at = p;
        }
        path
    }

    /// Checks the defining properties (used by tests): every atom's
    /// variables lie on the path from its node to the root, and each
    /// variable dominates its descendants.
    pub fn is_valid(&self, hg: &Hypergraph, atoms: Mask) -> bool {
        members(atoms).all(|a| {
            let Some(owner) = (0..self.nodes.len()).find(|&v| self.nodes[v].atoms.contains(&a))
            else {
                return false;
            };
            let path = self.path_to_root(owner).iter().fold(0, |m, &v| m | bit(v));
            path == hg.atoms[a]
        }) && (0..self.nodes.len())
            .filter(|&v| self.nodes[v].present)
            .all(|v| {
                self.nodes[v]
                    .parent
                    .is_none_or(|p| subset(hg.at(v) & atoms, hg.at(p) & atoms))
            })
    }
}

/// The mask of the first `n` indexes.
pub(crate) fn members_mask(n: usize) -> Mask {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}
