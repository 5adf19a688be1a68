//! The two-layer planner for p-hierarchical queries under inserts
//! (*The Role of Semirings in Incremental View Maintenance*, section 5;
//! *Answering Conjunctive Queries with Aggregations under Updates*, section
//! 5.1, Lemma 20).
//!
//! A p-hierarchical query splits into free-dominated q-hierarchical
//! subqueries: the atoms connected through bound variables, whose free
//! variables occur in every one of their atoms (`analysis::decomposition`).
//!
//! - **Bottom layer.** Each subquery's bound variables get `Sum` views over
//!   its canonical variable order, exactly as in a view tree; the
//!   subquery's payload at a value of its free variables is the product of
//!   its bound roots' views and of the atoms over its free variables only.
//! - **Top layer.** Each subquery's support (the values where that payload
//!   is non-zero) is a relation of the insert-only top join
//!   ([`super::top_join`]). Over a positive semiring a non-zero
//!   payload stays non-zero under inserts, so a value crosses once.
//!
//! The result is the join of the supports, each output tuple's payload the
//! product of the subqueries' payloads at it, looked up when it is read: an
//! update that changes a payload without changing a support stops in the
//! bottom layer. Every step is O(1) amortized, and enumeration has constant
//! delay, for α-acyclic queries, where the supports' keys form an acyclic
//! hypergraph. When they form a cyclic one (triangle listing), the top join
//! is materialized with worst-case-optimal delta joins
//! ([`top_join::materialize`]): O(N^(ρ*−1)) amortized, still O(1) delay.

use proc_macro2::Span;
use syn::Ident;

use super::top_join::{self, TopRelation};
use crate::analysis::Subquery;
use crate::analysis::hypergraph::members;
use crate::ir::{
    Draft, Factor, Map, MapId, MapKind, PathBody, Program, RelId, Step, SumView, Trigger, VarId,
};
use crate::plan::{Verdict, skeleton};
use crate::query::Query;

