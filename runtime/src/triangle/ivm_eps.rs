//! [`Triangle`]: the IVMε state over three relations.

use crate::__private::HashMap;

use super::part::Part;
use super::views::{View, build_view, rotated, same_view};
use super::{Threshold, Value};
use crate::Counting;

/// The IVMε state for one triangle query: three partitioned relations,
/// three views over heavy pairs, the count, and the partition thresholds.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "A: serde::Serialize + Eq + std::hash::Hash, B: serde::Serialize + Eq + std::hash::Hash, C: serde::Serialize + Eq + std::hash::Hash, K: serde::Serialize",
        deserialize = "A: serde::Deserialize<'de> + Eq + std::hash::Hash, B: serde::Deserialize<'de> + Eq + std::hash::Hash, C: serde::Deserialize<'de> + Eq + std::hash::Hash, K: serde::Deserialize<'de>"
    ))
)]
pub struct Triangle<A, B, C, K> {
    r: Part<A, B, K>,
    s: Part<B, C, K>,
    t: Part<C, A, K>,
    w_rs: View<A, C, K>,
    w_st: View<B, A, K>,
    w_tr: View<C, B, K>,
    count: K,
    threshold: Threshold,
}

impl<A, B, C, K> Triangle<A, B, C, K>
where
    A: Value,
    B: Value,
    C: Value,
    K: Counting,
{
    /// An empty state with partition exponent `eps` in [0, 1].
    pub fn new(eps: f64) -> Self {
        Triangle {
            r: Part::new(),
            s: Part::new(),
            t: Part::new(),
            w_rs: HashMap::default(),
            w_st: HashMap::default(),
            w_tr: HashMap::default(),
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
        let d = rotated(
            &mut self.r,
            &self.s,
            &self.t,
            &mut self.w_rs,
            &self.w_st,
            &mut self.w_tr,
            a,
            b,
            old,
            new,
            &self.threshold,
        );
        self.count = self.count.add(&d.1).minus(&d.0);
        self.rebalance();
    }

    /// S(b, c) changes from `old` to `new`.
    pub fn update_s(&mut self, b: &B, c: &C, old: &K, new: &K) {
        let d = rotated(
            &mut self.s,
            &self.t,
            &self.r,
            &mut self.w_st,
            &self.w_tr,
            &mut self.w_rs,
            b,
            c,
            old,
            new,
            &self.threshold,
        );
        self.count = self.count.add(&d.1).minus(&d.0);
        self.rebalance();
    }

    /// T(c, a) changes from `old` to `new`.
    pub fn update_t(&mut self, c: &C, a: &A, old: &K, new: &K) {
        let d = rotated(
            &mut self.t,
            &self.r,
            &self.s,
            &mut self.w_tr,
            &self.w_rs,
            &mut self.w_st,
            c,
            a,
            old,
            new,
            &self.threshold,
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
        self.r.repartition(&self.threshold);
        self.s.repartition(&self.threshold);
        self.t.repartition(&self.threshold);
        self.w_rs = build_view(&self.r, &self.s);
        self.w_st = build_view(&self.s, &self.t);
        self.w_tr = build_view(&self.t, &self.r);
    }

    /// Checks the invariants (for tests): ⌊M/4⌋ ≤ N < M; in each
    /// direction every light value's degree below 3/2·θ and every heavy
    /// value's at least 1/2·θ; the lists of each part agree with each
    /// other; the views equal their definitions; the count equals the
    /// triangle count evaluated from scratch.
    pub fn check(&self) -> Result<(), String> {
        self.threshold.check(self.size())?;
        self.r.check(&self.threshold, "R")?;
        self.s.check(&self.threshold, "S")?;
        self.t.check(&self.threshold, "T")?;
        if !same_view(&self.w_rs, &build_view(&self.r, &self.s)) {
            return Err("W_RS differs from its definition".into());
        }
        if !same_view(&self.w_st, &build_view(&self.s, &self.t)) {
            return Err("W_ST differs from its definition".into());
        }
        if !same_view(&self.w_tr, &build_view(&self.t, &self.r)) {
            return Err("W_TR differs from its definition".into());
        }
        let mut total = K::zero();
        for (a, adj) in self.r.by_first() {
            for (b, rk) in adj.iter() {
                for (c, sk) in self.s.ys(b) {
                    total = total.add(&rk.mul(sk).mul(&self.t.get(c, a)));
                }
            }
        }
        if total != self.count {
            return Err("the count differs from the triangle count evaluated from scratch".into());
        }
        Ok(())
    }
}
