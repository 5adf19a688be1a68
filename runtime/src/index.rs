//! The maps and indexes that maintained views live in: a fast hash map, and
//! [`Group`], the keys that share a prefix, for constant-delay enumeration.
//!
//! Generated code reaches everything here through `::ivm::__private`.

/// The hash map every view, index and relation of generated code is stored
/// in, keyed by tuples of column values.
//
// Why foldhash's `fast::RandomState` and not std's SipHash, nor a fixed-seed
// hasher:
//
// - Speed. Every update hashes one key per view on its path, and keys are
//   mostly tuples of small integers; SipHash-1-3 costs several times what
//   foldhash does on those, and would be the bulk of an O(1) update.
// - The keys are the user's data, and in a service that maintains a view
//   over events it receives they are chosen by whoever sends the events. A
//   fixed hasher would let anyone compute colliding keys offline and turn
//   every O(1) update into O(N), silently voiding the bounds the compiler
//   promised. `RandomState` draws a per-process seed and a per-map seed, so
//   collisions cannot be precomputed; foldhash calls this "minimal DoS
//   resistance": it does not stand up to an attacker who can time a
//   long-running process to recover the seed. SipHash would, at a cost
//   paid on every update by every user, most of whom load data they trust.
// - Moving entries between maps. Maintenance copies one map into another
//   (bulk loads, rebuilding a partition, the views of a heavy/light split);
//   with one fixed seed, inserting keys in another map's iteration order
//   clusters them and makes the copy quadratic. Per-map seeds avoid that.
//
// The price is that iteration order differs between runs; enumeration goes
// through `Group`s, whose order is the order of insertion, and tests compare
// results as sets.
pub type HashMap<K, V> = hashbrown::HashMap<K, V, foldhash::fast::RandomState>;

/// An empty [`HashMap`] with a fresh seed. Does not allocate.
#[inline]
pub fn new_map<K, V>() -> HashMap<K, V> {
    HashMap::with_hasher(foldhash::fast::RandomState::default())
}

/// An empty [`HashMap`] with room for `capacity` entries, for bulk loads
/// that know their size.
#[inline]
pub fn map_with_capacity<K, V>(capacity: usize) -> HashMap<K, V> {
    HashMap::with_capacity_and_hasher(capacity, foldhash::fast::RandomState::default())
}

/// The keys that share a prefix (the entries of a view below one value of
/// its parent's variables), stored densely so that they can be enumerated
/// with constant delay.
///
/// A hash map cannot do that: its iterator skips empty buckets, and after
/// deletes a map of capacity C holding n keys costs O(C / n) per key. A
/// `Group` keeps its keys in a `Vec`; the caller stores each key's position
/// (usually beside the key's payload in a [`HashMap`]) and removes a key by
/// position in O(1), moving the last key into the hole and fixing the
/// position it stored for that one.
///
/// ```
/// use ivm::__private::{Group, HashMap, new_map};
///
/// // Each key's position in the group, kept by the caller.
/// let mut positions: HashMap<&str, usize> = new_map();
/// let mut group = Group::new();
/// for key in ["a", "b", "c"] {
///     positions.insert(key, group.push(key));
/// }
///
/// // Removing "a" moves "c", the last key, into its place.
/// let pos = positions.remove("a").unwrap();
/// if let Some(moved) = group.swap_remove(pos) {
///     positions.insert(*moved, pos);
/// }
/// assert_eq!(group.iter().copied().collect::<Vec<_>>(), ["c", "b"]);
/// assert_eq!(positions["c"], 0);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Group<K> {
    keys: Vec<K>,
}

impl<K> Group<K> {
    /// An empty group. Does not allocate.
    #[inline]
    pub const fn new() -> Self {
        Group { keys: Vec::new() }
    }

    /// Appends `key` and returns its position, which stays valid until a
    /// [`swap_remove`](Self::swap_remove) moves the key. Amortized O(1).
    ///
    /// The group does not check that `key` is new: it holds whatever it is
    /// given, and the caller's map is what knows which keys are present.
    #[inline]
    pub fn push(&mut self, key: K) -> usize {
        self.keys.push(key);
        self.keys.len() - 1
    }

