//! The insert-only join at the top of the two-layer and CROWN strategies
//! (*The Role of Semirings in Incremental View Maintenance*, section 5;
//! *Answering Conjunctive Queries with Aggregations under Updates*, section
//! 5.1).
//!
//! Below it, each strategy keeps views over the semiring; what reaches this
//! layer is only their support: a key crosses once, when its payload first
//! turns non-zero, and never leaves, because under inserts over a positive
//! semiring a non-zero payload stays non-zero. The layer keeps the full
//! join of those growing Boolean relations along a join tree, so that the
//! result can be enumerated with constant delay.
//!
//! Each relation is a [`JoinNode`]. A tuple of a node is *live* once every
//! child node has a live tuple with the values it shares with that child;
//! live tuples are grouped by the values they share with the parent, and a
//! group that turns non-empty tells the parent's tuples waiting for it. A
//! live tuple therefore always extends to at least one tuple of the join
//! below it, and enumeration walks live tuples top-down without ever
//! backtracking. Each tuple turns live once and each group turns non-empty
//! once, so maintenance is O(1) amortized per tuple.
//!
//! The generated code drives the nodes: it knows the tree, the key of each
//! edge and the column types, and calls the methods below in the order the
//! module documentation of the compiler's `plan::two_layer` describes.

use crate::index::{HashMap, new_map};
use core::hash::Hash;

/// The ids of one group of tuples (the live tuples with one key, or the
/// parent's tuples waiting for one): inline up to four, the size of a
/// `Vec`'s header. Most groups are small, and a `Vec` would allocate
/// for each, then grow it, on every key's first arrivals.
pub type Ids = smallvec::SmallVec<[u32; 4]>;

/// One relation of the insert-only join: its tuples (each inserted once),
/// which of them are live, and the parent's tuples waiting for a key of
/// this node to turn live.
///
/// `T` is the node's tuple and `P` the part of it shared with the parent
/// node (`()` at the root).
///
/// ```
/// use ivm::__private::JoinNode;
///
/// // A node with one child: the tuple (1, 2) waits for the child's key 2.
/// let mut parent: JoinNode<(u32, u32), ()> = JoinNode::new();
/// let mut child: JoinNode<(u32,), (u32,)> = JoinNode::new();
/// let id = parent.insert((1, 2)).unwrap();
/// assert!(!child.is_live_key(&(2,)));
/// child.wait((2,), id);
/// parent.set_missing(id, 1);
///
/// // The child's tuple (2,) has no children: it is live at once, and its
/// // group is new, so the waiting parent tuple loses its last missing key.
/// let c = child.insert((2,)).unwrap();
/// assert!(child.make_live((2,), c));
/// for waiting in child.take_waiting(&(2,)) {
///     assert!(parent.satisfy(waiting));
///     assert!(parent.make_live((), waiting));
/// }
/// assert_eq!(parent.live(&()).len(), 1);
/// ```
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "T: serde::Serialize + Eq + std::hash::Hash, P: serde::Serialize + Eq + std::hash::Hash",
        deserialize = "T: serde::Deserialize<'de> + Eq + std::hash::Hash, P: serde::Deserialize<'de> + Eq + std::hash::Hash"
    ))
)]
pub struct JoinNode<T, P> {
    ids: HashMap<T, u32>,
    tuples: Vec<T>,
    /// Per tuple: how many children have no live tuple with its key yet.
    /// Grown only as far as the highest id that waits for one: a node
    /// without children, such as the top join's only node, keeps none.
    missing: Vec<u32>,
    /// The live tuples, grouped by the key shared with the parent.
    live: HashMap<P, Ids>,
    /// The parent's tuples waiting for a key of this node to turn live.
    waiting: HashMap<P, Ids>,
    live_count: usize,
    /// Used by the max-max strategy only: the keys some participating
    /// parent tuple has, and which tuples take part in a full join result
    /// (grown only as far as the highest id that does: a node that never
    /// asks pays nothing per tuple).
    active: HashMap<P, ()>,
    participating: Vec<bool>,
}

