//! [`Fingerprints`]: the base map of a relation that nothing reads back
//! but a delete's check.
//!
//! Under inserts and deletes a view must refuse the delete of a tuple that
//! was never inserted (or was deleted already) and change nothing. Where
//! the views read a relation only through derived relations of the
//! columns they use (`docs/design.md#how-a-delete-is-checked`), keeping
//! each whole tuple for that check would cost more than maintaining the
//! views: a `LINEITEM` row owns sixteen columns, five of them strings. A
//! [`Fingerprints`] map keeps instead each tuple's payload under a 96-bit
//! hash of the tuple, keyed by a random seed of its own, and takes the
//! tuple by reference, so no column is cloned or kept.
//!
//! A delete of a tuple that is not there is still refused, unless its
//! fingerprint equals that of one that is: with `n` tuples present, the
//! chance is at most `n / 2^96` per such delete (about 10^-20 for a
//! billion rows), for tuples not chosen to collide under a seed they
//! cannot see. A tuple that is there is never refused.

use std::hash::{Hash, Hasher};

use crate::payload_map::{Keeping, PayloadMap, Retracting};
use crate::{Error, Maintained, Semiring};

/// A tuple's fingerprint: 96 bits of a 128-bit XXH3 hash of its bytes.
///
/// 96 bits, not 128, so that an entry of the map of copies (fingerprint
/// and count) takes 16 bytes, four to a cache line, where a `u128` key and
/// an `i64` count took 32: at the scale where the map outgrows the caches,
/// its probes miss half as often. The bits are already random, so the
/// table of copies ([`CopyTable`](crate::copies::CopyTable)) finds a
/// fingerprint by its low bits, with no hash of its own.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Fingerprint([u32; 3]);

impl Fingerprint {
    /// The low 96 bits of a 128-bit hash.
    #[inline]
    fn of_hash(hash: u128) -> Self {
        Fingerprint([hash as u32, (hash >> 32) as u32, (hash >> 64) as u32])
    }
}

impl Hash for Fingerprint {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(u64::from(self.0[0]) | (u64::from(self.0[1]) << 32));
    }
}

/// The copies of one of each tuple counted so: see [`Fingerprints`].
type Copies = crate::copies::CopyTable;

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
    /// The tuples whose
    /// contributions were all one, by their number. An entry is 16 bytes
    /// whatever the payload (a tuple payload of six decimals is 88), and
    /// nearly every SQL row is such a tuple. A tuple past `u32::MAX`
    /// copies moves to `payloads`.
    copies: Copies,
    /// Copies of one added but not yet counted in `copies`, at most
    /// [`PENDING`]: see [`add_delta`](Self::add_delta). Every other
    /// method counts them first, so none can tell they waited.
    pending: Vec<Fingerprint>,
    /// The other tuples' payloads. A tuple is in one of the two maps.
    payloads: PayloadMap<Fingerprint, K, P>,
    /// Where a tuple's bytes are gathered before they are hashed.
    #[cfg_attr(feature = "serde", serde(skip))]
    scratch: Scratch,
}

/// How many copies of one [`Fingerprints::add_delta`] gathers before it
/// counts them. Each count probes the map at a random place, a cache miss
/// once the map outgrows the caches; counted in a burst, the probes are
/// independent, and the processor has them in flight at once. Counted one
/// at a time, each row waited for its own miss: on the benchmark machine
/// (docs/benchmarks.md), an insert's check of a `LINEITEM` row took
/// 0.42 µs so, and 0.15 µs counted in bursts, with [`Bytes`] copying
/// numbers without a call.
const PENDING: usize = 16;

impl<K: Semiring, P: Keeping<K>> Clone for Fingerprints<K, P> {
    fn clone(&self) -> Self {
        Fingerprints {
            seed: self.seed,
            copies: self.copies.clone(),
            pending: self.pending.clone(),
            payloads: self.payloads.clone(),
            scratch: Scratch::default(),
        }
    }
}

