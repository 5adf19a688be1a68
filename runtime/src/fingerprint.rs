//! [`Fingerprints`]: the base map of a relation that nothing reads back
//! but a delete's check.
//!
//! Under inserts and deletes a view must refuse the delete of a tuple that
//! was never inserted (or was deleted already) and change nothing. Where
//! the views read a relation only through derived relations of the
//! columns they use (`docs/design.md#how-a-delete-is-checked`), keeping
//! each whole tuple for that check would cost more than maintaining the
//! views: a `LINEITEM` row owns sixteen columns, five of them strings. A
//! [`Fingerprints`] map keeps instead each tuple's payload under a 128-bit
//! hash of the tuple, keyed by a random seed of its own, and takes the
//! tuple by reference, so no column is cloned or kept.
//!
//! A delete of a tuple that is not there is still refused, unless its
//! fingerprint equals that of one that is: with `n` tuples present, the
//! chance is at most `n / 2^128` per such delete (about 3·10^-30 for a
//! billion rows), for tuples not chosen to collide under a seed they
//! cannot see. A tuple that is there is never refused.

use std::hash::{Hash, Hasher};

use crate::index::{HashMap, new_map};
use crate::payload_map::{Keeping, PayloadMap, Retracting};
use crate::{Error, Maintained, Semiring};

/// A tuple's 128-bit fingerprint.
type Fingerprint = u128;

/// Each tuple's payload under its fingerprint: see the module doc.
///
/// ```
/// use ivm::__private::Fingerprints;
/// use ivm::semiring::Int;
///
/// let mut lines: Fingerprints<Int> = Fingerprints::new();
/// let line = (7_u64, String::from("AIR"));
/// assert_eq!(lines.add(&line, &Int(1)), Some((Int(0), Int(1))));
/// // Another tuple was never inserted: refused, nothing changes.
/// let other = (8_u64, String::from("AIR"));
/// assert!(lines.retract(&other, &Int(1), "Lines").is_err());
/// assert_eq!(lines.retract(&line, &Int(1), "Lines"), Ok(Some((Int(1), Int(0)))));
/// assert!(lines.is_empty());
/// ```
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "P::State: serde::Serialize",
        deserialize = "P::State: serde::Deserialize<'de>"
    ))
)]
pub struct Fingerprints<K: Semiring, P: Keeping<K> = Retracting> {
    /// The seed of this map's hash, drawn when it is made and kept with
    /// its state (a restored snapshot fingerprints as before).
    seed: u64,
    /// Through [`add_delta`](Self::add_delta) (rings): the tuples whose
    /// contributions were all one, by their number. A count is 16 bytes
    /// whatever the payload (a tuple payload of six decimals is 88), and
    /// nearly every SQL row is such a tuple.
    copies: HashMap<Fingerprint, i64>,
    /// The other tuples' payloads. A tuple is in one of the two maps.
    payloads: PayloadMap<Fingerprint, K, P>,
}

impl<K: Semiring, P: Keeping<K>> Clone for Fingerprints<K, P> {
    fn clone(&self) -> Self {
        Fingerprints {
            seed: self.seed,
            copies: self.copies.clone(),
            payloads: self.payloads.clone(),
        }
    }
}

impl<K: Semiring, P: Keeping<K>> std::fmt::Debug for Fingerprints<K, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fingerprints")
            .field("tuples", &self.len())
            .finish_non_exhaustive()
    }
}

impl<K: Semiring, P: Keeping<K>> Default for Fingerprints<K, P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Semiring, P: Keeping<K>> Fingerprints<K, P> {
    /// An empty map with a fresh random seed.
    pub fn new() -> Self {
        Fingerprints {
            seed: std::hash::BuildHasher::hash_one(&std::hash::RandomState::new(), 0x1f_u8),
            copies: new_map(),
            payloads: PayloadMap::new(),
        }
    }

    /// The number of distinct tuples with a live contribution.
    pub fn len(&self) -> usize {
        self.copies.len() + self.payloads.len()
    }

    /// Whether no tuple has a live contribution.
    pub fn is_empty(&self) -> bool {
        self.copies.is_empty() && self.payloads.is_empty()
    }