/// Lowers a p-hierarchical query, decomposed into `subqueries`, to two
/// layers, materializing the top join when it is `cyclic`; `None` when an
/// acyclic top join has no join tree.
pub fn lower(
    query: &Query,
    subqueries: &[Subquery],
    cyclic: bool,
    verdict: &Verdict,
) -> Option<Program> {
    let mut p = skeleton(query, verdict);
    let mut map_of: Vec<Option<MapId>> = vec![None; p.vars.len()];
    // Per subquery: the key of its support, its factors, and where each of
    // its atoms hangs (a bound variable, or the support itself).
    let mut tops: Vec<TopRelation> = Vec::new();
    let mut hang: Vec<Option<VarId>> = vec![None; p.atoms.len()];
    let mut component_of: Vec<usize> = vec![0; p.atoms.len()];
    for (c, sub) in subqueries.iter().enumerate() {
        let order = &sub.order;
        // The free variables form a chain at the top of the order; the
        // support is keyed by them, root first.
        let mut key: Vec<VarId> = Vec::new();
        let mut at = order.roots.iter().copied().find(|&r| query.is_free(r));
        while let Some(v) = at {
            key.push(v);
            at = order.nodes[v]
                .children
                .iter()
                .copied()
                .find(|&c| query.is_free(c));
        }
        let bound_roots: Vec<VarId> = match key.last() {
            Some(&lowest) => order.nodes[lowest].children.clone(),
            None => order.roots.clone(),
        };
        // Views of the bound variables, children before parents.
        let mut post = Vec::new();
        for &r in &bound_roots {
            post_order(order, r, &mut post);
        }
        for &v in &post {
            let node = &order.nodes[v];
            let mut ancestors = order.path_to_root(v);
            ancestors.remove(0);
            ancestors.reverse();
            let mut factors: Vec<Factor> = node
                .children
                .iter()
                .map(|&c| Factor::Map(map_of[c].expect("children first")))
                .collect();
            factors.extend(node.atoms.iter().map(|&a| Factor::Atom(a)));
            for &a in &node.atoms {
                hang[a] = Some(v);
            }
            let product = labels(&p, &factors);
            let name = p.vars[v].name.to_string();
            let above = p.var_list(&ancestors);
            map_of[v] = Some(p.maps.len());
            p.maps.push(Map {
                name: Ident::new(&format!("sum_over_{name}"), Span::call_site()),
                doc: format!(
                    "{}⊕ over `{name}` of {product}.",
                    if above.is_empty() {
                        String::new()
                    } else {
                        format!("For each ({above}): ")
                    }
                ),
                key: ancestors,
                kind: MapKind::Sum(SumView { var: v, factors }),
            });
        }
        let mut factors: Vec<Factor> = bound_roots
            .iter()
            .map(|&r| Factor::Map(map_of[r].expect("mapped")))
            .collect();
        let own_atoms: Vec<usize> = members(sub.atoms).collect();
        for &a in &own_atoms {
            component_of[a] = c;
            if hang[a].is_none() {
                factors.push(Factor::Atom(a));
            }
        }
        let rels: Vec<String> = own_atoms
            .iter()
            .map(|&a| p.relations[p.atoms[a].relation].snake.clone())
            .collect();
        let taken: Vec<String> = tops.iter().map(|t| t.name.clone()).collect();
        let name = super::names::fresh_name(&p, &taken, &format!("support_{}", rels[0]));
        let labels_of_atoms: Vec<String> = own_atoms
            .iter()
            .map(|&a| format!("`{}`", p.atoms[a].label))
            .collect();
        let doc = format!(
            "The support of the subquery over {}: the ({}) values where {} is non-zero, each added once; live once it joins with the supports below it.",
            labels_of_atoms.join(", "),
            p.var_list(&key),
            labels(&p, &factors),
        );
        tops.push(TopRelation {
            name,
            doc,
            key,
            factors,
        });
    }
    let (top_maps, reading) = if cyclic {
        top_join::materialize(&mut p, tops, &query.head)
    } else {
        let (nodes, reading) = top_join::place(&mut p, tops)?;
        (nodes.into_iter().map(|node| node.map()).collect(), reading)
    };

    let relation_of: Vec<RelId> = p.atoms.iter().map(|a| a.relation).collect();
    let triggers = Trigger::per_relation(p.relations.len(), &relation_of, |atom, _, later| {
        let mut steps = Vec::new();
        let mut changed = Factor::Atom(atom);
        let mut at = hang[atom];
        while let Some(v) = at {
            let target = map_of[v].expect("mapped");
            steps.push(step(&p, target, changed));
            changed = Factor::Map(target);
            at = subqueries[component_of[atom]].order.nodes[v]
                .parent
                .filter(|&u| !query.is_free(u));
        }
        steps.push(step(&p, top_maps[component_of[atom]], changed));
        PathBody::Steps {
            steps,
            later_same_relation: later.to_vec(),
        }
    });
    p.triggers = triggers;
    Some(p.finish(reading))
}

/// A step into `target` whose factor `changed` changed.
fn step(p: &Draft, target: MapId, changed: Factor) -> Step {
    let factors = p.maps[target]
        .kind
        .factors()
        .expect("two-layer steps target views and supports")
        .to_vec();
    Step {
        target: crate::ir::Target::of(&p.maps, target),
        changed,
        siblings: factors.into_iter().filter(|&f| f != changed).collect(),
        binds: Vec::new(),
    }
}

fn post_order(order: &crate::analysis::VariableOrder, v: usize, out: &mut Vec<usize>) {
    for &c in &order.nodes[v].children {
        post_order(order, c, out);
    }
    out.push(v);
}

/// The factors as a product, for doc comments.
fn labels(p: &Draft, factors: &[Factor]) -> String {
    if factors.is_empty() {
        return "1".to_owned();
    }
    factors
        .iter()
        .map(|&f| format!("`{}`", p.factor_label(f)))
        .collect::<Vec<_>>()
        .join(" ⊗ ")
}
