//! What `changes()` of generated code reads: the output tuples whose
//! payload changed since the previous call, each with its payload then and
//! now.
//!
//! Tracking starts at the first call, which reports the whole result
//! against the empty one; until then a query keeps nothing for it, and
//! each update pays one predictable branch. Two ways to know what changed,
//! chosen by the strategy:
//!
//! - **Journal** (a materialized result): each result entry written during
//!   an epoch has its payload from the epoch's start noted on its first
//!   write, in O(1); `changes()` compares each noted entry with its payload
//!   now. The cost of a call is the number of entries written, and a tuple
//!   that changed and changed back is not reported.
//! - **Journals in the maps** (view trees, the insert-only top join): the
//!   maps an output tuple's payload is read from note their payloads from
//!   the epoch's start (a [`PayloadMap`](crate::__private::PayloadMap)
//!   keeps its own; a map that only grows, such as a CROWN message, has a
//!   [`Noted`] beside it), and `changes()` walks the output tuples through
//!   the changed entries. Here [`Changes`] only says whether tracking has
//!   started.
//! - **Diff** (the other strategies): the result as of the previous call is
//!   kept, and `changes()` compares the whole result with it: O(|result|)
//!   per call.

use std::hash::Hash;

use hashbrown::hash_map::EntryRef;

use crate::Semiring;
use crate::epoch::{Epochs, note_first, started};
use crate::index::{HashMap, new_map};

/// The change tracking of one generated query: its output keys `Key` and
/// payloads `K`.
#[derive(Debug, Clone)]
pub struct Changes<Key, K> {
    state: State<Key, K>,
}

#[derive(Debug, Clone)]
enum State<Key, K> {
    /// No call yet: nothing is tracked.
    Off,
    /// The payloads, at the epoch's start, of the result entries written
    /// since.
    Journal(HashMap<Key, K>),
    /// The result as of the previous call, for a diff.
    Last(HashMap<Key, K>),
}

impl<Key, K> Default for Changes<Key, K> {
    fn default() -> Self {
        Changes { state: State::Off }
    }
}

impl<Key: Clone + Eq + Hash, K: Semiring> Changes<Key, K> {
    /// Notes the payload `old()` of result entry `key` before its first
    /// write of the epoch; nothing before the first `changes()` call.
    #[inline(always)]
    pub fn note(&mut self, key: &Key, old: impl FnOnce() -> K) {
        if let State::Journal(journal) = &mut self.state
            && let EntryRef::Vacant(entry) = journal.entry_ref(key)
        {
            entry.insert(old());
        }
    }

    /// Whether this is the first call: tracking starts now (for a query
    /// whose maps keep the journals themselves).
    pub fn start(&mut self) -> bool {
        let first = matches!(self.state, State::Off);
        if first {
            self.state = State::Journal(new_map());
        }
        first
    }

    /// Whether tracking has started (the first `changes()` call was made):
    /// a query whose maps keep the journals asks before it keeps more.
    #[inline(always)]
    pub fn is_on(&self) -> bool {
        !matches!(self.state, State::Off)
    }

    /// Ends the epoch of a journaled query: the noted entries, or `None`
    /// at the first call (the caller then reports the whole result); a new
    /// epoch starts either way.
    pub fn take_journal(&mut self) -> Option<HashMap<Key, K>> {
        match std::mem::replace(&mut self.state, State::Journal(new_map())) {
            State::Journal(journal) => Some(journal),
            State::Off | State::Last(_) => None,
        }
    }

    /// The changes from the result of the previous call (the empty result
    /// at the first) to `current`, the whole result now; which becomes the
    /// previous result.
    pub fn diff(&mut self, current: impl Iterator<Item = (Key, K)>) -> Vec<(Key, K, K)> {
        let mut last = match std::mem::replace(&mut self.state, State::Off) {
            State::Last(last) => last,
            State::Off | State::Journal(_) => new_map(),
        };
        let mut now = new_map();
        let mut out = Vec::new();
        for (key, new) in current {
            let old = last.remove(&key).unwrap_or_else(K::zero);
            if old != new {
                out.push((key.clone(), old, new.clone()));
            }
            now.insert(key, new);
        }
        out.extend(last.into_iter().map(|(key, old)| (key, old, K::zero())));
        self.state = State::Last(now);
        out
    }
}

/// The payloads a map that only grows (a CROWN message, a max-max best
/// payload: a plain hash map) had when the epoch began, at the keys written
/// since. Kept beside the map once `changes()` has been called; before
/// that, [`note`](Noted::note) is one branch.
///
/// ```
/// use ivm::__private::Noted;
///
/// let mut noted: Noted<u32, u64> = Noted::default();
/// noted.note(&1, &5); // not started: nothing is kept
/// noted.end_epoch(); // the first call of `changes()` starts the journal
/// noted.note(&1, &5);
/// noted.note(&1, &7); // only the first write of an epoch counts
/// noted.end_epoch();
/// assert_eq!(noted.then_and_now(&1, 9), (5, 9));
/// assert_eq!(noted.then_and_now(&2, 3), (3, 3)); // not written
/// ```
#[derive(Debug)]
pub struct Noted<Key, K> {
    journal: Option<Box<Epochs<Key, K>>>,
}

