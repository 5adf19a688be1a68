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

    /// A free-top variable order for a query that is not q-hierarchical
    /// (F-IVM's general case, for views over any query; papers/001 section
    /// 5 builds the q-hierarchical one): built by elimination, each
    /// connected part of the atoms left gets its own subtree under the
    /// variable picked last, and the variable picked in a part is a free
    /// one while the part has any (free variables on top), else the one in
    /// most of its atoms (ties: the lowest index).
    ///
    /// `None` for a query with theta factors (a view tree keeps views of
    /// single atoms, where their variables never meet), for an order where
    /// a free variable's subtree does not read every variable above it
    /// (its free level would not be keyed by the path to it, which
    /// enumeration walks), and for one where a change at some view could
    /// not find the entries it changes through the atoms beside it (see
    /// [`VariableOrder::dep`]).
    pub fn general(hg: &Hypergraph) -> Option<VariableOrder> {
        if hg.conditions != 0 {
            return None;
        }
        let mut order = VariableOrder {
            nodes: vec![OrderNode::default(); hg.var_count()],
            roots: Vec::new(),
        };
        order.place(hg, members_mask(hg.atoms.len()), 0, None);
        order.roots.sort_unstable();
        for node in &mut order.nodes {
            node.children.sort_unstable();
        }
        let present: Vec<usize> = (0..order.nodes.len())
            .filter(|&v| order.nodes[v].present)
            .collect();
        for &v in &present {
            let dep = order.dep(hg, v);
            let above = order.path_to_root(v)[1..]
                .iter()
                .fold(0, |m, &a| m | bit(a));
            if hg.free & bit(v) != 0 && dep != above {
                return None;
            }
            // Each factor of the view at `v` changes entries whose key it
            // does not fix: the atoms at `v` other than it must bind the
            // rest.
            let atoms_at = &order.nodes[v].atoms;
            let mut factor_keys: Vec<(Option<usize>, Mask)> = order.nodes[v]
                .children
                .iter()
                .map(|&c| (None, order.dep(hg, c)))
                .collect();
            factor_keys.extend(atoms_at.iter().map(|&a| (Some(a), hg.atoms[a])));
            for (own, key) in factor_keys {
                let others = atoms_at
                    .iter()
                    .filter(|&&a| Some(a) != own)
                    .fold(0, |m, &a| m | hg.atoms[a]);
                if !subset(dep & !key, others) {
                    return None;
                }
            }
        }
        Some(order)
    }

    /// Places the variables of `atoms` (a set of atoms whose variables
    /// outside `above` are still unplaced) below `parent`.
    fn place(&mut self, hg: &Hypergraph, atoms: Mask, above: Mask, parent: Option<usize>) {
        for part in components(hg, atoms, above) {
            let vars = members(part).fold(0, |m, a| m | hg.atoms[a]) & !above;
            let candidates = if vars & hg.free != 0 {
                vars & hg.free
            } else {
                vars
            };
            let x = members(candidates)
                .max_by_key(|&v| ((hg.at(v) & part).count_ones(), std::cmp::Reverse(v)))
                .expect("a part has variables");
            self.nodes[x].present = true;
            self.nodes[x].parent = parent;
            match parent {
                Some(p) => self.nodes[p].children.push(x),
                None => self.roots.push(x),
            }
            let here = above | bit(x);
            let (done, rest): (Vec<usize>, Vec<usize>) =
                members(part).partition(|&a| subset(hg.atoms[a], here));
            self.nodes[x].atoms.extend(done);
            let rest = rest.iter().fold(0, |m, &a| m | bit(a));
            self.place(hg, rest, here, Some(x));
        }
    }

    /// The variables above `var` that the atoms of its subtree read: the
    /// key of its view.
    pub fn dep(&self, hg: &Hypergraph, var: usize) -> Mask {
        let above = self.path_to_root(var)[1..]
            .iter()
            .fold(0, |m, &a| m | bit(a));
        self.subtree_atoms(var)
            .iter()
            .fold(0, |m, &a| m | hg.atoms[a])
            & above
    }

    /// The atoms hung at `var` or below it.
    pub fn subtree_atoms(&self, var: usize) -> Vec<usize> {
        let mut out = self.nodes[var].atoms.clone();
        for &c in &self.nodes[var].children {
            out.extend(self.subtree_atoms(c));
        }
        out
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

/// The connected parts of `atoms` (a mask), atoms joined through shared
/// variables outside `above`; each part in order of its first atom.
fn components(hg: &Hypergraph, atoms: Mask, above: Mask) -> Vec<Mask> {
    let mut parts: Vec<Mask> = Vec::new();
    for a in members(atoms) {
        let vars = hg.atoms[a] & !above;
        let (joined, apart): (Vec<Mask>, Vec<Mask>) = parts
            .into_iter()
            .partition(|&p| members(p).any(|b| hg.atoms[b] & !above & vars != 0));
        parts = apart;
        parts.push(joined.iter().fold(bit(a), |m, &p| m | p));
    }
    parts.sort_by_key(|p| p.trailing_zeros());
    parts
}

/// The mask of the first `n` indexes.
pub(crate) fn members_mask(n: usize) -> Mask {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}
