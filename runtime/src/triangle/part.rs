//! The partitions: one relation with each value's tuples kept both ways
//! (by first value and by second value), each value marked heavy or light
//! by its degree in that direction, and each value's heavy partners listed
//! apart.

use crate::__private::HashMap;

use super::{Threshold, Value};
use crate::Counting;

/// The tuples of one value in one direction: its partners, each with the
/// tuple's payload, in a map of their own; and the partners that are
/// heavy in the other direction, listed apart (`front`), for the upkeep
/// of the views over heavy pairs, which walks only those.
///
/// A tuple is found in its value's map, not in one map of every tuple:
/// the maps of the values an update touches are a few cache lines each,
/// where a map of all N tuples misses the caches on nearly every probe.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "T: serde::Serialize + Eq + std::hash::Hash, K: serde::Serialize",
        deserialize = "T: serde::Deserialize<'de> + Eq + std::hash::Hash, K: serde::Deserialize<'de>"
    ))
)]
pub(super) struct Adj<T, K> {
    /// Whether the value is heavy in this direction (its degree is the
    /// number of tuples).
    pub(super) heavy: bool,
    tuples: HashMap<T, K>,
    /// The partners heavy in the other direction, in no order: at most
    /// N/θ of them, so finding one to remove it stays within the bound.
    /// Boxed, and absent while empty (as it is for most values): the maps
    /// of values are probed on every update, and the smaller their
    /// entries, the more of them stay in the caches.
    #[allow(
        clippy::box_collection,
        reason = "one word in every value's entry where a `Vec` takes three"
    )]
    front: Option<Box<Vec<T>>>,
}

impl<T, K> Adj<T, K> {
    /// The degree of the value in this direction.
    pub(super) fn len(&self) -> usize {
        self.tuples.len()
    }

    /// Every partner, with the tuple's payload.
    pub(super) fn iter(&self) -> hashbrown::hash_map::Iter<'_, T, K> {
        self.tuples.iter()
    }
}

impl<T: Value, K> Adj<T, K> {
    fn new() -> Self {
        Adj {
            heavy: false,
            tuples: HashMap::default(),
            front: None,
        }
    }

    /// The payload of the tuple with partner `t`.
    pub(super) fn get(&self, t: &T) -> Option<&K> {
        self.tuples.get(t)
    }

    /// The partners heavy in the other direction, with the tuples'
    /// payloads.
    pub(super) fn heavy_partners(&self) -> impl Iterator<Item = (&T, &K)> {
        self.front().iter().map(|t| (t, &self.tuples[t]))
    }

    /// Whether any partner is heavy in the other direction.
    pub(super) fn has_heavy_partners(&self) -> bool {
        self.front.is_some()
    }

    fn front(&self) -> &[T] {
        self.front.as_deref().map_or(&[], Vec::as_slice)
    }

    /// Moves partner `t` into the front (it turned heavy in the other
    /// direction) or out of it (turned light).
    fn mark(&mut self, t: &T, heavy: bool) {
        if heavy {
            self.front.get_or_insert_default().push(t.clone());
        } else {
            let front = self.front.as_mut().expect("a heavy partner is in front");
            let i = front
                .iter()
                .position(|u| u == t)
                .expect("a heavy partner is in front");
            front.swap_remove(i);
            if front.is_empty() {
                self.front = None;
            }
        }
    }
}

/// One relation P(x, y), its tuples kept by first value (`out`) and by
/// second value (`into`), each tuple's payload in both.
///
/// A first value is *heavy out* when it has many tuples, a second value
/// *heavy in* likewise, each against its own threshold (see
/// [`Threshold`](super::Threshold)). Each value lists its heavy partners
/// apart: x the heavy-in y, y the heavy-out x.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "X: serde::Serialize + Eq + std::hash::Hash, Y: serde::Serialize + Eq + std::hash::Hash, K: serde::Serialize",
        deserialize = "X: serde::Deserialize<'de> + Eq + std::hash::Hash, Y: serde::Deserialize<'de> + Eq + std::hash::Hash, K: serde::Deserialize<'de>"
    ))
)]
pub(super) struct Part<X, Y, K> {
    out: HashMap<X, Adj<Y, K>>,
    into: HashMap<Y, Adj<X, K>>,
    len: usize,
}

/// What [`Part::set`] found and did: whether x was heavy out and y heavy
/// in before the change (the change itself does not move them), and the
/// part each must move to now, if its degree crossed a bound.
pub(super) struct Changed {
    pub(super) x_heavy: bool,
    pub(super) y_heavy: bool,
    pub(super) x_moves: Option<bool>,
    pub(super) y_moves: Option<bool>,
}

impl<X: Value, Y: Value, K: Counting> Part<X, Y, K> {
    pub(super) fn new() -> Self {
        Part {
            out: HashMap::default(),
            into: HashMap::default(),
            len: 0,
        }
    }

