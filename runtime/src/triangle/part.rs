//! The partitions: one relation split on its first column into a heavy
//! and a light part, with each tuple's payload beside it in the lists
//! the delta rules walk.

use hashbrown::hash_map::Entry;

use crate::__private::HashMap;

use super::Value;
use crate::Counting;

/// Where one tuple (x, y) sits: its payload, and its positions in x's
/// list and in y's list.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(super) struct Slot<K> {
    pub(super) k: K,
    pub(super) at: u32,
    pub(super) back: u32,
}

/// The tuples of one first-column value, and its part.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(super) struct Values<Y, K> {
    pub(super) heavy: bool,
    pub(super) list: Vec<(Y, K)>,
}

impl<Y, K> Values<Y, K> {
    pub(super) fn light() -> Self {
        Values {
            heavy: false,
            list: Vec::new(),
        }
    }
}

/// The tuples of one second-column value: those whose first value is heavy
/// come first, `list[..heavy]`.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(super) struct Incoming<X, K> {
    pub(super) heavy: usize,
    pub(super) list: Vec<(X, K)>,
}

impl<X, K> Default for Incoming<X, K> {
    fn default() -> Self {
        Incoming {
            heavy: 0,
            list: Vec::new(),
        }
    }
}

/// One relation, partitioned on its first column.
///
/// The delta rules walk tuples far more often than they look one up, so
/// each tuple's payload is stored beside it in both lists that hold it,
/// and a walk costs no lookup per tuple: the tuples of its first value
/// (`out`) and those of its second value (`into`), the latter with the
/// heavy first values in front. That second list is what keeps the rules
/// proportional to the tuples that matter: "the heavy u with P(u, x) ≠ 0"
/// is one slice, where scanning every heavy value costs N/θ lookups
/// whatever x is, and a sum over x's partners can walk whichever side of
/// the join is shorter.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "X: serde::Serialize + Eq + std::hash::Hash, Y: serde::Serialize + Eq + std::hash::Hash, K: serde::Serialize",
        deserialize = "X: serde::Deserialize<'de> + Eq + std::hash::Hash, Y: serde::Deserialize<'de> + Eq + std::hash::Hash, K: serde::Deserialize<'de>"
    ))
)]
pub(super) struct Part<X, Y, K> {
    pub(super) tuples: HashMap<(X, Y), Slot<K>>,
    pub(super) out: HashMap<X, Values<Y, K>>,
    pub(super) into: HashMap<Y, Incoming<X, K>>,
}

/// A position in a list, stored in a [`Slot`]. Degrees are below 2^32.
pub(super) fn pos(i: usize) -> u32 {
    u32::try_from(i).expect("a value with 2^32 tuples")
}

impl<X: Value, Y: Value, K: Counting> Part<X, Y, K> {
    pub(super) fn new() -> Self {
        Part {
            tuples: HashMap::default(),
            out: HashMap::default(),
            into: HashMap::default(),
        }
    }

    pub(super) fn get(&self, x: &X, y: &Y) -> K {
        self.tuples
            .get(&(x.clone(), y.clone()))
            .map_or_else(K::zero, |slot| slot.k.clone())
    }

    pub(super) fn values(&self, x: &X) -> Option<&Values<Y, K>> {
        self.out.get(x)
    }

    pub(super) fn is_heavy(&self, x: &X) -> bool {
        self.out.get(x).is_some_and(|v| v.heavy)
    }

    /// The tuples (x, y), with their payloads.
    pub(super) fn ys(&self, x: &X) -> &[(Y, K)] {
        self.out.get(x).map_or(&[], |v| v.list.as_slice())
    }

    /// The tuples (u, y), with their payloads.
    pub(super) fn xs(&self, y: &Y) -> &[(X, K)] {
        self.into.get(y).map_or(&[], |i| i.list.as_slice())
    }

    /// The tuples (u, y) with u heavy, with their payloads.
    pub(super) fn heavy_xs(&self, y: &Y) -> &[(X, K)] {
        self.into.get(y).map_or(&[], |i| &i.list[..i.heavy])
    }

    pub(super) fn len(&self) -> usize {
        self.tuples.len()
    }

    /// Sets the payload of (x, y), keeping both lists in step. A value
    /// whose last tuple goes is forgotten, part included: a heavy value
    /// always has a tuple (its degree is at least θ/2 > 0).
    pub(super) fn set(&mut self, x: &X, y: &Y, k: K) {
        let Part { tuples, out, into } = self;
        let key = (x.clone(), y.clone());
        // One probe of the tuple map for the tuple itself, whichever way
        // it changes: the map holds every tuple, so each probe is likely a
        // cache miss.
        match (tuples.entry(key), k.is_zero()) {
            (Entry::Occupied(mut entry), false) => {
                let slot = entry.get_mut();
                slot.k = k.clone();
                out.get_mut(x).expect("listed").list[slot.at as usize].1 = k.clone();
                into.get_mut(y).expect("listed").list[slot.back as usize].1 = k;
            }
            (Entry::Occupied(entry), true) => {
                let slot = entry.remove();
                let (at, mut back) = (slot.at as usize, slot.back as usize);
                let list = into.get_mut(y).expect("listed");
                if back < list.heavy {
                    // Out of the heavy prefix first, then out of the list:
                    // the last heavy tuple takes this one's place.
                    list.heavy -= 1;
                    let last_heavy = list.heavy;
                    if back != last_heavy {
                        list.list.swap(back, last_heavy);
                        set_back(tuples, &list.list[back].0, y, back);
                    }
                    back = last_heavy;
                }
                list.list.swap_remove(back);
                if let Some((moved, _)) = list.list.get(back) {
                    set_back(tuples, moved, y, back);
                }
                if list.list.is_empty() {
                    into.remove(y);
                }
                let values = out.get_mut(x).expect("listed");
                values.list.swap_remove(at);
                if let Some((moved, _)) = values.list.get(at) {
                    tuples
                        .get_mut(&(x.clone(), moved.clone()))
                        .expect("listed")
                        .at = pos(at);
                }
                if values.list.is_empty() {
                    out.remove(x);
                }
            }
            (Entry::Vacant(entry), false) => {
                let values = out.entry(x.clone()).or_insert_with(Values::light);
                values.list.push((y.clone(), k.clone()));
                let list = into.entry(y.clone()).or_default();
                list.list.push((x.clone(), k.clone()));
                let last = list.list.len() - 1;
                entry.insert(Slot {
                    k,
                    at: pos(values.list.len() - 1),
                    back: pos(last),
                });
                if values.heavy {
                    swap(tuples, list, y, last, list.heavy);
                    list.heavy += 1;
                }
            }
            (Entry::Vacant(_), true) => {}
        }
    }