impl<T, P> Default for JoinNode<T, P> {
    fn default() -> Self {
        JoinNode {
            ids: new_map(),
            tuples: Vec::new(),
            missing: Vec::new(),
            live: new_map(),
            waiting: new_map(),
            live_count: 0,
            active: new_map(),
            participating: Vec::new(),
        }
    }
}

impl<T: Hash + Eq + Clone, P: Hash + Eq> JoinNode<T, P> {
    /// An empty node.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tuple; its id if it is new, `None` if it was there already.
    /// A new tuple counts as missing no child until [`set_missing`] says
    /// otherwise.
    ///
    /// [`set_missing`]: JoinNode::set_missing
    #[inline]
    pub fn insert(&mut self, tuple: T) -> Option<u32> {
        let next = u32::try_from(self.tuples.len()).expect("more than 2^32 tuples in one node");
        match self.ids.entry(tuple) {
            hashbrown::hash_map::Entry::Occupied(_) => None,
            hashbrown::hash_map::Entry::Vacant(v) => {
                self.tuples.push(v.key().clone());
                v.insert(next);
                Some(next)
            }
        }
    }

    /// Adds a tuple the caller knows is new, and returns its id: one push,
    /// no hash probe. The two-layer and CROWN top joins reach a value when
    /// its payload turns non-zero, which under inserts over a positive
    /// semiring happens once per value, so they need no lookup by tuple to
    /// turn a second arrival away. A node filled this way has no such
    /// lookup: [`insert`](Self::insert), [`contains`](Self::contains) and
    /// [`id`](Self::id) are for nodes that need it (the max-max clusters).
    ///
    /// # Panics
    ///
    /// In debug builds, when the tuple was pushed before: the caller's
    /// guarantee is checked there, and not paid for in release builds.
    #[inline]
    pub fn push(&mut self, tuple: T) -> u32 {
        let id = u32::try_from(self.tuples.len()).expect("more than 2^32 tuples in one node");
        if cfg!(debug_assertions) {
            let fresh = self.ids.insert(tuple.clone(), id).is_none();
            assert!(fresh, "ivm: a top join value was reached twice");
        }
        self.tuples.push(tuple);
        id
    }

    /// Whether the tuple has been inserted.
    #[inline]
    pub fn contains(&self, tuple: &T) -> bool {
        self.ids.contains_key(tuple)
    }

    /// The tuple with this id.
    #[inline]
    pub fn tuple(&self, id: u32) -> &T {
        &self.tuples[id as usize]
    }

    /// Records how many children the tuple still waits for.
    #[inline]
    pub fn set_missing(&mut self, id: u32, missing: u32) {
        let id = id as usize;
        if self.missing.len() <= id {
            if missing == 0 {
                return;
            }
            self.missing.resize(id + 1, 0);
        }
        self.missing[id] = missing;
    }

    /// How many children the tuple still waits for.
    #[inline]
    fn missing(&self, id: u32) -> u32 {
        self.missing.get(id as usize).copied().unwrap_or(0)
    }

    /// One child the tuple waited for has turned live at its key; `true`
    /// when that was the last one, and the tuple is now live.
    #[inline]
    pub fn satisfy(&mut self, id: u32) -> bool {
        // A tuple that waits was given its count by `set_missing`, which
        // grew the vector as far as its id.
        let m = &mut self.missing[id as usize];
        debug_assert!(*m > 0, "a tuple satisfied more often than it waited");
        *m -= 1;
        *m == 0
    }

    /// Whether some live tuple has this key.
    #[inline]
    pub fn is_live_key(&self, key: &P) -> bool {
        self.live.contains_key(key)
    }

    /// Makes a parent's tuple wait for `key` to turn live here.
    #[inline]
    pub fn wait(&mut self, key: P, parent: u32) {
        self.waiting.entry(key).or_default().push(parent);
    }

    /// Marks the tuple live under its parent key; `true` when it is the
    /// first live tuple with that key, which the parent must hear of.
    #[inline]
    pub fn make_live(&mut self, key: P, id: u32) -> bool {
        self.live_count += 1;
        let group = self.live.entry(key).or_default();
        group.push(id);
        group.len() == 1
    }

