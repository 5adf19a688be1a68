//! [`CopyTable`]: the count of copies under each fingerprint that a
//! [`Fingerprints`](crate::fingerprint) map keeps, in a table of its own.
//!
//! A fingerprint is 96 random bits, so it needs no hash and no control
//! bytes: the table is one array of 16-byte slots (fingerprint and count,
//! four to a cache line), found by linear probing from the slot the
//! fingerprint's low bits name. A probe reads one cache line, where a
//! `hashbrown` map reads its control bytes and then, from where they
//! point, the entry: two misses in a row once the map outgrows the
//! caches. A delete's check waits for its probe before it answers, so at
//! scale that wait is the cost of the check.
//!
//! The seed of the fingerprints is drawn per map and never shown, so no
//! one can choose rows whose fingerprints crowd one run of slots.

/// One slot: a fingerprint and its count of copies; a count of zero marks
/// the slot empty (a fingerprint whose copies are all gone is removed).
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
#[repr(C, align(16))]
struct Slot {
    key: [u32; 3],
    count: u32,
}

/// The count of copies under each fingerprint, counts at least one: see
/// the module doc.
#[derive(Clone, Debug, Default)]
pub struct CopyTable {
    /// A power of two of slots (none before the first insert), at most
    /// three quarters of them full.
    slots: Vec<Slot>,
    /// The full slots.
    len: usize,
}

/// The fewest slots a table that holds anything has.
const MIN_SLOTS: usize = 16;

impl CopyTable {
    /// The fingerprints with a count.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// The slot where the search for `key` starts.
    #[inline]
    fn home(&self, key: [u32; 3]) -> usize {
        let bits = u64::from(key[0]) | (u64::from(key[1]) << 32);
        (bits as usize) & (self.slots.len() - 1)
    }