    /// Moves x to the heavy or the light part: O(degree of x).
    pub(super) fn set_heavy(&mut self, x: &X, heavy: bool) {
        let Part { tuples, out, into } = self;
        if let Some(values) = out.get_mut(x) {
            mark(tuples, into, x, values, heavy);
        }
    }
}

/// Moves x's tuples into, or out of, the heavy prefix of their second
/// values' lists.
pub(super) fn mark<X: Value, Y: Value, K>(
    tuples: &mut HashMap<(X, Y), Slot<K>>,
    into: &mut HashMap<Y, Incoming<X, K>>,
    x: &X,
    values: &mut Values<Y, K>,
    heavy: bool,
) {
    if values.heavy == heavy {
        return;
    }
    values.heavy = heavy;
    for (y, _) in &values.list {
        let back = tuples[&(x.clone(), y.clone())].back as usize;
        let list = into.get_mut(y).expect("listed");
        if heavy {
            swap(tuples, list, y, back, list.heavy);
            list.heavy += 1;
        } else {
            list.heavy -= 1;
            swap(tuples, list, y, back, list.heavy);
        }
    }
}

/// Swaps entries `a` and `b` of y's list, and the positions their slots
/// record.
pub(super) fn swap<X: Value, Y: Value, K>(
    tuples: &mut HashMap<(X, Y), Slot<K>>,
    list: &mut Incoming<X, K>,
    y: &Y,
    a: usize,
    b: usize,
) {
    if a == b {
        return;
    }
    list.list.swap(a, b);
    for i in [a, b] {
        set_back(tuples, &list.list[i].0, y, i);
    }
}

/// Records that the tuple (u, y) sits at position `i` of y's list.
fn set_back<X: Value, Y: Value, K>(tuples: &mut HashMap<(X, Y), Slot<K>>, u: &X, y: &Y, i: usize) {
    tuples
        .get_mut(&(u.clone(), y.clone()))
        .expect("listed")
        .back = pos(i);
}

/// Every value whose degree is at least θ is heavy, every other light.
pub(super) fn repartition<X: Value, Y: Value, K: Counting>(p: &mut Part<X, Y, K>, theta: f64) {
    let Part { tuples, out, into } = p;
    for (x, values) in out.iter_mut() {
        let heavy = values.list.len() as f64 >= theta;
        mark(tuples, into, x, values, heavy);
    }
}

pub(super) fn check_part<X: Value, Y: Value, K: Counting>(
    p: &Part<X, Y, K>,
    theta: f64,
    name: &str,
) -> Result<(), String> {
    for values in p.out.values() {
        let d = values.list.len() as f64;
        if values.heavy && d < 0.5 * theta {
            return Err(format!(
                "a heavy value of {name} has degree {d} < θ/2 = {}",
                0.5 * theta
            ));
        }
        if !values.heavy && d >= 1.5 * theta {
            return Err(format!(
                "a light value of {name} has degree {d} ≥ 3θ/2 = {}",
                1.5 * theta
            ));
        }
    }
    check_lists(p).map_err(|what| format!("{name}: {what}"))
}

/// Each tuple sits in both its values' lists at the positions its slot
/// records, with its payload, and in the heavy prefix of its second
/// value's list exactly when its first value is heavy; and the lists hold
/// nothing else.
pub(super) fn check_lists<X: Value, Y: Value, K: Counting>(
    p: &Part<X, Y, K>,
) -> Result<(), String> {
    for ((x, y), slot) in &p.tuples {
        let values = p.out.get(x).ok_or("a tuple's first value has no list")?;
        if values.list.get(slot.at as usize) != Some(&(y.clone(), slot.k.clone())) {
            return Err("a tuple is not where its slot says in its first value's list".into());
        }
        let into = p.into.get(y).ok_or("a tuple's second value has no list")?;
        let back = slot.back as usize;
        if into.list.get(back) != Some(&(x.clone(), slot.k.clone())) {
            return Err("a tuple is not where its slot says in its second value's list".into());
        }
        if values.heavy != (back < into.heavy) {
            return Err("a tuple is on the wrong side of its second value's heavy prefix".into());
        }
    }
    let listed: usize = p.out.values().map(|v| v.list.len()).sum();
    let listed_into: usize = p.into.values().map(|i| i.list.len()).sum();
    if listed != p.tuples.len() || listed_into != p.tuples.len() {
        return Err("the lists hold tuples that are not in the part".into());
    }
    if p.out.values().any(|v| v.list.is_empty()) || p.into.values().any(|i| i.list.is_empty()) {
        return Err("an empty list is kept".into());
    }
    Ok(())
}
