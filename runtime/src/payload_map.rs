//! [`PayloadMap`]: the map every base relation, view and materialized
//! result of generated code lives in. Each key holds the state of a payload
//! (the ⊕ of the contributions at that key, kept by [`Maintained`] or, under
//! inserts only over an idempotent semiring, by [`Absorbed`]); an entry
//! exists exactly while some contribution is live.
//!
//! Generated code reads and changes payloads only through these methods, so
//! each update of a view is one call that probes the map once, and a reader
//! of the generated code sees `self.sales.add(tuple, &delta)` rather than
//! the entry handling it stands for.

use std::fmt::Debug;
use std::hash::Hash;
use std::marker::PhantomData;

use hashbrown::hash_map::{Entry, EntryRef, OccupiedEntry};

use crate::epoch::{Epochs, note_first, started};
use crate::index::{HashMap, new_map};
use crate::{Absorbed, Error, Maintained, Semiring};

/// A key handed to a [`PayloadMap`] write: owned, or borrowed and cloned
/// only when its entry is new. Generated code passes a tuple it still
/// needs by reference, so a write to a key already present (a group of a
/// `GROUP BY`, for every row but its first) allocates nothing.
pub trait KeyArg<'a, Key> {
    /// The key, as given.
    fn given(self) -> Given<'a, Key>;
}

/// A key as a [`KeyArg`] gives it.
pub enum Given<'a, Key: 'a> {
    /// The caller's own: moved into a new entry.
    Owned(Key),
    /// The caller's, lent: cloned into a new entry.
    Borrowed(&'a Key),
}

impl<'a, Key> KeyArg<'a, Key> for Key {
    #[inline(always)]
    fn given(self) -> Given<'a, Key> {
        Given::Owned(self)
    }
}

impl<'a, Key> KeyArg<'a, Key> for &'a Key {
    #[inline(always)]
    fn given(self) -> Given<'a, Key> {
        Given::Borrowed(self)
    }
}

/// How a [`PayloadMap`] keeps the payload of one key: the state and the
/// operations on it. [`Retracting`] keeps it by [`Maintained`] (inserts and
/// retractions), [`Absorbing`] by [`Absorbed`] (inserts only, O(1) over an
/// idempotent semiring).
pub trait Keeping<K: Semiring>: 'static {
    /// The state of one key's payload; `Default` holds no contribution.
    type State: Clone + Debug + Default;

    /// The ⊕ of the live contributions.
    fn value(state: &Self::State) -> K;

    /// Adds one contribution (never zero).
    fn insert(state: &mut Self::State, v: &K);

    /// One contribution changes from `old` to `new` (either may be zero).
    fn replace(state: &mut Self::State, old: &K, new: &K);

    /// No live contribution: the entry goes.
    fn is_empty(state: &Self::State) -> bool;
}

/// Payloads kept by [`Maintained`]: contributions come and go.
#[derive(Debug)]
pub enum Retracting {}

/// Payloads kept by [`Absorbed`]: contributions only arrive, and each one
/// absorbs what it grew from.
#[derive(Debug)]
pub enum Absorbing {}

impl<K: Maintained> Keeping<K> for Retracting {
    type State = K::State;

    #[inline]
    fn value(state: &Self::State) -> K {
        K::value(state)
    }

    #[inline]
    fn insert(state: &mut Self::State, v: &K) {
        <K as Maintained>::insert(state, v);
    }

    #[inline]
    fn replace(state: &mut Self::State, old: &K, new: &K) {
        <K as Maintained>::replace(state, old, new);
    }

    #[inline]
    fn is_empty(state: &Self::State) -> bool {
        <K as Maintained>::is_empty(state)
    }
}

impl<K: Absorbed> Keeping<K> for Absorbing {
    type State = <K as Absorbed>::State;

    #[inline]
    fn value(state: &Self::State) -> K {
        <K as Absorbed>::value(state)
    }

    #[inline]
    fn insert(state: &mut Self::State, v: &K) {
        <K as Absorbed>::insert(state, v);
    }

    #[inline]
    fn replace(state: &mut Self::State, old: &K, new: &K) {
        <K as Absorbed>::replace(state, old, new);
    }

    #[inline]
    fn is_empty(state: &Self::State) -> bool {
        <K as Absorbed>::is_empty(state)
    }
}

