//! IVMε for the triangle count `Q() = Σ R(a, b) · S(b, c) · T(c, a)`
//! (papers/000): each relation is partitioned on its first column into a
//! heavy and a light part by degree against the threshold θ = M^ε, three
//! views join a heavy part with the next relation's light part, and every
//! delta is evaluated over the combination of parts that keeps it
//! sublinear: O(N^max(ε, 1−ε)) amortized per update, O(N^(1+min(ε, 1−ε)))
//! space.
//!
//! The three relations play rotated roles: P0 = R(A, B), P1 = S(B, C),
//! P2 = T(C, A), each partitioned on its first column, and view i is
//! V_i(x_i, x_{i+2}) = Σ_{x_{i+1}} P_i,heavy(x_i, x_{i+1}) · P_{i+1},light(x_{i+1}, x_{i+2}).
//! One generic function handles an update to any role, instantiated three
//! times with the roles rotated, so the code is monomorphized for the
//! query's column types and semiring. When one relation plays all three
//! roles in one orientation (a directed graph's triangles), the three
//! partitioned copies and views would be equal: [`GraphTriangle`] keeps one
//! of each and applies one delta per update.

use std::hash::Hash;

use hashbrown::hash_map::Entry;

use crate::__private::HashMap;
use crate::semiring::Count;
use crate::{Ring, Semiring};

/// A semiring in which a sum can be taken back exactly: the semirings
/// IVMε maintains the triangle count over. Every ring is one (`Int`,
/// `Real`, `Covariance<M>` and a user's ring alike), and so is `Count`,
/// whose sums IVMε only ever reduces by a part of them.
pub trait Counting: Semiring {
    /// `self − other`, where `other` is known to be part of the sum
    /// `self` (so the result is never negative for `Count`).
    fn minus(&self, other: &Self) -> Self;
}

impl<K: Ring> Counting for K {
    fn minus(&self, other: &Self) -> Self {
        self.sub(other)
    }
}

impl Counting for Count {
    fn minus(&self, other: &Self) -> Self {
        Count(self.0.checked_sub(other.0).expect(
            "ivm: Count underflow in the triangle count: a retraction exceeded what was inserted",
        ))
    }
}

/// `v + new·w − old·w`: one term of a sum changes from `old·w` to `new·w`.
fn replaced<K: Counting>(v: &K, old: &K, new: &K, w: &K) -> K {
    v.add(&new.mul(w)).minus(&old.mul(w))
}

/// Where one tuple (x, y) sits: its payload, and its positions in x's
/// list and in y's list.
#[derive(Debug, Clone)]
struct Slot<K> {
    k: K,
    at: u32,
    back: u32,
}

/// The tuples of one first-column value, and its part.
#[derive(Debug, Clone)]
struct Values<Y, K> {
    heavy: bool,
    list: Vec<(Y, K)>,
}

impl<Y, K> Values<Y, K> {
    fn light() -> Self {
        Values {
            heavy: false,
            list: Vec::new(),
        }
    }
}

/// The tuples of one second-column value: those whose first value is heavy
/// come first, `list[..heavy]`.
#[derive(Debug, Clone)]
struct Into<X, K> {
    heavy: usize,
    list: Vec<(X, K)>,
}

impl<X, K> Default for Into<X, K> {
    fn default() -> Self {
        Into {
            heavy: 0,
            list: Vec::new(),
        }
    }
}

/// One relation, partitioned on its first column.
///
/// The delta rules walk tuples far more often than they look one up, so
/// each tuple's payload is stored beside it in both lists that hold it,
/// and a walk costs no lookup per tuple: the tuples of its first value
/// (`out`) and those of its second value (`into`), the latter with the
/// heavy first values in front. That second list is what keeps the rules
/// proportional to the tuples that matter: "the heavy u with P(u, x) ≠ 0"
/// is one slice, where scanning every heavy value costs N/θ lookups
/// whatever x is, and a sum over x's partners can walk whichever side of
/// the join is shorter.
#[derive(Debug, Clone)]
struct Part<X, Y, K> {
    tuples: HashMap<(X, Y), Slot<K>>,
    out: HashMap<X, Values<Y, K>>,
    into: HashMap<Y, Into<X, K>>,
}

