//! The driver's copy of the workers' results, ⊕-combined per output tuple.
//!
//! Each worker reports the output tuples whose partial payload changed
//! since the last pull ([`ivm::View::changes`]); the driver keeps every
//! worker's partial payload of every tuple, so that it can ⊕ them for any
//! semiring (a minimum cannot be "un-added", so a total cannot be kept by
//! subtraction), and remembers each changed tuple's total as it was at the
//! caller's last [`changes`](Combined::changes).

use std::collections::HashMap;
use std::hash::Hash;

use ivm::Semiring;

/// Every worker's partial payload per output tuple, and the totals as the
/// caller last saw them.
pub(crate) struct Combined<K, P> {
    /// Per output tuple, the non-zero partial payloads, by worker.
    parts: HashMap<K, Vec<(u32, P)>>,
    /// Per output tuple changed since the caller's last `changes`, its
    /// total then.
    then: HashMap<K, P>,
}

impl<K: Hash + Eq + Clone, P: Semiring> Combined<K, P> {
    pub(crate) fn new() -> Self {
        Combined {
            parts: HashMap::new(),
            then: HashMap::new(),
        }
    }

    /// Worker `worker`'s partial payload of `key` is now `now`.
    pub(crate) fn record(&mut self, worker: u32, key: K, now: P) {
        if !self.then.contains_key(&key) {
            let total = self.total(&key);
            self.then.insert(key.clone(), total);
        }
        let Some(parts) = self.parts.get_mut(&key) else {
            if !now.is_zero() {
                self.parts.insert(key, vec![(worker, now)]);
            }
            return;
        };
        parts.retain(|(w, _)| *w != worker);
        if !now.is_zero() {
            parts.push((worker, now));
        } else if parts.is_empty() {
            self.parts.remove(&key);
        }
    }

    /// The ⊕ of the workers' partial payloads of `key`.
    pub(crate) fn total(&self, key: &K) -> P {
        self.parts.get(key).map_or_else(P::zero, |parts| sum(parts))
    }

    /// Every output tuple with a non-zero total.
    pub(crate) fn rows(&self) -> Vec<(K, P)> {
        self.parts
            .iter()
            .map(|(key, parts)| (key.clone(), sum(parts)))
            .filter(|(_, total)| !total.is_zero())
            .collect()
    }

    /// The output tuples whose total changed since the last call, with
    /// their totals then and now.
    pub(crate) fn changes(&mut self) -> Vec<(K, P, P)> {
        let then = std::mem::take(&mut self.then);
        then.into_iter()
            .filter_map(|(key, old)| {
                let new = self.total(&key);
                (old != new).then_some((key, old, new))
            })
            .collect()
    }
}

/// The ⊕ of some partial payloads.
fn sum<P: Semiring>(parts: &[(u32, P)]) -> P {
    parts
        .iter()
        .fold(P::zero(), |total, (_, part)| total.add(part))
}

#[cfg(test)]
mod tests {
    use ivm::semiring::{Int, MinPlus};

    use super::*;

    #[test]
    fn totals_are_the_sum_of_the_parts_and_changes_consolidate() {
        let mut c = Combined::<u32, Int>::new();
        c.record(0, 1, Int(3));
        c.record(1, 1, Int(4));
        c.record(1, 2, Int(5));
        let mut first = c.changes();
        first.sort_by_key(|(k, _, _)| *k);
        assert_eq!(first, vec![(1, Int(0), Int(7)), (2, Int(0), Int(5))]);
        // Changed and changed back: not reported.
        c.record(1, 2, Int(6));
        c.record(1, 2, Int(5));
        // Parts that cancel leave the result.
        c.record(0, 1, Int(-4));
        assert_eq!(c.changes(), vec![(1, Int(7), Int(0))]);
        assert_eq!(c.rows(), vec![(2, Int(5))]);
    }

    #[test]
    fn a_minimum_combines_without_subtraction() {
        let mut c = Combined::<(), MinPlus>::new();
        c.record(0, (), MinPlus(5));
        c.record(1, (), MinPlus(3));
        assert_eq!(c.total(&()), MinPlus(3));
        // Worker 1's minimum goes away: worker 0's comes back.
        c.record(1, (), MinPlus::zero());
        assert_eq!(c.rows(), vec![((), MinPlus(5))]);
    }
}