    /// The parent's tuples that waited for `key`, which has just turned
    /// live; they wait no more.
    #[inline]
    pub fn take_waiting(&mut self, key: &P) -> Ids {
        self.waiting.remove(key).unwrap_or_default()
    }

    /// The live tuples with this parent key, in the order they turned live.
    #[inline]
    pub fn live(&self, key: &P) -> &[u32] {
        self.live.get(key).map_or(&[], Ids::as_slice)
    }

    /// The id of a tuple, if it has been inserted.
    #[inline]
    pub fn id(&self, tuple: &T) -> Option<u32> {
        self.ids.get(tuple).copied()
    }

    /// Whether some tuple of the parent with this key takes part in a full
    /// result (the max-max strategy's downward pass).
    #[inline]
    pub fn is_active(&self, key: &P) -> bool {
        self.active.contains_key(key)
    }

    /// A parent tuple with this key takes part in a full result. The first
    /// time, returns the live tuples with the key, which take part too;
    /// `None` when the key was active already.
    #[inline]
    pub fn activate(&mut self, key: P) -> Option<Ids> {
        match self.active.entry(key) {
            hashbrown::hash_map::Entry::Occupied(_) => None,
            hashbrown::hash_map::Entry::Vacant(v) => {
                let ids = self.live.get(v.key()).cloned().unwrap_or_default();
                v.insert(());
                Some(ids)
            }
        }
    }

    /// Forgets which keys are active and which tuples take part: the top
    /// join of `changes()` recomputes both when its tracking starts (a
    /// snapshot may hold them from a tracking that a restore does not
    /// carry on).
    pub fn reset_participation(&mut self) {
        self.active.clear();
        self.participating.fill(false);
    }

    /// Records that the tuple takes part in a full result.
    #[inline]
    pub fn set_participating(&mut self, id: u32) {
        debug_assert!(self.missing(id) == 0, "only a live tuple takes part");
        let id = id as usize;
        if self.participating.len() <= id {
            self.participating.resize(id + 1, false);
        }
        self.participating[id] = true;
    }

    /// Whether the tuple takes part in a full result.
    #[inline]
    pub fn participates(&self, id: u32) -> bool {
        self.participating
            .get(id as usize)
            .copied()
            .unwrap_or(false)
    }

    /// The number of tuples inserted.
    pub fn len(&self) -> usize {
        self.tuples.len()
    }

    /// Whether no tuple has been inserted.
    pub fn is_empty(&self) -> bool {
        self.tuples.is_empty()
    }

    /// The number of live tuples.
    pub fn live_len(&self) -> usize {
        self.live_count
    }

    /// Checks the node's bookkeeping (for tests): every live tuple waits
    /// for nothing, and the live count matches the groups.
    pub fn check(&self) -> Result<(), String> {
        let grouped: usize = self.live.values().map(Ids::len).sum();
        if grouped != self.live_count {
            return Err(format!(
                "{grouped} tuples in live groups, but {} counted live",
                self.live_count
            ));
        }
        for ids in self.live.values() {
            for &id in ids {
                if self.missing(id) != 0 {
                    return Err(format!("live tuple {id} still waits for a child"));
                }
            }
        }
        Ok(())
    }
}

/// Compiles only for a positive semiring: the two-layer strategy relies on
/// a non-zero payload staying non-zero under inserts. Generated code
/// evaluates it in a `const` item, so a semiring that does not implement
/// [`Positive`](crate::Positive) fails to compile at this bound.
pub const fn require_positive<K: crate::Positive>() {}

/// `entry ⊕ value` for a CROWN message. A message entry is grown by each
/// tuple's latest contribution without taking back the earlier one, which
/// is only right when ⊕ is idempotent (an earlier, smaller contribution is
/// absorbed by the larger one): the bound makes a semiring without that
/// property fail to compile here, rather than count twice.
#[inline]
pub fn grow<K: crate::Idempotent + crate::BoundedMonotone>(entry: &K, value: &K) -> K {
    crate::Semiring::add(entry, value)
}

