//! [`Factorized`]: the factorized baseline, one materialized view.

use crate::__private::HashMap;

use super::part::Part;
use super::views::{View, same_view, view_get, view_replace};
use super::{Value, replaced};
use crate::Counting;

/// Factorized IVM for the triangle count (the baseline of *Counting
/// Triangles under Updates in Worst-Case Optimal Time*, by Kara, Ngo,
/// Nikolic, Olteanu and Zhang): one materialized view
/// V_ST(B, A) = Σ_C S(B, C) · T(C, A). An update to R costs one lookup in
/// it; an update to S or T walks the tuples of the other relation sharing
/// its C value, O(N), and the view takes O(N²) space at worst.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "A: serde::Serialize + Eq + std::hash::Hash, B: serde::Serialize + Eq + std::hash::Hash, C: serde::Serialize + Eq + std::hash::Hash, K: serde::Serialize",
        deserialize = "A: serde::Deserialize<'de> + Eq + std::hash::Hash, B: serde::Deserialize<'de> + Eq + std::hash::Hash, C: serde::Deserialize<'de> + Eq + std::hash::Hash, K: serde::Deserialize<'de>"
    ))
)]
pub struct Factorized<A, B, C, K> {
    r: HashMap<(A, B), K>,
    /// S, keyed by C first so the tuples sharing a C value can be walked.
    s: Part<C, B, K>,
    t: Part<C, A, K>,
    v_st: View<B, A, K>,
    count: K,
}

impl<A, B, C, K> Factorized<A, B, C, K>
where
    A: Value,
    B: Value,
    C: Value,
    K: Counting,
{
    /// An empty state.
    pub fn new() -> Self {
        Factorized {
            r: HashMap::default(),
            s: Part::new(),
            t: Part::new(),
            v_st: HashMap::default(),
            count: K::zero(),
        }
    }

    /// The triangle count.
    pub fn count(&self) -> &K {
        &self.count
    }

    /// R(a, b) changes from `old` to `new`: one lookup in the view.
    pub fn update_r(&mut self, a: &A, b: &B, old: &K, new: &K) {
        let paths = view_get(&self.v_st, b, a);
        self.count = replaced(&self.count, old, new, &paths);
        let key = (a.clone(), b.clone());
        if new.is_zero() {
            self.r.remove(&key);
        } else {
            self.r.insert(key, new.clone());
        }
    }

    /// S(b, c) changes from `old` to `new`: the view and the count over
    /// the T tuples of c.
    pub fn update_s(&mut self, b: &B, c: &C, old: &K, new: &K) {
        let Self {
            t, v_st, count, r, ..
        } = self;
        for (a, w) in t.ys(c) {
            Self::term_changed(v_st, count, r, (a, b), old, new, w);
        }
        self.s.put(c, b, new.clone());
    }

    /// T(c, a) changes from `old` to `new`: the view and the count over
    /// the S tuples of c.
    pub fn update_t(&mut self, c: &C, a: &A, old: &K, new: &K) {
        let Self {
            s, v_st, count, r, ..
        } = self;
        for (b, w) in s.ys(c) {
            Self::term_changed(v_st, count, r, (a, b), old, new, w);
        }
        self.t.put(c, a, new.clone());
    }

    /// One term S(b, c) · T(c, a) of the view at (b, a) changes from
    /// `old · w` to `new · w`: the view, and the count through R(a, b).
    fn term_changed(
        v_st: &mut View<B, A, K>,
        count: &mut K,
        r: &HashMap<(A, B), K>,
        (a, b): (&A, &B),
        old: &K,
        new: &K,
        w: &K,
    ) {
        view_replace(v_st, b, a, old, new, w);
        let r = r
            .get(&(a.clone(), b.clone()))
            .cloned()
            .unwrap_or_else(K::zero);
        *count = replaced(count, old, new, &r.mul(w));
    }

    /// Checks that the view and the count equal their definitions (for
    /// tests).
    pub fn check(&self) -> Result<(), String> {
        let mut view: View<B, A, K> = HashMap::default();
        for (c, _) in self.s.by_first() {
            for (b, sk) in self.s.ys(c) {
                for (a, tk) in self.t.ys(c) {
                    let row = view.entry(b.clone()).or_default();
                    let e = row.entry(a.clone()).or_insert_with(K::zero);
                    *e = e.add(&sk.mul(tk));
                }
            }
        }
        for row in view.values_mut() {
            row.retain(|_, k| !k.is_zero());
        }
        view.retain(|_, row| !row.is_empty());
        if !same_view(&view, &self.v_st) {
            return Err("V_ST differs from its definition".into());
        }
        let mut total = K::zero();
        for ((a, b), k) in &self.r {
            total = total.add(&k.mul(&view_get(&view, b, a)));
        }
        if total != self.count {
            return Err("the count differs from the triangle count evaluated from scratch".into());
        }
        Ok(())
    }
}

impl<A, B, C, K> Default for Factorized<A, B, C, K>
where
    A: Value,
    B: Value,
    C: Value,
    K: Counting,
{
    fn default() -> Self {
        Self::new()
    }
}