impl<Key, K> Default for Noted<Key, K> {
    fn default() -> Self {
        Noted { journal: None }
    }
}

impl<Key, K> Clone for Noted<Key, K> {
    /// A copy starts without a journal, as the maps' copies do: its
    /// `changes()` start afresh.
    fn clone(&self) -> Self {
        Noted::default()
    }
}

impl<Key: Clone + Eq + Hash, K: Clone> Noted<Key, K> {
    /// Notes `old`, the payload at `key` before a write, if the journal is
    /// kept and `key` was not written yet this epoch.
    #[inline(always)]
    pub fn note(&mut self, key: &Key, old: &K) {
        if let Some(journal) = &mut self.journal {
            note_first(&mut journal.now, key.clone(), old.clone());
        }
    }

    /// Whether a key was written since the journal's epoch began (false
    /// before the journal starts).
    #[inline]
    pub fn written(&self) -> bool {
        self.journal.as_ref().is_some_and(|j| !j.now.is_empty())
    }

    /// Ends the epoch (starting the journal at the first call): the keys
    /// written since the last call, with their payloads then, become what
    /// [`then_and_now`](Self::then_and_now) and
    /// [`written_then`](Self::written_then) read.
    #[inline]
    pub fn end_epoch(&mut self) {
        match &mut self.journal {
            Some(journal) => journal.end(),
            None => self.journal = started(),
        }
    }

    /// The payload at `key` when the last epoch began, and `now` (the
    /// payload the map holds now).
    #[inline]
    pub fn then_and_now(&self, key: &Key, now: K) -> (K, K) {
        match self.journal.as_ref().and_then(|j| j.then.get(key)) {
            Some(then) => (then.clone(), now),
            None => (now.clone(), now),
        }
    }

    /// The keys written during the last epoch, each with its payload when
    /// the epoch began.
    pub fn written_then(&self) -> impl Iterator<Item = (&Key, &K)> + '_ {
        self.journal.iter().flat_map(|j| j.then.iter())
    }
}

/// What `changes_since` of generated code returns: when `all` is given
/// (the first call), every output tuple of it against zero; then each
/// candidate the maps' journals led to whose payload then and now (as
/// `then_and_now` reads them) differ. A candidate whose payload came back
/// is no change.
pub fn since<Key, K: Semiring>(
    all: Option<impl Iterator<Item = (Key, K)>>,
    candidates: impl Iterator<Item = Key>,
    then_and_now: impl Fn(&Key) -> (K, K),
) -> impl Iterator<Item = (Key, K, K)> {
    let changed = candidates.filter_map(move |key| {
        let (then, now) = then_and_now(&key);
        (then != now).then_some((key, then, now))
    });
    all.into_iter()
        .flatten()
        .map(|(key, now)| (key, K::zero(), now))
        .chain(changed)
}

/// What a generated `changes()` returns: the changes it gathered, or none
/// at all where it found, before gathering anything, that no journal it
/// reads was written since the previous call. A nested view's reader and a
/// window's ranking call `changes()` after every update, and most updates
/// change nothing there (a line outside Q10's quarter, say); such a call
/// then costs a look at each journal, not the building of the walk.
pub struct Gathered<I>(pub Option<I>);

impl<I: Iterator> Iterator for Gathered<I> {
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        self.0.as_mut()?.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.as_ref().map_or((0, Some(0)), Iterator::size_hint)
    }
}

/// The distinct keys among `keys`: the changed prefixes of one free level,
/// gathered from its factors' journals.
pub fn key_set<Key: Eq + Hash>(keys: impl Iterator<Item = Key>) -> KeySet<Key> {
    let mut set = KeySet::default();
    for key in keys {
        set.insert(key);
    }
    set
}

/// How many keys a [`KeySet`] keeps in a list before it moves them to a
/// hash set.
const LISTED: usize = 8;

/// A set of the keys an epoch changed, which `changes()` gathers at every
/// call. A nested view's reader or a window's ranking calls `changes()`
/// after each update, which changes a key or two, so the first few keys
/// are kept in a list, searched in a few comparisons and with no hash map
/// to make: past eight, in a hash set.
#[derive(Debug, Clone)]
pub enum KeySet<Key> {
    /// At most eight distinct keys, the first four inline.
    Listed(smallvec::SmallVec<[Key; 4]>),
    /// More.
    Hashed(HashMap<Key, ()>),
}

impl<Key> Default for KeySet<Key> {
    fn default() -> Self {
        KeySet::Listed(smallvec::SmallVec::new())
    }
}

