//! IVMε's views, stored by rows, their delta rules (one generic function
//! for the three rotated roles) and their upkeep when a value moves
//! between the parts (minor rebalancing) or all are rebuilt (major).

use std::hash::Hash;

use hashbrown::hash_map::Entry;

use super::part::{Part, Values};
use super::{Value, replaced};
use crate::__private::HashMap;
use crate::Counting;

/// A view V(x, z), stored by rows: V(x, ·) for each x. In IVMε a view's
/// first variable is always a heavy value, so there are few rows, and the
/// delta rules and rebalancing update many entries of one row at a time:
/// once the row is found, those updates stay within one small table
/// instead of scattering over one table as large as the view.
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
/// relations in the cycle and V_i, V_j, V_k their views. Returns the old
/// and new values of the terms of the count this tuple takes part in.
#[allow(
    clippy::too_many_arguments,
    reason = "the roles rotate: one function, three instantiations"
)]
pub(super) fn rotated<X: Value, Y: Value, Z: Value, K: Counting>(
    pi: &mut Part<X, Y, K>,
    pj: &Part<Y, Z, K>,
    pk: &Part<Z, X, K>,
    vi: &mut View<X, Z, K>,
    vj: &View<Y, X, K>,
    vk: &mut View<Z, Y, K>,
    x: &X,
    y: &Y,
    old: &K,
    new: &K,
    theta: f64,
) -> (K, K) {
    let paths = paths(pj, pk, vj, x, y);
    if pi.is_heavy(x) {
        upkeep_heavy(pj, vi, x, y, old, new);
    } else {
        upkeep_light(pk, vk, x, y, old, new);
    }
    pi.set(x, y, new.clone());
    if let Some(heavy) = crossing(pi.values(x), theta) {
        move_part(pi, pj, pk, vi, vk, x, heavy);
    }
    (old.mul(&paths), new.mul(&paths))
}

/// Below this many pairs, [`paths`] intersects two light lists by
/// comparing every pair rather than looking each tuple of the shorter one
/// up in the tuple map: a constant bound, so the update stays within
/// O(min(deg)) (at most `SCAN_PAIRS` comparisons), and comparing values
/// read in order from two short lists costs a few cycles each, where a
/// probe that misses the caches costs a hundred.
const SCAN_PAIRS: usize = 256;

/// Σ_z P_j(y, z) · P_k(z, x), over the parts that keep it sublinear.
pub(super) fn paths<X: Value, Y: Value, Z: Value, K: Counting>(
    pj: &Part<Y, Z, K>,
    pk: &Part<Z, X, K>,
    vj: &View<Y, X, K>,
    x: &X,
    y: &Y,
) -> K {
    let mut paths = K::zero();
    match pj.values(y) {
        Some(values) if values.heavy => {
            // z light in P_k: the view; z heavy: x's heavy partners in
            // P_k, at most N/θ of them.
            paths = paths.add(&view_get(vj, y, x));
            for (z, kz) in pk.heavy_xs(x) {
                let left = pj.get(y, z);
                if !left.is_zero() {
                    paths = paths.add(&left.mul(kz));
                }
            }
        }
        Some(values) => {
            // y light in P_j: fewer than 3/2·θ partners, unless x has
            // fewer in P_k.
            let into = pk.xs(x);
            if values.list.len() * into.len() <= SCAN_PAIRS {
                // Both lists short (the usual case on a light graph):
                // compare them pairwise. Each list is a few contiguous
                // cache lines, where each lookup of the tuple map is a
                // random probe of a table of N tuples.
                for (z, kj) in &values.list {
                    if let Some((_, kz)) = into.iter().find(|(u, _)| u == z) {
                        paths = paths.add(&kj.mul(kz));
                    }
                }
            } else if values.list.len() <= into.len() {
                for (z, kj) in &values.list {
                    paths = paths.add(&kj.mul(&pk.get(z, x)));
                }
            } else {
                for (z, kz) in into {
                    paths = paths.add(&pj.get(y, z).mul(kz));
                }
            }
        }
        None => {}
    }
    paths
}

/// P_i(x, y) changes from `old` to `new`, x heavy: V_i(x, w) holds
/// P_i,heavy(x, y) · P_j,light(y, w).
pub(super) fn upkeep_heavy<X: Value, Y: Value, Z: Value, K: Counting>(
    pj: &Part<Y, Z, K>,
    vi: &mut View<X, Z, K>,
    x: &X,
    y: &Y,
    old: &K,
    new: &K,
) {
    if let Some(values) = pj.values(y).filter(|v| !v.heavy) {
        with_row(vi, x, |row| {
            for (w, kw) in &values.list {
                row_replace(row, w, old, new, kw);
            }
        });
    }
}

