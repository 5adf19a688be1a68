//! [`GraphTriangle`]: IVMε when one relation plays all three roles in one
//! orientation (a directed graph's triangles): one partitioned copy, one
//! view and one delta per update.

use crate::__private::HashMap;

use super::part::{Changed, Part};
use super::views::{
    View, add_column, build_row, build_view, insert_row, paths, remove_column, same_view,
    upkeep_first, upkeep_second,
};
use super::{Threshold, Value};
use crate::Counting;

/// IVMε for the triangle count of one relation used three times in one
/// orientation, `Q() = Σ E(a, b) · E(b, c) · E(c, a)` (a directed graph's
/// triangles, each counted once per rotation).
///
/// The three roles of [`Triangle`](super::Triangle) would hold the same tuples partitioned
/// the same way, and their three views would be equal, so this keeps one
/// partitioned copy of E and one view W(x, z) = Σ_y E(x, y) · E(y, z)
/// over the x heavy out and the z heavy in. An update of E(x, y) by δ changes the count by 3·δ·W,
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
    /// compiler). The old payload is read where the new one is written,
    /// where a map beside the partition would cost another lookup that
    /// misses the caches.
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
        self.change(x, y, |old| {
            let mut new = old.clone();
            K::insert(&mut new, delta);
            Some(new)
        });
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
        let retracted = self.change(x, y, |old| {
            let mut new = old.clone();
            K::retract(&mut new, delta).then_some(new)
        });
        if retracted {
            Ok(())
        } else {
            Err(crate::Error::AbsentTuple { relation })
        }
    }

    /// E(x, y) changes from `old` (its payload now) to `new`.
    pub fn update(&mut self, x: &V, y: &V, old: &K, new: &K) {
        debug_assert!(self.e.get(x, y) == *old, "`old` is E(x, y)'s payload");
        self.change(x, y, |_| Some(new.clone()));
    }

    /// E(x, y) changes from its payload `old` to `f(old)`; nothing changes
    /// when that is `None`, and `false` is returned.
    // Always inlined into `add`, `retract` and `update`, for the reason
    // `Part::modify` is.
    #[inline(always)]
    fn change(&mut self, x: &V, y: &V, f: impl FnOnce(&K) -> Option<K>) -> bool {
        if x == y {
            let old = self.e.get(x, x);
            let Some(new) = f(&old) else {
                return false;
            };
            if new != old {
                self.update_loop(x, &old, &new);
            }
            return true;
        }
        let w = paths(&self.e, &self.e, &self.view, x, y);
        let Some((old, new, changed)) = self.e.modify(x, y, f, &self.threshold) else {
            return false;
        };
        if new == old {
            return true;
        }
        // The other factor of each view term this tuple is in is another
        // tuple (x ≠ y), which the change left as it was.
        if changed.x_heavy {
            upkeep_first(&self.e, &mut self.view, x, y, &old, &new);
        }
        if changed.y_heavy {
            upkeep_second(&self.e, &mut self.view, x, y, &old, &new);
        }
        if changed.moves() {
            self.rebalance_minor(x, y, &changed);
        }
        let thrice = |k: K| k.add(&k).add(&k);
        self.count = self
            .count
            .add(&thrice(new.mul(&w)))
            .minus(&thrice(old.mul(&w)));
        self.rebalance();
        true
    }

    /// The self-loop E(x, x) changes from `old` to `new`. The count is
    /// c + 3·e·U + e³ in its payload e, with U the paths from x back to x
    /// through another vertex.
    fn update_loop(&mut self, x: &V, old: &K, new: &K) {
        // The paths include the one through the loop itself, old².
        let u = paths(&self.e, &self.e, &self.view, x, x).minus(&old.mul(old));
        let (x_out, x_in) = self.e.heavy(x, x);
        // The loop is both factors of the view term E(x, x) · E(x, x): as
        // the first, with the second as it was, it changes by
        // (new − old)·old; as the second, with the first as it is now, by
        // (new − old)·new; together new² − old².
        if x_out {
            upkeep_first(&self.e, &mut self.view, x, x, old, new);
        }
        let changed = self.e.set(x, x, new.clone(), &self.threshold);
        if x_in {
            upkeep_second(&self.e, &mut self.view, x, x, old, new);
        }
        self.rebalance_minor(x, x, &changed);
        let thrice = |k: K| k.add(&k).add(&k);
        let cube = |k: &K| k.mul(k).mul(k);
        let before = thrice(old.mul(&u)).add(&cube(old));
        let after = thrice(new.mul(&u)).add(&cube(new));
        self.count = self.count.add(&after).minus(&before);
        self.rebalance();
    }

    /// `views::rebalance_minor` with the three roles played by one part.
    fn rebalance_minor(&mut self, x: &V, y: &V, changed: &Changed) {
        if let Some(heavy) = changed.x_moves {
            self.e.set_heavy_out(x, heavy);
            if heavy {
                let ys = self.e.outgoing(x).expect("moves");
                insert_row(&mut self.view, x, build_row(ys, &self.e));
            } else {
                self.view.remove(x);
            }
        }
        if let Some(heavy) = changed.y_moves {
            self.e.set_heavy_in(y, heavy);
            if heavy {
                let xs = self.e.incoming(y).expect("moves");
                add_column(&mut self.view, y, xs, &self.e);
            } else {
                remove_column(&mut self.view, y);
            }
        }
    }

    /// Major rebalancing, as in [`Triangle`](super::Triangle), with N = |E|.
    #[inline]
    fn rebalance(&mut self) {
        if !self.threshold.fits(self.e.len()) {
            self.rebalance_major();
        }
    }

    fn rebalance_major(&mut self) {
        if !self.threshold.fit(self.e.len()) {
            return;
        }
        self.e.repartition(&self.threshold);
        self.view = build_view(&self.e, &self.e);
    }

    /// Checks the invariants of IVMε (*Counting Triangles under Updates in
    /// Worst-Case Optimal Time*, by Kara, Ngo, Nikolic, Olteanu and Zhang)
    /// for tests, as [`Triangle::check`](super::Triangle::check) does,
    /// with N = |E|.
    pub fn check(&self) -> Result<(), String> {
        self.threshold.check(self.e.len())?;
        self.e.check(&self.threshold, "E")?;
        if !same_view(&self.view, &build_view(&self.e, &self.e)) {
            return Err("W differs from its definition".into());
        }
        let mut total = K::zero();
        for (a, adj) in self.e.by_first() {
            for (b, ab) in adj.iter() {
                for (c, bc) in self.e.ys(b) {
                    total = total.add(&ab.mul(bc).mul(&self.e.get(c, a)));
                }
            }
        }
        if total != self.count {
            return Err("the count differs from the triangle count evaluated from scratch".into());
        }
        Ok(())
    }
}
