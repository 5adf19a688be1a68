//! α-acyclicity by the GYO reduction, free-connex acyclicity, and the join
//! trees both produce.
//!
//! GYO repeatedly drops a variable that occurs in one edge only and an edge
//! contained in another; the hypergraph is α-acyclic exactly when this
//! empties it. Recording, for each dropped edge, the edge that contained it
//! yields a join tree.

use super::hypergraph::{Hypergraph, Mask, bit, members, subset};

/// What the GYO reduction leaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gyo {
    /// For each edge, the edge it was folded into (its join-tree parent);
    /// `None` for the last edge standing and for edges still in `residual`.
    pub parent: Vec<Option<usize>>,
    /// The edges left when no rule applies, with the variables they still
    /// hold. Empty (or one edge with no variables) when acyclic.
    pub residual: Vec<(usize, Mask)>,
}

impl Gyo {
    /// Whether the reduction emptied the hypergraph.
    pub fn is_acyclic(&self) -> bool {
        self.residual.iter().all(|&(_, vars)| vars == 0)
    }

    /// The variables still standing, when cyclic.
    pub fn residual_vars(&self) -> Mask {
        self.residual.iter().fold(0, |m, &(_, v)| m | v)
    }

    /// The edges still standing, when cyclic.
    pub fn residual_edges(&self) -> Mask {
        self.residual.iter().fold(0, |m, &(e, _)| m | bit(e))
    }
}

/// Runs the GYO reduction on a list of edges (variable masks).
///
/// Deterministic: among applicable steps the lowest index goes first, so
/// witnesses and join trees do not depend on hash order.
pub fn gyo(edges: &[Mask]) -> Gyo {
    let mut alive: Vec<(usize, Mask)> = edges.iter().copied().enumerate().collect();
    let mut parent = vec![None; edges.len()];
    loop {
        let mut changed = false;
        // Drop variables that occur in one remaining edge only.
        let all = alive.iter().fold(0, |m, &(_, v)| m | v);
        for v in members(all) {
            let holders: Vec<usize> = (0..alive.len())
                .filter(|&i| alive[i].1 & bit(v) != 0)
                .collect();
            if holders.len() == 1 {
                alive[holders[0]].1 &= !bit(v);
                changed = true;
            }
        }
        // Drop one edge contained in another (an empty edge is contained in
        // any other, which joins disconnected components into one tree).
        'outer: for i in 0..alive.len() {
            for j in 0..alive.len() {
                if i != j && subset(alive[i].1, alive[j].1) {
                    parent[alive[i].0] = Some(alive[j].0);
                    alive.remove(i);
                    changed = true;
                    break 'outer;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let acyclic = alive.iter().all(|&(_, v)| v == 0);
    if !acyclic {
        // Edges folded away before the reduction got stuck are not part of
        // the witness, but their parent pointers are meaningless without a
        // root: clear them so no one mistakes them for a join tree.
        parent.iter_mut().for_each(|p| *p = None);
    }
    Gyo {
        parent,
        residual: alive,
    }
}

/// Whether the hypergraph is α-acyclic.
pub fn is_acyclic(hg: &Hypergraph) -> bool {
    gyo(&hg.atoms).is_acyclic()
}

/// The edges of the hypergraph with one extra edge over the free variables
/// (index `atoms.len()`), the test for free-connexity.
pub fn with_head(hg: &Hypergraph) -> Vec<Mask> {
    let mut edges = hg.atoms.clone();
    edges.push(hg.free);
    edges
}

/// A rooted tree over the atoms (and, for free-connex trees, the head), such
/// that the atoms containing any variable form a connected subtree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinTree {
    /// The nodes: an atom index, or `None` for the head node over the free
    /// variables.
    pub nodes: Vec<JoinNode>,
    /// The index of the root node.
    pub root: usize,
}

/// A node of a [`JoinTree`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinNode {
    /// The atom this node stands for, or `None` for the head.
    pub atom: Option<usize>,
    /// The node's variables.
    pub vars: Mask,
    /// The parent node, `None` at the root.
    pub parent: Option<usize>,
    /// The child nodes, in increasing order.
    pub children: Vec<usize>,
}

impl JoinTree {
    /// Builds a join tree from GYO parent pointers, rooted at `root`.
    fn from_gyo(edges: &[Mask], gyo: &Gyo, atoms: usize, root: usize) -> JoinTree {
        let n = edges.len();
        let mut adjacent: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (child, p) in gyo.parent.iter().enumerate() {
            if let Some(p) = *p {
                adjacent[child].push(p);
                adjacent[p].push(child);
            }
        }
        let mut nodes: Vec<JoinNode> = (0..n)
            .map(|i| JoinNode {
                atom: (i < atoms).then_some(i),
                vars: edges[i],
                parent: None,
                children: Vec::new(),
            })
            .collect();
        let mut seen = vec![false; n];
        let mut stack = vec![root];
        seen[root] = true;
        while let Some(u) = stack.pop() {
            let mut next: Vec<usize> = adjacent[u].iter().copied().filter(|&w| !seen[w]).collect();
            next.sort_unstable();
            for &w in &next {
                seen[w] = true;
                nodes[w].parent = Some(u);
                stack.push(w);
            }
            nodes[u].children = next;
        }
        JoinTree { nodes, root }
    }

    /// A join tree of an α-acyclic query, rooted at the atom GYO kept last.
    pub fn of_acyclic(hg: &Hypergraph) -> Option<JoinTree> {
        let g = gyo(&hg.atoms);
        if !g.is_acyclic() || hg.atoms.is_empty() {
            return None;
        }
        let root = g.residual.first().map(|&(e, _)| e)?;
        Some(JoinTree::from_gyo(&hg.atoms, &g, hg.atoms.len(), root))
    }

    /// A free-connex join tree: a join tree of the atoms plus a head node
    /// over the free variables, rooted at the head, so the free variables
    /// sit in a connected part around the root. `None` if the query is not
    /// free-connex.
    pub fn free_connex(hg: &Hypergraph) -> Option<JoinTree> {
        if !is_acyclic(hg) {
            return None;
        }
        let edges = with_head(hg);
        let g = gyo(&edges);
        if !g.is_acyclic() {
            return None;
        }
        Some(JoinTree::from_gyo(
            &edges,
            &g,
            hg.atoms.len(),
            hg.atoms.len(),
        ))
    }

    /// Checks the running-intersection property (used by tests).
    pub fn is_valid(&self) -> bool {
        let all = self.nodes.iter().fold(0, |m, n| m | n.vars);
        members(all).all(|v| {
            let holders: Vec<usize> = (0..self.nodes.len())
                .filter(|&i| self.nodes[i].vars & bit(v) != 0)
                .collect();
            // Connected iff exactly one holder has a parent outside the set.
            holders
                .iter()
                .filter(|&&i| match self.nodes[i].parent {
                    Some(p) => self.nodes[p].vars & bit(v) == 0,
                    None => true,
                })
                .count()
                == 1
        })
    }
}
