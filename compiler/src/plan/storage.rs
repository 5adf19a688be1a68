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
//! A relation that CROWN alone reads back, through the indexes by which a
//! growing message revisits its parent's tuples, is kept only in part: a
//! tuple whose keys' messages are all at the top will never be revisited,
//! so it is not kept (nor indexed), and its contribution goes straight up.
//!
//! With deletes, the base map is what tells a delete of an absent tuple
//! from a real one. Where nothing else reads it, which is the rule for
//! SQL (each table's atoms read it through a derived relation of the
//! columns they use), it keeps each tuple's payload under a fingerprint
//! of the tuple instead of the tuple (`Kept::Fingerprinted`): the views
//! above are told each update's δ, as under trusted deletes, and a
//! delete, once the fingerprints find it live, takes its δ back; the cost
//! is one hash of the row. Where IVMε's state over a catalogue
//! ring holds the relation in all three roles, its partition has every
//! tuple with its payload, which is all a ring's base map has
//! (`Kept::InTriangle`).

use crate::ir::{
    Factor, Kept, MapKind, PathBody, Program, Reading, RelId, RelationIndex, SumView, TriangleState,
};
use crate::query::{Deletes, UpdateModel};

/// Marks which tuples of each relation the program keeps: under inserts
/// only, none of a relation that nothing reads back, and only those CROWN
/// may revisit of a relation that CROWN alone reads (over `Bool`,
/// `two_valued`, only in its indexes: their payload is one). With deletes,
/// a declared relation that nothing reads back keeps fingerprints, and
/// every other is kept whole.
pub fn keep_only_what_is_read(p: &mut Program, two_valued: bool) {
    if p.updates != UpdateModel::InsertOnly {
        fingerprint_what_is_not_read(p);
        return;
    }
    for r in 0..p.relations.len() {
        let kept = match kept(p, r) {
            // Over `Bool` every tuple CROWN revisits has payload one.
            Kept::Revisitable if two_valued => Kept::IndexOnly,
            kept => kept,
        };
        let base = p.relations[r].base;
        p.get_mut(base).kept = kept;
    }
}

/// With deletes: a declared relation that nothing reads back keeps only
/// its tuples' fingerprints, or, under trusted deletes or when the struct
/// that holds the query checks them, nothing; one whose
/// views read only its tuples' payloads keeps fingerprints either way. The test is the one under inserts only,
/// which asks more than this needs (that the views above change by the
/// update alone), since the fingerprints keep every payload; a derived
/// relation stays whole, as its declared relation already checks the
/// delete.
fn fingerprint_what_is_not_read(p: &mut Program) {
    for r in 0..p.relations.len() {
        if p.relations[r].is_fed() {
            continue;
        }
        let base = p.relations[r].base;
        if kept(p, r) != Kept::None {
            // The views read the old and new payloads, not the tuples: the
            // fingerprints keep those payloads (under trusted deletes too,
            // where nothing else would).
            if reads_only_payloads(p, r) {
                p.get_mut(base).kept = Kept::FingerprintedPayloads;
                fingerprint_doc(
                    p,
                    r,
                    "a delete's check and the views' old and new payloads read them",
                );
            }
            continue;
        }
        if p.deletes == Deletes::Trusted || p.relations[r].checked_by_holder() {
            p.get_mut(base).kept = Kept::Trusted;
            continue;
        }
        p.get_mut(base).kept = Kept::Fingerprinted;
        fingerprint_doc(p, r, "only a delete's check reads them");
    }
}

/// The doc of a base map kept as fingerprints: `readers` says what reads
/// them.
fn fingerprint_doc(p: &mut Program, r: RelId, readers: &str) {
    let m: crate::ir::MapId = p.relations[r].base.into();
    p.maps[m].doc = format!(
        "`{}`: each tuple's live contributions, under a fingerprint of the tuple ({readers}).",
        p.relations[r].name
    );
}

/// Whether the views read relation `r` only through the changes of its
/// tuples' payloads: each of its update's paths feeds a derived relation
/// or a semijoin's counts (which ask whether the tuple turned live or
/// dead), and no view, index or strategy looks its tuples up.
fn reads_only_payloads(p: &Program, r: RelId) -> bool {
    if let Reading::Recompute(_) = p.reading {
        return false;
    }
    let of_r = |f: &Factor| matches!(*f, Factor::Atom(a) if p.atoms[a].relation == r);
    let looked_up = p.maps.iter().any(|m| match &m.kind {
        MapKind::Index(RelationIndex { relation, .. }) => *relation == r,
        kind => kind
            .factors()
            .is_some_and(|factors| factors.iter().any(of_r)),
    });
    let Some(trigger) = p.triggers.iter().find(|t| t.relation == r) else {
        return false;
    };
    !looked_up
        && trigger
            .paths
            .iter()
            .all(|path| matches!(path.body, PathBody::Feed(_) | PathBody::Semijoin { .. }))
}