impl<K: Semiring, P: Keeping<K>> std::fmt::Debug for Fingerprints<K, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fingerprints")
            .field("counted", &(self.copies.len() + self.payloads.len()))
            .field("pending", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl<K: Maintained> Default for Fingerprints<K, Retracting> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Maintained> Fingerprints<K, Retracting> {
    /// An empty map with a fresh random seed.
    pub fn new() -> Self {
        Fingerprints {
            seed: std::hash::BuildHasher::hash_one(&std::hash::RandomState::new(), 0x1f_u8),
            copies: Copies::default(),
            pending: Vec::new(),
            payloads: PayloadMap::new(),
            scratch: Scratch::default(),
        }
    }

    /// The number of distinct tuples with a live contribution. It counts
    /// the pending copies first, hence `&mut`.
    pub fn len(&mut self) -> usize {
        self.count_pending();
        self.copies.len() + self.payloads.len()
    }

    /// Whether no tuple has a live contribution.
    pub fn is_empty(&mut self) -> bool {
        self.len() == 0
    }

    /// Counts the copies of one that [`add_delta`](Self::add_delta)
    /// gathered, in the order they came.
    #[inline]
    fn count_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        if self.payloads.is_empty() {
            for &key in &pending {
                self.count_one(key);
            }
        } else {
            for &key in &pending {
                if self.payloads.contains(&key) {
                    self.payloads.add(key, &K::one());
                } else {
                    self.count_one(key);
                }
            }
        }
        self.pending = pending;
        self.pending.clear();
    }

    /// Counts one more copy of one of `key`, which is not in `payloads`.
    #[inline]
    fn count_one(&mut self, key: Fingerprint) {
        if self.copies.increment(key.0).is_none() {
            self.generalize(key);
            self.payloads.add(key, &K::one());
        }
    }

    /// The fingerprint of `tuple`: its `Hash` bytes, hashed at once.
    #[inline]
    fn of<T: Hash + ?Sized>(&mut self, tuple: &T) -> Fingerprint {
        Fingerprint::of_hash(self.digest(tuple))
    }

    /// The 128-bit hash of `tuple`'s `Hash` bytes, under this map's seed.
    #[inline]
    fn digest<T: Hash + ?Sized>(&mut self, tuple: &T) -> u128 {
        let mut bytes = Bytes::new(&mut self.scratch.0);
        tuple.hash(&mut bytes);
        xxhash_rust::xxh3::xxh3_128_with_seed(bytes.as_slice(), self.seed)
    }
}

impl<K: Maintained> Fingerprints<K, Retracting> {
    /// Adds the contribution `v` to `tuple`'s payload; returns the payload
    /// before and after, or `None` when it did not change. A map is
    /// changed through this and [`retract`](Self::retract), or through
    /// [`add_delta`](Self::add_delta) and
    /// [`retract_delta`](Self::retract_delta), never both.
    ///
    /// A contribution of one only counts a copy, in any semiring: the
    /// payload of `n` copies of one is the sum of `n` ones, and a
    /// retraction of one takes a copy away, so the count says what a
    /// state of the payloads would (a row of a SQL table is always such a
    /// tuple, whatever its views compute).
    ///
    /// # Panics
    ///
    /// Outside a ring, when a tuple would have more than `u32::MAX` copies
    /// (a ring's move on to the payloads).
    #[inline]
    pub fn add<T: Hash + ?Sized>(&mut self, tuple: &T, v: &K) -> Option<(K, K)> {
        self.count_pending();
        let key = self.of(tuple);
        if *v == K::one() && (self.payloads.is_empty() || !self.payloads.contains(&key)) {
            return self.add_copy(key);
        }
        self.generalize(key);
        self.payloads.add(key, v)
    }