    /// The fingerprint of `tuple`: its `Hash` bytes, hashed at once.
    #[inline]
    fn of<T: Hash + ?Sized>(&self, tuple: &T) -> Fingerprint {
        let mut bytes = Bytes::new();
        tuple.hash(&mut bytes);
        xxhash_rust::xxh3::xxh3_128_with_seed(bytes.as_slice(), self.seed)
    }

    /// Adds the contribution `v` to `tuple`'s payload; returns the payload
    /// before and after, or `None` when it did not change. A map is
    /// changed through this and [`retract`](Self::retract), or, over a
    /// ring, through [`add_delta`](Self::add_delta) and
    /// [`retract_delta`](Self::retract_delta), never both.
    #[inline]
    pub fn add<T: Hash + ?Sized>(&mut self, tuple: &T, v: &K) -> Option<(K, K)> {
        let key = self.of(tuple);
        self.payloads.add(key, v)
    }
}

impl<K: Maintained> Fingerprints<K, Retracting> {
    /// Retracts one live contribution `v` of `tuple` in `relation`; returns
    /// the payload before and after, or `None` when it did not change.
    ///
    /// # Errors
    ///
    /// [`Error::AbsentTuple`] naming `relation`, with nothing changed, when
    /// no such contribution is live (see the module doc for the one case
    /// this cannot tell).
    #[inline]
    pub fn retract<T: Hash + ?Sized>(
        &mut self,
        tuple: &T,
        v: &K,
        relation: &'static str,
    ) -> Result<Option<(K, K)>, Error> {
        let key = self.of(tuple);
        self.payloads.retract(&key, v, relation)
    }
}

impl<K: Maintained> Fingerprints<K, Retracting> {
    /// Over a ring (`K::BY_SUBTRACTION`): adds `v` to `tuple`'s payload,
    /// without saying what it was, which a ring's views do not ask. A
    /// contribution of one only counts a copy.
    #[inline]
    pub fn add_delta<T: Hash + ?Sized>(&mut self, tuple: &T, v: &K) {
        debug_assert!(K::BY_SUBTRACTION, "ivm: add_delta over a ring only");
        let key = self.of(tuple);
        if *v == K::one() && !self.payloads.contains(&key) {
            *self.copies.entry(key).or_insert(0) += 1;
            return;
        }
        self.generalize(key);
        self.payloads.add(key, v);
    }

    /// Over a ring: retracts `v` from `tuple`'s payload, refused exactly
    /// where [`retract`](Self::retract) would refuse it (the payload is
    /// zero: the tuple is absent).
    ///
    /// # Errors
    ///
    /// [`Error::AbsentTuple`] naming `relation`, with nothing changed.
    #[inline]
    pub fn retract_delta<T: Hash + ?Sized>(
        &mut self,
        tuple: &T,
        v: &K,
        relation: &'static str,
    ) -> Result<(), Error> {
        debug_assert!(K::BY_SUBTRACTION, "ivm: retract_delta over a ring only");
        let key = self.of(tuple);
        if *v == K::one()
            && let hashbrown::hash_map::Entry::Occupied(mut copies) = self.copies.entry(key)
        {
            // n ≥ 1 copies of one: a non-zero payload in a ring of
            // characteristic zero, which a retraction takes one from.
            if *copies.get() == 1 {
                copies.remove();
            } else {
                *copies.get_mut() -= 1;
            }
            return Ok(());
        }
        self.generalize(key);
        self.payloads.retract(&key, v, relation).map(|_| ())
    }

    /// Moves `key`'s copies of one, if any, into `payloads` as their sum:
    /// before a contribution other than one meets them.
    fn generalize(&mut self, key: Fingerprint) {
        if let Some(n) = self.copies.remove(&key) {
            let one = K::one();
            let sum = (0..n).fold(K::zero(), |sum, _| sum.add(&one));
            self.payloads.insert(key, &sum);
        }
    }
}

/// A `Hasher` that only collects the bytes it is given, so that the tuple
/// is hashed once, as a whole, by a 128-bit hash. Rows of up to 256 bytes
/// (`LINEITEM`'s are about 150) stay on the stack; a longer one moves to
/// the heap.
struct Bytes {
    inline: [u8; 256],
    len: usize,
    spilled: Vec<u8>,
}

impl Bytes {
    #[inline]
    fn new() -> Self {
        Bytes {
            inline: [0; 256],
            len: 0,
            spilled: Vec::new(),
        }
    }

