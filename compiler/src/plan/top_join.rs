//! The insert-only top join shared by the two-layer and CROWN planners:
//! given the Boolean relations the lower layer produces (each over free
//! variables only), arrange them in a join tree and add one `Join` map per
//! relation.
//!
//! The join tree comes from the GYO reduction over the relations' key
//! sets. A relation whose key is contained in another's folds into it, so
//! relations with equal keys, or with an empty key (a nullary subquery),
//! become children that are looked up, not walked.

use proc_macro2::Span;
use syn::Ident;

use crate::analysis::acyclicity::gyo;
use crate::ir::{Factor, Map, MapId, MapKind, Program, VarId};

/// One relation of the top join, before it is placed in the tree.
pub struct TopRelation {
    /// The field name.
    pub name: String,
    /// What it holds, for the field's doc comment.
    pub doc: String,
    /// Its key: free variables, in the order its factors are keyed by.
    pub key: Vec<VarId>,
    /// The factors whose product is the payload at a key value.
    pub factors: Vec<Factor>,
}

/// Adds the top join's maps to `p` and sets `p.output.top`. Returns the map
/// of each relation, in the order given, or `None` when the relations'
/// keys form a cyclic hypergraph (no join tree exists).
pub fn place(p: &mut Program, relations: Vec<TopRelation>) -> Option<Vec<MapId>> {
    let masks: Vec<u64> = relations
        .iter()
        .map(|r| r.key.iter().fold(0u64, |m, &v| m | (1 << v)))
        .collect();
    let g = gyo(&masks);
    if !g.is_acyclic() {
        return None;
    }
    let root = g.residual.first().map(|&(e, _)| e)?;
    // Undirected tree edges, re-rooted at the relation GYO kept last.
    let n = relations.len();
    let mut adjacent: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (child, parent) in g.parent.iter().enumerate() {
        if let Some(parent) = *parent {
            adjacent[child].push(parent);
            adjacent[parent].push(child);
        }
    }
    let mut parent: Vec<Option<usize>> = vec![None; n];
    let mut preorder = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack = vec![root];
    seen[root] = true;
    while let Some(u) = stack.pop() {
        preorder.push(u);
        let mut next: Vec<usize> = adjacent[u].iter().copied().filter(|&w| !seen[w]).collect();
        next.sort_unstable();
        for &w in next.iter().rev() {
            seen[w] = true;
            parent[w] = Some(u);
            stack.push(w);
        }
    }
    if preorder.len() != n {
        return None;
    }
    let first = p.maps.len();
    let map_of = |i: usize| first + i;
    for (i, r) in relations.into_iter().enumerate() {
        let shared: Vec<VarId> = match parent[i] {
            Some(q) => r
                .key
                .iter()
                .copied()
                .filter(|&v| masks[q] & (1 << v) != 0)
                .collect(),
            None => Vec::new(),
        };
        let mut children: Vec<MapId> = (0..n)
            .filter(|&c| parent[c] == Some(i))
            .map(map_of)
            .collect();
        children.sort_unstable();
        p.maps.push(Map {
            name: Ident::new(&r.name, Span::call_site()),
            doc: r.doc,
            key: r.key,
            kind: MapKind::Join {
                factors: r.factors,
                parent: parent[i].map(map_of),
                children,
                shared,
            },
        });
    }
    p.output.top = preorder.into_iter().map(map_of).collect();
    Some((0..n).map(map_of).collect())
}

/// A field name not used by any map of `p` yet: `base`, or `base_2`, ...
pub fn fresh_name(p: &Program, taken: &[String], base: &str) -> String {
    let used = |s: &str| p.maps.iter().any(|m| m.name == s) || taken.iter().any(|t| t == s);
    if !used(base) {
        return base.to_owned();
    }
    (2..)
        .map(|i| format!("{base}_{i}"))
        .find(|s| !used(s))
        .expect("some suffix is free")
}
