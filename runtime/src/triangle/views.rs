//! The views over heavy pairs, stored by rows; the delta rule of one role
//! and the upkeep of the views (one generic function each, for the three
//! rotated roles); minor and major rebalancing of the views.

use std::hash::Hash;

use hashbrown::hash_map::Entry;

use super::part::{Adj, Changed, Part};
use super::{Threshold, Value, replaced};
use crate::__private::HashMap;
use crate::Counting;

/// A view W(x, z), stored by rows: W(x, ·) for each x. A view's first
/// variable is always heavy in one direction and its second heavy in the
/// other, so there are few rows and they are short; upkeep changes many
/// entries of one row at a time, or one entry of many rows.
pub(super) type View<X, Z, K> = HashMap<X, Row<Z, K>>;

pub(super) type Row<Z, K> = HashMap<Z, K>;

pub(super) fn view_get<X: Eq + Hash, Z: Eq + Hash, K: Counting>(
    v: &View<X, Z, K>,
    x: &X,
    z: &Z,
) -> K {
    v.get(x)
        .and_then(|row| row.get(z))
        .cloned()
        .unwrap_or_else(K::zero)
}

/// Runs `f` on row x of `v`, dropping the row if `f` leaves it empty.
pub(super) fn with_row<X: Value, Z, K>(
    v: &mut View<X, Z, K>,
    x: &X,
    f: impl FnOnce(&mut Row<Z, K>),
) {
    let row = v.entry(x.clone()).or_default();
    f(row);
    if row.is_empty() {
        v.remove(x);
    }
}

/// One term of V(x, z) changes from `old·w` to `new·w`.
pub(super) fn view_replace<X: Value, Z: Value, K: Counting>(
    v: &mut View<X, Z, K>,
    x: &X,
    z: &Z,
    old: &K,
    new: &K,
    w: &K,
) {
    with_row(v, x, |row| row_replace(row, z, old, new, w));
}

/// One term of row(z) changes from `old·w` to `new·w`: one lookup.
pub(super) fn row_replace<Z: Value, K: Counting>(
    row: &mut Row<Z, K>,
    z: &Z,
    old: &K,
    new: &K,
    w: &K,
) {
    match row.entry(z.clone()) {
        Entry::Occupied(mut e) => {
            let next = replaced(e.get(), old, new, w);
            if next.is_zero() {
                e.remove();
            } else {
                *e.get_mut() = next;
            }
        }
        Entry::Vacant(e) => {
            let next = replaced(&K::zero(), old, new, w);
            if !next.is_zero() {
                e.insert(next);
            }
        }
    }
}

/// An update of P_i(x, y) from `old` to `new`, with P_j and P_k the next
/// relations in the cycle and W_i, W_j, W_k their views (W_i joins P_i
/// with P_j, and so on). Returns the old and new values of the terms of
/// the count this tuple takes part in.
#[allow(
    clippy::too_many_arguments,
    reason = "the roles rotate: one function, three instantiations"
)]
pub(super) fn rotated<X: Value, Y: Value, Z: Value, K: Counting>(
    pi: &mut Part<X, Y, K>,
    pj: &Part<Y, Z, K>,
    pk: &Part<Z, X, K>,
    wi: &mut View<X, Z, K>,
    wj: &View<Y, X, K>,
    wk: &mut View<Z, Y, K>,
    x: &X,
    y: &Y,
    old: &K,
    new: &K,
    threshold: &Threshold,
) -> (K, K) {
    let paths = paths(pj, pk, wj, x, y);
    let changed = pi.set(x, y, new.clone(), threshold);
    // The other factors of the view terms are in P_j and P_k, which this
    // update leaves as they were.
    if changed.x_heavy {
        upkeep_first(pj, wi, x, y, old, new);
    }
    if changed.y_heavy {
        upkeep_second(pk, wk, x, y, old, new);
    }
    if changed.moves() {
        rebalance_minor(pi, pj, pk, wi, wk, x, y, &changed);
    }
    (old.mul(&paths), new.mul(&paths))
}

/// Σ_z P_j(y, z) · P_k(z, x): the view's W_j(y, x) when y is heavy out in
/// P_j and x heavy in in P_k, else a walk of the shorter of the two, one
/// of which is light (fewer than 3/2·θ tuples), looking each partner up in
/// the other. Where both are light this is the first-order delta.
pub(super) fn paths<X: Value, Y: Value, Z: Value, K: Counting>(
    pj: &Part<Y, Z, K>,
    pk: &Part<Z, X, K>,
    wj: &View<Y, X, K>,
    x: &X,
    y: &Y,
) -> K {
    let (Some(from), Some(to)) = (pj.outgoing(y), pk.incoming(x)) else {
        return K::zero();
    };
    if from.heavy && to.heavy {
        return view_get(wj, y, x);
    }
    intersect(from, to)
}

/// Σ over the partners z in both of the product of their payloads,
/// walking the smaller.
pub(super) fn intersect<Z: Value, K: Counting>(a: &Adj<Z, K>, b: &Adj<Z, K>) -> K {
    let (walk, probe) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let mut sum = K::zero();
    for (z, k) in walk.iter() {
        if let Some(other) = probe.get(z) {
            sum = sum.add(&k.mul(other));
        }
    }
    sum
}