    /// The bytes written so far.
    #[inline]
    fn as_slice(&self) -> &[u8] {
        if self.spilled.is_empty() {
            &self.inline[..self.len]
        } else {
            &self.spilled
        }
    }
}

impl Hasher for Bytes {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        if self.spilled.is_empty() && end <= self.inline.len() {
            self.inline[self.len..end].copy_from_slice(bytes);
            self.len = end;
            return;
        }
        if self.spilled.is_empty() {
            self.spilled.extend_from_slice(&self.inline[..self.len]);
        }
        self.spilled.extend_from_slice(bytes);
    }

    fn finish(&self) -> u64 {
        unreachable!("a fingerprint is read off the bytes, not `finish`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semiring::{Int, MinPlus};

    #[test]
    fn equal_tuples_share_a_fingerprint_and_others_do_not() {
        let map: Fingerprints<Int> = Fingerprints::new();
        let a = (1_u32, String::from("ab"), String::from("c"));
        assert_eq!(map.of(&a), map.of(&a.clone()));
        // The strings' bytes are delimited: moving a byte across them
        // makes another tuple.
        let b = (1_u32, String::from("a"), String::from("bc"));
        assert_ne!(map.of(&a), map.of(&b));
    }

    #[test]
    fn a_delete_of_an_absent_tuple_changes_nothing() {
        let mut map: Fingerprints<Int> = Fingerprints::new();
        map.add(&(1_u32, 2_u32), &Int(2));
        assert_eq!(
            map.retract(&(2_u32, 1_u32), &Int(1), "R"),
            Err(Error::AbsentTuple { relation: "R" })
        );
        assert_eq!(
            map.retract(&(1_u32, 2_u32), &Int(1), "R"),
            Ok(Some((Int(2), Int(1))))
        );
        assert_eq!(map.len(), 1);
    }

    #[test]
    fn a_retraction_of_a_payload_never_added_is_refused() {
        let mut map: Fingerprints<MinPlus> = Fingerprints::new();
        map.add(&7_u64, &MinPlus(5));
        assert!(map.retract(&7_u64, &MinPlus(4), "Offers").is_err());
        assert_eq!(
            map.retract(&7_u64, &MinPlus(5), "Offers"),
            Ok(Some((MinPlus(5), MinPlus::INFINITY)))
        );
        assert!(map.is_empty());
    }

    #[test]
    fn a_long_tuple_moves_to_the_heap_and_keeps_its_bytes() {
        let map: Fingerprints<Int> = Fingerprints::new();
        let long = (String::from("x").repeat(200), String::from("y").repeat(200));
        let mut bytes = Bytes::new();
        long.hash(&mut bytes);
        assert_eq!(bytes.as_slice().len(), 402);
        assert_eq!(map.of(&long), map.of(&long.clone()));
        let other = (String::from("x").repeat(201), String::from("y").repeat(199));
        assert_ne!(map.of(&long), map.of(&other));
    }

    /// Over a ring, counting copies of one tells absent tuples from
    /// present ones exactly as the payloads themselves do.
    #[test]
    fn counted_copies_refuse_what_payloads_refuse() {
        use proptest::prelude::*;
        proptest!(|(ops in prop::collection::vec((0u8..3, 0u32..4, -2i64..3), 1..80))| {
            let mut counted: Fingerprints<Int> = Fingerprints::new();
            let mut model: crate::payload_map::PayloadMap<u32, Int> = crate::payload_map::PayloadMap::new();
            for (kind, tuple, v) in ops {
                let v = if kind == 2 { Int(1) } else { Int(v) };
                if kind == 0 {
                    counted.add_delta(&tuple, &v);
                    model.add(tuple, &v);
                } else {
                    let got = counted.retract_delta(&tuple, &v, "R");
                    let want = model.retract(&tuple, &v, "R").map(|_| ());
                    prop_assert_eq!(got, want);
                }
                prop_assert_eq!(counted.len(), model.len());
            }
        });
    }

    #[test]
    fn two_maps_draw_different_seeds() {
        let (a, b): (Fingerprints<Int>, Fingerprints<Int>) =
            (Fingerprints::new(), Fingerprints::new());
        assert_ne!(a.seed, b.seed);
    }
}