    /// Removes the key at `pos` in O(1) and returns the key now stored at
    /// `pos`: the one moved there from the end, whose stored position the
    /// caller must update. `None` when `pos` was the last position, so
    /// nothing moved.
    ///
    /// # Panics
    ///
    /// When `pos` is out of bounds: a position the caller kept is always in
    /// bounds, so this is a bug in the caller's bookkeeping.
    #[inline]
    pub fn swap_remove(&mut self, pos: usize) -> Option<&K> {
        self.keys.swap_remove(pos);
        self.keys.get(pos)
    }

    /// The key at `pos`, if `pos` is in bounds.
    #[inline]
    pub fn get(&self, pos: usize) -> Option<&K> {
        self.keys.get(pos)
    }

    /// The keys, each in O(1), in the order of their positions.
    #[inline]
    pub fn iter(&self) -> std::slice::Iter<'_, K> {
        self.keys.iter()
    }

    /// How many keys the group holds.
    #[inline]
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the group holds no key: the entry holding it can be dropped.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

impl<K> Default for Group<K> {
    /// An empty group.
    #[inline]
    fn default() -> Self {
        Group::new()
    }
}

impl<'a, K> IntoIterator for &'a Group<K> {
    type Item = &'a K;
    type IntoIter = std::slice::Iter<'a, K>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.keys.iter()
    }
}

/// A secondary index of a relation: its tuples grouped by the values of
/// some of their columns, for the first-order delta's lookups and the loops
/// of a view tree. O(1) insert and remove; iteration over a group visits
/// only its tuples.
///
/// Each tuple may carry a value `V` beside it (`()` by default, which takes
/// no room). A view tree's loop over the tuples of a sibling atom needs
/// each tuple's payload: kept here, in the group it walks, it is read in
/// the same sweep instead of by a probe of the relation's map per tuple,
/// which on a large relation is a cache miss each.
///
/// Most groups are small: the lines of one order, or the one row of a
/// nested view's group. A group of a few tuples is searched in place and
/// holds its first tuple inline, so adding or removing a tuple is one
/// probe of one map and, for a group of one, no allocation. Only a group
/// that grows past eight tuples has each tuple's position kept in a
/// second map, which makes its removals O(1) however large it grows.
///
/// ```
/// use ivm::__private::Index;
///
/// // Tuples (b, c) by c, each with its payload.
/// let mut by_c: Index<(u32,), (u32, u32), i64> = Index::default();
/// by_c.insert_with((7,), (1, 7), 2);
/// by_c.insert_with((7,), (2, 7), 1);
/// by_c.set(&(7,), &(1, 7), 5);
/// assert_eq!(by_c.entries(&(7,)), [((1, 7), 5), ((2, 7), 1)]);
/// by_c.remove(&(7,), &(1, 7));
/// assert_eq!(by_c.get(&(7,)).collect::<Vec<_>>(), [&(2, 7)]);
/// ```
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "K: serde::Serialize + Eq + std::hash::Hash, T: serde::Serialize + Eq + std::hash::Hash, V: serde::Serialize",
        deserialize = "K: serde::Deserialize<'de> + Eq + std::hash::Hash, T: serde::Deserialize<'de> + Eq + std::hash::Hash, V: serde::Deserialize<'de>"
    ))
)]
pub struct Index<K, T, V = ()> {
    groups: HashMap<K, Tuples<T, V>>,
    /// Where each tuple of a positioned group sits in it.
    pos: HashMap<T, usize>,
}

/// The most tuples a group of an [`Index`] holds before the positions of
/// its tuples are kept; it is searched in place until then. A group that
/// has them keeps them until it shrinks to half this, so a group that
/// hovers around the limit does not gain and lose them at every update.
const SEARCHED: usize = 8;

/// The tuples under one key of an [`Index`], the first one inline.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "T: serde::Serialize, V: serde::Serialize",
        deserialize = "T: serde::Deserialize<'de>, V: serde::Deserialize<'de>"
    ))
)]
struct Tuples<T, V> {
    list: smallvec::SmallVec<[(T, V); 1]>,
    /// Whether the index's `pos` holds the position of each tuple here.
    positioned: bool,
}

impl<T, V> Default for Tuples<T, V> {
    fn default() -> Self {
        Tuples {
            list: smallvec::SmallVec::new(),
            positioned: false,
        }
    }
}

impl<K, T, V> Default for Index<K, T, V> {
    fn default() -> Self {
        Index {
            groups: HashMap::default(),
            pos: HashMap::default(),
        }
    }
}