impl<Key: Eq + Hash> KeySet<Key> {
    /// Adds `key` unless it is there.
    pub fn insert(&mut self, key: Key) {
        match self {
            KeySet::Listed(keys) if keys.contains(&key) => {}
            KeySet::Listed(keys) if keys.len() < LISTED => keys.push(key),
            KeySet::Listed(keys) => {
                let mut hashed = new_map();
                hashed.extend(keys.drain(..).map(|k| (k, ())));
                hashed.insert(key, ());
                *self = KeySet::Hashed(hashed);
            }
            KeySet::Hashed(keys) => {
                keys.insert(key, ());
            }
        }
    }

    /// Whether `key` is in the set.
    pub fn contains_key(&self, key: &Key) -> bool {
        match self {
            KeySet::Listed(keys) => keys.contains(key),
            KeySet::Hashed(keys) => keys.contains_key(key),
        }
    }

    /// Keeps the keys for which `keep` holds.
    pub fn retain(&mut self, mut keep: impl FnMut(&Key) -> bool) {
        match self {
            KeySet::Listed(keys) => keys.retain(|key| keep(key)),
            KeySet::Hashed(keys) => keys.retain(|key, ()| keep(key)),
        }
    }

    /// The keys, each once.
    pub fn keys(&self) -> impl Iterator<Item = &Key> + '_ {
        let (listed, hashed) = match self {
            KeySet::Listed(keys) => (Some(keys.iter()), None),
            KeySet::Hashed(keys) => (None, Some(keys.keys())),
        };
        listed
            .into_iter()
            .flatten()
            .chain(hashed.into_iter().flatten())
    }
}

impl<Key> IntoIterator for KeySet<Key> {
    type Item = Key;
    type IntoIter = KeySetIntoIter<Key>;

    fn into_iter(self) -> Self::IntoIter {
        match self {
            KeySet::Listed(keys) => KeySetIntoIter::Listed(keys.into_iter()),
            KeySet::Hashed(keys) => KeySetIntoIter::Hashed(keys.into_keys()),
        }
    }
}

/// The keys of a [`KeySet`], moved out.
pub enum KeySetIntoIter<Key> {
    /// Of a listed set.
    Listed(smallvec::IntoIter<[Key; 4]>),
    /// Of a hashed set.
    Hashed(hashbrown::hash_map::IntoKeys<Key, ()>),
}

impl<Key> Iterator for KeySetIntoIter<Key> {
    type Item = Key;

    fn next(&mut self) -> Option<Key> {
        match self {
            KeySetIntoIter::Listed(keys) => keys.next(),
            KeySetIntoIter::Hashed(keys) => keys.next(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semiring::Int;

    /// The set holds each key once, listed or hashed, across the move.
    #[test]
    fn a_key_set_holds_each_key_once() {
        for n in [0_u32, 1, 5, LISTED as u32, LISTED as u32 + 1, 100] {
            let set = key_set((0..n).chain(0..n).rev());
            let mut keys: Vec<u32> = set.keys().copied().collect();
            keys.sort_unstable();
            assert_eq!(keys, (0..n).collect::<Vec<_>>());
            assert!((0..n).all(|k| set.contains_key(&k)));
            assert!(!set.contains_key(&n));
            assert_eq!(matches!(set, KeySet::Hashed(_)), n as usize > LISTED);
            let mut odd = set.clone();
            odd.retain(|k| k % 2 == 1);
            let mut moved: Vec<u32> = odd.into_iter().collect();
            moved.sort_unstable();
            assert_eq!(moved, (0..n).filter(|k| k % 2 == 1).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_journal_notes_the_first_payload_of_an_epoch() {
        let mut c: Changes<u32, Int> = Changes::default();
        c.note(&1, || panic!("nothing is noted before the first call"));
        assert!(c.take_journal().is_none());
        c.note(&1, || Int(5));
        c.note(&1, || Int(7));
        c.note(&2, || Int(0));
        let mut noted: Vec<_> = c.take_journal().unwrap().into_iter().collect();
        noted.sort();
        assert_eq!(noted, [(1, Int(5)), (2, Int(0))]);
        assert!(c.take_journal().unwrap().is_empty());
    }

    #[test]
    fn a_diff_reports_what_came_went_and_moved() {
        let mut c: Changes<u32, Int> = Changes::default();
        let mut first = c.diff([(1, Int(1)), (2, Int(2))].into_iter());
        first.sort();
        assert_eq!(first, [(1, Int(0), Int(1)), (2, Int(0), Int(2))]);
        let mut second = c.diff([(2, Int(3)), (3, Int(1))].into_iter());
        second.sort();
        assert_eq!(
            second,
            [
                (1, Int(1), Int(0)),
                (2, Int(2), Int(3)),
                (3, Int(0), Int(1))
            ]
        );
        assert!(c.diff([(2, Int(3)), (3, Int(1))].into_iter()).is_empty());
    }
}
