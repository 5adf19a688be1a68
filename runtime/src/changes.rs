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
//! - **Diff** (every other strategy, for now): the result as of the
//!   previous call is kept, and `changes()` compares the whole result with
//!   it: O(|result|) per call.

use std::hash::Hash;

use hashbrown::hash_map::EntryRef;

use crate::Semiring;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semiring::Int;

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
