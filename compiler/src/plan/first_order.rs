//! The first-order delta planner (classical IVM, DBToaster's first-order
//! deltas): the result is materialized, and an update to a tuple joins it
//! with the other atoms, one at a time, through hash indexes on the
//! variables bound so far. It maintains any query, at the cost of the join
//! of the other atoms (up to O(N) or more per update).
//!
//! Where several of the other atoms bind exactly the same new variables
//! (an intersection, as the two sides of a cycle or the edges into a
//! clique's next vertex do), the loop walks the smallest of their index
//! groups at run time and looks the other atoms up (`Access::Smaller`):
//! generic join's step, so a triangle's delta costs the smaller degree.
//!
//! Each derivation that reads the updated tuple is visited once: the atom
//! that reads it first (in atom order) owns it, so a self-join's atoms skip
//! the updated tuple when an earlier atom of the same relation could have
//! read it. Each visited derivation replaces its old payload by its new one
//! in the result, which keeps the result exact in every semiring, with or
//! without additive inverses.

use proc_macro2::Span;
use syn::Ident;

use super::Verdict;
use super::skeleton::skeleton;
use crate::analysis::hypergraph::bit;
use crate::analysis::{Hypergraph, keys};
use crate::ir::{
    Access, DeltaJoin, Loop, PathBody, Program, Reading, RelId, ResultMap, Trigger, push_map,
};
use crate::query::Query;

/// Lowers any query to the first-order delta strategy.
pub fn lower(query: &Query, verdict: &Verdict) -> Program {
    let mut p = skeleton(query, verdict);
    let doc = format!(
        "The result: for each ({}), the ⊕ of its derivations' payloads.",
        p.var_list(&query.head)
    );
    let name = Ident::new("result", Span::call_site());
    let result = push_map(&mut p.maps, name, doc, query.head.clone(), ResultMap);
    let reading = Reading::Result {
        map: result,
        scalars: Vec::new(),
    };

    let n = p.atoms.len();
    let hg = Hypergraph::of(query);
    let relation_of: Vec<RelId> = p.atoms.iter().map(|a| a.relation).collect();
    p.triggers = Trigger::per_relation(p.relations.len(), &relation_of, |atom, earlier, _| {
        let mut bound: Vec<usize> = p.atoms[atom].vars.clone();
        let mut rest: Vec<usize> = (0..n).filter(|&j| j != atom).collect();
        let mut loops = Vec::new();
        while !rest.is_empty() {
            // Next: a lookup, then an atom whose key is bound, then the
            // one with the most variables bound (an index beats a scan):
            // the order whose cost `analysis::keys` bounds.
            let bound_mask = bound.iter().fold(0, |m, &v| m | bit(v));
            let j = keys::next_atom(&hg, bound_mask, &rest);
            rest.retain(|&r| r != j);
            let vars = p.atoms[j].vars.clone();
            let columns: Vec<usize> = (0..vars.len())
                .filter(|&c| bound.contains(&vars[c]))
                .collect();
            let new: Vec<usize> = vars
                .iter()
                .filter(|v| !bound.contains(v))
                .copied()
                .collect();
            // Other atoms that bind exactly these new variables, and some
            // bound one: an intersection, walked from its smallest side.
            let same_new = |o: usize| {
                let theirs = &p.atoms[o].vars;
                let mut fresh: Vec<usize> = theirs
                    .iter()
                    .filter(|v| !bound.contains(v))
                    .copied()
                    .collect();
                let mut mine = new.clone();
                fresh.sort_unstable();
                fresh.dedup();
                mine.sort_unstable();
                mine.dedup();
                fresh == mine && theirs.iter().any(|v| bound.contains(v))
            };
            let access = if columns.len() == vars.len() {
                Access::Point
            } else if columns.is_empty() {
                Access::Scan
            } else {
                let (partners, others): (Vec<usize>, Vec<usize>) =
                    rest.iter().partition(|&&o| same_new(o));
                let relation = p.atoms[j].relation;
                let index = super::skeleton::index_of(&mut p, relation, columns);
                if partners.is_empty() {
                    Access::Index(index)
                } else {
                    rest = others;
                    let partners = partners
                        .into_iter()
                        .map(|o| {
                            let theirs = p.atoms[o].vars.clone();
                            let their_columns: Vec<usize> = (0..theirs.len())
                                .filter(|&c| bound.contains(&theirs[c]))
                                .collect();
                            let relation = p.atoms[o].relation;
                            (
                                o,
                                super::skeleton::index_of(&mut p, relation, their_columns),
                            )
                        })
                        .collect();
                    Access::Smaller { index, partners }
                }
            };
            bound.extend(
                vars.iter()
                    .filter(|v| !bound.contains(v))
                    .copied()
                    .collect::<Vec<_>>(),
            );
            loops.push(Loop { atom: j, access });
        }
        PathBody::DeltaJoin(DeltaJoin {
            loops,
            result,
            earlier_same_relation: earlier.to_vec(),
        })
    });
    p.finish(reading)
}
