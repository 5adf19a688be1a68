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
//! query's column types and semiring.

use std::hash::Hash;

use crate::__private::HashMap;
use crate::Semiring;
use crate::semiring::{Count, Int, Real};

/// A semiring in which a sum can be taken back exactly: the counting
/// semirings IVMε maintains the triangle count over.
pub trait Counting: Semiring {
    /// `self − other`, where `other` is known to be part of the sum
    /// `self` (so the result is never negative for `Count`).
    fn minus(&self, other: &Self) -> Self;
}

impl Counting for Int {
    fn minus(&self, other: &Self) -> Self {
        Int(self
            .0
            .checked_sub(other.0)
            .expect("ivm: Int overflow in the triangle count"))
    }
}

impl Counting for Real {
    fn minus(&self, other: &Self) -> Self {
        Real(self.0 - other.0)
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

/// One relation, partitioned on its first column.
#[derive(Debug, Clone)]
struct Part<X, Y, K> {
    /// Each tuple's payload and its position in its first value's list.
    tuples: HashMap<(X, Y), (K, usize)>,
    /// For each first-column value, the second-column values it pairs with.
    adjacent: HashMap<X, Vec<Y>>,
    /// The heavy first-column values, with their positions in `heavy_list`.
    heavy: HashMap<X, usize>,
    heavy_list: Vec<X>,
}

impl<X: Clone + Eq + Hash, Y: Clone + Eq + Hash, K: Counting> Part<X, Y, K> {
    fn new() -> Self {
        Part {
            tuples: HashMap::default(),
            adjacent: HashMap::default(),
            heavy: HashMap::default(),
            heavy_list: Vec::new(),
        }
    }

    fn get(&self, x: &X, y: &Y) -> K {
        self.tuples
            .get(&(x.clone(), y.clone()))
            .map_or_else(K::zero, |(k, _)| k.clone())
    }

    fn degree(&self, x: &X) -> usize {
        self.adjacent.get(x).map_or(0, Vec::len)
    }

    fn is_heavy(&self, x: &X) -> bool {
        self.heavy.contains_key(x)
    }

    fn ys(&self, x: &X) -> &[Y] {
        self.adjacent.get(x).map_or(&[], Vec::as_slice)
    }

    fn len(&self) -> usize {
        self.tuples.len()
    }

    /// Sets the payload of (x, y), keeping the adjacency lists in step.
    fn set(&mut self, x: &X, y: &Y, k: K) {
        let key = (x.clone(), y.clone());
        match (self.tuples.get_mut(&key), k.is_zero()) {
            (Some(entry), false) => entry.0 = k,
            (Some(_), true) => {
                let (_, pos) = self.tuples.remove(&key).expect("present");
                let list = self.adjacent.get_mut(x).expect("listed");
                list.swap_remove(pos);
                if let Some(moved) = list.get(pos).cloned() {
                    self.tuples.get_mut(&(x.clone(), moved)).expect("listed").1 = pos;
                }
                if list.is_empty() {
                    self.adjacent.remove(x);
                }
            }
            (None, false) => {
                let list = self.adjacent.entry(x.clone()).or_default();
                list.push(y.clone());
                self.tuples.insert(key, (k, list.len() - 1));
            }
            (None, true) => {}
        }
    }

    fn set_heavy(&mut self, x: &X, heavy: bool) {
        if heavy {
            if !self.heavy.contains_key(x) {
                self.heavy.insert(x.clone(), self.heavy_list.len());
                self.heavy_list.push(x.clone());
            }
        } else if let Some(pos) = self.heavy.remove(x) {
            self.heavy_list.swap_remove(pos);
            if let Some(moved) = self.heavy_list.get(pos).cloned() {
                self.heavy.insert(moved, pos);
            }
        }
    }
}

type View<X, Z, K> = HashMap<(X, Z), K>;

fn view_get<X: Clone + Eq + Hash, Z: Clone + Eq + Hash, K: Counting>(
    v: &View<X, Z, K>,
    x: &X,
    z: &Z,
) -> K {
    v.get(&(x.clone(), z.clone()))
        .cloned()
        .unwrap_or_else(K::zero)
}

fn view_replace<X: Clone + Eq + Hash, Z: Clone + Eq + Hash, K: Counting>(
    v: &mut View<X, Z, K>,
    x: &X,
    z: &Z,
    old: &K,
    new: &K,
    w: &K,
) {
    let key = (x.clone(), z.clone());
    let current = v.get(&key).cloned().unwrap_or_else(K::zero);
    let next = replaced(&current, old, new, w);
    if next.is_zero() {
        v.remove(&key);
    } else {
        v.insert(key, next);
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
    eps: f64,
    m: usize,
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
            eps,
            m: 1,
        }
    }

    /// The triangle count.
    pub fn count(&self) -> &K {
        &self.count
    }

    /// θ = M^ε.
    fn theta(&self) -> f64 {
        (self.m as f64).powf(self.eps)
    }

    /// The number of tuples N over the three relations.
    fn size(&self) -> usize {
        self.r.len() + self.s.len() + self.t.len()
    }

    /// R(a, b) changes from `old` to `new`.
    pub fn update_r(&mut self, a: &A, b: &B, old: &K, new: &K) {
        let theta = self.theta();
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
        let theta = self.theta();
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
        let theta = self.theta();
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
        let n = self.size();
        let before = self.m;
        while n >= self.m {
            self.m *= 2;
        }
        while self.m > 1 && n < self.m / 4 {
            self.m /= 2;
        }
        if self.m == before {
            return;
        }
        let theta = self.theta();
        repartition(&mut self.r, theta);
        repartition(&mut self.s, theta);
        repartition(&mut self.t, theta);
        self.v_rs = build_view(&self.r, &self.s);
        self.v_st = build_view(&self.s, &self.t);
        self.v_tr = build_view(&self.t, &self.r);
    }

    /// Checks the invariants of papers/000 (for tests): ⌊M/4⌋ ≤ N < M;
    /// every light value's degree below 3/2·θ and every heavy value's at
    /// least 1/2·θ; the views equal their definitions; the count equals
    /// the triangle count evaluated from scratch.
    pub fn check(&self) -> Result<(), String> {
        let n = self.size();
        if !(self.m / 4 <= n && n < self.m) {
            return Err(format!("N = {n} is outside [⌊M/4⌋, M) for M = {}", self.m));
        }
        let theta = self.theta();
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
        for ((a, b), (rk, _)) in &self.r.tuples {
            for c in self.s.ys(b) {
                total = total.add(&rk.mul(&self.s.get(b, c)).mul(&self.t.get(c, a)));
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
    // Σ_z P_j(y, z) · P_k(z, x), over the parts that keep it sublinear.
    let mut paths = K::zero();
    if pj.is_heavy(y) {
        // z light in P_k: the view; z heavy: at most N/θ of them.
        paths = paths.add(&view_get(vj, y, x));
        for z in &pk.heavy_list {
            let left = pj.get(y, z);
            if !left.is_zero() {
                paths = paths.add(&left.mul(&pk.get(z, x)));
            }
        }
    } else {
        // y light in P_j: fewer than 3/2·θ partners.
        for z in pj.ys(y) {
            paths = paths.add(&pj.get(y, z).mul(&pk.get(z, x)));
        }
    }
    // V_i(x, w) holds P_i,heavy(x, y) · P_j,light(y, w).
    if pi.is_heavy(x) && !pj.is_heavy(y) {
        for w in pj.ys(y) {
            view_replace(vi, x, w, old, new, &pj.get(y, w));
        }
    }
    // V_k(u, y) holds P_k,heavy(u, x) · P_i,light(x, y).
    if !pi.is_heavy(x) {
        for u in &pk.heavy_list {
            let left = pk.get(u, x);
            if !left.is_zero() {
                view_replace(vk, u, y, old, new, &left);
            }
        }
    }
    pi.set(x, y, new.clone());
    minor_rebalance(pi, pj, pk, vi, vk, x, theta);
    (old.mul(&paths), new.mul(&paths))
}

/// Minor rebalancing of value x in P_i: a light value whose degree reaches
/// 3/2·θ becomes heavy, a heavy one whose degree falls below 1/2·θ light,
/// and its tuples move between the views accordingly.
fn minor_rebalance<X, Y, Z, K>(
    pi: &mut Part<X, Y, K>,
    pj: &Part<Y, Z, K>,
    pk: &Part<Z, X, K>,
    vi: &mut View<X, Z, K>,
    vk: &mut View<Z, Y, K>,
    x: &X,
    theta: f64,
) where
    X: Clone + Eq + Hash,
    Y: Clone + Eq + Hash,
    Z: Clone + Eq + Hash,
    K: Counting,
{
    let degree = pi.degree(x) as f64;
    let heavy = pi.is_heavy(x);
    let becomes_heavy = !heavy && degree >= 1.5 * theta;
    let becomes_light = heavy && degree < 0.5 * theta;
    if !becomes_heavy && !becomes_light {
        return;
    }
    let zero = K::zero();
    for y in pi.ys(x).to_vec() {
        let k = pi.get(x, &y);
        // As a light tuple it fed V_k; as a heavy one it feeds V_i.
        let (to_light, to_heavy) = if becomes_heavy {
            (&zero, &k)
        } else {
            (&k, &zero)
        };
        let (from_light, from_heavy) = if becomes_heavy {
            (&k, &zero)
        } else {
            (&zero, &k)
        };
        for u in &pk.heavy_list {
            let left = pk.get(u, x);
            if !left.is_zero() {
                view_replace(vk, u, &y, from_light, to_light, &left);
            }
        }
        if !pj.is_heavy(&y) {
            for w in pj.ys(&y) {
                view_replace(vi, x, w, from_heavy, to_heavy, &pj.get(&y, w));
            }
        }
    }
    pi.set_heavy(x, becomes_heavy);
}

fn repartition<X: Clone + Eq + Hash, Y: Clone + Eq + Hash, K: Counting>(
    p: &mut Part<X, Y, K>,
    theta: f64,
) {
    let xs: Vec<X> = p.adjacent.keys().cloned().collect();
    p.heavy.clear();
    p.heavy_list.clear();
    for x in xs {
        if p.degree(&x) as f64 >= theta {
            p.set_heavy(&x, true);
        }
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
    for x in &p.heavy_list {
        for y in p.ys(x) {
            if q.is_heavy(y) {
                continue;
            }
            let left = p.get(x, y);
            for z in q.ys(y) {
                let e = v.entry((x.clone(), z.clone())).or_insert_with(K::zero);
                *e = e.add(&left.mul(&q.get(y, z)));
            }
        }
    }
    v.retain(|_, k| !k.is_zero());
    v
}

fn same_view<X: Eq + Hash, Z: Eq + Hash, K: Counting>(
    a: &View<X, Z, K>,
    b: &View<X, Z, K>,
) -> bool {
    a.len() == b.len() && a.iter().all(|(key, k)| b.get(key) == Some(k))
}

fn check_part<X: Clone + Eq + Hash, Y: Clone + Eq + Hash, K: Counting>(
    p: &Part<X, Y, K>,
    theta: f64,
    name: &str,
) -> Result<(), String> {
    for x in p.adjacent.keys() {
        let d = p.degree(x) as f64;
        if p.is_heavy(x) && d < 0.5 * theta {
            return Err(format!(
                "a heavy value of {name} has degree {d} < θ/2 = {}",
                0.5 * theta
            ));
        }
        if !p.is_heavy(x) && d >= 1.5 * theta {
            return Err(format!(
                "a light value of {name} has degree {d} ≥ 3θ/2 = {}",
                1.5 * theta
            ));
        }
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
        for a in self.t.ys(c) {
            let w = self.t.get(c, a);
            view_replace(&mut self.v_st, b, a, old, new, &w);
            let r = self
                .r
                .get(&(a.clone(), b.clone()))
                .cloned()
                .unwrap_or_else(K::zero);
            self.count = replaced(&self.count, old, new, &r.mul(&w));
        }
        self.s.set(c, b, new.clone());
    }

    /// T(c, a) changes from `old` to `new`: the view and the count over
    /// the S tuples of c.
    pub fn update_t(&mut self, c: &C, a: &A, old: &K, new: &K) {
        for b in self.s.ys(c) {
            let w = self.s.get(c, b);
            view_replace(&mut self.v_st, b, a, old, new, &w);
            let r = self
                .r
                .get(&(a.clone(), b.clone()))
                .cloned()
                .unwrap_or_else(K::zero);
            self.count = replaced(&self.count, old, new, &r.mul(&w));
        }
        self.t.set(c, a, new.clone());
    }

    /// Checks that the view and the count equal their definitions (for
    /// tests).
    pub fn check(&self) -> Result<(), String> {
        let mut view: View<B, A, K> = HashMap::default();
        for c in self.s.adjacent.keys() {
            for b in self.s.ys(c) {
                for a in self.t.ys(c) {
                    let e = view.entry((b.clone(), a.clone())).or_insert_with(K::zero);
                    *e = e.add(&self.s.get(c, b).mul(&self.t.get(c, a)));
                }
            }
        }
        view.retain(|_, k| !k.is_zero());
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