/// P_i(x, y) changes from `old` to `new`, x light: V_k(u, y) holds
/// P_k,heavy(u, x) · P_i,light(x, y).
pub(super) fn upkeep_light<X: Value, Y: Value, Z: Value, K: Counting>(
    pk: &Part<Z, X, K>,
    vk: &mut View<Z, Y, K>,
    x: &X,
    y: &Y,
    old: &K,
    new: &K,
) {
    for (u, ku) in pk.heavy_xs(x) {
        view_replace(vk, u, y, old, new, ku);
    }
}

/// Minor rebalancing: the part a value must move to, if any. A light
/// value whose degree reaches 3/2·θ becomes heavy (`Some(true)`), a heavy
/// one whose degree falls below 1/2·θ light (`Some(false)`).
pub(super) fn crossing<Y, K>(values: Option<&Values<Y, K>>, theta: f64) -> Option<bool> {
    let values = values?;
    let degree = values.list.len() as f64;
    if !values.heavy && degree >= 1.5 * theta {
        Some(true)
    } else if values.heavy && degree < 0.5 * theta {
        Some(false)
    } else {
        None
    }
}

/// Moves x to the heavy part of P_i (`heavy`) or to the light one, and
/// its tuples between the views: as a light tuple, (x, y) feeds V_k(u, y)
/// for the heavy u with P_k(u, x); as a heavy one, row V_i(x, ·), which
/// holds x's tuples and nothing else, so it is built whole when x turns
/// heavy and dropped whole when x turns light. The light terms move while
/// x is light: before it turns heavy, after it turns light.
pub(super) fn move_part<X: Value, Y: Value, Z: Value, K: Counting>(
    pi: &mut Part<X, Y, K>,
    pj: &Part<Y, Z, K>,
    pk: &Part<Z, X, K>,
    vi: &mut View<X, Z, K>,
    vk: &mut View<Z, Y, K>,
    x: &X,
    heavy: bool,
) {
    if heavy {
        move_light_terms(pi.values(x).expect("crossing"), pk.heavy_xs(x), vk, true);
        pi.set_heavy(x, true);
        let row = build_row(pi.values(x).expect("crossing"), pj);
        if !row.is_empty() {
            vi.insert(x.clone(), row);
        }
    } else {
        pi.set_heavy(x, false);
        move_light_terms(pi.values(x).expect("crossing"), pk.heavy_xs(x), vk, false);
        vi.remove(x);
    }
}

/// The terms P_k,heavy(u, x) · P_i,light(x, y) of x's tuples leave V_k
/// (x turns heavy) or join it (x turns light).
pub(super) fn move_light_terms<Y: Value, Z: Value, K: Counting>(
    values: &Values<Y, K>,
    heavy_into_x: &[(Z, K)],
    vk: &mut View<Z, Y, K>,
    leave: bool,
) {
    let zero = K::zero();
    for (u, ku) in heavy_into_x {
        with_row(vk, u, |row| {
            for (y, k) in &values.list {
                let (old, new) = if leave { (k, &zero) } else { (&zero, k) };
                row_replace(row, y, old, new, ku);
            }
        });
    }
}

/// V(x, z) = Σ_y P_heavy(x, y) · Q_light(y, z), from scratch.
pub(super) fn build_view<X: Value, Y: Value, Z: Value, K: Counting>(
    p: &Part<X, Y, K>,
    q: &Part<Y, Z, K>,
) -> View<X, Z, K> {
    let mut v: View<X, Z, K> = HashMap::default();
    for (x, values) in &p.out {
        if values.heavy {
            let row = build_row(values, q);
            if !row.is_empty() {
                v.insert(x.clone(), row);
            }
        }
    }
    v
}

/// Row V(x, ·) = Σ_y P(x, y) · Q_light(y, ·) for the tuples (x, y) of a
/// heavy x, from scratch.
pub(super) fn build_row<Y: Value, Z: Value, K: Counting>(
    values: &Values<Y, K>,
    q: &Part<Y, Z, K>,
) -> Row<Z, K> {
    // Sized once for the terms: growing a large row step by step would
    // rehash it a dozen times.
    let terms = values.list.iter().map(|(y, _)| q.ys(y).len()).sum();
    let mut row = Row::with_capacity_and_hasher(terms, Default::default());
    for (y, left) in &values.list {
        if let Some(next) = q.values(y).filter(|n| !n.heavy) {
            for (z, right) in &next.list {
                let e = row.entry(z.clone()).or_insert_with(K::zero);
                *e = e.add(&left.mul(right));
            }
        }
    }
    row.retain(|_, k| !k.is_zero());
    row
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
