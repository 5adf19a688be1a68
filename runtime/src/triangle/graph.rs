//! [`GraphTriangle`]: IVMε when one relation plays all three roles in one
//! orientation (a directed graph's triangles): one partitioned copy, one
//! view and one delta per update.

use crate::__private::HashMap;

use super::part::{Part, check_part, repartition};
use super::views::{
    View, build_row, build_view, crossing, move_light_terms, paths, same_view, upkeep_heavy,
    upkeep_light,
};
use super::{Threshold, Value};
use crate::Counting;

/// IVMε for the triangle count of one relation used three times in one
/// orientation, `Q() = Σ E(a, b) · E(b, c) · E(c, a)` (a directed graph's
/// triangles, each counted once per rotation).
///
/// The three roles of [`Triangle`](super::Triangle) would hold the same tuples partitioned
/// the same way, and their three views would be equal, so this keeps one
/// partitioned copy of E and one view V(x, z) = Σ_y E_heavy(x, y) ·
/// E_light(y, z). An update of E(x, y) by δ changes the count by 3·δ·W,
/// with W = Σ_z E(y, z) · E(z, x) (the three rotations each find the same
/// paths), and for a self-loop (x = y) by the terms where the loop meets
/// itself too: the count is c + 3·e·U + e³ in its payload e, with U the
/// paths through another vertex. One update costs one delta, not three.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "V: serde::Serialize + Eq + std::hash::Hash, K: serde::Serialize",
        deserialize = "V: serde::Deserialize<'de> + Eq + std::hash::Hash, K: serde::Deserialize<'de>"
    ))
)]
pub struct GraphTriangle<V, K> {
    e: Part<V, V, K>,
    view: View<V, V, K>,
    count: K,
    threshold: Threshold,
}

impl<V: Value, K: Counting> GraphTriangle<V, K> {
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

    /// The payload of E(x, y) (zero if absent).
    pub fn payload(&self, x: &V, y: &V) -> K {
        self.e.get(x, y)
    }

    /// `E(x, y) ⊕= delta`, where this state is E's only store (a ring,
    /// whose base-map state is its payload: generated code keeps no map
    /// of E beside the partition, see `Kept::InTriangle` in the
    /// compiler). One lookup of the tuple, where a map beside it would
    /// cost another that misses the caches.
    ///
    /// # Panics
    ///
    /// When the payload leaves the semiring's range, as
    /// [`Maintained::insert`](crate::Maintained::insert) does.
    pub fn add(&mut self, x: &V, y: &V, delta: &K)
    where
        K: crate::Maintained<State = K>,
    {
        if delta.is_zero() {
            return;
        }
        let old = self.e.get(x, y);
        let mut new = old.clone();
        K::insert(&mut new, delta);
        if new != old {
            self.update(x, y, &old, &new);
        }
    }

    /// Takes back one earlier `add` of `delta` to E(x, y), as
    /// [`PayloadMap::retract`](crate::__private::PayloadMap::retract) does.
    ///
    /// # Errors
    ///
    /// [`Error::AbsentTuple`](crate::Error::AbsentTuple) naming `relation`
    /// when the tuple is absent; nothing changes then.
    pub fn retract(&mut self, x: &V, y: &V, delta: &K, relation: &'static str) -> crate::Result<()>
    where
        K: crate::Maintained<State = K>,
    {
        let old = self.e.get(x, y);
        let mut new = old.clone();
        if !K::retract(&mut new, delta) {
            return Err(crate::Error::AbsentTuple { relation });
        }
        if new != old {
            self.update(x, y, &old, &new);
        }
        Ok(())
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

    /// Major rebalancing, as in [`Triangle`](super::Triangle), with N = |E|.
    fn rebalance(&mut self) {
        if !self.threshold.fit(self.e.len()) {
            return;
        }
        repartition(&mut self.e, self.threshold.theta);
        self.view = build_view(&self.e, &self.e);
    }

    /// Checks the invariants of papers/000 (for tests), as
    /// [`Triangle::check`](super::Triangle::check) does, with N = |E|.
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