/// A position in a list, stored in a [`Slot`]. Degrees are below 2^32.
fn pos(i: usize) -> u32 {
    u32::try_from(i).expect("a value with 2^32 tuples")
}

impl<X: Clone + Eq + Hash, Y: Clone + Eq + Hash, K: Counting> Part<X, Y, K> {
    fn new() -> Self {
        Part {
            tuples: HashMap::default(),
            out: HashMap::default(),
            into: HashMap::default(),
        }
    }

    fn get(&self, x: &X, y: &Y) -> K {
        self.tuples
            .get(&(x.clone(), y.clone()))
            .map_or_else(K::zero, |slot| slot.k.clone())
    }

    fn values(&self, x: &X) -> Option<&Values<Y, K>> {
        self.out.get(x)
    }

    fn is_heavy(&self, x: &X) -> bool {
        self.out.get(x).is_some_and(|v| v.heavy)
    }

    /// The tuples (x, y), with their payloads.
    fn ys(&self, x: &X) -> &[(Y, K)] {
        self.out.get(x).map_or(&[], |v| v.list.as_slice())
    }

    /// The tuples (u, y), with their payloads.
    fn xs(&self, y: &Y) -> &[(X, K)] {
        self.into.get(y).map_or(&[], |i| i.list.as_slice())
    }

    /// The tuples (u, y) with u heavy, with their payloads.
    fn heavy_xs(&self, y: &Y) -> &[(X, K)] {
        self.into.get(y).map_or(&[], |i| &i.list[..i.heavy])
    }

    fn len(&self) -> usize {
        self.tuples.len()
    }

    /// Sets the payload of (x, y), keeping both lists in step. A value
    /// whose last tuple goes is forgotten, part included: a heavy value
    /// always has a tuple (its degree is at least θ/2 > 0).
    fn set(&mut self, x: &X, y: &Y, k: K) {
        let Part { tuples, out, into } = self;
        let key = (x.clone(), y.clone());
        match (tuples.get_mut(&key), k.is_zero()) {
            (Some(slot), false) => {
                slot.k = k.clone();
                out.get_mut(x).expect("listed").list[slot.at as usize].1 = k.clone();
                into.get_mut(y).expect("listed").list[slot.back as usize].1 = k;
            }
            (Some(slot), true) => {
                let (at, mut back) = (slot.at as usize, slot.back as usize);
                let list = into.get_mut(y).expect("listed");
                if back < list.heavy {
                    // Out of the heavy prefix first (while the slot is
                    // there to follow the swap), then out of the list.
                    list.heavy -= 1;
                    swap(tuples, list, y, back, list.heavy);
                    back = list.heavy;
                }
                list.list.swap_remove(back);
                if let Some((moved, _)) = list.list.get(back) {
                    tuples
                        .get_mut(&(moved.clone(), y.clone()))
                        .expect("listed")
                        .back = pos(back);
                }
                if list.list.is_empty() {
                    into.remove(y);
                }
                tuples.remove(&key);
                let values = out.get_mut(x).expect("listed");
                values.list.swap_remove(at);
                if let Some((moved, _)) = values.list.get(at) {
                    tuples
                        .get_mut(&(x.clone(), moved.clone()))
                        .expect("listed")
                        .at = pos(at);
                }
                if values.list.is_empty() {
                    out.remove(x);
                }
            }
            (None, false) => {
                let values = out.entry(x.clone()).or_insert_with(Values::light);
                values.list.push((y.clone(), k.clone()));
                let list = into.entry(y.clone()).or_default();
                list.list.push((x.clone(), k.clone()));
                let last = list.list.len() - 1;
                tuples.insert(
                    key,
                    Slot {
                        k,
                        at: pos(values.list.len() - 1),
                        back: pos(last),
                    },
                );
                if values.heavy {
                    swap(tuples, list, y, last, list.heavy);
                    list.heavy += 1;
                }
            }
            (None, true) => {}
        }
    }

