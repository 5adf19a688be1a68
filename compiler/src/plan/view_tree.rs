//! The view-tree planner (F-IVM) for q-hierarchical queries: one map per
//! variable of the canonical free-top variable order, lowered to the IR.
//!
//! A summed-out variable X becomes a `Sum` map keyed by the variables above
//! it: for each of their values, the ⊕ over X of the product of X's
//! children (the maps of the variables below it and the atoms hung at it).
//! Because the order is canonical, every child is keyed by exactly the
//! variables above X plus X, so the product is an intersection of lookups:
//! an update touches one entry per map on its leaf-to-root path.
//!
//! A free variable becomes a `Free` level instead: it is not summed away,
//! and keeps, per value, whether the product of its summed-out children
//! (its local payload, looked up when read) is non-zero and how many output
//! tuples lie below it, so enumeration never visits a value with no output.

use proc_macro2::Span;
use syn::Ident;

use crate::analysis::VariableOrder;
use crate::ir::{
    AtomIr, Factor, Map, MapId, MapKind, Output, PathBody, Program, Reading, RelId, Step, Trigger,
    Var,
};
use crate::plan::{Verdict, skeleton};
use crate::query::Query;

/// Lowers a q-hierarchical query to the IR over its canonical variable
/// order.
pub fn lower(query: &Query, order: &VariableOrder, verdict: &Verdict) -> Program {
    let Program {
        vars,
        relations,
        atoms,
        mut maps,
        ..
    } = skeleton(query, verdict);

    // One map per variable, children before parents.
    let mut map_of: Vec<Option<MapId>> = vec![None; vars.len()];
    let mut post: Vec<usize> = Vec::new();
    for &r in &order.roots {
        post_order(order, r, &mut post);
    }
    for &v in &post {
        let node = &order.nodes[v];
        let ancestors: Vec<usize> = {
            let mut p = order.path_to_root(v);
            p.remove(0);
            p.reverse();
            p
        };
        let name = vars[v].name.to_string();
        let free = query.is_free(v);
        let mut factors: Vec<Factor> = Vec::new();
        let mut children: Vec<MapId> = Vec::new();
        for &c in &node.children {
            let m = map_of[c].expect("children first");
            if query.is_free(c) {
                children.push(m);
            } else {
                factors.push(Factor::Map(m));
            }
        }
        factors.extend(node.atoms.iter().map(|&a| Factor::Atom(a)));
        let product: Vec<String> = factors
            .iter()
            .map(|f| label(f, &atoms, &maps, &vars))
            .collect();
        let product = if product.is_empty() {
            "1".to_owned()
        } else {
            product.join(" ⊗ ")
        };
        let above = names(&ancestors, &vars);
        let (field, doc, kind) = if free {
            (
                format!("out_{name}"),
                format!(
                    "The values of the free variable `{name}`{} whose local payload {product} is non-zero, with the number of output tuples below each: what enumeration walks.",
                    if above.is_empty() {
                        String::new()
                    } else {
                        format!(" for each ({above})")
                    }
                ),
                MapKind::Free {
                    var: v,
                    factors,
                    children,
                    parent: None,
                },
            )
        } else {
            (
                format!("sum_over_{name}"),
                format!(
                    "{}⊕ over `{name}` of {product}.",
                    if above.is_empty() {
                        String::new()
                    } else {
                        format!("For each ({above}): ")
                    }
                ),
                MapKind::Sum { var: v, factors },
            )
        };
        map_of[v] = Some(maps.len());
        maps.push(Map {
            name: Ident::new(&field, Span::call_site()),
            doc,
            key: ancestors,
            kind,
        });
    }
    // Parent links of free levels.
    for &v in &post {
        if let (true, Some(p)) = (query.is_free(v), order.nodes[v].parent) {
            let parent = map_of[p];
            if let MapKind::Free { parent: slot, .. } = &mut maps[map_of[v].expect("mapped")].kind {
                *slot = parent;
            }
        }
    }

    let owner = |atom: usize| -> usize {
        (0..order.nodes.len())
            .find(|&v| order.nodes[v].atoms.contains(&atom))
            .expect("every atom hangs below a variable")
    };
    let relation_of: Vec<RelId> = atoms.iter().map(|a| a.relation).collect();
    let triggers = Trigger::per_relation(relations.len(), &relation_of, |atom, _, later| {
        let mut steps = Vec::new();
        let mut changed = Factor::Atom(atom);
        let mut at = Some(owner(atom));
        while let Some(v) = at {
            let target = map_of[v].expect("mapped");
            let factors = maps[target]
                .kind
                .factors()
                .expect("variables have views")
                .to_vec();
            steps.push(Step {
                target,
                changed,
                siblings: factors.into_iter().filter(|&f| f != changed).collect(),
            });
            if query.is_free(v) {
                // Above a free variable the change is a change in
                // tuple counts, which the free levels propagate.
                break;
            }
            changed = Factor::Map(target);
            at = order.nodes[v].parent;
        }
        PathBody::Steps {
            steps,
            later_same_relation: later.to_vec(),
        }
    });

    let scalars = order
        .roots
        .iter()
        .filter(|&&r| !query.is_free(r))
        .map(|&r| map_of[r].expect("mapped"))
        .collect();
    let roots = order
        .roots
        .iter()
        .filter(|&&r| query.is_free(r))
        .map(|&r| map_of[r].expect("mapped"))
        .collect();

    let mut program = skeleton(query, verdict);
    program.maps = maps;
    program.triggers = triggers;
    program.output = Output {
        head: query.head.clone(),
        reading: Reading::Levels { scalars, roots },
    };
    program
}

fn post_order(order: &VariableOrder, v: usize, out: &mut Vec<usize>) {
    for &c in &order.nodes[v].children {
        post_order(order, c, out);
    }
    out.push(v);
}

fn names(vars: &[usize], all: &[Var]) -> String {
    vars.iter()
        .map(|&v| all[v].name.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn label(f: &Factor, atoms: &[AtomIr], maps: &[Map], vars: &[Var]) -> String {
    match *f {
        Factor::Atom(a) => format!("`{}`", atoms[a].label),
        Factor::Map(m) => format!("`{}[{}]`", maps[m].name, names(&maps[m].key, vars)),
    }
}
