//! The maps a journal keeps per epoch: what the maps of a rule noted at
//! each key they wrote since `changes()` was last called (the epoch being
//! written), and during the epoch before (the one `changes()` reads).
//!
//! A nested view's reader and a window's ranking call `changes()` after
//! every update, so most epochs note one key or two: an [`EpochMap`]
//! keeps up to [`LISTED`] entries in a list, searched in a few
//! comparisons, and moves to a hash map past that. Noting, reading and
//! ending an epoch of one key then hash nothing and clear no table of
//! control bytes.

use std::hash::Hash;

use crate::index::{HashMap, new_map};

/// How many entries an [`EpochMap`] keeps in its list before it moves
/// them to a hash map.
const LISTED: usize = 8;

/// A map from the keys an epoch wrote to what it noted at each, listed
/// while there are few.
#[derive(Debug, Clone)]
pub(crate) enum EpochMap<Key, V> {
    /// At most [`LISTED`] entries, distinct keys, in the order noted.
    Listed(Vec<(Key, V)>),
    /// More.
    Hashed(HashMap<Key, V>),
}

impl<Key, V> Default for EpochMap<Key, V> {
    fn default() -> Self {
        EpochMap::Listed(Vec::new())
    }
}

impl<Key: Eq + Hash, V> EpochMap<Key, V> {
    /// Whether no key was noted.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        match self {
            EpochMap::Listed(list) => list.is_empty(),
            EpochMap::Hashed(map) => map.is_empty(),
        }
    }

    /// What was noted at `key`, if anything.
    #[inline]
    pub(crate) fn get(&self, key: &Key) -> Option<&V> {
        match self {
            EpochMap::Listed(list) => list.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            EpochMap::Hashed(map) => map.get(key),
        }
    }

    /// What is noted at `key`, noting `first()` there if nothing was.
    pub(crate) fn or_insert_with(&mut self, key: Key, first: impl FnOnce() -> V) -> &mut V {
        let full =
            |list: &Vec<(Key, V)>| list.len() == LISTED && list.iter().all(|(k, _)| *k != key);
        if let EpochMap::Listed(list) = self
            && full(list)
        {
            let mut map = new_map();
            map.extend(list.drain(..));
            *self = EpochMap::Hashed(map);
        }
        match self {
            EpochMap::Listed(list) => {
                let at = match list.iter().position(|(k, _)| *k == key) {
                    Some(at) => at,
                    None => {
                        list.push((key, first()));
                        list.len() - 1
                    }
                };
                &mut list[at].1
            }
            EpochMap::Hashed(map) => map.entry(key).or_insert_with(first),
        }
    }

    /// Notes `value` at `key` unless something is noted there already;
    /// whether it was noted.
    pub(crate) fn note_first(&mut self, key: Key, value: V) -> bool {
        let mut noted = false;
        self.or_insert_with(key, || {
            noted = true;
            value
        });
        noted
    }

    /// Every key noted, with what was noted there.
    #[inline]
    pub(crate) fn iter(&self) -> Iter<'_, Key, V> {
        match self {
            EpochMap::Listed(list) => Iter::Listed(list.iter()),
            EpochMap::Hashed(map) => Iter::Hashed(map.iter()),
        }
    }

    /// Forgets every entry. A list keeps its allocation, so that epochs
    /// of a few keys allocate nothing; a hash map, left by an epoch of
    /// many writes, is freed, since clearing it would cost its whole
    /// capacity at every epoch after.
    #[inline]
    pub(crate) fn clear(&mut self) {
        match self {
            EpochMap::Listed(list) => list.clear(),
            EpochMap::Hashed(_) => *self = EpochMap::default(),
        }
    }
}

/// The entries of an [`EpochMap`], in one of its two forms.
pub(crate) enum Iter<'a, Key, V> {
    Listed(std::slice::Iter<'a, (Key, V)>),
    Hashed(hashbrown::hash_map::Iter<'a, Key, V>),
}

impl<'a, Key, V> Iterator for Iter<'a, Key, V> {
    type Item = (&'a Key, &'a V);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Iter::Listed(list) => list.next().map(|(k, v)| (k, v)),
            Iter::Hashed(map) => map.next(),
        }
    }
}

/// Ends an epoch of a journal: what `now` noted becomes `then`, and `now`
/// starts empty (with the list `then` had, if it had one). An epoch that
/// noted nothing, as most do for a map a single update does not reach,
/// only empties `then`.
#[inline]
fn next_epoch<Key: Eq + Hash, V>(now: &mut EpochMap<Key, V>, then: &mut EpochMap<Key, V>) {
    if now.is_empty() {
        then.clear();
    } else {
        std::mem::swap(now, then);
        now.clear();
    }
}

