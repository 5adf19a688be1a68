//! The planner of the triangle count's own strategies (papers/000): one
//! triangle map, which the runtime maintains with IVMε's heavy/light
//! partitions (`Triangle`) or with the factorized baseline's single view
//! (`Factorized`), and each atom of the query given its role (R, S or T).

use proc_macro2::Span;
use syn::Ident;

use super::Verdict;
use super::skeleton::skeleton;
use crate::analysis::Triangle;
use crate::ir::{AtomPath, Map, MapKind, Program, Trigger};
use crate::query::Query;

/// Lowers a triangle count to IVMε with exponent `eps`, or to the
/// factorized baseline when `eps` is `None`.
pub fn lower(query: &Query, triangle: &Triangle, eps: Option<f64>, verdict: &Verdict) -> Program {
    let mut p = skeleton(query, verdict);
    let map = p.maps.len();
    let names = p.var_list(&triangle.vars);
    p.maps.push(Map {
        name: Ident::new("triangle", Span::call_site()),
        doc: match eps {
            Some(eps) => format!(
                "IVMε state over ({names}), ε = {eps}: each relation partitioned into heavy and light parts by degree against M^ε, the three views joining a heavy part with the next light part, and the count."
            ),
            None => format!(
                "Factorized state over ({names}): the view V(B, A) = Σ_C S(B, C)·T(C, A), and the count."
            ),
        },
        key: Vec::new(),
        kind: MapKind::Triangle { eps, vars: triangle.vars },
    });
    p.output.triangle = Some(map);
    let mut triggers = Vec::new();
    for rel in 0..p.relations.len() {
        let mut paths = Vec::new();
        for role in 0..3 {
            let atom = triangle.atoms[role];
            if p.atoms[atom].relation != rel {
                continue;
            }
            let vars = &p.atoms[atom].vars;
            let column = |v: usize| {
                vars.iter()
                    .position(|&x| x == v)
                    .expect("the atom holds its role's variables")
            };
            let columns = [
                column(triangle.vars[role]),
                column(triangle.vars[(role + 1) % 3]),
            ];
            paths.push((atom, role, columns));
        }
        // Atom order, so a self-join applies its roles in the order of
        // its atoms.
        paths.sort();
        triggers.push(Trigger {
            relation: rel,
            paths: paths
                .into_iter()
                .map(|(atom, role, columns)| AtomPath {
                    triangle: Some((map, role, columns)),
                    ..AtomPath::new(atom)
                })
                .collect(),
        });
    }
    p.triggers = triggers;
    p
}
