//! The engines, one module per family.

pub mod dbsp;
pub mod dd;
pub mod hand;
pub mod ivm;

use std::hash::Hash;

use ::ivm::__private::{Entry, HashMap};

/// Adds `d` to `map[key]`, removing the entry at zero: how the peers' output
/// changes of a counted result are applied.
pub fn add_count<K: Hash + Eq>(map: &mut HashMap<K, i64>, key: K, d: i64) {
    match map.entry(key) {
        Entry::Occupied(mut e) => {
            *e.get_mut() += d;
            if *e.get() == 0 {
                e.remove();
            }
        }
        Entry::Vacant(e) => {
            e.insert(d);
        }
    }
}

/// A result with one value per key, kept from output changes that retract
/// the old value and add the new one (in either order, and possibly
/// unconsolidated within a batch): the multiplicity of each (key, value).
pub struct Multiset<K, V> {
    map: HashMap<K, Vec<(V, isize)>>,
}

impl<K, V> Default for Multiset<K, V> {
    fn default() -> Self {
        Multiset {
            map: HashMap::default(),
        }
    }
}

impl<K: Hash + Eq + Copy, V: PartialEq + Copy> Multiset<K, V> {
    pub fn update(&mut self, key: K, value: V, d: isize) {
        let values = self.map.entry(key).or_default();
        match values.iter().position(|(v, _)| *v == value) {
            Some(i) => {
                values[i].1 += d;
                if values[i].1 == 0 {
                    values.swap_remove(i);
                }
            }
            None => values.push((value, d)),
        }
        if values.is_empty() {
            self.map.remove(&key);
        }
    }

    /// The value of `key` (with a positive multiplicity).
    pub fn get(&self, key: &K) -> Option<V> {
        self.map
            .get(key)?
            .iter()
            .find(|(_, d)| *d > 0)
            .map(|(v, _)| *v)
    }

    pub fn iter(&self) -> impl Iterator<Item = (K, V)> + '_ {
        self.map.iter().flat_map(|(k, values)| {
            values
                .iter()
                .filter(|(_, d)| *d > 0)
                .map(move |(v, _)| (*k, *v))
        })
    }
}
