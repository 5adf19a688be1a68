//! Combinators for enumerating a factorized result with constant delay:
//! [`product`], the pairs drawn from independent branches of a view tree.
//!
//! Generated code reaches everything here through `::ivm::__private`.

use std::iter::FusedIterator;

/// The cartesian product of `a` and `b`: every `(x, y)` with `x` from `a`
/// and `y` from `b`, `a`'s items in the outer loop. Below a node of a view
/// tree, the children share no free variable, so the result under one
/// value of the node's variables is the product of its children's results.
///
/// `b` is restarted, by cloning it, once per item of `a`; each `x` is cloned
/// once per item of `b`. Pass iterators over references, which are cheap to
/// clone.
///
/// The delay stays constant even when a side is empty: an empty `b` ends
/// the product at once instead of running through all of `a` (one clone and
/// one `next` of `b` when the product is built tell).
///
/// ```
/// use ivm::__private::product;
///
/// let pairs: Vec<_> = product(&[1, 2], &["x", "y"]).collect();
/// assert_eq!(pairs, [(&1, &"x"), (&1, &"y"), (&2, &"x"), (&2, &"y")]);
///
/// // Nesting covers more branches: ((x, y), z).
/// assert_eq!(product(product(0..2, 0..3), 0..4).count(), 24);
/// ```
pub fn product<A, B>(a: A, b: B) -> Product<A::IntoIter, B::IntoIter>
where
    A: IntoIterator,
    A::Item: Clone,
    B: IntoIterator,
    B::IntoIter: Clone,
{
    let b = b.into_iter();
    // Checked up front: otherwise each item of `a` would be paired with
    // nothing, one after the other, before the product could end.
    let outer = if b.clone().next().is_some() {
        Some(a.into_iter())
    } else {
        None
    };
    Product {
        outer,
        current: None,
        inner: b.clone(),
        restart: b,
    }
}

/// The iterator returned by [`product`].
#[derive(Clone, Debug)]
pub struct Product<A: Iterator, B> {
    /// The rest of `a`; `None` once it is exhausted, or from the start when
    /// `b` is empty.
    outer: Option<A>,
    /// The item of `a` being paired, `None` before the first.
    current: Option<A::Item>,
    /// What is left of `b` for `current`.
    inner: B,
    /// `b` from its start, cloned for each new item of `a`.
    restart: B,
}

impl<A, B> Iterator for Product<A, B>
where
    A: Iterator,
    A::Item: Clone,
    B: Iterator + Clone,
{
    type Item = (A::Item, B::Item);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(x) = &self.current
                && let Some(y) = self.inner.next()
            {
                return Some((x.clone(), y));
            }
            // `b` is known to be non-empty, so this loop turns at most
            // twice per call (unless `b` is an iterator whose clones
            // disagree, which `Clone` rules out).
            let x = self.outer.as_mut()?.next();
            if x.is_none() {
                self.outer = None;
                self.current = None;
                return None;
            }
            self.current = x;
            self.inner = self.restart.clone();
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let Some(outer) = &self.outer else {
            return (0, Some(0));
        };
        let (outer_lo, outer_hi) = outer.size_hint();
        let (restart_lo, restart_hi) = self.restart.size_hint();
        let (inner_lo, inner_hi) = if self.current.is_some() {
            self.inner.size_hint()
        } else {
            (0, Some(0))
        };
        let lo = outer_lo.saturating_mul(restart_lo).saturating_add(inner_lo);
        let hi = match (outer_hi, restart_hi, inner_hi) {
            (Some(outer), Some(restart), Some(inner)) => outer
                .checked_mul(restart)
                .and_then(|full| full.checked_add(inner)),
            _ => None,
        };
        (lo, hi)
    }
}

impl<A, B> FusedIterator for Product<A, B>
where
    A: Iterator,
    A::Item: Clone,
    B: Iterator + Clone,
{
}