/// What a journal noted during the epoch being written (`now`) and during
/// the last one ended (`then`, which `changes()` reads).
#[derive(Debug, Clone)]
pub(crate) struct Epochs<Key, V> {
    pub(crate) now: EpochMap<Key, V>,
    pub(crate) then: EpochMap<Key, V>,
}

impl<Key, V> Default for Epochs<Key, V> {
    fn default() -> Self {
        Epochs {
            now: EpochMap::default(),
            then: EpochMap::default(),
        }
    }
}

impl<Key: Eq + Hash, V> Epochs<Key, V> {
    /// Ends the epoch being written: see [`next_epoch`].
    #[inline]
    pub(crate) fn end(&mut self) {
        next_epoch(&mut self.now, &mut self.then);
    }
}

/// Notes `value` at `key` in `now` unless the epoch noted the key already.
/// Out of line: only programs that call `changes()` come here.
///
/// The key comes by value: a reference to the caller's key would make the
/// compiler keep that key in memory, stored in parts and read back whole
/// to hash it, and such a read waits until the stores before it are done,
/// the previous update's cache misses included.
#[cold]
#[inline(never)]
pub(crate) fn note_first<Key: Eq + Hash, V>(now: &mut EpochMap<Key, V>, key: Key, value: V) {
    now.note_first(key, value);
}

/// A journal kept from the first call of `changes()` on: made out of
/// line, so that ending an epoch inlines to a few tests.
#[cold]
#[inline(never)]
pub(crate) fn started<J: Default>() -> Option<Box<J>> {
    Some(Box::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap as Model;

    proptest! {
        /// Epochs of any size, a list or a hash map, note and read what a
        /// hash map of the first note at each key does.
        #[test]
        fn epochs_agree_with_a_map_of_first_notes(
            epochs in prop::collection::vec(
                prop::collection::vec((0u8..24, any::<u16>()), 0..30),
                1..8,
            ),
        ) {
            let (mut now, mut then) = (EpochMap::default(), EpochMap::default());
            for notes in epochs {
                let mut model = Model::new();
                for (key, value) in notes {
                    let fresh = !model.contains_key(&key);
                    model.entry(key).or_insert(value);
                    prop_assert_eq!(now.note_first(key, value), fresh);
                }
                prop_assert_eq!(now.is_empty(), model.is_empty());
                next_epoch(&mut now, &mut then);
                prop_assert!(now.is_empty());
                for key in 0u8..24 {
                    prop_assert_eq!(then.get(&key), model.get(&key));
                }
                let mut listed: Vec<_> = then.iter().map(|(k, v)| (*k, *v)).collect();
                listed.sort_unstable();
                let mut want: Vec<_> = model.into_iter().collect();
                want.sort_unstable();
                prop_assert_eq!(listed, want);
            }
        }
    }

    #[test]
    fn an_epoch_keeps_its_list_and_frees_a_hash_map() {
        let (mut now, mut then) = (EpochMap::<u32, u32>::default(), EpochMap::default());
        now.note_first(1, 10);
        next_epoch(&mut now, &mut then);
        assert_eq!((then.get(&1), now.is_empty()), (Some(&10), true));
        // `now` is the emptied list of the epoch before: still allocated.
        now.note_first(2, 20);
        next_epoch(&mut now, &mut then);
        assert_eq!((then.get(&2), then.get(&1)), (Some(&20), None));
        assert!(matches!(&now, EpochMap::Listed(list) if list.is_empty() && list.capacity() > 0));
        // A bulk epoch's map is not kept to be cleared ever after.
        for k in 0..10_000 {
            now.note_first(k, k);
        }
        assert!(matches!(now, EpochMap::Hashed(_)));
        next_epoch(&mut now, &mut then);
        assert!(matches!(&then, EpochMap::Hashed(map) if map.len() == 10_000));
        next_epoch(&mut now, &mut then);
        assert!(matches!(&then, EpochMap::Listed(list) if list.capacity() == 0));
        // An epoch that noted nothing leaves `now`'s list as it was.
        assert!(matches!(&now, EpochMap::Listed(list) if list.is_empty() && list.capacity() > 0));
    }

    #[test]
    fn a_value_noted_in_place_grows() {
        let mut now = EpochMap::<u8, Vec<u8>>::default();
        for k in 0..20u8 {
            now.or_insert_with(k % 10, Vec::new).push(k);
        }
        assert_eq!(now.get(&3), Some(&vec![3, 13]));
    }
}