/// Tuples (or view keys) with their payloads, each kept as the ⊕ of its
/// live contributions. An absent key has payload zero; a key whose last
/// contribution goes is removed by the same probe that took it back.
///
/// ```
/// use ivm::__private::PayloadMap;
/// use ivm::semiring::MinPlus;
///
/// let mut offers: PayloadMap<u32, MinPlus> = PayloadMap::new();
/// assert_eq!(offers.add(7, &MinPlus(5)), Some((MinPlus::INFINITY, MinPlus(5))));
/// assert_eq!(offers.add(7, &MinPlus(3)), Some((MinPlus(5), MinPlus(3))));
/// // A dearer offer changes no payload.
/// assert_eq!(offers.add(7, &MinPlus(9)), None);
/// // The cheapest offer goes: the next one takes over.
/// assert_eq!(offers.retract(&7, &MinPlus(3), "Offers"), Ok(Some((MinPlus(3), MinPlus(5)))));
/// // 4 was never offered: refused, nothing changes.
/// assert!(offers.retract(&7, &MinPlus(4), "Offers").is_err());
/// assert_eq!(offers.value(&7), MinPlus(5));
/// ```
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "Key: serde::Serialize + Eq + Hash, P::State: serde::Serialize",
        deserialize = "Key: serde::Deserialize<'de> + Eq + Hash, P::State: serde::Deserialize<'de>"
    ))
)]
pub struct PayloadMap<Key, K: Semiring, P: Keeping<K> = Retracting> {
    states: HashMap<Key, P::State>,
    #[cfg_attr(feature = "serde", serde(skip))]
    payload: PhantomData<fn() -> K>,
    /// What `changes()` reads, once it has been called: the payload of
    /// each key written during an epoch, from before its first write.
    #[cfg_attr(feature = "serde", serde(skip))]
    journal: Option<Box<Epochs<Key, K>>>,
}

/// What [`update_state`] tells of a write: the journal, if one is kept.
#[inline(always)]
fn noter<Key: Clone + Eq + Hash, K>(
    journal: &mut Option<Box<Epochs<Key, K>>>,
) -> impl FnOnce(&Key, K) + '_ {
    move |key, before| {
        if let Some(journal) = journal {
            note_first(&mut journal.now, key.clone(), before);
        }
    }
}

impl<Key, K: Semiring, P: Keeping<K>> Default for PayloadMap<Key, K, P> {
    fn default() -> Self {
        PayloadMap {
            states: new_map(),
            payload: PhantomData,
            journal: None,
        }
    }
}

impl<Key: Clone, K: Semiring, P: Keeping<K>> Clone for PayloadMap<Key, K, P> {
    fn clone(&self) -> Self {
        // A copy starts without a journal: its `changes()` start afresh.
        PayloadMap {
            states: self.states.clone(),
            payload: PhantomData,
            journal: None,
        }
    }
}

impl<Key: Debug, K: Semiring, P: Keeping<K>> Debug for PayloadMap<Key, K, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.states.iter().map(|(k, s)| (k, P::value(s))))
            .finish()
    }
}

impl<Key: Clone + Eq + Hash, K: Semiring, P: Keeping<K>> PayloadMap<Key, K, P> {
    /// An empty map. Does not allocate.
    pub fn new() -> Self {
        Self::default()
    }

    /// The payload at `key`: zero when no contribution is live.
    #[inline(always)]
    pub fn value(&self, key: &Key) -> K {
        self.states.get(key).map_or_else(K::zero, P::value)
    }

    /// Whether some contribution at `key` is live.
    #[inline]
    pub fn contains(&self, key: &Key) -> bool {
        self.states.contains_key(key)
    }