    /// Moves x to the heavy or the light part: O(degree of x).
    fn set_heavy(&mut self, x: &X, heavy: bool) {
        let Part { tuples, out, into } = self;
        if let Some(values) = out.get_mut(x) {
            mark(tuples, into, x, values, heavy);
        }
    }
}

/// Moves x's tuples into, or out of, the heavy prefix of their second
/// values' lists.
fn mark<X: Clone + Eq + Hash, Y: Clone + Eq + Hash, K>(
    tuples: &mut HashMap<(X, Y), Slot<K>>,
    into: &mut HashMap<Y, Into<X, K>>,
    x: &X,
    values: &mut Values<Y, K>,
    heavy: bool,
) {
    if values.heavy == heavy {
        return;
    }
    values.heavy = heavy;
    for (y, _) in &values.list {
        let back = tuples[&(x.clone(), y.clone())].back as usize;
        let list = into.get_mut(y).expect("listed");
        if heavy {
            swap(tuples, list, y, back, list.heavy);
            list.heavy += 1;
        } else {
            list.heavy -= 1;
            swap(tuples, list, y, back, list.heavy);
        }
    }
}

/// Swaps entries `a` and `b` of y's list, and the positions their slots
/// record.
fn swap<X: Clone + Eq + Hash, Y: Clone + Eq + Hash, K>(
    tuples: &mut HashMap<(X, Y), Slot<K>>,
    list: &mut Into<X, K>,
    y: &Y,
    a: usize,
    b: usize,
) {
    if a == b {
        return;
    }
    list.list.swap(a, b);
    for i in [a, b] {
        let u = &list.list[i].0;
        tuples
            .get_mut(&(u.clone(), y.clone()))
            .expect("listed")
            .back = pos(i);
    }
}

/// A view V(x, z), stored by rows: V(x, ·) for each x. In IVMε a view's
/// first variable is always a heavy value, so there are few rows, and the
/// delta rules and rebalancing update many entries of one row at a time:
/// once the row is found, those updates stay within one small table
/// instead of scattering over one table as large as the view.
type View<X, Z, K> = HashMap<X, Row<Z, K>>;
type Row<Z, K> = HashMap<Z, K>;

fn view_get<X: Eq + Hash, Z: Eq + Hash, K: Counting>(v: &View<X, Z, K>, x: &X, z: &Z) -> K {
    v.get(x)
        .and_then(|row| row.get(z))
        .cloned()
        .unwrap_or_else(K::zero)
}