/// Marks the relation of an IVMε triangle in all three roles as held by
/// the triangle state, over a catalogue ring (`ring`): the partition keeps
/// each tuple's payload, which is all such a ring's base map keeps (its
/// state is the sum, and a retraction is refused exactly where it is
/// zero), so a second map of the same tuples would only cost each update
/// another lookup. Only a relation that nothing else reads: its one path
/// is the triangle's, its atoms read it directly, and it is no derived
/// relation.
pub fn keep_in_triangle(p: &mut Program, ring: bool) {
    if !ring {
        return;
    }
    let cycle = p.maps.iter().any(|m| {
        matches!(
            m.kind,
            MapKind::Triangle(TriangleState {
                eps: Some(_),
                cycle: true,
                ..
            })
        )
    });
    if !cycle {
        return;
    }
    for r in 0..p.relations.len() {
        let only_triangle = p.triggers.iter().any(|t| {
            t.relation == r
                && matches!(t.paths.as_slice(), [path] if matches!(path.body, PathBody::Triangle { .. }))
        });
        if only_triangle && !p.relations[r].is_fed() {
            let base = p.relations[r].base;
            p.get_mut(base).kept = Kept::InTriangle;
        }
    }
}

/// Which tuples of relation `r` some code of the program reads back.
fn kept(p: &Program, r: RelId) -> Kept {
    let of_r = |f: &Factor| matches!(*f, Factor::Atom(a) if p.atoms[a].relation == r);
    // The evaluation from scratch reads every tuple.
    if let Reading::Recompute(_) = p.reading {
        return Kept::Every;
    }
    // An atom of `r` may only be the single factor of a sum: anywhere else
    // (a factor beside others, a free level, a top join relation) it is
    // looked up when another factor changes or when the result is read.
    let alone_in_sums = p.maps.iter().all(|m| match (&m.kind, m.kind.factors()) {
        (MapKind::Sum(SumView { .. }), Some([_])) | (_, None) => true,
        (_, Some(factors)) => !factors.iter().any(of_r),
    });
    if !alone_in_sums {
        return Kept::Every;
    }
    let Some(trigger) = p.triggers.iter().find(|t| t.relation == r) else {
        return Kept::Every;
    };
    let mut raised = true;
    let direct = trigger.paths.iter().all(|path| match &path.body {
        // A CROWN message: adding δ is adding the new payload only when ⊕
        // absorbs the old one.
        PathBody::Raise(_) => p.absorbing,
        PathBody::Steps { steps, .. } => {
            raised = false;
            steps.first().is_some_and(|first| {
                matches!(p.maps[first.target].kind, MapKind::Sum(SumView { .. }))
                    && first.changed == Factor::Atom(path.atom)
                    && first.siblings.is_empty()
            })
        }
        // The derived relation changes by the update's `δ` times the
        // atom's factors: it needs the old payload no more than a view.
        PathBody::Feed(_) => true,
        // Where no contribution takes another away (a positive semiring,
        // or a SQL table's rows under a promise that covers every update),
        // a semijoin's counts may take one per contribution: they then
        // count copies, and their supports, all the semijoin reads, are
        // the same. Otherwise an update can take a tuple away, which only
        // the kept payload tells.
        PathBody::Semijoin { semijoin, relation } => {
            p.semijoins[*semijoin].tally.per_contribution(p, *relation)
        }
        PathBody::DeltaJoin(_)
        | PathBody::Triangle { .. }
        | PathBody::Cluster(_)
        | PathBody::Range(_) => false,
    });
    if !direct {
        return Kept::Every;
    }
    // The indexes of first-order deltas read every tuple; CROWN's read a
    // tuple only while some message at its key can still grow, and a raise
    // of δ is exact once the messages are at the top (the entry above
    // already holds the tuple's old payload times them, and ⊕ absorbs).
    let mut indexes = p.maps.iter().filter_map(|m| match &m.kind {
        MapKind::Index(RelationIndex {
            relation,
            while_growing,
            ..
        }) if *relation == r => Some(while_growing),
        _ => None,
    });
    match indexes.next() {
        None => Kept::None,
        Some(first) => {
            if raised && !first.is_empty() && indexes.all(|w| !w.is_empty()) {
                Kept::Revisitable
            } else {
                Kept::Every
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::driver::ir_str;
    use crate::ir::Kept;

    /// What each query keeps of each relation, by name.
    fn kept(text: &str) -> Vec<(String, Kept)> {
        let programs = ir_str(text).expect("parses");
        let p = programs
            .into_iter()
            .next()
            .expect("one query")
            .expect("lowers");
        (0..p.relations.len())
            .map(|r| (p.relations[r].name.to_string(), p.kept(r)))
            .collect()
    }

    fn named(kept: &[(&str, Kept)]) -> Vec<(String, Kept)> {
        kept.iter().map(|&(r, k)| (r.to_owned(), k)).collect()
    }

    #[test]
    fn two_layers_keep_only_the_relations_the_top_join_reads() {
        let q = "#[semiring(ivm::semiring::MinPlus)] #[updates(insert_only)]
            query C { relation F(o: u32, f: u32); relation R(o: u32, h: u32); relation W(h: u32, w: u32);
                      Q(o, h) = F(o, f) * R(o, h) * W(h, w); }";
        let expected = [("F", Kept::None), ("R", Kept::Every), ("W", Kept::None)];
        assert_eq!(kept(q), named(&expected));
    }

    #[test]
    fn crown_keeps_the_tuples_it_may_revisit() {
        let q = "#[semiring(ivm::semiring::AccessControl)] #[updates(insert_only)]
            query E { relation L(a: u64, d: u64); relation F(d: u64); Q(a) = L(a, d) * F(d); }";
        let expected = [("L", Kept::Revisitable), ("F", Kept::None)];
        assert_eq!(kept(q), named(&expected));
        // Over `Bool` a revisited tuple's payload is one: only the index
        // keeps it.
        let q = "#[semiring(ivm::semiring::Bool)] #[updates(insert_only)]
            query E { relation L(a: u64, d: u64); relation F(d: u64); Q(a) = L(a, d) * F(d); }";
        let expected = [("L", Kept::IndexOnly), ("F", Kept::None)];
        assert_eq!(kept(q), named(&expected));
        // A self-join: `E` is revisited through its index and is also a
        // leaf whose message goes straight up.
        let q = "#[semiring(ivm::semiring::AccessControl)] #[updates(insert_only)]
            query P { relation E(s: u32, d: u32); Q(x) = E(x, y) * E(y, z); }";
        assert_eq!(kept(q), named(&[("E", Kept::Revisitable)]));
        let q = "#[semiring(ivm::semiring::Bool)] #[updates(insert_only)]
            query P { relation E(s: u32, d: u32); Q(x) = E(x, y) * E(y, z); }";
        assert_eq!(kept(q), named(&[("E", Kept::IndexOnly)]));
    }

    #[test]
    fn a_view_tree_keeps_atoms_read_as_siblings() {
        // `S(k, y)` is read as the sibling of the view of `R` over `x`,
        // when that view changes; `R` and `T` each feed a sum of their own.
        let q = "#[semiring(ivm::semiring::Count)] #[updates(insert_only)]
            query V { relation R(k: u32, y: u32, x: u32); relation S(k: u32, y: u32); relation T(k: u32, z: u32);
                      Q(k) = R(k, y, x) * S(k, y) * T(k, z); }";
        let expected = [("R", Kept::None), ("S", Kept::Every), ("T", Kept::None)];
        assert_eq!(kept(q), named(&expected));
    }

    #[test]
    fn a_ring_triangle_over_one_relation_is_held_by_its_state() {
        let graph = |semiring: &str| {
            format!(
                "#[semiring(ivm::semiring::{semiring})]
                query T {{ relation E(s: u32, d: u32); Q() = E(a, b) * E(b, c) * E(c, a); }}"
            )
        };
        assert_eq!(kept(&graph("Int")), named(&[("E", Kept::InTriangle)]));
        assert_eq!(kept(&graph("Real")), named(&[("E", Kept::InTriangle)]));
        // `Count` keeps the number of contributions beside the sum.
        assert_eq!(kept(&graph("Count")), named(&[("E", Kept::Every)]));
        // Three relations: each has a partition of its own per role, but
        // the runtime's three-role state is not their store.
        let q = "#[semiring(ivm::semiring::Int)]
            query R { relation R(a: u32, b: u32); relation S(b: u32, c: u32); relation T(c: u32, a: u32);
                      Q() = R(a, b) * S(b, c) * T(c, a); }";
        let every = [("R", Kept::Every), ("S", Kept::Every), ("T", Kept::Every)];
        assert_eq!(kept(q), named(&every));
    }

    #[test]
    fn deletes_keep_fingerprints_of_what_nothing_reads_back() {
        // Each atom feeds a sum of its own: only a delete's check reads
        // the relations.
        let q = "#[semiring(ivm::semiring::Int)]
            query D { relation R(k: u32, x: u32); relation S(k: u32, y: u32); Q(k) = R(k, x) * S(k, y); }";
        let fingerprinted = [("R", Kept::Fingerprinted), ("S", Kept::Fingerprinted)];
        assert_eq!(kept(q), named(&fingerprinted));
        // `S(k, y)` is looked up as a sibling: kept whole.
        let q = "#[semiring(ivm::semiring::Count)]
            query V { relation R(k: u32, y: u32, x: u32); relation S(k: u32, y: u32);
                      Q(k) = R(k, y, x) * S(k, y); }";
        let expected = [("R", Kept::Fingerprinted), ("S", Kept::Every)];
        assert_eq!(kept(q), named(&expected));
    }

    #[test]
    fn a_relation_only_a_semijoin_reads_keeps_fingerprints_with_payloads() {
        // Over a ring a semijoin's count changes when a tuple of `S` turns
        // live or dead, which only its payloads tell: the fingerprints
        // keep those, and the tuples stay unread.
        let q = "#[semiring(ivm::semiring::Int)]
            query J { relation R(a: u32, b: u32); relation S(b: u32, c: u32);
                      Q(a, b) = R(a, b) * exists(S(b, c) * { c > 3 }); }";
        let expected = [
            ("R", Kept::Every),
            ("S", Kept::FingerprintedPayloads),
            ("Exists1", Kept::Every),
        ];
        assert_eq!(kept(q), named(&expected));
        // So under trusted deletes too, where a relation nothing reads
        // keeps nothing.
        let q = q.replace(
            "#[semiring(ivm::semiring::Int)]",
            "#[semiring(ivm::semiring::Int)] #[deletes(trusted)]",
        );
        assert_eq!(kept(&q), named(&expected));
    }

    #[test]
    fn a_sql_table_only_a_semijoin_reads_keeps_nothing_under_trusted_deletes() {
        // A SQL table's payload counts its rows, and only a delete takes
        // rows back: under trusted deletes the semijoin counts one per
        // update, and `s` keeps nothing. Checked, the rule's own
        // `update_s` may be handed a δ that takes rows away, so the
        // fingerprints keep the payloads.
        let view = |with: &str| {
            format!(
                "CREATE TABLE r (a INT NOT NULL, b INT NOT NULL);
                 CREATE TABLE s (b INT NOT NULL, c INT NOT NULL);
                 CREATE VIEW j {with} AS SELECT a, b, COUNT(*) AS n FROM r
                 WHERE EXISTS (SELECT * FROM s WHERE s.b = r.b AND s.c > 3) GROUP BY a, b;"
            )
        };
        let of_s = |text: &str| {
            kept(text)
                .into_iter()
                .find(|(name, _)| name == "S")
                .map(|(_, kept)| kept)
        };
        assert_eq!(of_s(&view("")), Some(Kept::FingerprintedPayloads));
        let trusted = view("WITH (deletes = 'trusted')");
        assert_eq!(of_s(&trusted), Some(Kept::Trusted));
    }

    #[test]
    fn deletes_first_order_and_recompute_keep_every_tuple() {
        let q = "#[semiring(ivm::semiring::Int)] #[strategy(first_order)]
            query D { relation R(k: u32, x: u32); relation S(k: u32, y: u32); Q(k) = R(k, x) * S(k, y); }";
        let every = [("R", Kept::Every), ("S", Kept::Every)];
        assert_eq!(kept(q), named(&every));
        let q = "#[semiring(ivm::semiring::Count)] #[updates(insert_only)] #[strategy(recompute)]
            query G { relation R(k: u32, x: u32); relation S(k: u32, y: u32); Q(k) = R(k, x) * S(k, y); }";
        assert_eq!(kept(q), named(&every));
        let q = "#[semiring(ivm::semiring::Bool)] #[updates(insert_only)] #[strategy(first_order)]
            query O { relation R(k: u32, x: u32); relation S(k: u32, y: u32); Q(k) = R(k, x) * S(k, y); }";
        assert_eq!(kept(q), named(&every));
    }
}
