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
use crate::ir::{
    Draft, Extension, Factor, Id, JoinNode, JoinedMap, Map, MapId, MapKind, Reading, Support,
    TopDelta, VarId, push_map,
};

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

impl TopRelation {
    /// The relation's map, of the kind `kind` makes from its factors.
    fn into_map(self, kind: impl FnOnce(Vec<Factor>) -> MapKind) -> Map {
        Map {
            name: Ident::new(&self.name, Span::call_site()),
            doc: self.doc,
            key: self.key,
            kind: kind(self.factors),
        }
    }

    /// Adds the relation as a node of the acyclic top join, not yet linked
    /// to the others.
    fn push_node(self, p: &mut Draft, shared: Vec<VarId>) -> Id<JoinNode> {
        let name = Ident::new(&self.name, Span::call_site());
        let node = JoinNode {
            factors: self.factors,
            parent: None,
            children: Vec::new(),
            shared,
        };
        push_map(&mut p.maps, name, self.doc, self.key, node)
    }
}

/// Adds the top join's maps to `p` and sets `p.reading`. Returns the map
/// of each relation, in the order given, or `None` when the relations'
/// keys form a cyclic hypergraph (no join tree exists).
pub fn place(p: &mut Draft, relations: Vec<TopRelation>) -> Option<(Vec<Id<JoinNode>>, Reading)> {
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
    let mut nodes = Vec::with_capacity(n);
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
        nodes.push(r.push_node(p, shared));
    }
    // The links, once every node exists (children in map order).
    for (i, &node) in nodes.iter().enumerate() {
        p.get_mut(node).parent = parent[i].map(|q| nodes[q]);
        p.get_mut(node).children = (0..n)
            .filter(|&c| parent[c] == Some(i))
            .map(|c| nodes[c])
            .collect();
    }
    let reading = Reading::TopJoin(preorder.into_iter().map(|i| nodes[i]).collect());
    Some((nodes, reading))
}

/// The top join for relations whose keys form a cyclic hypergraph (two
/// layers over a cyclic p-hierarchical query): the join is materialized.
/// Each relation is a `Support` set; when a value arrives, a generic join
/// binds the other variables one at a time, intersecting the candidate
/// lists of the relations that hold each (walking the shortest), and adds
/// every result the value completes. A result is added exactly once: when
/// the last of its relations' values arrives.
///
/// Each delta costs at most the AGM bound of the other relations with the
/// value's variables fixed, and by the query decomposition lemma these add
/// up to O(N^ρ*) over a whole sequence of inserts (ρ* the fractional edge
/// cover number of the keys' hypergraph): O(N^(ρ*−1)) amortized, O(√N) for
/// triangle listing.
///
/// Returns the map of each relation, in the order given; sets
/// `p.reading`.
pub fn materialize(
    p: &mut Draft,
    relations: Vec<TopRelation>,
    head: &[VarId],
) -> (Vec<MapId>, Reading) {
    let n = relations.len();
    let first = p.maps.len();
    let keys: Vec<Vec<VarId>> = relations.iter().map(|r| r.key.clone()).collect();
    // The joined map comes right after the supports.
    let joined = first + n;
    for r in relations {
        p.maps.push(r.into_map(|factors| {
            MapKind::Support(Support {
                factors,
                // Its checks and steps follow once the extension indexes
                // exist.
                delta: TopDelta {
                    checks: Vec::new(),
                    steps: Vec::new(),
                    joined,
                },
            })
        }));
    }
    assert_eq!(p.maps.len(), joined, "the supports come first");
    p.maps.push(Map {
        name: Ident::new(&super::names::fresh_name(p, &[], "joined"), Span::call_site()),
        doc: format!(
            "The join of the supports, materialized: each ({}) tuple, added once, when the last of its supports' values arrives.",
            p.var_list(head)
        ),
        key: head.to_vec(),
        kind: MapKind::Joined(JoinedMap),
    });
    for j in 0..n {
        let checks: Vec<MapId> = (0..n)
            .filter(|&l| l != j && keys[l].iter().all(|v| keys[j].contains(v)))
            .map(|l| first + l)
            .collect();
        let steps = super::generic_join::binding_order(&keys, Some(j), &keys[j], head)
            .into_iter()
            .map(|(v, sources)| {
                let lists = sources
                    .into_iter()
                    .map(|(l, key)| extension(p, first + l, key, v))
                    .collect();
                (v, lists)
            })
            .collect();
        if let MapKind::Support(Support { delta, .. }) = &mut p.maps[first + j].kind {
            delta.checks = checks;
            delta.steps = steps;
        }
    }
    ((0..n).map(|l| first + l).collect(), Reading::Joined(joined))
}

/// The extension index of `support` from `key` to `var`, added if new.
fn extension(p: &mut Draft, support: MapId, key: Vec<VarId>, var: VarId) -> MapId {
    if let Some(m) = p.maps.iter().position(|m| {
        matches!(m.kind, MapKind::Extension(Extension { support: s, var: v }) if s == support && v == var)
            && m.key == key
    }) {
        return m;
    }
    let base = format!(
        "{}_{}_by_{}",
        p.maps[support].name,
        p.vars[var].name,
        if key.is_empty() {
            "nothing".to_owned()
        } else {
            key.iter()
                .map(|&v| p.vars[v].name.to_string())
                .collect::<Vec<_>>()
                .join("_")
        }
    );
    let name = super::names::fresh_name(p, &[], &base);
    let doc = format!(
        "For each ({}): the values of `{}` that extend it to a value of `{}`.",
        p.var_list(&key),
        p.vars[var].name,
        p.maps[support].name
    );
    p.maps.push(Map {
        name: Ident::new(&name, Span::call_site()),
        doc,
        key,
        kind: MapKind::Extension(Extension { support, var }),
    });
    p.maps.len() - 1
}