    /// The payload of (x, y), zero if absent.
    pub(super) fn get(&self, x: &X, y: &Y) -> K {
        self.out
            .get(x)
            .and_then(|adj| adj.get(y))
            .map_or_else(K::zero, K::clone)
    }

    /// The tuples (x, ·).
    pub(super) fn outgoing(&self, x: &X) -> Option<&Adj<Y, K>> {
        self.out.get(x)
    }

    /// The tuples (·, y).
    pub(super) fn incoming(&self, y: &Y) -> Option<&Adj<X, K>> {
        self.into.get(y)
    }

    /// The tuples (x, ·), with their payloads.
    pub(super) fn ys(&self, x: &X) -> impl Iterator<Item = (&Y, &K)> {
        self.out.get(x).into_iter().flat_map(Adj::iter)
    }

    /// Every first value with its tuples.
    pub(super) fn by_first(&self) -> impl Iterator<Item = (&X, &Adj<Y, K>)> {
        self.out.iter()
    }

    /// Whether x is heavy out, and y heavy in.
    pub(super) fn heavy(&self, x: &X, y: &Y) -> (bool, bool) {
        (
            self.out.get(x).is_some_and(|a| a.heavy),
            self.into.get(y).is_some_and(|a| a.heavy),
        )
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Sets the payload of (x, y), both ways, and says whether x or y must
    /// move to the other part; the caller moves them.
    pub(super) fn set(&mut self, x: &X, y: &Y, k: K, threshold: &Threshold) -> Changed {
        let (_, _, changed) = self
            .modify(x, y, |_| Some(k), threshold)
            .expect("a payload to set");
        changed
    }

    /// Changes the payload of (x, y) from `old` to `f(old)`, both ways,
    /// with one lookup of x and one of y, and returns both payloads and
    /// what [`set`](Self::set) says. Nothing changes when `f` gives `None`
    /// (and `None` is returned) or the old payload. A value whose last
    /// tuple goes is forgotten, its part too: every view term it took part
    /// in went to zero with that tuple.
    // Always inlined: each caller passes its own closure, and on a light
    // graph a call's register saves and returned tuple cost a noticeable
    // share of the update (see docs/benchmarks.md, the triangle section).
    #[inline(always)]
    pub(super) fn modify(
        &mut self,
        x: &X,
        y: &Y,
        f: impl FnOnce(&K) -> Option<K>,
        threshold: &Threshold,
    ) -> Option<(K, K, Changed)> {
        let Part { out, into, len } = self;
        let zero = K::zero();
        // The tuple's entry in x's map is found once, read and written
        // there: a lookup to read the payload and another to write it
        // would walk the same map twice on every update.
        let (old, new, adj) = match out.get_mut(x) {
            Some(adj) => match adj.tuples.entry(y.clone()) {
                hashbrown::hash_map::Entry::Occupied(mut tuple) => {
                    let old = tuple.get().clone();
                    let new = f(&old)?;
                    if new == old {
                        return Some((old, new, Changed::NOTHING));
                    }
                    if new.is_zero() {
                        tuple.remove();
                    } else {
                        *tuple.get_mut() = new.clone();
                    }
                    (old, new, adj)
                }
                hashbrown::hash_map::Entry::Vacant(slot) => {
                    let new = f(&zero)?;
                    if new == zero {
                        return Some((zero, new, Changed::NOTHING));
                    }
                    slot.insert(new.clone());
                    (zero, new, adj)
                }
            },
            // A value without tuples: the tuple is absent. The value gets
            // a map only once there is a tuple to put in it.
            None => {
                let new = f(&zero)?;
                if new == zero {
                    return Some((zero, new, Changed::NOTHING));
                }
                let adj = out.entry(x.clone()).or_insert_with(Adj::new);
                adj.tuples.insert(y.clone(), new.clone());
                (zero, new, adj)
            }
        };
        let back = match into.get_mut(y) {
            Some(back) => back,
            None => into.entry(y.clone()).or_insert_with(Adj::new),
        };
        // The same tuple in y's map, written through one entry as well.
        match back.tuples.entry(x.clone()) {
            hashbrown::hash_map::Entry::Occupied(mut tuple) => {
                if new.is_zero() {
                    tuple.remove();
                } else {
                    *tuple.get_mut() = new.clone();
                }
            }
            hashbrown::hash_map::Entry::Vacant(slot) => {
                debug_assert!(old.is_zero(), "a tuple is kept both ways");
                slot.insert(new.clone());
            }
        }
        let (x_heavy, y_heavy) = (adj.heavy, back.heavy);
        if new.is_zero() || old.is_zero() {
            let inserted = old.is_zero();
            if y_heavy {
                adj.mark(y, inserted);
            }
            if x_heavy {
                back.mark(x, inserted);
            }
            if inserted {
                *len += 1;
            } else {
                *len -= 1;
            }
        }
        let changed = Changed {
            x_heavy,
            y_heavy,
            x_moves: threshold.out.crossing(x_heavy, adj.len()),
            y_moves: threshold.into.crossing(y_heavy, back.len()),
        };
        if adj.tuples.is_empty() {
            out.remove(x);
        }
        if back.tuples.is_empty() {
            into.remove(y);
        }
        Some((old, new, changed))
    }

    /// Sets the payload of (x, y) in a relation that is not partitioned
    /// (every value stays light).
    pub(super) fn put(&mut self, x: &X, y: &Y, k: K) {
        self.set(x, y, k, &Threshold::NEVER);
    }

    /// Moves x to the heavy-out or the light-out part: O(degree of x).
    pub(super) fn set_heavy_out(&mut self, x: &X, heavy: bool) {
        if let Some(adj) = self.out.get_mut(x) {
            mark(x, adj, &mut self.into, heavy);
        }
    }

    /// Moves y to the heavy-in or the light-in part: O(degree of y).
    pub(super) fn set_heavy_in(&mut self, y: &Y, heavy: bool) {
        if let Some(adj) = self.into.get_mut(y) {
            mark(y, adj, &mut self.out, heavy);
        }
    }

    /// Major rebalancing: every value whose degree is at least the
    /// threshold of its direction is heavy, every other light.
    pub(super) fn repartition(&mut self, threshold: &Threshold) {
        let (out, into) = (threshold.out.theta, threshold.into.theta);
        for (x, adj) in self.out.iter_mut() {
            mark(x, adj, &mut self.into, adj.len() as f64 >= out);
        }
        for (y, adj) in self.into.iter_mut() {
            mark(y, adj, &mut self.out, adj.len() as f64 >= into);
        }
    }

    /// Checks the degrees against the thresholds (light below 3/2·θ, heavy
    /// at least 1/2·θ) and the two ways against each other (for tests).
    pub(super) fn check(&self, threshold: &Threshold, name: &str) -> Result<(), String> {
        let (out, into) = (threshold.out.theta, threshold.into.theta);
        check_side(
            &self.out,
            &self.into,
            out,
            &format!("{name}, by first value"),
        )?;
        check_side(
            &self.into,
            &self.out,
            into,
            &format!("{name}, by second value"),
        )?;
        let kept: usize = self.out.values().map(Adj::len).sum();
        if kept != self.len {
            return Err(format!("{name}: {kept} tuples kept, {} counted", self.len));
        }
        Ok(())
    }
}

impl Changed {
    /// Whether x or y moves to the other part.
    #[inline]
    pub(super) fn moves(&self) -> bool {
        self.x_moves.is_some() || self.y_moves.is_some()
    }

