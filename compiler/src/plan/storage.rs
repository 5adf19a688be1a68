//! Which base relations a program keeps.
//!
//! Every strategy starts from one base map per relation, holding each
//! tuple's payload, and most read it back: a view tree looks an atom up as
//! the sibling of a changed factor, a top join reads an atom's payload when
//! the result is enumerated, CROWN revisits a parent's tuples through an
//! index, first-order and recompute join the relations. But under inserts
//! only, a relation whose atoms each feed one view of their own and are
//! read nowhere else need not be kept at all. That view is `Σ_v R(key, v)`
//! (or a CROWN message over the atom's tuples), and an update `R(t) ⊕= δ`
//! changes it by exactly `δ` at `t`'s key, whatever `R(t)` was before:
//! ⊕ distributes. So the update adds `δ` to the view and stops there; the
//! view itself tells when its payload turns non-zero, which is all the
//! maps above it ask.
//!
//! With deletes, the base map is what tells a delete of an absent tuple
//! from a real one, so it always stays.

use crate::ir::{Factor, MapKind, Program, RelId};
use crate::query::UpdateModel;

/// Marks the base maps of the relations nothing reads back as not stored
/// (inserts only; with deletes every relation is kept).
pub fn drop_unread_relations(p: &mut Program) {
    if p.updates != UpdateModel::InsertOnly {
        return;
    }
    for r in 0..p.relations.len() {
        if unread(p, r) {
            let base = p.relations[r].base;
            if let MapKind::Base { stored, .. } = &mut p.maps[base].kind {
                *stored = false;
            }
        }
    }
}

/// Whether no code of the program reads relation `r`'s tuples back, and
/// every update of `r` can go straight to the views above its atoms.
fn unread(p: &Program, r: RelId) -> bool {
    let of_r = |f: &Factor| matches!(*f, Factor::Atom(a) if p.atoms[a].relation == r);
    // The evaluation from scratch and the indexes of first-order deltas and
    // CROWN read the tuples.
    if p.output.recompute.is_some()
        || p.maps
            .iter()
            .any(|m| matches!(m.kind, MapKind::Index { relation, .. } if relation == r))
    {
        return false;
    }
    // An atom of `r` may only be the single factor of a sum: anywhere else
    // (a factor beside others, a free level, a top join relation) it is
    // looked up when another factor changes or when the result is read.
    let alone_in_sums = p.maps.iter().all(|m| match (&m.kind, m.kind.factors()) {
        (MapKind::Sum { .. }, Some([_])) | (_, None) => true,
        (_, Some(factors)) => !factors.iter().any(of_r),
    });
    if !alone_in_sums {
        return false;
    }
    let Some(trigger) = p.triggers.iter().find(|t| t.relation == r) else {
        return false;
    };
    trigger.paths.iter().all(|path| {
        if path.delta.is_some() || path.triangle.is_some() || path.cluster.is_some() {
            return false;
        }
        match (path.raise, path.steps.first()) {
            // A leaf's CROWN message: adding δ is adding the new payload
            // only when ⊕ absorbs the old one.
            (Some(_), _) => p.absorbing,
            (None, Some(first)) => {
                matches!(p.maps[first.target].kind, MapKind::Sum { .. })
                    && first.changed == Factor::Atom(path.atom)
                    && first.siblings.is_empty()
            }
            (None, None) => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use crate::driver::ir_str;

    /// The relations each query keeps, by name.
    fn kept(text: &str) -> Vec<String> {
        let programs = ir_str(text).expect("parses");
        let p = programs
            .into_iter()
            .next()
            .expect("one query")
            .expect("lowers");
        (0..p.relations.len())
            .filter(|&r| p.stores(r))
            .map(|r| p.relations[r].name.to_string())
            .collect()
    }

    #[test]
    fn two_layers_keep_only_the_relations_the_top_join_reads() {
        let q = "#[semiring(ivm::semiring::MinPlus)] #[updates(insert_only)]
            query C { relation F(o: u32, f: u32); relation R(o: u32, h: u32); relation W(h: u32, w: u32);
                      Q(o, h) = F(o, f) * R(o, h) * W(h, w); }";
        assert_eq!(kept(q), ["R"]);
    }

    #[test]
    fn crown_keeps_the_relations_it_revisits() {
        let q = "#[semiring(ivm::semiring::Bool)] #[updates(insert_only)]
            query E { relation L(a: u64, d: u64); relation F(d: u64); Q(a) = L(a, d) * F(d); }";
        assert_eq!(kept(q), ["L"]);
    }

    #[test]
    fn a_view_tree_keeps_atoms_read_as_siblings() {
        // `S(k, y)` is read as the sibling of the view of `R` over `x`,
        // when that view changes; `R` and `T` each feed a sum of their own.
        let q = "#[semiring(ivm::semiring::Count)] #[updates(insert_only)]
            query V { relation R(k: u32, y: u32, x: u32); relation S(k: u32, y: u32); relation T(k: u32, z: u32);
                      Q(k) = R(k, y, x) * S(k, y) * T(k, z); }";
        assert_eq!(kept(q), ["S"]);
    }

    #[test]
    fn deletes_keep_every_relation() {
        let q = "#[semiring(ivm::semiring::Int)]
            query D { relation R(k: u32, x: u32); relation S(k: u32, y: u32); Q(k) = R(k, x) * S(k, y); }";
        assert_eq!(kept(q), ["R", "S"]);
    }

    #[test]
    fn self_joins_and_recompute_keep_the_relation() {
        let q = "#[semiring(ivm::semiring::Bool)] #[updates(insert_only)]
            query P { relation E(s: u32, d: u32); Q(x) = E(x, y) * E(y, z); }";
        assert_eq!(kept(q), ["E"]);
        let q = "#[semiring(ivm::semiring::Count)] #[updates(insert_only)] #[strategy(recompute)]
            query G { relation R(k: u32, x: u32); relation S(k: u32, y: u32); Q(k) = R(k, x) * S(k, y); }";
        assert_eq!(kept(q), ["R", "S"]);
    }
}