    /// How many keys have a live contribution.
    #[inline]
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Whether no key has a live contribution.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// The keys with a live contribution, in no particular order.
    pub fn keys(&self) -> impl Iterator<Item = &Key> + '_ {
        self.states.keys()
    }

    /// Each key with a live contribution, with its payload.
    pub fn iter(&self) -> impl Iterator<Item = (&Key, K)> + '_ {
        self.states
            .iter()
            .map(|(key, state)| (key, P::value(state)))
    }

    /// Adds the contribution `v` at `key`; returns the payload before and
    /// after, or `None` when it did not change (a zero `v` changes
    /// nothing).
    #[inline(always)]
    pub fn add<'k>(&mut self, key: impl KeyArg<'k, Key>, v: &K) -> Option<(K, K)>
    where
        Key: 'k,
    {
        if v.is_zero() {
            return None;
        }
        self.change(key, |state| P::insert(state, v))
    }

    /// Adds the contribution `v` (not zero) at `key`, without reading the
    /// payload back: what `bulk_load` builds views with.
    #[inline]
    pub fn insert(&mut self, key: Key, v: &K) {
        P::insert(self.states.entry(key).or_default(), v);
    }

    /// One contribution at `key` changes from `old` to `new` (either may be
    /// zero, meaning absent; `old` is live or zero).
    #[inline(always)]
    pub fn replace<'k>(&mut self, key: impl KeyArg<'k, Key>, old: &K, new: &K)
    where
        Key: 'k,
    {
        self.write(key, |state| P::replace(state, old, new));
    }

    /// [`replace`](Self::replace), returning the payload at `key` before
    /// and after, or `None` when it did not change: what a view tells its
    /// parent.
    #[inline(always)]
    pub fn replace_changed<'k>(
        &mut self,
        key: impl KeyArg<'k, Key>,
        old: &K,
        new: &K,
    ) -> Option<(K, K)>
    where
        Key: 'k,
    {
        self.change(key, |state| P::replace(state, old, new))
    }

    /// Drops every contribution at `key`: for a tuple nothing reads back
    /// any more (CROWN, once no message can revisit it).
    #[inline]
    pub fn remove(&mut self, key: &Key) {
        if let Some((key, state)) = self.states.remove_entry(key)
            && let Some(journal) = &mut self.journal
        {
            note_first(&mut journal.now, key, P::value(&state));
        }
    }

    /// Adds each contribution, then drops the keys where they cancelled:
    /// what `bulk_load` fills a base relation or a view with.
    pub fn load(&mut self, contributions: impl IntoIterator<Item = (Key, K)>) {
        for (key, v) in contributions {
            if !v.is_zero() {
                P::insert(self.states.entry(key).or_default(), &v);
            }
        }
        self.states.retain(|_, state| !P::is_empty(state));
    }

    /// Whether a key was written since the journal's epoch began (false
    /// before the journal starts): where none was, the epoch ends with no
    /// change to report.
    #[inline]
    pub fn written(&self) -> bool {
        self.journal.as_ref().is_some_and(|j| !j.now.is_empty())
    }

    /// Ends the epoch of the journal (starting the journal at the first
    /// call): the keys written since the last call, with their payloads
    /// then, become what [`value_then`](Self::value_then) and
    /// [`changed_then`](Self::changed_then) read.
    #[inline]
    pub fn end_epoch(&mut self) {
        match &mut self.journal {
            Some(journal) => journal.end(),
            None => self.journal = started(),
        }
    }

    /// The payload at `key` when the last epoch began (the payload now if
    /// it was not written since).
    #[inline]
    pub fn value_then(&self, key: &Key) -> K {
        match self.journal.as_ref().and_then(|j| j.then.get(key)) {
            Some(then) => then.clone(),
            None => self.value(key),
        }
    }

    /// The payload at `key` when the last epoch began and now, with one
    /// probe of the map (and one of the journal, which holds only the keys
    /// written).
    #[inline]
    pub fn value_then_and_now(&self, key: &Key) -> (K, K) {
        let now = self.value(key);
        match self.journal.as_ref().and_then(|j| j.then.get(key)) {
            Some(then) => (then.clone(), now),
            None => (now.clone(), now),
        }
    }

    /// The keys written during the last epoch, whatever their payload now:
    /// for a caller that compares each key's payload then and now itself,
    /// to which [`changed_then`](Self::changed_then)'s comparison would be
    /// a second lookup.
    pub fn written_then(&self) -> impl Iterator<Item = &Key> + '_ {
        self.journal
            .iter()
            .flat_map(|j| j.then.iter())
            .map(|(key, _)| key)
    }

    /// The keys written during the last epoch whose payload is not what it
    /// was when the epoch began.
    pub fn changed_then(&self) -> impl Iterator<Item = &Key> + '_ {
        self.journal
            .iter()
            .flat_map(|j| j.then.iter())
            .filter(|(key, then)| self.value(key) != **then)
            .map(|(key, _)| key)
    }

    /// `f` changes the state at `key`, through one probe; the journal, if
    /// one is kept, hears of it after (see [`update_state`]).
    #[inline(always)]
    fn write<'k, R>(&mut self, key: impl KeyArg<'k, Key>, f: impl FnOnce(&mut P::State) -> R) -> R
    where
        Key: 'k,
    {
        let PayloadMap {
            states, journal, ..
        } = self;
        update_state(states, key, P::is_empty, f, P::value, noter(journal))
    }

    /// [`write`](Self::write), returning the payload before and after, or
    /// `None` when it did not change.
    #[inline(always)]
    fn change<'k>(
        &mut self,
        key: impl KeyArg<'k, Key>,
        f: impl FnOnce(&mut P::State),
    ) -> Option<(K, K)>
    where
        Key: 'k,
    {
        self.write(key, |state| {
            let before = P::value(state);
            f(state);
            let after = P::value(state);
            (before != after).then_some((before, after))
        })
    }
}

