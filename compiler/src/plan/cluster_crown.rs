//! The max-max planner: free-connex queries without a q-core under inserts
//! over `MaxMax` (*Answering Conjunctive Queries with Aggregations under
//! Updates*, section 5.2, Theorem 22).
//!
//! Without a q-core, the atoms connected through bound variables (the
//! *clusters*) all hold the same free variables, and the query is the join
//! of the clusters' projections onto them. With ⊕ = ⊗ = max, an output
//! tuple's payload is the largest payload of any tuple that takes part in
//! a full result consistent with it, so per cluster it is enough to keep:
//!
//! - which tuples take part in a full result of the cluster's join: a
//!   Boolean question, answered under inserts along the cluster's join tree
//!   by an upward pass (a tuple is *live* once every child has a live tuple
//!   it agrees with) and a downward one (a live tuple *takes part* once its
//!   parent has a taking-part tuple it agrees with, or it is at the root).
//!   Each tuple turns live once and takes part once, so both passes are
//!   O(1) amortized;
//! - `best`: per value of the cluster's free variables, the largest payload
//!   of a taking-part tuple. A tuple raises it when it starts taking part,
//!   and whenever its payload grows afterwards: O(1).
//!
//! The supports of the `best` maps are the relations of the insert-only top
//! join ([`super::top_join`]), and an output tuple's payload is
//! the ⊗ (max) of the clusters' best payloads at it.

use proc_macro2::Span;
use syn::Ident;

use super::top_join::{self, TopRelation};
use crate::analysis::acyclicity::gyo;
use crate::analysis::hypergraph::members;
use crate::analysis::{Hypergraph, Mask};
use crate::ir::{
    AtomId, AtomPath, BestMap, ClusterNode, Draft, Factor, Id, PathBody, Program, Trigger, VarId,
    push_map,
};
use crate::plan::{Verdict, skeleton};
use crate::query::Query;

/// Lowers a free-connex query without a q-core; `None` when a cluster or
/// the top join has no join tree.
pub fn lower(query: &Query, clusters: &[Mask], verdict: &Verdict) -> Option<Program> {
    let hg = &Hypergraph::of(query);
    let mut p = skeleton(query, verdict);
    let mut node_of: Vec<Option<Id<ClusterNode>>> = vec![None; p.atoms.len()];
    let mut tops: Vec<TopRelation> = Vec::new();
    let mut bests: Vec<Id<BestMap>> = Vec::new();
    for &cluster in clusters {
        let atoms: Vec<usize> = members(cluster).collect();
        // Without a q-core every atom of the cluster holds the same free
        // variables.
        let free_mask = atoms.iter().fold(hg.free, |m, &a| m & hg.atoms[a]);
        let key: Vec<VarId> = members(free_mask).collect();
        let rels: Vec<String> = atoms
            .iter()
            .map(|&a| p.relations[p.atoms[a].relation].snake.clone())
            .collect();
        let labels: Vec<String> = atoms
            .iter()
            .map(|&a| format!("`{}`", p.atoms[a].label))
            .collect();
        // The cluster's join tree, rooted where GYO ends.
        let edges: Vec<u64> = atoms.iter().map(|&a| hg.atoms[a]).collect();
        let g = gyo(&edges);
        if !g.is_acyclic() {
            return None;
        }
        let root = g.residual.first().map(|&(e, _)| e)?;
        let n = atoms.len();
        let mut adjacent: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (c, q) in g.parent.iter().enumerate() {
            if let Some(q) = *q {
                adjacent[c].push(q);
                adjacent[q].push(c);
            }
        }
        let mut parent: Vec<Option<usize>> = vec![None; n];
        let mut preorder = vec![root];
        let mut seen = vec![false; n];
        seen[root] = true;
        let mut i = 0;
        while i < preorder.len() {
            let u = preorder[i];
            for &w in &adjacent[u] {
                if !seen[w] {
                    seen[w] = true;
                    parent[w] = Some(u);
                    preorder.push(w);
                }
            }
            i += 1;
        }
        let best_name = super::names::fresh_name(&p, &[], &format!("best_{}", rels[0]));
        let doc = format!(
            "For each ({}): the largest payload of a tuple of {} that takes part in a full result of their join. Grows only.",
            p.var_list(&key),
            labels.join(", ")
        );
        let name = Ident::new(&best_name, Span::call_site());
        // It feeds the top join node placed for it below.
        let best = push_map(&mut p.maps, name, doc, key.clone(), BestMap);
        let mut nodes: Vec<Id<ClusterNode>> = Vec::with_capacity(n);
        for &i in &preorder {
            let atom = atoms[i];
            let shared: Vec<VarId> = match parent[i] {
                Some(q) => p.atoms[atom]
                    .vars
                    .iter()
                    .copied()
                    .filter(|&v| hg.atoms[atoms[q]] & (1 << v) != 0)
                    .collect(),
                None => Vec::new(),
            };
            let node = cluster_node(&mut p, atom, parent[i].map(|q| atoms[q]), shared, best);
            node_of[atom] = Some(node);
            nodes.push(node);
        }
        // The links, once every node exists.
        let node_at = |i: usize| nodes[preorder.iter().position(|&x| x == i).expect("placed")];
        for &i in &preorder {
            let node = node_at(i);
            p.get_mut(node).parent = parent[i].map(node_at);
            p.get_mut(node).children = (0..n)
                .filter(|&c| parent[c] == Some(i))
                .map(node_at)
                .collect();
        }
        tops.push(TopRelation {
            name: format!("support_{}", rels[0]),
            doc: format!(
                "The ({}) values where `{best_name}` is non-zero, each added once; live once it joins with the relations below it.",
                p.var_list(&key)
            ),
            key,
            factors: vec![Factor::Map(best.map())],
        });
        bests.push(best);
    }
    let mut taken: Vec<String> = Vec::new();
    for t in &mut tops {
        t.name = super::names::fresh_name(&p, &taken, &t.name);
        taken.push(t.name.clone());
    }
    let (_, reading) = top_join::place(&mut p, tops)?;
    p.triggers = (0..p.relations.len())
        .map(|rel| Trigger {
            relation: rel,
            paths: (0..p.atoms.len())
                .filter(|&a| p.atoms[a].relation == rel)
                .map(|atom| AtomPath {
                    atom,
                    body: PathBody::Cluster(node_of[atom].expect("every atom is in a cluster")),
                })
                .collect(),
        })
        .collect();
    Some(p.finish(reading))
}

/// Adds the node of a cluster's atom (below the atom `above` in the
/// cluster's join tree, if any), not yet linked to the others.
fn cluster_node(
    p: &mut Draft,
    atom: AtomId,
    above: Option<AtomId>,
    shared: Vec<VarId>,
    best: Id<BestMap>,
) -> Id<ClusterNode> {
    let label = p.atoms[atom].label.clone();
    let name = super::names::fresh_name(
        p,
        &[],
        &format!("tuples_{}", p.relations[p.atoms[atom].relation].snake),
    );
    let place = match above {
        Some(q) => format!("below `{}` on ({})", p.atoms[q].label, p.var_list(&shared)),
        None => "at the root of the cluster's join tree".to_owned(),
    };
    let doc = format!(
        "The tuples of `{label}` ({place}): which join with the atoms below, and which take part in a full result of the cluster."
    );
    let node = ClusterNode {
        atom,
        parent: None,
        children: Vec::new(),
        shared,
        best,
    };
    let key = p.atoms[atom].vars.clone();
    push_map(
        &mut p.maps,
        Ident::new(&name, Span::call_site()),
        doc,
        key,
        node,
    )
}
