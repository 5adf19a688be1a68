//! [`RangeSums`]: payloads keyed by an ordered integer, with the ⊕ of every
//! payload below (or above) a key in O(log U), U the key type's range: what
//! an inequality join (`{ x < y }` between two atoms) reads where the
//! first-order delta would scan the other atom.
//!
//! The structure is a trie over the key's bits, four bits per level, kept
//! as one hash map per level: level `l` maps each prefix `k >> 4(l + 1)`
//! that some key has to the ⊕ of the payloads under each of its 16
//! children. An update adds its change at one child per level; the ⊕ of
//! the keys below `y` adds, at each level, the children left of `y`'s
//! digit in `y`'s node. Both probe one entry per level: 8 for a `u32` key,
//! 16 for an `i64`, whatever the number of keys, and each entry is one
//! cache line's worth of payloads, so a walk costs a handful of cache
//! misses. A node whose children are all zero is removed, so the space is
//! O(n · W / 4) nodes for n live keys of W bits.
//!
//! Changes are added, never replaced: over a ring a retraction adds the
//! inverse (`Ring::neg`); under inserts only a positive semiring adds each
//! new contribution.

use crate::Semiring;
use crate::index::{HashMap, new_map};

/// An integer column type as an order-preserving `u64`, with its width in
/// bits: the key of a [`RangeSums`].
pub trait RangeKey: Copy {
    /// How many low bits of [`RangeKey::bits`] vary.
    const WIDTH: u32;

    /// The key as an unsigned integer in the same order.
    fn bits(self) -> u64;
}

macro_rules! unsigned_key {
    ($($t:ty),*) => {$(
        impl RangeKey for $t {
            const WIDTH: u32 = <$t>::BITS;

            fn bits(self) -> u64 {
                u64::from(self)
            }
        }
    )*};
}

macro_rules! signed_key {
    ($($t:ty => $u:ty),*) => {$(
        impl RangeKey for $t {
            const WIDTH: u32 = <$t>::BITS;

            fn bits(self) -> u64 {
                // Flipping the sign bit orders two's complement as unsigned.
                u64::from((self as $u) ^ (1 << (<$t>::BITS - 1)))
            }
        }
    )*};
}

unsigned_key!(u8, u16, u32, u64);
signed_key!(i8 => u8, i16 => u16, i32 => u32, i64 => u64);

impl RangeKey for bool {
    const WIDTH: u32 = 1;

    fn bits(self) -> u64 {
        u64::from(self)
    }
}

impl RangeKey for char {
    const WIDTH: u32 = 32;

    fn bits(self) -> u64 {
        u64::from(u32::from(self))
    }
}

/// Payloads keyed by an ordered integer key, with range sums.
///
/// ```
/// use ivm::semiring::Int;
/// use ivm::__private::RangeSums;
///
/// let mut r = RangeSums::<u32, Int>::default();
/// r.add(3, &Int(10));
/// r.add(7, &Int(5));
/// r.add(3, &Int(-10)); // key 3 is gone again
/// r.add(1, &Int(2));
/// assert_eq!(r.below(7), Int(2)); // keys 0..7
/// assert_eq!(r.up_to(7), Int(7)); // keys 0..=7
/// assert_eq!(r.above(1), Int(5)); // keys 2..
/// assert_eq!(r.total(), Int(7));
/// assert_eq!(r.len(), 2);
/// ```
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RangeSums<K, V> {
    /// Level `l`: prefix `bits >> 4(l + 1)` → the ⊕ under each child
    /// digit `(bits >> 4l) & 15`; the last level has one node, prefix 0.
    levels: Vec<HashMap<u64, [V; FANOUT]>>,
    /// The keys with a non-zero payload.
    live: usize,
    _key: std::marker::PhantomData<K>,
}

/// Children per node: four bits of the key per level.
const FANOUT: usize = 16;
const DIGIT: u32 = 4;

impl<K: RangeKey, V: Semiring> Default for RangeSums<K, V> {
    fn default() -> Self {
        RangeSums {
            levels: (0..K::WIDTH.div_ceil(DIGIT)).map(|_| new_map()).collect(),
            live: 0,
            _key: std::marker::PhantomData,
        }
    }
}

impl<K: RangeKey, V: Semiring> RangeSums<K, V> {
    /// Adds `delta` to the payload at `key`.
    pub fn add(&mut self, key: K, delta: &V) {
        if delta.is_zero() {
            return;
        }
        let bits = key.bits();
        for (l, level) in self.levels.iter_mut().enumerate() {
            let (prefix, digit) = place(bits, l as u32);
            let node = level
                .entry(prefix)
                .or_insert_with(|| std::array::from_fn(|_| V::zero()));
            let was_zero = node[digit].is_zero();
            node[digit].add_assign(delta);
            let is_zero = node[digit].is_zero();
            if l == 0 {
                match (was_zero, is_zero) {
                    (true, false) => self.live += 1,
                    (false, true) => self.live -= 1,
                    _ => {}
                }
            }
            if is_zero && node.iter().all(Semiring::is_zero) {
                level.remove(&prefix);
            }
        }
    }