    /// Counts one more copy of one of `key`, which is not in `payloads`;
    /// the payload before and after, as [`add`](Self::add) returns it.
    #[inline]
    fn add_copy(&mut self, key: Fingerprint) -> Option<(K, K)> {
        let Some(n) = self.copies.increment(key.0) else {
            assert!(
                K::BY_SUBTRACTION,
                "ivm: more than u32::MAX copies of one tuple"
            );
            self.generalize(key);
            return self.payloads.add(key, &K::one());
        };
        changed(times_one(n), times_one(n + 1))
    }

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
        self.count_pending();
        let key = self.of(tuple);
        if *v == K::one()
            && let Some(n) = self.copies.decrement(key.0)
        {
            return Ok(changed(times_one(n), times_one(n - 1)));
        }
        self.generalize(key);
        self.payloads.retract(&key, v, relation)
    }

    /// Moves `key`'s copies of one, if any, into `payloads`: before a
    /// contribution other than one meets them. A ring's state is the sum,
    /// so they go as one contribution of their sum; any other keeps each
    /// contribution, so each copy goes as one.
    fn generalize(&mut self, key: Fingerprint) {
        let Some(n) = self.copies.remove(key.0) else {
            return;
        };
        if K::BY_SUBTRACTION {
            self.payloads.insert(key, &times_one::<K>(n));
        } else {
            for _ in 0..n {
                self.payloads.insert(key, &K::one());
            }
        }
    }
}

/// `Some((old, new))` where they differ: what [`Fingerprints::add`] and
/// [`Fingerprints::retract`] return.
#[inline]
fn changed<K: Semiring>(old: K, new: K) -> Option<(K, K)> {
    (old != new).then_some((old, new))
}

impl<K: Maintained> Fingerprints<K, Retracting> {
    /// Adds `v` to `tuple`'s payload, without saying what it was, which
    /// views told each update's δ do not ask (every view but a
    /// semijoin's, over a semiring that retracts exactly or linearly:
    /// `Maintained::RETRACTS_EXACTLY`). A contribution of one only counts a copy, and waits to
    /// be counted with the next few ([`PENDING`]).
    #[inline]
    pub fn add_delta<T: Hash + ?Sized>(&mut self, tuple: &T, v: &K) {
        let key = self.of(tuple);
        if *v == K::one() {
            if self.pending.capacity() == 0 {
                self.pending.reserve_exact(PENDING);
            }
            self.pending.push(key);
            if self.pending.len() == PENDING {
                self.count_pending();
            }
            return;
        }
        self.count_pending();
        self.generalize(key);
        self.payloads.add(key, v);
    }

    /// Retracts the contribution `v` from `tuple`'s payload, refused
    /// exactly where [`retract`](Self::retract) would refuse it (no such
    /// contribution is live).
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
        self.count_pending();
        let key = self.of(tuple);
        if *v == K::one() && self.copies.decrement(key.0).is_some() {
            return Ok(());
        }
        self.generalize(key);
        self.payloads.retract(&key, v, relation).map(|_| ())
    }
}

/// The sum of `n` ones, by doubling: O(log n) additions.
fn times_one<K: Semiring>(n: u32) -> K {
    let (mut sum, mut power) = (K::zero(), K::one());
    let mut n = n;
    while n > 0 {
        if n & 1 == 1 {
            sum = sum.add(&power);
        }
        power = power.add(&power);
        n >>= 1;
    }
    sum
}

/// A `Hasher` that only collects the bytes it is given, so that the tuple
/// is hashed once, as a whole, by a 128-bit hash. Rows of up to 256 bytes
/// (`LINEITEM`'s are about 170) are gathered in the map's [`Scratch`]; a
/// longer one moves to a `Vec` of its own.
struct Bytes<'a> {
    inline: &'a mut [u8; INLINE],
    /// The bytes written to `inline`, or [`SPILLED`] once they moved to
    /// `spilled`: one comparison per write tells both.
    len: usize,
    spilled: Vec<u8>,
}

/// The bytes of a row gathered in place, in the map's [`Scratch`].
const INLINE: usize = 256;

/// [`Bytes::len`] once the bytes are on the heap: past any inline length,
/// so that every later write takes the cold path, and no overflow when a
/// slice's length (at most `isize::MAX`) is added to it.
const SPILLED: usize = usize::MAX / 2 + 1;

/// The buffer of a map's [`Bytes`]: kept with the map, it is zeroed once
/// and not for every tuple (zeroing 256 bytes a tuple cost TPC-H Q10,
/// checked, 1.2 % of its instructions). What it holds between two hashes
/// is never read, so a clone or a restored map starts with a fresh one.
struct Scratch(Box<[u8; INLINE]>);