impl<K: Eq + std::hash::Hash, T: Clone + Eq + std::hash::Hash> Index<K, T> {
    /// Adds tuple `t` under key `k`; a tuple already present is left as it
    /// is.
    #[inline]
    pub fn insert(&mut self, k: K, t: T) {
        self.insert_with(k, t, ());
    }
}

impl<K: Eq + std::hash::Hash, T: Clone + Eq + std::hash::Hash, V> Index<K, T, V> {
    /// Adds tuple `t` under key `k` with value `v`; a tuple already present
    /// is left as it is.
    pub fn insert_with(&mut self, k: K, t: T, v: V) {
        let group = self.groups.entry(k).or_default();
        if group.positioned {
            let hashbrown::hash_map::Entry::Vacant(slot) = self.pos.entry(t) else {
                return;
            };
            group.list.push((slot.key().clone(), v));
            slot.insert(group.list.len() - 1);
            return;
        }
        if group.list.iter().any(|(u, _)| *u == t) {
            return;
        }
        group.list.push((t, v));
        if group.list.len() > SEARCHED {
            for (at, (u, _)) in group.list.iter().enumerate() {
                self.pos.insert(u.clone(), at);
            }
            group.positioned = true;
        }
    }

    /// Replaces the value beside tuple `t` (under key `k`), if present.
    pub fn set(&mut self, k: &K, t: &T, v: V) {
        let Some(group) = self.groups.get_mut(k) else {
            return;
        };
        if let Some(at) = Self::find(&self.pos, group, t) {
            group.list[at].1 = v;
        }
    }

    /// Removes tuple `t` from under key `k`, if present.
    pub fn remove(&mut self, k: &K, t: &T) {
        let Some(group) = self.groups.get_mut(k) else {
            return;
        };
        let found = if group.positioned {
            self.pos.remove(t)
        } else {
            group.list.iter().position(|(u, _)| u == t)
        };
        let Some(at) = found else {
            return;
        };
        group.list.swap_remove(at);
        if group.positioned {
            // The last tuple moved into the hole: its position is now `at`.
            if let Some((moved, _)) = group.list.get(at)
                && let Some(slot) = self.pos.get_mut(moved)
            {
                *slot = at;
            }
            if group.list.len() <= SEARCHED / 2 {
                for (u, _) in &group.list {
                    self.pos.remove(u);
                }
                group.positioned = false;
            }
        }
        if group.list.is_empty() {
            self.groups.remove(k);
        }
    }

    /// Where `t` sits in `group`: from `pos` if the group is positioned,
    /// else by searching its few tuples.
    fn find(pos: &HashMap<T, usize>, group: &Tuples<T, V>, t: &T) -> Option<usize> {
        if group.positioned {
            pos.get(t).copied()
        } else {
            group.list.iter().position(|(u, _)| u == t)
        }
    }

    /// The tuples under key `k`.
    pub fn get<'a>(&'a self, k: &K) -> impl Iterator<Item = &'a T> + use<'a, K, T, V> {
        self.entries(k).iter().map(|(t, _)| t)
    }

    /// The tuples under key `k`, each with its value.
    #[inline]
    pub fn entries(&self, k: &K) -> &[(T, V)] {
        self.groups.get(k).map_or(&[], |g| g.list.as_slice())
    }

    /// How many tuples are under key `k`: what a join that may walk either
    /// of two groups compares, to walk the smaller.
    #[inline]
    pub fn count(&self, k: &K) -> usize {
        self.groups.get(k).map_or(0, |g| g.list.len())
    }
}

/// The index CROWN revisits a parent's tuples through: its tuples grouped
/// by the values of the columns a child's message is keyed by, for
/// programs that only insert.
///
/// Unlike [`Index`] it keeps no positions, since no tuple ever leaves on
/// its own: the caller adds each tuple once (when its payload first turns
/// non-zero, which the base map tells), and a whole group leaves through
/// [`take`](Self::take) when the messages at its key can grow no more, so
/// nothing will read it again. One hash probe per insert.
///
/// ```
/// use ivm::__private::GrowingIndex;
///
/// let mut logins_by_device: GrowingIndex<(u64,), (u64, u64)> = GrowingIndex::default();
/// logins_by_device.insert((7,), (1, 7));
/// logins_by_device.insert((7,), (2, 7));
///
/// // Device 7's message grew: revisit its tuples, and keep them only if
/// // it can grow again.
/// let tuples = logins_by_device.take(&(7,));
/// assert_eq!(tuples, [(1, 7), (2, 7)]);
/// logins_by_device.restore((7,), tuples);
/// assert_eq!(logins_by_device.take(&(7,)).len(), 2);
/// assert!(logins_by_device.take(&(7,)).is_empty());
/// ```
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "K: serde::Serialize + Eq + std::hash::Hash, T: serde::Serialize",
        deserialize = "K: serde::Deserialize<'de> + Eq + std::hash::Hash, T: serde::Deserialize<'de>"
    ))
)]
pub struct GrowingIndex<K, T> {
    groups: HashMap<K, Vec<T>>,
}