/// P_i(x, y) changed from `old` to `new`, x heavy out: as the first factor
/// of W_i(x, z) = Σ_y P_i(x, y) · P_j(y, z), over the heavy-in z with
/// P_j(y, z), at most N/θ_in of them.
pub(super) fn upkeep_first<X: Value, Y: Value, Z: Value, K: Counting>(
    pj: &Part<Y, Z, K>,
    wi: &mut View<X, Z, K>,
    x: &X,
    y: &Y,
    old: &K,
    new: &K,
) {
    let Some(next) = pj.outgoing(y).filter(|a| a.has_heavy_partners()) else {
        return;
    };
    with_row(wi, x, |row| {
        for (z, kz) in next.heavy_partners() {
            row_replace(row, z, old, new, kz);
        }
    });
}

/// P_i(x, y) changed from `old` to `new`, y heavy in: as the second
/// factor of W_k(z, y) = Σ_x P_k(z, x) · P_i(x, y), over the heavy-out z
/// with P_k(z, x), at most N/θ_out of them.
pub(super) fn upkeep_second<X: Value, Y: Value, Z: Value, K: Counting>(
    pk: &Part<Z, X, K>,
    wk: &mut View<Z, Y, K>,
    x: &X,
    y: &Y,
    old: &K,
    new: &K,
) {
    if let Some(prev) = pk.incoming(x) {
        for (z, kz) in prev.heavy_partners() {
            view_replace(wk, z, y, old, new, kz);
        }
    }
}

/// Minor rebalancing after P_i(x, y) changed: x moves between the heavy-out
/// and light-out parts when its degree crossed a bound, and W_i's row x is
/// built or dropped; y likewise between the in parts, and W_k's column y.
#[allow(
    clippy::too_many_arguments,
    reason = "the roles rotate: one function, three instantiations"
)]
pub(super) fn rebalance_minor<X: Value, Y: Value, Z: Value, K: Counting>(
    pi: &mut Part<X, Y, K>,
    pj: &Part<Y, Z, K>,
    pk: &Part<Z, X, K>,
    wi: &mut View<X, Z, K>,
    wk: &mut View<Z, Y, K>,
    x: &X,
    y: &Y,
    changed: &Changed,
) {
    if let Some(heavy) = changed.x_moves {
        pi.set_heavy_out(x, heavy);
        if heavy {
            let ys = pi.outgoing(x).expect("moves");
            insert_row(wi, x, build_row(ys, pj));
        } else {
            wi.remove(x);
        }
    }
    if let Some(heavy) = changed.y_moves {
        pi.set_heavy_in(y, heavy);
        if heavy {
            add_column(wk, y, pi.incoming(y).expect("moves"), pk);
        } else {
            remove_column(wk, y);
        }
    }
}

pub(super) fn insert_row<X: Value, Z, K>(w: &mut View<X, Z, K>, x: &X, row: Row<Z, K>) {
    if !row.is_empty() {
        w.insert(x.clone(), row);
    }
}

/// Row W(x, ·) = Σ_y P(x, y) · Q(y, ·) over the heavy-in values of Q,
/// from x's tuples `ys`: O(|ys| · N/θ_in).
pub(super) fn build_row<Y: Value, Z: Value, K: Counting>(
    ys: &Adj<Y, K>,
    q: &Part<Y, Z, K>,
) -> Row<Z, K> {
    let mut row = Row::default();
    for (y, left) in ys.iter() {
        if let Some(next) = q.outgoing(y) {
            for (z, right) in next.heavy_partners() {
                let e = row.entry(z.clone()).or_insert_with(K::zero);
                *e = e.add(&left.mul(right));
            }
        }
    }
    row.retain(|_, k| !k.is_zero());
    row
}

/// Column W(·, y) = Σ_x P(·, x) · Q(x, y) over the heavy-out values of P,
/// from y's tuples `xs` in Q (y was heavy in in none of W's columns
/// before): O(|xs| · N/θ_out).
pub(super) fn add_column<X: Value, Y: Value, Z: Value, K: Counting>(
    w: &mut View<Z, Y, K>,
    y: &Y,
    xs: &Adj<X, K>,
    p: &Part<Z, X, K>,
) {
    let mut column: HashMap<Z, K> = HashMap::default();
    for (x, right) in xs.iter() {
        if let Some(prev) = p.incoming(x) {
            for (z, left) in prev.heavy_partners() {
                let e = column.entry(z.clone()).or_insert_with(K::zero);
                *e = e.add(&left.mul(right));
            }
        }
    }
    for (z, k) in column {
        if !k.is_zero() {
            w.entry(z).or_default().insert(y.clone(), k);
        }
    }
}

/// Drops column y from every row: O(rows), at most N/θ_out.
pub(super) fn remove_column<Z: Value, Y: Value, K>(w: &mut View<Z, Y, K>, y: &Y) {
    w.retain(|_, row| {
        row.remove(y);
        !row.is_empty()
    });
}

/// W(x, z) = Σ_y P(x, y) · Q(y, z) over x heavy out in P and z heavy in in
/// Q, from scratch.
pub(super) fn build_view<X: Value, Y: Value, Z: Value, K: Counting>(
    p: &Part<X, Y, K>,
    q: &Part<Y, Z, K>,
) -> View<X, Z, K> {
    let mut w: View<X, Z, K> = HashMap::default();
    for (x, adj) in p.by_first() {
        if adj.heavy {
            insert_row(&mut w, x, build_row(adj, q));
        }
    }
    w
}

pub(super) fn same_view<X: Eq + Hash, Z: Eq + Hash, K: Counting>(
    a: &View<X, Z, K>,
    b: &View<X, Z, K>,
) -> bool {
    a.len() == b.len()
        && a.iter().all(|(x, row)| {
            b.get(x).is_some_and(|other| {
                row.len() == other.len() && row.iter().all(|(z, k)| other.get(z) == Some(k))
            })
        })
}
