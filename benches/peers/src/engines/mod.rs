//! The engines, one module per family.

pub mod dbsp;
pub mod dd;
pub mod hand;
pub mod ivm;

use std::hash::Hash;

use ::ivm::__private::{Entry, HashMap};

use crate::workloads::{Connection, Exposed, Grouped};

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

// The peers (differential-dataflow and dbsp) keep the result they read from
// their output changes in the same maps; the reads and the rows of each
// workload are shared.

/// (a): the checksum of the counts of the keys a batch names.
pub fn read_grouped(result: &HashMap<u32, i64>, batch: &[Grouped]) -> i64 {
    batch.iter().fold(0, |acc, u| {
        acc.wrapping_add(result.get(&u.k).copied().unwrap_or(0))
    })
}

/// (a): the counts per key, sorted.
pub fn grouped_rows(result: &HashMap<u32, i64>) -> Vec<(u32, i64)> {
    let mut rows: Vec<_> = result.iter().map(|(&k, &v)| (k, v)).collect();
    rows.sort_unstable();
    rows
}

/// (c): the checksum of the cheapest prices of the routes a batch inserts.
pub fn read_connection(result: &Multiset<(u32, u32), i64>, batch: &[Connection]) -> i64 {
    batch.iter().fold(0, |acc, u| match *u {
        Connection::Route(o, h, _) => acc.wrapping_add(result.get(&(o, h)).unwrap_or(i64::MAX)),
        _ => acc,
    })
}

/// (c): the cheapest price per (origin, hub), sorted.
pub fn connection_rows(result: &Multiset<(u32, u32), i64>) -> Vec<(u32, u32, i64)> {
    let mut rows: Vec<_> = result.iter().map(|((o, h), v)| (o, h, v)).collect();
    rows.sort_unstable();
    rows
}

/// (c): how many of the accounts a batch's logins name are exposed.
pub fn read_exposed(result: &HashMap<u64, i64>, batch: &[Exposed]) -> i64 {
    batch.iter().fold(0, |acc, u| match *u {
        Exposed::Login(a, _) => acc + i64::from(result.contains_key(&a)),
        Exposed::Flag(_) => acc,
    })
}

/// (c): the exposed accounts, sorted.
pub fn exposed_rows(result: &HashMap<u64, i64>) -> Vec<u64> {
    let mut rows: Vec<_> = result.keys().copied().collect();
    rows.sort_unstable();
    rows
}