    /// The payload at `key`.
    pub fn at(&self, key: K) -> V {
        let (prefix, digit) = place(key.bits(), 0);
        self.levels[0]
            .get(&prefix)
            .map_or_else(V::zero, |node| node[digit].clone())
    }

    /// The ⊕ of the payloads at keys below `key` (`< key`).
    pub fn below(&self, key: K) -> V {
        self.beside(key, |d, digit| d < digit)
    }

    /// The ⊕ of the payloads at keys up to `key` (`<= key`).
    pub fn up_to(&self, key: K) -> V {
        self.below(key).add(&self.at(key))
    }

    /// The ⊕ of the payloads at keys above `key` (`> key`).
    pub fn above(&self, key: K) -> V {
        self.beside(key, |d, digit| d > digit)
    }

    /// The ⊕ of the payloads at keys from `key` up (`>= key`).
    pub fn from(&self, key: K) -> V {
        self.above(key).add(&self.at(key))
    }

    /// The ⊕ of every payload.
    pub fn total(&self) -> V {
        let top = self.levels.len() - 1;
        self.levels[top].get(&0).map_or_else(V::zero, |node| {
            node.iter().fold(V::zero(), |acc, v| acc.add(v))
        })
    }

    /// The number of keys with a non-zero payload.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether no key has a non-zero payload.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// The ⊕, over the levels, of the children of `key`'s node whose digit
    /// `d` is on the side `keep(d, key's digit)` says.
    fn beside(&self, key: K, keep: impl Fn(usize, usize) -> bool) -> V {
        let bits = key.bits();
        let mut sum = V::zero();
        for (l, level) in self.levels.iter().enumerate() {
            let (prefix, digit) = place(bits, l as u32);
            if let Some(node) = level.get(&prefix) {
                for (d, v) in node.iter().enumerate() {
                    if keep(d, digit) {
                        sum.add_assign(v);
                    }
                }
            }
        }
        sum
    }
}

/// The node and the child digit of `bits` at level `l`.
fn place(bits: u64, l: u32) -> (u64, usize) {
    let shift = DIGIT * l;
    let prefix = bits.checked_shr(shift + DIGIT).unwrap_or(0);
    let digit = (bits.checked_shr(shift).unwrap_or(0) & 15) as usize;
    (prefix, digit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semiring::{Int, MinPlus};
    use proptest::prelude::*;

    /// The sums of a plain list of (key, payload) changes.
    fn naive<K: RangeKey + Ord, V: Semiring>(changes: &[(K, V)], pick: impl Fn(K) -> bool) -> V {
        changes
            .iter()
            .filter(|(k, _)| pick(*k))
            .fold(V::zero(), |acc, (_, v)| acc.add(v))
    }

    proptest! {
        #[test]
        fn signed_keys_agree_with_a_scan(
            changes in proptest::collection::vec((-40i32..40, -3i64..4), 0..60),
            probes in proptest::collection::vec(-45i32..45, 1..10),
        ) {
            let mut r = RangeSums::<i32, Int>::default();
            let changes: Vec<(i32, Int)> = changes.into_iter().map(|(k, v)| (k, Int(v))).collect();
            for (k, v) in &changes {
                r.add(*k, v);
            }
            for y in probes {
                prop_assert_eq!(r.below(y), naive(&changes, |k| k < y));
                prop_assert_eq!(r.up_to(y), naive(&changes, |k| k <= y));
                prop_assert_eq!(r.above(y), naive(&changes, |k| k > y));
                prop_assert_eq!(r.from(y), naive(&changes, |k| k >= y));
                prop_assert_eq!(r.at(y), naive(&changes, |k| k == y));
            }
            prop_assert_eq!(r.total(), naive(&changes, |_| true));
            let live = (-45..45).filter(|&k| !naive(&changes, |x| x == k).is_zero()).count();
            prop_assert_eq!(r.len(), live);
        }

        #[test]
        fn extreme_unsigned_keys_and_min_plus(
            keys in proptest::collection::vec(prop_oneof![Just(0u64), Just(u64::MAX), Just(1u64 << 63), any::<u64>()], 1..30),
            probe in prop_oneof![Just(0u64), Just(u64::MAX), any::<u64>()],
        ) {
            let mut r = RangeSums::<u64, MinPlus>::default();
            let changes: Vec<(u64, MinPlus)> = keys.iter().enumerate().map(|(i, &k)| (k, MinPlus(i as i64))).collect();
            for (k, v) in &changes {
                r.add(*k, v);
            }
            prop_assert_eq!(r.below(probe), naive(&changes, |k| k < probe));
            prop_assert_eq!(r.above(probe), naive(&changes, |k| k > probe));
            prop_assert_eq!(r.total(), naive(&changes, |_| true));
        }
    }

    #[test]
    fn entries_leave_when_their_sums_return_to_zero() {
        let mut r = RangeSums::<u32, Int>::default();
        r.add(5, &Int(2));
        r.add(9, &Int(1));
        r.add(5, &Int(-2));
        r.add(9, &Int(-1));
        assert!(r.is_empty());
        assert!(r.levels.iter().all(|level| level.is_empty()));
        assert_eq!(r.levels.len(), 8);
    }
}