impl Default for Scratch {
    fn default() -> Self {
        Scratch(Box::new([0; INLINE]))
    }
}

impl<'a> Bytes<'a> {
    /// Gathers into `inline`, from its start.
    #[inline]
    fn new(inline: &'a mut [u8; INLINE]) -> Self {
        Bytes {
            inline,
            len: 0,
            spilled: Vec::new(),
        }
    }

    /// The bytes written so far.
    #[inline]
    fn as_slice(&self) -> &[u8] {
        if self.len == SPILLED {
            &self.spilled
        } else {
            &self.inline[..self.len]
        }
    }
}

impl Bytes<'_> {
    /// Appends a fixed number of bytes: a copy of known length, with no
    /// call to `memcpy` (most of a row's columns are numbers).
    #[inline(always)]
    fn push<const N: usize>(&mut self, bytes: [u8; N]) {
        let end = self.len + N;
        if end <= INLINE {
            self.inline[self.len..end].copy_from_slice(&bytes);
            self.len = end;
        } else {
            self.spill(&bytes);
        }
    }

    /// Appends past the inline buffer: in `spilled`.
    #[cold]
    fn spill(&mut self, bytes: &[u8]) {
        if self.len != SPILLED {
            self.spilled.extend_from_slice(&self.inline[..self.len]);
            self.len = SPILLED;
        }
        self.spilled.extend_from_slice(bytes);
    }
}