/// Runs `f` on row x of `v`, dropping the row if `f` leaves it empty.
fn with_row<X: Clone + Eq + Hash, Z, K>(
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
fn view_replace<X: Clone + Eq + Hash, Z: Clone + Eq + Hash, K: Counting>(
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
fn row_replace<Z: Clone + Eq + Hash, K: Counting>(
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

/// The partition threshold θ = M^ε, with M a power of two kept within a
/// factor of the database size N: ⌊M/4⌋ ≤ N < M.
#[derive(Debug, Clone)]
struct Threshold {
    eps: f64,
    m: usize,
    theta: f64,
}

impl Threshold {
    fn new(eps: f64) -> Self {
        Threshold {
            eps,
            m: 1,
            theta: 1.0,
        }
    }

    /// Major rebalancing's trigger: doubles or halves M until N fits
    /// again. Returns whether M changed, when every value must be
    /// repartitioned and the views recomputed.
    fn fit(&mut self, n: usize) -> bool {
        let before = self.m;
        while n >= self.m {
            self.m *= 2;
        }
        while self.m > 1 && n < self.m / 4 {
            self.m /= 2;
        }
        if self.m == before {
            return false;
        }
        self.theta = (self.m as f64).powf(self.eps);
        true
    }

    fn check(&self, n: usize) -> Result<(), String> {
        if self.m / 4 <= n && n < self.m {
            Ok(())
        } else {
            Err(format!("N = {n} is outside [⌊M/4⌋, M) for M = {}", self.m))
        }
    }
}

/// The IVMε state for one triangle query: three partitioned relations,
/// three views, the count, and the partition threshold's M.
#[derive(Debug, Clone)]
pub struct Triangle<A, B, C, K> {
    r: Part<A, B, K>,
    s: Part<B, C, K>,
    t: Part<C, A, K>,
    v_rs: View<A, C, K>,
    v_st: View<B, A, K>,
    v_tr: View<C, B, K>,
    count: K,
    threshold: Threshold,
}

impl<A, B, C, K> Triangle<A, B, C, K>
where
    A: Clone + Eq + Hash,
    B: Clone + Eq + Hash,
    C: Clone + Eq + Hash,
    K: Counting,
{
    /// An empty state with partition exponent `eps` in [0, 1].
    pub fn new(eps: f64) -> Self {
        Triangle {
            r: Part::new(),
            s: Part::new(),
            t: Part::new(),
            v_rs: HashMap::default(),
            v_st: HashMap::default(),
            v_tr: HashMap::default(),
            count: K::zero(),
            threshold: Threshold::new(eps),
        }
    }

    /// The triangle count.
    pub fn count(&self) -> &K {
        &self.count
    }

    /// The number of tuples N over the three relations.
    fn size(&self) -> usize {
        self.r.len() + self.s.len() + self.t.len()
    }

    /// R(a, b) changes from `old` to `new`.
    pub fn update_r(&mut self, a: &A, b: &B, old: &K, new: &K) {
        let theta = self.threshold.theta;
        let d = rotated(
            &mut self.r,
            &self.s,
            &self.t,
            &mut self.v_rs,
            &self.v_st,
            &mut self.v_tr,
            a,
            b,
            old,
            new,
            theta,
        );
        self.count = self.count.add(&d.1).minus(&d.0);
        self.rebalance();
    }

    /// S(b, c) changes from `old` to `new`.
    pub fn update_s(&mut self, b: &B, c: &C, old: &K, new: &K) {
        let theta = self.threshold.theta;
        let d = rotated(
            &mut self.s,
            &self.t,
            &self.r,
            &mut self.v_st,
            &self.v_tr,
            &mut self.v_rs,
            b,
            c,
            old,
            new,
            theta,
        );
        self.count = self.count.add(&d.1).minus(&d.0);
        self.rebalance();
    }

    /// T(c, a) changes from `old` to `new`.
    pub fn update_t(&mut self, c: &C, a: &A, old: &K, new: &K) {
        let theta = self.threshold.theta;
        let d = rotated(
            &mut self.t,
            &self.r,
            &self.s,
            &mut self.v_tr,
            &self.v_rs,
            &mut self.v_st,
            c,
            a,
            old,
            new,
            theta,
        );
        self.count = self.count.add(&d.1).minus(&d.0);
        self.rebalance();
    }

    /// Major rebalancing: when N leaves [⌊M/4⌋, M), M doubles or halves,
    /// every value is repartitioned against the new threshold, and the
    /// views are recomputed.
    fn rebalance(&mut self) {
        if !self.threshold.fit(self.size()) {
            return;
        }
        let theta = self.threshold.theta;
        repartition(&mut self.r, theta);
        repartition(&mut self.s, theta);
        repartition(&mut self.t, theta);
        self.v_rs = build_view(&self.r, &self.s);
        self.v_st = build_view(&self.s, &self.t);
        self.v_tr = build_view(&self.t, &self.r);
    }

    /// Checks the invariants of papers/000 (for tests): ⌊M/4⌋ ≤ N < M;
    /// every light value's degree below 3/2·θ and every heavy value's at
    /// least 1/2·θ; the lists of each part agree with its tuples; the
    /// views equal their definitions; the count equals the triangle count
    /// evaluated from scratch.
    pub fn check(&self) -> Result<(), String> {
        self.threshold.check(self.size())?;
        let theta = self.threshold.theta;
        check_part(&self.r, theta, "R")?;
        check_part(&self.s, theta, "S")?;
        check_part(&self.t, theta, "T")?;
        if !same_view(&self.v_rs, &build_view(&self.r, &self.s)) {
            return Err("V_RS differs from its definition".into());
        }
        if !same_view(&self.v_st, &build_view(&self.s, &self.t)) {
            return Err("V_ST differs from its definition".into());
        }
        if !same_view(&self.v_tr, &build_view(&self.t, &self.r)) {
            return Err("V_TR differs from its definition".into());
        }
        let mut total = K::zero();
        for ((a, b), slot) in &self.r.tuples {
            for (c, sk) in self.s.ys(b) {
                total = total.add(&slot.k.mul(sk).mul(&self.t.get(c, a)));
            }
        }
        if total != self.count {
            return Err("the count differs from the triangle count evaluated from scratch".into());
        }
        Ok(())
    }
}

/// IVMε for the triangle count of one relation used three times in one
/// orientation, `Q() = Σ E(a, b) · E(b, c) · E(c, a)` (a directed graph's
/// triangles, each counted once per rotation).
///
/// The three roles of [`Triangle`] would hold the same tuples partitioned
/// the same way, and their three views would be equal, so this keeps one
/// partitioned copy of E and one view V(x, z) = Σ_y E_heavy(x, y) ·
/// E_light(y, z). An update of E(x, y) by δ changes the count by 3·δ·W,
/// with W = Σ_z E(y, z) · E(z, x) (the three rotations each find the same
/// paths), and for a self-loop (x = y) by the terms where the loop meets
/// itself too: the count is c + 3·e·U + e³ in its payload e, with U the
/// paths through another vertex. One update costs one delta, not three.
#[derive(Debug, Clone)]
pub struct GraphTriangle<V, K> {
    e: Part<V, V, K>,
    view: View<V, V, K>,
    count: K,
    threshold: Threshold,
}

impl<V: Clone + Eq + Hash, K: Counting> GraphTriangle<V, K> {
    /// An empty state with partition exponent `eps` in [0, 1].
    pub fn new(eps: f64) -> Self {
        GraphTriangle {
            e: Part::new(),
            view: HashMap::default(),
            count: K::zero(),
            threshold: Threshold::new(eps),
        }
    }

    /// The triangle count.
    pub fn count(&self) -> &K {
        &self.count
    }

    /// E(x, y) changes from `old` to `new`.
    pub fn update(&mut self, x: &V, y: &V, old: &K, new: &K) {
        let w = paths(&self.e, &self.e, &self.view, x, y);
        let thrice = |k: K| k.add(&k).add(&k);
        let (before, after) = if x == y {
            // W includes the path through the loop itself, old².
            let u = w.minus(&old.mul(old));
            let cube = |k: &K| k.mul(k).mul(k);
            (
                thrice(old.mul(&u)).add(&cube(old)),
                thrice(new.mul(&u)).add(&cube(new)),
            )
        } else {
            (thrice(old.mul(&w)), thrice(new.mul(&w)))
        };
        // The tuple cannot be both the heavy and the light factor of a
        // term of V (its x would be both), so one upkeep is exact.
        if self.e.is_heavy(x) {
            upkeep_heavy(&self.e, &mut self.view, x, y, old, new);
        } else {
            upkeep_light(&self.e, &mut self.view, x, y, old, new);
        }
        self.e.set(x, y, new.clone());
        if let Some(heavy) = crossing(self.e.values(x), self.threshold.theta) {
            // `move_part` with the three roles played by one part.
            if heavy {
                move_light_terms(
                    self.e.values(x).expect("crossing"),
                    self.e.heavy_xs(x),
                    &mut self.view,
                    true,
                );
                self.e.set_heavy(x, true);
                let row = build_row(self.e.values(x).expect("crossing"), &self.e);
                if !row.is_empty() {
                    self.view.insert(x.clone(), row);
                }
            } else {
                self.e.set_heavy(x, false);
                move_light_terms(
                    self.e.values(x).expect("crossing"),
                    self.e.heavy_xs(x),
                    &mut self.view,
                    false,
                );
                self.view.remove(x);
            }
        }
        self.count = self.count.add(&after).minus(&before);
        self.rebalance();
    }

    /// Major rebalancing, as in [`Triangle`], with N = |E|.
    fn rebalance(&mut self) {
        if !self.threshold.fit(self.e.len()) {
            return;
        }
        repartition(&mut self.e, self.threshold.theta);
        self.view = build_view(&self.e, &self.e);
    }

    /// Checks the invariants of papers/000 (for tests), as
    /// [`Triangle::check`] does, with N = |E|.
    pub fn check(&self) -> Result<(), String> {
        self.threshold.check(self.e.len())?;
        check_part(&self.e, self.threshold.theta, "E")?;
        if !same_view(&self.view, &build_view(&self.e, &self.e)) {
            return Err("V differs from its definition".into());
        }
        let mut total = K::zero();
        for ((a, b), slot) in &self.e.tuples {
            for (c, bc) in self.e.ys(b) {
                total = total.add(&slot.k.mul(bc).mul(&self.e.get(c, a)));
            }
        }
        if total != self.count {
            return Err("the count differs from the triangle count evaluated from scratch".into());
        }
        Ok(())
    }
}

/// An update of P_i(x, y) from `old` to `new`, with P_j and P_k the next
/// relations in the cycle and V_i, V_j, V_k their views. Returns the old
/// and new values of the terms of the count this tuple takes part in.
#[allow(
    clippy::too_many_arguments,
    reason = "the roles rotate: one function, three instantiations"
)]
fn rotated<X, Y, Z, K>(
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
) -> (K, K)
where
    X: Clone + Eq + Hash,
    Y: Clone + Eq + Hash,
    Z: Clone + Eq + Hash,
    K: Counting,
{
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

/// Σ_z P_j(y, z) · P_k(z, x), over the parts that keep it sublinear.
fn paths<X, Y, Z, K>(pj: &Part<Y, Z, K>, pk: &Part<Z, X, K>, vj: &View<Y, X, K>, x: &X, y: &Y) -> K
where
    X: Clone + Eq + Hash,
    Y: Clone + Eq + Hash,
    Z: Clone + Eq + Hash,
    K: Counting,
{
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
            if values.list.len() <= into.len() {
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
fn upkeep_heavy<X, Y, Z, K>(
    pj: &Part<Y, Z, K>,
    vi: &mut View<X, Z, K>,
    x: &X,
    y: &Y,
    old: &K,
    new: &K,
) where
    X: Clone + Eq + Hash,
    Y: Clone + Eq + Hash,
    Z: Clone + Eq + Hash,
    K: Counting,
{
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
fn upkeep_light<X, Y, Z, K>(
    pk: &Part<Z, X, K>,
    vk: &mut View<Z, Y, K>,
    x: &X,
    y: &Y,
    old: &K,
    new: &K,
) where
    X: Clone + Eq + Hash,
    Y: Clone + Eq + Hash,
    Z: Clone + Eq + Hash,
    K: Counting,
{
    for (u, ku) in pk.heavy_xs(x) {
        view_replace(vk, u, y, old, new, ku);
    }
}

/// Minor rebalancing: the part a value must move to, if any. A light
/// value whose degree reaches 3/2·θ becomes heavy (`Some(true)`), a heavy
/// one whose degree falls below 1/2·θ light (`Some(false)`).
fn crossing<Y, K>(values: Option<&Values<Y, K>>, theta: f64) -> Option<bool> {
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
fn move_part<X, Y, Z, K>(
    pi: &mut Part<X, Y, K>,
    pj: &Part<Y, Z, K>,
    pk: &Part<Z, X, K>,
    vi: &mut View<X, Z, K>,
    vk: &mut View<Z, Y, K>,
    x: &X,
    heavy: bool,
) where
    X: Clone + Eq + Hash,
    Y: Clone + Eq + Hash,
    Z: Clone + Eq + Hash,
    K: Counting,
{
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
fn move_light_terms<Y, Z, K>(
    values: &Values<Y, K>,
    heavy_into_x: &[(Z, K)],
    vk: &mut View<Z, Y, K>,
    leave: bool,
) where
    Y: Clone + Eq + Hash,
    Z: Clone + Eq + Hash,
    K: Counting,
{
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

/// Every value whose degree is at least θ is heavy, every other light.
fn repartition<X: Clone + Eq + Hash, Y: Clone + Eq + Hash, K: Counting>(
    p: &mut Part<X, Y, K>,
    theta: f64,
) {
    let Part { tuples, out, into } = p;
    for (x, values) in out.iter_mut() {
        let heavy = values.list.len() as f64 >= theta;
        mark(tuples, into, x, values, heavy);
    }
}

/// V(x, z) = Σ_y P_heavy(x, y) · Q_light(y, z), from scratch.
fn build_view<X, Y, Z, K>(p: &Part<X, Y, K>, q: &Part<Y, Z, K>) -> View<X, Z, K>
where
    X: Clone + Eq + Hash,
    Y: Clone + Eq + Hash,
    Z: Clone + Eq + Hash,
    K: Counting,
{
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
fn build_row<Y, Z, K>(values: &Values<Y, K>, q: &Part<Y, Z, K>) -> Row<Z, K>
where
    Y: Clone + Eq + Hash,
    Z: Clone + Eq + Hash,
    K: Counting,
{
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

fn same_view<X: Eq + Hash, Z: Eq + Hash, K: Counting>(
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

fn check_part<X: Clone + Eq + Hash, Y: Clone + Eq + Hash, K: Counting>(
    p: &Part<X, Y, K>,
    theta: f64,
    name: &str,
) -> Result<(), String> {
    for values in p.out.values() {
        let d = values.list.len() as f64;
        if values.heavy && d < 0.5 * theta {
            return Err(format!(
                "a heavy value of {name} has degree {d} < θ/2 = {}",
                0.5 * theta
            ));
        }
        if !values.heavy && d >= 1.5 * theta {
            return Err(format!(
                "a light value of {name} has degree {d} ≥ 3θ/2 = {}",
                1.5 * theta
            ));
        }
    }
    check_lists(p).map_err(|what| format!("{name}: {what}"))
}

/// Each tuple sits in both its values' lists at the positions its slot
/// records, with its payload, and in the heavy prefix of its second
/// value's list exactly when its first value is heavy; and the lists hold
/// nothing else.
fn check_lists<X: Clone + Eq + Hash, Y: Clone + Eq + Hash, K: Counting>(
    p: &Part<X, Y, K>,
) -> Result<(), String> {
    for ((x, y), slot) in &p.tuples {
        let values = p.out.get(x).ok_or("a tuple's first value has no list")?;
        if values.list.get(slot.at as usize) != Some(&(y.clone(), slot.k.clone())) {
            return Err("a tuple is not where its slot says in its first value's list".into());
        }
        let into = p.into.get(y).ok_or("a tuple's second value has no list")?;
        let back = slot.back as usize;
        if into.list.get(back) != Some(&(x.clone(), slot.k.clone())) {
            return Err("a tuple is not where its slot says in its second value's list".into());
        }
        if values.heavy != (back < into.heavy) {
            return Err("a tuple is on the wrong side of its second value's heavy prefix".into());
        }
    }
    let listed: usize = p.out.values().map(|v| v.list.len()).sum();
    let listed_into: usize = p.into.values().map(|i| i.list.len()).sum();
    if listed != p.tuples.len() || listed_into != p.tuples.len() {
        return Err("the lists hold tuples that are not in the part".into());
    }
    if p.out.values().any(|v| v.list.is_empty()) || p.into.values().any(|i| i.list.is_empty()) {
        return Err("an empty list is kept".into());
    }
    Ok(())
}

/// Factorized IVM for the triangle count (the baseline of papers/000): one
/// materialized view V_ST(B, A) = Σ_C S(B, C) · T(C, A). An update to R
/// costs one lookup in it; an update to S or T walks the tuples of the
/// other relation sharing its C value, O(N), and the view takes O(N²)
/// space at worst.
#[derive(Debug, Clone)]
pub struct Factorized<A, B, C, K> {
    r: HashMap<(A, B), K>,
    /// S, keyed by C first so the tuples sharing a C value can be walked.
    s: Part<C, B, K>,
    t: Part<C, A, K>,
    v_st: View<B, A, K>,
    count: K,
}

impl<A, B, C, K> Factorized<A, B, C, K>
where
    A: Clone + Eq + Hash,
    B: Clone + Eq + Hash,
    C: Clone + Eq + Hash,
    K: Counting,
{
    /// An empty state.
    pub fn new() -> Self {
        Factorized {
            r: HashMap::default(),
            s: Part::new(),
            t: Part::new(),
            v_st: HashMap::default(),
            count: K::zero(),
        }
    }

    /// The triangle count.
    pub fn count(&self) -> &K {
        &self.count
    }

    /// R(a, b) changes from `old` to `new`: one lookup in the view.
    pub fn update_r(&mut self, a: &A, b: &B, old: &K, new: &K) {
        let paths = view_get(&self.v_st, b, a);
        self.count = replaced(&self.count, old, new, &paths);
        let key = (a.clone(), b.clone());
        if new.is_zero() {
            self.r.remove(&key);
        } else {
            self.r.insert(key, new.clone());
        }
    }

    /// S(b, c) changes from `old` to `new`: the view and the count over
    /// the T tuples of c.
    pub fn update_s(&mut self, b: &B, c: &C, old: &K, new: &K) {
        for (a, w) in self.t.ys(c) {
            view_replace(&mut self.v_st, b, a, old, new, w);
            let r = self
                .r
                .get(&(a.clone(), b.clone()))
                .cloned()
                .unwrap_or_else(K::zero);
            self.count = replaced(&self.count, old, new, &r.mul(w));
        }
        self.s.set(c, b, new.clone());
    }

    /// T(c, a) changes from `old` to `new`: the view and the count over
    /// the S tuples of c.
    pub fn update_t(&mut self, c: &C, a: &A, old: &K, new: &K) {
        for (b, w) in self.s.ys(c) {
            view_replace(&mut self.v_st, b, a, old, new, w);
            let r = self
                .r
                .get(&(a.clone(), b.clone()))
                .cloned()
                .unwrap_or_else(K::zero);
            self.count = replaced(&self.count, old, new, &r.mul(w));
        }
        self.t.set(c, a, new.clone());
    }

    /// Checks that the view and the count equal their definitions (for
    /// tests).
    pub fn check(&self) -> Result<(), String> {
        let mut view: View<B, A, K> = HashMap::default();
        for c in self.s.out.keys() {
            for (b, sk) in self.s.ys(c) {
                for (a, tk) in self.t.ys(c) {
                    let row = view.entry(b.clone()).or_default();
                    let e = row.entry(a.clone()).or_insert_with(K::zero);
                    *e = e.add(&sk.mul(tk));
                }
            }
        }
        for row in view.values_mut() {
            row.retain(|_, k| !k.is_zero());
        }
        view.retain(|_, row| !row.is_empty());
        if !same_view(&view, &self.v_st) {
            return Err("V_ST differs from its definition".into());
        }
        let mut total = K::zero();
        for ((a, b), k) in &self.r {
            total = total.add(&k.mul(&view_get(&view, b, a)));
        }
        if total != self.count {
            return Err("the count differs from the triangle count evaluated from scratch".into());
        }
        Ok(())
    }
}

impl<A, B, C, K> Default for Factorized<A, B, C, K>
where
    A: Clone + Eq + Hash,
    B: Clone + Eq + Hash,
    C: Clone + Eq + Hash,
    K: Counting,
{
    fn default() -> Self {
        Self::new()
    }
}