/// `entry ⊕ value` for the max-max strategy's best payloads: a tuple's
/// grown payload is added without taking back its earlier one, which is
/// only right when ⊕ is idempotent.
#[inline]
pub fn absorb<K: crate::Idempotent>(entry: &K, value: &K) -> K {
    crate::Semiring::add(entry, value)
}

/// An extension index of one relation of a cyclic top join: for each value
/// of some of its columns (the key), the values of one more column that
/// extend it to a tuple of the relation. A worst-case-optimal delta join
/// binds one variable at a time by intersecting such lists: it walks the
/// shortest and checks the others with [`contains`](Extensions::contains).
///
/// ```
/// use ivm::__private::Extensions;
///
/// let mut e: Extensions<(u32,), u32> = Extensions::new();
/// e.insert((1,), 10);
/// e.insert((1,), 11);
/// e.insert((1,), 10); // already there
/// assert_eq!(e.get(&(1,)), &[10, 11]);
/// assert!(e.contains(&(1,), &11) && !e.contains(&(2,), &11));
/// ```
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "K: serde::Serialize + Eq + std::hash::Hash, V: serde::Serialize + Eq + std::hash::Hash",
        deserialize = "K: serde::Deserialize<'de> + Eq + std::hash::Hash, V: serde::Deserialize<'de> + Eq + std::hash::Hash"
    ))
)]
pub struct Extensions<K, V> {
    lists: HashMap<K, Vec<V>>,
    pairs: HashMap<(K, V), ()>,
}

impl<K, V> Default for Extensions<K, V> {
    fn default() -> Self {
        Extensions {
            lists: new_map(),
            pairs: new_map(),
        }
    }
}

impl<K: Hash + Eq + Clone, V: Hash + Eq + Clone> Extensions<K, V> {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that `value` extends `key`; a pair seen before changes
    /// nothing.
    #[inline]
    pub fn insert(&mut self, key: K, value: V) {
        if self
            .pairs
            .insert((key.clone(), value.clone()), ())
            .is_none()
        {
            self.lists.entry(key).or_default().push(value);
        }
    }

    /// The values that extend `key`, in the order they arrived.
    #[inline]
    pub fn get(&self, key: &K) -> &[V] {
        self.lists.get(key).map_or(&[], Vec::as_slice)
    }

    /// Whether `value` extends `key`.
    #[inline]
    pub fn contains(&self, key: &K, value: &V) -> bool {
        // The pair is rebuilt to look it up; keys are small tuples.
        self.pairs.contains_key(&(key.clone(), value.clone()))
    }
}

/// The tuples of a top join node that take part in a full result, grouped
/// by the values they share with one of its children: what `changes()`
/// walks up through from a changed tuple of that child. Filled only once
/// `changes()` has been called, each tuple once.
///
/// ```
/// use ivm::__private::Participants;
///
/// let mut above: Participants<(u32,)> = Participants::default();
/// above.insert((7,), 0);
/// above.insert((7,), 3);
/// assert_eq!(above.get(&(7,)), &[0, 3]);
/// assert!(above.get(&(8,)).is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct Participants<K> {
    groups: HashMap<K, Ids>,
}

impl<K> Default for Participants<K> {
    fn default() -> Self {
        Participants { groups: new_map() }
    }
}

impl<K: Hash + Eq> Participants<K> {
    /// Adds tuple `id` under `key`.
    #[inline]
    pub fn insert(&mut self, key: K, id: u32) {
        self.groups.entry(key).or_default().push(id);
    }

    /// The tuples under `key`, in the order they came.
    #[inline]
    pub fn get(&self, key: &K) -> &[u32] {
        self.groups.get(key).map_or(&[], Ids::as_slice)
    }
}

/// The shortest of some candidate lists: the one a worst-case-optimal join
/// walks.
#[inline]
pub fn shortest<V, const N: usize>(lists: [&[V]; N]) -> &[V] {
    lists.into_iter().min_by_key(|l| l.len()).unwrap_or(&[])
}