impl<K, T> Default for GrowingIndex<K, T> {
    fn default() -> Self {
        GrowingIndex {
            groups: HashMap::default(),
        }
    }
}

impl<K: Eq + std::hash::Hash, T> GrowingIndex<K, T> {
    /// Adds tuple `t` under key `k`. The index does not check that `t` is
    /// new: the caller adds each tuple once.
    #[inline]
    pub fn insert(&mut self, k: K, t: T) {
        self.groups.entry(k).or_default().push(t);
    }

    /// The tuples under key `k`.
    #[inline]
    pub fn get(&self, k: &K) -> &[T] {
        self.groups.get(k).map_or(&[], Vec::as_slice)
    }

    /// Removes and returns the tuples under key `k` (none if absent).
    #[inline]
    pub fn take(&mut self, k: &K) -> Vec<T> {
        self.groups.remove(k).unwrap_or_default()
    }

    /// Puts back tuples taken from under key `k`, after any added since.
    #[inline]
    pub fn restore(&mut self, k: K, tuples: Vec<T>) {
        if tuples.is_empty() {
            return;
        }
        let group = self.groups.entry(k).or_default();
        if group.is_empty() {
            *group = tuples;
        } else {
            group.extend(tuples);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;

    // `Index` against a model (a list of tuples per key), on random
    // inserts, removes and value changes that move groups across the size
    // where the index starts and stops keeping positions.

    /// The model: per key, its tuples `(key, n)` with their values.
    type Model = BTreeMap<u8, Vec<((u8, u8), i32)>>;

    /// One step: a tuple `(key, n)` inserted, removed or given a new value.
    #[derive(Debug, Clone)]
    enum Step {
        Insert(u8, u8, i32),
        Remove(u8, u8),
        Set(u8, u8, i32),
    }

    fn step() -> impl Strategy<Value = Step> {
        // Few keys and many tuples per key, so that groups grow past the
        // searched size and shrink back, again and again; removes weigh as
        // much as inserts.
        let key = 0u8..3;
        let n = 0u8..24;
        prop_oneof![
            2 => (key.clone(), n.clone(), any::<i32>()).prop_map(|(k, n, v)| Step::Insert(k, n, v)),
            2 => (key.clone(), n.clone()).prop_map(|(k, n)| Step::Remove(k, n)),
            1 => (key, n, any::<i32>()).prop_map(|(k, n, v)| Step::Set(k, n, v)),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn an_index_holds_what_its_model_holds(steps in prop::collection::vec(step(), 0..400)) {
            let mut index: Index<(u8,), (u8, u8), i32> = Index::default();
            let mut model = Model::new();
            for step in steps {
                match step {
                    Step::Insert(k, n, v) => {
                        index.insert_with((k,), (k, n), v);
                        let group = model.entry(k).or_default();
                        if !group.iter().any(|(t, _)| *t == (k, n)) {
                            group.push(((k, n), v));
                        }
                    }
                    Step::Remove(k, n) => {
                        index.remove(&(k,), &(k, n));
                        let group = model.entry(k).or_default();
                        group.retain(|(t, _)| *t != (k, n));
                    }
                    Step::Set(k, n, v) => {
                        index.set(&(k,), &(k, n), v);
                        for entry in model.entry(k).or_default().iter_mut() {
                            if entry.0 == (k, n) {
                                entry.1 = v;
                            }
                        }
                    }
                }
                for k in 0..3u8 {
                    let mut got = index.entries(&(k,)).to_vec();
                    let mut want = model.get(&k).cloned().unwrap_or_default();
                    got.sort_unstable();
                    want.sort_unstable();
                    prop_assert_eq!(index.count(&(k,)), want.len());
                    prop_assert_eq!(got, want);
                }
            }
        }
    }
}