    /// `Ok` with the slot of `key`, or `Err` with the empty slot where it
    /// would go. The table must have slots.
    #[inline]
    fn find(&self, key: [u32; 3]) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut at = self.home(key);
        loop {
            let slot = &self.slots[at];
            if slot.count == 0 {
                return Err(at);
            }
            if slot.key == key {
                return Ok(at);
            }
            at = (at + 1) & mask;
        }
    }

    /// The count of `key`, zero when it has none.
    #[cfg(test)]
    pub fn get(&self, key: [u32; 3]) -> u32 {
        if self.slots.is_empty() {
            return 0;
        }
        self.find(key).map_or(0, |at| self.slots[at].count)
    }

    /// Adds one copy of `key`; returns its count before, or `None`, with
    /// nothing changed, when that count is `u32::MAX`.
    #[inline]
    pub fn increment(&mut self, key: [u32; 3]) -> Option<u32> {
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        match self.find(key) {
            Ok(at) => {
                let slot = &mut self.slots[at];
                let before = slot.count;
                slot.count = before.checked_add(1)?;
                Some(before)
            }
            Err(at) => {
                self.slots[at] = Slot { key, count: 1 };
                self.len += 1;
                Some(0)
            }
        }
    }

    /// Takes one copy of `key` away; returns its count before, or `None`
    /// when it has none.
    #[inline]
    pub fn decrement(&mut self, key: [u32; 3]) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let at = self.find(key).ok()?;
        let before = self.slots[at].count;
        if before == 1 {
            self.remove_at(at);
        } else {
            self.slots[at].count = before - 1;
        }
        Some(before)
    }

    /// Removes `key`; returns its count, or `None` when it has none.
    pub fn remove(&mut self, key: [u32; 3]) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let at = self.find(key).ok()?;
        let count = self.slots[at].count;
        self.remove_at(at);
        Some(count)
    }

    /// Sets the count of `key` to `count` (at least one): what a snapshot
    /// restores.
    #[cfg(any(test, feature = "serde"))]
    pub fn insert(&mut self, key: [u32; 3], count: u32) {
        assert!(count > 0, "a count of copies is at least one");
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        match self.find(key) {
            Ok(at) => self.slots[at].count = count,
            Err(at) => {
                self.slots[at] = Slot { key, count };
                self.len += 1;
            }
        }
    }

    /// Empties the slot `at`, and moves back into it each later slot of
    /// the same run whose search would no longer reach it across the hole
    /// (deletion without tombstones: every run stays unbroken).
    fn remove_at(&mut self, mut hole: usize) {
        let mask = self.slots.len() - 1;
        let mut at = hole;
        loop {
            at = (at + 1) & mask;
            let slot = self.slots[at];
            if slot.count == 0 {
                break;
            }
            let home = self.home(slot.key);
            // The slot may stay if its home lies cyclically in (hole, at].
            let stays = if hole <= at {
                hole < home && home <= at
            } else {
                hole < home || home <= at
            };
            if !stays {
                self.slots[hole] = slot;
                hole = at;
            }
        }
        self.slots[hole] = Slot::default();
        self.len -= 1;
    }

    /// Doubles the slots (or makes the first ones) and puts every entry
    /// back.
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(MIN_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        for slot in old.into_iter().filter(|s| s.count > 0) {
            let Err(at) = self.find(slot.key) else {
                unreachable!("a fingerprint is in one slot")
            };
            self.slots[at] = slot;
        }
    }

    /// Each fingerprint with its count, in no particular order.
    #[cfg(any(test, feature = "serde"))]
    pub fn iter(&self) -> impl Iterator<Item = ([u32; 3], u32)> + '_ {
        self.slots
            .iter()
            .filter(|s| s.count > 0)
            .map(|s| (s.key, s.count))
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for CopyTable {
    /// The fingerprints with their counts, as a sequence of pairs.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        // Postcard writes a sequence's length first: give it.
        let mut seq = serializer.serialize_seq(Some(self.len))?;
        for pair in self.iter() {
            seq.serialize_element(&pair)?;
        }
        seq.end()
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for CopyTable {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let pairs: Vec<([u32; 3], u32)> = serde::Deserialize::deserialize(deserializer)?;
        let mut table = CopyTable::default();
        for (key, count) in pairs {
            if count == 0 {
                return Err(serde::de::Error::custom("a count of copies of zero"));
            }
            table.insert(key, count);
        }
        Ok(table)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use proptest::prelude::*;

    use super::*;

    /// A slot is 16 bytes: four to a cache line.
    #[test]
    fn a_slot_takes_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Slot>(), 16);
    }

    /// Keys drawn from few homes in a small table, so runs are long, wrap
    /// around the end, and deletes shift entries back across them.
    fn key() -> impl Strategy<Value = [u32; 3]> {
        (0u32..6, 0u32..4).prop_map(|(home, tag)| [home * 5 + 13, 0, tag])
    }

    #[derive(Debug, Clone)]
    enum Op {
        Increment([u32; 3]),
        Decrement([u32; 3]),
        Remove([u32; 3]),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => key().prop_map(Op::Increment),
            2 => key().prop_map(Op::Decrement),
            1 => key().prop_map(Op::Remove),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn a_table_counts_what_a_map_counts(ops in prop::collection::vec(op(), 0..300)) {
            let mut table = CopyTable::default();
            let mut model: HashMap<[u32; 3], u32> = HashMap::new();
            for op in ops {
                match op {
                    Op::Increment(k) => {
                        let before = model.get(&k).copied().unwrap_or(0);
                        prop_assert_eq!(table.increment(k), Some(before));
                        model.insert(k, before + 1);
                    }
                    Op::Decrement(k) => {
                        let before = model.get(&k).copied();
                        prop_assert_eq!(table.decrement(k), before);
                        match before {
                            Some(1) => { model.remove(&k); }
                            Some(n) => { model.insert(k, n - 1); }
                            None => {}
                        }
                    }
                    Op::Remove(k) => {
                        prop_assert_eq!(table.remove(k), model.remove(&k));
                    }
                }
                prop_assert_eq!(table.len(), model.len());
                for (k, n) in &model {
                    prop_assert_eq!(table.get(*k), *n);
                }
                let mut listed: Vec<_> = table.iter().collect();
                let mut want: Vec<_> = model.iter().map(|(k, n)| (*k, *n)).collect();
                listed.sort_unstable();
                want.sort_unstable();
                prop_assert_eq!(listed, want);
            }
        }
    }

    #[test]
    fn a_count_at_u32_max_is_not_incremented() {
        let mut table = CopyTable::default();
        table.insert([1, 2, 3], u32::MAX);
        assert_eq!(table.increment([1, 2, 3]), None);
        assert_eq!(table.get([1, 2, 3]), u32::MAX);
    }
}