    /// The payload stayed as it was: no view term changed, no value moves.
    const NOTHING: Changed = Changed {
        x_heavy: false,
        y_heavy: false,
        x_moves: None,
        y_moves: None,
    };
}

/// Marks value `a` (whose tuples are `adj`) heavy or light, and moves it
/// into or out of the front of each of its partners in `other`.
fn mark<A: Value, B: Value, K>(
    a: &A,
    adj: &mut Adj<B, K>,
    other: &mut HashMap<B, Adj<A, K>>,
    heavy: bool,
) {
    if adj.heavy == heavy {
        return;
    }
    adj.heavy = heavy;
    for b in adj.tuples.keys() {
        other.get_mut(b).expect("kept both ways").mark(a, heavy);
    }
}

/// The checks of one direction: degrees, no empty map, the same payload
/// both ways, the front holding exactly the partners heavy the other way.
fn check_side<A: Value, B: Value, K: Counting>(
    side: &HashMap<A, Adj<B, K>>,
    other: &HashMap<B, Adj<A, K>>,
    theta: f64,
    name: &str,
) -> Result<(), String> {
    for (a, adj) in side {
        let d = adj.len() as f64;
        if adj.tuples.is_empty() {
            return Err(format!("{name}: an empty map is kept"));
        }
        if adj.heavy && d < 0.5 * theta {
            return Err(format!(
                "{name}: a heavy value has degree {d} < θ/2 = {}",
                0.5 * theta
            ));
        }
        if !adj.heavy && d >= 1.5 * theta {
            return Err(format!(
                "{name}: a light value has degree {d} ≥ 3θ/2 = {}",
                1.5 * theta
            ));
        }
        let mut heavy = 0;
        for (b, k) in &adj.tuples {
            let back = other
                .get(b)
                .ok_or(format!("{name}: a partner has no map"))?;
            if back.get(a) != Some(k) {
                return Err(format!(
                    "{name}: a tuple is missing, or has another payload, the other way"
                ));
            }
            if back.heavy {
                heavy += 1;
                if !adj.front().contains(b) {
                    return Err(format!("{name}: a heavy partner is not in front"));
                }
            }
        }
        if heavy != adj.front().len() || adj.front.as_ref().is_some_and(|f| f.is_empty()) {
            return Err(format!(
                "{name}: the front holds more than the heavy partners"
            ));
        }
    }
    Ok(())
}