impl<Key: Clone + Eq + Hash, K: Maintained> PayloadMap<Key, K, Retracting> {
    /// Retracts one live contribution `v` at `key` of `relation`; returns
    /// the payload before and after, or `None` when it did not change.
    ///
    /// # Errors
    ///
    /// [`Error::AbsentTuple`] naming `relation`, with nothing changed, when
    /// no such contribution is live.
    #[inline(always)]
    pub fn retract(
        &mut self,
        key: &Key,
        v: &K,
        relation: &'static str,
    ) -> Result<Option<(K, K)>, Error> {
        let EntryRef::Occupied(mut entry) = self.states.entry_ref(key) else {
            return Err(Error::AbsentTuple { relation });
        };
        let before = K::value(entry.get());
        if !K::retract(entry.get_mut(), v) {
            return Err(Error::AbsentTuple { relation });
        }
        let after = K::value(entry.get());
        // One probe: the entry in hand goes if nothing in it is live. The
        // journal hears of the change last (see `update_state`).
        if K::is_empty(entry.get()) {
            entry.remove();
        }
        if let Some(journal) = &mut self.journal {
            note_first(&mut journal.now, key.clone(), before.clone());
        }
        Ok((before != after).then_some((before, after)))
    }
}

// Always inlined, as each caller passes its own closures: a call would
// cost as much as the update it makes.
/// Changes the state of `key` in `map` through one hash probe: `f` runs
/// on the state (a fresh, empty one when the key is absent), and the entry
/// is dropped if `f` leaves it `empty`, or never inserted. Returns what `f`
/// returns.
///
/// Looking the key up once for the change and again to remove the entry
/// would double the cost of the updates that empty it (every delete of a
/// tuple inserted once).
///
/// `noted` is told the key and the state's payload before the change
/// (`before` reads it), last: where a journal notes it. A call that may
/// run before the change, even one never taken, makes the compiler read
/// the map back from memory after it, and the probes of consecutive
/// updates then wait for each other: measured at 2 to 2.5 times the time
/// per update on a relation of 10^6 tuples, with the same instructions.
#[inline(always)]
fn update_state<'k, Key: 'k + Clone + Eq + Hash, S: Default, B, R>(
    map: &mut HashMap<Key, S>,
    key: impl KeyArg<'k, Key>,
    empty: impl Fn(&S) -> bool,
    f: impl FnOnce(&mut S) -> R,
    before: impl FnOnce(&S) -> B,
    noted: impl FnOnce(&Key, B),
) -> R {
    match key.given() {
        Given::Owned(key) => match map.entry(key) {
            Entry::Occupied(e) => update_present(e, empty, f, before, noted),
            Entry::Vacant(e) => {
                let (state, b, r) = update_absent(empty, f, before);
                match state {
                    Some(state) => noted(e.insert_entry(state).key(), b),
                    None => noted(e.key(), b),
                }
                r
            }
        },
        Given::Borrowed(key) => match map.entry_ref(key) {
            EntryRef::Occupied(e) => update_present(e, empty, f, before, noted),
            EntryRef::Vacant(e) => {
                let (state, b, r) = update_absent(empty, f, before);
                match state {
                    Some(state) => noted(e.insert_entry_with_key(key.clone(), state).key(), b),
                    None => noted(key, b),
                }
                r
            }
        },
    }
}

/// [`update_state`] at a key present in the map: the entry goes once
/// nothing is alive in it.
#[inline(always)]
fn update_present<Key, S, B, R>(
    mut e: OccupiedEntry<'_, Key, S, foldhash::fast::RandomState>,
    empty: impl Fn(&S) -> bool,
    f: impl FnOnce(&mut S) -> R,
    before: impl FnOnce(&S) -> B,
    noted: impl FnOnce(&Key, B),
) -> R {
    let b = before(e.get());
    let r = f(e.get_mut());
    if empty(e.get()) {
        let (key, _) = e.remove_entry();
        noted(&key, b);
    } else {
        noted(e.key(), b);
    }
    r
}

/// [`update_state`] at an absent key: the state to insert, if `f` left
/// something alive in it.
#[inline(always)]
fn update_absent<S: Default, B, R>(
    empty: impl Fn(&S) -> bool,
    f: impl FnOnce(&mut S) -> R,
    before: impl FnOnce(&S) -> B,
) -> (Option<S>, B, R) {
    let mut state = S::default();
    let b = before(&state);
    let r = f(&mut state);
    ((!empty(&state)).then_some(state), b, r)
}