impl Hasher for Bytes<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        if end <= INLINE {
            self.inline[self.len..end].copy_from_slice(bytes);
            self.len = end;
        } else {
            self.spill(bytes);
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.push(i.to_ne_bytes());
    }

    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.push(i.to_ne_bytes());
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.push(i.to_ne_bytes());
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.push(i.to_ne_bytes());
    }

    #[inline]
    fn write_u128(&mut self, i: u128) {
        self.push(i.to_ne_bytes());
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.push(i.to_ne_bytes());
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
        let mut map: Fingerprints<Int> = Fingerprints::new();
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
        let mut map: Fingerprints<Int> = Fingerprints::new();
        let long = (String::from("x").repeat(200), String::from("y").repeat(200));
        let mut buffer = [0; INLINE];
        let mut bytes = Bytes::new(&mut buffer);
        long.hash(&mut bytes);
        assert_eq!(bytes.as_slice().len(), 402);
        assert_eq!(map.of(&long), map.of(&long.clone()));
        let other = (String::from("x").repeat(201), String::from("y").repeat(199));
        assert_ne!(map.of(&long), map.of(&other));
    }

    /// The map's buffer keeps the bytes of the last tuple hashed; the next
    /// hash reads only its own.
    #[test]
    fn a_hash_reads_only_its_own_bytes() {
        let mut map: Fingerprints<Int> = Fingerprints::new();
        let short = (7_u8, "ab");
        let first = map.digest(&short);
        map.digest(&(u64::MAX, "z".repeat(240)));
        assert_eq!(map.digest(&short), first);
        let mut copy = map.clone();
        assert_eq!(copy.digest(&short), first);
    }

    /// Whatever write crosses the inline buffer's end, a number's or a
    /// string's, the bytes gathered are those written, in order.
    #[test]
    fn bytes_are_gathered_in_order_across_the_inline_end() {
        // Pairs of 15 bytes end at 255, and the next number crosses; of
        // 48, the sixth pair's string crosses.
        for (numbers, text) in [0, 1, 17, 18, 30]
            .into_iter()
            .flat_map(|n| [(n, 7), (n, 40)])
        {
            let text = "z".repeat(text);
            let mut buffer = [0; INLINE];
            let mut bytes = Bytes::new(&mut buffer);
            let mut expected = Vec::new();
            for i in 0..numbers {
                bytes.write_u64(i as u64);
                expected.extend_from_slice(&(i as u64).to_ne_bytes());
                bytes.write(text.as_bytes());
                expected.extend_from_slice(text.as_bytes());
            }
            bytes.write_u8(0xff);
            expected.push(0xff);
            assert_eq!(bytes.as_slice(), &expected[..], "{numbers} pairs");
        }
    }

    /// Copies of one wait to be counted, and every other call counts
    /// them first: a delete right after its insert finds it.
    #[test]
    fn pending_copies_are_counted_before_anything_reads_the_map() {
        let mut map: Fingerprints<Int> = Fingerprints::new();
        for tuple in 0..(PENDING as u32 + 3) {
            map.add_delta(&tuple, &Int(1));
            assert_eq!(map.retract_delta(&tuple, &Int(1), "R"), Ok(()));
            map.add_delta(&tuple, &Int(1));
        }
        map.add_delta(&1_u32, &Int(1));
        assert_eq!(map.len(), PENDING + 3);
        map.add_delta(&1_u32, &Int(5));
        assert_eq!(map.retract_delta(&1_u32, &Int(7), "R"), Ok(()));
        assert!(map.retract_delta(&1_u32, &Int(1), "R").is_err());
        assert_eq!(map.len(), PENDING + 2);
    }

    /// Through `add_delta` and `retract_delta`, in a ring or not,
    /// counting copies of one tells absent contributions from live ones
    /// exactly as the payloads themselves do.
    #[test]
    fn counted_copies_refuse_what_payloads_refuse() {
        use proptest::prelude::*;
        fn check<K: Maintained>(ops: &[(u8, u32, K)]) -> Result<(), TestCaseError> {
            let mut counted: Fingerprints<K> = Fingerprints::new();
            let mut model: crate::payload_map::PayloadMap<u32, K> =
                crate::payload_map::PayloadMap::new();
            for (kind, tuple, v) in ops {
                let v = if *kind == 2 { K::one() } else { v.clone() };
                if *kind == 0 {
                    counted.add_delta(tuple, &v);
                    model.add(*tuple, &v);
                } else {
                    let got = counted.retract_delta(tuple, &v, "R");
                    let want = model.retract(tuple, &v, "R").map(|_| ());
                    prop_assert_eq!(got, want);
                }
                prop_assert_eq!(counted.len(), model.len());
            }
            Ok(())
        }
        proptest!(|(ops in prop::collection::vec((0u8..3, 0u32..4, -2i64..3), 1..80))| {
            let ints: Vec<_> = ops.iter().map(|&(k, t, v)| (k, t, Int(v))).collect();
            check(&ints)?;
            let costs: Vec<_> = ops.iter().map(|&(k, t, v)| (k, t, MinPlus(v))).collect();
            check(&costs)?;
        });
    }

    /// Through `add` and `retract`, in any semiring, counting copies of
    /// one answers exactly as the payloads themselves do: the payloads
    /// before and after, and which retractions are refused.
    fn counted_copies_answer_as_payloads<K: Maintained>(ops: &[(u8, u32, K)]) {
        let mut counted: Fingerprints<K> = Fingerprints::new();
        let mut model: crate::payload_map::PayloadMap<u32, K> =
            crate::payload_map::PayloadMap::new();
        for (kind, tuple, v) in ops {
            let v = if kind % 2 == 0 { K::one() } else { v.clone() };
            if *kind < 2 {
                assert_eq!(counted.add(tuple, &v), model.add(*tuple, &v), "add {v:?}");
            } else {
                let got = counted.retract(tuple, &v, "R");
                let want = model.retract(tuple, &v, "R");
                assert_eq!(got, want, "retract {v:?}");
            }
            assert_eq!(counted.len(), model.len());
        }
    }

    #[test]
    fn counted_copies_answer_as_payloads_in_every_semiring() {
        use crate::semiring::Bool;
        use proptest::prelude::*;
        let op = |v: BoxedStrategy<i64>| (0u8..4, 0u32..4, v);
        proptest!(|(ops in prop::collection::vec(op((-2i64..3).boxed()), 1..60))| {
            let ints: Vec<_> = ops.iter().map(|&(k, t, v)| (k, t, Int(v))).collect();
            counted_copies_answer_as_payloads(&ints);
        });
        proptest!(|(ops in prop::collection::vec(op((0i64..3).boxed()), 1..60))| {
            let costs: Vec<_> = ops.iter().map(|&(k, t, v)| (k, t, MinPlus(v))).collect();
            counted_copies_answer_as_payloads(&costs);
            let bools: Vec<_> = ops.iter().map(|&(k, t, v)| (k, t, Bool(v > 0))).collect();
            counted_copies_answer_as_payloads(&bools);
        });
    }

    /// A row's fingerprint is made of the bytes std's `Hash` impls write
    /// (and `Decimal`'s and `Date`'s own), and snapshots keep
    /// fingerprints: a toolchain that changed those bytes would make a
    /// restored view refuse its rows' deletes. This pins them for a row of
    /// every kind of column. If it fails after a toolchain upgrade, raise
    /// the compiler's `PLAN_FORMAT` (older snapshots are then refused, not
    /// misread) and update the constant.
    // Integers hash as their native bytes: the constant is a
    // little-endian machine's.
    #[test]
    #[cfg(all(feature = "sql", target_endian = "little"))]
    fn the_bytes_a_row_hashes_through_do_not_change() {
        use crate::sql::{Date, Decimal};
        let mut map: Fingerprints<Int> = Fingerprints::new();
        map.seed = 2016;
        let row = (
            (7_i64, 3_u32, -2_i32, 5_u8, true, 'x'),
            ("MAIL", String::from("é"), (), Some(4_i64), None::<i64>),
            (Decimal::new(1725, 2), Date::from_days(8582)),
        );
        assert_eq!(
            map.digest(&row),
            0x4d26_353d_c269_1de7_45bb_744f_fdd9_ddcd,
            "the bytes of a row's hash changed: raise PLAN_FORMAT"
        );
        // Text lent as `&str` hashes as the `String` it stands for.
        let owned = (String::from("MAIL"), 1_i64);
        assert_eq!(map.of(&owned), map.of(&("MAIL", 1_i64)));
    }

    /// A tuple with more copies than a `u32` counts moves to the payloads,
    /// which count on, and its deletes are checked as before.
    #[test]
    fn copies_past_u32_max_move_to_the_payloads() {
        let mut map: Fingerprints<Int> = Fingerprints::new();
        let key = map.of(&9_u64);
        map.copies.insert(key.0, u32::MAX - 1);
        map.add_delta(&9_u64, &Int(1));
        map.add_delta(&9_u64, &Int(1));
        assert_eq!(map.len(), 1);
        assert_eq!(map.copies.len(), 0);
        assert_eq!(map.payloads.value(&key), Int(i64::from(u32::MAX) + 1));
        assert_eq!(map.retract_delta(&9_u64, &Int(1), "R"), Ok(()));
        assert_eq!(map.payloads.value(&key), Int(i64::from(u32::MAX)));
        assert!(map.retract_delta(&8_u64, &Int(1), "R").is_err());
    }

    /// The same through `add`, which tells the payloads before and after;
    /// outside a ring, whose states count each contribution, it panics.
    #[test]
    fn copies_past_u32_max_through_add() {
        let mut map: Fingerprints<Int> = Fingerprints::new();
        let key = map.of(&9_u64);
        map.copies.insert(key.0, u32::MAX);
        let past = Int(i64::from(u32::MAX) + 1);
        assert_eq!(map.add(&9_u64, &Int(1)), Some((Int(past.0 - 1), past)));
        assert_eq!(map.copies.len(), 0);
        assert_eq!(
            map.retract(&9_u64, &Int(1), "R"),
            Ok(Some((past, Int(past.0 - 1))))
        );

        let mut costs: Fingerprints<MinPlus> = Fingerprints::new();
        let key = costs.of(&9_u64);
        costs.copies.insert(key.0, u32::MAX);
        let added = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            costs.add(&9_u64, &MinPlus(0))
        }));
        assert!(added.is_err());
    }

    #[test]
    fn the_sum_of_n_ones_is_n() {
        for n in [0, 1, 2, 3, 7, 8, 1000, u32::MAX] {
            assert_eq!(times_one::<Int>(n), Int(i64::from(n)));
        }
    }

    #[test]
    fn two_maps_draw_different_seeds() {
        let (a, b): (Fingerprints<Int>, Fingerprints<Int>) =
            (Fingerprints::new(), Fingerprints::new());
        assert_ne!(a.seed, b.seed);
    }
}
