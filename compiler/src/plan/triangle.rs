//! The planner of the triangle count's own strategies (*Counting Triangles
//! under Updates in Worst-Case Optimal Time*, by Kara, Ngo, Nikolic, Olteanu
//! and Zhang): one triangle map, which the runtime maintains with IVMε's
//! heavy/light partitions (`Triangle`) or with the factorized baseline's
//! single view (`Factorized`), and each atom of the query given its role
//! (R, S or T).

use proc_macro2::Span;
use syn::Ident;

use super::Verdict;
use super::skeleton::skeleton;
use crate::analysis::Triangle;
use crate::ir::{AtomPath, PathBody, Program, Reading, TriangleState, Trigger, push_map};
use crate::query::Query;

/// Lowers a triangle count to IVMε with exponent `eps`, or to the
/// factorized baseline when `eps` is `None`.
pub fn lower(
    query: &Query,
    triangle: &Triangle,
    eps: Option<f64>,
    cycle: bool,
    verdict: &Verdict,
) -> Program {
    let mut p = skeleton(query, verdict);
    let names = p.var_list(&triangle.vars);
    let roles = roles(query, triangle);
    let map = push_map(
        &mut p.maps,
        Ident::new("triangle", Span::call_site()),
        match eps {
            Some(eps) if cycle => format!(
                "IVMε state over ({names}), ε = {eps}, for one relation in all three roles: the relation kept by source and by target, each value heavy or light by its degree that way (against M^ε out, M^(1−ε) in), one view of the paths between pairs of heavy values, and the count."
            ),
            Some(eps) => format!(
                "IVMε state over ({names}), ε = {eps}: each relation kept by first and by second value, each value heavy or light by its degree that way (against M^ε for first values, M^(1−ε) for second ones), three views joining each relation with the next over pairs of heavy values, and the count."
            ),
            None => format!(
                "Factorized state over ({names}): the view V(B, A) = Σ_C S(B, C)·T(C, A), and the count."
            ),
        },
        Vec::new(),
        TriangleState {
            eps,
            vars: triangle.vars,
            cycle,
        },
    );
    let factors = super::nullary::views(&mut p, triangle.factors);
    let reading = Reading::Triangle {
        map,
        scalars: factors.iter().map(|&(_, view)| view).collect(),
    };
    let mut triggers = Vec::new();
    for rel in 0..p.relations.len() {
        // Atom order, so a self-join applies its roles in the order of
        // its atoms; a cycle updates its one state once.
        let mut paths: Vec<_> = roles
            .iter()
            .filter(|&&(atom, _, _)| p.atoms[atom].relation == rel)
            .copied()
            .collect();
        paths.sort();
        if cycle {
            paths.truncate(1);
        }
        triggers.push(Trigger {
            relation: rel,
            paths: paths
                .into_iter()
                .map(|(atom, role, columns)| AtomPath {
                    atom,
                    body: PathBody::Triangle { map, role, columns },
                })
                .collect(),
        });
    }
    // A nullary factor's relation is none of the triangle's (it has one
    // column): its path keeps its view.
    for (atom, view) in factors {
        let relation = p.atoms[atom].relation;
        triggers[relation].paths.push(AtomPath {
            atom,
            body: super::nullary::path(view, atom),
        });
    }
    p.triggers = triggers;
    p.finish(reading)
}

/// Each role's atom, role number, and the columns of that atom holding
/// the role's two variables, in role order.
fn roles(query: &Query, triangle: &Triangle) -> [(usize, usize, [usize; 2]); 3] {
    std::array::from_fn(|role| {
        let atom = triangle.atoms[role];
        let vars = &query.atoms[atom].vars;
        let column = |v: usize| {
            vars.iter()
                .position(|&x| x == v)
                .expect("the atom holds its role's variables")
        };
        let columns = [
            column(triangle.vars[role]),
            column(triangle.vars[(role + 1) % 3]),
        ];
        (atom, role, columns)
    })
}

/// Whether one relation plays all three roles in one orientation, as the
/// edges of a directed graph do in `E(a, b) * E(b, c) * E(c, a)`: then the
/// three partitioned copies and the three views would be equal, and the
/// runtime keeps one of each (`GraphTriangle`).
pub fn is_cycle(query: &Query, triangle: &Triangle) -> bool {
    let [first, rest @ ..] = roles(query, triangle);
    rest.iter().all(|&(atom, _, columns)| {
        query.atoms[atom].relation == query.atoms[first.0].relation && columns == first.2
    })
}
